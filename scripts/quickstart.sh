#!/bin/sh
# Quick start: install the dependencies, build collprof for each MPI library
# installed (MPICH and Open MPI), install it (as root: into /usr/local),
# profile the bundled example application (an irregular MPI_Alltoallv
# mini-app) on 4 ranks with `collprof run`, and show the reader's summary of
# the result (counts, time, waiting, call sites), also from Python.
set -eu
cd "$(dirname "$0")/.."
root=no
[ "$(id -u)" = 0 ] && root=yes
if [ $root = yes ]; then
    scripts/install-deps.sh
fi
[ -d build ] || meson setup build
ninja -C build
if [ $root = yes ]; then
    # collprof, collprof-replay, the libraries, man pages, pkg-config files.
    meson install -C build --quiet >/dev/null
    ldconfig
    collprof=collprof
else
    collprof=$PWD/build/tools/collprof
fi
out=collprof-example-output
rm -rf "$out"
# The launcher starts `collprof run` for each rank, which preloads the
# collprof library of the program's MPI (here MPICH's: the example is built
# with it) and runs the program.  MPICH's own launcher by its own name: with
# Open MPI installed too, the plain mpiexec is Open MPI's.
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n COLLPROF_OUTPUT_DIR="$out" \
    "$mpiexec" -n 4 "$collprof" run build/examples/alltoallv_miniapp
echo
"$collprof" summary "$out"
echo
"$collprof" callsites "$out"
echo
"$collprof" check "$out"
echo
# The same profile in Python (the package is installed for Debian's python3;
# built only, it is imported from the build directory).
pypath=
[ $root = yes ] || pypath=$PWD/build/python
if [ $root = yes ] || PYTHONPATH=$pypath /usr/bin/python3 -c 'import collprof' 2>/dev/null; then
    echo "In Python (docs/python.md): collprof.load(\"$out\").series"
    PYTHONPATH=$pypath /usr/bin/python3 -c 'import sys, collprof
print(collprof.load(sys.argv[1]).series.to_string(index=False))' "$out"
    echo
fi
if [ $root = yes ]; then
    echo "collprof is installed in $(meson introspect build --buildoptions |
        python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])'):"
    echo "  mpiexec.mpich -n 4 collprof run ./app      profile a program of MPICH (mpiexec.openmpi: of Open MPI)"
    echo "  collprof summary DIR                       read a profile; man collprof, man collprof-replay"
    echo "  mpicc.mpich app.c \$(pkg-config --cflags --libs collprof-mpich)   link it at build time"
    case $(readlink -f "$(command -v mpiexec)" 2>/dev/null) in
    *openmpi* | *orterun*) plain="Open MPI's" ;;
    *mpich* | *hydra*) plain="MPICH's" ;;
    *) plain="" ;;
    esac
    [ -z "$plain" ] || echo "  (the plain mpicc and mpiexec are $plain here: README.md, \"Quick start\")"
else
    echo "collprof is built in build/, not installed (that needs root): ninja -C build install"
    echo "  mpiexec.mpich -n 4 build/tools/collprof run ./app; build/tools/collprof summary DIR"
fi
