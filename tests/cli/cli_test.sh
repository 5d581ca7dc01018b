#!/bin/sh
# CLI tests of `collprof`: exact output and exit status of every subcommand on
# good, corrupted and malformed input, and of usage errors.
#   cli_test.sh COLLPROF MAKE_FIXTURE DIALECT_DIR
# DIALECT_DIR: the project's count files in the other tools' dialect
# (tests/data/dialect).
set -u
. "$(dirname "$0")/harness.sh"
collprof=$(absolute "$1")
make_fixture=$(absolute "$2")
dialect=$(absolute "$3")
[ -d "$dialect/multicomm" ] || { echo "no $dialect/multicomm"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cp-cli-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
for v in good gzip recv-altered overlap manifest-mismatch syntax-error; do
    "$make_fixture" "$v" "$v" || exit 1
done
# the dialect's files are read where they are
ln -s "$dialect/multicomm" multicomms || exit 1
ln -s "$dialect/alltoall_bytes" alltoall || exit 1
mkdir empty

# ------------------------------------------------------------- summary
run "$collprof" summary good
expect 0 <<'EOF'
manifest:         manifest.json
job:              test
world size:       3
MPI library:      MPICH Version: 4.0.2
collprof version: 0.1.0
start time:       2026-11-22T04:13:35
partial:          no
counts files:     4 (2 send, 2 receive)

findings, by the time each explains:
  coverage: no timings.cpt, and the manifest does not record whether timing was on: no time or waiting findings

comm  size  lead  collective  calls  send matrices  recv matrices  bytes sent  most frequent send matrix
   0     3     0  Alltoallv       3              2              2         192  2 calls (0-1)
   0     3     0  Gatherv         1              1              1          24  1 call (0)
   1     2     2  Alltoall        4              1              1         256  4 calls (0-3)
EOF
no_stderr

run "$collprof" summary gzip/
expect 0 <<'EOF'
manifest:         manifest.json
job:              test
world size:       3
MPI library:      MPICH Version: 4.0.2
collprof version: 0.1.0
start time:       2026-11-22T04:13:35
partial:          no
counts files:     4 (2 send, 2 receive)

findings, by the time each explains:
  coverage: no timings.cpt, and the manifest does not record whether timing was on: no time or waiting findings

comm  size  lead  collective  calls  send matrices  recv matrices  bytes sent  most frequent send matrix
   0     3     0  Alltoallv       3              2              2         192  2 calls (0-1)
   0     3     0  Gatherv         1              1              1          24  1 call (0)
   1     2     2  Alltoall        4              1              1         256  4 calls (0-3)
EOF

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
   0     3     0  Alltoallv       3              2              2         416  2 calls (0,3)
   1     6     0  Alltoallv       1              1              1          48  1 call (1)
   2     2     3  Alltoallv       2              1              1         120  2 calls (0,2)
EOF
no_stderr

run "$collprof" summary syntax-error
expect 3 <<'EOF'
manifest:         manifest.json
job:              test
world size:       3
MPI library:      MPICH Version: 4.0.2
collprof version: 0.1.0
start time:       2026-11-22T04:13:35
partial:          no
counts files:     3 (1 send, 2 receive)

findings, by the time each explains:
  coverage: no timings.cpt, and the manifest does not record whether timing was on: no time or waiting findings

comm  size  lead  collective  calls  send matrices  recv matrices  bytes sent  most frequent send matrix
   0     3     0  Alltoallv       3              0              2           0  -
   0     3     0  Gatherv         1              0              1           0  -
   1     2     2  Alltoall        4              1              1         256  4 calls (0-3)
EOF
expect_err <<'EOF'
collprof: syntax-error: damaged: send-counters.rank0.txt: syntax-error/send-counters.rank0.txt:5: Number of ranks:: expected a non-negative integer
collprof: syntax-error: what follows is read from the rest of the profile
EOF

run "$collprof" summary empty
expect 1 </dev/null
expect_err <<'EOF'
collprof: empty: no manifest.json, no counts files (send-counters.*, recv-counters.*) and no partial profiles (partial.rank<R>/): not a collprof output directory
EOF

run "$collprof" summary nonexistent
expect 1 </dev/null
expect_err <<'EOF'
collprof: nonexistent: cannot open directory: No such file or directory
EOF

# -------------------------------------------------------------- matrix
run "$collprof" matrix good --comm 0 --collective alltoallv --call 1
expect 0 <<'EOF'
communicator 0, Alltoallv, call 1, send counts (datatype size 8 bytes)
rank 0: 1 2 0
rank 1: 0 0 3
rank 2: 0 0 3
EOF
no_stderr

run "$collprof" matrix good --comm 0 --collective Alltoallv --call 1 --recv --format csv
expect 0 <<'EOF'
rank,peer0,peer1,peer2
0,1,0,0
1,2,0,0
2,0,3,3
EOF

run "$collprof" matrix good --comm=0 --collective=ALLTOALLV --call=2 --format=json
expect 0 <<'EOF'
{"comm":0,"collective":"Alltoallv","call":2,"direction":"send","datatype_size":8,"counts_in_bytes":false,"rows":[[0,1,1],[1,0,1],[1,1,0]]}
EOF

run "$collprof" matrix good --comm 0 --collective gatherv --call 0 --recv
expect 0 <<'EOF'
communicator 0, Gatherv, call 0, root 0, receive counts (datatype size 4 bytes)
rank 0: 1 2 3
rank 1: -
rank 2: -
EOF

run "$collprof" matrix good --comm 0 --collective gatherv --call 0 --recv --format csv
expect 0 <<'EOF'
rank,peer0,peer1,peer2
0,1,2,3
1,-,-,-
2,-,-,-
EOF

run "$collprof" matrix good --comm 0 --collective gatherv --call 0 --recv --format json
expect 0 <<'EOF'
{"comm":0,"collective":"Gatherv","call":0,"direction":"recv","datatype_size":4,"counts_in_bytes":false,"rows":[[1,2,3],null,null]}
EOF

run "$collprof" matrix gzip --comm 1 --collective alltoall --call 3
expect 0 <<'EOF'
communicator 1, Alltoall, call 3, send counts (datatype size 4 bytes)
rank 0: 4
rank 1: 4
EOF

run "$collprof" matrix multicomms --format csv --comm 1 --collective alltoallv --call 1 --recv
expect 0 <<'EOF'
rank,peer0,peer1,peer2,peer3,peer4,peer5
0,1,1,1,1,1,1
1,0,0,0,0,0,0
2,0,0,0,0,0,0
3,0,0,0,0,0,0
4,0,0,0,0,0,0
5,1,1,1,1,1,1
EOF

run "$collprof" matrix alltoall --comm 0 --collective alltoall --call 0 --format json
expect 0 <<'EOF'
{"comm":0,"collective":"Alltoall","call":0,"direction":"send","datatype_size":1,"counts_in_bytes":false,"rows":[[16],[16],[16]]}
EOF

run "$collprof" matrix good --comm 0 --collective alltoallv --call 7
expect 1 </dev/null
expect_err <<'EOF'
collprof: good: communicator 0, Alltoallv: no call 7 with send counts; calls with send counts: 0-2
EOF

run "$collprof" matrix good --comm 0 --collective bcast --call 0
expect 1 </dev/null
expect_err <<'EOF'
collprof: good: communicator 0 has no send counts of bcast; its collectives: Alltoallv, Gatherv
EOF

run "$collprof" matrix good --comm 9 --collective alltoallv --call 0
expect 1 </dev/null
expect_err <<'EOF'
collprof: good: no communicator 9 with counts; communicators: 0-1
EOF

run "$collprof" matrix syntax-error --comm 0 --collective alltoallv --call 0
expect 3 </dev/null
expect_err <<'EOF'
collprof: syntax-error: damaged: send-counters.rank0.txt: syntax-error/send-counters.rank0.txt:5: Number of ranks:: expected a non-negative integer
collprof: syntax-error: what follows is read from the rest of the profile
collprof: syntax-error: communicator 0 has no send counts of alltoallv; its collectives: Alltoallv, Gatherv
EOF

# --------------------------------------------------------------- check
run "$collprof" check good
expect 0 <<'EOF'
OK: 5 files, 8 blocks, 8 calls checked
EOF
no_stderr

run "$collprof" check gzip
expect 0 <<'EOF'
OK: 5 files, 8 blocks, 8 calls checked
EOF

run "$collprof" check multicomms
expect 0 <<'EOF'
OK: 4 files, 8 blocks, 6 calls checked
EOF

run "$collprof" check recv-altered
expect 1 <<'EOF'
send-counters.rank0.txt, recv-counters.rank0.txt: communicator 0, Alltoallv, call 1: the send matrix is not the transpose of the receive matrix: rank 2 sends 24 bytes to rank 2, which receives 16 bytes from it (1 of 9 rank pairs differ)
1 problem
EOF
no_stderr

run "$collprof" check overlap
expect 1 <<'EOF'
send-counters.rank0.txt: communicator 0, Alltoallv, call 1: in two blocks, the block of calls 0-1 and the block of calls 1-2
send-counters.rank0.txt, recv-counters.rank0.txt: communicator 0, Alltoallv, call 1: the send matrix is not the transpose of the receive matrix: rank 0 sends 0 bytes to rank 0, which receives 8 bytes from it (8 of 9 rank pairs differ)
2 problems
EOF

run "$collprof" check manifest-mismatch
expect 1 <<'EOF'
send-counters.rank2.txt: communicator 1: the Communicator: line says size 2, world ranks 2,0, manifest.json says size 2, world ranks 0,2
send-counters.rank2.txt: communicator 1: led by world rank 0 in manifest.json, but found in the file of lead rank 2
recv-counters.rank2.txt: communicator 1: the Communicator: line says size 2, world ranks 2,0, manifest.json says size 2, world ranks 0,2
recv-counters.rank2.txt: communicator 1: led by world rank 0 in manifest.json, but found in the file of lead rank 2
manifest.json: lists timings.cpt, which is not in the directory
5 problems
EOF
expect_err <<'EOF'
collprof: manifest-mismatch: damaged: timings.cpt: listed in manifest.json but not there
collprof: manifest-mismatch: what follows is read from the rest of the profile
EOF

# ---------------------------------------------------- usage and help
run "$collprof"
expect 2 </dev/null
expect_err <<'EOF'
collprof: no command given
usage: collprof <command> [arguments]
       collprof --help | --version | help <command>
Try 'collprof --help' for the list of commands.
EOF

run "$collprof" frobnicate good
expect 2 </dev/null
expect_err <<'EOF'
collprof: unknown command 'frobnicate'
usage: collprof <command> [arguments]
       collprof --help | --version | help <command>
Try 'collprof --help' for the list of commands.
EOF

run "$collprof" --frobnicate
expect 2 </dev/null

run "$collprof" summary
expect 2 </dev/null
expect_err <<'EOF'
collprof summary: expected a directory
usage: collprof summary DIR [--all] [--callsite ID]
Try 'collprof help summary' for more information.
EOF

run "$collprof" summary good gzip
expect 2 </dev/null

run "$collprof" check --verbose good
expect 2 </dev/null
expect_err <<'EOF'
collprof check: unknown option '--verbose'
usage: collprof check DIR
Try 'collprof help check' for more information.
EOF

run "$collprof" matrix good --comm 0 --collective alltoallv
expect 2 </dev/null
expect_err <<'EOF'
collprof matrix: --comm, --collective and --call are required
usage: collprof matrix DIR --comm C --collective NAME --call K [--recv] [--format text|csv|json] [--sparse|--dense] [--callsite ID]
Try 'collprof help matrix' for more information.
EOF

run "$collprof" matrix good --comm 0 --collective alltoallv --call 1 --format xml
expect 2 </dev/null
expect_err <<'EOF'
collprof matrix: --format expects text, csv or json, not 'xml'
usage: collprof matrix DIR --comm C --collective NAME --call K [--recv] [--format text|csv|json] [--sparse|--dense] [--callsite ID]
Try 'collprof help matrix' for more information.
EOF

run "$collprof" matrix good --comm -1 --collective alltoallv --call 1
expect 2 </dev/null

run "$collprof" matrix good --comm 0 --collective alltoallv --call
expect 2 </dev/null
expect_err <<'EOF'
collprof matrix: option --call needs a value
usage: collprof matrix DIR --comm C --collective NAME --call K [--recv] [--format text|csv|json] [--sparse|--dense] [--callsite ID]
Try 'collprof help matrix' for more information.
EOF

run "$collprof" help nothing
expect 2 </dev/null

run "$collprof" --help
expect 0 <<'EOF'
usage: collprof <command> [arguments]
       collprof --help | --version | help <command>

Runs an MPI program under collprof (run), reads the output directory of a
collprof run (or a directory of count files written by collective_profiler)
and reports on it.

commands:
  run        run one rank of PROGRAM under collprof, for whichever MPI it uses
  summary    what the run was, then one line per communicator and collective
  matrix     the full send or receive count matrix of one call
  patterns   who talks to how many ranks, and the shape of every matrix
  check      validate every file and their cross-consistency
  report     one self-contained HTML page: summary, heat maps, bytes per rank
  export     the whole profile as JSON, for scripts
  stat       the wait-state statistics of a profile.stat, and the worst instances
  timings    time, waiting time per pattern and slowest calls, from timings.cpt
  callsites  where the collectives were called: function, file:line, calls, bytes, time
  complete   add source lines to profile.cubex: user regions, MPI call sites
  diff       two profiles side by side: what changed in patterns, time and waiting
  placement  where ranks should live: a node layout that crosses the fewest bytes
  watch      a running job's profile so far, refreshed: findings, costliest series, calls

'collprof help <command>' describes a command and its options.
Exit status: 0 success, 1 bad input or problems found, 2 usage error.
EOF
no_stderr

run "$collprof" help check
[ "$status" -eq 0 ] && head -1 out.txt | grep -qx 'usage: collprof check DIR' ||
    fail "collprof help check: status $status, output: $(head -1 out.txt)"
count=$((count + 1))

run "$collprof" matrix --help
[ "$status" -eq 0 ] && grep -q -- '--format F' out.txt || fail "collprof matrix --help"
count=$((count + 1))

run "$collprof" --version
[ "$status" -eq 0 ] && grep -q '^collprof [0-9][0-9.]*' out.txt || fail "collprof --version"
count=$((count + 1))

finish
