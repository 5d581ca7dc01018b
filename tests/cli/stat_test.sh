#!/bin/sh
# CLI tests of `collprof stat`: exact output and exit status on hand-written
# profile.stat files of both layouts (CubeGUI's, and the documented one with
# a MetricID column), on an output directory, on malformed files (exit 1 with
# the parser's file:line message) and on usage errors (exit 2).
#   stat_test.sh COLLPROF
set -u
. "$(dirname "$0")/harness.sh"
collprof=$(absolute "$1")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cp-cli-stat-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# ------------------------------------------------------------ the files
# Counts 20, 1 and 3: all columns, no quartiles, no quartiles and a
# variance; 2, 1 and no instances listed.
cat >good.stat <<'EOF'
PatternName                 Count      Mean    Median      Minimum      Maximum          Sum     Variance    Quartil25    Quartil75
mpi_wait_nxn                   20 0.0184500 0.0064770 0.0000020000 0.0652930000 0.3690000000 0.0006980000 0.0000400000 0.0474090000
- cnode: 12 enter: 0.3261200000 exit: 0.3356510000 duration: 0.0652930000 rank: 1
- cnode: 14 enter: 0.1923320000 exit: 0.1923780000 duration: 0.0001000000 rank: 3

mpi_barrier_wait                1 0.2500000 0.2500000 0.2500000000 0.2500000000 0.2500000000
- cnode: 3 enter: 1.0000000000 exit: 1.2500000000 duration: 0.2500000000 rank: 0

mpi_latebroadcast               3 0.2333333 0.2000000 0.1000000000 0.4000000000 0.7000000000 0.0233333333

EOF

cat >documented.stat <<'EOF'
PatternName               MetricID   Count      Mean    Median      Minimum      Maximum          Sum     Variance    Quartil25    Quartil75
mpi_nxn_completion              44       6 0.0050000 0.0050000 0.0010000000 0.0090000000 0.0300000000 0.0000116000 0.0022500000 0.0077500000
- cnode: 20 enter: 10.0000000000 exit: 10.0090000000 duration: 0.0090000000
- cnode: 21 enter: 11.0000000000 exit: 11.0080000000 duration: 0.0080000000

EOF

mkdir outdir
cp good.stat outdir/profile.stat

printf 'PatternName Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75\n' >empty.stat

# Count 5 but no quartiles: the GUI would read the next line's tokens.
cat >shifted.stat <<'EOF'
PatternName                 Count      Mean    Median      Minimum      Maximum          Sum     Variance    Quartil25    Quartil75
mpi_wait_nxn                    5 0.0184500 0.0064770 0.0000020000 0.0652930000 0.3690000000 0.0006980000
- cnode: 12 enter: 0.3261200000 exit: 0.3356510000 duration: 0.0652930000 rank: 1

EOF

# An event line without its rank: the GUI would swallow the next line.
cat >norank.stat <<'EOF'
PatternName                 Count      Mean    Median      Minimum      Maximum          Sum     Variance    Quartil25    Quartil75
mpi_barrier_wait                1 0.2500000 0.2500000 0.2500000000 0.2500000000 0.2500000000
- cnode: 3 enter: 1.0000000000 exit: 1.2500000000 duration: 0.2500000000

EOF

# Cut off inside a pattern, after a complete line.
head -n 3 good.stat >truncated.stat

# ----------------------------------------------------------- good files
run "$collprof" stat good.stat
expect 0 <<'EOF'
file:      good.stat
layout:    CubeGUI (instances with their rank)
patterns:  3
times in seconds; an instance is one rank's wait in one call

pattern            count       mean     median       minimum       maximum           sum      variance           q25           q75
mpi_wait_nxn          20  0.0184500  0.0064770  0.0000020000  0.0652930000  0.3690000000  0.0006980000  0.0000400000  0.0474090000
mpi_barrier_wait       1  0.2500000  0.2500000  0.2500000000  0.2500000000  0.2500000000             -             -             -
mpi_latebroadcast      3  0.2333333  0.2000000  0.1000000000  0.4000000000  0.7000000000  0.0233333333             -             -

mpi_wait_nxn: most severe instances (2 of 20, at most one per call path)
cnode  rank         enter          exit  waiting time
   12     1  0.3261200000  0.3356510000  0.0652930000
   14     3  0.1923320000  0.1923780000  0.0001000000

mpi_barrier_wait: most severe instances (1 of 1, at most one per call path)
cnode  rank         enter          exit  waiting time
    3     0  1.0000000000  1.2500000000  0.2500000000

mpi_latebroadcast: no instances listed
EOF
no_stderr

# an output directory stands for its profile.stat
run "$collprof" stat outdir/
count=$((count + 1))
[ "$status" -eq 0 ] || fail "collprof stat outdir/: exit status $status"
head -1 out.txt | grep -qx 'file:      outdir/profile.stat' ||
    fail "collprof stat outdir/: first line '$(head -1 out.txt)'"
tail -n +2 out.txt >dir.txt
run "$collprof" stat good.stat
tail -n +2 out.txt >file.txt
cmp -s dir.txt file.txt || fail "collprof stat outdir/: differs from collprof stat good.stat"

run "$collprof" stat documented.stat
expect 0 <<'EOF'
file:      documented.stat
layout:    documented (MetricID column, instances without rank)
patterns:  1
times in seconds; an instance is one rank's wait in one call

pattern             metric id  count       mean     median       minimum       maximum           sum      variance           q25           q75
mpi_nxn_completion         44      6  0.0050000  0.0050000  0.0010000000  0.0090000000  0.0300000000  0.0000116000  0.0022500000  0.0077500000

mpi_nxn_completion: most severe instances (2 of 6, at most one per call path)
cnode  rank          enter           exit  waiting time
   20     -  10.0000000000  10.0090000000  0.0090000000
   21     -  11.0000000000  11.0080000000  0.0080000000
EOF
no_stderr

run "$collprof" stat -- empty.stat
expect 0 <<'EOF'
file:      empty.stat
layout:    CubeGUI (instances with their rank)
patterns:  0
times in seconds; an instance is one rank's wait in one call
EOF
no_stderr

# ------------------------------------------------------------ bad files
run "$collprof" stat shifted.stat
expect 1 </dev/null
expect_err <<'EOF'
collprof: shifted.stat:2: pattern 'mpi_wait_nxn' with Count 5: expected 10 columns (PatternName Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75), found 8
EOF

run "$collprof" stat norank.stat
expect 1 </dev/null
expect_err <<'EOF'
collprof: norank.stat:3: expected '- cnode: C enter: T exit: T duration: D rank: R', found '- cnode: 3 enter: 1.0000000000 exit: 1.2500000000 duration: 0.2500000000'
EOF

run "$collprof" stat truncated.stat
expect 1 </dev/null
expect_err <<'EOF'
collprof: truncated.stat:3: unexpected end of file: pattern 'mpi_wait_nxn' is not ended by an empty line (truncated file?)
EOF

run "$collprof" stat missing.stat
expect 1 </dev/null
expect_err <<'EOF'
collprof: missing.stat: cannot open: No such file or directory
EOF

run "$collprof" stat .
expect 1 </dev/null
expect_err <<'EOF'
collprof: ./profile.stat: cannot open: No such file or directory
EOF

# ----------------------------------------------------------- usage errors
run "$collprof" stat
expect 2 </dev/null
expect_err <<'EOF'
collprof stat: expected a file (profile.stat) or an output directory
usage: collprof stat FILE
Try 'collprof help stat' for more information.
EOF

run "$collprof" stat good.stat documented.stat
expect 2 </dev/null
expect_err <<'EOF'
collprof stat: expected one file, got 'good.stat' and 'documented.stat'
usage: collprof stat FILE
Try 'collprof help stat' for more information.
EOF

run "$collprof" stat --format=csv good.stat
expect 2 </dev/null
expect_err <<'EOF'
collprof stat: unknown option '--format=csv'
usage: collprof stat FILE
Try 'collprof help stat' for more information.
EOF

run "$collprof" help stat
[ "$status" -eq 0 ] && head -1 out.txt | grep -qx 'usage: collprof stat FILE' ||
    fail "collprof help stat: status $status, output: $(head -1 out.txt)"
count=$((count + 1))

run "$collprof" stat --help
[ "$status" -eq 0 ] && grep -q 'MetricID' out.txt || fail "collprof stat --help"
count=$((count + 1))

finish
