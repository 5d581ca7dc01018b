# Sourced by the reader's benchmarks (reader_paths.sh, python_load.sh): the
# big profiles they read, made by a real run of bench_pattern_run on 2
# ranks, counts only.
#
#   pattern_setup BUILD
#       the launcher of BUILD's MPI (MPIEXEC, LAUNCH_ARGS: launcher.sh)
#   pattern_profile BUILD DIR CALLS PATTERNS ORDER
#       CALLS MPI_Alltoallv with PATTERNS distinct matrices, in ORDER
#       (cycle or random), profiled into DIR.
. "$(dirname "$0")/../tests/mpi/launcher.sh"

pattern_setup() {
    MPIEXEC=${MPIEXEC:-$(command -v "mpiexec.$(build_mpi "$1")" || echo mpiexec)}
    launcher_init "$MPIEXEC"
    export UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n
}

pattern_profile() {
    COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=0 COLLPROF_OUTPUT_DIR=$2 \
        "$MPIEXEC" $LAUNCH_ARGS $(launch_preload "$1/lib/libcollprof.so") -n 2 \
        "$1/bench/bench_pattern_run" "$3" "$4" "$5" 2>/dev/null
}
