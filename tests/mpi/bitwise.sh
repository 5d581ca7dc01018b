#!/bin/sh
# Does collprof change a result?  test_bitwise (an iterative program whose
# iteration count and final state depend on every bit the collectives
# return) run RUNS times without and RUNS times with collprof, alternating,
# on NRANKS ranks (oversubscribed where they outnumber the cores): every run
# must print the same line.
#
# usage: bitwise.sh WORKDIR MPIEXEC LIB NRANKS RUNS PROGRAM
set -u
work=$1 mpiexec=$2 lib=$3 n=$4 runs=$5
shift 5
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
for f in profiled*.status plain*.status; do
    [ "$(cat "$f")" = 0 ] || { fail "$f: exit status $(cat "$f")"; }
done
exit $failed
