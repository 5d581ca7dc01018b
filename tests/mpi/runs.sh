# Shared by the scripts that run applications under mpiexec with and
# without collprof (robustness.sh, faults.sh): sourced after setting
# case_, work, mpiexec, lib and the program arguments ("$@").
# (runs_dir: this folder, when the sourcing script lives elsewhere)
. "${runs_dir:-$(dirname "$0")}/launcher.sh"
launcher_init "$mpiexec"
launch_sweep_shm
limit=60
failed=0

fail() {
    echo "FAIL: $case_: $*" >&2
    failed=1
}

# Programs are given relative to the build directory: make them absolute
# before changing directory.
abs() {
    case $1 in
    /*) echo "$1" ;;
    *) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
    esac
}
lib=$(abs "$lib")
n_args=$#
for a in "$@"; do
    set -- "$@" "$(abs "$a")"
done
shift $n_args

# Only the variables a case sets apply.
for v in $(env | sed -n 's/^\(COLLPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 2

# run NAME NRANKS PRELOAD(yes/no) COMMAND...: stdout/stderr/status into NAME.*
run() {
    name=$1 n=$2 preload=$3
    shift 3
    started=$(date +%s)
    if [ "$preload" = yes ]; then
        timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $(launch_preload "$lib") -n "$n" "$@" >"$name.out" 2>"$name.err"
    else
        timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS -n "$n" "$@" >"$name.out" 2>"$name.err"
    fi
    echo $? >"$name.status"
    # timeout's own status, or its SIGKILL after the grace period (a
    # launcher whose rank was killed with SIGKILL reports 137 itself)
    if [ "$(cat "$name.status")" = 124 ] ||
        { [ "$(cat "$name.status")" = 137 ] && [ $(($(date +%s) - started)) -ge "$limit" ]; }; then
        fail "$name: timed out after $limit s"
    fi
    # A setting the test itself gives collprof must be one it takes: a
    # rejected one runs the default instead, and the case tests something
    # else than it says.  (INVALID_SETTING=yes: the case gives a wrong one
    # on purpose.)
    if [ "$preload" = yes ] && [ "${INVALID_SETTING:-}" != yes ] &&
        grep -q "is not valid (accepted:" "$name.err"; then
        fail "$name: collprof rejected a setting of the test's own:"
        show "$name.err"
    fi
}

show() { # a file, indented, for the log
    sed 's/^/    | /' "$1" >&2
}

# same_as_baseline NAME: stdout and status of NAME equal those of baseline
same_as_baseline() {
    if ! cmp -s baseline.out "$1.out"; then
        fail "$1: the application's stdout changed under collprof; without:"
        show baseline.out
        echo "  with:" >&2
        show "$1.out"
    fi
    if [ "$(cat baseline.status)" != "$(cat "$1.status")" ]; then
        fail "$1: exit status $(cat "$1.status"), without collprof $(cat baseline.status)"
    fi
}

# launcher_exit_race NAME: did MPICH's launcher report run NAME as hung up
# (signal 1) although no rank was?  Hydra does so now and then when the
# ranks end without MPI_Finalize a few milliseconds apart, with or without
# collprof (tests/mpi/README.md, "Exit without MPI_Finalize").
launcher_exit_race() {
    [ "$LAUNCH_FLAVOR" = mpich ] &&
        grep -q "^YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Hangup (signal 1)$" "$1.out"
}

# lines_matching FILE PATTERN: how many lines match (fixed string)
lines_matching() {
    grep -c -F -- "$2" "$1"
}

