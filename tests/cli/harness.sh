# Shared by the CLI test scripts (sourced): run a command, compare its exit
# status, stdout and stderr with what is expected, count checks and
# failures.  A script ends with `finish`.

# meson may pass paths relative to the build directory: make them absolute
absolute() {
    case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$PWD" "$1" ;;
    esac
}

count=0
failed=0

fail() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

# run COMMAND...: runs it, keeping stdout, stderr and the exit status
run() {
    "$@" >out.txt 2>err.txt
    status=$?
    what="$*"
}

# expect STATUS <<EOF (expected stdout) EOF
expect() {
    count=$((count + 1))
    cat >want.txt
    [ "$status" -eq "$1" ] || fail "$what: exit status $status, expected $1"
    if ! cmp -s want.txt out.txt; then
        fail "$what: stdout differs (expected, got):"
        diff -u want.txt out.txt
    fi
}

# expect_err <<EOF (expected stderr) EOF
expect_err() {
    count=$((count + 1))
    cat >want.txt
    if ! cmp -s want.txt err.txt; then
        fail "$what: stderr differs (expected, got):"
        diff -u want.txt err.txt
    fi
}

no_stderr() {
    expect_err </dev/null
}

# The closing line, and the exit status of the script.
finish() {
    echo "$count checks, $failed failed"
    [ "$failed" -eq 0 ]
}
