#!/bin/bash
# The memory lines collprof adds to one call when the application evicts the
# caches between calls: bench_cache_lines (16 MiB of the program's own
# stores before each call) under cachegrind with a stated cache model (D1
# 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines), 2 ranks, each family at
# N1 and N2 calls, without collprof, with it counting only
# (COLLPROF_TIMING=off), with the defaults, and with the defaults in a
# long run: at N2 calls the timing sample still keeps every call (it keeps
# the first 65,536 of a series, then thins), which a long run does not;
# COLLPROF_TIMING_SAMPLE=16 makes it thin from the 17th call, as it keeps
# one call in 2^k past its first 65,536.  Per call: last-level data
# misses (reads + writes) of the whole program, (misses at N2 - at N1) /
# (N2 - N1), the mean of the 2 ranks; added = with - without.
#
# The stack's offset in a 64-byte line at the calls decides how many lines
# the frames of the call's path span, by a line or two, and address-space
# randomisation (and the environment's size) sets it differently at every
# run.  So each setting runs at each of the four offsets a 16-byte aligned
# frame can take (bench_cache_lines ALIGN 0-3, the same offset with and
# without collprof), ROUNDS runs of each, their median; a cell is the mean
# over the four offsets, what an application calling from anywhere sees,
# and the smallest and largest of them.  A Markdown table.
#
# With COMM=self in the environment the calls go to MPI_COMM_SELF (each
# rank alone): the MPI library's path is then the same at every call, so
# the difference is what collprof adds, repeatable to a fraction of a line;
# on MPI_COMM_WORLD (the default) the library's own misses vary by several
# lines from run to run (which rank arrives first, unexpected messages).
#
# Periodic snapshots are off in every run (COLLPROF_SNAPSHOT=off): one every
# 30 s is a cost per 30 s of the run, not per call, and under cachegrind's
# slowdown it fell in some runs and not in others (single cells 10 to 35
# lines off).
#
# N1 is past the first ~25 calls: below that a series' kept calls are
# stored in timings.cpt without compression, above it deflated by a stream
# whose state (256 KiB, cleared) is made once per file.  With N1 below and
# N2 above that step, the step's ~1,000 lines were divided among the calls
# as if each call cost them (up to 10 lines of the defaults' column when
# N2 - N1 = 100).
#
# N2 = 440 by default: a one-time event of the MPI library that falls in
# one run and not in the other (UCX growing a memory pool at one run's
# end, about 130 lines) is 0.3 lines a call over 400 calls; over 100 it
# was 1.3, and three runs of one setting at one offset spanned 2.4 lines
# (MPICH's Alltoallv).  Every call is still kept at 440.
#
# DEGREE=N gives neighbor_alltoallv (a family of its own, not in the
# default list) N edges a rank: count arrays of N counts, as a communicator
# of N ranks passes them, on 2 ranks.
#
# LIB=PATH measures another build of the library (an earlier version) with
# this build's program.  PEER="NAME|PATH|VAR=VALUE" adds a column for
# another profiler preloaded from PATH, with its setting VAR=VALUE: mpiP 3.5
# built from its public source for this MPI, "mpiP -k 0|.../libmpiP.so|MPIP=-k 0"
# (call sites without a stack walk, the lightest setting).  MPI=openmpi measures a build for Open MPI
# (meson setup -Dmpi=openmpi): its launcher and libcollprof-openmpi.so.
#
# usage: [COMM=self] [LIB=PATH] [PEER=...] [MPI=mpich|openmpi] [DEGREE=N] bench/cache_lines.sh BUILDDIR [ROUNDS=1] [N1=40] [N2=440] [FAMILIES...]
set -euo pipefail
comm=${COMM:-world}
degree=${DEGREE:-1}
mpi=${MPI:-mpich}
case $mpi in
mpich) mpiexec=mpiexec.mpich mpi_name="MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')" ;;
openmpi) mpiexec=mpiexec.openmpi mpi_name="Open MPI $(ompi_info --version 2>/dev/null | sed -n 's/.*v\([0-9.]*\).*/\1/p' | head -1)"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
*) echo "MPI: mpich or openmpi, not $mpi" >&2; exit 2 ;;
esac
build=$(cd "$1" && pwd)
rounds=${2:-1}
n1=${3:-40}
n2=${4:-440}
shift $(($# < 4 ? $# : 4))
families=${*:-alltoallv alltoall allreduce bcast gatherv allgatherv reduce_scatter_block ialltoallv alltoallw barrier}
app=$build/bench/bench_cache_lines
lib=${LIB:-$build/lib/libcollprof-$mpi.so}
# PEER="NAME|PATH|VAR=VALUE": one more column, another profiler preloaded
# from PATH with its setting VAR=VALUE (optional), the same program
IFS='|' read -r peer_name peer_lib peer_set <<<"${PEER:-}"
[ -z "$peer_lib" ] || [ -f "$peer_lib" ] || { echo "PEER: no $peer_lib" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind (cachegrind) is needed" >&2; exit 1; }
[ -x "$app" ] && [ -f "$lib" ] || { echo "build $build first" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-lines.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export UCX_TLS=${UCX_TLS:-sm,self} UCX_POSIX_USE_PROC_LINK=${UCX_POSIX_USE_PROC_LINK:-n}
cg="valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --I1=32768,8,64 --LL=8388608,16,64"

# rank_env VAR VALUE: the launcher's arguments that set VAR in every rank,
# added to the array pre
rank_env() { if [ "$mpi" = openmpi ]; then pre+=(-x "$1=$2"); else pre+=(-env "$1" "$2"); fi; }

# misses FAMILY SETTING N ALIGN: last-level data misses of the run, summed over ranks / 2
misses() {
    rm -f "$tmp"/cg.*
    pre=()
    case $2 in
    none) ;;
    counts) rank_env LD_PRELOAD "$lib"; rank_env COLLPROF_SNAPSHOT off; rank_env COLLPROF_TIMING off ;;
    defaults) rank_env LD_PRELOAD "$lib"; rank_env COLLPROF_SNAPSHOT off ;;
    long) rank_env LD_PRELOAD "$lib"; rank_env COLLPROF_SNAPSHOT off; rank_env COLLPROF_TIMING_SAMPLE 16 ;;
    peer) rank_env LD_PRELOAD "$peer_lib"; [ -z "$peer_set" ] || rank_env "${peer_set%%=*}" "${peer_set#*=}" ;;
    esac
    # in the scratch directory: a peer writes its report where it runs
    if ! (cd "$tmp" && COLLPROF_OUTPUT_DIR=$tmp/out $mpiexec -n 2 "${pre[@]}" $cg \
        --cachegrind-out-file="$tmp/cg.%p" "$app" "$1" "$3" 16 "$comm" "$degree" "$4" >"$tmp/run.log" 2>&1) ||
        [ "$(ls "$tmp"/cg.* 2>/dev/null | wc -l)" != 2 ]; then
        echo "cache_lines.sh: the run of $1 ($2, $3 calls) failed:" >&2
        tail -20 "$tmp/run.log" >&2
        exit 1
    fi
    rm -rf "$tmp/out"
    # events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
    cat "$tmp"/cg.* | awk '/^summary:/ { s += $7 + $10 } END { printf "%.1f\n", s / 2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $(valgrind --version)  "
echo "Cache model (cachegrind): D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines; 16 MiB evicted before each call  "
echo "$mpi_name, 2 ranks, calls on MPI_COMM_${comm^^}, 1 int per peer (neighbor_alltoallv: $degree edges a rank); per call: (misses at $n2 calls - at $n1) / $((n2 - n1)), mean of the ranks; median of $rounds run(s) at each of the 4 stack offsets in a line; mean over the offsets (smallest–largest)"
echo
settings="none counts defaults long"
header="| collective | without collprof (beyond the evicting stores) | added, counting only | added, defaults | added, defaults, long run |"
rule="|---|---:|---:|---:|---:|"
if [ -n "$peer_lib" ]; then
    settings="$settings peer"
    header="$header added, $peer_name |"
    rule="$rule---:|"
fi
echo "$header"
echo "$rule"
aligns="0 1 2 3"
for f in $families; do
    for s in $settings; do
        for a in $aligns; do
            for r in $(seq "$rounds"); do
                x=$(misses "$f" $s "$n1" $a)
                y=$(misses "$f" $s "$n2" $a)
                echo "($y - $x) / ($n2 - $n1)" | bc -l
            done | median >"$tmp/per.$s.$a"
        done
    done
    base=$(for a in $aligns; do cat "$tmp/per.none.$a"; done | awk '{ s += $1 } END { print s / NR }')
    printf '| %s | %.1f |' "$f" "$(echo "$base - 16 * 1048576 / 64" | bc -l)"
    for s in $settings; do
        [ "$s" = none ] || for a in $aligns; do
            echo "$(cat "$tmp/per.$s.$a") - $(cat "$tmp/per.none.$a")" | bc -l
        done | awk '{ s += $1; lo = NR == 1 || $1 < lo ? $1 : lo; hi = NR == 1 || $1 > hi ? $1 : hi }
                    END { printf " %+.1f (%+.1f to %+.1f) |", s / NR, lo, hi }'
    done
    echo
done
