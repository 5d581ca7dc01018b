#!/bin/bash
# Run collprof's benchmarks and print their tables (Markdown).
#
# usage: bench/run_benchmarks.sh BUILDDIR
#
# Builds nothing: BUILDDIR must hold lib/libcollprof.so and bench/bench_*
# (`meson setup BUILDDIR && ninja -C BUILDDIR`).  Every program runs under
# mpiexec with 2 ranks, shared-memory UCX transports, and libcollprof.so
# preloaded into the ranks only (-genv, so mpiexec itself is not).  The
# timing benchmarks compare MPI_ (through collprof) with PMPI_ (around it)
# inside one run, interleaved; bench_finalize compares runs with and without
# the library preloaded, alternately.
#
# Environment (all optional):
#   MPIEXEC          launcher (default mpiexec)
#   BENCH_ROUNDS     rounds of the interleaved benchmarks (default 200)
#   BENCH_BATCH      calls per batch (default 1000)
#   BENCH_CALLS      calls of bench_memory and bench_finalize (default 1000000)
#   BENCH_REPEATS    runs of bench_finalize per mode and side (default 3)
#   BENCH_BIND       mpiexec -bind-to value (default core; none to let ranks move)
#   BENCH_MAX_LOAD   1-minute load above which to wait before starting (default 1.0);
#                    the script also waits while other tasks are running now
#   BENCH_LOAD_WAIT  how long to wait at most, seconds (default 180)
set -eu

if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: $0 BUILDDIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
lib="$build/lib/libcollprof.so"
bin="$build/bench"
for f in "$lib" "$bin/bench_overhead" "$bin/bench_families" "$bin/bench_memory" "$bin/bench_patterns" "$bin/bench_finalize"; do
    if [ ! -e "$f" ]; then
        echo "$0: $f not found: build first (ninja -C $1)" >&2
        exit 2
    fi
done

MPIEXEC=${MPIEXEC:-mpiexec}
rounds=${BENCH_ROUNDS:-200}
batch=${BENCH_BATCH:-1000}
calls=${BENCH_CALLS:-1000000}
repeats=${BENCH_REPEATS:-3}
bind=${BENCH_BIND:-core}
max_load=${BENCH_MAX_LOAD:-1.0}
load_wait=${BENCH_LOAD_WAIT:-180}

# Both ranks are on this node: UCX shared memory only (no probing of network
# devices), and shared segments mapped without opening another process's
# /proc/<pid>/fd, which sandboxes may forbid.
export UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n

tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# Every profiled run writes its profile here, never into the caller's cwd.
export COLLPROF_OUTPUT_DIR="$tmp/profile"

# Run a program at 2 ranks, with or without the library preloaded, each rank
# bound to a core of its own: a rank that migrates between the two cores
# makes some batches several times slower, which widens the spread of the
# timings (the medians hold, the quartiles do not).  stderr
# goes to a file: collprof's one closing line ("wrote N files ... in X s")
# is kept out of the tables; anything else is shown.
run() {
    local preload=$1
    shift
    local rc=0
    if [ "$preload" = yes ]; then
        timeout 900 "$MPIEXEC" -bind-to "$bind" -genv LD_PRELOAD "$lib" -n 2 "$@" 2>"$tmp/stderr" || rc=$?
    else
        timeout 900 "$MPIEXEC" -bind-to "$bind" -n 2 "$@" 2>"$tmp/stderr" || rc=$?
    fi
    grep -v '^collprof: wrote ' "$tmp/stderr" >&2 || true
    if [ $rc -ne 0 ]; then
        echo "$0: '$*' failed (exit $rc)" >&2
        exit 1
    fi
}

median() {
    sort -g | awk '{ v[NR] = $1 }
        END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
              else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load1() {
    cut -d' ' -f1 /proc/loadavg
}

# Tasks runnable right now besides the one reading /proc/loadavg, summed
# over ten samples in 2 s (so 10 means one busy task on average).  The load
# average lags by a minute; this sees another job's compile burst now.
running_now() {
    local sum=0 rq
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        # A builtin read: no extra process is running while we look.
        read -r _ _ _ rq _ </proc/loadavg
        sum=$((sum + ${rq%/*} - 1))
        sleep 0.2
    done
    echo "$sum"
}

busy() {
    awk -v l="$(load1)" -v m="$max_load" -v r="$(running_now)" 'BEGIN { exit !(l > m || r > 5) }'
}

# --------------------------------------------------------------- machine

echo "# collprof benchmarks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- cores: $(nproc); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
if [ -r /etc/os-release ]; then
    # shellcheck source=/dev/null
    echo "- OS: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
fi
if command -v mpichversion >/dev/null; then
    echo "- MPI: MPICH $(mpichversion | sed -n 's/^MPICH Version:[ \t]*//p')," \
         "device $(mpichversion | sed -n 's/^MPICH Device:[ \t]*//p')"
fi
echo "- 2 ranks (-bind-to $bind), UCX_TLS=$UCX_TLS UCX_POSIX_USE_PROC_LINK=$UCX_POSIX_USE_PROC_LINK"

# Timings mean little while other jobs share the two cores: wait a while
# for the load to drop and the cores to be idle, then go on and say so.
echo "- uptime before: $(uptime)"
waited=0
while busy; do
    if [ "$waited" -ge "$load_wait" ]; then
        echo "- WARNING: still busy after waiting ${waited} s (load $(load1), limit $max_load," \
             "or other tasks running): other jobs share the machine, timings are noisy"
        break
    fi
    sleep 10
    waited=$((waited + 10))
done
if [ "$waited" -gt 0 ]; then
    echo "- waited ${waited} s for the load to drop; uptime now: $(uptime)"
fi
echo

# ------------------------------------------------------------ benchmarks

run yes "$bin/bench_overhead" "$rounds" "$batch"
run yes "$bin/bench_families" "$((rounds / 2))" "$batch"
run yes "$bin/bench_memory" "$calls"
run yes "$bin/bench_patterns" "$rounds" "$batch"

# bench_finalize: one finalize per run, so compare across runs: with and
# without the library preloaded, alternately, `repeats` times each.
echo "## bench_finalize: MPI_Finalize wall time on rank 0 after $calls MPI_Alltoallv calls, 2 ranks"
echo
echo "median of $repeats runs per cell, with and without libcollprof.so preloaded, alternating;"
echo "\"collprof's own\" is the time collprof reports for its gather, merge and write."
echo
echo "| call sequence | finalize without | finalize with | added by collprof | collprof's own | profile size | calls loop without | calls loop with |"
echo "|---|---|---|---|---|---|---|---|"
for mode in one alt; do
    : >"$tmp/fin.yes"
    : >"$tmp/fin.no"
    : >"$tmp/own"
    : >"$tmp/loop.yes"
    : >"$tmp/loop.no"
    : >"$tmp/size"
    for i in $(seq "$repeats"); do
        for side in yes no; do
            export COLLPROF_OUTPUT_DIR="$tmp/fin-$mode-$i"
            out=$(run "$side" "$bin/bench_finalize" "$mode" "$calls")
            prof=$(echo "$out" | sed -n 's/.* profiler=\([a-z]*\).*/\1/p')
            if [ "$prof" != "$side" ]; then
                echo "$0: bench_finalize: expected profiler=$side, got '$out'" >&2
                exit 1
            fi
            echo "$out" | sed -n 's/.* finalize_s=\([0-9.]*\).*/\1/p' >>"$tmp/fin.$side"
            echo "$out" | sed -n 's/.* calls_s=\([0-9.]*\).*/\1/p' >>"$tmp/loop.$side"
            if [ "$side" = yes ]; then
                sed -n 's/^collprof: wrote .* in \([0-9.]*\) s$/\1/p' "$tmp/stderr" >>"$tmp/own"
                du -sb "$COLLPROF_OUTPUT_DIR" | cut -f1 >>"$tmp/size"
            fi
            rm -rf "$COLLPROF_OUTPUT_DIR"
        done
    done
    fy=$(median <"$tmp/fin.yes")
    fn=$(median <"$tmp/fin.no")
    label=$([ "$mode" = one ] && echo "one pattern (A A A ...)" || echo "two patterns (A B A B ...)")
    awk -v label="$label" -v fy="$fy" -v fn="$fn" -v own="$(median <"$tmp/own")" \
        -v size="$(median <"$tmp/size")" -v ly="$(median <"$tmp/loop.yes")" \
        -v ln="$(median <"$tmp/loop.no")" 'BEGIN {
        printf "| %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.0f KiB | %.2f s | %.2f s |\n",
               label, fn * 1e3, fy * 1e3, (fy - fn) * 1e3, own * 1e3, size / 1024, ln, ly }'
done
echo

echo "- uptime after: $(uptime)"
