#!/bin/sh
# Run one libFuzzer target for a bounded time (meson test, suite 'fuzz'):
#   1. replay every input in regressions/<name>/ (each once crashed it);
#   2. fuzz for COLLPROF_FUZZ_SECONDS (default 8) from a copy of the seed
#      corpus corpus/<name>/, with the dictionary dict/<name>.dict.
# Fails on any crash, leak, sanitizer report, timeout or property violation.
# Writes only into WORKDIR (in the build directory): the source tree is
# read, never written.
#
# usage: run_fuzz.sh FUZZER NAME FUZZ_SOURCE_DIR WORKDIR
#        run_fuzz.sh --skip REASON        (no clang/libFuzzer: exit 77, skipped)
set -eu

if [ "$1" = "--skip" ]; then
    echo "SKIP: $2"
    exit 77
fi
fuzzer=$1 name=$2 src=$3 work=$4
seconds=${COLLPROF_FUZZ_SECONDS:-8}

rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp"
# Round trips write their temporary files here, not in the system's
# temporary directory.
export TMPDIR="$work/tmp"

# libFuzzer's own exit code for a crash is 77, which meson takes for
# "skipped": ask for 1, and map whatever else comes back to a failure.
set -- -error_exitcode=1 -timeout_exitcode=1 -rss_limit_mb=2048 -timeout=5 \
       "-artifact_prefix=$work/artifacts/"
if [ -f "$src/dict/$name.dict" ]; then
    set -- "$@" "-dict=$src/dict/$name.dict"
fi

run() {
    rc=0
    "$fuzzer" "$@" || rc=$?
    if [ "$rc" -ne 0 ]; then
        [ "$rc" -eq 77 ] && rc=1
        echo "FAIL: fuzz target '$name' (exit $rc); inputs in $work/artifacts/:" >&2
        ls -l "$work/artifacts" >&2 || true
        echo "Make each one a regression test: copy it into tests/fuzz/regressions/$name/" >&2
        exit "$rc"
    fi
}

# 1. Regressions: libFuzzer runs each file given by name once.
if [ -d "$src/regressions/$name" ]; then
    n=$(find "$src/regressions/$name" -type f | wc -l)
    if [ "$n" -gt 0 ]; then
        echo "== replaying $n regression input(s) of $name"
        # shellcheck disable=SC2046 # file names are crash-<sha1>: no blanks
        run "$@" $(find "$src/regressions/$name" -type f | sort)
    fi
fi

# 2. Fuzz from a copy of the seeds: libFuzzer adds what it finds to the
#    first corpus directory, which must not be the source tree.
if [ -d "$src/corpus/$name" ]; then
    cp -R "$src/corpus/$name/." "$work/corpus/"
fi
echo "== fuzzing $name for $seconds s"
run "$@" -max_total_time="$seconds" -print_final_stats=1 "$work/corpus"
echo "== $name: no crash in $seconds s"
