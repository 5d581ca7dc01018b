#!/bin/bash
# What snapshots (COLLPROF_SNAPSHOT) cost a running application: runs of
# CALLS MPI_Alltoallv at 2 ranks bound to cores, each call one of PATTERNS
# count matrices, cycled (a small state: progressions fold the calls) or at
# random (the largest state for its calls), counting only and with the
# defaults (timing on: a snapshot then holds the timing sample too), timed
# whole with snapshots off and one every second (30 times the default's
# rate), interleaved, ROUNDS rounds; and each snapshot's own time
# (COLLPROF_VERBOSE=2 says it).  Prints the CPU, the load, and a Markdown
# table of medians.
#
# usage: bench/snapshot_cost.sh BUILDDIR [ROUNDS=3] [CALLS=2000000]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-3}
calls=${3:-2000000}
app=$build/bench/bench_pattern_run
lib=$build/lib/libcollprof-mpich.so
[ -x "$app" ] && [ -f "$lib" ] || { echo "build $build first (bench_pattern_run, the MPICH library)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-snapshot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export UCX_TLS=${UCX_TLS:-sm,self} UCX_POSIX_USE_PROC_LINK=${UCX_POSIX_USE_PROC_LINK:-n}

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')  "
echo "MPI: mpiexec.mpich; load before: $(cut -d' ' -f1-3 /proc/loadavg)  "
echo "$calls calls of MPI_Alltoallv per run, 2 ranks bound to cores, $rounds rounds, interleaved"
echo
echo "| workload | COLLPROF_TIMING | COLLPROF_SNAPSHOT | run time, median (s) | ratio to off | snapshots per run | per snapshot, median (ms) | max (ms) |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for w in "32 cycle off" "1000 random off" "32 cycle passive" "1000 random passive"; do
    set -- $w
    key=$1.$2.$3
    for i in $(seq "$rounds"); do
        for s in off 1; do
            out=$tmp/out
            start=$(date +%s.%N)
            COLLPROF_SNAPSHOT=$s COLLPROF_VERBOSE=2 COLLPROF_TIMING=$3 COLLPROF_OUTPUT_DIR=$out \
                mpiexec.mpich -bind-to core -n 2 -env LD_PRELOAD "$lib" "$app" "$calls" $1 $2 \
                >/dev/null 2>"$tmp/err"
            end=$(date +%s.%N)
            echo "$end - $start" | bc >>"$tmp/wall.$key.$s"
            sed -n 's/^collprof: rank [0-9]* wrote a snapshot of its state .* in \([0-9.]*\) ms$/\1/p' \
                "$tmp/err" >>"$tmp/snap.$key.$s"
            grep -c 'wrote a snapshot' "$tmp/err" >>"$tmp/count.$key.$s" || true
            rm -rf "$out"
        done
    done
    off=$(median "$tmp/wall.$key.off")
    for s in off 1; do
        t=$(median "$tmp/wall.$key.$s")
        echo "| $calls calls, $1 patterns, $2 | $3 | $s | $t | $(echo "scale=3; $t / $off" | bc) | $(median "$tmp/count.$key.$s") | $(median "$tmp/snap.$key.$s") | $(sort -g "$tmp/snap.$key.$s" | tail -1) |"
    done
done
