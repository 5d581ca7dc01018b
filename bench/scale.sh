#!/bin/sh
# The counts, wait-state, call-path and Cube stages of finalize at 1,000,
# 10,000 and 100,000 virtual ranks (bench_scale.c), every workload: three
# Markdown tables for docs/performance.md.
#
# usage: bench/scale.sh BUILDDIR [CALLS [SIZES]]
#   CALLS: calls per workload (default 4: both matrices, twice).  Each
#   virtual rank passes its counts by their non-zeros (cp_vec_arg.nz_peers),
#   so the application side costs what its rows hold, not P per call; the
#   ranks' numbers barely depend on CALLS.
#   SIZES: the numbers of ranks, in one argument ("1000 10000 100000" by
#   default; "1000000" takes about 5 to 8 minutes a workload here, and
#   subcomms far longer: its count files grow as P^1.5).
set -e
build=${1:?usage: bench/scale.sh BUILDDIR [CALLS [SIZES]]}
calls=${2:-4}
sizes=${3:-1000 10000 100000}
exe=$build/bench/bench_scale
[ -x "$exe" ] || { echo "scale.sh: $exe not built (ninja -C $build)" >&2; exit 1; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for p in $sizes; do
    for w in halo uniform sparse subcomms; do
        "$exe" --ranks "$p" --workload "$w" --calls "$calls" >>"$lines"
    done
done
get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
echo "All stages:"
echo
echo "| ranks | workload | busiest rank | its peak | its received | its CPU | most received | lead received | count files | exact |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
while read -r line; do
    echo "| $(get ranks) | $(get workload) | $(get busiest_rank) | $(get busiest_peak_mib) MiB |" \
        "$(get busiest_recv_mib) MiB | $(get busiest_cpu_s) s |" \
        "$(get most_recv_mib) MiB (rank $(get most_recv_rank)) | $(get lead_recv_mib) MiB |" \
        "$(get output_bytes) B | $(get exact) |"
done <"$lines"
echo
echo "The wait-state stage alone:"
echo
echo "| ranks | workload | busiest rank | its peak | its received | its CPU | rank 0 received | waits exact |"
echo "|---:|---|---:|---:|---:|---:|---:|---|"
while read -r line; do
    echo "| $(get ranks) | $(get workload) | $(get waits_busiest_rank) | $(get waits_peak_mib) MiB |" \
        "$(get waits_recv_mib) MiB | $(get waits_cpu_s) s | $(get waits_lead_recv_mib) MiB |" \
        "$(get waits_exact) |"
done <"$lines"
echo
echo "The call-path and Cube stages (the same for every workload):"
echo
echo "| ranks | workload | call-tree nodes at rank 0 | rank 0 received | profile.cubex | rank 0 received | rank 0 held | rank 0 CPU | exact |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---|"
while read -r line; do
    echo "| $(get ranks) | $(get workload) | $(get paths_nodes) | $(get paths_lead_recv_kib) KiB |" \
        "$(get cube_bytes) B | $(get cube_lead_recv_mib) MiB | $(get cube_lead_peak_mib) MiB |" \
        "$(get cube_lead_cpu_s) s | $(get paths_exact)/$(get cube_exact) |"
done <"$lines"
