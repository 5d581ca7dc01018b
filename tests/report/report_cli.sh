#!/bin/sh
# CLI tests of `collprof report`: options, exit status, messages, the file
# it writes (and never half-writes), other tools' directories.
#   report_cli.sh COLLPROF MAKE_FIXTURE MAKE_REPORT_FIXTURE DIALECT_DIR
# DIALECT_DIR: the project's count files in the other tools' dialect.
set -u
. "$(dirname "$0")/../cli/harness.sh"
collprof=$(absolute "$1")
make_fixture=$(absolute "$2")
make_report_fixture=$(absolute "$3")
dialect=$(absolute "$4")

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$make_fixture" good good || exit 1
"$make_report_fixture" mixed mixed || exit 1
"$make_report_fixture" large large 1024 || exit 1

# expect_line STATUS REGEX: one line of stdout matching the extended regex
# (the size in it changes with every change of style)
expect_line() {
    count=$((count + 1))
    [ "$status" -eq "$1" ] || fail "$what: exit status $status, expected $1"
    [ "$(wc -l <out.txt)" -eq 1 ] && grep -Eqx "$2" out.txt || fail "$what: stdout: $(cat out.txt)"
}
# contains FILE TEXT
contains() {
    count=$((count + 1))
    grep -qF -- "$2" "$1" || fail "$what: $1 does not contain '$2'"
}

# ---------------------------------------------------------------- success
umask 022
run "$collprof" report good -o good.html
expect_line 0 'good\.html: 2 communicators, 4 heat maps, [0-9.]+ KiB'
expect_err </dev/null
contains good.html '<figure id="m-c0-Alltoallv-send-1">'
count=$((count + 1))
[ "$(stat -c %a good.html)" = 644 ] || fail "good.html has mode $(stat -c %a good.html), expected 644"
count=$((count + 1))
ls | grep -q tmp && fail "a temporary file is left: $(ls)"

# the same again: same bytes (nothing depends on the time or the machine)
run "$collprof" report --output=again.html good
expect_line 0 'again\.html: 2 communicators, 4 heat maps, [0-9.]+ KiB'
count=$((count + 1))
cmp -s good.html again.html || fail "two reports of one directory differ"

# standard output
run "$collprof" report good -o -
count=$((count + 1))
[ "$status" -eq 0 ] && cmp -s out.txt good.html || fail "report -o - is not the report"

run "$collprof" report mixed -o mixed.html --max-matrices 0
expect_line 0 'mixed\.html: 5 communicators, 9 heat maps, [0-9.]+ KiB'
run "$collprof" report large -o large.html --max-matrices 1
expect_line 0 'large\.html: 1 communicator, 3 heat maps \(1 more matrix not drawn, see the page\), [0-9.]+ MiB'

# other tools' files: no manifest, synthetic communicator ids
run "$collprof" report "$dialect/multicomm" -o multi.html
count=$((count + 1))
[ "$status" -eq 0 ] || fail "$what: exit status $status"
contains multi.html 'none (counts files of another tool: communicator ids are synthetic)'
contains multi.html '(no manifest: the communicator id is synthetic)'

# --------------------------------------------------------------- failures
run "$collprof" report
expect 2 </dev/null
expect_err <<'EOF'
collprof report: expected a directory
usage: collprof report DIR -o FILE [--max-matrices N] [--nodes N]
Try 'collprof help report' for more information.
EOF

run "$collprof" report good
expect 2 </dev/null
expect_err <<'EOF'
collprof report: -o FILE is required (- for standard output)
usage: collprof report DIR -o FILE [--max-matrices N] [--nodes N]
Try 'collprof help report' for more information.
EOF

run "$collprof" report good -o r.html --max-matrices many
expect 2 </dev/null
expect_err <<'EOF'
collprof report: --max-matrices expects a non-negative integer, not 'many'
usage: collprof report DIR -o FILE [--max-matrices N] [--nodes N]
Try 'collprof help report' for more information.
EOF

run "$collprof" report good -o r.html --colour
expect 2 </dev/null
expect_err <<'EOF'
collprof report: unknown option '--colour'
usage: collprof report DIR -o FILE [--max-matrices N] [--nodes N]
Try 'collprof help report' for more information.
EOF

run "$collprof" report good -o
expect 2 </dev/null
expect_err <<'EOF'
collprof report: option -o needs a value
usage: collprof report DIR -o FILE [--max-matrices N] [--nodes N]
Try 'collprof help report' for more information.
EOF

run "$collprof" report missing -o r.html
expect 1 </dev/null
count=$((count + 1))
grep -q '^collprof: missing' err.txt || fail "$what: stderr: $(cat err.txt)"
count=$((count + 1))
[ ! -e r.html ] || fail "$what: wrote r.html"

run "$collprof" report good -o nodir/r.html
expect 1 </dev/null
expect_err <<'EOF'
collprof: nodir/r.html: No such file or directory
EOF

# a directory where the file should go: the rename fails, nothing is left
mkdir taken.html
run "$collprof" report good -o taken.html
expect 1 </dev/null
count=$((count + 1))
grep -q '^collprof: taken.html: cannot rename taken.html.tmp[A-Za-z0-9]* to it (Is a directory)$' err.txt || fail "$what: stderr: $(cat err.txt)"
count=$((count + 1))
ls | grep -q 'tmp' && fail "$what: a temporary file is left: $(ls)"

# ------------------------------------------------------------------- help
run "$collprof" --help
count=$((count + 1))
grep -q '^  report ' out.txt || fail "collprof --help does not list report"
run "$collprof" help report
count=$((count + 1))
head -1 out.txt | grep -qx 'usage: collprof report DIR -o FILE \[--max-matrices N\] \[--nodes N\]' ||
    fail "collprof help report: $(head -1 out.txt)"

finish
