#!/bin/sh
# The golden test: profiles fixed programs and compares every output file,
# normalized (normalize.py: times, paths, build ids and run-specific sizes
# masked), with what collprof wrote when the golden files were made.  It
# proves that a change meant to change nothing (the one-job-per-folder
# redesign) changed nothing a user reads.
#
# usage: golden_test.sh GOLDEN_DIR WORK_DIR COLLPROF_EXE FLAVOUR:MPIEXEC:MINIAPP...
#   GOLDEN_DIR/<flavour>/<case>/ holds the expected files.  GOLDEN_UPDATE=1
#   writes them instead (only for a change that is meant to change output:
#   say so in its commit).
# Cases: untimed (COLLPROF_TIMING=off: every file byte for byte, 3 ranks,
# sub-communicators) and timed (call paths of depth 3: the count files, the
# manifest and the Cube's metadata; measured times left out), each with the
# bundled mini-app started by `collprof run` under that MPI's own launcher.
set -u
golden=$1 work=$2 collprof=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../mpi/launcher.sh"
failed=0
rm -rf "$work"
mkdir -p "$work"
for v in $(env | sed -n 's/^\(COLLPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
for spec in "$@"; do
    flavour=${spec%%:*} rest=${spec#*:}
    mpiexec=${rest%%:*} miniapp=${rest#*:}
    launcher_init "$mpiexec"
    for case_ in untimed timed; do
        out=$work/$flavour-$case_
        case $case_ in
        untimed) env="COLLPROF_TIMING=off COLLPROF_CALLSITE_DEPTH=1" n=3 args="6 2" flag= ;;
        timed) env="COLLPROF_CALLSITE_DEPTH=3" n=2 args="4 3" flag=--timed ;;
        esac
        env $env COLLPROF_HOSTNAME=golden COLLPROF_OUTPUT_DIR="$out" \
            timeout -k 5 120 "$mpiexec" $LAUNCH_ARGS -n $n "$collprof" run "$miniapp" $args \
            >"$out.log" 2>&1 || { echo "FAIL: $flavour $case_: the run failed:"; cat "$out.log"; failed=1; continue; }
        python3 "$here/normalize.py" "$out" "$out.norm" $flag || { failed=1; continue; }
        want=$golden/$flavour/$case_
        if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
            rm -rf "$want"
            mkdir -p "$want"
            cp "$out.norm"/* "$want"/
            echo "updated $want"
        elif ! diff -r "$want" "$out.norm" >"$out.diff" 2>&1; then
            echo "FAIL: $flavour $case_: the output differs from the golden files (< golden, > now):"
            head -40 "$out.diff"
            failed=1
        else
            echo "$flavour $case_: $(ls "$want" | wc -l) files as golden"
        fi
    done
done
exit $failed
