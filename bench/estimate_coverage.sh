#!/bin/sh
# Is the whole-run waiting estimate unbiased, and is its standard error
# honest?  Profiles four workloads (bench_wait_workloads.c: steady,
# heavy-tailed, bursty, periodic waiting) RUNS times each on 2 ranks bound
# to cores, with a timing sample that keeps every call so that the exact
# waiting of each run is known; then draws SEEDS samples of each run
# offline with the runtime's sampler at strides 8, 32 and 128 and compares
# every estimate with its run's exact value (bench_estimate.c).  Prints the
# Markdown table of docs/performance.md.
#
# usage: bench/estimate_coverage.sh BUILDDIR [RUNS [NCALLS [SEEDS]]]
#        (defaults 30 runs of 100,000 calls, 20 samples per run and stride)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-30} ncalls=${3:-100000} seeds=${4:-20}
mpiexec=${MPIEXEC:-mpiexec.mpich}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export UCX_TLS=${UCX_TLS:-sm,self} UCX_POSIX_USE_PROC_LINK=${UCX_POSIX_USE_PROC_LINK:-n}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "MPI: $mpiexec; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$runs runs per workload of $ncalls calls, 2 ranks bound to cores, every call kept;"
echo "$seeds samples of each run per stride"
echo
first=yes
for mode in steady heavy bursty periodic; do
    dirs=
    r=1
    while [ "$r" -le "$runs" ]; do
        out=$work/$mode.$r
        COLLPROF_OUTPUT_DIR=$out COLLPROF_TIMING_MAX_CALLS=$((ncalls + 16)) \
            "$mpiexec" -bind-to core -n 2 -genv LD_PRELOAD "$build/lib/libcollprof.so" \
            "$build/bench/bench_wait_workloads" "$mode" "$ncalls" "$r" >/dev/null \
            2>"$work/err" || { cat "$work/err" >&2; exit 1; }
        dirs="$dirs $out"
        r=$((r + 1))
    done
    # shellcheck disable=SC2086 # the run directories, one word each
    "$build/bench/bench_estimate" --label "$mode" --seeds "$seeds" --levels 3,5,7 $dirs \
        >"$work/table"
    if [ $first = yes ]; then cat "$work/table"; first=no; else tail -n +3 "$work/table"; fi
    rm -rf "$work/$mode".*
done
