#!/bin/sh
# `meson install` puts the library, headers, pkg-config file, reader and docs
# in place, and an application builds against the installed copy through
# pkg-config, as the README says.
# usage: test_install.sh BUILD_DIR MPI FLAVOURS [PYTHON PYDIR]
#   MPI: the default MPI (mpich or openmpi); FLAVOURS: every MPI built for,
#   comma-separated: each has its libcollprof-<mpi>.so and collprof-<mpi>.pc;
#   PYTHON, PYDIR: the interpreter the Python package is built for and the
#   directory it is installed to, which that interpreter must read
set -eu
build=$1 mpi=$2 flavours=$3 python=${4:-} pydir=${5:-}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
    python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
libdir=$(meson introspect "$build" --buildoptions |
    python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"][0])')
root=$dest$prefix
fail() { echo "FAIL: $*"; exit 1; }
for f in "$libdir/libcollprof.so" include/collprof.h include/collprof/reader.h \
         include/collprof/profile.h bin/collprof bin/collprof-replay "$libdir/pkgconfig/collprof.pc" \
         share/doc/collprof/configuration.md share/doc/collprof/replay.md \
         share/man/man1/collprof.1 share/man/man1/collprof-replay.1 share/man/man3/collprof.3 \
         share/man/man7/collprof-config.7 \
         $(for f in $(echo "$flavours" | tr , ' '); do
               echo "$libdir/libcollprof-$f.so" "$libdir/libcollprof-core-$f.so" \
                    "$libdir/pkgconfig/collprof-$f.pc"
           done); do
    case $f in /*) p=$dest$f ;; *) p=$root/$f ;; esac
    [ -e "$p" ] || fail "not installed: $f"
done
case $libdir in /*) pcdir=$dest$libdir/pkgconfig ;; *) pcdir=$root/$libdir/pkgconfig ;; esac
flags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs collprof) ||
    fail "pkg-config collprof"
echo "$flags" | grep -q -- '-lcollprof' || fail "pkg-config gives no -lcollprof: $flags"
for f in $(echo "$flavours" | tr , ' '); do
    PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --libs "collprof-$f" |
        grep -q -- "-lcollprof-$f" || fail "pkg-config collprof-$f gives no -lcollprof-$f"
done
# An application using the control API compiles and links against it.
cat > "$dest/app.c" <<'C'
#include <collprof.h>
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    collprof_pause();
    collprof_resume();
    MPI_Finalize();
    return 0;
}
C
mpicc=$(command -v "mpicc.$mpi" || command -v mpicc)
"$mpicc" "$dest/app.c" -o "$dest/app" $flags || fail "cannot build against the installed library"
# And a program reading profiles links against the installed reader library.
cat > "$dest/reader.c" <<'C'
#include <collprof/reader.h>
int main(int argc, char **argv)
{
    cp_profile p;
    cp_error err;
    if (argc > 1 && cp_profile_load(argv[1], &p, &err) == 0)
        cp_profile_free(&p);
    return 0;
}
C
rflags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs --static collprof-reader) ||
    fail "pkg-config collprof-reader"
cc "$dest/reader.c" -o "$dest/reader" $rflags || fail "cannot build against the installed reader library"
# The Python package: installed where its interpreter looks, and it imports
# from there (the copy under the staging directory stands in for it).
if [ -n "$python" ]; then
    for f in __init__.py '_collprof.*.so'; do
        ls $dest$pydir/collprof/$f >/dev/null 2>&1 || fail "not installed: $pydir/collprof/$f"
    done
    "$python" -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$pydir" ||
        fail "$pydir, where the package is installed, is not on $python's sys.path"
    (cd "$dest" && PYTHONPATH=$dest$pydir "$python" -c 'import collprof, sys
sys.exit(not collprof.__file__.startswith(sys.argv[1]))' "$dest") ||
        fail "the installed package does not import with $python"
fi
echo "installed layout and pkg-config OK"
