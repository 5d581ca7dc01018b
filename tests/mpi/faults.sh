#!/bin/sh
# Runs that end badly, under mpiexec with collprof: each rank that is killed,
# crashes or aborts writes its partial profile, and the application's exit
# status and output are what they are without collprof.  Each check prints
# "FAIL: ..." and the script exits 1 if any failed.
#
# usage: faults.sh CASE WORKDIR MPIEXEC LIB [ARGS...]
#   sigterm ... NOFIN COLLPROF : SIGTERM to every rank after its calls (a batch
#                       system's time limit); every rank's profile exact
#   stuck-in-call ... STUCK COLLPROF : SIGTERM to every rank while rank 0 waits
#                       in an Alltoallv rank 1 never entered: the merged
#                       partial profile names the call and who entered it,
#                       and says why it has no times
#   abort   ... NOFIN COLLPROF : MPI_Abort(MPI_COMM_WORLD, 7) on rank 1
#   fpe, bus, ill, abrt ... NOFIN COLLPROF : rank 1 divides by zero, reads
#                       past a mapped file, traps, calls abort()
#   segv    ... NOFIN COLLPROF : a write through a null pointer on rank 1
#   full-disk ... APP COLLPROF FAILLIB : each file of the profile in turn
#                       cannot be written (ENOSPC, from FAILLIB preloaded
#                       before collprof); the others must be, the manifest
#                       says which is missing and why, the reader reads it
#   registry-incomplete ... APP COLLPROF FAILLIB : rank 1 cannot register
#                       MPI_COMM_WORLD (FAILLIB preloaded before collprof):
#                       the count tables go straight to the leads, the
#                       other ranks' rows exact, rank 1's said missing; wait
#                       states not computed, profile.stat missing with the
#                       reason; the application unchanged
#   planted-links ... APP COLLPROF : symbolic links planted at every name
#                       collprof writes in its output directory point at
#                       victim files: none is written, the profile is
#                       complete and made of regular files
#   reused-dir ... APP COLLPROF : runs into one output directory never
#                       mix: each removes what an earlier one left
#   invalid-call ... APP COLLPROF : a call with a negative count under
#                       MPI_ERRORS_RETURN is kept, marked invalid, in the
#                       profile and in the partial profile
#   refused-calls ... APP COLLPROF : calls the MPI library refuses on one
#                       rank and on every rank (blocking, non-blocking,
#                       persistent), and a collective one rank starts on a
#                       sub-communicator whose peers never call it, and
#                       (Open MPI) NULL counts after repeated calls, a
#                       refused call the call memo counted: the
#                       program ends as without collprof, the profile is
#                       written, the refused calls and the disagreement named
#   foreign-dir ... APP : output directories another user could have
#                       prepared (writable by all, owned by another user)
#                       are refused with one message
# NOFIN is test_nofinalize, which also checks the partial profiles exactly
# (its `check` mode knows every count every rank passed); COLLPROF the
# reader, which must find them.
set -u
case_=$1 work=$2 mpiexec=$3 lib=$4
shift 4
. "$(dirname "$0")/runs.sh"

# said_twice FILE PATTERN: collprof said it at MPI_Init (first) and again at
# MPI_Finalize (last), two messages in all.
said_twice() {
    [ "$(grep -c "^collprof:" "$1")" = 2 ] &&
        grep "^collprof:" "$1" | head -1 | grep "$2" | grep -q "no profile can be written unless" &&
        grep "^collprof:" "$1" | tail -1 | grep "$2" | grep -q "no profile written"
}

# run_killed NAME NRANKS PRELOAD SIGNAL PROGRAM HOW: the program's ranks
# write their pids into NAME.pids/ once their calls are done; then each
# gets SIGNAL at once (one kill command), as from a batch system at its time
# limit.  (MPICH's mpiexec kills the other ranks with SIGKILL as soon as one
# dies of a signal, even with -disable-auto-cleanup: collprof's ranks stay
# half a second after writing for the others to finish.)
# sh -c "$own_status" sh PROGRAM ARGS...: runs PROGRAM, records its own
# exit status (128 + a signal's number) in $CPT_STATUS.rank<R> and exits
# with it, so that mpiexec still sees the rank fail: what a rank died of by
# itself, apart from what the launcher reports for the job.
# (written aside and renamed: the launcher may SIGKILL the shell between
# creating the file and writing it, which must read as "none", not as "")
own_status='"$@"; s=$?; f=$CPT_STATUS.rank${PMI_RANK:-$OMPI_COMM_WORLD_RANK}; echo $s >"$f.part" && mv "$f.part" "$f"; exit $s'
# own NAME RANK: the own_status record of RANK in run NAME, "none" when the launcher
# killed it first
own() { cat "$1.own.rank$2" 2>/dev/null || echo none; }

run_killed() {
    name=$1 n=$2 preload=$3 sig=$4
    shift 4
    rm -rf "$name.pids"
    mkdir -p "$name.pids"
    CPT_PID_DIR=$work/$name.pids run "$name" "$n" "$preload" "$@" &
    pid=$!
    k=0
    while [ "$(ls "$name.pids" | wc -l)" -lt "$n" ] && [ $k -lt 300 ]; do
        sleep 0.1
        k=$((k + 1))
    done
    [ $k -lt 300 ] || fail "$name: the ranks did not all reach the point of the signal"
    sleep 0.2 # every pid file is complete
    # KILL_ONLY=R: the signal to world rank R alone (the launcher ends the others)
    kill "-$sig" $(cat "$name.pids"/rank${KILL_ONLY:-*}.pid)
    wait $pid
    launcher_report "$name.out"
}

# launcher_report FILE...: mpiexec's own report of a rank that died (which
# rank it saw first, with which code and pid, varies from run to run) is
# taken out of the application's output before comparing.
launcher_report() {
    sed -i -e '/^=/d' -e '/^YOUR APPLICATION TERMINATED/d' -e '/^This typically refers/d' \
        -e '/^Please see the FAQ/d' -e '/^$/d' "$@"
}

# reason_is DIR RANK TEXT: the partial manifest of RANK gives TEXT as cause
reason_is() {
    m=$1/partial.rank$2/manifest.json
    if ! grep -q "\"partial_reason\": \".*$3" "$m" 2>/dev/null; then
        fail "rank $2's partial manifest does not give '$3' as the cause:"
        [ -f "$m" ] && grep partial_reason "$m" >&2
    fi
}

# reader_merges DIR STOPPED: collprof, pointed at the output directory of a
# run without MPI_Finalize, finds the partial profiles: summary says why
# ranks stopped (a line matching "stopped: STOPPED"), check finds no
# problem in the merged profile (test_nofinalize checks its counts)
reader_merges() {
    "$collprof" summary "$1" >summary.out 2>&1 || { fail "collprof summary $1:"; show summary.out; }
    grep -q "^stopped: *$2" summary.out ||
        { fail "collprof summary does not say 'stopped: $2':"; show summary.out; }
    "$collprof" check "$1" >check_reader.out 2>&1 || { fail "collprof check $1:"; show check_reader.out; }
    grep "^stopped:\|^no profile:" summary.out
}

nofin=$1 collprof=${2:-}
export COLLPROF_OUTPUT_DIR # test_nofinalize wants it, with or without collprof
case $case_ in
planted-links)
    app=$1 collprof=$2
    run baseline 2 no "$app"
    out=$work/out
    mkdir -p "$out" victims
    names="manifest.json send-counters.rank0.txt recv-counters.rank0.txt profile.cubex
           profile.stat timings.cpt timings.cpt.part send-counters.rank0.txt.part
           recv-counters.rank0.txt.part partial.rank0 partial.rank1"
    # and the temporary names of earlier collprof versions, for the next pids
    next=$(sh -c 'echo $$')
    for name in $names; do
        echo "victim $name" >"victims/$name"
        ln -s "$work/victims/$name" "$out/$name"
        for p in $(seq $((next + 1)) $((next + 40))); do
            ln -s "$work/victims/$name" "$out/$name.tmp.$p"
        done
    done
    COLLPROF_OUTPUT_DIR=$out run profiled 2 yes "$app"
    same_as_baseline profiled
    for name in $names; do
        [ "$(cat "victims/$name")" = "victim $name" ] || fail "the target of a link at $name was written"
    done
    for name in manifest.json send-counters.rank0.txt recv-counters.rank0.txt profile.cubex \
        profile.stat timings.cpt; do
        if [ -L "$out/$name" ] || [ ! -f "$out/$name" ]; then
            fail "$name is not a regular file written by collprof"
        fi
    done
    "$collprof" check "$out" >check.out 2>&1 || { fail "collprof check:"; show check.out; }
    [ "$(grep -c "^collprof:" profiled.err)" = 1 ] ||
        { fail "expected only collprof's final line:"; show profiled.err; }
    # A partial profile: its directory is a planted link (rank 0) or a
    # real directory with links planted in it (rank 1).
    out=$work/partial
    mkdir -p "$out/partial.rank1" victims/dir
    ln -s "$work/victims/dir" "$out/partial.rank0"
    for name in manifest.json send-counters.rank1.txt recv-counters.rank1.txt; do
        echo "victim $name" >"victims/$name"
        ln -s "$work/victims/$name" "$out/partial.rank1/$name"
    done
    COLLPROF_OUTPUT_DIR=$out run partial 2 yes $(launch_keep_going) "$app" --no-finalize
    [ -z "$(ls victims/dir)" ] || fail "files were written through the link partial.rank0"
    for name in manifest.json send-counters.rank1.txt recv-counters.rank1.txt; do
        [ "$(cat "victims/$name")" = "victim $name" ] || fail "partial: the target of a link at $name was written"
        [ -f "$out/partial.rank1/$name" ] && [ ! -L "$out/partial.rank1/$name" ] ||
            fail "partial: $name of rank 1 is not a regular file"
    done
    grep -q "partial.rank0 is a symbolic link" partial.err ||
        { fail "rank 0 does not say that partial.rank0 is a link:"; show partial.err; }
    echo "partial profile through a planted link: $(grep "partial.rank0" partial.err)"
    ;;
foreign-dir)
    app=$1
    run baseline 2 no "$app"
    mkdir -m 0777 open
    chmod 0777 open # whatever the umask
    COLLPROF_OUTPUT_DIR=$work/open run open 2 yes "$app"
    same_as_baseline open
    said_twice open.err "open is writable by every user" ||
        { fail "a directory writable by all: expected one message saying so at the start, one at the end:"; show open.err; }
    [ -z "$(ls open)" ] || { fail "files were written into it:"; ls open >&2; }
    echo "writable by all: $(cat open.err)"
    mkdir -m 1777 sticky # as /tmp: accepted
    COLLPROF_OUTPUT_DIR=$work/sticky run sticky 2 yes "$app"
    same_as_baseline sticky
    [ -f sticky/manifest.json ] || { fail "a sticky directory writable by all was refused:"; show sticky.err; }
    if [ "$(id -u)" = 0 ]; then
        mkdir theirs && chown nobody theirs
        COLLPROF_OUTPUT_DIR=$work/theirs run theirs 2 yes "$app"
        same_as_baseline theirs
        said_twice theirs.err "belongs to another user" ||
            { fail "a directory of another user: expected one message saying so at the start, one at the end:"; show theirs.err; }
        [ -z "$(ls theirs)" ] || { fail "files were written into it:"; ls theirs >&2; }
        echo "another user's: $(cat theirs.err)"
        # As a user who cannot write there: a directory that cannot be
        # created, and one of the user's own that is read-only.  The
        # launcher runs as that user; the outputs are written by this shell.
        chmod 0755 "$work"
        mkdir -m 0755 roots
        mkdir -m 0555 readonly && chown nobody readonly
        run_as_nobody() { # NAME OUTDIR
            timeout -k 5 $limit runuser -u nobody -- env COLLPROF_OUTPUT_DIR="$2" "$mpiexec" \
                $LAUNCH_ARGS $(launch_preload "$lib") -n 2 "$app" >"$1.out" 2>"$1.err"
            echo $? >"$1.status"
        }
        # (only where nobody can reach the programs: not in a checkout
        # under a private home directory)
        if runuser -u nobody -- sh -c "test -x '$app' && test -r '$lib' && cd '$work'" 2>/dev/null; then
            for c in "uncreatable $work/roots/out Permission denied" \
                "readonly $work/readonly Permission denied"; do
                set -- $c
                run_as_nobody "$1" "$2"
                same_as_baseline "$1"
                said_twice "$1.err" "$2.*$3" ||
                    { fail "$1: expected one message naming the directory and the reason at the start, one at the end:"; show "$1.err"; }
                echo "as nobody, $1: $(cat "$1.err")"
            done
        else
            echo "SKIP: as nobody: user nobody cannot run the programs from here"
        fi
    fi
    ;;
reused-dir)
    # runs into one COLLPROF_OUTPUT_DIR never mix: gzip then plain files,
    # then a run without MPI_Finalize, then a complete one again
    app=$1 collprof=$2
    out=$work/out
    run baseline 2 no "$app"
    mkdir -p "$out"
    echo "the user's own notes" >"$out/notes.txt"
    COLLPROF_COMPRESS=gzip COLLPROF_OUTPUT_DIR=$out run gzip 2 yes "$app"
    ls "$out" | grep -q "send-counters.rank0.txt.gz" || fail "gzip run: no .gz count file"
    COLLPROF_OUTPUT_DIR=$out run plain 2 yes "$app"
    same_as_baseline plain
    ls "$out" | grep -q "\.gz$" && { fail "the gzip run's files are left beside the plain run's:"; ls "$out" >&2; }
    "$collprof" check "$out" >plain.check 2>&1 || { fail "plain after gzip: collprof check:"; show plain.check; }
    sleep 1 # the folders of the next run are newer than this manifest
    COLLPROF_OUTPUT_DIR=$out run partial 2 yes $(launch_keep_going) "$app" --no-finalize
    "$collprof" summary "$out" >partial.summary 2>&1 ||
        { fail "a run without MPI_Finalize after a complete one: summary:"; show partial.summary; }
    grep -q "^partial: *no MPI_Finalize: the partial profiles of 2 of 2 ranks, merged" partial.summary ||
        { fail "the reader shows the earlier complete run, not the later partial one:"; show partial.summary; }
    COLLPROF_OUTPUT_DIR=$out run again 2 yes "$app"
    same_as_baseline again
    ls "$out" | grep -q "^partial" && { fail "the partial run's folders are left beside a complete run:"; ls "$out" >&2; }
    "$collprof" summary "$out" >again.summary 2>&1 && grep -q "^partial: *no$" again.summary ||
        { fail "a complete run after a partial one:"; show again.summary; }
    [ "$(cat "$out/notes.txt")" = "the user's own notes" ] || fail "a file that is not collprof's was touched"
    echo "left in the directory after four runs: $(ls "$out" | tr '\n' ' ')"
    ;;
invalid-call)
    # under MPI_ERRORS_RETURN, the third of five calls passes a negative
    # count: MPI refuses it, the application goes on; the call is kept,
    # marked invalid, with the profile and the partial profile
    app=$1 collprof=$2
    for end in finalize no-finalize; do
        flags=--invalid-call
        [ $end = no-finalize ] && flags="$flags --no-finalize"
        out=$work/out-$end
        # without MPI_Finalize MPICH's launcher may report a hang-up that
        # no rank had (launcher_exit_race): such a run is made again
        for attempt in 1 2 3; do
            run baseline 2 no $(launch_keep_going) "$app" $flags
            rm -rf "$out"
            COLLPROF_OUTPUT_DIR=$out run "$end" 2 yes $(launch_keep_going) "$app" $flags
            launcher_exit_race baseline || launcher_exit_race "$end" || break
            echo "$end: attempt $attempt: the launcher reported a hang-up no rank had; again" >&2
        done
        same_as_baseline "$end"
        grep -q "negative count returned MPI_ERR_COUNT" "$end.out" ||
            { fail "$end: the MPI library did not refuse the call:"; show "$end.out"; }
        grep -q "missing\|cannot\|refuse" "$end.err" && { fail "$end: collprof lost data:"; show "$end.err"; }
        "$collprof" check "$out" >"$end.check" 2>&1 || { fail "$end: collprof check:"; show "$end.check"; }
        "$collprof" summary "$out" >"$end.summary" 2>&1 || { fail "$end: collprof summary:"; show "$end.summary"; }
        grep -q "^invalid calls: communicator 0, Alltoallv, calls 2: a negative count" "$end.summary" ||
            { fail "$end: summary does not show the invalid call:"; show "$end.summary"; }
        grep -q "Alltoallv *5 " "$end.summary" ||
            { fail "$end: summary does not count 5 calls:"; show "$end.summary"; }
        "$collprof" matrix "$out" --comm 0 --collective Alltoallv --call 2 >"$end.matrix" 2>&1
        grep -q "^invalid call" "$end.matrix" && grep -q "^rank 0: 3 -1$" "$end.matrix" ||
            { fail "$end: the matrix of the invalid call:"; show "$end.matrix"; }
        grep "^invalid calls" "$end.summary"
    done
    ;;
refused-calls)
    app=$1 collprof=$2
    # op: a refused call the call memo counted, timed (the defaults) and
    # counted only
    cases="one:blocking one:nonblocking one:persistent all:blocking all:nonblocking \
           all:persistent extra:blocking op:timed op:counted"
    # NULL receive counts after repeated calls: Open MPI refuses the call,
    # MPICH reads the NULL array itself (the program dies without collprof).
    [ "$LAUNCH_FLAVOR" = openmpi ] && cases="$cases null:blocking"
    for c in $cases; do
        who=${c%%:*} form=${c#*:}
        cn=$who-$form
        out=$work/out-$cn
        run baseline 4 no "$app" "$who" "$form"
        rm -rf "$out"
        timing=passive # the default
        [ "$form" = counted ] && timing=off
        COLLPROF_TIMING=$timing COLLPROF_OUTPUT_DIR=$out run "$cn" 4 yes "$app" "$who" "$form"
        # UCX warns of the never completed Ibcast's message on both runs, with
        # times and addresses of its own.
        for f in baseline.out "$cn.out"; do
            grep -v "UCX  WARN" "$f" >"$f.kept"
            mv "$f.kept" "$f"
        done
        same_as_baseline "$cn"
        [ -f "$out/manifest.json" ] || { fail "$cn: no profile written:"; show "$cn.err"; continue; }
        "$collprof" check "$out" >"$cn.check" 2>&1 || { fail "$cn: collprof check:"; show "$cn.check"; }
        "$collprof" summary "$out" >"$cn.summary" 2>&1 || { fail "$cn: collprof summary:"; show "$cn.summary"; }
        case $who in
        one)
            refused="call 0: refused with MPI_ERR_TYPE on rank 0 "
            disagree="communicator 0, Gather: ranks disagree on the number of calls (rank 0: 1, ranks 1-3: 0); wait states left out for it" ;;
        all)
            refused="call 0: refused with MPI_ERR_ROOT on ranks 0-3 "
            disagree= ;;
        null)
            refused="call 3: refused with MPI_ERR_ARG on ranks 0-3 "
            disagree= ;;
        op)
            refused="call 3: refused with MPI_ERR_OP on ranks 0-3 "
            disagree= ;;
        extra)
            refused=
            disagree="communicator 1, Bcast: ranks disagree on the number of calls (rank 1: 1, ranks 0,2: 0); wait states left out for it" ;;
        esac
        if [ -n "$refused" ]; then
            coll=Gather
            [ $who = null ] && coll=Alltoallv
            [ $who = op ] && coll=Allreduce
            grep -qF "failed calls: communicator 0, $coll, $refused" "$cn.summary" ||
                { fail "$cn: summary does not name the refused call:"; show "$cn.summary"; }
            grep -q "^Failed: " "$out/send-counters.rank0.txt" ||
                { fail "$cn: the count file does not mark the refused call"; show "$out/send-counters.rank0.txt"; }
        fi
        if [ -n "$disagree" ]; then
            for f in "$cn.err" "$cn.check" "$cn.summary"; do
                grep -qF "$disagree" "$f" || { fail "$cn: $f does not name the disagreement:"; show "$f"; }
            done
            grep -qF '"disagreements": {"'"${disagree%%: *}"'": "' "$out/manifest.json" ||
                { fail "$cn: manifest.json does not name the disagreement"; show "$out/manifest.json"; }
        elif grep -q "ranks disagree" "$cn.err" || grep -q '"disagreements"' "$out/manifest.json"; then
            fail "$cn: a disagreement named where the ranks agree:"
            show "$cn.err"
        fi
        [ $who = extra ] && { grep -q "^Collective: Ibcast\|^Collective: Bcast" "$out/send-counters.rank1.txt" ||
            { fail "$cn: the extra call did not reach the lead's count file"; }; }
    done
    ;;
registry-incomplete)
    # Rank 1 cannot register MPI_COMM_WORLD (FAILLIB fails collprof's
    # PMPI_Group_translate_ranks there, as running out of memory would): at
    # finalize every rank learns that a registry is incomplete, and the count
    # tables go straight to each communicator's lead (the counted exchange)
    # instead of up the members' tree, which needs every member.
    app=$1 collprof=$2 faillib=$3
    run baseline 3 no "$app"
    out=$work/out-incomplete
    rm -rf "$out"
    collprof_lib=$lib
    lib=$faillib:$lib
    CPT_FAIL_REGISTER_RANK=1 COLLPROF_OUTPUT_DIR=$out run incomplete 3 yes "$app"
    lib=$collprof_lib
    same_as_baseline incomplete
    for said in "cannot register a communicator" \
        "counts go straight to each communicator's lead" "wait states are not computed"; do
        grep -q "$said" incomplete.err ||
            { fail "incomplete: stderr does not say \"$said\":"; show incomplete.err; }
    done
    grep -q '"missing": {"profile.stat": ".*wait-state statistics' "$out/manifest.json" ||
        { fail "incomplete: manifest.json does not say why profile.stat is missing:"; show "$out/manifest.json"; }
    "$collprof" check "$out" >incomplete.check 2>&1 ||
        { fail "incomplete: collprof check:"; show incomplete.check; }
    # app_exit: in call c rank r sends 1 + (r + p + c) % 4 elements to peer p
    for call in 0 1 2 3 4; do
        "$collprof" matrix "$out" --comm 0 --collective Alltoallv --call $call >incomplete.m$call 2>&1
        row() { echo "rank $1: $((1 + ($1 + call) % 4)) $((1 + ($1 + 1 + call) % 4)) $((1 + ($1 + 2 + call) % 4))"; }
        grep -qx "$(row 0)" incomplete.m$call && grep -qx "rank 1: -" incomplete.m$call &&
            grep -qx "$(row 2)" incomplete.m$call ||
            { fail "incomplete: call $call: expected \"$(row 0)\", \"rank 1: -\", \"$(row 2)\":"; show incomplete.m$call; }
    done
    ;;
full-disk)
    app=$1 collprof=$2 faillib=$3
    run baseline 2 no "$app"
    for file in timings.cpt send-counters.rank0.txt profile.cubex profile.stat; do
        out=$work/out-$file
        # the failing library goes first: it must see collprof's writes
        collprof_lib=$lib
        lib=$faillib:$lib
        CPT_FAIL_FILE=$file COLLPROF_OUTPUT_DIR=$out run "$file" 2 yes "$app"
        lib=$collprof_lib
        same_as_baseline "$file"
        k=$(grep -c "^collprof: .*$file.*No space left on device" "$file.err")
        [ "$k" = 1 ] || { fail "$file: expected one message naming it and the reason:"; show "$file.err"; }
        [ -f "$out/manifest.json" ] || { fail "$file: no manifest.json"; continue; }
        [ -e "$out/$file" ] && fail "$file: written although every write to it failed"
        grep -q "\"missing\": {\"$file\": \".*No space left on device" "$out/manifest.json" ||
            { fail "$file: manifest.json does not list it as missing with the reason:"; show "$out/manifest.json"; }
        ls "$out" | grep -q "tmp\." && { fail "$file: temporary files left:"; ls "$out" >&2; }
        for other in manifest.json timings.cpt send-counters.rank0.txt recv-counters.rank0.txt \
            profile.cubex profile.stat; do
            case $other in
            "$file" | recv-counters.rank0.txt) ;; # the failed one, and its twin
            *) [ -f "$out/$other" ] || fail "$file: $other was not written" ;;
            esac
        done
        "$collprof" summary "$out" >"$file.summary" 2>&1 ||
            { fail "$file: collprof summary fails on what is there:"; show "$file.summary"; }
        grep -q "^missing: *$file not written: .*No space left on device" "$file.summary" ||
            { fail "$file: collprof summary does not say that $file is missing:"; show "$file.summary"; }
        "$collprof" check "$out" >"$file.check" 2>&1 ||
            { fail "$file: collprof check fails on what is there:"; show "$file.check"; }
        grep -q "^missing: $file not written: " "$file.check" ||
            { fail "$file: collprof check does not say that $file is missing:"; show "$file.check"; }
        echo "$file: $(grep "^collprof:" "$file.err" | head -n 1)"
    done
    # A partial profile (no MPI_Finalize): rank 0's send counts cannot be
    # written; as at finalize, their twin (the receive counts) is missing
    # too, said in the same one message; the rest of its partial profile and
    # rank 1's are written
    out=$work/out-partial
    lib=$faillib:$collprof_lib
    CPT_FAIL_FILE=send-counters.rank0.txt COLLPROF_OUTPUT_DIR=$out \
        run partial 2 yes $(launch_keep_going) "$app" --no-finalize
    lib=$collprof_lib
    [ "$(grep -c "^collprof: .*send-counters.rank0.txt.*No space left on device" partial.err)" = 1 ] ||
        { fail "partial: expected one message naming the file and the reason:"; show partial.err; }
    grep -q "\"missing\": {\"send-counters.rank0.txt\": \".*No space left on device" \
        "$out/partial.rank0/manifest.json" 2>/dev/null ||
        { fail "partial: rank 0's manifest does not list its send counts as missing"; }
    grep -q "\"recv-counters.rank0.txt\": \".*No space left on device" \
        "$out/partial.rank0/manifest.json" 2>/dev/null ||
        { fail "partial: rank 0's manifest does not list the twin, its receive counts, as missing"; }
    for f in partial.rank0/manifest.json partial.rank1/send-counters.rank1.txt \
        partial.rank1/recv-counters.rank1.txt; do
        [ -f "$out/$f" ] || fail "partial: $f was not written"
    done
    "$collprof" summary "$out" >partial.summary 2>&1 && grep -q "^missing: *partial.rank0/send-counters.rank0.txt" partial.summary ||
        { fail "partial: collprof summary does not show what is missing:"; show partial.summary; }
    ;;
stuck-in-call)
    stuck=$1
    COLLPROF_OUTPUT_DIR=$work/out run_killed stuck 2 yes TERM "$stuck"
    grep -q "^stuck: call 5 entered by all ranks but 1" stuck.out || { fail "the program did not get there:"; show stuck.out; }
    reader_merges "$work/out" "ranks 0-1: SIGTERM sent by process [0-9]*$"
    # rank 0 made 6 calls (call 5 started, never finished), rank 1 5: named
    grep -q "^disagreement: *communicator 0, Alltoallv: ranks disagree on the number of calls (rank 0: 6, rank 1: 5): call 5 was entered by 1 of the 2 ranks that left a profile (rank 0), never by the others: the run stopped inside it$" summary.out ||
        { fail "collprof summary does not name the call rank 0 was in:"; show summary.out; }
    "$collprof" check "$work/out" >check_stuck.out 2>&1
    grep -q "^disagreement: communicator 0, Alltoallv: .*call 5 was entered by 1 of the 2 ranks" check_stuck.out ||
        { fail "collprof check does not name it:"; show check_stuck.out; }
    "$collprof" matrix "$work/out" --comm 0 --collective Alltoallv --call 5 >matrix5.out 2>&1 &&
        grep -q "^rank 0: 1 1$" matrix5.out && grep -q "^rank 1: -$" matrix5.out &&
        grep -q "^-: rank 1 recorded no call 5 in either direction: the run stopped before it entered it" matrix5.out ||
        { fail "collprof matrix --call 5: rank 0's row, and rank 1 without one, said why:"; show matrix5.out; }
    # Timing was on (the default): the partial profiles hold the timed
    # calls: 5 Alltoallv of each rank and rank 0's Ialltoallv, timed as it
    # was started (its Wait never returned), 11 in all.
    grep -q "^  coverage: no MPI_Finalize: the partial profiles of 2 ranks, each exact up to its state; waiting found in the calls every member's profile holds" summary.out ||
        { fail "the coverage line does not say what the partial profiles' times are:"; show summary.out; }
    grep -q "COLLPROF_TIMING=off?" summary.out && { fail "a guess about COLLPROF_TIMING:"; show summary.out; }
    "$collprof" timings "$work/out" >timings.out 2>&1 || { fail "collprof timings of the partial profiles:"; show timings.out; }
    grep -q "^ *0  Alltoallv  *11  *0  *[0-9.]*  " timings.out ||
        { fail "collprof timings does not show the 11 timed calls of the two ranks:"; show timings.out; }
    ;;
sigkill)
    # SIGKILL leaves no handler a chance: what is left is each rank's last
    # snapshot (COLLPROF_SNAPSHOT=1: test_nofinalize's "kill" takes one
    # before its last call, then waits to be killed).  The reader finds
    # them, merges them exactly (test_nofinalize check), and says per rank
    # that this is the last state there is and that its process is gone.
    export COLLPROF_SNAPSHOT=1
    COLLPROF_OUTPUT_DIR=$work/base run_killed baseline 3 no KILL "$nofin" kill
    COLLPROF_OUTPUT_DIR=$work/out run_killed profiled 3 yes KILL "$nofin" kill
    same_as_baseline profiled
    "$nofin" check "$work/out" 3 kill all >check.out 2>&1 || { fail "the snapshots:"; show check.out; }
    cat check.out
    for r in 0 1 2; do
        reason_is "$work/out" $r "a snapshot of the run so far (one every 1 s)"
        grep -q '"state": {"at": "[0-9T:-]*", "snapshot": true, "rank": '"$r"', "pid": [1-9]' \
            "$work/out/partial.rank$r/manifest.json" ||
            { fail "rank $r's snapshot does not record its state"; show "$work/out/partial.rank$r/manifest.json"; }
    done
    # The ranks' last snapshots may fall on both sides of a second: then
    # the time is a range.
    reader_merges "$work/out" "ranks 0-2: the last snapshot (one every 1 s), no word since: its process is gone: .*; state after 7 to 8 calls, [0-9:]*\( to [0-9:]*\)\?$"
    # The snapshots hold the timed calls: rank 1 came 0.3 s late to the
    # first Alltoallv on the world (communicator 0), so ranks 0 and 2 waited
    # there 0.3 s each less however much later than rank 1 they left the
    # MPI_Comm_split before it (milliseconds where ranks outnumber cores:
    # 0.599921 s seen under Open MPI), and no more than their time in the
    # calls.
    "$collprof" timings "$work/out" >timings.out 2>&1 || { fail "collprof timings of the snapshots:"; show timings.out; }
    awk '/^time per communicator/ {t = 1; next} t && $1 == 0 && $2 == "Alltoallv" {
            found = 1; if ($NF + 0 < 0.5 || $NF + 0 > $5 + 0) bad = 1 }
         /^$/ {t = 0} END {exit !(found && !bad)}' timings.out ||
        { fail "the snapshots' waiting in communicator 0's Alltoallv is not about 0.6 s (0.5 s or more, within the time):"; show timings.out; }
    grep -q "^ *coverage: no MPI_Finalize: the partial profiles of 3 ranks, each exact up to its state" summary.out ||
        { fail "summary does not say the snapshots' timings are exact up to each state:"; show summary.out; }
    # The call sites are in the snapshots too: every rank's Alltoallv calls
    # at the one line of the harness that makes them (the checker above
    # compares each rank's visits with its count rows), and the merged
    # Cube profile `collprof complete` writes for Cube says so; what only
    # finalize makes is said so, not guessed at.
    "$collprof" callsites "$work/out" >callsites.out 2>&1 &&
        grep -q "^ *[0-9]*  cpt_alltoallv  harness.c:[0-9]*  .* Alltoallv  *[1-9][0-9]*  " callsites.out ||
        { fail "collprof callsites does not show the snapshots' Alltoallv call site:"; show callsites.out; }
    # The wait states' statistics (what finalize writes into profile.stat),
    # found in the snapshots' timed calls: rank 1's late arrival is the
    # most severe instance of Wait at N x N, on a rank that waited for it:
    # 0.3 s less however much later than rank 1 that rank left the
    # MPI_Comm_split before (milliseconds where ranks outnumber cores)
    "$collprof" stat "$work/out" >stat.out 2>&1 &&
        grep -q "^from: .*the partial profiles of 3 ranks (no MPI_Finalize), the wait states found in their timed calls" stat.out &&
        awk '$1 == "mpi_wait_nxn" && $2 + 0 > 0 && $6 + 0 >= 0.25 {ok = 1} END {exit !ok}' stat.out &&
        sed -n '/^mpi_wait_nxn: most severe/,/^$/p' stat.out | awk 'NR == 3 {exit !($2 != 1 && $5 + 0 >= 0.25)}' ||
        { fail "collprof stat does not show the snapshots' wait states:"; show stat.out; }
    "$collprof" complete "$work/out" >complete.out 2>&1 && [ -s "$work/out/profile.cubex" ] &&
        [ -s "$work/out/profile.stat" ] && "$collprof" check "$work/out" >>complete.out 2>&1 &&
        "$collprof" stat "$work/out" >stat_file.out 2>&1 && grep -q "^file: .*/out/profile.stat$" stat_file.out &&
        [ "$(sed -n '/^pattern/,$p' stat_file.out)" = "$(sed -n '/^pattern/,$p' stat.out)" ] ||
        { fail "collprof complete does not write the joined profile.cubex and profile.stat that read back:"; show complete.out; }
    grep -q "^partial: *no MPI_Finalize (yet): the last snapshots of 3 of 3 ranks" summary.out ||
        { fail "summary does not say the profile is the ranks' last snapshots:"; show summary.out; }
    # One rank killed: the launcher ends the others (MPICH's with SIGKILL
    # too, Open MPI's with SIGTERM: then their own partial profiles, their
    # last call included, which rank 1's snapshot lacks and the reader
    # names).  Rank 1's part is its snapshot, and the merge checks.
    KILL_ONLY=1 COLLPROF_OUTPUT_DIR=$work/one run_killed one 3 yes KILL "$nofin" kill
    "$collprof" summary "$work/one" >one.summary 2>&1 || { fail "summary of one rank killed:"; show one.summary; }
    grep -q "^stopped: *\(ranks [0-9,-]*\|rank 1\): the last snapshot (one every 1 s), no word since: its process is gone" one.summary &&
        grep "^stopped: *\(ranks [0-9,-]*\|rank 1\): the last snapshot" one.summary | grep -q "ranks 0-2\|ranks 1-2\|ranks 0-1\|rank 1:" ||
        { fail "summary does not say rank 1 left its last snapshot:"; show one.summary; }
    if grep -q "SIGTERM" one.summary; then
        grep -q "Barrier: ranks disagree on the number of calls (rank 0: 1, rank 2: 1, rank 1: 0): call 0 was entered by 2 of the 3 ranks that left a profile (rank 0 and more); rank 1 left only a snapshot taken before it: whether it entered it after is not known" one.summary ||
            { fail "summary does not name the call rank 1's snapshot lacks:"; show one.summary; }
    fi
    "$collprof" check "$work/one" >one.check 2>&1 || { fail "collprof check of one rank killed:"; show one.check; }
    # A run that ends normally leaves no snapshot behind.
    COLLPROF_OUTPUT_DIR=$work/fin run finalized 3 yes "$nofin" finalize
    [ "$(cat finalized.status)" = 0 ] || { fail "finalize: exit status $(cat finalized.status)"; show finalized.err; }
    [ -f "$work/fin/manifest.json" ] || { fail "finalize: no manifest.json"; show finalized.err; }
    left=$(ls -d "$work/fin"/partial.rank* 2>/dev/null)
    [ -z "$left" ] || fail "finalize: snapshots left behind: $left"
    # collprof watch on the running job: the snapshots of its first 3
    # calls, its processes still running; then, once it ended, the whole
    # profile.
    rm -rf "$work/watched"
    COLLPROF_OUTPUT_DIR=$work/watched run watched 2 yes "$3" --slow &
    job=$!
    k=0
    while [ ! -f "$work/watched/partial.rank1/manifest.json" ] && [ $k -lt 100 ]; do
        sleep 0.05
        k=$((k + 1))
    done
    "$collprof" watch --once "$work/watched" >watch.running 2>&1
    wait $job
    grep -q "^stopped: *ranks 0-1: the last snapshot (one every 1 s), no word since: its process is still running; state after 3 calls" watch.running &&
        grep -q "^calls so far: *3 collective calls in 1 series" watch.running &&
        grep -q "^ *0 *2 *Alltoallv *3 " watch.running ||
        { fail "collprof watch on the running job:"; show watch.running; }
    "$collprof" watch --once "$work/watched" >watch.ended 2>&1 ||
        { fail "collprof watch on the ended job failed:"; show watch.ended; }
    grep -q "^run: *ended: the whole profile, written at MPI_Finalize" watch.ended &&
        grep -q "^calls so far: *5 collective calls in 1 series" watch.ended ||
        { fail "collprof watch on the ended job:"; show watch.ended; }
    # Without COLLPROF_OUTPUT_DIR the snapshots' directory is the one the
    # whole profile goes to: one directory, no snapshot left in it.
    app=$3
    rm -rf default && mkdir default
    (cd default && unset COLLPROF_OUTPUT_DIR && COLLPROF_VERBOSE=2 \
        timeout -k 5 $limit "$mpiexec" $LAUNCH_ARGS $(launch_preload "$lib") -n 2 "$app" --slow \
        >../default.out 2>../default.err)
    grep -q "wrote a snapshot of its state" default.err ||
        { fail "default directory: no snapshot was taken:"; show default.err; }
    dirs=$(ls default)
    [ "$(echo "$dirs" | wc -w)" = 1 ] && [ -f "default/$dirs/manifest.json" ] ||
        { fail "default directory: expected one profile directory, found: $dirs"; show default.err; }
    left=$(ls -d default/*/partial.rank* 2>/dev/null)
    [ -z "$left" ] || fail "default directory: snapshots left behind: $left"
    snapdir=$(sed -n 's|^collprof: rank 0 wrote a snapshot of its state .* to \(.*\)/partial.rank0 in [0-9.]* ms$|\1|p' default.err | tail -1)
    [ -z "$snapdir" ] || [ "$snapdir" = "$dirs" ] ||
        fail "default directory: the profile went to $dirs, not to the snapshots' $snapdir"
    ;;

sigterm)
    COLLPROF_OUTPUT_DIR=$work/base run_killed baseline 3 no TERM "$nofin" term
    COLLPROF_OUTPUT_DIR=$work/out run_killed profiled 3 yes TERM "$nofin" term
    same_as_baseline profiled
    "$nofin" check "$work/out" 3 term all >check.out 2>&1 || { fail "partial profiles:"; show check.out; }
    for r in 0 1 2; do reason_is "$work/out" $r "SIGTERM sent by process"; done
    reader_merges "$work/out" "ranks 0-2: SIGTERM sent by process [0-9]*$"
    grep -q "^no profile:" summary.out && { fail "collprof summary misses a rank:"; show summary.out; }
    # rank 0 says where its profile went; nothing else from collprof
    k=$(grep -c "^collprof:" profiled.err)
    [ "$k" = 1 ] && grep -q "^collprof: SIGTERM sent by process [0-9]*: rank 0 wrote its partial profile to $work/out/partial.rank0$" profiled.err ||
        { fail "expected one line from collprof on stderr, got:"; show profiled.err; }
    cat check.out
    # COLLPROF_SIGNALS=none: no handler, so nothing is written
    COLLPROF_SIGNALS=none COLLPROF_OUTPUT_DIR=$work/none run_killed off 3 yes TERM "$nofin" term
    same_as_baseline off
    [ -e "$work/none/partial.rank0" ] && fail "COLLPROF_SIGNALS=none: a partial profile was written"
    # SIGUSR2 only when asked for; the default action (termination) kept.
    # The launcher's own status is not compared: MPICH's launcher reports
    # the bitwise OR of what its ranks died of, and kills (SIGKILL) the
    # ranks still alive when the first one dies; a rank that is still
    # writing its partial profile then adds 9 (12 | 9 = 13), as a rank that
    # is slow for any other reason would.  What must not change is what
    # each rank dies of by itself: SIGUSR2, recorded by a shell around it.
    CPT_STATUS=$work/baseline_usr2.own COLLPROF_OUTPUT_DIR=$work/base1 \
        run_killed baseline_usr2 2 no USR2 sh -c "$own_status" sh "$nofin" term
    CPT_STATUS=$work/usr2.own COLLPROF_SIGNALS=TERM,USR2 COLLPROF_OUTPUT_DIR=$work/usr2 \
        run_killed usr2 2 yes USR2 sh -c "$own_status" sh "$nofin" term
    cmp -s baseline_usr2.out usr2.out || { fail "usr2: stdout changed under collprof:"; show usr2.out; }
    [ "$(cat usr2.status)" != 0 ] || fail "usr2: mpiexec reports success for ranks ended by SIGUSR2"
    died_of_usr2=0
    for r in 0 1; do
        s=$(own usr2 $r)
        case $s in
        140) died_of_usr2=$((died_of_usr2 + 1)) ;;
        none) ;; # killed by the launcher after the other rank died
        *) fail "usr2: rank $r ended with status $s under collprof, not with SIGUSR2 (140)" ;;
        esac
    done
    [ $died_of_usr2 -ge 1 ] || fail "usr2: no rank ended with SIGUSR2 under collprof"
    "$nofin" check "$work/usr2" 2 term >check1.out 2>&1 || { fail "SIGUSR2:"; show check1.out; }
    reason_is "$work/usr2" 1 "SIGUSR2"
    ;;
abort | segv | fpe | bus | ill | abrt)
    if [ "$case_" = abort ]; then
        COLLPROF_OUTPUT_DIR=$work/base run baseline 3 no "$nofin" "$case_"
        COLLPROF_OUTPUT_DIR=$work/out run profiled 3 yes "$nofin" "$case_"
        launcher_report baseline.out profiled.out
        same_as_baseline profiled
    else
        # Which dying rank's status mpiexec reports is a race among the
        # ranks (the faulting one, or one it then killed): each rank's own
        # status is what must not change, recorded by a shell around it
        # (128 + the signal's number; own_status above).
        CPT_STATUS=$work/baseline.own COLLPROF_OUTPUT_DIR=$work/base \
            run baseline 3 no sh -c "$own_status" sh "$nofin" "$case_"
        CPT_STATUS=$work/profiled.own COLLPROF_OUTPUT_DIR=$work/out \
            run profiled 3 yes sh -c "$own_status" sh "$nofin" "$case_"
        launcher_report baseline.out profiled.out
        cmp -s baseline.out profiled.out || { fail "stdout changed under collprof:"; show profiled.out; }
        [ "$(cat profiled.status)" != 0 ] || fail "mpiexec reports success for a crashed rank"
        for number in 4 6 7 8 11; do # ILL ABRT BUS FPE SEGV (Linux)
            [ "$(kill -l $number | tr A-Z a-z)" = "$case_" ] && break
        done
        [ "$(own baseline 1)" = $((128 + number)) ] ||
            fail "without collprof rank 1 did not end with SIG$(kill -l $number): status $(own baseline 1)"
        [ "$(own baseline 1)" = "$(own profiled 1)" ] ||
            fail "rank 1 ended with status $(own profiled 1), without collprof $(own baseline 1)"
        echo "rank 1's own exit status: $(own profiled 1) (without collprof: $(own baseline 1))"
    fi
    "$nofin" check "$work/out" 3 "$case_" rank1 >check.out 2>&1 || { fail "partial profiles:"; show check.out; }
    case $case_ in
    abort) want="MPI_Abort with error code 7 on rank 1" ;;
    segv) want="SIGSEGV at address" ;;
    fpe) want="SIGFPE at address" ;;
    bus) want="SIGBUS at address" ;;
    ill) want="SIGILL at address" ;;
    abrt) want="SIGABRT raised by the process itself (abort, a failed assert)" ;;
    esac
    reason_is "$work/out" 1 "$want"
    reader_merges "$work/out" "rank 1: $want"
    # mpiexec forwards a dying rank's stderr only when it is quick enough:
    # the MPI library's own abort message is lost now and then, too.
    if [ -s profiled.err ] &&
        ! grep -q "^collprof: $want.*: rank 1 wrote its partial profile to $work/out/partial.rank1$" profiled.err; then
        fail "rank 1 does not say where its profile went:"
        show profiled.err
    fi
    cat check.out
    ;;
*)
    echo "usage: $0 sigterm|abort|segv|fpe|bus|ill|abrt|... WORKDIR MPIEXEC LIB [ARGS...]" >&2
    exit 2
    ;;
esac

if [ $failed = 0 ]; then
    echo "$case_: PASS"
fi
exit $failed
