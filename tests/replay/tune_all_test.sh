#!/bin/sh
# collprof-replay --tune never hangs and keeps to its time, on profiles
# with every collective, rooted ones and every form included (APP:
# test_allforms, profiled on 2, 3 and 4 ranks, each tuned on as many), and
# on the bundled examples (MINIAPP on 4 ranks, SKEWED on 3):
#   - it states its budget before it starts (patterns, measurements, the
#     seconds per pattern) and ends by itself with status 0, within the
#     test's limit, every pattern measured, refused, not tried (an
#     algorithm the library is known to abort the process with) or cut
#     short at its budget, and says which;
#   - every rank takes the same way: a library that refuses an algorithm
#     on some ranks only, or fails one call of a measurement, must not
#     leave the others waiting (it would hang here);
#   - Ctrl-C (SIGINT to the launcher, passed on to the ranks as SIGINT or
#     SIGTERM) stops it at the next measurement's end: it says so, prints
#     the table of what was measured, names the cut pattern and exits with
#     status 130 (what the launcher then reports is its own).
#
# usage: tune_all_test.sh WORKDIR MPIEXEC LIB APP REPLAY MINIAPP SKEWED
set -u
case_=tune-all work=$1 mpiexec=$2 lib=$3
shift 3
runs_dir=$(dirname "$0")/../mpi
. "$runs_dir/runs.sh"
app=$1 replay=$2 miniapp=$3 skewed=$4
limit=120
export OMPI_MCA_coll_tuned_use_dynamic_rules=1

COLLPROF_OUTPUT_DIR="$work/prof" run app 2 yes "$app"
[ "$(cat app.status)" = 0 ] || { fail "the application failed:"; show app.err; exit 1; }
# Profiles of 3 and 4 ranks too, each tuned on its own number of ranks; and
# the bundled examples (the mini-app on 4 ranks, the skewed Alltoallv on 3).
for n in 3 4; do
    COLLPROF_OUTPUT_DIR="$work/prof$n" run app$n $n yes "$app"
    [ "$(cat app$n.status)" = 0 ] || { fail "the application failed on $n ranks:"; show app$n.err; exit 1; }
done
COLLPROF_OUTPUT_DIR="$work/miniapp" run miniapp 4 yes "$miniapp"
COLLPROF_OUTPUT_DIR="$work/skewed" run skewed 3 yes "$skewed"
for spec in miniapp:4 skewed:3; do
    ex=${spec%%:*} n=${spec#*:} # (run sets $name)
    [ "$(cat $ex.status)" = 0 ] || { fail "$ex failed:"; show $ex.err; continue; }
    run tune-$ex $n no "$replay" "$work/$ex" --tune --seconds 0.2 --rounds 2
    [ "$(cat tune-$ex.status)" = 0 ] && grep -q "^pattern 1: " tune-$ex.out ||
        { fail "$ex on $n ranks: --tune failed (status $(cat tune-$ex.status)):"; show tune-$ex.err; }
    echo "$ex on $n ranks: $(grep -c '^pattern ' tune-$ex.out) patterns"
done
for n in 2 3 4; do
    prof=$work/prof
    [ $n -gt 2 ] && prof=$work/prof$n
    run tune$n $n no "$replay" "$prof" --tune --seconds 0.1 --rounds 2
    [ "$(cat tune$n.status)" = 0 ] || { fail "$n ranks: --tune failed (status $(cat tune$n.status)):"; show tune$n.err; continue; }
    grep -q "^collprof-replay: tuning [0-9]* patterns, [0-9]* measurements (each algorithm 2 times): at most 0.1 s a pattern, warm-up included" tune$n.err ||
        { fail "$n ranks: no budget stated before tuning:"; show tune$n.err; }
    said=$(sed -n 's/^collprof-replay: tuning \([0-9]*\) patterns.*/\1/p' tune$n.err)
    [ "$(grep -c '^collprof-replay: tuned pattern ' tune$n.err)" -ge "${said:-1}" ] ||
        { fail "$n ranks: fewer progress lines than the $said patterns it said:"; show tune$n.err; }
    # Every algorithm line of every pattern says what became of it.
    awk '/^per collective/ { exit !(ok > 0 && !bad) }
         /^pattern [0-9]+: / { p = $0; next }
         /^  [a-z_]+( \(library.s own\))? +([0-9.]+  |refused: |not tried: |not measured)/ { ok++; next }
         /^  algorithm / || /^  cut short: / || /^  fastest/ || /^  no algorithm/ || /^  not measured: / { next }
         /^  [a-z_]/ && p { print "unexplained line in " p ": " $0; bad++ }
         END { exit !(ok > 0 && !bad) }' tune$n.out || { fail "$n ranks: the table:"; show tune$n.out; }
    # MPICH 4.0 aborts the process on any non-blocking collective's
    # sched_auto: never tried there, and said.
    if grep -q "^collprof-replay --tune: .*MPICH Version:.4\.0" tune$n.out; then
        grep -q "^  sched_auto  *not tried: MPICH 4.0 aborts the process with it" tune$n.out ||
            { fail "$n ranks: MPICH 4.0's sched_auto not said untried:"; show tune$n.out; }
    fi
    echo "$n ranks: $(grep -c '^pattern ' tune$n.out) patterns, $(grep -c 'cut short' tune$n.out) cut at their budget"
done

# Ctrl-C: one SIGINT to the launcher once tuning has begun, as a terminal
# sends it (Hydra passes it on to the ranks, Open MPI's mpiexec sends them
# SIGTERM).  A shell starts a background command with SIGINT ignored:
# python3 restores its default before it becomes the launcher.
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
    "$mpiexec" $LAUNCH_ARGS -n 2 "$replay" "$work/prof" --tune --seconds 5 --rounds 50 \
    >int.out 2>int.err &
pid=$!
i=0
while [ $i -lt 300 ] && ! grep -q '^collprof-replay: tuned pattern ' int.err 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
kill -INT $pid 2>/dev/null
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
    fail "SIGINT: still running 60 s later"
    kill -KILL $pid 2>/dev/null
fi
wait $pid
status=$?
# collprof-replay exits 130 (as a shell reports SIGINT); the launcher
# reports what it likes of a job it interrupted itself (Hydra: 0, Open
# MPI's: 1), but no rank was killed (137) and nothing timed out.
case $status in 124 | 137) fail "SIGINT: status $status: killed or timed out"; show int.err ;; esac
echo "SIGINT: the launcher's status $status"
grep -q "^collprof-replay: interrupted (SIGINT or SIGTERM): the table above holds what was measured before" int.err ||
    { fail "SIGINT: not said:"; show int.err; }
grep -q "^  cut short: interrupted (SIG[A-Z]*) after [0-9]* of [0-9]* measurements" int.out ||
    { fail "SIGINT: no pattern says it was cut short:"; show int.out; }
grep -q "^pattern [0-9]*: " int.out || { fail "SIGINT: no pattern in the table:"; show int.out; }
exit $failed
