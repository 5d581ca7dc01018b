#!/bin/sh
# Quick start: install the dependencies, build collprof, profile the bundled
# example application (an irregular MPI_Alltoallv mini-app) on 4 ranks, and
# show the reader's summary of the result (counts, time, waiting, call sites).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then
    scripts/install-deps.sh
fi
[ -d build ] || meson setup build
ninja -C build
out=collprof-example-output
rm -rf "$out"
# Only the ranks load the library (-genv LD_PRELOAD), not mpiexec itself.
# MPICH's own launcher: with a second MPI installed, the plain mpiexec may
# be that one's.
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n COLLPROF_OUTPUT_DIR="$out" \
    "$mpiexec" -genv LD_PRELOAD "$PWD/build/lib/libcollprof.so" -n 4 build/examples/alltoallv_miniapp
echo
build/tools/collprof summary "$out"
echo
build/tools/collprof callsites "$out"
echo
build/tools/collprof check "$out"
