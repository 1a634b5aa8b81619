#!/bin/sh
# tests/ufunc.sh - TAP tests of @vectorize, @guvectorize and cuda.reduce:
# each tests/ufunc/X.kern is translated with `kernc --target c`, compiled
# warning-free with its host program tests/ufunc/X.c (broadcasting and its
# errors, guvectorize shapes and errors, reductions against numba's results
# in tests/ufunc/reduce_ref.h) and run; with NVCC set, its CUDA output must
# compile with `nvcc -Werror all-warnings`.  Then `kernc run` calls each
# kind of function (inputs from tests/run/npytool.c, no Python needed).
#
# Environment: as tests/e2e.sh (KERNC, CC, KRT_INCLUDE, KRT_LIBS, NVCC,
# KRT_BACKEND, srcdir), and KERNC_INCLUDEDIR for kernc run.

srcdir=${srcdir:-.}
CC=${CC:-cc}
KERNC=${KERNC:-./kernc}
KRT_INCLUDE=${KRT_INCLUDE:-$srcdir/runtime}
KRT_LIBS=${KRT_LIBS:-"$srcdir/runtime/.libs/libkernrt.a -lpthread -lm"}
KRT_BACKEND=${KRT_BACKEND:-cpu}
KERNC_INCLUDEDIR=${KERNC_INCLUDEDIR:-$KRT_INCLUDE}
export KRT_BACKEND KERNC_INCLUDEDIR
CFLAGS_T="-std=c11 -O2 -Wall -Wextra -Werror"

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-ufunc.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -s "$work/err" ] && sed 's/^/# /' "$work/err" | head -30
}

if ! $CC $CFLAGS_T -I"$srcdir/tests" -c "$srcdir/tests/tap/basic.c" -o "$work/basic.o" 2> "$work/err" ||
   ! $CC -o "$work/npytool" "$srcdir/tests/run/npytool.c" -lm 2>> "$work/err"; then
    echo "Bail out! cannot compile the test tools"
    cat "$work/err" >&2
    exit 1
fi
npytool=$work/npytool

for name in vec gu red; do
    k=$srcdir/tests/ufunc/$name.kern
    out=$work/$name
    mkdir -p "$out"
    if $KERNC --target c -o "$out/$name.c" --header "$out/$name.kern.h" "$k" > "$work/err" 2>&1; then
        pass "$name: kernc --target c"
    else
        fail "$name: kernc --target c"
        continue
    fi
    if $CC $CFLAGS_T -I"$out" -I"$KRT_INCLUDE" -I"$srcdir/tests" -I"$srcdir/tests/ufunc" \
           -o "$out/test" "$srcdir/tests/ufunc/$name.c" "$out/$name.c" "$work/basic.o" \
           $KRT_LIBS > "$work/err" 2>&1; then
        "$out/test" > "$work/tap" 2> "$work/err"
        status=$?
        if [ "$status" -eq 0 ] && ! grep -q '^not ok' "$work/tap"; then
            pass "$name: $(grep -c '^ok' "$work/tap") checks on the $KRT_BACKEND backend"
        else
            grep '^not ok' "$work/tap" >> "$work/err"
            fail "$name: host program (exit status $status)"
        fi
    else
        fail "$name: generated C and host compile with $CFLAGS_T"
    fi
    if [ -n "$NVCC" ]; then
        if $KERNC -o "$out/$name.cu" --header "$out/$name.kern.h" "$k" > "$work/err" 2>&1 &&
           $NVCC -c -Werror all-warnings -I"$KRT_INCLUDE" -o "$out/$name.cu.o" "$out/$name.cu" \
               > "$work/err" 2>&1; then
            pass "$name: CUDA output compiles with nvcc -Werror all-warnings"
        else
            fail "$name: CUDA output compiles with nvcc -Werror all-warnings"
        fi
    fi
done

# ---- diagnostics: every error at its place, nothing written ----
for k in "$srcdir"/tests/ufunc/bad_*.kern; do
    name=$(basename "$k" .kern)
    (cd "$srcdir/tests/ufunc" && $KERNC --target c -o "$work/$name.c" "$name.kern") \
        > "$work/diag" 2>&1
    status=$?
    grep ': error: ' "$work/diag" > "$work/got"
    if [ "$status" -eq 1 ] && [ ! -e "$work/$name.c" ] &&
       diff -u "$srcdir/tests/ufunc/$name.err" "$work/got" > "$work/err"; then
        pass "$name: the expected errors"
    else
        fail "$name: the expected errors (exit status $status)"
    fi
done

# ---- kernc run ----
cd "$work" || exit 99
krun() { "$KERNC" run "$@" > "$work/out" 2> "$work/err"; }
$npytool make x.npy f4 2x3 list:3,5,8,-6,0,1.5
$npytool make y.npy f4 3 list:4,12,15
$npytool make o.npy f4 2x3 const:0
$npytool make a.npy f8 4x2x3 range
$npytool make b.npy f8 3x2 list:1,0,0,1,1,1
$npytool make c.npy f8 4x2x2 const:0
$npytool make r.npy i8 1000 range
$npytool make h.npy f4 129 const:0.5

if krun "$srcdir/tests/ufunc/vec.kern" hyp x.npy y.npy o.npy --outdir res &&
   $npytool check res/arg2.npy f4 2x3 list:5,13,17,7.2111025,12,15.074813; then
    pass "kernc run @vectorize: broadcast (2,3) with (3,)"
else
    fail "kernc run @vectorize: broadcast (2,3) with (3,)"
fi
if krun "$srcdir/tests/ufunc/vec.kern" hyp x.npy 4 o.npy --outdir res &&
   $npytool check res/arg2.npy f4 2x3 list:5,6.4031243,8.944272,7.2111025,4,4.272002; then
    pass "kernc run @vectorize: a literal scalar input"
else
    fail "kernc run @vectorize: a literal scalar input"
fi
# a[l] @ b for l < 4: row (r0, r1, r2) of a[l] gives (r0 + r2, r1 + r2)
if krun "$srcdir/tests/ufunc/gu.kern" matmul a.npy b.npy c.npy --outdir res &&
   $npytool check res/arg2.npy f8 4x2x2 \
       list:2,3,8,9,14,15,20,21,26,27,32,33,38,39,44,45,50,51,56,57,62,63,68,69; then
    pass "kernc run @guvectorize: matmul over 4 loop iterations"
else
    $npytool dump res/arg2.npy >> "$work/err" 2>&1
    fail "kernc run @guvectorize: matmul over 4 loop iterations"
fi
if krun "$srcdir/tests/ufunc/red.kern" sum_reduce r.npy && [ "$(cat "$work/out")" = 499500 ]; then
    pass "kernc run cuda.reduce: int64 sum printed"
else
    fail "kernc run cuda.reduce: int64 sum printed"
fi
if krun "$srcdir/tests/ufunc/red.kern" max_reduce r.npy 5000 && [ "$(cat "$work/out")" = 5000 ]; then
    pass "kernc run cuda.reduce: with an init"
else
    fail "kernc run cuda.reduce: with an init"
fi
if krun "$srcdir/tests/ufunc/red.kern" sum_reduce h.npy 0.25 && [ "$(cat "$work/out")" = 64.75 ]; then
    pass "kernc run cuda.reduce: float32 result as Python prints it"
else
    fail "kernc run cuda.reduce: float32 result as Python prints it"
fi
if ! krun "$srcdir/tests/ufunc/vec.kern" hyp x.npy r.npy o.npy &&
   grep -q "no signature of 'hyp' fits" "$work/err"; then
    pass "kernc run: an int64 array fits no signature of hyp"
else
    fail "kernc run: an int64 array fits no signature of hyp"
fi
$npytool make y4.npy f4 4 const:1
if ! krun "$srcdir/tests/ufunc/vec.kern" hyp x.npy y4.npy o.npy &&
   grep -q "do not broadcast" "$work/err"; then
    pass "kernc run: shapes that do not broadcast are refused"
else
    fail "kernc run: shapes that do not broadcast are refused"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
