#!/bin/sh
# Does collprof change a result?  test_bitwise (an iterative program whose
# iteration count and final state depend on every bit the collectives
# return) run RUNS times without and RUNS times with collprof, alternating,
# on NRANKS ranks (oversubscribed where they outnumber the cores): every run
# must print the same line.  And every profiled run was profiled: its
# profile passes `collprof check` and holds the calls the program made
# (per iteration two Allreduce, a Bcast, an Alltoall and an Alltoallv on
# MPI_COMM_WORLD, in blocking and non-blocking forms; one Gather at the end),
# so that a library standing aside could not pass.
#
# usage: bitwise.sh WORKDIR MPIEXEC LIB NRANKS RUNS PROGRAM COLLPROF
set -u
work=$1 mpiexec=$2 lib=$3 n=$4 runs=$5 program=$6 collprof=$7
shift 5
set -- "$program"
case_=bitwise
runs_dir=$(dirname "$0")
. "$runs_dir/runs.sh"
limit=120
i=0
while [ $i -lt "$runs" ]; do
    run "plain$i" "$n" no "$@"
    rm -rf "$work/out$i"
    COLLPROF_OUTPUT_DIR="$work/out$i" run "profiled$i" "$n" yes "$@"
    i=$((i + 1))
done
grep -h "^test_bitwise:" plain*.out profiled*.out | sort | uniq -c >lines.txt
cat lines.txt
[ "$(wc -l <lines.txt)" = 1 ] || { fail "the runs did not all give the same result:"; show lines.txt; }
[ "$(awk '{ s += $1 } END { print s }' lines.txt)" = $((2 * runs)) ] ||
    { fail "not every run printed its result"; show lines.txt; }
i=0
while [ $i -lt "$runs" ]; do
    it=$(sed -n 's/^test_bitwise: [0-9]* ranks, \([0-9]*\) iterations,.*/\1/p' "profiled$i.out")
    "$collprof" check "$work/out$i" >"check$i.out" 2>&1 ||
        { fail "profiled run $i: collprof check failed:"; show "check$i.out"; }
    "$collprof" summary "$work/out$i" >"sum$i.out" 2>&1 ||
        { fail "profiled run $i: collprof summary failed:"; show "sum$i.out"; }
    for want in "Allreduce $((2 * ${it:-0}))" "Bcast ${it:-0}" "Alltoall ${it:-0}" \
                "Alltoallv ${it:-0}" "Gather 1"; do
        set -- $want
        got=$(awk -v c="$1" '$1 == "0" && $4 == c { print $5 }' "sum$i.out")
        [ -n "$it" ] && [ "$got" = "$2" ] ||
            { fail "profiled run $i ($it iterations): $1 on MPI_COMM_WORLD recorded ${got:-no} calls, expected $2:"; show "sum$i.out"; }
    done
    i=$((i + 1))
done
for f in profiled*.status plain*.status; do
    [ "$(cat "$f")" = 0 ] || { fail "$f: exit status $(cat "$f")"; }
done
exit $failed
