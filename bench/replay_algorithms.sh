#!/bin/sh
# The workflow of docs/replay.md, measured: profile the bundled mini-app on
# 2 ranks (bound to cores), then replay its Alltoallv patterns with each of
# MPICH's Alltoallv algorithms (MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM), as
# recorded and with the counts scaled up, the algorithms interleaved, ROUNDS
# rounds; prints the median t_avg (microseconds per call) of the world
# communicator's Alltoallv as one Markdown table.
#
# usage: bench/replay_algorithms.sh BUILDDIR [ROUNDS] [SCALES]
set -e
build=${1:?usage: bench/replay_algorithms.sh BUILDDIR [ROUNDS] [SCALES]}
rounds=${2:-5}
scales=${3:-"1 100 10000"}
algs="scattered pairwise_sendrecv_replace nb"
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
export UCX_TLS=sm,self UCX_POSIX_USE_PROC_LINK=n
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
COLLPROF_OUTPUT_DIR="$work/out" "$mpiexec" -bind-to core -genv LD_PRELOAD \
    "$build/lib/libcollprof.so" -n 2 "$build/examples/alltoallv_miniapp" 200 50 >/dev/null 2>&1
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
    for s in $scales; do
        for a in $algs; do
            MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=$a "$mpiexec" -bind-to core -n 2 \
                "$build/tools/replay/collprof-replay" "$work/out" --comm 0 --collective Alltoallv \
                --scale-counts "$s" --json "$work/r.json" >/dev/null
            python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["patterns"][0]; print(sys.argv[2], sys.argv[3], p["bytes_per_call"], p["t_avg"]*1e6)' \
                "$work/r.json" "$s" "$a" >>"$work/times"
        done
    done
done
python3 - "$work/times" "$scales" "$algs" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
scales, algs = sys.argv[2].split(), sys.argv[3].split()
print("| counts | bytes per call (both ranks, recorded x factor) | " + " | ".join(algs) + " |")
print("|---:|---:|" + "---:|" * len(algs))
for s in scales:
    t = {a: statistics.median(float(r[3]) for r in rows if r[0] == s and r[1] == a) for a in algs}
    b = next(r[2] for r in rows if r[0] == s)
    print("| x%s | %d | " % (s, int(b) * int(s)) + " | ".join("%.2f" % t[a] for a in algs) + " |")
PY
