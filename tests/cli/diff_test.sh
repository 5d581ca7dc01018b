#!/bin/sh
# CLI tests of `collprof diff A B`: the reader fixture against itself (every
# matrix in both, ratios 1), against a copy where one matrix's counts
# changed (one new, one gone, the bytes ratio), against the same matrices
# written in another row form (still in both), JSON, usage errors.
#   diff_test.sh COLLPROF MAKE_FIXTURE PYTHON
set -u
. "$(dirname "$0")/harness.sh"
collprof=$(absolute "$1")
make_fixture=$(absolute "$2")
python=$3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cp-diff-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$make_fixture" a good || exit 1
cp -r a b && cp -r a c || exit 1
# b: calls 0-1 of Alltoallv sent 1 2 0 from rank 0; now 1 2 5
sed -i 's/^Rank(s) 0: 1 2 0$/Rank(s) 0: 1 2 5/' b/send-counters.rank0.txt
grep -q '^Rank(s) 0: 1 2 5$' b/send-counters.rank0.txt || { echo "fixture changed: no '1 2 0' row"; exit 1; }
# c: the matrix of call 2 in counts format 5, one row sparse (the same matrix)
sed -i -e 's/^# collprof counts 1$/# collprof counts 5/' \
    -e '/^Count: 1 calls - 2$/a Row length: 3' -e 's/^Rank(s) 0: 0 1 1$/Rank(s) 0: sparse 1=1 2=1/' \
    c/send-counters.rank0.txt

run "$collprof" diff a a
count=$((count + 1))
grep -q '^communicator 0, Alltoallv: 2 send matrices in both, 0 new in B, 0 gone from A$' out.txt ||
    fail "diff a a: expected every Alltoallv matrix in both:"
grep -q ' 1.00x ' out.txt || fail "diff a a: expected a ratio of 1.00x"
[ "$status" -eq 0 ] || fail "diff a a: exit status $status"

run "$collprof" diff a b
count=$((count + 1))
[ "$status" -eq 0 ] || fail "diff a b: exit status $status"
grep -q '^communicator 0, Alltoallv: 1 send matrix in both, 1 new in B, 1 gone from A$' out.txt ||
    { fail "diff a b: expected one new and one gone:"; cat out.txt; }
grep -q '^    gone: calls 0-1 (2 calls, 72 bytes each)$' out.txt ||
    { fail "diff a b: the gone matrix:"; cat out.txt; }
grep -q '^    new: calls 0-1 (2 calls, 112 bytes each)$' out.txt ||
    { fail "diff a b: the new matrix:"; cat out.txt; }

run "$collprof" diff a c
count=$((count + 1))
grep -q '^communicator 0, Alltoallv: 2 send matrices in both, 0 new in B, 0 gone from A$' out.txt ||
    { fail "diff a c: a sparse row of the same matrix is the same matrix:"; cat out.txt; }

run "$collprof" diff a b --format json
count=$((count + 1))
"$python" - out.txt <<'PY' || fail "diff a b --format json"
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["series"] if x["collective"] == "Alltoallv" and x["comm"] == 0][0]
assert s["matrices_in_both"] == 1, s
assert [m["ncalls"] for m in s["new"]] == [2] and s["new"][0]["bytes_per_call"] == 112, s
assert [m["calls"] for m in s["gone"]] == ["0-1"], s
assert s["bytes"][1] > s["bytes"][0], s
PY

# d: call 2 moves the bytes of calls 0-1 in a datatype of 4 bytes: one
# matrix twice in one profile; against itself both pair up, in call order
cp -r a d || exit 1
"$python" - d/send-counters.rank0.txt <<'PY' || exit 1
import sys
p = sys.argv[1]
s = open(p).read()
old = ("Datatype size: 8\nAlltoallv calls 0-2\nCount: 1 calls - 2\n\nBEGINNING DATA\n"
       "Rank(s) 0: 0 1 1\nRank(s) 1: 1 0 1\nRank(s) 2: 1 1 0\n")
new = ("Datatype size: 4\nAlltoallv calls 0-2\nCount: 1 calls - 2\n\nBEGINNING DATA\n"
       "Rank(s) 0: 2 4 0\nRank(s) 1-2: 0 0 6\n")
assert old in s, "fixture changed"
open(p, "w").write(s.replace(old, new))
PY
run "$collprof" diff d d
count=$((count + 1))
grep -q '^communicator 0, Alltoallv: 2 send matrices in both, 0 new in B, 0 gone from A$' out.txt ||
    { fail "diff d d: the same matrix twice pairs with itself:"; cat out.txt; }

# e, f: the Alltoallv of calls 0-1 sends 100000 elements from rank 0 in e,
# 100001 in f: the bytes differ by 16 in about 1.6 MB, and the ratio says so
cp -r a e && cp -r a f || exit 1
sed -i 's/^Rank(s) 0: 1 2 0$/Rank(s) 0: 100000 2 0/' e/send-counters.rank0.txt
sed -i 's/^Rank(s) 0: 1 2 0$/Rank(s) 0: 100001 2 0/' f/send-counters.rank0.txt
run "$collprof" diff e f
count=$((count + 1))
grep -q '^times: neither A nor B has a timings.cpt; their times read 0$' out.txt ||
    { fail "diff e f: the line about the missing times:"; cat out.txt; }
grep '^ *0  *Alltoallv ' out.txt | grep -q ' 1.00001x ' ||
    { fail "diff e f: bytes that differ must not read as 1.00x:"; cat out.txt; }
run "$collprof" diff e e
count=$((count + 1))
grep '^ *0  *Alltoallv ' out.txt | grep -q ' 1.00x ' || { fail "diff e e: expected 1.00x:"; cat out.txt; }

# g: the Gatherv of call 0 sends nothing; against a, its bytes grow from 0
cp -r a g || exit 1
sed -i -e '/^Gatherv calls 0$/,/^END DATA$/s/^\(Rank(s) [0-2]:\) [1-3]$/\1 0/' g/send-counters.rank0.txt
run "$collprof" diff g a
count=$((count + 1))
grep -q '^ *0  *Gatherv  *1  *1  *0  *24  *from 0 ' out.txt ||
    { fail "diff g a: 0 bytes, then 24: expected 'from 0':"; cat out.txt; }

run "$collprof" diff a
expect 2 </dev/null
run "$collprof" diff a b c
expect 2 </dev/null
run "$collprof" diff a nowhere
expect 1 </dev/null
run "$collprof" diff a b --format xml
expect 2 </dev/null
finish
