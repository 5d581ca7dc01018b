#!/bin/sh
# Robustness tests of the library with real mpiexec runs: exact behaviour of
# bad input, unwritable output, non-MPI programs, exit codes, the bundled
# example.  Each check prints "FAIL: ..." and the script exits 1 if any
# failed.
#
# usage: robustness.sh CASE WORKDIR MPIEXEC LIB [ARGS...]
#   miniapp   ... MINIAPP COLLPROF_EXE : examples/alltoallv_miniapp at 4 ranks
#   damaged   ... MINIAPP COLLPROF_EXE NOFINALIZE : a profile that lost data (files cut short, emptied,
#                                        a FIFO, removed): named, the rest read, exit 3
#   bad-env   ... APP COLLPROF_EXE     : an invalid value of each COLLPROF_* variable
#   unwritable ... APP                 : an output directory that cannot be created
#   non-mpi   ...                      : programs that never initialise MPI
#   exit-code ... APP                  : the application's exit status passes through
#   bad-collectives ... TEST_SELECT    : COLLPROF_COLLECTIVES with an unknown name
#   callsites ... TEST_CALLSITES COLLPROF_EXE : collprof callsites / summary and
#                                        matrix --callsite on a real run, and check
#   late-rank ... TEST_LATE_RANK COLLPROF_EXE : the findings of a run with one
#                                        rank late at a known line
#   cube-tools ... TEST_LATE_RANK CUBE_VALUES COLLPROF_EXE : cubelib's cube_dump and
#                                        cube_sanity read profile.cubex as we do
#   collprof-run ... MINIAPP COLLPROF_EXE : `mpiexec collprof run MINIAPP` with
#                                        MPIEXEC, the launcher of MINIAPP's MPI
# WORKDIR is emptied first; APP is app_exit (a few Alltoallv, one stdout line,
# returns its argument).
set -u
case_=$1 work=$2 mpiexec=$3 lib=$4
shift 4
. "$(dirname "$0")/runs.sh"
# The mpi4py program of the other-mpi and mpi4py cases.
mpi4py_app=$(cd "$(dirname "$0")" && pwd)/app_mpi4py.py

case $case_ in
miniapp)
    miniapp=$1 collprof=$2
    args="20 5"
    run baseline 4 no "$miniapp" $args
    COLLPROF_OUTPUT_DIR="$work/out" run profiled 4 yes "$miniapp" $args
    [ "$(cat profiled.status)" = 0 ] || fail "exit status $(cat profiled.status), expected 0"
    same_as_baseline profiled
    grep -q -x "alltoallv_miniapp: 4 ranks, 20 halo + 5 rebalance exchanges: all data correct" \
        profiled.out || { fail "stdout is not the expected line:"; show profiled.out; }
    # collprof says where the output went, once, and nothing else
    if [ "$(wc -l <profiled.err)" != 1 ] || ! grep -q "^collprof: wrote .* to $work/out" profiled.err; then
        fail "stderr should be one line 'collprof: wrote N files to $work/out ...'; got:"
        show profiled.err
    fi
    if "$collprof" check "$work/out" >check.out 2>&1; then
        sed 's/^/collprof check: /' check.out
    else
        fail "'collprof check' on the output failed:"
        show check.out
    fi
    # COLLPROF_VERBOSE=2: each stage of finalize, in order, once, from rank 0
    COLLPROF_VERBOSE=2 COLLPROF_OUTPUT_DIR="$work/out2" run verbose 4 yes "$miniapp" $args
    same_as_baseline verbose
    grep '^collprof: finalize stage ' verbose.err |
        sed 's/^collprof: finalize stage \([0-9]*\) (\([a-z. ]*\)): [0-9.]* s on rank 0$/\1 \2/' >stages.txt
    printf '%s\n' "1 call paths" "2 tables to leads" "3 count blocks" "4 numbering" \
        "5 count files" "6 timing" "7 timings.cpt" "8 agreement" "9 run files" "10 manifest" \
        >stages.want
    cmp -s stages.txt stages.want || { fail "COLLPROF_VERBOSE=2: finalize stages reported as:"; show stages.txt; }
    ;;

damaged)
    # A profile that lost data: each file cut short, emptied, replaced by a
    # FIFO or removed, and manifest.json removed.  check names it and
    # fails; every other subcommand names it on stderr, shows what is left
    # and exits 3; nothing waits.
    miniapp=$1 collprof=$2
    COLLPROF_OUTPUT_DIR="$work/whole" run whole 2 yes "$miniapp" 20 5
    "$collprof" check whole >whole.check 2>&1 || { fail "the whole profile does not check:"; show whole.check; }
    n=0
    for c in "send-counters.rank0.txt:cut16:cut short" "send-counters.rank0.txt:empty:emptied" \
             "send-counters.rank0.txt:fifo:not a regular file (a FIFO)" \
             "recv-counters.rank1.txt:gone:listed in manifest.json but not there" \
             "profile.cubex:cut:cut short" "profile.stat:flip:changed since the run wrote it" \
             "timings.cpt:cut:cut short" "manifest.json:gone:missing"; do
        file=${c%%:*} rest=${c#*:} how=${rest%%:*} said=${rest#*:}
        n=$((n + 1))
        d=$work/d$n
        rm -rf "$d"
        cp -r whole "$d"
        case $how in
        cut16) head -16 "whole/$file" >"$d/$file" ;;
        cut) head -c 3000 "whole/$file" >"$d/$file" ;;
        empty) : >"$d/$file" ;;
        fifo) rm "$d/$file" && mkfifo "$d/$file" ;;
        gone) rm "$d/$file" ;;
        flip) sed 's/mpi_/MPI_/' "whole/$file" >"$d/$file" ;;
        esac
        timeout 20 "$collprof" check "$d" >"d$n.check" 2>&1
        st=$?
        [ $st = 1 ] || { fail "$file ($how): check exited $st, not 1:"; show "d$n.check"; }
        if [ $how = gone ] && [ $file != manifest.json ]; then
            grep -qF "manifest.json: lists $file, which is not in the directory" "d$n.check"
        else
            grep -qF "$file: damaged: " "d$n.check" && grep -qF "$said" "d$n.check"
        fi || { fail "$file ($how): check does not name the damage ($said):"; show "d$n.check"; }
        for cmd in summary timings patterns callsites "export --format json"; do
            timeout 20 "$collprof" $cmd "$d" >"d$n.out" 2>"d$n.err"
            st=$?
            [ $st = 3 ] || { fail "$file ($how): $cmd exited $st, not 3:"; show "d$n.err"; }
            grep -qF "damaged: $file: $said" "d$n.err" ||
                { fail "$file ($how): $cmd does not name the damage on stderr:"; show "d$n.err"; }
        done
    done
    # A block lost with the end of its file is named by its series.
    grep -q "damaged: communicator [0-9]*, [A-Za-z]*: 1 of its 1 send blocks are not in send-counters.rank0.txt" d1.check ||
        { fail "the lost blocks are not named:"; show d1.check; }
    # The first block of the file cut after it is still read.
    timeout 20 "$collprof" summary "$work/d1" >d1.summary 2>/dev/null
    grep -q "Alltoallv  *20 " d1.summary || { fail "the block before the cut is not read:"; show d1.summary; }
    # A partial profile (no MPI_Finalize) fingerprints its files as a whole
    # one does: a rank's count file cut short is named under its folder by
    # check and on the stderr of the merged profile's readers.
    nofinalize=$3
    COLLPROF_OUTPUT_DIR="$work/part" \
        timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $(launch_keep_going) $(launch_preload "$lib") \
        -n 2 "$nofinalize" return >part.out 2>part.err
    "$collprof" check part >part.check 2>&1 || { fail "the partial profiles do not check:"; show part.check; }
    file=partial.rank1/send-counters.rank1.txt
    [ -s "part/$file" ] || { fail "no $file"; show part.err; }
    head -c 300 "part/$file" >cut.txt && mv cut.txt "part/$file"
    timeout 20 "$collprof" check part >part.check 2>&1
    st=$?
    [ $st = 1 ] || { fail "$file (cut): check exited $st, not 1:"; show part.check; }
    grep -qF "$file: damaged: cut short: 300 bytes of the" part.check ||
        { fail "$file (cut): check does not name the damage:"; show part.check; }
    timeout 20 "$collprof" summary part >part.summary 2>part.err
    st=$?
    [ $st = 3 ] || { fail "$file (cut): summary exited $st, not 3:"; show part.err; }
    grep -qF "damaged: $file: cut short" part.err ||
        { fail "$file (cut): summary does not name the damage on stderr:"; show part.err; }
    ;;

bad-env)
    app=$1 collprof=$2
    run baseline 2 no "$app"
    # VARIABLE VALUE WORDS-OF-THE-ACCEPTED-VALUES...
    check_one() {
        var=$1 value=$2
        shift 2
        name=$(echo "$var" | tr 'A-Z' 'a-z')
        mkdir -p "$name"
        # the output goes to $name/out, or with a bad COLLPROF_OUTPUT_DIR to
        # the default place: the working directory $name
        outvar=COLLPROF_OUTPUT_DIR=$work/$name/out
        [ "$var" = COLLPROF_OUTPUT_DIR ] && outvar=COLLPROF_UNUSED=
        (cd "$name" && env "$outvar" "$var=$value" \
            timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $(launch_preload "$lib") -n 2 "$app" \
            >"../$name.out" 2>"../$name.err"; echo $? >"../$name.status")
        same_as_baseline "$name"
        k=$(lines_matching "$name.err" "$var")
        if [ "$k" != 1 ]; then
            fail "$var=\"$value\": $k stderr lines name the variable, expected exactly 1:"
            show "$name.err"
        fi
        line=$(grep -F -- "$var" "$name.err" | head -n 1)
        for word in "$@"; do
            case $line in
            *"$word"*) ;;
            *) fail "$var=\"$value\": the message does not give the accepted values ('$word'): $line" ;;
            esac
        done
        # apart from it, only collprof's final line
        others=$(grep -v -F -- "$var" "$name.err" | grep -c -v "^collprof: wrote ")
        if [ "$others" != 0 ]; then
            fail "$var=\"$value\": unexpected stderr lines:"
            show "$name.err"
        fi
        # the run was profiled with the default for that variable
        if [ "$var" = COLLPROF_OUTPUT_DIR ]; then
            out=$(ls -d "$name"/collprof.local.* 2>/dev/null | head -n 1)
        else
            out=$name/out
        fi
        if [ -z "$out" ] || [ ! -f "$out/manifest.json" ]; then
            fail "$var=\"$value\": no profile written with the default value"
        elif ! "$collprof" check "$out" >"$name.check" 2>&1; then
            fail "$var=\"$value\": 'collprof check' fails on the output:"
            show "$name.check"
        fi
        echo "$var=\"$value\": $(grep -F -- "$var" "$name.err")"
    }
    check_one COLLPROF_COMPRESS zip none gzip
    check_one COLLPROF_MAX_CALLS -1 unlimited
    check_one COLLPROF_VERBOSE 9 0 1 2
    check_one COLLPROF_START_CALL first "0 or more"
    check_one COLLPROF_OUTPUT_DIR "" directory
    check_one COLLPROF_TIMING always off passive barrier
    check_one COLLPROF_TIMING_MAX_CALLS lots "0 or more"
    check_one COLLPROF_HOSTNAME "two words" "without spaces"
    check_one COLLPROF_STAT_LAYOUT scalasca cubegui documented
    check_one COLLPROF_CALLSITE_DEPTH 33 "0 (off) to 32"
    check_one COLLPROF_CLOCK rdtsc auto tsc monotonic
    [ -f collprof_compress/out/send-counters.rank0.txt ] ||
        fail "COLLPROF_COMPRESS=zip: the default (no compression) was not used"
    # All at once: still one line per variable.
    mkdir -p all
    (cd all && env COLLPROF_COMPRESS=zip COLLPROF_MAX_CALLS=-1 COLLPROF_VERBOSE=9 \
        COLLPROF_START_CALL=first COLLPROF_OUTPUT_DIR="$work/all/out" \
        timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $(launch_preload "$lib") -n 2 "$app" \
        >../all.out 2>../all.err; echo $? >../all.status)
    same_as_baseline all
    for var in COLLPROF_COMPRESS COLLPROF_MAX_CALLS COLLPROF_VERBOSE COLLPROF_START_CALL; do
        k=$(lines_matching all.err "$var")
        [ "$k" = 1 ] || { fail "all bad at once: $k lines name $var, expected 1:"; show all.err; }
    done
    ;;

unwritable)
    app=$1
    run baseline 2 no "$app"
    # A path through a regular file cannot be created, even by root.
    echo "not a directory" >afile
    COLLPROF_OUTPUT_DIR="$work/afile/out" run through_file 2 yes "$app"
    same_as_baseline through_file
    # Said at MPI_Init (not after the whole run), and again at the end.
    k=$(grep -c "^collprof:" through_file.err)
    if [ "$k" != 2 ] || ! grep "^collprof:" through_file.err | head -1 |
            grep -q "afile is not a directory: no profile can be written unless" ||
        ! grep "^collprof:" through_file.err | tail -1 | grep -q "afile.*no profile written"; then
        fail "output directory through a regular file: expected a collprof message naming it at the start and at the end, got:"
        show through_file.err
    fi
    if [ "$(wc -l <through_file.err)" != "$k" ]; then
        fail "output directory through a regular file: other stderr lines:"
        show through_file.err
    fi
    [ "$(cat afile)" = "not a directory" ] || fail "the regular file was changed"
    echo "through a regular file: $(cat through_file.err)"
    # A read-only parent (only meaningful when not root).
    if [ "$(id -u)" != 0 ]; then
        mkdir ro && chmod 555 ro
        COLLPROF_OUTPUT_DIR="$work/ro/out" run read_only 2 yes "$app"
        same_as_baseline read_only
        k=$(grep -c "^collprof:" read_only.err)
        [ "$k" = 2 ] || { fail "read-only parent: expected a collprof message at the start and at the end, got:"; show read_only.err; }
        chmod 755 ro
    fi
    ;;

non-mpi)
    mkdir empty
    cd empty || exit 2
    LD_PRELOAD=$lib sh -c 'echo hello' >../echo.out 2>../echo.err
    echo $? >../echo.status
    cd .. || exit 2
    [ "$(cat echo.out)" = hello ] || { fail "'echo hello' printed:"; show echo.out; }
    [ -s echo.err ] && { fail "'echo hello' printed on stderr:"; show echo.err; }
    [ "$(cat echo.status)" = 0 ] || fail "'echo hello' exit status $(cat echo.status)"
    (cd empty && LD_PRELOAD=$lib /bin/true) >true.out 2>&1 || fail "/bin/true failed"
    [ -s true.out ] && { fail "/bin/true printed:"; show true.out; }
    (cd empty && LD_PRELOAD=$lib /bin/false) >false.out 2>&1
    st=$?
    [ $st = 1 ] || fail "/bin/false: exit status $st, expected 1"
    [ -s false.out ] && { fail "/bin/false printed:"; show false.out; }
    # mpiexec and its proxies themselves preloaded: they never call MPI_Init
    (cd empty && LD_PRELOAD=$lib timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS -n 2 /bin/echo hi) \
        >mpiexec.out 2>mpiexec.err
    st=$?
    [ $st = 0 ] || fail "LD_PRELOAD=... mpiexec -n 2 /bin/echo: exit status $st"
    [ "$(cat mpiexec.out)" = "hi
hi" ] || { fail "mpiexec -n 2 /bin/echo hi printed:"; show mpiexec.out; }
    [ -s mpiexec.err ] && { fail "mpiexec -n 2 /bin/echo hi printed on stderr:"; show mpiexec.err; }
    if [ -n "$(ls -A empty)" ]; then
        fail "files or directories were created:"
        ls -lA empty >&2
    fi
    ;;

exit-code)
    app=$1
    for code in 3 0; do
        run "baseline" 2 no "$app" $code
        [ "$(cat baseline.status)" = $code ] ||
            echo "note: without collprof, mpiexec returns $(cat baseline.status) for $code" >&2
        COLLPROF_OUTPUT_DIR="$work/out$code" run "status$code" 2 yes "$app" $code
        same_as_baseline "status$code"
        [ "$(cat "status$code.status")" = $code ] ||
            fail "the application returned $code, mpiexec with collprof $(cat "status$code.status")"
        [ -f "$work/out$code/manifest.json" ] || fail "status $code: no profile written"
        echo "application status $code: mpiexec returns $(cat "status$code.status") with collprof"
    done
    ;;

bad-collectives)
    # COLLPROF_COLLECTIVES with a name collprof does not accept: one message
    # on stderr naming the variable and the accepted values, and everything
    # is profiled, which the program (test_select, whose plan applies the
    # same rule) checks itself.
    app=$1
    INVALID_SETTING=yes COLLPROF_OUTPUT_DIR="$work/out" COLLPROF_COLLECTIVES=alltoallz run bad 2 yes "$app"
    if [ "$(cat bad.status)" != 0 ]; then
        fail "COLLPROF_COLLECTIVES=alltoallz: the run or its check failed (status $(cat bad.status)); everything must be profiled:"
        show bad.err
    fi
    grep -q "PASS" bad.out || { fail "the program did not pass its check:"; show bad.out; }
    k=$(lines_matching bad.err COLLPROF_COLLECTIVES)
    if [ "$k" != 1 ]; then
        fail "COLLPROF_COLLECTIVES=alltoallz: $k stderr lines name the variable, expected exactly 1:"
        show bad.err
    fi
    line=$(grep -F -- COLLPROF_COLLECTIVES bad.err | head -n 1)
    for word in alltoallz all alltoallv bcast neighbor_alltoallw; do
        echo "$line" | grep -q -i -w -- "$word" ||
            fail "COLLPROF_COLLECTIVES=alltoallz: the message does not give '$word': $line"
    done
    others=$(grep -v -F -- COLLPROF_COLLECTIVES bad.err | grep -c -v "^collprof: wrote ")
    if [ "$others" != 0 ]; then
        fail "COLLPROF_COLLECTIVES=alltoallz: unexpected stderr lines:"
        show bad.err
    fi
    echo "COLLPROF_COLLECTIVES=alltoallz: $line"
    ;;

placement)
    # A real run's rank graph: the miniapp on 4 ranks, placed on 2 nodes;
    # every byte count is the one cut_from_export.py computes again from
    # `collprof export` (Python, the standard's data movement), the proposal
    # crosses no more than the launchers' layouts, the cap holds.
    miniapp=$1 collprof=$2 checker=$3 transposes=$4
    COLLPROF_OUTPUT_DIR="$work/out" run prog 4 yes "$miniapp" 20 5
    [ "$(cat prog.status)" = 0 ] || { fail "the miniapp failed:"; show prog.err; }
    "$collprof" placement "$work/out" --nodes 2 --format json >pl.json 2>pl.err ||
        { fail "placement failed:"; show pl.err; }
    "$collprof" export "$work/out" >export.json 2>&1 || { fail "export failed:"; show export.json; }
    python3 "$checker" export.json pl.json >check.out || { fail "the checker failed"; show check.out; }
    python3 - pl.json check.out <<'PY' || { fail "placement and the checker disagree:"; show pl.json; show check.out; }
import json, sys, collections
d = json.load(open(sys.argv[1]))
want = dict(l.split() for l in open(sys.argv[2]))
got = {l["name"]: l["bytes_between_nodes"] for l in d["layouts"]}
ok = int(want["graph"]) == d["graph"]["bytes"] > 0
for name in ("block", "round_robin", "proposal"):
    ok &= int(want[name]) == got[name]
ok &= got["proposal"] <= min(got["block"], got["round_robin"])
ok &= max(collections.Counter(d["proposal"]).values()) <= d["ranks_per_node"] == 2
ok &= got["own"] == 0  # one host: nothing crosses
sys.exit(not ok)
PY
    echo "placement: $(tr '\n' ' ' <check.out)"
    # An FFT's transposes on sub-communicators (test_transposes.c): the
    # heavy pairs are {0, 2} and {1, 3}, 4096 doubles each way per call, 10
    # calls: 655,360 bytes a pair; the light {0, 1} and {2, 3}: 2,560.  The
    # block layout crosses the heavy pairs, the proposal only the light.
    COLLPROF_OUTPUT_DIR="$work/fft" run fft 4 yes "$transposes"
    [ "$(cat fft.status)" = 0 ] || { fail "test_transposes failed:"; show fft.err; }
    "$collprof" placement "$work/fft" --nodes 2 --format json >fft.json 2>fft.perr ||
        { fail "placement (transposes) failed:"; show fft.perr; }
    python3 - fft.json <<'PY' || { fail "transposes: not the expected layouts:"; show fft.json; }
import json, sys
d = json.load(open(sys.argv[1]))
got = {l["name"]: l["bytes_between_nodes"] for l in d["layouts"]}
heavy, light = 2 * 4096 * 8 * 10, 2 * 16 * 8 * 10
p = d["proposal"]
sys.exit(not (d["graph"]["bytes"] == 2 * heavy + 2 * light and got["block"] == 2 * heavy and
              got["proposal"] == 2 * light and p[0] == p[2] and p[1] == p[3] and p[0] != p[1]))
PY
    echo "placement (transposes): block $(sed -n 's/.*"name": "block".*"bytes_between_nodes": \([0-9]*\).*/\1/p' fft.json), proposal $(sed -n 's/.*"name": "proposal".*"bytes_between_nodes": \([0-9]*\).*/\1/p' fft.json)"
    ;;

late-tail)
    # 60,000 Alltoallv on 2 ranks, rank 1 late by 2.5 ms (spun) in each of
    # the last 600 only: 1.5 s of waiting for rank 0 in a run of far more
    # calls than a timing sample of 8,192 keeps (one call in 8).  The
    # program measures the run's waiting itself, exactly, with stamps around
    # every call (test_late_tail.c).  The whole-run waiting, estimated from
    # the sample, must be that truth within three of its stated standard
    # errors, plus what the program's stamps may differ from collprof's (the
    # wrapper's work between them: 100 ns a call at most; measured, 25 to
    # 50 ns); never above the time in the calls (passive timing); the same
    # in profile.stat and the summary; and said to be an estimate.
    app=$1 collprof=$2 cube_values=$3
    ncalls=60000
    COLLPROF_OUTPUT_DIR="$work/out" COLLPROF_TIMING_MAX_CALLS=8192 run prog 2 yes "$app" $ncalls 600 2500
    [ "$(cat prog.status)" = 0 ] || { fail "test_late_tail failed:"; show prog.err; }
    truth=$(sed -n 's/^test_late_tail: exact waiting \([0-9.]*\) s.*/\1/p' prog.out)
    [ -n "$truth" ] || { fail "test_late_tail did not say the exact waiting:"; show prog.out; }
    "$collprof" summary "$work/out" >sum.out 2>&1 || { fail "summary failed:"; show sum.out; }
    row=$(awk '$1 ~ /^[0-9]+$/ && $4 == "Alltoallv" { e = $NF; sub(/^[^0-9.]*/, "", e); print $(NF-2), $(NF-1), e }' sum.out)
    set -- $row
    time_in_calls=${1:-0} w=${2:-0} se=${3:-0}
    grep -q "Alltoallv .* ±[0-9.]*$" sum.out || { fail "summary does not give the estimate's uncertainty:"; show sum.out; }
    awk -v w="$w" -v t="$time_in_calls" 'BEGIN { exit !(w > 0 && w <= t) }' ||
        { fail "summary's waiting $w s is not within the $time_in_calls s in the calls:"; show sum.out; }
    # Calls longer than any the sample kept (the scheduler stopping a rank
    # for milliseconds on a loaded machine): collprof says their time, and
    # that their waiting is not known; the estimate answers for the rest.
    "$collprof" timings "$work/out" >timings.out 2>&1 || { fail "timings failed:"; show timings.out; }
    unseen=$(sed -n 's/^comm 0 Alltoallv: \([0-9.]*\) s of the time in the calls is in calls longer than any the sample kept.*/\1/p' timings.out)
    unseen=${unseen:-0}
    awk -v w="$w" -v x="$truth" -v e="$se" -v n=$ncalls -v u="$unseen" 'BEGIN { d = w - x; if (d < 0) d = -d; exit !(e > 0 && d <= 3 * e + n * 100e-9 + u) }' ||
        { fail "summary's waiting $w s ±$se is not the run's exact $truth s within 3 standard errors (and $ncalls x 100 ns for the stamps, and the $unseen s the sample did not see):"; show sum.out; }
    stat=$(awk 'NR > 1 && ($1 == "mpi_wait_nxn" || $1 == "mpi_nxn_completion") { s += $7 } END { printf "%.6f", s }' "$work/out/profile.stat")
    awk -v a="$stat" -v b="$w" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 2e-6) }' ||
        { fail "profile.stat's waiting $stat s differs from the summary's $w s:"; show "$work/out/profile.stat"; }
    grep -q "waiting [0-9.]* s (estimated from [0-9]* sampled calls, each standing for [0-9]*: ±" sum.out ||
        { fail "the time finding does not say the waiting is estimated:"; show sum.out; }
    # The sample's seed was drawn for this run, and the manifest records it.
    grep -q '"COLLPROF_TIMING_SEED": "[0-9][0-9]*"' "$work/out/manifest.json" ||
        { fail "the manifest does not record the run's sample seed:"; show "$work/out/manifest.json"; }
    # profile.cubex: per call path and rank, the waiting of every pattern
    # together within the time in the calls; summed, the summary's waiting.
    "$cube_values" "$work/out/profile.cubex" >cube.csv 2>&1 || { fail "cube_values failed:"; show cube.csv; }
    awk -F, -v w="$w" '
        /^Cnode ID/ { for (i = 1; i <= NF; i++) { h = $i; gsub(/ /, "", h); col[h] = i }; next }
        col["visits"] && $col["visits"] > 0 {
            s = 0
            for (h in col) if (h ~ /^mpi_(wait_nxn|nxn_completion|latebroadcast|earlyreduce|earlyscan|barrier_wait|barrier_completion)$/) s += $col[h]
            all += s
            if (s > $col["time"] * (1 + 1e-9)) { print "cnode " $1 ", location " $2 ": waiting " s " s above the time " $col["time"] " s"; bad = 1 }
        }
        END { d = all - w; if (d < 0) d = -d; if (d > 2e-6) { print "waiting " all " s in profile.cubex, " w " s in the summary"; bad = 1 }; exit bad }' cube.csv >cube.check ||
        { fail "profile.cubex:"; show cube.check; }
    echo "late tail: summary $w s ±$se s, profile.stat $stat s, the run's exact waiting $truth s; $time_in_calls s in the calls, $unseen s in calls longer than any kept"
    # A sample far too small for the run (32 calls: one in 2,048), whose
    # seed keeps none of the late calls: the estimate cannot know of them,
    # and every output says how much time lies in calls longer than any it
    # kept.
    COLLPROF_OUTPUT_DIR="$work/coarse" COLLPROF_TIMING_MAX_CALLS=32 COLLPROF_TIMING_SEED=1 \
        run coarse 2 yes "$app" $ncalls 600 2500
    [ "$(cat coarse.status)" = 0 ] || { fail "test_late_tail (coarse sample) failed:"; show coarse.err; }
    "$collprof" timings "$work/coarse" >coarse.timings 2>&1
    "$collprof" summary "$work/coarse" >coarse.sum 2>&1
    "$collprof" report "$work/coarse" -o coarse.html >coarse.report 2>&1
    grep -q "^comm 0 Alltoallv: [0-9.]* s of the time in the calls is in calls longer than any the sample kept: their waiting is not known" coarse.timings ||
        { fail "coarse sample: timings does not say what the sample never saw:"; show coarse.timings; }
    grep -q "s of the time is in calls longer than any the sample kept: their waiting is not known" coarse.sum ||
        { fail "coarse sample: the time finding does not say what the sample never saw:"; show coarse.sum; }
    grep -q " s unknown)</td>" coarse.html ||
        { fail "coarse sample: the report does not say what the sample never saw"; }
    ;;

stripped)
    # A stripped program and library (test_stripped, stripped_lib.c): no
    # call site takes the name of the exported function before it; a site
    # without a name is its module and offset.
    app=$1 collprof=$2
    for depth in 1 3; do
        out=$work/out$depth
        COLLPROF_OUTPUT_DIR="$out" COLLPROF_CALLSITE_DEPTH=$depth run prog$depth 2 yes "$app"
        [ "$(cat prog$depth.status)" = 0 ] || { fail "test_stripped failed:"; show prog$depth.err; }
        "$collprof" callsites "$out" >cs$depth.out 2>&1 || { fail "callsites failed:"; show cs$depth.out; }
        grep -q "cpt_tiny" cs$depth.out "$out/manifest.json" &&
            { fail "depth $depth: a call site is named after an exported neighbour:"; show cs$depth.out; }
        for m in "test_stripped+0x" "libcptstripped.so+0x"; do
            grep -q "$m[0-9a-f]* " cs$depth.out ||
                { fail "depth $depth: no site shown as $m...:"; show cs$depth.out; }
        done
        "$collprof" summary "$out" >sum$depth.out 2>&1
        grep -q "cpt_tiny" sum$depth.out && { fail "summary names cpt_tiny:"; show sum$depth.out; }
    done
    ;;

other-mpi)
    # collprof built for one MPI, preloaded into programs of the other (a C
    # program built with the other MPI's mpicc, and, where that is Open MPI,
    # a Python program through mpi4py): each runs exactly as without
    # collprof (output, exit status), with one line on stderr naming both
    # MPIs.  MPIEXEC here is the other MPI's launcher.
    app=$1
    for status in 0 3; do
        run baseline$status 2 no "$app" $status
        run other$status 2 yes "$app" $status
        cp baseline$status.out baseline.out
        cp baseline$status.status baseline.status
        same_as_baseline other$status
        [ "$(grep -c "^collprof:" other$status.err)" = 1 ] &&
            grep -q "^collprof: this program uses .*: this collprof was built for .*; it stands aside and profiles nothing" other$status.err ||
            { fail "exit $status: expected one line saying collprof stands aside:"; show other$status.err; }
        ls -d collprof.* >/dev/null 2>&1 && fail "exit $status: a profile was written"
        # Where collprof was built for both MPIs, the line names the other
        # one's library, which must be there.
        # Preloaded by hand: the advice is to preload that one or use
        # collprof run.
        named=$(sed -n 's/.*(\(\/[^ ]*\) would: preload it instead, or start the program with `collprof run`, which picks it)$/\1/p' other$status.err)
        if [ -e "$(dirname "$lib")/libcollprof-$([ "$LAUNCH_FLAVOR" = openmpi ] && echo openmpi || echo mpich).so" ]; then
            [ -n "$named" ] && [ -r "$named" ] ||
                { fail "exit $status: the line does not name the other MPI's collprof, there to preload:"; show other$status.err; }
        fi
    done
    # The other MPI's launcher itself preloaded (it loads that MPI's
    # libraries but never calls MPI): not a word.
    LD_PRELOAD=$lib timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS -n 1 /bin/true >launcher.out 2>&1
    grep -q "collprof" launcher.out && { fail "the launcher, preloaded, printed:"; show launcher.out; }
    if [ "$LAUNCH_FLAVOR" = openmpi ] && /usr/bin/python3 -c "import mpi4py" 2>/dev/null; then
        run pybase 2 no /usr/bin/python3 "$mpi4py_app" 5
        run py 2 yes /usr/bin/python3 "$mpi4py_app" 5
        cp pybase.out baseline.out
        cp pybase.status baseline.status
        same_as_baseline py
        [ "$(grep -c "^collprof:" py.err)" = 1 ] || { fail "mpi4py: expected one collprof line:"; show py.err; }
    fi
    ;;

collprof-run)
    # `mpiexec -n 2 collprof run PROGRAM`: the launcher starts collprof run
    # for each rank, which preloads the library built for the program's MPI
    # (as the manifest names it) and becomes the program.  Same
    # output and status as without; a whole profile, checked; where this
    # launcher is Open MPI's and mpi4py is installed, `collprof run python3`
    # too.  Then what `collprof run` says of a program it cannot run.
    miniapp=$1 collprof=$2
    title=MPICH
    [ "$LAUNCH_FLAVOR" = openmpi ] && title="Open MPI"
    run baseline 2 no "$miniapp" 6 2
    COLLPROF_OUTPUT_DIR="$work/out" run profiled 2 no "$collprof" run "$miniapp" 6 2
    same_as_baseline profiled
    grep -q "^collprof: wrote .* to $work/out" profiled.err || { fail "no profile written:"; show profiled.err; }
    "$collprof" check "$work/out" >check.out 2>&1 || { fail "check failed:"; show check.out; }
    "$collprof" summary "$work/out" >summary.out 2>&1
    grep -q "^MPI library: *$title" summary.out ||
        { fail "expected the run to be profiled by the collprof of $title:"; show summary.out; }
    [ "$(awk '$1 == 0 && $4 == "Alltoallv" { print $5 }' summary.out)" = 6 ] ||
        { fail "expected 6 Alltoallv calls on communicator 0 (the halo exchanges):"; show summary.out; }
    # Which library it chose and why: in the manifest, and said once with
    # COLLPROF_VERBOSE=1.
    flavor=mpich
    [ "$LAUNCH_FLAVOR" = openmpi ] && flavor=openmpi
    grep -q "\"collprof run\": \"[^\"]*libcollprof-$flavor\.so ($title: [^\"]*is linked with libmpi" "$work/out/manifest.json" ||
        { fail "the manifest does not record the library collprof run chose and why:"; show "$work/out/manifest.json"; }
    COLLPROF_VERBOSE=1 COLLPROF_OUTPUT_DIR="$work/verbose" run verbose 2 no "$collprof" run "$miniapp" 6 2
    [ "$(grep -c "^collprof run: profiling with [^ ]*libcollprof-$flavor\.so ($title: .* is linked with libmpi" verbose.err)" = 1 ] ||
        { fail "COLLPROF_VERBOSE=1: collprof run does not say once which library it chose:"; show verbose.err; }
    if [ "$LAUNCH_FLAVOR" = openmpi ] && /usr/bin/python3 -c "import mpi4py" 2>/dev/null; then
        run pybase 2 no /usr/bin/python3 "$mpi4py_app" 5
        COLLPROF_OUTPUT_DIR="$work/py" run py 2 no "$collprof" run /usr/bin/python3 "$mpi4py_app" 5
        cp pybase.out baseline.out
        cp pybase.status baseline.status
        same_as_baseline py
        "$collprof" check "$work/py" >pycheck.out 2>&1 || { fail "mpi4py: check failed:"; show pycheck.out; }
    fi
    # A collprof library preloaded by the launcher too (here the default
    # MPI's, which may be the other MPI's): it gives way to the one
    # collprof run chooses, one profile, one line.
    COLLPROF_OUTPUT_DIR="$work/both" run both 2 yes "$collprof" run "$miniapp" 6 2
    cp profiled.out baseline.out
    same_as_baseline both
    [ "$(grep -c "^collprof: wrote" both.err)" = 1 ] || { fail "preloaded and run: expected one profile:"; show both.err; }
    "$collprof" check "$work/both" >both.check 2>&1 || { fail "preloaded and run: check failed:"; show both.check; }
    # Under Slurm the job's id names its step too (as Slurm writes it), in
    # the default directory's name and the manifest.  Given to the ranks
    # only: the launcher must not think it runs under Slurm.
    if [ "$LAUNCH_FLAVOR" = mpich ]; then
        jobenv="-genv SLURM_JOB_ID 4242 -genv SLURM_STEP_ID 3"
    else
        jobenv="-x SLURM_JOB_ID=4242 -x SLURM_STEP_ID=3"
    fi
    mkdir -p "$work/jobdir"
    (cd "$work/jobdir" && timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $jobenv -n 2 \
        "$collprof" run "$miniapp" 6 2 >../job.out 2>../job.err)
    jobout=$(ls -d "$work/jobdir"/collprof.4242.3.* 2>/dev/null | head -1)
    [ -n "$jobout" ] && grep -q '"job": "4242.3"' "$jobout/manifest.json" ||
        { fail "SLURM_JOB_ID 4242, SLURM_STEP_ID 3: expected collprof.4242.3.* and job 4242.3:"; show job.err; ls "$work/jobdir" >&2; }
    # The advice fits: collprof run told to take the other MPI's library for
    # this program says so, and how to tell it otherwise.
    other=mpich
    [ "$flavor" = mpich ] && other=openmpi
    COLLPROF_OUTPUT_DIR="$work/wrong" run wrong 2 no "$collprof" run --mpi $other "$miniapp" 6 2
    cp profiled.out baseline.out
    same_as_baseline wrong
    if [ -e "$(dirname "$lib")/libcollprof-$other.so" ]; then
        grep -q "it stands aside and profiles nothing (.* would; \`collprof run\` chose this one, .*--mpi $other.*: tell it \`collprof run --mpi $flavor\` or COLLPROF_MPI=$flavor)" wrong.err ||
            { fail "collprof run --mpi $other: the stand-aside line does not say how to tell collprof run:"; show wrong.err; }
    else # a build for this MPI only
        grep -q "^collprof run: .* has no collprof library here (libcollprof-$other.so): the program runs without profiling" wrong.err ||
            { fail "collprof run --mpi $other: no word that there is no library for it:"; show wrong.err; }
    fi
    # An interpreter names no MPI: its mpi4py does, whatever a launcher's
    # variables say (PMI_RANK: MPICH's PMI, which srun --mpi=pmi2 also sets).
    if /usr/bin/python3 -c "import mpi4py" 2>/dev/null; then
        mpi4py_lib=$(/usr/bin/python3 -c "import importlib.util as u; print(u.find_spec('mpi4py.MPI').origin)")
        want=mpich
        readelf -d "$mpi4py_lib" 2>/dev/null | grep -q "libmpi\.so\.40" && want=openmpi
        PMI_RANK=0 COLLPROF_VERBOSE=1 "$collprof" run /usr/bin/python3 -c pass >py4.out 2>&1
        grep -q "^collprof run: profiling with [^ ]*libcollprof-$want\.so ([^:]*: its mpi4py, $mpi4py_lib, is linked with libmpi" py4.out ||
            { fail "collprof run python3: the MPI of its mpi4py ($want) not chosen:"; show py4.out; }
    fi
    "$collprof" run ./no-such-program >missing.out 2>&1
    [ $? = 127 ] && grep -q "^collprof run: cannot run ./no-such-program: No such file or directory$" missing.out ||
        { fail "a missing program: expected exit 127 and the reason:"; show missing.out; }
    "$collprof" run --mpi lam "$miniapp" >bad.out 2>&1
    [ $? = 2 ] && grep -q "expected mpich or openmpi" bad.out || { fail "--mpi lam: expected a usage error:"; show bad.out; }
    ;;

mpi4py)
    # A real stripped module: mpi4py's MPI extension (Debian's python3-mpi4py,
    # built on Open MPI) exports one function, PyInit_MPI, far from its call
    # sites; no site may take its name.  Skipped (77) where this MPI's
    # Python binding is not installed.
    collprof=$1
    [ "$LAUNCH_FLAVOR" = openmpi ] && /usr/bin/python3 -c "import mpi4py" 2>/dev/null ||
        { echo "no mpi4py for this MPI ($LAUNCH_FLAVOR): skipped"; exit 77; }
    run baseline 2 no /usr/bin/python3 "$mpi4py_app" 20
    COLLPROF_OUTPUT_DIR="$work/out" run prog 2 yes /usr/bin/python3 "$mpi4py_app" 20
    same_as_baseline prog
    "$collprof" callsites "$work/out" >cs.out 2>&1 || { fail "callsites failed:"; show cs.out; }
    grep -q "PyInit_MPI" cs.out "$work/out/manifest.json" &&
        { fail "a call site is named after PyInit_MPI, which does not hold it:"; show cs.out; }
    grep -q "MPI\.cpython.*\.so+0x[0-9a-f]* .*Allreduce" cs.out ||
        { fail "the Allreduce site is not shown as its module and offset:"; show cs.out; }
    ;;

rebuilt)
    # The program file is replaced by another build after the run (here:
    # another program at the same path).  The run resolved its lines at
    # finalize against the build that ran: they are still shown, never the
    # new file's.  A profile without them (an older one: the manifest's
    # lines taken out) looks its lines up only in a file of the recorded
    # build-id, so it says the module changed instead.
    app=$1 other=$2 collprof=$3
    cp "$app" "$work/prog"
    COLLPROF_OUTPUT_DIR="$work/out" COLLPROF_CALLSITE_DEPTH=1 run prog 2 yes "$work/prog"
    [ "$(cat prog.status)" = 0 ] || { fail "the program failed:"; show prog.err; }
    grep -q '"modules": {"[^"]*prog": "[0-9a-f]\{8,\}"' "$work/out/manifest.json" ||
        { fail "manifest.json does not record the program's build-id:"; show "$work/out/manifest.json"; }
    grep -q '"file": "[^"]*test_late_rank.c", "line": [0-9]' "$work/out/manifest.json" ||
        { fail "manifest.json does not hold the lines of the run:"; show "$work/out/manifest.json"; }
    "$collprof" callsites "$work/out" >before.out 2>&1
    grep -q "test_late_rank.c:[0-9]" before.out || { fail "no lines before the rebuild:"; show before.out; }
    cp "$other" "$work/prog"
    "$collprof" callsites "$work/out" >after.out 2>&1 || { fail "callsites failed:"; show after.out; }
    cmp -s before.out after.out || { fail "callsites changed with the rebuild:"; show after.out; }
    "$collprof" summary "$work/out" >sum.out 2>&1
    grep -q "test_callsites.c:" sum.out && { fail "summary shows lines of another build:"; show sum.out; }
    "$collprof" complete "$work/out" >complete.out 2>&1
    grep -q "left without lines: their module was rebuilt" complete.out ||
        { fail "complete does not say the module changed (its regions):"; show complete.out; }
    # The same profile without the lines of the run.
    cp -r "$work/out" "$work/old"
    sed -i -E 's/, "file": "[^"]*", "line": [0-9]+//' "$work/old/manifest.json"
    sed -i -E 's/\{"name": ("[^"]*"), "bytes": [0-9]+(, "crc32": [0-9]+)?\}/\1/g' "$work/old/manifest.json"
    "$collprof" callsites "$work/old" >old.out 2>&1 || { fail "callsites failed:"; show old.out; }
    grep -q "\.c:[0-9]" old.out && { fail "lines of the new build shown as the run's:"; show old.out; }
    grep -q "prog+0x[0-9a-f]* (module rebuilt since the run: no lines)" old.out ||
        { fail "callsites does not say the module changed:"; show old.out; }
    ;;

callsites)
    # test_callsites: Allreduce from f_one (call 0), f_two (1-2), f_three
    # (3-5), a shared library (6-9) and two lines of f_four (10, 11-12),
    # each with its own count.
    app=$1 collprof=$2
    COLLPROF_OUTPUT_DIR="$work/out" COLLPROF_CALLSITE_DEPTH=2 run prog 2 yes "$app"
    [ "$(cat prog.status)" = 0 ] || { fail "test_callsites failed:"; show prog.err; }
    "$collprof" callsites "$work/out" >cs.out 2>cs.err || { fail "collprof callsites failed:"; show cs.err; }
    for f in "f_one  *test_callsites.c:[0-9]* .* 2 " "f_two  *test_callsites.c:[0-9]* .* 4 " \
             "f_three  *test_callsites.c:[0-9]* .* 6 " "cpt_lib_allreduce  *callsite_lib.c:[0-9]* *libcptcallsite.so .* 8 " \
             "f_four  *test_callsites.c:[0-9]* .* 2 " "f_four  *test_callsites.c:[0-9]* .* 4 "; do
        grep -q -- "$f" cs.out || { fail "collprof callsites: no line matching '$f':"; show cs.out; }
    done
    [ "$(awk '$2 == "f_four" { print $3 }' cs.out | sort -u | wc -l)" = 2 ] ||
        { fail "collprof callsites: f_four's two calls are not on two lines:"; show cs.out; }
    id=$(awk '$2 == "f_two" { print $1 }' cs.out)
    "$collprof" summary "$work/out" --callsite "$id" >sum.out 2>&1 || fail "summary --callsite $id failed"
    grep -q "Allreduce  *2  *1  *1  *32  *2 calls (1-2)" sum.out ||
        { fail "summary --callsite $id: expected the 2 calls 1-2 of f_two:"; show sum.out; }
    "$collprof" matrix "$work/out" --comm 0 --collective Allreduce --call 1 --callsite "$id" \
        >m1.out 2>&1 || { fail "matrix --call 1 --callsite $id failed:"; show m1.out; }
    "$collprof" matrix "$work/out" --comm 0 --collective Allreduce --call 0 --callsite "$id" \
        >m0.out 2>&1
    [ $? = 1 ] && grep -q "was not issued from call path $id" m0.out ||
        { fail "matrix --call 0 --callsite $id: expected exit 1, 'not issued from call path':"; show m0.out; }
    "$collprof" summary "$work/out" --callsite 9999 >bad.out 2>&1
    [ $? = 1 ] && grep -q "no call path 9999" bad.out || { fail "summary --callsite 9999:"; show bad.out; }
    "$collprof" check "$work/out" >check.out 2>&1 || { fail "collprof check failed:"; show check.out; }
    # The Allreduce's calls come from six call paths: its findings name no
    # one site for them ("Allreduce at ..." would be false).
    "$collprof" summary "$work/out" --all >all.out 2>&1 || fail "summary --all failed"
    grep -q "^  [a-z]*: communicator 0[^:]*, Allreduce at " all.out &&
        { fail "a finding names one call site for calls from six:"; show all.out; }
    # collprof complete adds the source lines to profile.cubex (f_one,
    # f_two, f_three, f_four, main, cpt_lib_allreduce; six call sites), once;
    # the profile still checks, and callsites still says the same
    "$collprof" complete "$work/out" >complete.out 2>&1 &&
        grep -q "source lines of 6 of 6 user regions, file and line of 6 of 6 MPI call sites" complete.out ||
        { fail "collprof complete:"; show complete.out; }
    "$collprof" complete "$work/out" >complete2.out 2>&1 &&
        grep -q "source lines of 0 of 0 user regions, file and line of 6 of 6 MPI call sites" complete2.out ||
        { fail "collprof complete, again: the regions should be complete already:"; show complete2.out; }
    "$collprof" check "$work/out" >check2.out 2>&1 || { fail "collprof check after complete:"; show check2.out; }
    "$collprof" callsites "$work/out" >cs2.out 2>&1 && cmp -s cs.out cs2.out ||
        { fail "collprof callsites changed after complete:"; show cs2.out; }
    "$collprof" complete "$work/nothere" >bad2.out 2>&1
    [ $? = 1 ] && grep -q "nothere" bad2.out || { fail "complete of a missing directory:"; show bad2.out; }
    cat cs.out
    ;;

late-rank)
    # test_late_rank: the last rank sleeps before each of 10 Alltoallv at one
    # line; the findings must name that rank, that line, and the waiting.
    app=$1 collprof=$2 slowest=$3 n=3
    COLLPROF_OUTPUT_DIR="$work/out" run prog $n yes "$app"
    [ "$(cat prog.status)" = 0 ] || { fail "test_late_rank failed:"; show prog.err; }
    set -- $(sed -n 's/^late-rank: line \([0-9]*\) delay \([0-9.]*\) ranks.*/\1 \2/p' prog.out)
    line=${1:-none} delay=${2:-0} late=$((n - 1))
    # timings.cpt's slowest calls of the job, merged up a tree of the ranks:
    # the 10 slowest are Alltoallv calls in which ranks 0 and 1 waited about
    # the delay (20 such calls), from both ranks, slowest first.
    "$slowest" "$work/out/timings.cpt" >slow.out 2>&1 || { fail "cpt_slowest failed:"; show slow.out; }
    awk -v d="$delay" '$1 == "slow" { n++; if ($2 != "Alltoallv" || $4 < 0.8 * d || $3 == 2) bad++;
                                       if (n > 1 && $4 > prev) bad++; prev = $4; r[$3] = 1 }
                       END { exit !(n == 10 && !bad && (0 in r) && (1 in r)) }' slow.out ||
        { fail "the job's slowest calls are not the 10 waits of ranks 0 and 1 in Alltoallv:"; show slow.out; }
    "$collprof" summary "$work/out" --all >sum.out 2>sum.err || { fail "collprof summary failed:"; show sum.err; }
    # The share of the run: the late rank spends least of its run in collectives.
    grep -q "^  share: .* least world rank $late (host [^)]*) [0-9.]*%, most world rank [01] " sum.out ||
        { fail "no share finding with world rank $late least:"; show sum.out; }
    # The cause first: the first finding is the waiting for the late rank,
    # in Alltoallv, at the late call's site (function, file and line).
    first=$(sed -n '/^findings/{n;p;q}' sum.out)
    echo "$first" | grep -q "^  [0-9.]* s  waiting: communicator 0, Alltoallv at exchange (.*test_late_rank\.c:$line): world rank $late " ||
        { fail "the first finding is not the waiting for world rank $late at exchange (test_late_rank.c:$line):"; show sum.out; }
    # Each finding that explains time leads with the seconds it explains,
    # and they descend: the order of the list reads as its ranking.
    sed -n '/^findings/,/^$/p' sum.out | awk '/^  [0-9.]+ s  / { if (n++ && $1 > last) bad = 1; last = $1 }
        END { exit !(n >= 2 && !bad) }' ||
        { fail "the findings do not lead with descending seconds explained:"; show sum.out; }
    # ... each the seconds it explains: the waiting finding's, the others'
    # waiting for the late rank that it names.
    echo "$first" | awk '{ lead = $1; for (i = 1; i < NF; i++) if ($i == "wait" && $(i + 2) == "s") w = $(i + 1)
        exit !(w != "" && lead == w) }' ||
        { fail "the waiting finding does not lead with the waiting it names:"; show sum.out; }
    # One line per fact: the series' time line names the same site, and
    # no call-site line repeats it.
    grep -q "^  [0-9.]* s  time: communicator 0 ([0-9]* ranks), Alltoallv at exchange (.*test_late_rank\.c:$line): " sum.out ||
        { fail "the time line of the Alltoallv does not name its call site:"; show sum.out; }
    grep -q "^  [0-9.]* s  callsite: exchange (.*test_late_rank\.c:$line)" sum.out &&
        { fail "a call-site line repeats the series' lines:"; show sum.out; }
    # Who is waited for, how often, how long: the other ranks each wait
    # about the delay in each call (0.8 to 1.5 times that, oversubscribed).
    set -- $(sed -n "s/^  [0-9.]* s  waiting: communicator 0, Alltoallv at [^:]*:[0-9]*): world rank $late (host [^)]*) arrives last in \([0-9]*\) of \([0-9]*\) timed calls; the others wait \([0-9.]*\) s.*/\1 \2 \3/p" sum.out)
    if [ $# != 3 ] || [ "$1" -lt 8 ] || [ "$2" != 10 ] ||
       ! awk -v w="$3" -v d="$delay" -v n=$n 'BEGIN { e = (n - 1) * 10 * d; exit !(w >= 0.8 * e && w <= 1.5 * e) }'; then
        fail "no waiting finding: world rank $late last in 8 or more of 10 calls, the others waiting $(awk -v d="$delay" -v n=$n 'BEGIN { print (n - 1) * 10 * d }') s (0.8-1.5x):"
        show sum.out
    fi
    # ... and the same findings, in the same order, in the export
    "$collprof" export "$work/out" >exp.json 2>exp.err || { fail "collprof export failed:"; show exp.err; }
    sed -n '/^findings/,/^$/{/^  /s/^  //p}' sum.out >sum.findings
    python3 -c 'import json, sys; print("\n".join(f["text"] for f in json.load(open(sys.argv[1]))["findings"]))' exp.json >exp.findings ||
        fail "collprof export: no findings list"
    cmp -s sum.findings exp.findings || { fail "export's findings differ from summary's:"; show exp.findings; }
    # The report's pictures say the same: rank 2 waits least, the late
    # call's site costs most, the share over the run is a percentage.
    "$collprof" report "$work/out" -o report.html >report.out 2>&1 ||
        { fail "collprof report failed:"; show report.out; }
    python3 - report.html "$late" "$line" <<'PY' || fail "the report's pictures are wrong (above)"
import re, sys
html = open(sys.argv[1]).read()
late, line = sys.argv[2], sys.argv[3]
bad = []
def bars(chart):
    m = re.search(r'<svg id="%s".*?</svg>' % chart, html, re.S)
    if not m:
        bad.append("no chart %s" % chart)
        return []
    return re.findall(r'<g class="b" data-x="([^"]*)"(?: data-path="\d+")? data-total="([^"]*)"(?: data-part="([^"]*)")?', m.group(0))
w = bars("chart-waiting")
if w and min(w, key=lambda b: float(b[2]))[0] != late:
    bad.append("chart-waiting: the rank waiting least is %s, not %s" % (min(w, key=lambda b: float(b[2]))[0], late))
cs = bars("chart-callsites")
if cs and not cs[0][0].startswith("exchange test_late_rank.c:%s" % line):
    bad.append("chart-callsites: first is %r" % cs[0][0])
sh = bars("chart-share")
if len(sh) != 60 or not all(0 <= float(b[1]) <= 100 for b in sh) or max(float(b[1]) for b in sh) < 50:
    bad.append("chart-share: %r" % sh[:5])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
    # ... and the page renders in a browser without a console message.
    chromium=$(command -v chromium || command -v chromium-browser || true)
    if [ -n "$chromium" ]; then
        timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu --window-size=1000,1400 \
            --screenshot="$work/report.png" --enable-logging=stderr --v=0 "file://$work/report.html" \
            >chromium.out 2>chromium.err
        [ -s "$work/report.png" ] && [ "$(wc -c <"$work/report.png")" -gt 20000 ] ||
            { fail "chromium wrote no screenshot:"; show chromium.err; }
        ! grep -q ':CONSOLE' chromium.err ||
            { fail "the report logs to the console:"; grep ':CONSOLE' chromium.err >&2; }
        echo "screenshot of the report: $work/report.png"
        # No table scrolls at 1400 px, no chart sticks out at 700 px, the
        # captions name the colours the bars have.
        python3 "$(dirname "$0")/../report/report_browser.py" --widths report.html >widths.out 2>&1 ||
            { fail "the report at 1400 and 700 px:"; show widths.out; }
    else
        echo "chromium not found (scripts/install-deps.sh installs it): the rendering is not checked"
    fi
    # diff against a run where the rank is twice as late: the late call's
    # site, matched by its functions and line, waits about twice as long.
    COLLPROF_OUTPUT_DIR="$work/out2" run prog2 $n yes "$app" "$(awk -v d="$delay" 'BEGIN { print 2 * d }')"
    [ "$(cat prog2.status)" = 0 ] || { fail "test_late_rank (twice the delay) failed:"; show prog2.err; }
    "$collprof" diff "$work/out" "$work/out2" >diff.out 2>diff.err || { fail "collprof diff failed:"; show diff.err; }
    r=$(sed -n "s/^exchange\( < [^ ]*\)* at test_late_rank\.c:$line  .* \([0-9.]*\)x$/\2/p" diff.out)
    [ -n "$r" ] && awk -v r="$r" 'BEGIN { exit !(r >= 1.4 && r <= 3) }' ||
        { fail "diff: expected the site 'exchange at test_late_rank.c:$line' waiting about 2x as long:"; show diff.out; }
    "$collprof" diff "$work/out" "$work/out2" --format json >diff.json 2>&1 &&
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); s = [x for x in d["callsites"] if x["site"].startswith("exchange") and ":%s" % sys.argv[2] in x["site"]]; sys.exit(not (d["has_callsites"] == [True, True] and len(s) == 1 and s[0]["present"] == [True, True] and s[0]["wait"][1] > 1.4 * s[0]["wait"][0]))' diff.json "$line" ||
        { fail "diff --format json: the call site:"; show diff.json; }
    # Call paths start at main, however deep they are recorded: the C
    # runtime's frames above it (_start, __libc_start_main) are dropped.
    COLLPROF_OUTPUT_DIR="$work/out8" COLLPROF_CALLSITE_DEPTH=8 run prog8 $n yes "$app"
    "$collprof" callsites "$work/out8" >cs8.out 2>&1 || { fail "collprof callsites (depth 8) failed:"; show cs8.out; }
    [ "$(awk 'NR > 1 { print $NF, $(NF-1), $(NF-2) }' cs8.out | sort | tr '\n' ';')" = "main < exchange;main < tidy;" ] ||
        { fail "depth 8: expected the paths 'exchange < main' and 'tidy < main' only:"; show cs8.out; }
    # With the rank late by 5 ms instead (50 ms in all), the cause is still
    # named, and ranked by the time it explains: on a quiet machine first; on
    # a loaded one the other calls may really wait longer (a busy-polling
    # rank descheduled for a time slice in each of tidy's 10 Allreduce calls
    # is 100 ms), and then only findings that explain more come before it.
    # (2 ranks, last: run() sets n.)
    COLLPROF_OUTPUT_DIR="$work/out5" run prog5 2 yes "$app" 0.005
    "$collprof" summary "$work/out5" >sum5.out 2>&1
    sed -n '/^findings/,/^  share:/p' sum5.out | awk -v line="$line" '
        /^  [0-9.]+ s  / && !cause {
            if ($0 ~ "^  [0-9.]+ s  waiting: communicator 0, Alltoallv at exchange \\(.*test_late_rank\\.c:" line "\\): world rank 1 ")
                cause = $1
            else
                above[++n] = $1
        }
        END {
            if (!cause) exit 1
            for (i = 1; i <= n; i++) if (above[i] + 0 < cause + 0) exit 1
        }' ||
        { fail "5 ms late: the waiting for world rank 1 at exchange (about 0.05 s) is missing, or ranked below a finding that explains less:"; show sum5.out; }
    sed -n '/^call sites/,$p' diff.out
    sed -n '/^findings/,/^$/p' sum.out
    ;;

cube-tools)
    # cubelib's own tools read profile.cubex as collprof's parser does:
    # the metric tree (Time > MPI > collective communication > the wait
    # states), the call tree (main once, at the top) and every value
    # (cube_dump), and its sanity checks pass (cube_sanity).  Without them:
    # skipped.
    app=$1 values=$2 collprof=$3 callsites=${4:-} nofin=${5:-} n=3
    tools=$(cd "$(dirname "$0")/../.." && pwd)/../shared/tools/cube/bin
    dump=${CUBE_DUMP:-$tools/cube_dump}
    sanity=${CUBE_SANITY:-$(dirname "$dump")/cube_sanity}
    if [ ! -x "$dump" ] || [ ! -x "$sanity" ]; then
        echo "cubelib's cube_dump/cube_sanity not found (CUBE_DUMP, or ../shared/tools/cube/bin): skipped"
        exit 77
    fi
    COLLPROF_OUTPUT_DIR="$work/out" COLLPROF_CALLSITE_DEPTH=8 run prog $n yes "$app"
    [ "$(cat prog.status)" = 0 ] || { fail "test_late_rank failed:"; show prog.err; }
    cube="$work/out/profile.cubex"
    # completed with the source lines first (collprof complete), as a
    # Scalasca user's report would be: regions with lines, call sites
    "$collprof" complete "$work/out" >complete.out 2>&1 &&
        grep -q "source lines of 3 of 3 user regions, file and line of 2 of 2 MPI call sites" complete.out ||
        { fail "collprof complete:"; show complete.out; }
    line=$(sed -n 's/^late-rank: line \([0-9]*\) .*/\1/p' prog.out)
    "$values" "$cube" >ours.txt 2>ours.err || { fail "our parser:"; show ours.err; }
    grep -q "^cnode 3 MPI_Alltoallv $line\$" ours.txt ||
        { fail "the MPI_Alltoallv node's call site is not line $line:"; show ours.txt; }
    "$collprof" callsites "$work/out" | grep -q " exchange  test_late_rank.c:$line " ||
        fail "collprof callsites disagrees with the Cube file on line $line"
    "$dump" -w "$cube" >dump_w.txt 2>dump_w.err || { fail "cube_dump -w failed:"; show dump_w.err; }
    "$dump" -m all -z excl -s csv2 "$cube" >dump_v.txt 2>dump_v.err ||
        { fail "cube_dump -m all failed:"; show dump_v.err; }
    python3 - ours.txt dump_w.txt dump_v.txt <<'PY' || fail "cube_dump reads profile.cubex otherwise (above)"
import re, sys
ours = open(sys.argv[1]).read().splitlines()
dw = open(sys.argv[2]).read()
dv = open(sys.argv[3]).read().splitlines()
bad = []
metrics = [(l.split()[1], int(l.split()[2])) for l in ours if l.startswith("metric ")]
theirs = []
for l in dw.split("METRIC DIMENSION")[1].split("CALLTREE DIMENSION")[0].splitlines():
    m = re.search(r"\( id=\d+, (\S+), ", l)
    if m:  # the depth from the drawing of the tree: "|-" two columns a level
        theirs.append((m.group(1), l.index("|-") // 2 if "|-" in l else 0))
if metrics != theirs:
    bad.append("metric tree: ours %r, cube_dump %r" % (metrics, theirs))
if ("mpi_wait_nxn", 3) not in metrics:
    bad.append("metric tree: expected Time > MPI > collective communication > mpi_wait_nxn")
tree = [(int(l.split()[1]), l.split()[2]) for l in ours if l.startswith("cnode ")]
part = dw.split("CALL TREE")[1].split("SYSTEM DIMENSION")[0]
ctree = []
for l in part.splitlines():
    m = re.match(r"^([ |]*-)?(\S+)\s+\[", l)
    if m:  # the name after the drawing of the tree; its column gives the depth
        ctree.append((len(m.group(1) or "") // 2, m.group(2)))
if [t[1] for t in tree] != [t[1] for t in ctree]:
    bad.append("call tree: ours %r, cube_dump %r" % (tree, ctree))
if "_start" in [t[1] for t in ctree] or [t[1] for t in ctree].count("main") != 1:
    bad.append("call tree: expected main once, at the top, no _start: %r" % ctree)
csv_ours = ours[ours.index(next(l for l in ours if l.startswith("Cnode ID"))):]
if len(csv_ours) != len(dv):
    bad.append("values: %d lines, cube_dump %d" % (len(csv_ours), len(dv)))
for a, b in zip(csv_ours[1:], dv[1:]):
    x, y = [float(v) for v in a.split(",")], [float(v) for v in b.split(",")]
    if len(x) != len(y) or any(abs(p - q) > 1e-5 * max(1, abs(p)) for p, q in zip(x, y)):
        bad.append("values: ours %s, cube_dump %s" % (a, b))
        break
for b in bad:
    print(b)
print("%d metrics, %d call-tree nodes, %d values compared" % (len(metrics), len(tree), (len(csv_ours) - 1) * len(metrics)))
sys.exit(1 if bad else 0)
PY
    "$sanity" "$cube" >sanity.txt 2>&1 || { fail "cube_sanity failed:"; show sanity.txt; }
    ! grep -qi "fail\|error" sanity.txt || { fail "cube_sanity reports a problem:"; show sanity.txt; }
    # Cube's own exclusive values (a parent less its children) are never
    # negative: the metric tree is stored inclusive, as Cube stores it
    grep -Eq "No negative exclusive metrics \.\.\. ([0-9]+) / \1[^0-9]" sanity.txt ||
        { fail "cube_sanity: negative exclusive values:"; show sanity.txt; }
    grep -q "Proper line numbers \.\.\. 3 / 6" sanity.txt ||
        { fail "cube_sanity: expected proper line numbers for the 3 user regions:"; show sanity.txt; }
    set -- $(sed -n 's/^\texchange:exchange\t *( id=[0-9]*, \([0-9-]*\), \([0-9-]*\), .*/\1 \2/p' dump_w.txt)
    [ $# = 2 ] && [ "$1" -le "$line" ] && [ "$line" -le "$2" ] ||
        fail "cube_dump: the region exchange should span line $line (begin, end: $*)"
    cat sanity.txt
    # A function calling MPI from two lines (test_callsites' f_four) is one
    # node, with one MPI node per call site below it, each with its line
    # after collprof complete; cubelib reads the tree so and finds it sane
    [ -n "$callsites" ] || { fail "cube-tools: no test_callsites given"; exit 1; }
    COLLPROF_OUTPUT_DIR="$work/cs" COLLPROF_CALLSITE_DEPTH=2 run cs 2 yes "$callsites"
    [ "$(cat cs.status)" = 0 ] || { fail "test_callsites failed:"; show cs.err; }
    "$collprof" complete "$work/cs" >cs_complete.out 2>&1 || { fail "complete:"; show cs_complete.out; }
    "$dump" -w "$work/cs/profile.cubex" >cs_dump.txt 2>&1 || { fail "cube_dump -w:"; show cs_dump.txt; }
    "$values" "$work/cs/profile.cubex" >cs_ours.txt 2>&1 || { fail "our parser:"; show cs_ours.txt; }
    "$collprof" callsites "$work/cs" >cs_sites.txt 2>&1 || { fail "callsites:"; show cs_sites.txt; }
    python3 - cs_dump.txt cs_ours.txt cs_sites.txt <<'PY' || fail "f_four in the Cube call tree (above)"
import re, sys
dump = open(sys.argv[1]).read().split("CALL TREE")[-1].split("SYSTEM DIMENSION")[0]
tree = []
for l in dump.splitlines():
    m = re.match(r"^([ |]*-)?(\S+)\s+\[", l)
    if m:
        tree.append((len(m.group(1) or "") // 2, m.group(2)))
bad = []
if [n for _, n in tree].count("f_four") != 1:
    bad.append("cube_dump: f_four %d times, expected once: %r" % ([n for _, n in tree].count("f_four"), tree))
else:
    i = [n for _, n in tree].index("f_four")
    d = tree[i][0]
    kids = []
    for depth, name in tree[i + 1:]:
        if depth <= d:
            break
        if depth == d + 1:
            kids.append(name)
    if kids != ["MPI_Allreduce", "MPI_Allreduce"]:
        bad.append("cube_dump: below f_four %r, expected two MPI_Allreduce (one per line)" % kids)
ours = [l.split() for l in open(sys.argv[2]) if l.startswith("cnode ")]
names = [c[2] for c in ours]
lines = []
if "f_four" in names:
    i = names.index("f_four")
    lines = sorted(int(c[3]) for c in ours[i + 1:i + 3] if c[2] == "MPI_Allreduce")
sites = sorted(int(l.split()[2].split(":")[1]) for l in open(sys.argv[3]) if len(l.split()) > 2 and l.split()[1] == "f_four")
if len(sites) != 2 or lines != sites:
    bad.append("the MPI nodes below f_four are at lines %r, collprof callsites says %r" % (lines, sites))
for b in bad:
    print(b)
print("f_four: once, MPI_Allreduce at lines %r" % lines)
sys.exit(1 if bad else 0)
PY
    "$sanity" "$work/cs/profile.cubex" >cs_sanity.txt 2>&1 && ! grep -qi "fail\|error" cs_sanity.txt ||
        { fail "cube_sanity on test_callsites' profile:"; show cs_sanity.txt; }
    # A run without MPI_Finalize: each rank's own profile.cubex (one
    # location: its rank) and the job's, merged by collprof complete, read
    # as cubelib reads them and are sane; the merged one's visits of each
    # MPI node are collprof callsites' rank-calls.
    [ -n "$nofin" ] || { fail "cube-tools: no test_nofinalize given"; exit 1; }
    COLLPROF_OUTPUT_DIR="$work/nf" run nf 2 yes $(launch_keep_going) "$nofin" exit all
    "$collprof" complete "$work/nf" >nf_complete.out 2>&1 || { fail "complete:"; show nf_complete.out; }
    for r in 0 1; do
        "$dump" -w "$work/nf/partial.rank$r/profile.cubex" >nf_dump$r.txt 2>&1 &&
            grep -q "MPI Rank $r (id=0, type=process, rank=$r )" nf_dump$r.txt ||
            { fail "cube_dump: rank $r's own profile.cubex is not one location, rank $r:"; show nf_dump$r.txt; }
    done
    for f in partial.rank0/profile.cubex partial.rank1/profile.cubex profile.cubex; do
        "$sanity" "$work/nf/$f" >nf_sanity.txt 2>&1 && ! grep -qi "fail\|error" nf_sanity.txt ||
            { fail "cube_sanity on the partial profiles' $f:"; show nf_sanity.txt; }
    done
    "$dump" -m visits -z incl -t aggr "$work/nf/profile.cubex" >nf_visits.txt 2>&1 ||
        { fail "cube_dump -m visits:"; show nf_visits.txt; }
    "$collprof" callsites "$work/nf" >nf_sites.txt 2>&1 || { fail "callsites:"; show nf_sites.txt; }
    ours=$(awk 'NR > 1 {n += $6} END {print n + 0}' nf_sites.txt)  # one collective a site here
    theirs=$(awk '$1 ~ /^MPI_/ {n += $NF} END {print n + 0}' nf_visits.txt)
    [ "$ours" -gt 0 ] && [ "$ours" = "$theirs" ] ||
        { fail "the merged profile.cubex has $theirs visits of MPI nodes, collprof callsites $ours rank-calls:"; show nf_visits.txt; show nf_sites.txt; }
    ;;

*)
    echo "usage: $0 miniapp|bad-env|unwritable|non-mpi|exit-code|bad-collectives|callsites|late-rank|cube-tools|collprof-run|... WORKDIR MPIEXEC LIB [ARGS...]" >&2
    exit 2
    ;;
esac

if [ $failed = 0 ]; then
    echo "$case_: PASS"
fi
exit $failed
