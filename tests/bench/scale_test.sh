#!/bin/sh
# The scale simulator (bench/bench_scale.c) from end to end at a size a
# test affords: every workload at 200 virtual ranks runs every stage it
# simulates (counts, wait states, call paths, call sites, Cube) and finds
# the profile exact (each rank's rows, waits, paths and sites read back
# and checked against the generator).  The numbers it measures are not
# checked (benchmarks print numbers; no test asserts them); that it runs,
# and what it says of the profile, are.
#
# usage: scale_test.sh BENCH_SCALE
set -u
exe=$1
for w in halo uniform sparse subcomms; do
    out=$("$exe" --ranks 200 --workload "$w" --calls 4 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $w: bench_scale exited with status $rc"
        echo "$out"
        exit 1
    fi
    case "$out" in
    *" stages=counts,waits,paths,sites,cube exact=yes"*) echo "$w: exact" ;;
    *)
        echo "FAIL: $w: expected every stage run and 'exact=yes'"
        echo "$out"
        exit 1
        ;;
    esac
done
