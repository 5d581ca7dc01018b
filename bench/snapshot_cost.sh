#!/bin/bash
# What snapshots (COLLPROF_SNAPSHOT) cost a running application: a run of
# CALLS MPI_Alltoallv at 2 ranks bound to cores, each call one of PATTERNS
# count matrices drawn at random (the largest state for its calls: no
# progression folds them), timed whole with snapshots off and one every
# second (30 times the default's rate), interleaved, ROUNDS rounds; and
# each snapshot's own time (COLLPROF_VERBOSE=2 says it).  Prints the CPU,
# the load, and a Markdown table: medians, the ratio, and the cost at the
# default interval (the median snapshot's time over 30 s).
#
# usage: bench/snapshot_cost.sh BUILDDIR [ROUNDS=5] [CALLS=2000000] [PATTERNS=1000]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-5}
calls=${3:-2000000}
patterns=${4:-1000}
app=$build/bench/bench_pattern_run
lib=$build/lib/libcollprof-mpich.so
[ -x "$app" ] && [ -f "$lib" ] || { echo "build $build first (bench_pattern_run, the MPICH library)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-snapshot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export UCX_TLS=${UCX_TLS:-sm,self} UCX_POSIX_USE_PROC_LINK=${UCX_POSIX_USE_PROC_LINK:-n}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')  "
echo "MPI: mpiexec.mpich; load before: $(cut -d' ' -f1-3 /proc/loadavg)  "
echo "$calls calls of MPI_Alltoallv, $patterns patterns at random, 2 ranks bound to cores, $rounds rounds  "
echo
for i in $(seq "$rounds"); do
    for s in off 1; do
        out=$tmp/out.$s.$i
        start=$(date +%s.%N)
        COLLPROF_SNAPSHOT=$s COLLPROF_VERBOSE=2 COLLPROF_TIMING=off COLLPROF_OUTPUT_DIR=$out \
            mpiexec.mpich -bind-to core -n 2 -env LD_PRELOAD "$lib" "$app" "$calls" "$patterns" random \
            >/dev/null 2>"$tmp/err.$s.$i"
        end=$(date +%s.%N)
        echo "$end - $start" | bc >>"$tmp/wall.$s"
        sed -n 's/^collprof: rank [0-9]* wrote a snapshot of its state .* in \([0-9.]*\) ms$/\1/p' \
            "$tmp/err.$s.$i" >>"$tmp/snap.$s"
        rm -rf "$out"
    done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
off=$(median "$tmp/wall.off")
on=$(median "$tmp/wall.1")
n=$(wc -l <"$tmp/snap.1")
snap=$(median "$tmp/snap.1")
max=$(sort -g "$tmp/snap.1" | tail -1)
echo "| setting | runs | run time, median (s) | ratio to off | snapshots written | per snapshot, median (ms) | max (ms) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "| COLLPROF_SNAPSHOT=off | $rounds | $off | 1 | 0 | - | - |"
echo "| COLLPROF_SNAPSHOT=1 | $rounds | $on | $(echo "scale=4; $on / $off" | bc) | $n | $snap | ${max:-0} |"
echo
echo "At the default (one every 30 s) a rank spends $(echo "scale=4; $snap / 30000 * 100" | bc) % of its time in snapshots of this state (the median snapshot's time over 30 s)."
