#!/bin/sh
# Install what collprof needs to build and test on Debian 12 (run as root).
# The field's own dependencies: MPICH and Open MPI (collprof is built for
# each), libunwind, elfutils' libdw, zlib, Check, meson; METIS for `collprof
# placement`'s graph partition; GNU time for its benchmark; python3-dev, numpy,
# pandas, pytest and matplotlib for the Python package; Slurm (slurm-wlm,
# munge) for the tests of collprof under a batch system (a one-node cluster,
# scripts/slurm-local.sh).  With both MPIs
# installed, Debian's alternatives point the plain mpicc/mpiexec to Open
# MPI's: the build and the tests use the versioned names (mpicc.mpich,
# mpiexec.openmpi, ...) so that it does not matter which.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential pkg-config meson ninja-build python3 \
    mpich libmpich-dev openmpi-bin libopenmpi-dev libunwind-dev libdw-dev zlib1g-dev check gfortran \
    clang libclang-rt-14-dev chromium man-db groff-base python3-mpi4py \
    libmetis-dev time python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib \
    slurm-wlm munge
