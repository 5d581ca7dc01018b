#!/bin/sh
# MPI_Finalize with collprof at 2, 8, 16 and 32 ranks: 20 MPI_Alltoall and
# 20 irregular MPI_Alltoallv on MPI_COMM_WORLD (bench_finalize mixed), then
# rank 0's wall time of MPI_Finalize, with and without collprof, runs
# alternating, the median of REPEATS; and, from COLLPROF_VERBOSE=2, how long
# each finalize stage took on rank 0 (median).  More ranks than cores:
# MPICH busy-polls, so each collective of finalize costs milliseconds here;
# the table shows how the cost grows, not what a cluster would see.
#
# usage: bench/finalize_ranks.sh BUILDDIR [MPIEXEC [REPEATS]]
set -eu
build=$(cd "${1:?usage: bench/finalize_ranks.sh BUILDDIR [MPIEXEC [REPEATS]]}" && pwd)
mpiexec=${2:-mpiexec.mpich}
repeats=${3:-3}
. "$(dirname "$0")/../tests/mpi/launcher.sh"
launcher_init "$mpiexec"
lib=$build/lib/libcollprof.so
exe=$build/bench/bench_finalize
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print NR ? v[int((NR+1)/2)] : "-"}'; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
stages="call paths|tables to leads|numbering|count files|timing|timings.cpt"
echo "| ranks | finalize without | finalize with | call paths | tables to leads | numbering | count files | timing | timings.cpt |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 2 8 16 32; do
    : >"$tmp/with" && : >"$tmp/without" && : >"$tmp/stages"
    for i in $(seq "$repeats"); do
        for side in without with; do
            if [ $side = with ]; then
                out=$(cd "$tmp" && COLLPROF_OUTPUT_DIR="$tmp/out" COLLPROF_VERBOSE=2 timeout 600 \
                    "$mpiexec" $LAUNCH_ARGS $(launch_preload "$lib") -n $n "$exe" mixed 2>"$tmp/err")
                grep "finalize stage" "$tmp/err" >>"$tmp/stages" || true
                rm -rf "$tmp/out"
            else
                out=$(timeout 600 "$mpiexec" $LAUNCH_ARGS -n $n "$exe" mixed 2>/dev/null)
            fi
            echo "$out" | sed -n 's/.*finalize_s=\([0-9.]*\).*/\1/p' >>"$tmp/$side"
        done
    done
    row="| $n | $(median <"$tmp/without") s | $(median <"$tmp/with") s"
    old_ifs=$IFS
    IFS='|'
    for s in $stages; do
        t=$(sed -n "s/.*(${s}): \([0-9.]*\) s on rank 0.*/\1/p" "$tmp/stages" | median)
        row="$row | $t s"
    done
    IFS=$old_ifs
    echo "$row |"
done
