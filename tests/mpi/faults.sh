#!/bin/sh
# Runs that end badly, under mpiexec with collprof: each rank that is killed,
# crashes or aborts writes its partial profile, and the application's exit
# status and output are what they are without collprof.  Each check prints
# "FAIL: ..." and the script exits 1 if any failed.
#
# usage: faults.sh CASE WORKDIR MPIEXEC LIB [ARGS...]
#   sigterm ... NOFIN : SIGTERM to every rank after its calls (a batch
#                       system's time limit); every rank's profile exact
#   abort   ... NOFIN : MPI_Abort(MPI_COMM_WORLD, 7) on rank 1
#   segv    ... NOFIN : a write through a null pointer on rank 1
# NOFIN is test_nofinalize, which also checks the partial profiles exactly
# (its `check` mode knows every count every rank passed).
set -u
case_=$1 work=$2 mpiexec=$3 lib=$4
shift 4
. "$(dirname "$0")/runs.sh"

# run_killed NAME NRANKS PRELOAD SIGNAL PROGRAM HOW: the program's ranks
# write their pids into NAME.pids/ once their calls are done; then each
# gets SIGNAL at once (one kill command), as from a batch system at its time
# limit.  (MPICH's mpiexec kills the other ranks with SIGKILL as soon as one
# dies of a signal, even with -disable-auto-cleanup: a rank signalled much
# later than the others could not write.)  Process ids in mpiexec's report
# are masked (launcher_report).
run_killed() {
    name=$1 n=$2 preload=$3 sig=$4
    shift 4
    rm -rf "$name.pids"
    mkdir -p "$name.pids"
    CPT_PID_DIR=$work/$name.pids run "$name" "$n" "$preload" "$@" &
    pid=$!
    k=0
    while [ "$(ls "$name.pids" | wc -l)" -lt "$n" ] && [ $k -lt 300 ]; do
        sleep 0.1
        k=$((k + 1))
    done
    [ $k -lt 300 ] || fail "$name: the ranks did not all reach the point of the signal"
    sleep 0.2 # every pid file is complete
    kill "-$sig" $(cat "$name.pids"/*.pid)
    wait $pid
    launcher_report "$name.out"
}

# launcher_report FILE...: mpiexec's own report of a rank that died (which
# rank it saw first, with which code and pid, varies from run to run) is
# taken out of the application's output before comparing.
launcher_report() {
    sed -i -e '/^=/d' -e '/^YOUR APPLICATION TERMINATED/d' -e '/^This typically refers/d' \
        -e '/^Please see the FAQ/d' -e '/^$/d' "$@"
}

# reason_is DIR RANK TEXT: the partial manifest of RANK gives TEXT as cause
reason_is() {
    m=$1/partial.rank$2/manifest.json
    if ! grep -q "\"partial_reason\": \".*$3" "$m" 2>/dev/null; then
        fail "rank $2's partial manifest does not give '$3' as the cause:"
        [ -f "$m" ] && grep partial_reason "$m" >&2
    fi
}

nofin=$1
export COLLPROF_OUTPUT_DIR # test_nofinalize wants it, with or without collprof
case $case_ in
sigterm)
    COLLPROF_OUTPUT_DIR=$work/base run_killed baseline 2 no TERM "$nofin" term
    COLLPROF_OUTPUT_DIR=$work/out run_killed profiled 2 yes TERM "$nofin" term
    same_as_baseline profiled
    "$nofin" check "$work/out" 2 term all >check.out 2>&1 || { fail "partial profiles:"; show check.out; }
    for r in 0 1; do reason_is "$work/out" $r "SIGTERM sent by process"; done
    # rank 0 says where its profile went; nothing else from collprof
    k=$(grep -c "^collprof:" profiled.err)
    [ "$k" = 1 ] && grep -q "^collprof: SIGTERM sent by process [0-9]*: rank 0 wrote its partial profile to $work/out/partial.rank0$" profiled.err ||
        { fail "expected one line from collprof on stderr, got:"; show profiled.err; }
    cat check.out
    # COLLPROF_SIGNALS=none: no handler, so nothing is written
    COLLPROF_SIGNALS=none COLLPROF_OUTPUT_DIR=$work/none run_killed off 2 yes TERM "$nofin" term
    same_as_baseline off
    [ -e "$work/none/partial.rank0" ] && fail "COLLPROF_SIGNALS=none: a partial profile was written"
    # SIGUSR2 only when asked for; the default action (termination) kept
    COLLPROF_OUTPUT_DIR=$work/base1 run_killed baseline_usr2 2 no USR2 "$nofin" term
    COLLPROF_SIGNALS=TERM,USR2 COLLPROF_OUTPUT_DIR=$work/usr2 run_killed usr2 2 yes USR2 "$nofin" term
    cp baseline_usr2.out baseline.out
    cp baseline_usr2.status baseline.status
    same_as_baseline usr2
    "$nofin" check "$work/usr2" 2 term >check1.out 2>&1 || { fail "SIGUSR2:"; show check1.out; }
    reason_is "$work/usr2" 1 "SIGUSR2"
    ;;
abort | segv)
    COLLPROF_OUTPUT_DIR=$work/base run baseline 3 no "$nofin" "$case_"
    COLLPROF_OUTPUT_DIR=$work/out run profiled 3 yes "$nofin" "$case_"
    launcher_report baseline.out profiled.out
    same_as_baseline profiled
    "$nofin" check "$work/out" 3 "$case_" rank1 >check.out 2>&1 || { fail "partial profiles:"; show check.out; }
    if [ "$case_" = abort ]; then
        want="MPI_Abort with error code 7 on rank 1"
    else
        want="SIGSEGV at address"
    fi
    reason_is "$work/out" 1 "$want"
    # mpiexec forwards a dying rank's stderr only when it is quick enough:
    # the MPI library's own abort message is lost now and then, too.
    if [ -s profiled.err ] &&
        ! grep -q "^collprof: $want.*: rank 1 wrote its partial profile to $work/out/partial.rank1$" profiled.err; then
        fail "rank 1 does not say where its profile went:"
        show profiled.err
    fi
    cat check.out
    ;;
*)
    echo "usage: $0 sigterm|abort|segv WORKDIR MPIEXEC LIB [ARGS...]" >&2
    exit 2
    ;;
esac

if [ $failed = 0 ]; then
    echo "$case_: PASS"
fi
exit $failed
