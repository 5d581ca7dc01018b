#!/bin/sh
# collprof-replay --tune and --algorithms with real mpiexec runs
# (docs/replay.md, "Tuning"), under the MPI library of the build.
#
# usage: tune_test.sh WORKDIR MPIEXEC LIB APP REPLAY CHECKER COLLPROF SHIM PROBE
#   --algorithms finds at least two algorithms for Alltoallv besides the
#   library's own choice (Open MPI's coll/tuned only with dynamic rules;
#   without them it says why); each setting it would print selects, in a
#   new run, the algorithm it names (CHECKER reads it back through MPI_T);
#   --tune on the profile of APP (2 ranks) measures every algorithm of
#   its Alltoallv patterns (MPICH refuses one that cannot serve them, which
#   shows the choice reaches the library), and each setting it prints
#   selects its algorithm in a new run; --validate replays the sequence with
#   and without the settings (--tune's, or given with --setting); bad
#   settings and combinations of options are refused with one message.
#   A clear difference, forced: with SHIM preloaded every Alltoallv algorithm
#   but the library's second is 10 ms slower a call (far above any load); --tune must name that
#   one the winner beyond the noise, propose its setting (which selects it
#   in a new run), and --validate must measure a saving.  Under Open MPI
#   PROBE (preloaded into the application) counts which Alltoallv algorithm
#   coll/tuned ran: the setting and the rules file of --rules select the
#   winner, where the application alone runs another.
set -u
case_=tune work=$1 mpiexec=$2 lib=$3
shift 3
runs_dir=$(dirname "$0")/../mpi
. "$runs_dir/runs.sh"
app=$1 replay=$2 checker=$3 collprof=$4 shim=$5 probe=$6
limit=120
# Open MPI's coll/tuned obeys a forced algorithm only with dynamic rules,
# set at launch (MPICH ignores the variable).
export OMPI_MCA_coll_tuned_use_dynamic_rules=1

run algorithms 1 no "$replay" --algorithms
[ "$(cat algorithms.status)" = 0 ] || { fail "--algorithms failed:"; show algorithms.err; }
line=$(grep '^Alltoallv intra: ' algorithms.out)
algos=$(echo "$line" | sed -n 's/^Alltoallv intra: [^ ]* = //p' | sed 's/ (own choice)//')
set -- $algos
[ $# -ge 3 ] || { fail "--algorithms: expected the own choice and 2 or more algorithms for \
Alltoallv, got: $line"; show algorithms.out; }
echo "Alltoallv: $algos"

if [ "$LAUNCH_FLAVOR" = openmpi ]; then
    OMPI_MCA_coll_tuned_use_dynamic_rules=0 run nodyn 1 no "$replay" --algorithms
    grep -q '^Alltoallv intra: none: .*OMPI_MCA_coll_tuned_use_dynamic_rules=1' nodyn.out ||
        { fail "without dynamic rules --algorithms must say how to enable them:"; show nodyn.out; }
fi

# check_settings FILE: every "NAME<TAB>ENV" line of FILE, started with ENV,
# makes the library name NAME.
check_settings() {
    checked=$((checked + $(wc -l <"$1")))
    while IFS="$(printf '\t')" read -r name env; do
        # shellcheck disable=SC2086  # ENV is words of NAME=VALUE
        env $env timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS -n 1 "$checker" Alltoallv \
            >set.out 2>set.err
        got=$(sed -n 's/^current: //p' set.out)
        if [ "$got" != "$name" ]; then
            fail "the setting '$env' selects '$got', not '$name':"
            show set.out
            show set.err
        fi
    done <"$1"
}
checked=0
run check 1 no "$checker" Alltoallv
[ "$(cat check.status)" = 0 ] || { fail "tune_setting_check failed:"; show check.out; show check.err; }
sed -n 's/^setting: //p' check.out >every.settings
[ "$(wc -l <every.settings)" -ge 3 ] || { fail "expected 3 or more settings:"; show check.out; }
check_settings every.settings

# --tune on a real profile.
COLLPROF_OUTPUT_DIR="$work/prof" run app 2 yes "$app"
[ "$(cat app.status)" = 0 ] || { fail "the application failed:"; show app.err; exit 1; }
run tune 2 no "$replay" "$work/prof" --tune --rounds 3 --seconds 0.3 --validate \
    --json "$work/prof/replay.json"
[ "$(cat tune.status)" = 0 ] || { fail "--tune failed:"; show tune.err; exit 1; }
cat tune.out
awk '/^pattern [0-9]+: comm 0 \(2 ranks\) Alltoallv,/ {on = 1; next} on && /^pattern / {on = 0}
     on' tune.out >alltoallv.block
for a in $algos; do
    grep -Eq "^  $a( \(library's own\))? +([0-9.]+  |refused: )" alltoallv.block ||
        { fail "--tune: no time or refusal for $a on the Alltoallv pattern:"; show tune.out; }
done
if [ "$LAUNCH_FLAVOR" = mpich ]; then
    # It needs MPI_IN_PLACE, which the application does not use.
    grep -q "^  pairwise_sendrecv_replace  *refused: " alltoallv.block ||
        { fail "--tune: MPICH's pairwise_sendrecv_replace should be refused:"; show tune.out; }
fi
grep -Eq "^  fastest( median)?: " alltoallv.block || fail "--tune: no verdict on the pattern"
grep -Eq '^  Alltoallv +[^ ]+ +(keep |[a-z_]+ saves )' tune.out ||
    fail "--tune: no line for Alltoallv per collective"
grep -Eq '^whole run: ' tune.out || fail "--tune: no whole-run line"
# The settings it prints (none when nothing is faster beyond the noise)
# select what the per-collective lines name.
sed -n '/^settings /,/^validation/p' tune.out | sed -n 's/^  \([A-Za-z_]*=.*\)/\1/p' >printed
if [ -s printed ]; then
    while read -r env; do
        winner=$(grep -E '^  Alltoallv ' tune.out | sed -n 's/^  Alltoallv  *[^ ]*  *\([a-z_0-9]*\) saves .*/\1/p')
        [ -n "$winner" ] || continue
        printf '%s\t%s\n' "$winner" "$env" >winner.settings
        case $env in *ALLTOALLV* | *alltoallv*) check_settings winner.settings ;; esac
    done <printed
fi

echo "settings read back: $checked"

# --validate: the sequence with and without the settings, or why not.
if ! grep -q '^validation: not done: no setting to check' tune.out; then
    grep -q '^validation: the recorded sequence ([0-9]* calls on the busiest rank) replayed 3 times' \
        tune.out && grep -Eq '^  own choices  median [0-9.]+ [mu]?s' tune.out &&
        grep -Eq '^  settings     median [0-9.]+ [mu]?s' tune.out &&
        grep -q '^  measured saving .*, projected ' tune.out ||
        fail "--tune --validate: no validation of the settings"
fi
# --json says what the text says: every algorithm of each Alltoallv
# pattern, the settings printed exactly those proposed, the validation.
python3 - "$work/prof/replay.json" "$algos" printed <<'PY' || fail "--tune --json is wrong (above)"
import json, sys
r = json.load(open(sys.argv[1]))
algos = sys.argv[2].split()
printed = [l.strip() for l in open(sys.argv[3]) if l.strip()]
bad = []
if r["collprof_replay"] != 2 or r["mode"] != "tune" or r["tune"]["rounds"] != 3:
    bad.append("expected mode tune, 3 rounds")
for p in r["patterns"]:
    if p["skipped"] is not None:
        continue
    t = p["tune"]
    if p["collective"] == "Alltoallv" and p["ranks"] == 2:
        names = [a["name"] for a in t["algorithms"]]
        if names != algos:
            bad.append("Alltoallv algorithms %r, --algorithms said %r" % (names, algos))
    for a in t["algorithms"]:
        if a["refused"] != (a["rounds"] == 0):
            bad.append("refused and rounds disagree: %r" % a)
        if a["rounds"] and not (0 < a["fastest"] <= a["median"] <= a["slowest"]):
            bad.append("unsound times: %r" % a)
proposed = [s["setting"] for s in r["tune"]["settings"] if s["beyond_noise"]]
if any(s["setting"] is not None for s in r["tune"]["settings"] if not s["beyond_noise"]):
    bad.append("a setting for a collective without a winner")
if proposed != printed:
    bad.append("settings %r, the text printed %r" % (proposed, printed))
if r["tune"]["validation"] is None:
    bad.append("no validation")
for b in bad:
    print("replay.json:", b)
sys.exit(1 if bad else 0)
PY
# collprof report shows it.
"$collprof" report "$work/prof" -o report.html >report.out 2>&1 ||
    { fail "collprof report with --tune's replay.json failed:"; show report.out; }
section=$(sed -n '/<section id="replay">/,/<\/section>/p' report.html)
for a in $algos; do
    echo "$section" | grep -q ">$a: \|<br>$a: " ||
        fail "report: the replay section does not show $a"
done
echo "$section" | grep -q "every algorithm the library offers" ||
    fail "report: the tuning section is not there"

# Settings given (the library's second algorithm, whatever its speed): the
# sequence replayed both ways (under Open MPI on communicators made anew).
second=$(sed -n 2p every.settings | cut -f2)
# shellcheck disable=SC2086  # the setting's words, each a --setting
set -- $(for w in $second; do echo "--setting $w"; done)
run given 2 no "$replay" "$work/prof" --validate --rounds 2 "$@"
[ "$(cat given.status)" = 0 ] || { fail "--validate --setting $second failed:"; show given.err; }
cat given.out
grep -Eq '^  settings     median [0-9.]+ [mu]?s' given.out &&
    grep -q '(settings given: no projection)' given.out ||
    { fail "--validate --setting: no validation"; show given.out; }
run badset 2 no "$replay" "$work/prof" --validate --setting NO_SUCH_VARIABLE=1
grep -q "^collprof-replay: --setting NO_SUCH_VARIABLE=1: NO_SUCH_VARIABLE chooses no" badset.err &&
    [ "$(cat badset.status)" = 2 ] || { fail "a bad --setting accepted:"; show badset.err; }

# A clear difference, forced (the shim slows all but the second algorithm).
rules_arg=
[ "$LAUNCH_FLAVOR" = openmpi ] && rules_arg="--rules $work/rules.txt"
cvar=$(echo "$line" | sed -n 's/^Alltoallv intra: \([^ ]*\) = .*/\1/p')
set -- $algos
fast=$2
# shellcheck disable=SC2046  # the launcher's words
timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $(launch_preload "$shim") -n 2 \
    env TUNE_SHIM_CVAR="$cvar" TUNE_SHIM_FAST=1 "$replay" "$work/prof" --tune --validate \
    --rounds 3 --seconds 0.3 $rules_arg >forced.out 2>forced.err
echo $? >forced.status
[ "$(cat forced.status)" = 0 ] || { fail "--tune with the shim failed:"; show forced.err; }
awk '/^pattern [0-9]+: comm 0 \(2 ranks\) Alltoallv,/ {on = 1; next} on && /^pattern / {on = 0}
     on' forced.out >forced.block
grep -q "^  fastest: $fast, beyond the noise" forced.block ||
    { fail "forced: $fast is not the winner beyond the noise:"; show forced.out; }
grep -Eq "^  Alltoallv +$cvar +$fast saves " forced.out ||
    { fail "forced: no setting of $fast for Alltoallv:"; show forced.out; }
sed -n '/^settings /,/^validation/p' forced.out | sed -n 's/^  \([A-Za-z_]*=.*\)/\1/p' |
    grep -i "$cvar" | sed "s/^/$fast$(printf '\t')/" >forced.settings
[ -s forced.settings ] || fail "forced: no setting line for $cvar"
check_settings forced.settings
grep -Eq '^  measured saving [0-9.]+ [mu]?s \[[0-9.]+ [mu]?s\.\.' forced.out ||
    { fail "forced: --validate measured no saving beyond its range:"; show forced.out; }
echo "forced winner: $fast"

# probe_run NAME ENV...: the application under PROBE with ENV; prints the
# Alltoallv algorithms rank 0 ran ("basic_linear N pairwise M").
probe_run() {
    name=$1
    shift
    rm -f "$work/$name".probe.*
    # shellcheck disable=SC2046  # the launcher's words
    env "$@" ALG_PROBE_OUT="$work/$name.probe" timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS \
        -x ALG_PROBE_OUT $(launch_preload "$probe") -n 2 "$app" >"$name.out" 2>"$name.err" ||
        { fail "$name: the application failed:"; show "$name.err"; }
    cat "$work/$name".probe.* 2>/dev/null | awk '{n[$1] += $2} END {
        printf "basic_linear %d pairwise %d\n", n["basic_linear"], n["pairwise"]}'
}
if [ "$LAUNCH_FLAVOR" = openmpi ]; then
    # What the application runs alone, with the setting, with the rules.
    alone=$(probe_run alone OMPI_MCA_coll_tuned_use_dynamic_rules=1)
    setting=$(probe_run setting OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
        OMPI_MCA_coll_tuned_alltoallv_algorithm=1)
    rules=$(probe_run rules OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
        OMPI_MCA_coll_tuned_dynamic_rules_filename="$work/rules.txt")
    echo "Alltoallv algorithms run: alone: $alone; setting: $setting; rules: $rules"
    cat "$work/rules.txt"
    grep -Eq '^4 +# Alltoallv' "$work/rules.txt" && grep -Eq '^2 1 0 1 0 0 +# 2 ranks: basic_linear' \
        "$work/rules.txt" || fail "rules: no rule basic_linear for Alltoallv on 2 ranks"
    case $alone in "basic_linear 0 pairwise "[1-9]*) ;; *)
        fail "the application alone ran '$alone': expected pairwise, Open MPI's own choice" ;; esac
    case $setting in "basic_linear "[1-9]*" pairwise 0") ;; *)
        fail "the setting of basic_linear ran '$setting'" ;; esac
    case $rules in "basic_linear "[1-9]*" pairwise 0") ;; *)
        fail "the rules file of basic_linear ran '$rules'" ;; esac
else
    run mpichrules 2 no "$replay" "$work/prof" --tune --rules "$work/rules.txt"
    grep -q "^collprof-replay: --rules: MPICH reads every collective's selection" mpichrules.err &&
        [ "$(cat mpichrules.status)" = 2 ] ||
        { fail "--rules under MPICH should say why it writes no file:"; show mpichrules.err; }
fi

# Options that do not go together, and a bad number of rounds.
run seq 2 no "$replay" "$work/prof" --tune --sequence
grep -q "not with --sequence" seq.err || { fail "--tune --sequence accepted:"; show seq.err; }
run rounds 2 no "$replay" "$work/prof" --tune --rounds 1
grep -q "^collprof-replay: --rounds: expected 2 to" rounds.err ||
    { fail "--rounds 1 accepted:"; show rounds.err; }
exit $failed
