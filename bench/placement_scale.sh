#!/bin/sh
# `collprof placement` at scale: the scale simulator's halo profile
# (bench_scale --keep: MPI_Alltoallv on MPI_COMM_WORLD, 8 elements to r-1,
# r+1, r-k, r+k) of each size, placed on nodes of 128 ranks; wall time and
# peak memory of the command (GNU time), and the bytes between nodes of the
# block layout and of the proposal.  Prints the Markdown table of
# docs/performance.md.
#
# usage: bench/placement_scale.sh BUILDDIR [SIZES]   (default "10000 100000")
set -eu
build=$(cd "$1" && pwd)
sizes=${2:-10000 100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| ranks | nodes of 128 | graph pairs | wall time | peak memory | block layout (bytes between nodes) | proposal | saving |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for p in $sizes; do
    rm -rf "$work/d" && mkdir "$work/d"
    "$build/bench/bench_scale" --ranks "$p" --workload halo --calls 4 --keep "$work/d" >/dev/null
    nodes=$(( (p + 127) / 128 ))
    /usr/bin/time -f '%e %M' -o "$work/time" "$build/tools/collprof" placement "$work/d" \
        --nodes "$nodes" --format json >"$work/out.json"
    set -- $(cat "$work/time")
    python3 - "$work/out.json" "$p" "$nodes" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cut = {l["name"]: l["bytes_between_nodes"] for l in d["layouts"]}
b, pr = cut["block"], cut["proposal"]
print("| %s | %s | %d | %.2f s | %.0f MiB | %d | %d | %.1f %% |" % (
    sys.argv[2], sys.argv[3], d["graph"]["pairs"], float(sys.argv[4]),
    int(sys.argv[5]) / 1024, b, pr, 100.0 * (b - pr) / b if b else 0))
PY
done
