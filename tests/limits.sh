#!/bin/sh
# tests/limits.sh - hostile sizes: expressions nested far deeper than any
# kernel, generated here (they are too large to keep as files), must give
# one clear "file:line:col: error:" and exit status 1, never a crash, on an
# 8 MB stack; expressions just inside the limit must translate.  The limit
# (1000 levels, grammar/parser.y) keeps the translator's recursive passes
# far inside the stack, also under AddressSanitizer (.ci/run runs this
# script in its sanitizer build too).
#
# Environment: KERNC (the kernc binary, default ./kernc).

KERNC=${KERNC:-./kernc}
case $KERNC in
    /*) ;;
    */*) KERNC=$(pwd)/$KERNC ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-limits-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 99
ulimit -s 8192 2>/dev/null

# kern KIND N: a kernel whose one statement is N levels of KIND
kern() {
    awk -v kind="$1" -v n="$2" 'BEGIN {
        print "from numba import cuda"
        print ""
        print "@cuda.jit(\"void(float32[:], float32)\")"
        print "def k(a, x):"
        if (kind == "paren") {
            e = ""; for (i = 0; i < n; i++) e = e "("
            e = e "x"; for (i = 0; i < n; i++) e = e ")"
        } else if (kind == "neg" || kind == "not") {
            e = ""; for (i = 0; i < n; i++) e = e (kind == "neg" ? "-" : "not ")
            e = e "x"
        } else if (kind == "attr" || kind == "index" || kind == "call") {
            e = kind == "call" ? "abs" : "a"
            for (i = 0; i < n; i++)
                e = e (kind == "attr" ? ".shape" : kind == "index" ? "[0]" : "()")
        } else {
            op = kind == "sum" ? " + " : kind == "mul" ? " * " : kind == "and" ? " and " : \
                 kind == "or" ? " or " : kind == "pow" ? " ** " : kind == "cmp" ? " < " : \
                 " if x else "
            e = "x"; for (i = 1; i < n; i++) e = e op "x"
        }
        print "    a[0] = " e
    }'
}

echo "1..20"
t=0
# refused KIND N MESSAGE
refused() {
    t=$((t + 1))
    kern "$1" "$2" >deep.kern
    "$KERNC" --target c -o deep.c --header deep.h deep.kern >out 2>err
    rc=$?
    first=$(head -n 1 err | cut -c 1-200)
    if [ $rc -ne 1 ]; then
        echo "not ok $t - $1 x $2 refused (exit status $rc)"
        head -c 2000 err | sed 's/^/# /'
    elif ! printf '%s\n' "$first" | grep -q "^deep.kern:5:[0-9]*: error: $3"; then
        echo "not ok $t - $1 x $2 refused (message: $first)"
    elif [ "$(grep -c ': error: ' err)" -ne 1 ]; then
        echo "not ok $t - $1 x $2 refused (more than one error)"
    elif [ -e deep.c ]; then
        echo "not ok $t - $1 x $2 refused (wrote deep.c)"
    else
        echo "ok $t - $1 x $2 refused"
    fi
}
# accepted KIND N
accepted() {
    t=$((t + 1))
    kern "$1" "$2" >deep.kern
    if "$KERNC" --target c -o deep.c --header deep.h deep.kern >out 2>err; then
        echo "ok $t - $1 x $2 translates"
    else
        echo "not ok $t - $1 x $2 translates (exit status $?)"
        head -c 2000 err | sed 's/^/# /'
    fi
    rm -f deep.c deep.h
}

too_complex='expression too complex: more than 1000 levels of nesting'
refused sum 30000 "$too_complex"
refused and 100000 "$too_complex"
refused or 100000 "$too_complex"
refused mul 100000 "$too_complex"
refused pow 100000 "$too_complex"
refused neg 100000 "$too_complex"
refused not 100000 "$too_complex"
refused ifexp 100000 "$too_complex"
refused cmp 100000 "$too_complex"
refused attr 100000 "$too_complex"
refused index 100000 "$too_complex"
refused call 100000 "$too_complex"
refused paren 100000 "too many nested parentheses"
accepted sum 990
accepted and 990
accepted mul 990
accepted neg 990
accepted not 990
accepted ifexp 990
accepted cmp 990
