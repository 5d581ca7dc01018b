#!/bin/sh
# `collprof placement` on profiles whose best layout is known
# (make_graph_profile.c): the proposal reaches the optimum, the cap holds
# exactly, every byte count is the one cut_from_export.py computes from
# `collprof export`, the written hostfile and rankfile hold the proposal,
# and a run whose hosts were set from that hostfile shows the predicted
# bytes as its own layout.
#
# usage: placement_test.sh COLLPROF MAKE_GRAPH_PROFILE PYTHON3 CHECKER metis|none
set -u
collprof=$1 make=$2 python=$3 checker=$4 partitioner=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collprof-placement.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
    echo "FAIL: $*" >&2
    failed=1
}
show() { sed 's/^/    | /' "$1" >&2; }

if [ "$partitioner" = none ]; then
    # Built without METIS: the command says what it needs.
    "$make" "$tmp/ring" ring || exit 1
    "$collprof" placement "$tmp/ring" --nodes 4 >"$tmp/out" 2>&1
    [ $? = 1 ] && grep -q "built without a graph partitioner.*libmetis-dev" "$tmp/out" ||
        { fail "without METIS, placement does not say what it needs:"; show "$tmp/out"; }
    exit $failed
fi

# json VALUE-PATH FILE: one value of the placement's JSON.
json() {
    "$python" -c 'import json, sys
d = json.load(open(sys.argv[2]))
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$1" "$2"
}
# layout NAME FILE: that layout's bytes between nodes.
layout() {
    "$python" -c 'import json, sys
d = json.load(open(sys.argv[2]))
print([l["bytes_between_nodes"] for l in d["layouts"] if l["name"] == sys.argv[1]][0])' "$1" "$2"
}

# check CASE NODES: placement's numbers against the checker's.
check() {
    dir=$tmp/$1
    "$collprof" placement "$dir" --nodes "$2" --format json >"$tmp/$1.json" 2>"$tmp/$1.err" ||
        { fail "$1: placement failed:"; show "$tmp/$1.err"; return; }
    "$collprof" export "$dir" >"$tmp/$1.export" 2>&1 || { fail "$1: export failed"; return; }
    "$python" "$checker" "$tmp/$1.export" "$tmp/$1.json" >"$tmp/$1.check" ||
        { fail "$1: the checker failed"; return; }
    [ "$(json graph.bytes "$tmp/$1.json")" = "$(sed -n 's/^graph //p' "$tmp/$1.check")" ] ||
        { fail "$1: the graph's bytes differ from the checker's:"; show "$tmp/$1.check"; }
    for l in block round_robin proposal; do
        [ "$(layout $l "$tmp/$1.json")" = "$(sed -n "s/^$l //p" "$tmp/$1.check")" ] ||
            { fail "$1: $l: bytes between nodes differ from the checker's:"; show "$tmp/$1.check"; show "$tmp/$1.json"; }
    done
    # The cap, exactly: no node holds more than ranks_per_node.
    "$python" -c 'import json, sys, collections
d = json.load(open(sys.argv[1]))
c = collections.Counter(d["proposal"])
sys.exit(not (len(d["proposal"]) == d["ranks"] and max(c.values()) <= d["ranks_per_node"] and
              set(c) <= set(range(d["nodes"]))))' "$tmp/$1.json" ||
        { fail "$1: the proposal breaks the cap or leaves ranks out:"; show "$tmp/$1.json"; }
}

# The permuted ring: 16 ranks on 4 nodes; the best layout cuts 4 ring edges
# of 80,000 bytes each.
"$make" "$tmp/ring" ring || exit 1
check ring 4
[ "$(layout proposal "$tmp/ring.json")" = 320000 ] ||
    fail "ring: the proposal crosses $(layout proposal "$tmp/ring.json") bytes, the best layout 320000"
[ "$(layout block "$tmp/ring.json")" -gt 320000 ] ||
    fail "ring: the block layout should cross more than the best (the ring is permuted)"

# The files: names are needed; then line i is rank i's host, 4 per host.
"$collprof" placement "$tmp/ring" --nodes 4 --write-hostfile "$tmp/hosts" >"$tmp/nonames" 2>&1
[ $? = 2 ] && grep -q -- "--hosts a,b" "$tmp/nonames" && [ ! -e "$tmp/hosts" ] ||
    { fail "a hostfile without node names should be refused, asking for --hosts:"; show "$tmp/nonames"; }
"$collprof" placement "$tmp/ring" --nodes 4 --hosts n0,n1,n2,n3 --write-hostfile "$tmp/hosts" \
    --write-rankfile "$tmp/rankfile" >"$tmp/ring.txt" 2>&1 ||
    { fail "placement --write-hostfile failed:"; show "$tmp/ring.txt"; }
[ "$(wc -l <"$tmp/hosts")" = 16 ] && [ "$(sort "$tmp/hosts" | uniq -c | awk '{print $1}' | sort -u)" = 4 ] ||
    { fail "the hostfile should have 16 lines, 4 per host:"; show "$tmp/hosts"; }
"$python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
hosts = [l.strip() for l in open(sys.argv[2])]
sys.exit(hosts != ["n%d" % q for q in d["proposal"]])' "$tmp/ring.json" "$tmp/hosts" ||
    { fail "the hostfile is not the proposal:"; show "$tmp/hosts"; }
awk -v F="$tmp/hosts" 'BEGIN { while ((getline h < F) > 0) host[n++] = h }
    { if ($0 != sprintf("rank %d=%s slot=%d", NR - 1, host[NR - 1], slot[host[NR - 1]]++)) bad = 1 }
    END { exit bad || NR != 16 }' "$tmp/rankfile" ||
    { fail "the rankfile is not 'rank R=host slot=S' for the proposal:"; show "$tmp/rankfile"; }
grep -q "SLURM_HOSTFILE=$tmp/hosts srun --distribution=arbitrary" "$tmp/ring.txt" &&
    grep -q "mpiexec.openmpi --rankfile $tmp/rankfile" "$tmp/ring.txt" ||
    { fail "the text does not show the launchers' command lines:"; show "$tmp/ring.txt"; }

# A run whose hosts were set from the written hostfile shows, as its own
# layout, exactly the bytes the proposal predicted.
"$make" "$tmp/rerun" ring "$tmp/hosts" || exit 1
"$collprof" placement "$tmp/rerun" --nodes 4 --format json >"$tmp/rerun.json" 2>&1 ||
    { fail "placement of the rerun failed:"; show "$tmp/rerun.json"; }
[ "$(layout own "$tmp/rerun.json")" = 320000 ] ||
    { fail "the run on the written hosts should cross 320000 bytes as its own layout:"; show "$tmp/rerun.json"; }
# ... and its own hosts name the nodes of the files.
"$collprof" placement "$tmp/rerun" --nodes 4 --write-hostfile "$tmp/hosts2" >"$tmp/rerun.txt" 2>&1 &&
    grep -q "node names: the run's own hosts" "$tmp/rerun.txt" ||
    { fail "the run's own hosts should name the nodes:"; show "$tmp/rerun.txt"; }

# The report's placement section: with --nodes, the same bytes; without
# it, only when the run ran on several hosts (its own layout then shown).
"$collprof" report "$tmp/ring" -o "$tmp/ring.html" --nodes 4 >/dev/null 2>&1 ||
    fail "report --nodes 4 failed"
sed -n '/<section id="placement">/,/<\/section>/p' "$tmp/ring.html" >"$tmp/ring.section"
grep -q 'proposal (METIS [0-9.]*)</td><td class="num">320000</td>' "$tmp/ring.section" &&
    grep -q 'block (consecutive ranks per node)</td><td class="num">1280000</td>' "$tmp/ring.section" &&
    [ "$(grep -c '<figure class="placement">' "$tmp/ring.section")" = 2 ] ||
    { fail "the report's placement section does not show the bytes and both heat maps:"; show "$tmp/ring.section"; }
"$collprof" report "$tmp/ring" -o "$tmp/ring1.html" >/dev/null 2>&1 || fail "report failed"
grep -q '<section id="placement">' "$tmp/ring1.html" &&
    fail "a run on one host (no --nodes) should have no placement section"
"$collprof" report "$tmp/rerun" -o "$tmp/rerun.html" >/dev/null 2>&1 || fail "report of the rerun failed"
grep -q 'the run&#39;s own hosts</td><td class="num">320000</td>' "$tmp/rerun.html" &&
    grep -q 'Bytes between nodes now (the run&#39;s own hosts): 320000' "$tmp/rerun.html" ||
    fail "a run on 4 hosts: the report should show its own layout's 320000 bytes between nodes"

# The stencil: 8 x 8 ranks in row-major order on 4 nodes: 4 x 4 tiles cut
# 16 grid edges (128,000 bytes), blocks of rows 24 (192,000).
"$make" "$tmp/stencil" stencil || exit 1
check stencil 4
[ "$(layout block "$tmp/stencil.json")" = 192000 ] ||
    fail "stencil: the block layout crosses $(layout block "$tmp/stencil.json") bytes, not 192000"
[ "$(layout proposal "$tmp/stencil.json")" = 128000 ] ||
    fail "stencil: the proposal crosses $(layout proposal "$tmp/stencil.json") bytes, the 4 x 4 tiles 128000"

# The all-to-all: every layout crosses the same bytes: no saving claimed.
"$make" "$tmp/alltoall" alltoall || exit 1
check alltoall 2
"$collprof" placement "$tmp/alltoall" --nodes 2 >"$tmp/alltoall.txt" 2>&1
grep -q "^saving: none" "$tmp/alltoall.txt" &&
    grep -q "^proposal (block layout; METIS [0-9.]* found none better) " "$tmp/alltoall.txt" ||
    { fail "alltoall: a saving is claimed where every layout is equal:"; show "$tmp/alltoall.txt"; }
[ "$(layout proposal "$tmp/alltoall.json")" = "$(layout block "$tmp/alltoall.json")" ] ||
    fail "alltoall: the proposal differs from the block layout"

# Several collectives: Gatherv to its root, Bcast from its root, Allgather to
# every peer; the Allreduce left out, its bytes said (6 ranks x 16 x 8
# bytes x 9 calls).
"$make" "$tmp/mixed" mixed || exit 1
check mixed 3
"$collprof" placement "$tmp/mixed" --nodes 3 >"$tmp/mixed.txt" 2>&1
grep -q "left out: Allreduce, 6912 bytes (reductions" "$tmp/mixed.txt" ||
    { fail "mixed: the Allreduce's bytes are not said as left out:"; show "$tmp/mixed.txt"; }

# Usage and impossible requests.
"$collprof" placement "$tmp/ring" >"$tmp/u1" 2>&1
[ $? = 2 ] && grep -q "nodes N is required" "$tmp/u1" || { fail "no --nodes:"; show "$tmp/u1"; }
"$collprof" placement "$tmp/ring" --nodes 4 --ranks-per-node 3 >"$tmp/u2" 2>&1
[ $? = 1 ] && grep -q "4 nodes of at most 3 ranks cannot hold the run's 16 ranks" "$tmp/u2" ||
    { fail "an impossible cap:"; show "$tmp/u2"; }
"$collprof" placement "$tmp/ring" --nodes 4 --hosts a,b,c >"$tmp/u3" 2>&1
[ $? = 2 ] && grep -q "names 3 nodes, --nodes 4" "$tmp/u3" || { fail "too few --hosts:"; show "$tmp/u3"; }
"$collprof" placement "$tmp/ring" --nodes 17 >"$tmp/u4" 2>&1
[ $? = 1 ] && grep -q "between 1 and the run's 16 ranks" "$tmp/u4" || { fail "more nodes than ranks:"; show "$tmp/u4"; }

# Count files alone (no manifest, no world ranks in them): said, not
# guessed; exit status 3, a damaged profile (docs/reader.md).
mkdir "$tmp/bare" && cp "$tmp/ring/send-counters.rank0.txt" "$tmp/bare/"
"$collprof" placement "$tmp/bare" --nodes 2 >"$tmp/u5" 2>&1
[ $? = 3 ] && grep -q "the ranks cannot be placed: no manifest.json, and the count files name no world ranks" "$tmp/u5" ||
    { fail "count files without world ranks:"; show "$tmp/u5"; }

[ $failed = 0 ] && echo "placement: ring, stencil, all-to-all and mixed as expected"
exit $failed
