#!/bin/sh
# The reader on count files written by another tool (collective_profiler's
# test outputs), read in place from the folder beside the checkout: exact
# output of summary, matrix, check, patterns and export, every export value
# against `collprof matrix`, and the report.  The project's own fixtures of
# that dialect (tests/data/dialect) are tested everywhere by cli_test.sh and
# patterns_export_test.sh; this extra check skips (exit 77) when the other
# tool's files are not there, as in a user's clone.
#   other_tools_test.sh COLLPROF TESTDATA_DIR PYTHON EXPORT_CHECK
set -u
. "$(dirname "$0")/harness.sh"
collprof=$(absolute "$1")
testdata=$(absolute "$2")
python=$3
export_check=$(absolute "$4")
if [ ! -d "$testdata/collective_profiler" ]; then
    echo "skipped: the other tool's count files are not here ($testdata/collective_profiler)"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cp-other-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
for d in allgatherv_c alltoall_simple_c alltoallv_c alltoallv_dt_c alltoallv_multicomms_c; do
    ln -s "$testdata/collective_profiler/$d" "$d" || exit 1
done
ln -s alltoallv_multicomms_c multicomms
ln -s alltoall_simple_c alltoall

run "$collprof" summary multicomms
expect 0 <<'EOF'
manifest:         none (counts files of another tool: communicator ids are synthetic)
job:              unknown
world size:       unknown
MPI library:      unknown
collprof version: unknown
start time:       unknown
partial:          unknown
counts files:     4 (2 send, 2 receive)

findings, by the time each explains:
  coverage: counts only (no manifest.json, no timings.cpt): no time or waiting findings

comm  size  lead  collective  calls  send matrices  recv matrices  bytes sent  most frequent send matrix
   0     2     0  Alltoallv       2              1              1          16  2 calls (0,2)
   1     4     0  Alltoallv       1              1              1          96  1 call (1)
   2     2     2  Alltoallv       2              1              1          16  2 calls (0,2)
EOF
no_stderr

run "$collprof" matrix multicomms --format csv --comm 1 --collective alltoallv --call 1 --recv
expect 0 <<'EOF'
rank,peer0,peer1,peer2,peer3
0,0,0,0,0
1,1,1,1,1
2,2,2,2,2
3,3,3,3,3
EOF

run "$collprof" matrix alltoall --comm 0 --collective alltoall --call 0 --format json
expect 0 <<'EOF'
{"comm":0,"collective":"Alltoall","call":0,"direction":"send","datatype_size":1,"counts_in_bytes":false,"rows":[[8],[8],[8],[8]]}
EOF

run "$collprof" check multicomms
expect 0 <<'EOF'
OK: 4 files, 6 blocks, 5 calls checked
EOF

run "$collprof" patterns alltoallv_multicomms_c
expect 0 <<'EOF'
communicator 0: 2 ranks, lead 0, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       2     16  0,2          -

  Alltoallv, send, calls 0,2:
    1 rank sends to 1 other rank
    1 rank sends to 0 other ranks

  Alltoallv, receive, calls 0,2:
    1 rank receives from 1 other rank
    1 rank receives from 0 other ranks

communicator 1: 4 ranks, lead 0, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       1     96  1            -

  Alltoallv, send, call 1:
    1 rank sends to 3 other ranks
    3 ranks send to 2 other ranks

  Alltoallv, receive, call 1:
    3 ranks receive from 3 other ranks
    1 rank receives from 0 other ranks

communicator 2: 2 ranks, lead 2, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoallv       2     16  0,2          -

  Alltoallv, send, calls 0,2:
    1 rank sends to 1 other rank
    1 rank sends to 0 other ranks

  Alltoallv, receive, calls 0,2:
    1 rank receives from 1 other rank
    1 rank receives from 0 other ranks
EOF
no_stderr

run "$collprof" patterns alltoall_simple_c
expect 0 <<'EOF'
communicator 0: 4 ranks, lead 0, 1 send matrix, 1 receive matrix

  send matrices, ranked by calls and by bytes:
  by calls  by bytes  collective  calls  bytes  which calls  pattern
         1         1  Alltoall        1    128  0            uniform

  Alltoall, send, call 0:
    4 ranks send to 3 other ranks

  Alltoall, receive, call 0:
    4 ranks receive from 3 other ranks
EOF
no_stderr

run "$collprof" export alltoall_simple_c
expect 0 <<'EOF'
{"schema_version":1,"format":"collprof-export",
"manifest":null,
"partial_profiles":null,
"damaged":{},
"findings":[{"kind":"coverage","cost":0,"text":"coverage: counts only (no manifest.json, no timings.cpt): no time or waiting findings"}],
"counts_files":[
{"file":"send-counters.job0.rank0.txt","direction":"send","lead_rank":0,"format_version":0,"blocks":[
{"comm":0,"comm_size":null,"comm_world_ranks":null,"collective":"Alltoall","root":null,"nranks":4,"datatype_size":1,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,0]],"calls":[[0,0]],"callsites":[],"row_len":1,"rows":[{"ranks":[[0,0]],"counts":[8]},{"ranks":[[1,1]],"counts":[8]},{"ranks":[[2,2]],"counts":[8]},{"ranks":[[3,3]],"counts":[8]}]}]},
{"file":"recv-counters.job0.rank0.txt","direction":"recv","lead_rank":0,"format_version":0,"blocks":[
{"comm":0,"comm_size":null,"comm_world_ranks":null,"collective":"Alltoall","root":null,"nranks":4,"datatype_size":1,"counts_in_bytes":false,"invalid":false,"all_calls":[[0,0]],"calls":[[0,0]],"callsites":[],"row_len":1,"rows":[{"ranks":[[0,0]],"counts":[8]},{"ranks":[[1,1]],"counts":[8]},{"ranks":[[2,2]],"counts":[8]},{"ranks":[[3,3]],"counts":[8]}]}]}]}
EOF
no_stderr

# every value of every export, against the files and `collprof matrix`
run "$python" "$export_check" "$collprof" allgatherv_c alltoall_simple_c alltoallv_c \
    alltoallv_dt_c alltoallv_multicomms_c
[ "$status" -eq 0 ] || fail "export_check.py: $(cat out.txt err.txt)"
tail -1 out.txt
count=$((count + 1))

# the report: no manifest, synthetic communicator ids
run "$collprof" report multicomms -o multi.html
count=$((count + 1))
[ "$status" -eq 0 ] || fail "$what: exit status $status"
grep -qF '(no manifest: the communicator id is synthetic)' multi.html ||
    fail "report of multicomms: no word of synthetic communicator ids"
count=$((count + 1))

finish
