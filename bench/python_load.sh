#!/bin/bash
# The Python package on big profiles: 1,000,000 MPI_Alltoallv at 2 ranks
# (counts only), 32 patterns cycled and 1,000 at random (bench_pattern_run,
# as bench/reader_paths.sh makes them).  Times, in one Python process:
# collprof.load (the reader library's load), .series, .calls of the series
# (1,000,000 rows) and the matrix of the last call; the median of RUNS
# processes, and the peak memory of the last.  A Markdown table.
#
# usage: bench/python_load.sh BUILDDIR [RUNS=3] [CALLS=1000000]
#        (PYTHON: the interpreter the package is built for, /usr/bin/python3)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-3}
calls=${3:-1000000}
python=${PYTHON:-/usr/bin/python3}
. "$(dirname "$0")/pattern_profiles.sh"
pattern_setup "$build"
export PYTHONPATH=$build/python
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| profile | load | .series | .calls (rows) | .matrix (last call) | all | peak memory |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for w in "32 cycle" "1000 random"; do
    set -- $w
    dir=$tmp/p$1
    pattern_profile "$build" "$dir" "$calls" "$1" "$2"
    for i in $(seq "$runs"); do
        /usr/bin/time -f "%M" -o "$tmp/mem" "$python" - "$dir" >>"$tmp/t.$1" <<'PY'
import sys, time
t0 = time.perf_counter()
import collprof
p = collprof.load(sys.argv[1])
t1 = time.perf_counter()
s = p.series
t2 = time.perf_counter()
c = p.calls(0, "Alltoallv")
t3 = time.perf_counter()
m = p.matrix(0, "Alltoallv", int(c["call"].iloc[-1]))
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0, len(c))
PY
    done
    awk -v name="$calls calls, $1 patterns, $2" -v mem="$(cat "$tmp/mem")" '
        { for (i = 1; i <= 5; i++) v[i, NR] = $i; rows = $6; n = NR }
        function med(i,   a, k, j, t) { for (k = 1; k <= n; k++) a[k] = v[i, k]
            for (k = 2; k <= n; k++) for (j = k; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            return a[int((n + 1) / 2)] }
        END { printf "| %s | %.3f s | %.3f s | %.3f s (%d) | %.4f s | %.3f s | %.0f MiB |\n",
              name, med(1), med(2), med(3), rows, med(4), med(5), mem / 1024 }' "$tmp/t.$1"
done
