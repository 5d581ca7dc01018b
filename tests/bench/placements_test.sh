#!/bin/bash
# bench/hotpath_placements.sh from end to end, as a developer runs it to
# compare versions: this source tree built at two placements (meson option
# `code_padding`) and measured once each.  Checked: a row with a number for
# each placement and the median row; the padding moved MPI_Alltoallv and
# cp_call_record by what was asked (the option works, and only moves code);
# a malformed or negative placement is refused by meson, naming the option.
# Not checked: the times themselves (benchmarks print numbers; no test
# asserts a time).
#
# usage: placements_test.sh SRCDIR MPI
set -eu
src=$1 mpi=$2
command -v "mpiexec.$mpi" >/dev/null || { echo "SKIP: no mpiexec.$mpi"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-placements-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }

PLACEMENT_RUNS=1 PLACEMENTS="0,0 256,64" PLACEMENT_MPI=$mpi \
    "$src/bench/hotpath_placements.sh" "$src" >"$tmp/out" 2>&1 || fail "the script failed"

for p in 0,0 256,64; do
    grep -Eq "^\| $p \| -?[0-9]+\.[0-9] \[-?[0-9]+–-?[0-9]+\] \|$" "$tmp/out" ||
        fail "no row for placement $p"
done
median_row='^\| \*\*median over placements\*\* \[their range\] \| \*\*-?[0-9]+\.[0-9]\*\*'
grep -Eq "$median_row" "$tmp/out" || fail "no median row"
grep -q "^_CPU: .*; MPI: $mpi;" "$tmp/out" || fail "no CPU model and MPI line"

# The addresses: the wrappers 256 bytes further (give or take the
# alignment of the padding function, 16 bytes), cp_call_record 320.  On
# x86-64 the wrappers are in the quiet section (lib/signals.h), which
# follows .text: both of .text's paddings move it, and its own padding
# the wrappers again, 256 + 64 + 256.
wrappers=256
[ "$(uname -m)" != x86_64 ] || wrappers=576
addr() { sed -n "s/^- tree 1, placement $1: .*$2 at 0x\([0-9a-f]*\).*/\1/p" "$tmp/out"; }
for what in MPI_Alltoallv:$wrappers cp_call_record:320; do
    sym=${what%:*} want=${what#*:}
    a=$(addr 0,0 "$sym") b=$(addr 256,64 "$sym")
    { [ -n "$a" ] && [ -n "$b" ]; } || fail "no address of $sym"
    moved=$((0x$b - 0x$a))
    { [ "$moved" -ge "$want" ] && [ "$moved" -lt $((want + 16)) ]; } ||
        fail "$sym moved by $moved bytes, expected $want (to $((want + 15)))"
done

# Placements meson cannot use are refused, naming the option.
for bad in 64 64,-8; do
    if meson setup "$tmp/bad" "$src" -Dmpi="$mpi" -Dtests=disabled -Dcode_padding=$bad \
        >"$tmp/out" 2>&1; then
        fail "meson accepted -Dcode_padding=$bad"
    fi
    grep -q 'code_padding: two byte counts expected' "$tmp/out" ||
        fail "meson's refusal of $bad does not say why"
    rm -rf "$tmp/bad"
done
echo "PASS"
