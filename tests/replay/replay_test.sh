#!/bin/sh
# collprof-replay with real mpiexec runs (docs/replay.md).
#
# usage: replay_test.sh CASE WORKDIR MPIEXEC LIB APP REPLAY CHECK COLLPROF [DIALECT_DIR NEIGHBORS]
#   exact     replay_app (4 ranks) profiled; its profile replayed under
#             collprof in both modes: every matrix again (patterns), call
#             by call in order (--sequence); --json numbers; the checker
#             must catch a replay with other counts (--scale-counts 2) and
#             a replay out of order (patterns mode, checked as a sequence)
#   select    --comm, --collective, --top, --top-by pick the patterns; a job
#             larger than the recorded one replays the same
#   bad-input a missing directory, a smaller job, a corrupt file, an
#             unknown collective, a bad option: one message, every rank
#             exits non-zero, nobody hangs
#   dialect   the other tools' count files: world-sized communicators only
#   neighbors the neighbourhood collectives of tests/mpi/test_neighbors,
#             every matrix again
set -u
case_=$1 work=$2 mpiexec=$3 lib=$4
shift 4
runs_dir=$(dirname "$0")/../mpi
. "$runs_dir/runs.sh"
app=$1 replay=$2 check=$3 collprof=$4

# the application's profile, 4 ranks
profile_app() {
    COLLPROF_OUTPUT_DIR="$work/orig" run app 4 yes "$app"
    [ "$(cat app.status)" = 0 ] || { fail "replay_app failed:"; show app.err; exit 1; }
}

# one error message on stderr, non-zero exit: expect NAME NRANKS PATTERN ARGS...
expect_error() {
    name=$1 n=$2 pattern=$3
    shift 3
    run "$name" "$n" no "$replay" "$@"
    st=$(cat "$name.status")
    if [ "$st" = 0 ] || [ "$st" = 124 ] || [ "$st" = 137 ]; then
        fail "$name: exit status $st, expected an error"
    fi
    if [ "$(grep -c '^collprof-replay: ' "$name.err")" != 1 ] || ! grep -q -- "$pattern" "$name.err"; then
        fail "$name: expected one message matching '$pattern' on stderr; got:"
        show "$name.err"
    fi
}

case $case_ in
exact)
    profile_app
    COLLPROF_OUTPUT_DIR="$work/patterns" run patterns 4 yes "$replay" "$work/orig" \
        --repetitions 2 --json "$work/r.json"
    [ "$(cat patterns.status)" = 0 ] || { fail "collprof-replay failed:"; show patterns.err; }
    "$check" "$work/orig" "$work/patterns" >check.out 2>&1 ||
        { fail "patterns mode: not every recorded matrix was replayed:"; show check.out; }
    cat check.out
    COLLPROF_OUTPUT_DIR="$work/sequence" run sequence 4 yes "$replay" "$work/orig" --sequence \
        --json "$work/s.json"
    [ "$(cat sequence.status)" = 0 ] || { fail "collprof-replay --sequence failed:"; show sequence.err; }
    "$check" "$work/orig" "$work/sequence" --sequence >seq.out 2>&1 ||
        { fail "sequence mode: the calls were not replayed in order:"; show seq.out; }
    cat seq.out
    grep -q "^calls replayed: 34 " sequence.out ||
        { fail "sequence: expected 34 calls on the busiest rank:"; show sequence.out; }
    # The JSON: one entry per send matrix of the profile, every call
    # counted once, sound times; the Ialltoallv patterns non-blocking.
    python3 - "$work/r.json" "$work/s.json" <<'PY' || fail "the --json files are wrong (above)"
import json, sys
r = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
p = r["patterns"]
bad = []
if r["mode"] != "patterns" or r["ranks"] != 4 or len(p) != 14:
    bad.append("expected 14 patterns on 4 ranks, got %d" % len(p))
calls = {}
for x in p:
    k = (x["comm"], x["collective"])
    calls[k] = calls.get(k, 0) + x["calls"]
    if x["skipped"] is not None:
        bad.append("skipped: %r" % x)
        continue
    if not (0 < x["t_min"] <= x["t_avg"] <= x["t_max"]) or x["n_sample"] != 2:
        bad.append("times: %r" % x)
    if abs(x["projected"] - x["calls"] * x["t_avg"]) > 1e-9 * max(1, x["projected"]):
        bad.append("projected: %r" % x)
    if x["recorded"] is None or x["recorded"]["instances"] < 1:
        bad.append("no recorded times: %r" % x)
    if x["nonblocking"] != (x["nbc"] is not None):
        bad.append("nbc: %r" % x)
want = {(0, "Alltoallv"): 9, (0, "Allgatherv"): 3, (0, "Gatherv"): 3, (0, "Bcast"): 3,
        (0, "Allreduce"): 1, (2, "Alltoallv"): 3, (4, "Alltoallv"): 3, (3, "Alltoallv"): 3,
        (1, "Neighbor_alltoallv"): 3, (3, "Bcast"): 3, (3, "Gather"): 3}
if calls != want:
    bad.append("calls per series %r, expected %r" % (calls, want))
nb = sorted(x["first_call"] for x in p if x["nonblocking"])
if nb != [2, 5, 8]:
    bad.append("non-blocking patterns start at %r, expected [2, 5, 8]" % nb)
if s["mode"] != "sequence" or s["sequence"]["calls"] != 34 or not s["sequence"]["seconds"] > 0 \
        or not s["sequence"]["recorded"] > 0:
    bad.append("sequence: %r" % s["sequence"])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
    # collprof report shows the results when replay.json is in the
    # directory, and says so when it cannot read it (the report is written).
    cp "$work/r.json" "$work/orig/replay.json"
    "$collprof" report "$work/orig" -o report.html >report.out 2>&1 ||
        { fail "collprof report with replay.json failed:"; show report.out; }
    rows=$(sed -n '/<section id="replay">/,/<\/section>/p' report.html | grep -c '^<tr><td')
    [ "$rows" = 14 ] || fail "report: expected 14 rows in the replay section, got $rows"
    cp "$work/s.json" "$work/orig/replay.json"
    "$collprof" report "$work/orig" -o report_seq.html >/dev/null 2>&1 &&
        grep -q "<p>34 calls replayed (the busiest rank)" report_seq.html ||
        fail "report: the sequence replay is not shown"
    echo '{"collprof_replay":1,"profile":3}' >"$work/orig/replay.json"
    "$collprof" report "$work/orig" -o report_bad.html >bad.out 2>&1 &&
        grep -q "replay.json could not be read: .*replay.json:1:32: expected a string" report_bad.html &&
        grep -q "replay.json:1:32:" bad.out ||
        { fail "report: a bad replay.json must be reported (and the report written):"; show bad.out; }
    rm -f "$work/orig/replay.json"
    # The checker catches what is not exact.
    COLLPROF_OUTPUT_DIR="$work/scaled" run scaled 4 yes "$replay" "$work/orig" --repetitions 1 \
        --scale-counts 2
    if "$check" "$work/orig" "$work/scaled" >scaled.out 2>&1; then
        fail "selftest: a replay with doubled counts passed the check"
    fi
    if "$check" "$work/orig" "$work/patterns" --sequence >order.out 2>&1; then
        fail "selftest: the patterns-mode replay (warm-up calls first) passed as a sequence"
    fi
    cat patterns.out
    ;;

select)
    profile_app
    run top 4 no "$replay" "$work/orig" --comm 2 --collective alltoallv --repetitions 1
    [ "$(cat top.status)" = 0 ] || { fail "--comm 2 --collective alltoallv failed:"; show top.err; }
    [ "$(grep -c '^2  *2  *Alltoallv ' top.out)" = 1 ] && [ "$(grep -c '^[0-9]' top.out)" = 1 ] ||
        { fail "--comm 2 --collective alltoallv: expected the one pattern of communicator 2:"; show top.out; }
    grep -q "^collprof-replay: 1 pattern of " top.out || { fail "one pattern, not '1 patterns':"; show top.out; }
    # Bounded by time: no pattern's timed calls can fit in a nanosecond, so
    # each is timed once; rank 0 says on stderr which pattern it is at.
    run bounded 4 no "$replay" "$work/orig" --seconds 1e-9
    [ "$(cat bounded.status)" = 0 ] || { fail "--seconds 1e-9 failed:"; show bounded.err; }
    [ "$(grep '^[0-9]' bounded.out | awk '$7 != 1' | wc -l)" = 0 ] &&
        [ "$(grep -c '^[0-9]' bounded.out)" = 14 ] ||
        { fail "--seconds 1e-9: expected n_sample 1 for each of the 14 patterns:"; show bounded.out; }
    grep -q "n_sample = min(1000, 4 MB / bytes sent, the calls that fit in 1e-09 s)" bounded.out ||
        { fail "--seconds: the method line does not say the limit:"; show bounded.out; }
    for i in $(seq 1 14); do
        grep -q "^collprof-replay: pattern $i of 14 ([A-Za-z_]*): measured in [0-9.]* s$" bounded.err ||
            { fail "no progress line for pattern $i on stderr:"; show bounded.err; break; }
    done
    # every time column says its unit
    grep -q "t_min\[usec\] *t_avg\[usec\] *t_max\[usec\] *projected\[s\] *recorded min/median/max\[usec\]" bounded.out ||
        { fail "the table's time columns do not say their units:"; show bounded.out; }
    run bytes 4 no "$replay" "$work/orig" --top 2 --top-by bytes --repetitions 1
    [ "$(grep -c '^[0-9]' bytes.out)" = 2 ] && grep -q "^note: .*--top 2: 12 more patterns left out" bytes.out ||
        { fail "--top 2 --top-by bytes: expected 2 patterns and a note:"; show bytes.out; }
    # the two with the most bytes (calls x bytes per call): the grid's
    # Neighbor_alltoallv (3 x 256), then world's Allgatherv (3 x 160)
    top=$(grep '^[0-9]' bytes.out | awk '{printf "%s %s %s;", $1, $3, $5}')
    [ "$top" = "1 Neighbor_alltoallv 3;0 Allgatherv 3;" ] ||
        { fail "--top-by bytes: got '$top':"; show bytes.out; }
    # a bigger job than the recorded one: the extra rank idles, the same patterns
    run bigger 5 no "$replay" "$work/orig" --repetitions 1
    [ "$(cat bigger.status)" = 0 ] && grep -q "^collprof-replay: 14 patterns of .*, 5 ranks" bigger.out &&
        ! grep -q skipped bigger.out ||
        { fail "5 ranks on a 4-rank profile:"; show bigger.out; show bigger.err; }
    cat bytes.out
    ;;

bad-input)
    profile_app
    expect_error missing 2 "nothere: cannot open directory" "$work/nothere"
    expect_error smaller 2 "a job of 4 ranks; this job has 2: run with -n 4 or more" "$work/orig"
    cp -r "$work/orig" "$work/corrupt"
    sed -i 's/^Rank(s) 0,2: 0 2 0 2/Rank(s) 0,2: 0 2 x 2/' "$work/corrupt/send-counters.rank0.txt"
    expect_error corrupt 4 "send-counters.rank0.txt:[0-9]*:" "$work/corrupt"
    cp -r "$work/orig" "$work/unknown"
    # A profile edited by hand, its manifest edited to agree (no sizes or
    # CRC-32s, as an older manifest has): the name is what is wrong.
    sed -i 's/Allgatherv/Allgatherx/g' "$work/unknown/send-counters.rank0.txt" \
        "$work/unknown/recv-counters.rank0.txt" "$work/unknown/manifest.json"
    sed -i -E 's/\{"name": ("[^"]*"), "bytes": [0-9]+(, "crc32": [0-9]+)?\}/\1/g' \
        "$work/unknown/manifest.json"
    expect_error unknown 4 "'Allgatherx' is not a collective collprof-replay knows how to call" "$work/unknown"
    expect_error option 2 "unknown option '--fast'" "$work/orig" --fast
    expect_error scale 2 "--scale-counts: expected a factor above 0, got '0'" "$work/orig" --scale-counts 0
    expect_error seconds 2 "--seconds: expected seconds per pattern above 0, got '-1'" "$work/orig" --seconds -1
    cat missing.err smaller.err corrupt.err unknown.err
    ;;

dialect)
    dialect=$5
    run dialect 6 no "$replay" "$dialect" --repetitions 1 --json "$work/d.json"
    [ "$(cat dialect.status)" = 0 ] || { fail "the other tools' files:"; show dialect.err; }
    grep -q "^note: the other tools' count files name no communicator members" dialect.out &&
        [ "$(grep -c "skipped: the other tools' files name no members" dialect.out)" = 3 ] &&
        grep -q '^1  *6  *Alltoallv  *1  *1 ' dialect.out ||
        { fail "expected the 6-rank Alltoallv replayed and 3 patterns skipped:"; show dialect.out; }
    cat dialect.out
    ;;

neighbors)
    # test_neighbors (3 ranks): a distributed graph of uneven degrees, a
    # star, a non-adjacent graph (replayed as distributed graphs with the
    # recorded lists) and a 1-D Cartesian grid with borders (rebuilt as that
    # grid): every matrix must come back.
    neighbors=$6
    COLLPROF_OUTPUT_DIR="$work/orig" run app 3 yes "$neighbors"
    [ "$(cat app.status)" = 0 ] || { fail "test_neighbors failed:"; show app.err; }
    COLLPROF_OUTPUT_DIR="$work/rep" run rep 3 yes "$replay" "$work/orig" --repetitions 2
    [ "$(cat rep.status)" = 0 ] || { fail "collprof-replay failed:"; show rep.err; }
    ! grep -q "skipped" rep.out || { fail "a pattern was skipped:"; show rep.out; }
    "$check" "$work/orig" "$work/rep" >check.out 2>&1 ||
        { fail "not every neighbourhood matrix was replayed:"; show check.out; }
    cat rep.out check.out
    ;;

*)
    echo "usage: $0 exact|select|bad-input|dialect|neighbors WORKDIR MPIEXEC LIB APP REPLAY CHECK COLLPROF [DIALECT_DIR]" >&2
    exit 2
    ;;
esac

if [ $failed = 0 ]; then
    echo "$case_: PASS"
fi
exit $failed
