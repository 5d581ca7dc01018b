#!/bin/bash
# Instructions collprof adds to one MPI_Alltoallv (1 int per peer, 2 ranks),
# setting by setting: callgrind (valgrind) counts rank 0's instructions in
# MPI_Alltoallv (collprof's front, wrapper and all it calls) less those in
# the MPI library's PMPI_Alltoallv, per call; then the functions of
# collprof's core by their own instructions per call.  Instructions, not
# time: the same on every run and every CPU, so a change to the hot path
# shows here exactly (docs/performance.md).  Needs valgrind.
#
# usage: bench/hotpath_instructions.sh BUILDDIR [CALLS=10000]
set -eu
build=$(cd "${1:?usage: $0 BUILDDIR [CALLS]}" && pwd)
calls=${2:-10000}
. "$(dirname "$0")/../tests/mpi/launcher.sh"
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
mpi=$(build_mpi "$build")
MPIEXEC=${MPIEXEC:-$(command -v "mpiexec.$mpi" || echo mpiexec)}
launcher_init "$MPIEXEC"
lib=$build/lib/libcollprof.so prog=$build/bench/bench_hotpath_calls
[ -x "$prog" ] || { echo "$0: $prog not built (ninja -C $1)" >&2; exit 2; }
export UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-instr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The n-th field (1-based, commas removed) of the first line matching re.
field() { grep -E "$2" "$1" | head -n 1 | awk -v f="$3" '{ gsub(",", "", $f); print $f }'; }

echo "## Instructions added per MPI_Alltoallv (callgrind, rank 0, $calls calls, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $mpi)"
echo
echo "| setting | instructions per call |"
echo "|---|---:|"
for s in pass-through counts timing defaults; do
    case $s in
        pass-through) envs="COLLPROF_COLLECTIVES=barrier" ;;
        counts) envs="COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=0" ;;
        timing) envs="COLLPROF_CALLSITE_DEPTH=0" ;;
        defaults) envs="" ;;
    esac
    rm -f "$tmp"/cg.*
    # shellcheck disable=SC2086
    env COLLPROF_OUTPUT_DIR="$tmp/out-$s" $envs timeout 600 "$MPIEXEC" $LAUNCH_ARGS \
        $(launch_preload "$lib") -n 2 valgrind --tool=callgrind \
        --callgrind-out-file="$tmp/cg.%p" "$prog" "$calls" >/dev/null 2>&1
    f=$(ls "$tmp"/cg.* | head -n 1)
    callgrind_annotate --inclusive=yes "$f" >"$tmp/incl.$s" 2>/dev/null
    callgrind_annotate --auto=no "$f" >"$tmp/self.$s" 2>/dev/null
    all=$(field "$tmp/incl.$s" '\?\?\?:MPI_Alltoallv \[.*libcollprof' 1)
    mpi_part=$(field "$tmp/incl.$s" ':PMPI_Alltoallv \[' 1)
    echo "| $s | $(( (all - mpi_part) / calls )) |"
done
echo
echo "Counts only: the hot path's own instructions per call, by source file and function"
echo "(code inlined from a header counts under the header)"
echo
echo "| source: function | instructions per call |"
echo "|---|---:|"
core='wrappers_[a-z]+\.c|lib/(call|call_memo|capture|comm_cache|comm_registry|signals)\.[ch]'
grep -E "($core|collectors/counts\.[ch]):" \
    "$tmp/self.counts" |
    awk -v n="$calls" '{ x = $1; gsub(",", "", x); if (x / n >= 1) {
        w = $0; sub(/^ *[0-9,]+ +(\([^)]*\) +)?/, "", w); sub(/ \[.*/, "", w)
        sub(/.*\/(lib|collectors)\//, "", w); printf "| %s | %.0f |\n", w, x / n } }'
echo
echo "With timing, every call is in the timing sample while its pool has room (65,536"
echo "records): in a long run most calls are not, and cost less than the timing row."
