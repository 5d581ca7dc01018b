#!/bin/sh
# The manual pages: each renders without a warning (groff -ww, man -l), the
# subcommands' help as `collprof help` prints it is in collprof(1) line by
# line, every COLLPROF_* variable of the library's table is in
# collprof-config(7), collprof-replay --help is in collprof-replay(1), and
# the pages carry `collprof --version`'s version.
#   man_test.sh COLLPROF COLLPROF_1 COLLPROF_3 COLLPROF_CONFIG_7 CONFIG_C
#               COLLPROF_REPLAY_1 COLLPROF_REPLAY
set -u
. "$(dirname "$0")/../cli/harness.sh"
collprof=$(absolute "$1")
page1=$(absolute "$2")
page3=$(absolute "$3")
page7=$(absolute "$4")
config_c=$(absolute "$5")
page_replay=$(absolute "$6")
replay=$(absolute "$7")
if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
    echo "skipped: man and groff are not installed (Debian: man-db, groff-base)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cp-man-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C.UTF-8 MANWIDTH=200

# render PAGE OUT: PAGE as man shows it, into OUT; no warning on the way
render() {
    count=$((count + 2))
    groff -man -ww -z -Tutf8 "$1" 2>warn.txt
    [ -s warn.txt ] && fail "$1: groff warns: $(cat warn.txt)"
    man -l "$1" >"$2" 2>warn.txt || fail "$1: man -l failed"
    [ -s warn.txt ] && fail "$1: man -l says: $(cat warn.txt)"
}
render "$page1" rendered1.txt
render "$page3" rendered3.txt
render "$page7" rendered7.txt
render "$page_replay" rendered_replay.txt

# Words of a text, one space between them (rendering reflows nothing in the
# help blocks, but indents them).
squeeze() {
    sed 's/^[[:space:]]*//; s/[[:space:]]*$//; s/[[:space:]][[:space:]]*/ /g' "$@"
}
squeeze rendered1.txt >page1.txt
for cmd in $("$collprof" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p'); do
    count=$((count + 1))
    "$collprof" help "$cmd" | squeeze | grep -v '^$' | grep -v '^usage: ' >help.txt
    missing=$(grep -v -x -F -f page1.txt help.txt | head -3)
    [ -z "$missing" ] || fail "collprof(1) lacks lines of 'collprof help $cmd': $missing"
done

count=$((count + 1))
squeeze rendered7.txt >page7.txt
for v in $(sed -n 's/^ *{"\(COLLPROF_[A-Z_]*\)".*/\1/p' "$config_c"); do
    grep -q -x -F "$v" page7.txt || fail "collprof-config(7) does not describe $v"
done
[ "$(sed -n 's/^ *{"\(COLLPROF_[A-Z_]*\)".*/\1/p' "$config_c" | wc -l)" -ge 10 ] ||
    fail "$config_c: the table of settings was not found"

# collprof-replay's usage text, word for word (its --help prints it
# without MPI_Init's help: a singleton run).
count=$((count + 1))
squeeze rendered_replay.txt >page_replay.txt
"$replay" --help 2>&1 | squeeze | sed 's/^usage: //' | grep -v '^$' >replay_help.txt
[ -s replay_help.txt ] || fail "collprof-replay --help printed nothing"
missing=$(grep -v -x -F -f page_replay.txt replay_help.txt | head -3)
[ -z "$missing" ] || fail "collprof-replay(1) lacks lines of collprof-replay --help: $missing"

count=$((count + 1))
version=$("$collprof" --version | sed -n 's/^collprof \([^ ]*\).*/\1/p')
grep -q "collprof $version" rendered1.txt || fail "collprof(1) does not say collprof $version"
grep -q "collprof $version" rendered7.txt || fail "collprof-config(7) does not say collprof $version"
grep -q "collprof $version" rendered_replay.txt ||
    fail "collprof-replay(1) does not say collprof $version"
finish
