#!/bin/bash
# The hot path's added time over several code placements, not one.
#
# On some CPUs (an AMD EPYC VM under MPICH, docs/performance.md) the same
# code costs from 26 to 52 ns per MPI_Alltoallv depending only on where the
# linker put it: a change measured at one placement says more about where
# it moved the code than about what it does.  This script builds each
# source tree given (default: this one) once per placement, the wrappers
# and cp_call_record moved by a few bytes of padding (meson option
# `code_padding`, lib/code_padding.h; on x86-64 the wrappers are in the
# quiet section after .text, which both paddings move, and its own padding
# moves them again), and runs bench_overhead on every build in
# turn, round after round, so that all of them see the same machine.  It
# prints, per placement and tree, the median paired diff (ns added per call,
# 1 int per peer, 2 ranks bound to cores) and, per tree, the median over the
# placements: the number to compare two versions by.
#
# usage: bench/hotpath_placements.sh [SRCDIR...]
#   PLACEMENT_RUNS   runs of bench_overhead per build (default 10)
#   PLACEMENTS       "W,R ..." bytes of padding before the wrappers and
#                    before cp_call_record (default: 6 placements)
#   PLACEMENT_SETTING  wrapper (Alltoallv not recorded: the pass-through),
#                    counts, timing or defaults (default counts)
#   PLACEMENT_MPI    mpich or openmpi (default mpich)
#   PLACEMENT_MESON_ARGS  more meson options for every build (to compare build
#                    settings: give the same tree twice, "SRC SRC", and the
#                    options of the second as PLACEMENT_MESON_ARGS2)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$here/.."
trees=()
for src in "$@"; do
    trees+=("$(cd "$src" && pwd)")
done
runs=${PLACEMENT_RUNS:-10}
placements=${PLACEMENTS:-"0,0 1344,192 2688,1088 4160,2560 5504,4416 704,3200"}
setting=${PLACEMENT_SETTING:-counts}
mpi=${PLACEMENT_MPI:-mpich}
case $setting in
    wrapper) envs="COLLPROF_COLLECTIVES=barrier" ;;
    counts) envs="COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=0" ;;
    timing) envs="COLLPROF_CALLSITE_DEPTH=0" ;;
    defaults) envs="" ;;
    *) echo "$0: PLACEMENT_SETTING: wrapper, counts, timing or defaults, not '$setting'" >&2
       exit 2 ;;
esac
MPIEXEC=${MPIEXEC:-$(command -v "mpiexec.$mpi" || echo mpiexec)}
export UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-placements.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# One build per (tree, placement): the interposition libraries and
# bench_overhead only.
builds=()
t=0
for src in "${trees[@]}"; do
    t=$((t + 1))
    for p in $placements; do
        b="$tmp/t$t-${p/,/-}"
        extra=${PLACEMENT_MESON_ARGS:-}
        [ "$t" -eq 2 ] && [ -n "${PLACEMENT_MESON_ARGS2:-}" ] && extra=$PLACEMENT_MESON_ARGS2
        # shellcheck disable=SC2086
        meson setup "$b" "$src" -Dmpi="$mpi" -Dtests=disabled -Dcode_padding="$p" $extra \
            >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log" >&2; exit 1; }
        libs=$(ninja -C "$b" -t targets all |
               sed -n 's/^\(lib\/libcollprof[^/]*\.so[.0-9]*\): c_LINKER$/\1/p')
        # shellcheck disable=SC2086
        ninja -C "$b" $libs bench/bench_overhead >"$tmp/build.log" 2>&1 ||
            { cat "$tmp/build.log" >&2; exit 1; }
        builds+=("$t $p $b")
        # Where the padding put the wrapper and the recorder.
        nm "$b/lib/libcollprof-core-$mpi.so" |
            awk -v t="$t" -v p="$p" '
                $3 == "MPI_Alltoallv" { w = $1 }
                $3 == "cp_call_record" { r = $1 }
                END {
                    sub(/^0+/, "", w); sub(/^0+/, "", r)
                    printf "- tree %s, placement %s: ", t, p
                    printf "MPI_Alltoallv at 0x%s, cp_call_record at 0x%s\n", w, r
                }' >>"$tmp/addresses"
    done
done

# Round after round, every build once, in an order that rotates each round.
n=${#builds[@]}
for r in $(seq "$runs"); do
    for i in $(seq 0 $((n - 1))); do
        # shellcheck disable=SC2086
        set -- ${builds[$(((i + r) % n))]}
        export COLLPROF_OUTPUT_DIR="$tmp/out"
        # shellcheck disable=SC2086
        line=$(env $envs "$here/run_benchmarks.sh" --run-one "$MPIEXEC" core \
                   "$3/lib/libcollprof.so" "$3/bench/bench_overhead" 200 1000 lines |
               grep "^bench_overhead op=alltoallv ") || {
            echo "$0: no alltoallv line from $3" >&2
            exit 1
        }
        rm -rf "$COLLPROF_OUTPUT_DIR"
        echo "$1 $2 $(echo "$line" | sed -n 's/.* paired_ns=\([-0-9.]*\).*/\1/p')" >>"$tmp/results"
    done
done

echo "## Hot path over code placements: ns added per MPI_Alltoallv ($setting)"
echo
echo "_CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); MPI: $mpi;" \
     "$runs runs per build; uptime after: $(uptime | sed 's/.*load/load/')_"
echo
t=0
for src in "${trees[@]}"; do
    t=$((t + 1))
    version=$(git -C "$src" describe --always --dirty 2>/dev/null || echo "not a git tree")
    echo "- tree $t: $src ($version)"
done
echo
python3 - "$tmp/results" "$placements" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
trees = sorted({int(r[0]) for r in rows})
places = sys.argv[2].split()
med = {}
print("| placement (bytes before wrappers, record) | " +
      " | ".join(f"tree {t}: median [min–max]" for t in trees) + " |")
print("|---|" + "---:|" * len(trees))
for p in places:
    cells = []
    for t in trees:
        v = [float(r[2]) for r in rows if int(r[0]) == t and r[1] == p]
        med[t, p] = statistics.median(v)
        cells.append(f"{med[t, p]:.1f} [{min(v):.0f}–{max(v):.0f}]")
    print(f"| {p} | " + " | ".join(cells) + " |")
cells = []
for t in trees:
    m = [med[t, p] for p in places]
    cells.append(f"**{statistics.median(m):.1f}** [{min(m):.0f}–{max(m):.0f}]")
print("| **median over placements** [their range] | " + " | ".join(cells) + " |")
EOF
echo
cat "$tmp/addresses"
