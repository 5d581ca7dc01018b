# Sourced by the MPI test scripts: what they ask of mpiexec, in the syntax
# of MPICH's launcher (Hydra) or of Open MPI's (ORTE).
#
#   launcher_init MPIEXEC   sets LAUNCH_FLAVOR (mpich or openmpi) and
#                           LAUNCH_ARGS, the arguments every run needs
#                           (Open MPI: more ranks than cores, and root, which
#                           it refuses unless told)
#   launch_preload LIB      arguments that preload LIB into the ranks only
#   launch_env VAR VALUE    arguments that set VAR for one MPMD section
#                           (Open MPI's -x, the preload's too, applies to
#                           the section it is written in, MPICH's -genv to all)
#   launch_keep_going       arguments that let the other ranks run on when
#                           one exits without MPI_Finalize
#   launch_sweep_shm        from now until the script exits, note the
#                           shared-memory segments the runs leave in
#                           /dev/shm, and remove them at exit (see below)
# build_mpi BUILDDIR: the build's default MPI (mpich or openmpi: the one
# libcollprof.so is for), as its collprof_config.h says.
build_mpi() {
    sed -n 's/^#define COLLPROF_DEFAULT_MPI "\(.*\)"$/\1/p' "$1/collprof_config.h" 2>/dev/null |
        grep . || echo mpich
}

launcher_init() {
    case $("$1" --version 2>&1) in
    *"Open MPI"* | *OpenRTE*) LAUNCH_FLAVOR=openmpi ;;
    *) LAUNCH_FLAVOR=mpich ;;
    esac
    LAUNCH_ARGS=
    if [ $LAUNCH_FLAVOR = openmpi ]; then
        LAUNCH_ARGS="--oversubscribe"
        if [ "$(id -u)" = 0 ]; then
            export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        fi
    fi
}

launch_preload() {
    if [ $LAUNCH_FLAVOR = openmpi ]; then
        echo "-x LD_PRELOAD=$1"
    else
        echo "-genv LD_PRELOAD $1"
    fi
}

launch_env() {
    if [ $LAUNCH_FLAVOR = openmpi ]; then
        echo "-x $1=$2"
    else
        echo "-env $1 $2"
    fi
}

launch_keep_going() {
    if [ $LAUNCH_FLAVOR = openmpi ]; then
        # A rank that ends without MPI_Finalize is a failure to Open MPI's
        # launcher, which kills the others unless told to recover.
        echo "--enable-recovery --mca orte_abort_on_non_zero_status 0"
    else
        echo "-disable-auto-cleanup"
    fi
}

# A rank killed, or ended without MPI_Finalize, leaves its MPI library's
# shared-memory segments in /dev/shm (UCX's ucx_shm_posix_*, Open MPI's
# vader_segment.*: a few MB each).  The tests end ranks so on purpose, and
# a suite run again and again would fill the machine's memory.  At exit,
# the segments made since launch_sweep_shm that no process has mapped are
# removed: those of the runs that ended, not another job's.
launch_sweep_shm() {
    [ -d /dev/shm ] || return 0
    launch_shm_mark=$(mktemp "${TMPDIR:-/tmp}/collprof-shm-mark.XXXXXX") || return 0
    trap 'launch_shm_sweep' EXIT
}

launch_shm_sweep() {
    in_use=$(cat /proc/[0-9]*/maps 2>/dev/null | grep -o '/dev/shm/[^ ]*' | sort -u)
    find /dev/shm -maxdepth 1 -type f \( -name 'ucx_shm_posix_*' -o -name 'vader_segment.*' \) \
        -newer "$launch_shm_mark" 2>/dev/null |
        while read -r f; do
            printf '%s\n' "$in_use" | grep -qxF "$f" || rm -f "$f"
        done
    rm -f "$launch_shm_mark"
}
