#!/bin/sh
# collprof under Slurm as users run it, on a one-node cluster that
# scripts/slurm-local.sh brings up (skipped, exit 77, with its reason when it
# cannot): srun with each MPI's process-management interface (MPICH over
# PMI-2, Open MPI over PMIx), mpi4py under srun, `salloc ... mpiexec`, a job
# cancelled with scancel and one killed at its time limit, and SIGKILL of
# all ranks and of one (their last snapshots).  Each run's counts
# are compared with the same program's under mpiexec; a killed job must leave
# every rank's partial profile, which the reader merges and says why.
#
# usage: slurm_test.sh SRCDIR WORKDIR COLLPROF MINIAPP_MPICH MINIAPP_OPENMPI NOFIN
#   NOFIN: test_nofinalize (MPICH), which waits to be killed and then checks
#          the partial profiles exactly.
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
src=$(abs "$1") work=$(abs "$2") collprof=$(abs "$3") app_mpich=$(abs "$4")
app_ompi=$(abs "$5") nofin=$(abs "$6")
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
conf=$("$src/scripts/slurm-local.sh" start "$work/cluster")
rc=$?
[ $rc = 0 ] || exit $rc
eval "$conf"
trap '"$src/scripts/slurm-local.sh" stop "$work/cluster"' EXIT
export UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
show() { sed 's/^/    | /' "$1" >&2; }

# same_counts DIR BASE: the count files of DIR are those of BASE
same_counts() {
    for f in send-counters.rank0.txt recv-counters.rank0.txt; do
        cmp -s "$1/$f" "$2/$f" || { fail "$1/$f differs from $2/$f (the same program under mpiexec)"; return; }
    done
}
# job_step DIR: the manifest records the job and the step, "<job>.<step>"
job_step() {
    grep -q '"job": "[0-9][0-9]*\.[0-9][0-9]*"' "$1/manifest.json" ||
        { fail "$1/manifest.json does not record the job and step:"; grep '"job"' "$1/manifest.json" >&2; }
}
checked() {
    "$collprof" check "$1" >"$1.check" 2>&1 || { fail "collprof check $1:"; show "$1.check"; }
}

# The same program under mpiexec, for the counts to compare with.
COLLPROF_OUTPUT_DIR=$work/base mpiexec.mpich -n 2 "$collprof" run "$app_mpich" >base.out 2>&1 ||
    { fail "mpiexec.mpich:"; show base.out; }

# srun over PMI-2, MPICH's
COLLPROF_OUTPUT_DIR=$work/pmi2 srun --mpi=pmi2 -n 2 "$collprof" run "$app_mpich" >pmi2.out 2>&1 ||
    { fail "srun --mpi=pmi2:"; show pmi2.out; }
same_counts pmi2 base
job_step pmi2
checked pmi2

# srun over PMIx, Open MPI's: collprof run picks Open MPI's library from the
# program, not from the launcher's variables
COLLPROF_VERBOSE=1 COLLPROF_OUTPUT_DIR=$work/pmix srun --mpi=pmix -n 2 "$collprof" run "$app_ompi" >pmix.out 2>&1 ||
    { fail "srun --mpi=pmix:"; show pmix.out; }
grep -q "collprof run: profiling with .*libcollprof-openmpi.so (Open MPI" pmix.out ||
    { fail "srun --mpi=pmix: collprof run did not pick Open MPI's library:"; show pmix.out; }
same_counts pmix base
job_step pmix
checked pmix

# mpi4py (Debian's is Open MPI's) under srun --mpi=pmix: its extension
# module's libmpi decides
if /usr/bin/python3 -c 'import mpi4py, numpy' 2>/dev/null; then
    COLLPROF_OUTPUT_DIR=$work/py srun --mpi=pmix -n 2 "$collprof" run /usr/bin/python3 -c '
from mpi4py import MPI
import numpy as np
c = MPI.COMM_WORLD
a = np.ones(c.size, dtype="i"); b = np.zeros(c.size, dtype="i")
for _ in range(3):
    c.Alltoall(a, b)
assert (b == 1).all()' >py.out 2>&1 || { fail "srun --mpi=pmix python3 (mpi4py):"; show py.out; }
    "$collprof" summary py >py.summary 2>&1
    grep -q "^ *0  *2  *0  *Alltoall  *3 " py.summary ||
        { fail "mpi4py: expected 3 Alltoall calls on communicator 0:"; show py.summary; }
else
    echo "mpi4py case skipped: python3-mpi4py and python3-numpy are not installed"
fi

# salloc, then MPICH's own launcher inside the allocation
COLLPROF_OUTPUT_DIR=$work/salloc salloc -n 2 mpiexec.mpich -n 2 "$collprof" run "$app_mpich" >salloc.out 2>&1 ||
    { fail "salloc ... mpiexec.mpich:"; show salloc.out; }
same_counts salloc base
checked salloc

# killed_job NAME HOW SBATCH_OPTIONS...: a batch job whose 2 ranks wait to
# be killed (test_nofinalize HOW: term, or kill: a snapshot first, with
# COLLPROF_SNAPSHOT=1); its id in $job once both wait
killed_job() {
    name=$1 how=$2
    shift 2
    mkdir -p "$name.pids"
    job=$(CPT_PID_DIR=$work/$name.pids COLLPROF_OUTPUT_DIR=$work/$name COLLPROF_SNAPSHOT=1 \
          sbatch --parsable -n 2 -o "$work/$name.out" "$@" \
          --wrap "srun --mpi=pmi2 -n 2 $collprof run $nofin $how")
    k=0
    while [ "$(ls "$name.pids" | wc -l)" -lt 2 ] && [ $k -lt 600 ]; do
        sleep 0.1
        k=$((k + 1))
    done
    [ $k -lt 600 ] || fail "$name: the ranks did not both get to wait"
}
# gone: wait until the job has left the queue (at most S seconds)
gone() {
    k=0
    while squeue -h -j "$job" 2>/dev/null | grep -q . && [ $k -lt $(($1 * 10)) ]; do
        sleep 0.1
        k=$((k + 1))
    done
}
# partial NAME: every rank's partial profile, exact, merged by the reader,
# which says the ranks were sent SIGTERM
partial() {
    "$nofin" check "$work/$1" 2 term all >"$1.check" 2>&1 || { fail "$1: partial profiles:"; show "$1.check"; }
    "$collprof" summary "$1" >"$1.summary" 2>&1
    grep -q "^stopped: *ranks 0-1: SIGTERM sent by process" "$1.summary" ||
        { fail "$1: collprof summary does not say both ranks were sent SIGTERM:"; show "$1.summary"; }
}

# scancel: Slurm sends the job's steps SIGTERM, then SIGKILL after KillWait
killed_job scancel term
scancel "$job"
gone 30
partial scancel

# the time limit (one minute, Slurm's smallest): the same, from Slurm itself
killed_job timelimit term --time=1
gone 120
partial timelimit

# SIGKILL, which no handler sees (the OOM killer, KillWait running out, a
# lost node): what is left is each rank's last snapshot, exact up to its
# state, and the reader says so.  All ranks, as the OOM killer would (kill
# -9: `scancel --signal=KILL` is a plain cancel to Slurm, SIGTERM first),
# then one (srun leaves the other running: it waits, and the reader says
# its process still runs; the job is cancelled after).
killed_job sigkill kill
kill -KILL $(cat sigkill.pids/*.pid)
gone 30
"$nofin" check "$work/sigkill" 2 kill all >sigkill.check 2>&1 ||
    { fail "sigkill: the snapshots:"; show sigkill.check; }
"$collprof" summary sigkill >sigkill.summary 2>&1
grep -q "^stopped: *ranks 0-1: the last snapshot (one every 1 s), no word since: its process is gone" sigkill.summary ||
    { fail "sigkill: collprof summary does not say both ranks left their last snapshots:"; show sigkill.summary; }
killed_job sigkill_one kill
kill -KILL "$(cat sigkill_one.pids/rank1.pid)"
sleep 1
"$collprof" summary sigkill_one >sigkill_one.summary 2>&1
grep -q "^stopped: *\(ranks 0-1\|rank 1\): the last snapshot (one every 1 s), no word since: its process is gone" sigkill_one.summary ||
    { fail "sigkill_one: collprof summary does not say rank 1 left its last snapshot:"; show sigkill_one.summary; }
grep -q "^stopped: *rank 0: .*its process is still running" sigkill_one.summary ||
    { fail "sigkill_one: collprof summary does not say rank 0 still runs:"; show sigkill_one.summary; }
"$collprof" check sigkill_one >sigkill_one.check 2>&1 ||
    { fail "sigkill_one: collprof check:"; show sigkill_one.check; }
scancel "$job"
gone 30

exit $failed
