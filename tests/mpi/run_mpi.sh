#!/bin/sh
# Driver of the MPI tests: a fresh output directory, a clean COLLPROF_*
# environment, a time limit.
#
# usage: run_mpi.sh [VAR=VALUE ...] [--check-after] [--checker=PATH] [--collprof-check=PATH] [--mpiexec-arg=ARG ...] [--keep-going] -- OUTDIR MPIEXEC LIB|- NRANKS TIMEOUT PROGRAM [ARGS...]
#   VAR=VALUE  set for the run (COLLPROF_* and CPT_* of the caller's
#              environment are removed first, so only these apply)
#   --check-after  the run may end badly (ranks that exit without
#              MPI_Finalize): its exit status is shown, not used, unless it
#              timed out; then `PROGRAM check OUTDIR NRANKS [ARGS...]` checks
#              the files and its exit status is the result
#   --checker=PATH  the run must succeed; then `PATH check OUTDIR NRANKS
#              [ARGS...]` checks the files (a checker for programs that
#              cannot check themselves: Fortran)
#   --mpiexec-arg=ARG  an extra argument of mpiexec (before -n)
#   --keep-going  the other ranks run on when one exits without MPI_Finalize
#              (MPICH: -disable-auto-cleanup; see launcher.sh)
#   --collprof-check=PATH  after a run that succeeded, `PATH check OUTDIR`
#              (the collprof command) must pass too
#   --hosts=H0,H1,...  one host name per rank (COLLPROF_HOSTNAME): the run is
#              MPMD, one section per run of equal names
#              (mpiexec -n 2 -env COLLPROF_HOSTNAME a P : -n 2 -env ... b P,
#              in the launcher's own syntax),
#              so that several nodes are pretended on one machine
#   OUTDIR     COLLPROF_OUTPUT_DIR: removed before the run
#   LIB        libcollprof.so, preloaded into the ranks only; - : not preloaded
#              (a program linked with the library)
#   TIMEOUT    seconds; the run is killed after that (exit 124)
set -u
. "$(dirname "$0")/launcher.sh"
for v in $(env | sed -n 's/^\(COLLPROF_[A-Za-z0-9_]*\)=.*/\1/p;s/^\(CPT_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
check_after=no
checker=
collprof_check=
margs=
hosts=
keep_going=no
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in
    --check-after) check_after=yes ;;
    --checker=*) checker=${1#--checker=} ;;
    --collprof-check=*) collprof_check=${1#--collprof-check=} ;;
    --mpiexec-arg=*) margs="$margs ${1#--mpiexec-arg=}" ;;
    --hosts=*) hosts=${1#--hosts=} ;;
    --keep-going) keep_going=yes ;;
    *) export "$1" ;;
    esac
    shift
done
[ $# -ge 7 ] || { echo "usage: $0 [VAR=VALUE ...] [--check-after] [--checker=PATH] [--collprof-check=PATH] [--mpiexec-arg=ARG ...] [--keep-going] -- OUTDIR MPIEXEC LIB|- NRANKS TIMEOUT PROGRAM [ARGS...]" >&2; exit 2; }
shift
outdir=$1 mpiexec=$2 lib=$3 n=$4 limit=$5
shift 5
rm -rf "$outdir"
export COLLPROF_OUTPUT_DIR="$outdir"
launcher_init "$mpiexec"
launch_sweep_shm
margs="$LAUNCH_ARGS $margs"
[ $keep_going = no ] || margs="$margs $(launch_keep_going)"
preload=
[ "$lib" = "-" ] || preload=$(launch_preload "$lib")
if [ -n "$hosts" ]; then
    # One MPMD section per run of equal host names.  Open MPI's -x applies
    # to its own section only: there the preload goes into each.
    each= once=$preload
    [ $LAUNCH_FLAVOR = openmpi ] && each=$preload once=
    sections=
    prev= count=0
    for h in $(echo "$hosts" | tr ',' ' ') END; do
        if [ "$h" != "$prev" ] && [ $count -gt 0 ]; then
            sections="$sections${sections:+ : }-n $count $each $(launch_env COLLPROF_HOSTNAME "$prev") $*"
            count=0
        fi
        prev=$h
        count=$((count + 1))
    done
    timeout -k 5 "$limit" "$mpiexec" $margs $once $sections
else
    timeout -k 5 "$limit" "$mpiexec" $margs $preload -n "$n" "$@"
fi
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAIL: $(basename "$1"): timed out after $limit s (killed)" >&2
    exit $rc
fi
if [ $check_after = yes ]; then
    echo "$(basename "$1"): mpiexec exited with status $rc; checking the files" >&2
    prog=$1
    shift
    "${checker:-$prog}" check "$outdir" "$n" "$@"
    exit $?
fi
if [ -n "$checker" ]; then
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$1"): mpiexec exited with status $rc" >&2
        exit $rc
    fi
    shift
    "$checker" check "$outdir" "$n" "$@"
    exit $?
fi
if [ $rc -eq 0 ] && [ -n "$collprof_check" ]; then
    if ! out=$("$collprof_check" check "$outdir" 2>&1); then
        echo "FAIL: $(basename "$1"): 'collprof check $outdir' fails:" >&2
        printf '%s\n' "$out" >&2
        exit 1
    fi
    echo "collprof check: $out"
fi
exit $rc
