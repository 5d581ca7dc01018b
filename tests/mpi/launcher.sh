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
