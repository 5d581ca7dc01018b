#!/bin/bash
# Run collprof's benchmarks and print their tables (Markdown).
#
# usage: bench/run_benchmarks.sh BUILDDIR
#
# Builds nothing: BUILDDIR must hold lib/libcollprof.so and bench/bench_*
# (`meson setup BUILDDIR && ninja -C BUILDDIR`).  Every program runs under
# mpiexec with 2 ranks, shared-memory UCX transports, and libcollprof.so
# preloaded into the ranks only (-genv or -x, so mpiexec itself is not).  The
# timing benchmarks compare MPI_ (through collprof) with PMPI_ (around it)
# inside one run, interleaved; bench_finalize compares runs with and without
# the library preloaded, alternately.  The first sections run with
# collprof's default configuration (or whatever COLLPROF_* the caller set);
# the timing collector section sets COLLPROF_TIMING and
# COLLPROF_TIMING_MAX_CALLS itself, run by run.
#
# Environment (all optional):
#   MPIEXEC          launcher (default: that of the build's default MPI, the one
#                    libcollprof.so is for: mpiexec.mpich or mpiexec.openmpi where
#                    it exists, else mpiexec; a build for Open MPI alone,
#                    -Dmpi=openmpi, measures Open MPI)
#   BENCH_ROUNDS     rounds of the interleaved benchmarks (default 200)
#   BENCH_BATCH      calls per batch (default 1000)
#   BENCH_CALLS      calls of bench_memory and bench_finalize (default 1000000)
#   BENCH_REPEATS    runs of bench_finalize per mode and side (default 3)
#   BENCH_TIMING_REPEATS  runs of bench_overhead per COLLPROF_TIMING mode (and of
#                    bench_callsite per COLLPROF_CALLSITE_DEPTH) in the
#                    timing collector section (default 5)
#   BENCH_SECTIONS   which benchmarks to run, a space-separated list of:
#                    hotpath overhead families memory patterns finalize timing
#                    callsite churn (default: all of them)
#   BENCH_HOTPATH_REPEATS  cycles of the hot-path section (default 7)
#   BENCH_CHURN      cycles of bench_comms (default 10000)
#   BENCH_BIND       mpiexec -bind-to value (default core; none to let ranks move)
#   BENCH_MAX_LOAD   1-minute load above which to wait before starting (default 1.0);
#                    the script also waits while other tasks are running now
#   BENCH_LOAD_WAIT  how long to wait at most, seconds (default 180)
set -eu

# Internal: one preloaded 2-rank run with the caller's environment
# (--run-one MPIEXEC BIND LIB PROGRAM ARGS...), so that `env VAR=...` can
# set collprof's variables for that run alone.
# Either MPI's launcher syntax (MPICH's Hydra, Open MPI's ORTE).
. "$(dirname "$0")/../tests/mpi/launcher.sh"
if [ "${1:-}" = "--run-one" ]; then
    shift
    m=$1 b=$2 l=$3
    shift 3
    launcher_init "$m"
    exec timeout 900 "$m" $LAUNCH_ARGS -bind-to "$b" $(launch_preload "$l") -n 2 "$@" 2>/dev/null
fi
if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: $0 BUILDDIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
lib="$build/lib/libcollprof.so"
bin="$build/bench"
for f in "$lib" "$bin/bench_overhead" "$bin/bench_families" "$bin/bench_memory" "$bin/bench_patterns" "$bin/bench_finalize" "$bin/bench_callsite" "$bin/bench_comms"; do
    if [ ! -e "$f" ]; then
        echo "$0: $f not found: build first (ninja -C $1)" >&2
        exit 2
    fi
done

# The launcher of the build's default MPI (libcollprof.so's).
mpi=$(build_mpi "$build")
MPIEXEC=${MPIEXEC:-$(command -v "mpiexec.$mpi" || echo mpiexec)}
launcher_init "$MPIEXEC"
rounds=${BENCH_ROUNDS:-200}
batch=${BENCH_BATCH:-1000}
calls=${BENCH_CALLS:-1000000}
repeats=${BENCH_REPEATS:-3}
bind=${BENCH_BIND:-core}
max_load=${BENCH_MAX_LOAD:-1.0}
load_wait=${BENCH_LOAD_WAIT:-180}
timing_repeats=${BENCH_TIMING_REPEATS:-5}
sections=" ${BENCH_SECTIONS:-hotpath overhead families memory patterns finalize timing callsite churn} "
hotpath_repeats=${BENCH_HOTPATH_REPEATS:-7}
churn=${BENCH_CHURN:-10000}

want() {
    case "$sections" in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

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
        timeout 900 "$MPIEXEC" $LAUNCH_ARGS -bind-to "$bind" $(launch_preload "$lib") -n 2 "$@" \
            2>"$tmp/stderr" || rc=$?
    else
        timeout 900 "$MPIEXEC" $LAUNCH_ARGS -bind-to "$bind" -n 2 "$@" 2>"$tmp/stderr" || rc=$?
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

# "median [min–max]" of the numbers on stdin, with printf format $1.
med_range() {
    sort -g | awk -v f="$1" '{ v[NR] = $1 }
        END { if (NR == 0) { print "n/a"; exit }
              m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf f " [" f "–" f "]\n", m, v[1], v[NR] }'
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
if [ "$mpi" = openmpi ]; then
    echo "- MPI: $(ompi_info --version 2>/dev/null | head -1), launched by $MPIEXEC $LAUNCH_ARGS"
elif command -v mpichversion >/dev/null; then
    echo "- MPI: MPICH $(mpichversion | sed -n 's/^MPICH Version:[ \t]*//p')," \
         "device $(mpichversion | sed -n 's/^MPICH Device:[ \t]*//p')"
fi
echo "- 2 ranks (-bind-to $bind), UCX_TLS=$UCX_TLS UCX_POSIX_USE_PROC_LINK=$UCX_POSIX_USE_PROC_LINK"

# Every table says where it ran: under each section's heading (this
# script's and the benchmark programs' own), the CPU model and the MPI.
cpu_model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
if [ "$mpi" = openmpi ]; then
    mpi_line=$(ompi_info --version 2>/dev/null | head -1)
else
    mpi_line="MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[ \t]*//p')"
fi
exec 3>&1
exec > >(awk -v m="CPU: $cpu_model; MPI: $mpi_line" \
    '{ print } /^## / { print ""; print "_" m "_" } { fflush() }' >&3)
headings=$!
trap 'rm -rf "$tmp"; exec >&-; wait "$headings" 2>/dev/null' EXIT
echo "- collprof settings of the first sections: COLLPROF_TIMING=${COLLPROF_TIMING:-(default, passive)}," \
     "COLLPROF_TIMING_MAX_CALLS=${COLLPROF_TIMING_MAX_CALLS:-(default, 65536)}"

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

# The hot path, setting by setting: bench_overhead (MPI_ vs PMPI_
# interleaved inside each run) under four settings that each switch on one
# more part, run after run in turn (wrapper, counts, timing, defaults,
# wrapper, ...), so that the difference between consecutive settings in one
# cycle is what that part costs:
#   wrapper   COLLPROF_COLLECTIVES=barrier: the Alltoallv wrapper only checks
#             that it is not asked for and passes the call through;
#   counts    COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=0: communicator
#             lookup, capture, signature, call sequence;
#   timing    COLLPROF_CALLSITE_DEPTH=0: + two clock reads, the sample slot
#             and the aggregates;
#   defaults  + the call path of depth 1.
if want hotpath; then
hsets="wrapper counts timing defaults"
for h in $hsets; do : >"$tmp/h.$h.added"; : >"$tmp/h.$h.paired"; : >"$tmp/h.$h.without"; done
for h in counts timing defaults; do : >"$tmp/hd.$h"; done
for i in $(seq "$hotpath_repeats"); do
    for h in $hsets; do
        case $h in
            wrapper) envs="COLLPROF_COLLECTIVES=barrier" ;;
            counts) envs="COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=0" ;;
            timing) envs="COLLPROF_CALLSITE_DEPTH=0" ;;
            defaults) envs="" ;;
        esac
        export COLLPROF_OUTPUT_DIR="$tmp/hotpath-$h-$i"
        # shellcheck disable=SC2086
        out=$(env $envs "$0" --run-one "$MPIEXEC" "$bind" "$lib" "$bin/bench_overhead" \
              "$rounds" "$batch" lines)
        rm -rf "$COLLPROF_OUTPUT_DIR"
        line=$(echo "$out" | grep "^bench_overhead op=alltoallv ") || {
            echo "$0: hotpath: no alltoallv line in '$out'" >&2
            exit 1
        }
        for col in added paired without; do
            echo "$line" | sed -n "s/.* ${col}_*[a-z]*=\([-0-9.]*\).*/\1/p" >>"$tmp/h.$h.$col"
        done
    done
    prev=wrapper
    for h in counts timing defaults; do
        paste "$tmp/h.$h.paired" "$tmp/h.$prev.paired" | tail -n 1 |
            awk '{ printf "%.1f\n", $1 - $2 }' >>"$tmp/hd.$h"
        prev=$h
    done
done
echo "## Hot path: added time per MPI_Alltoallv call (1 int per peer, 2 ranks), setting by setting"
echo
echo "bench_overhead ($rounds rounds x $batch calls per batch and side, MPI_ vs PMPI_ interleaved"
echo "inside each run), the four settings in turn, $hotpath_repeats cycles; ns per call, median over"
echo "the cycles [min–max]. *part* is the paired diff minus that of the setting before it in the"
echo "same cycle: what that part of the hot path costs."
echo
echo "| setting | bare call (PMPI_) | added, paired diff | added, difference of medians | part | target |"
echo "|---|---|---|---|---|---|"
for h in $hsets; do
    case $h in
        wrapper) target="-"; part="-" ;;
        counts) target="<= 25"; part="counts: $(med_range %.0f <"$tmp/hd.counts")" ;;
        timing) target="<= 50"; part="timing: $(med_range %.0f <"$tmp/hd.timing")" ;;
        defaults) target="<= 55"; part="call path: $(med_range %.0f <"$tmp/hd.defaults")" ;;
    esac
    verdict=""
    if [ "$target" != "-" ]; then
        verdict=$(median <"$tmp/h.$h.paired" |
            awk -v t="${target#<= }" '{ print ($1 <= t ? " (met)" : " (MISSED)") }')
    fi
    echo "| $h | $(median <"$tmp/h.$h.without" | xargs printf %.0f)" \
         "| $(med_range %.0f <"$tmp/h.$h.paired") | $(med_range %.0f <"$tmp/h.$h.added")" \
         "| $part | $target$verdict |"
done
echo
echo "These numbers are for this build's code placement. On some CPUs the same code costs"
echo "very differently where the linker happens to put it (MPICH on an AMD EPYC VM: 26 to 52 ns"
echo "counts only, docs/performance.md): bench/hotpath_placements.sh measures a source tree"
echo "over several placements, the way to compare two versions."
echo
fi

if want overhead; then run yes "$bin/bench_overhead" "$rounds" "$batch"; fi
if want families; then run yes "$bin/bench_families" "$((rounds / 2))" "$batch"; fi
# The closing summary takes its numbers from each section's output.
mem_out="" pat_out="" churn_out=""
if want memory; then
    mem_out=$(run yes "$bin/bench_memory" "$calls")
    echo "$mem_out"
fi
if want patterns; then
    pat_out=$(run yes "$bin/bench_patterns" "$rounds" "$batch")
    echo "$pat_out"
fi

# bench_finalize: one finalize per run, so compare across runs: with and
# without the library preloaded, alternately, `repeats` times each.
if want finalize; then
echo "## bench_finalize: MPI_Finalize wall time on rank 0 after $calls MPI_Alltoallv calls, 2 ranks"
echo
echo "median of $repeats runs per cell, with and without libcollprof.so preloaded, alternating;"
echo "\"collprof's own\" is the time collprof reports for its gather, merge and write."
echo
echo "| call sequence | finalize without | finalize with | added by collprof | collprof's own | profile size | calls loop without | calls loop with |"
echo "|---|---|---|---|---|---|---|---|"
for mode in one alt cycle32; do
    : >"$tmp/fin.yes"
    : >"$tmp/fin.no"
    : >"$tmp/own"
    : >"$tmp/loop.yes"
    : >"$tmp/loop.no"
    : >"$tmp/size"
    : >"$tmp/csize.$mode"
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
                cat "$COLLPROF_OUTPUT_DIR"/*-counters.* | wc -c >>"$tmp/csize.$mode"
            fi
            rm -rf "$COLLPROF_OUTPUT_DIR"
        done
    done
    fy=$(median <"$tmp/fin.yes")
    fn=$(median <"$tmp/fin.no")
    median <"$tmp/own" >"$tmp/own.$mode"
    case $mode in
        one) label="one pattern (A A A ...)" ;;
        alt) label="two patterns (A B A B ...)" ;;
        *) label="cycle of 32 patterns" ;;
    esac
    awk -v label="$label" -v fy="$fy" -v fn="$fn" -v own="$(median <"$tmp/own")" \
        -v size="$(median <"$tmp/size")" -v ly="$(median <"$tmp/loop.yes")" \
        -v ln="$(median <"$tmp/loop.no")" 'BEGIN {
        printf "| %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.0f KiB | %.2f s | %.2f s |\n",
               label, fn * 1e3, fy * 1e3, (fy - fn) * 1e3, own * 1e3, size / 1024, ln, ly }'
done
echo
fi


# ------------------------------------------------- timing collector

# Cost per call of the timing collector: bench_overhead (MPI_ vs PMPI_
# interleaved inside each run) under three settings, in turn, run after run:
#   off      COLLPROF_TIMING=off: counts only;
#   passive  COLLPROF_TIMING=passive with a pool larger than any sample
#            (every series keeps its sample of COLLPROF_TIMING_SAMPLE calls);
#   past     COLLPROF_TIMING=passive, COLLPROF_TIMING_MAX_CALLS=0: no pool,
#            every call only adds to the exact aggregates.
# The timing collector's cost is the difference of the added cost per call
# between consecutive runs (passive - off, past - off), one difference per
# cycle; the table gives their median and range over the cycles.
if want timing; then
# bench_overhead makes 3 operations x (2000 warm-up + rounds x batch) MPI_
# calls per rank; it prints that number (mpi_calls), checked below.
budget=$((4 * (rounds * batch + 2000)))
tmodes="off passive past"
ops="alltoallv alltoall ialltoallv_wait"
for m in $tmodes; do
    for op in $ops; do
        for col in without with added paired ratio; do
            : >"$tmp/t.$m.$op.$col"
        done
        : >"$tmp/d.$m.$op.paired"
        : >"$tmp/d.$m.$op.added"
    done
done
for i in $(seq "$timing_repeats"); do
    for m in $tmodes; do
        case $m in
            off) tm=off max=$budget ;;
            passive) tm=passive max=$budget ;;
            past) tm=passive max=0 ;;
        esac
        export COLLPROF_OUTPUT_DIR="$tmp/timing-$m-$i"
        out=$(COLLPROF_TIMING=$tm COLLPROF_TIMING_MAX_CALLS=$max \
              run yes "$bin/bench_overhead" "$rounds" "$batch" lines)
        rm -rf "$COLLPROF_OUTPUT_DIR"
        for op in $ops; do
            line=$(echo "$out" | grep "^bench_overhead op=$op ") || {
                echo "$0: bench_overhead lines: no line for $op in '$out'" >&2
                exit 1
            }
            for col in without with added paired ratio; do
                echo "$line" | sed -n "s/.* ${col}_*[a-z]*=\([-0-9.]*\).*/\1/p" \
                    >>"$tmp/t.$m.$op.$col"
            done
            n=$(echo "$line" | sed -n 's/.* mpi_calls=\([0-9]*\).*/\1/p')
            if [ "$m" = passive ] && [ "$n" -gt "$budget" ]; then
                echo "$0: bench_overhead made $n calls, more than the budget $budget" >&2
                exit 1
            fi
        done
    done
    for op in $ops; do
        for m in passive past; do
            for col in paired added; do
                paste "$tmp/t.$m.$op.$col" "$tmp/t.off.$op.$col" | tail -n 1 |
                    awk '{ printf "%.1f\n", $1 - $2 }' >>"$tmp/d.$m.$op.$col"
            done
        done
    done
done
opname() {
    case $1 in
        alltoallv) echo "MPI_Alltoallv" ;;
        alltoall) echo "MPI_Alltoall" ;;
        *) echo "MPI_Ialltoallv + MPI_Wait" ;;
    esac
}
echo "## Timing collector: added time per call, COLLPROF_TIMING off / passive / passive past the budget"
echo
echo "bench_overhead ($rounds rounds x $batch calls per batch and side, MPI_ vs PMPI_ interleaved"
echo "inside each run), $timing_repeats runs per setting, the settings in turn (off, passive, past, off, ...):"
echo "off = COLLPROF_TIMING=off (counts only); passive = COLLPROF_TIMING=passive,"
echo "COLLPROF_TIMING_MAX_CALLS=$budget (each series keeps its sample); past = COLLPROF_TIMING=passive,"
echo "COLLPROF_TIMING_MAX_CALLS=0 (no sample: exact aggregates only)."
echo "ns per call; median over the runs [min–max]; without/with/ratio: medians."
echo
echo "| operation | setting | without (PMPI_) | with (MPI_) | added ns/call | paired diff | ratio |"
echo "|---|---|---|---|---|---|---|"
for op in $ops; do
    for m in $tmodes; do
        echo "| $(opname "$op") | $m | $(median <"$tmp/t.$m.$op.without" | xargs printf %.0f)" \
             "| $(median <"$tmp/t.$m.$op.with" | xargs printf %.0f)" \
             "| $(med_range %.0f <"$tmp/t.$m.$op.added")" \
             "| $(med_range %.0f <"$tmp/t.$m.$op.paired")" \
             "| $(median <"$tmp/t.$m.$op.ratio" | xargs printf %.3f) |"
    done
done
echo
echo "Cost of the timing collector: difference to the off run of the same cycle, median over"
echo "the $timing_repeats cycles [min–max], ns per call; from the paired diffs (the robust estimate)"
echo "and from the added ns/call."
echo
echo "| operation | passive − off, paired | passive − off, added | past − off, paired | past − off, added | target passive − off <= 60 ns |"
echo "|---|---|---|---|---|---|"
for op in $ops; do
    verdict=$(median <"$tmp/d.passive.$op.paired" | awk '{ print ($1 <= 60 ? "met" : "MISSED") }')
    echo "| $(opname "$op") | $(med_range %.0f <"$tmp/d.passive.$op.paired")" \
         "| $(med_range %.0f <"$tmp/d.passive.$op.added")" \
         "| $(med_range %.0f <"$tmp/d.past.$op.paired")" \
         "| $(med_range %.0f <"$tmp/d.past.$op.added") | $verdict |"
done
echo

# Finalize after `calls` timed calls: bench_finalize one pattern, without
# the library, with it and COLLPROF_TIMING=off, with it and passive with a
# budget of every call; in turn, `repeats` times.
echo "## Timing collector: MPI_Finalize after $calls timed MPI_Alltoallv calls (one pattern), 2 ranks"
echo
echo "median of $repeats runs per row [min–max], the three settings in turn; passive:"
echo "COLLPROF_TIMING_MAX_CALLS=$calls, so every call keeps its record. \"collprof's own\" is the time"
echo "collprof reports for its finalize work (stderr); sizes are those of timings.cpt and of the"
echo "whole output directory."
echo
echo "| setting | finalize (rank 0) | added over no library | collprof's own | timings.cpt | whole output | calls loop |"
echo "|---|---|---|---|---|---|---|"
fsides="none off passive"
for s in $fsides; do
    for col in fin own cpt size loop; do
        : >"$tmp/f.$s.$col"
    done
done
for i in $(seq "$repeats"); do
    for s in $fsides; do
        export COLLPROF_OUTPUT_DIR="$tmp/tfin-$s-$i"
        if [ "$s" = none ]; then
            out=$(run no "$bin/bench_finalize" one "$calls")
            want_prof=no
        else
            out=$(COLLPROF_TIMING=$s COLLPROF_TIMING_MAX_CALLS=$calls \
                  run yes "$bin/bench_finalize" one "$calls")
            want_prof=yes
        fi
        prof=$(echo "$out" | sed -n 's/.* profiler=\([a-z]*\).*/\1/p')
        if [ "$prof" != "$want_prof" ]; then
            echo "$0: bench_finalize: expected profiler=$want_prof, got '$out'" >&2
            exit 1
        fi
        echo "$out" | sed -n 's/.* finalize_s=\([0-9.]*\).*/\1/p' >>"$tmp/f.$s.fin"
        echo "$out" | sed -n 's/.* calls_s=\([0-9.]*\).*/\1/p' >>"$tmp/f.$s.loop"
        if [ "$s" != none ]; then
            sed -n 's/^collprof: wrote .* in \([0-9.]*\) s$/\1/p' "$tmp/stderr" >>"$tmp/f.$s.own"
            du -sb "$COLLPROF_OUTPUT_DIR" | cut -f1 >>"$tmp/f.$s.size"
            if [ -e "$COLLPROF_OUTPUT_DIR/timings.cpt" ]; then
                stat -c %s "$COLLPROF_OUTPUT_DIR/timings.cpt" >>"$tmp/f.$s.cpt"
            else
                echo 0 >>"$tmp/f.$s.cpt"
            fi
        fi
        rm -rf "$COLLPROF_OUTPUT_DIR"
    done
done
human() {
    awk '{ if ($1 >= 1048576) printf "%.1f MiB", $1 / 1048576; else printf "%.0f KiB", $1 / 1024 }'
}
fnone=$(median <"$tmp/f.none.fin")
for s in $fsides; do
    label=$(case $s in none) echo "without the library" ;; off) echo "COLLPROF_TIMING=off" ;;
            *) echo "COLLPROF_TIMING=passive" ;; esac)
    fin=$(awk '{ printf "%.1f\n", $1 * 1e3 }' "$tmp/f.$s.fin" | med_range %.1f)
    added=$(median <"$tmp/f.$s.fin" | awk -v n="$fnone" '{ printf "%.1f ms", ($1 - n) * 1e3 }')
    if [ "$s" = none ]; then
        own="–" cpt="–" size="–" added="–"
    else
        own="$(awk '{ printf "%.1f\n", $1 * 1e3 }' "$tmp/f.$s.own" | med_range %.1f) ms"
        cpt=$(median <"$tmp/f.$s.cpt" | human)
        size=$(median <"$tmp/f.$s.size" | human)
    fi
    echo "| $label | $fin ms | $added | $own | $cpt | $size | $(med_range %.2f <"$tmp/f.$s.loop") s |"
done
echo
fi

# ---------------------------------------------------- callsite collector

# Cost per call of the callsite collector: bench_callsite (MPI_Alltoallv at
# the bottom of 10 nested functions, MPI_ vs PMPI_ interleaved inside each
# run) under COLLPROF_CALLSITE_DEPTH=0 (off), 1, 4 and 8 in turn, run after
# run, with COLLPROF_TIMING=off (counts only).  The collector's cost at a
# depth is the difference to the depth-0 run of the same cycle.
if want callsite; then
depths="0 1 4 8"
for d in $depths; do
    : >"$tmp/cs.$d.added"
    : >"$tmp/cs.$d.diff"
done
for i in $(seq "$timing_repeats"); do
    for d in $depths; do
        export COLLPROF_OUTPUT_DIR="$tmp/callsite-$d-$i"
        out=$(COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=$d run yes "$bin/bench_callsite" "$rounds" "$batch")
        echo "$out" | sed -n 's/.* paired_ns=\([-0-9.]*\).*/\1/p' >"$tmp/cs.$d.now"
        cat "$tmp/cs.$d.now" >>"$tmp/cs.$d.added"
        rm -rf "$COLLPROF_OUTPUT_DIR"
    done
    for d in $depths; do
        paste "$tmp/cs.$d.now" "$tmp/cs.0.now" | awk '{ printf "%.1f\n", $1 - $2 }' >>"$tmp/cs.$d.diff"
    done
done
echo "## Callsite collector: added time per MPI_Alltoallv call, 2 ranks, 10 nested frames"
echo
echo "$timing_repeats runs per depth, depths in turn (0 1 4 8, 0 1 4 8, ...), COLLPROF_TIMING=off;"
echo "ns per call, median [min–max] over the runs of the paired MPI_ − PMPI_ difference, and of"
echo "the difference to the depth-0 run of the same cycle."
echo
echo "| COLLPROF_CALLSITE_DEPTH | added ns/call (paired) | more than depth 0 | target at depth 4: < 300 ns |"
echo "|---|---|---|---|"
for d in $depths; do
    more=$(med_range "%.0f" <"$tmp/cs.$d.diff")
    verdict=-
    if [ "$d" = 4 ]; then
        verdict=$(sort -g "$tmp/cs.$d.added" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print (m < 300 ? "met" : "**missed**") }')
    fi
    echo "| $d | $(med_range "%.0f" <"$tmp/cs.$d.added") | $more | $verdict |"
done
echo
fi

# Communicator churn: MPI_Comm_dup + MPI_Alltoallv + MPI_Comm_free, chunks
# without and with the profiler in turn inside one run (bench_comms).
if want churn; then
    export COLLPROF_OUTPUT_DIR="$tmp/churn"
    churn_out=$(run yes "$bin/bench_comms" "$churn" 10)
    echo "$churn_out"
    grep '^collprof: wrote ' "$tmp/stderr" | sed 's/^/collprof: /;s/^collprof: collprof:/collprof:/' || true
    rm -rf "$COLLPROF_OUTPUT_DIR"
    echo
fi

# ---------------------------------------------------------------- summary

# Field f (|-separated) of the row of table text $1 whose first cell starts
# with $2.
cell() {
    echo "$1" | awk -F'|' -v k="$2" -v f="$3" 'index($2, " " k) == 1 { gsub(/^ +| +$/, "", $f); print $f; exit }'
}
echo "## Summary: the numbers of this run against the targets"
echo
echo "| what | measured | target |"
echo "|---|---|---|"
if want hotpath; then
    echo "| bare MPI_Alltoallv (PMPI_), 1 int per peer | $(median <"$tmp/h.counts.without" | xargs printf %.0f) ns | - |"
    echo "| added: counts only | $(med_range %.0f <"$tmp/h.counts.paired") ns | <= 25 ns |"
    echo "| added: counts + timing | $(med_range %.0f <"$tmp/h.timing.paired") ns | <= 50 ns |"
    echo "| added: defaults (+ call path depth 1) | $(med_range %.0f <"$tmp/h.defaults.paired") ns | <= 55 ns |"
fi
if [ -n "$mem_out" ]; then
    echo "| RSS added after $calls calls, one pattern | $(cell "$mem_out" "one pattern" 6) | <= 1 MiB |"
    echo "| RSS added after $calls calls, cycle of 32 patterns | $(cell "$mem_out" "cycle of 32" 6) | <= 1 MiB |"
fi
if want finalize && [ -s "$tmp/csize.cycle32" ]; then
    echo "| count files after $calls calls, cycle of 32 patterns | $(median <"$tmp/csize.cycle32" | awk '{ printf "%.1f KiB", $1 / 1024 }') | <= 64 KiB |"
    echo "| collprof's finalize, same run | $(awk '{ printf "%.3f s", $1 }' "$tmp/own.cycle32") | <= 0.1 s |"
fi
if [ -n "$pat_out" ]; then
    echo "| seen-before call, 100,000 / 1,000 distinct patterns | $(cell "$pat_out" "paired diff, 100000" 3)x | <= 1.3x |"
    echo "| never-seen pattern (table growing to 1,000 / 100,000), added | $(cell "$pat_out" "a never-seen pattern, table growing to 1000:" 3) / $(cell "$pat_out" "a never-seen pattern, table growing to 100000:" 3) ns | <= 500 ns |"
fi
if [ -n "$churn_out" ]; then
    echo "| communicator churn ($churn cycles): added per cycle, first / last chunk | $(echo "$churn_out" | sed -n 's/.*added \([0-9.]*\); added in the first chunk \([0-9.]*\), in the last \([0-9.]*\)/\1 us (\2 \/ \3)/p') | <= 5 us, flat |"
    echo "| same: RSS added / MPI_Finalize | $(echo "$churn_out" | sed -n 's/^resident memory added by the profiled cycles: \([0-9]*\) KiB.*/\1 KiB/p') / $(echo "$churn_out" | sed -n 's/^MPI_Finalize: //p') | <= 16 MiB / <= 0.3 s |"
fi
echo

echo "- uptime after: $(uptime)"
