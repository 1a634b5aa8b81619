#!/bin/sh
# tests/parse.sh - parser tests: each tests/parse/NAME.kern is parsed with
# `kernc --dump-ast` and its dump must equal tests/parse/NAME.ast exactly
# (the tree, every node's line:col).  One TAP test per file.
#
# Environment: KERNC (the kernc binary, default ./kernc), srcdir (the top
# source directory, default .).

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
dir=$srcdir/tests/parse

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-parse-test.XXXXXX") || exit 99
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
    expected=$dir/$name.ast
    if [ ! -f "$expected" ]; then
        echo "not ok $n - $name # no $name.ast"
        continue
    fi
    "$KERNC" --dump-ast "$kern" >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "not ok $n - $name (exit status $rc)"
        sed 's/^/# /' "$work/err"
    elif ! cmp -s "$expected" "$work/out"; then
        echo "not ok $n - $name (the dump differs)"
        diff -u "$expected" "$work/out" | sed 's/^/# /'
    elif [ -s "$work/err" ]; then
        echo "not ok $n - $name (unexpected diagnostics)"
        sed 's/^/# /' "$work/err"
    else
        echo "ok $n - $name"
    fi
done
