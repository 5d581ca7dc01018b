#!/bin/bash
# How long the reader takes on big profiles: 1,000,000 MPI_Alltoallv at 2
# ranks (counts only), 32 patterns cycled and 1,000 patterns at random;
# `collprof summary`, `check`, `patterns` and `report` on each, the median of
# RUNS runs (seconds, and the peak memory of the last run).  A Markdown table.
#
# usage: bench/reader_paths.sh BUILDDIR [RUNS=3] [CALLS=1000000]
set -eu
build=$(cd "$1" && pwd)
runs=${2:-3}
calls=${3:-1000000}
. "$(dirname "$0")/pattern_profiles.sh"
pattern_setup "$build"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-reader.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
collprof=$build/tools/collprof

echo "| profile | count files | summary | check | patterns | report | peak memory (report) |"
echo "|---|---|---|---|---|---|---|"
for w in "32 cycle" "1000 random"; do
    set -- $w
    dir=$tmp/p$1
    pattern_profile "$build" "$dir" "$calls" "$1" "$2"
    size=$(cat "$dir"/*-counters.* | wc -c)
    row="| $calls calls, $1 patterns, $2 | $size bytes"
    for cmd in summary check patterns report; do
        args=""
        [ $cmd = report ] && args="-o $tmp/report.html"
        for i in $(seq "$runs"); do
            /usr/bin/time -f "%e %M" -o "$tmp/time" "$collprof" $cmd "$dir" $args >/dev/null 2>&1
            cut -d' ' -f1 "$tmp/time" >>"$tmp/t.$cmd.$1"
        done
        row="$row | $(sort -g "$tmp/t.$cmd.$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') s"
    done
    echo "$row | $(awk '{ printf "%.0f MiB", $2 / 1024 }' "$tmp/time") |"
done
