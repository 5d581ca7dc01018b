#!/bin/sh
# CLI tests of `collprof patterns` and `collprof export`: exact output and
# exit status on the reader fixtures, on a hand-written directory with a
# topology, an intercommunicator and a Barrier, and on other tools' files;
# then every export is checked value by value against the files and against
# `collprof matrix` (export_check.py).
#   patterns_export_test.sh COLLPROF MAKE_FIXTURE DIALECT_DIR PYTHON EXPORT_CHECK
# DIALECT_DIR: the project's count files in the other tools' dialect
# (tests/data/dialect).
set -u
. "$(dirname "$0")/harness.sh"
collprof=$(absolute "$1")
make_fixture=$(absolute "$2")
dialect=$(absolute "$3")
python=$4
export_check=$(absolute "$5")
[ -d "$dialect/multicomm" ] || { echo "no $dialect/multicomm"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cp-patterns-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
for v in good gzip syntax-error; do
    "$make_fixture" "$v" "$v" || exit 1
done
# the dialect's files are read where they are
for d in allgatherv_steps alltoall_bytes alltoallv_types multicomm; do
    ln -s "$dialect/$d" "$d" || exit 1
done

# topo: communicator 0 is a graph 0 -> 1,2 and 1 -> 2 (Neighbor_alltoallv,
# and a Barrier); communicators 1 (world ranks 3-4) and 2 (world ranks 0-1)
# are the two groups of an intercommunicator, each receiving what the other
# sends.
mkdir topo || exit 1
cat >topo/manifest.json <<'JSON'
{
  "format": "collprof-manifest",
  "format_version": 1,
  "counts_format_version": 1,
  "collprof_version": "0.1.0",
  "mpi_version": "MPICH Version: 4.0.2",
  "job": "topo",
  "start_time": "2026-11-22T04:13:35",
  "world_size": 5,
  "partial": false,
  "partial_reason": "",
  "config": {"COLLPROF_COMPRESS": "none", "COLLPROF_OUTPUT_DIR": "topo"},
  "communicators": [
    {"id": 0, "size": 3, "lead": 0, "members": "0-2", "neighbors": {"sources": [[], [0], [0,1]], "destinations": [[1,2], [2], []]}},
    {"id": 1, "size": 2, "lead": 3, "members": "3-4", "remote_members": "0-1"},
    {"id": 2, "size": 2, "lead": 0, "members": "0-1", "remote_members": "3-4"}
  ],
  "files": ["manifest.json", "send-counters.rank0.txt", "recv-counters.rank0.txt", "send-counters.rank3.txt", "recv-counters.rank3.txt"]
}
JSON
# block COMM SIZE MEMBERS COLLECTIVE DTSIZE NCALLS CALLS ROW...: one block
block() {
    printf '# Raw counters\nCommunicator: %s (size %s, world ranks %s)\n' "$1" "$2" "$3"
    printf 'Collective: %s\nNumber of ranks: %s\nDatatype size: %s\n' "$4" "$2" "$5"
    printf '%s calls %s\nCount: %s calls - %s\n\nBEGINNING DATA\n' "$4" "$7" "$6" "$7"
    shift 7
    for row in "$@"; do
        printf '%s\n' "$row"
    done
    printf 'END DATA\n\n'
}
{
    echo '# collprof counts 1'
    block 0 3 0-2 Neighbor_alltoallv 4 1 0 'Rank(s) 0: 1 2' 'Rank(s) 1: 2' 'Rank(s) 2:'
    block 2 2 0-1 Alltoallv 8 1 0 'Rank(s) 0: 3 4' 'Rank(s) 1: 5 0'
    block 0 3 0-2 Barrier 0 2 0-1 'Rank(s) 0-2:'
} >topo/send-counters.rank0.txt
{
    echo '# collprof counts 1'
    block 0 3 0-2 Neighbor_alltoallv 4 1 0 'Rank(s) 0:' 'Rank(s) 1: 1' 'Rank(s) 2: 2 2'
    block 2 2 0-1 Alltoallv 8 1 0 'Rank(s) 0: 6 8' 'Rank(s) 1: 7 9'
    block 0 3 0-2 Barrier 0 2 0-1 'Rank(s) 0-2:'
} >topo/recv-counters.rank0.txt
{
    echo '# collprof counts 1'
    block 1 2 3-4 Alltoallv 8 1 0 'Rank(s) 0: 6 7' 'Rank(s) 1: 8 9'
} >topo/send-counters.rank3.txt
{
    echo '# collprof counts 1'
    block 1 2 3-4 Alltoallv 8 1 0 'Rank(s) 0: 3 5' 'Rank(s) 1: 4 0'
} >topo/recv-counters.rank3.txt


# the hand-written directory is consistent
run "$collprof" check topo
expect 0 <<'EOF'
OK: 5 files, 8 blocks, 5 calls checked
EOF

# ------------------------------------------------------------ patterns
run "$collprof" patterns good
expect 0 <<'EOF'
communicator 0: 3 ranks, lead 0, 3 send matrices, 3 receive matrices

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       2    144  0-1          sparse: 33% of peers
         2         2  Alltoallv       1     48  2            uniform
         3         3  Gatherv         1     24  0            sparse: 33% of peers; one hot rank: rank 0 receives 100% of the bytes

  Alltoallv, send, calls 0-1:
    2 ranks send to 1 other rank
    1 rank sends to 0 other ranks

  Alltoallv, send, call 2:
    3 ranks send to 2 other ranks

  Alltoallv, receive, calls 0-1:
    2 ranks receive from 1 other rank
    1 rank receives from 0 other ranks

  Alltoallv, receive, call 2:
    3 ranks receive from 2 other ranks

  Gatherv, root 0, send, call 0:
    2 ranks send to 1 other rank
    1 rank sends to 0 other ranks

  Gatherv, root 0, receive, call 0:
    1 rank receives from 2 other ranks
    2 ranks have no receive counts

communicator 1: 2 ranks, lead 2, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoall        4    256  0-3          uniform

  Alltoall, send, calls 0-3:
    2 ranks send to 1 other rank

  Alltoall, receive, calls 0-3:
    2 ranks receive from 1 other rank
EOF
no_stderr
cp out.txt good-patterns.txt

run "$collprof" patterns gzip
cmp -s out.txt good-patterns.txt || fail "collprof patterns gzip differs from patterns good"
count=$((count + 1))

run "$collprof" patterns topo
expect 0 <<'EOF'
communicator 0: 3 ranks, lead 0, 2 send matrices, 2 receive matrices

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective          calls  bytes  which calls  pattern
         1         2  Barrier                 2      0  0-1          empty
         2         1  Neighbor_alltoallv      1     20  0            one hot rank: rank 2 receives 80% of the bytes

  Barrier, send, calls 0-1:
    3 ranks pass no counts

  Barrier, receive, calls 0-1:
    3 ranks pass no counts

  Neighbor_alltoallv, send, call 0:
    1 rank sends to 2 other ranks
    1 rank sends to 1 other rank
    1 rank sends to 0 other ranks

  Neighbor_alltoallv, receive, call 0:
    1 rank receives from 2 other ranks
    1 rank receives from 1 other rank
    1 rank receives from 0 other ranks

communicator 1: 2 ranks, lead 3, intercommunicator group, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       1    240  0            -

  Alltoallv, send, call 0:
    2 ranks send to 2 other ranks

  Alltoallv, receive, call 0:
    1 rank receives from 2 other ranks
    1 rank receives from 1 other rank

communicator 2: 2 ranks, lead 0, intercommunicator group, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       1     96  0            -

  Alltoallv, send, call 0:
    1 rank sends to 2 other ranks
    1 rank sends to 1 other rank

  Alltoallv, receive, call 0:
    2 ranks receive from 2 other ranks
EOF
no_stderr

run "$collprof" patterns multicomm
expect 0 <<'EOF'
communicator 0: 3 ranks, lead 0, 2 send matrices, 2 receive matrices

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         2  Alltoallv       2    128  0,3          -
         2         1  Alltoallv       1    288  2            uniform

  Alltoallv, send, calls 0,3:
    2 ranks send to 2 other ranks
    1 rank sends to 1 other rank

  Alltoallv, send, call 2:
    3 ranks send to 2 other ranks

  Alltoallv, receive, calls 0,3:
    2 ranks receive from 2 other ranks
    1 rank receives from 1 other rank

  Alltoallv, receive, call 2:
    3 ranks receive from 2 other ranks

communicator 1: 6 ranks, lead 0, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       1     48  1            sparse: 33% of peers

  Alltoallv, send, call 1:
    4 ranks send to 2 other ranks
    2 ranks send to 1 other rank

  Alltoallv, receive, call 1:
    2 ranks receive from 5 other ranks
    4 ranks receive from 0 other ranks

communicator 2: 2 ranks, lead 3, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       2    120  0,2          -

  Alltoallv, send, calls 0,2:
    1 rank sends to 1 other rank
    1 rank sends to 0 other ranks

  Alltoallv, receive, calls 0,2:
    1 rank receives from 1 other rank
    1 rank receives from 0 other ranks
EOF
no_stderr

run "$collprof" patterns alltoall_bytes
expect 0 <<'EOF'
communicator 0: 3 ranks, lead 0, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoall        2    288  0-1          uniform

  Alltoall, send, calls 0-1:
    3 ranks send to 2 other ranks

  Alltoall, receive, calls 0-1:
    3 ranks receive from 2 other ranks
EOF

run "$collprof" patterns syntax-error
expect 3 <<'EOF'
communicator 0: 3 ranks, lead 0, 0 send matrices, 3 receive matrices

  Alltoallv, receive, calls 0-1:
    2 ranks receive from 1 other rank
    1 rank receives from 0 other ranks

  Alltoallv, receive, call 2:
    3 ranks receive from 2 other ranks

  Gatherv, root 0, receive, call 0:
    1 rank receives from 2 other ranks
    2 ranks have no receive counts

communicator 1: 2 ranks, lead 2, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoall        4    256  0-3          uniform

  Alltoall, send, calls 0-3:
    2 ranks send to 1 other rank

  Alltoall, receive, calls 0-3:
    2 ranks receive from 1 other rank
EOF
expect_err <<'EOF'
collprof: syntax-error: damaged: send-counters.rank0.txt: syntax-error/send-counters.rank0.txt:5: Number of ranks:: expected a non-negative integer
collprof: syntax-error: what follows is read from the rest of the profile
EOF

run "$collprof" patterns
expect 2 </dev/null
expect_err <<'EOF'
collprof patterns: expected a directory
usage: collprof patterns DIR
Try 'collprof help patterns' for more information.
EOF

run "$collprof" patterns --comm 0 good
expect 2 </dev/null

run "$collprof" help patterns
[ "$status" -eq 0 ] && head -1 out.txt | grep -qx 'usage: collprof patterns DIR' ||
    fail "collprof help patterns: status $status, output: $(head -1 out.txt)"
count=$((count + 1))

# -------------------------------------------------------------- export
run "$collprof" export alltoall_bytes
expect 0 <<'EOF'
{"schema_version":1,"format":"collprof-export",
"manifest":null,
"partial_profiles":null,
"damaged":{},
"findings":[{"kind":"coverage","cost":0,"text":"coverage: counts only (no manifest.json, no timings.cpt): no time or waiting findings"}],
"counts_files":[
{"file":"send-counters.job0.rank0.txt","direction":"send","lead_rank":0,"format_version":0,"blocks":[
{"comm":0,"comm_size":null,"comm_world_ranks":null,"collective":"Alltoall","root":null,"nranks":3,"datatype_size":1,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,1]],"calls":[[0,1]],"callsites":[],"row_len":1,"rows":[{"ranks":[[0,0]],"counts":[16]},{"ranks":[[1,1]],"counts":[16]},{"ranks":[[2,2]],"counts":[16]}]}]},
{"file":"recv-counters.job0.rank0.txt","direction":"recv","lead_rank":0,"format_version":0,"blocks":[
{"comm":0,"comm_size":null,"comm_world_ranks":null,"collective":"Alltoall","root":null,"nranks":3,"datatype_size":1,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,1]],"calls":[[0,1]],"callsites":[],"row_len":1,"rows":[{"ranks":[[0,0]],"counts":[16]},{"ranks":[[1,1]],"counts":[16]},{"ranks":[[2,2]],"counts":[16]}]}]}]}
EOF
no_stderr

# -o FILE: the same document, nothing on stdout, no temporary file left
run "$collprof" export good
cp out.txt good.json
run "$collprof" export good --format json -o exported.json
expect 0 </dev/null
no_stderr
cmp -s good.json exported.json || fail "export -o exported.json differs from its stdout"
ls exported.json.tmp.* >/dev/null 2>&1 && fail "export -o left a temporary file"
count=$((count + 2))

run "$collprof" export good -o nodir/x.json
expect 1 </dev/null
[ -e nodir ] && fail "export -o nodir/x.json created something"
grep -q '^collprof: nodir/x.json: No such file or directory$' err.txt ||
    fail "export -o nodir/x.json: stderr $(cat err.txt)"
count=$((count + 2))

run "$collprof" export syntax-error
expect 3 <<'EOF'
{"schema_version":1,"format":"collprof-export",
"manifest":{"format_version":2,"counts_format_version":6,"collprof_version":"0.1.0","mpi_version":"MPICH Version: 4.0.2\nMPICH Release date: Thu Mar 10 11:07:37 CST 2022","job":"test","start_time":"2026-11-22T04:13:35","world_size":3,"partial":false,"partial_reason":"","config":{"COLLPROF_COMPRESS":"none"},"missing":{},"disagreements":{},"communicators":[
{"id":0,"size":3,"lead":0,"members":[[0,2]],"remote_members":[],"neighbors":null},
{"id":1,"size":2,"lead":2,"members":[[2,2],[0,0]],"remote_members":[],"neighbors":null}],"files":["manifest.json","send-counters.rank0.txt","recv-counters.rank0.txt","send-counters.rank2.txt","recv-counters.rank2.txt"],"call_tree":[]},
"partial_profiles":null,
"damaged":{"send-counters.rank0.txt":"syntax-error/send-counters.rank0.txt:5: Number of ranks:: expected a non-negative integer"},
"findings":[{"kind":"coverage","cost":0,"text":"coverage: no timings.cpt, and the manifest does not record whether timing was on: no time or waiting findings"}],
"counts_files":[
{"file":"send-counters.rank2.txt","direction":"send","lead_rank":2,"format_version":1,"blocks":[
{"comm":1,"comm_size":2,"comm_world_ranks":[[2,2],[0,0]],"collective":"Alltoall","root":null,"nranks":2,"datatype_size":4,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,3]],"calls":[[0,3]],"callsites":[],"row_len":1,"rows":[{"ranks":[[0,1]],"counts":[4]}]}]},
{"file":"recv-counters.rank0.txt","direction":"recv","lead_rank":0,"format_version":1,"blocks":[
{"comm":0,"comm_size":3,"comm_world_ranks":[[0,2]],"collective":"Alltoallv","root":null,"nranks":3,"datatype_size":8,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,2]],"calls":[[0,1]],"callsites":[],"row_len":3,"rows":[{"ranks":[[0,0]],"counts":[1,0,0]},{"ranks":[[1,1]],"counts":[2,0,0]},{"ranks":[[2,2]],"counts":[0,3,3]}]},
{"comm":0,"comm_size":3,"comm_world_ranks":[[0,2]],"collective":"Alltoallv","root":null,"nranks":3,"datatype_size":8,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,2]],"calls":[[2,2]],"callsites":[],"row_len":3,"rows":[{"ranks":[[0,0]],"counts":[0,1,1]},{"ranks":[[1,1]],"counts":[1,0,1]},{"ranks":[[2,2]],"counts":[1,1,0]}]},
{"comm":0,"comm_size":3,"comm_world_ranks":[[0,2]],"collective":"Gatherv","root":0,"nranks":3,"datatype_size":4,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,0]],"calls":[[0,0]],"callsites":[],"row_len":3,"rows":[{"ranks":[[0,0]],"counts":[1,2,3]}]}]},
{"file":"recv-counters.rank2.txt","direction":"recv","lead_rank":2,"format_version":1,"blocks":[
{"comm":1,"comm_size":2,"comm_world_ranks":[[2,2],[0,0]],"collective":"Alltoall","root":null,"nranks":2,"datatype_size":4,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,3]],"calls":[[0,3]],"callsites":[],"row_len":1,"rows":[{"ranks":[[0,1]],"counts":[4]}]}]}]}
EOF
expect_err <<'EOF'
collprof: syntax-error: damaged: send-counters.rank0.txt: syntax-error/send-counters.rank0.txt:5: Number of ranks:: expected a non-negative integer
collprof: syntax-error: what follows is read from the rest of the profile
EOF

run "$collprof" export good --format csv
expect 2 </dev/null
expect_err <<'EOF'
collprof export: --format expects json, not 'csv'
usage: collprof export DIR [--format json] [-o FILE]
Try 'collprof help export' for more information.
EOF

run "$collprof" export good -o
expect 2 </dev/null

# rows: the good fixture in counts format 5, one matrix with a sparse and
# relative rows (the same values)
cp -r good rows || exit 1
sed -i -e 's/^# collprof counts 1$/# collprof counts 5/' \
    -e '/^Count: 1 calls - 2$/a Row length: 3' -e 's/^Rank(s) 0: 0 1 1$/Rank(s) 0: sparse 1=1 2=1/' \
    -e 's/^Rank(s) 1: 1 0 1$/Rank(s) 1: relative -1=1 +1=1/' rows/send-counters.rank0.txt
grep -q 'relative -1=1' rows/send-counters.rank0.txt || fail "rows: the fixture changed"

# every value of every export, against the files and `collprof matrix`
run "$python" "$export_check" "$collprof" good gzip topo allgatherv_steps alltoall_bytes \
    alltoallv_types multicomm rows
[ "$status" -eq 0 ] || fail "export_check.py: $(cat out.txt err.txt)"
tail -1 out.txt
count=$((count + 1))

finish
