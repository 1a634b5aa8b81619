#!/bin/sh
# tests/golden.sh - golden diagnostics: each tests/diag/NAME.kern is
# translated and must fail with exit status 1, print exactly
# tests/diag/NAME.err on stderr, print nothing on stdout and write no
# output file.  One TAP test per file.  kernc runs in tests/diag so that
# the file names in the messages are plain NAME.kern; the outputs are
# directed to a scratch directory that must stay empty.
#
# Extra options for one test can be given in its first line:
#   # kernc-options: -Werror --target c
#
# Environment: KERNC (the kernc binary, default ./kernc), srcdir (the top
# source directory, default .).

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
dir=$srcdir/tests/diag

case $KERNC in
    /*) ;;
    */*) KERNC=$(pwd)/$KERNC ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-diag-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

set -- "$dir"/*.kern
if [ ! -f "$1" ]; then
    echo "1..0 # SKIP no tests in $dir"
    exit 0
fi
echo "1..$#"
n=0
for kern in "$@"; do
    n=$((n + 1))
    name=$(basename "$kern" .kern)
    expected=$dir/$name.err
    if [ ! -f "$expected" ]; then
        echo "not ok $n - $name # no $name.err"
        continue
    fi
    opts=$(sed -n '1s/^# kernc-options: *//p' "$kern")
    mkdir "$work/out"
    # $opts is split into words on purpose
    (cd "$dir" && "$KERNC" $opts -MD -o "$work/out/$name.cu" \
        --header "$work/out/$name.kern.h" "$name.kern") \
        >"$work/stdout" 2>"$work/stderr"
    rc=$?
    leftovers=$(ls -A "$work/out")
    if [ $rc -ne 1 ]; then
        echo "not ok $n - $name (exit status $rc, expected 1)"
        sed 's/^/# /' "$work/stderr"
    elif ! cmp -s "$expected" "$work/stderr"; then
        echo "not ok $n - $name (diagnostics differ)"
        diff -u "$expected" "$work/stderr" | sed 's/^/# /'
    elif [ -s "$work/stdout" ]; then
        echo "not ok $n - $name (wrote to stdout)"
    elif [ -n "$leftovers" ]; then
        echo "not ok $n - $name (left files behind: $leftovers)"
    else
        echo "ok $n - $name"
    fi
    rm -rf "$work/out"
done
