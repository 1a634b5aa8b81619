#!/bin/sh
# tests/limits.sh - hostile sizes: expressions nested far deeper than any
# kernel, generated here (they are too large to keep as files), must give
# one clear "file:line:col: error:" and exit status 1, never a crash, on an
# 8 MB stack; expressions just inside the limit must translate.  The limit
# (1000 levels, grammar/parser.y) keeps the translator's recursive passes
# far inside the stack, also under AddressSanitizer (.ci/run runs this
# script in its sanitizer build too).
#
# Long inputs must take linear time (issue 13, item 10), checked with a
# CPU-time limit (ulimit -t, not the wall clock of a loaded machine) far
# below what the quadratic passes took and far above the linear ones:
# 16,000 straight-line statements (29.5 s before, 0.5 s now), 100,000
# adjacent string literals (over 4 GB and a minute before), 20,000
# errors (4.8 s before, 0.2 s now).
#
# A big file is printed by two processes (emit_host.c, split_start: the
# second half of the CPU functions for --target c, all of them beside the
# CUDA ones for --target cuda): the output, messages and exit status must
# be the one process's (KERNC_TEST_SPLIT=0), on a generated file of 5,000
# lines (split
# as any big file is, where the machine has a core to spare) and, split at
# every size and load (KERNC_TEST_SPLIT=1), on the examples and the
# diagnostics tests.  KERNC_TEST_SPLIT=1 also parses every file in two
# halves at once (grammar/parser.y, parse_halves); the last test puts the
# halves' meeting line inside a string, brackets and a continued line.
#
# Environment: KERNC (the kernc binary, default ./kernc), srcdir (the top
# of the source tree, default .), LIMITS_CPU_SCALE (a whole number the
# CPU-time limits are multiplied by, default 1: .ci/run's ThreadSanitizer
# build, 5 to 15 times slower, sets 20).

KERNC=${KERNC:-./kernc}
case $KERNC in
    /*) ;;
    */*) KERNC=$(pwd)/$KERNC ;;
esac
srcdir=$(cd "${srcdir:-.}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-limits-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 99
ulimit -s 8192 2>/dev/null
scale=${LIMITS_CPU_SCALE:-1}

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

echo "1..31"
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

# linear NAME SECONDS: translating big.kern (made before) finishes inside
# SECONDS of CPU time with exit status 0 (or 1 for errors.kern)
linear() {
    t=$((t + 1))
    ( ulimit -t $(($2 * scale)); exec "$KERNC" --target c -o big.c --header big.h "$1" ) >out 2>err
    rc=$?
    want=0
    [ "$1" = errors.kern ] && want=1
    if [ $rc -eq "$want" ]; then
        echo "ok $t - $1 in under $(($2 * scale)) s of CPU time"
    else
        echo "not ok $t - $1 in under $(($2 * scale)) s of CPU time (exit status $rc)"
        { head -c 1000 err; echo; } | sed 's/^/# /'   # a whole last line: the next result is a line of its own
    fi
    rm -f big.c big.h
}
awk 'BEGIN {
    print "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef k(a):\n    x = a[0]"
    for (i = 0; i < 16000; i++) print "    x = x * 2 + " i
    print "    a[0] = x"
}' > statements.kern
linear statements.kern 10
awk 'BEGIN {
    print "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef k(a):"
    for (i = 0; i < 8000; i++) print "    y" i " = a[" i "] + 1\n    a[" i "] = y" i
}' > names.kern
linear names.kern 10
awk 'BEGIN {
    printf "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef k(a):\n    print("
    for (i = 0; i < 100000; i++) printf "\"ab\" "
    print ")"
}' > strings.kern
linear strings.kern 5
awk 'BEGIN {
    print "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef k(a):"
    for (i = 0; i < 20000; i++) print "    a[0] = \"x" i "\""
}' > errors.kern
linear errors.kern 3
# errors_per_line FILE: a line of 200,000 bad tokens, one error each, must
# be reported in linear time: each error shows its whole line, and all of
# them made gigabytes of output (5,000 '$' took 10 s and 37 MB); at most
# 16 of a line are shown (src/diag.c, DIAG_PER_LINE)
errors_per_line() {
    t=$((t + 1))
    ( ulimit -t $((3 * scale)); exec "$KERNC" --target c -o big.c --header big.h "$1" ) >out 2>err
    rc=$?
    size=$(wc -c < err)
    if [ $rc -eq 1 ] && [ ! -e big.c ] && [ "$size" -lt 20000000 ] &&
       grep -q "only its first 16 are shown" err; then
        echo "ok $t - $1: a line of 200,000 errors in under $((3 * scale)) s of CPU time"
    else
        echo "not ok $t - $1: a line of 200,000 errors (exit status $rc, $size bytes)"
        { head -c 1000 err; echo; } | sed 's/^/# /'   # a whole last line: the next result is a line of its own
    fi
    rm -f big.c big.h
}
awk 'BEGIN { printf "x = 1 "; for (i = 0; i < 200000; i++) printf "$"; print "" }' > dollars.kern
errors_per_line dollars.kern
awk 'BEGIN { printf "x = (1"; for (i = 0; i < 200000; i++) printf "]"; print "" }' > closers.kern
errors_per_line closers.kern

# same_split SPLIT FILE...: each file, both targets, gives the same output,
# messages and exit status with KERNC_TEST_SPLIT=SPLIT as with =0
same_split() {
    split=$1
    shift
    for f in "$@"; do
        for target in c cuda; do
            for s in 0 "$split"; do
                rm -rf "s$s" && mkdir "s$s" || return 1
                (cd "s$s" && KERNC_TEST_SPLIT=$s "$KERNC" --target $target -o out --header out.h \
                     "$f" > /dev/null 2> err; echo $? >> err)
            done
            if ! diff -r s0 "s$split" > /dev/null; then
                echo "# $f --target $target differs"
                return 1
            fi
        done
    done
}
sh "$srcdir/bench/gen-kern.sh" 5000 > gen.kern
t=$((t + 1))
if same_split default "$(pwd)/gen.kern"; then
    echo "ok $t - a generated 5,000-line file: as split by default, the output of one process"
else
    echo "not ok $t - a generated 5,000-line file: as split by default, the output of one process"
fi
t=$((t + 1))
if same_split 1 "$srcdir"/examples/*.kern; then
    echo "ok $t - examples/*.kern split at every size: the output of one process"
else
    echo "not ok $t - examples/*.kern split at every size: the output of one process"
fi
t=$((t + 1))
if same_split 2 "$srcdir"/examples/*.kern; then
    echo "ok $t - examples/*.kern split with the text down the pipe: the output of one process"
else
    echo "not ok $t - examples/*.kern split with the text down the pipe: the output of one process"
fi
t=$((t + 1))
if same_split 1 "$srcdir"/tests/diag/*.kern; then
    echo "ok $t - tests/diag/*.kern split at every size: the messages of one process"
else
    echo "not ok $t - tests/diag/*.kern split at every size: the messages of one process"
fi

# cut_file FILE: a file whose first line past the middle that parse_halves
# would cut at (an empty line, then '@' or "def ") lies inside the text
# read from standard input (a string, brackets, a continued line): one of
# the halves reports an error, and the whole file is parsed again
cut_file() {
    { echo "from numba import cuda"
      i=0
      while [ $i -lt 30 ]; do echo "# filler $i"; i=$((i + 1)); done
      cat; } > "$1"
}
cut_file str.kern <<'EOF'


@cuda.jit("void(float32[:])")
def k(a):
    """a docstring

@cuda.jit("void(float32[:])")
def fake(a):
    a[0] = 2.0
"""
    a[0] = 1.0


@cuda.jit("void(float32[:])")
def k2(a):
    a[0] = 3.0
EOF
cut_file brackets.kern <<'EOF'

T = (1,
     2,

@cuda.jit("void(float32[:])")
def k(a):
    a[0] = 1.0
EOF
cut_file continued.kern <<'EOF'

X = 1 + \

def f(a):
    return a
EOF
t=$((t + 1))
if same_split 1 "$(pwd)/str.kern" "$(pwd)/brackets.kern" "$(pwd)/continued.kern"; then
    echo "ok $t - a parse cut inside a string, brackets or a continued line: the whole file's"
else
    echo "not ok $t - a parse cut inside a string, brackets or a continued line: the whole file's"
fi
