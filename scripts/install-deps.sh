#!/bin/sh
# Install what collprof needs to build and test on Debian 12 (run as root).
# The field's own dependencies: MPICH, libunwind, zlib, Check, meson.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential pkg-config meson ninja-build python3 \
    mpich libmpich-dev libunwind-dev zlib1g-dev check gfortran \
    clang libclang-rt-14-dev chromium man-db groff-base
