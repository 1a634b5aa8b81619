#!/bin/sh
# tests/e2e.sh - end-to-end TAP tests of the emitter: every tests/e2e/X.kern
# is translated with `kernc --target c`, compiled warning-free (ISO C11, -pedantic) with
# its host program tests/e2e/X.c (which computes the expected values itself
# and prints TAP), linked with libkernrt and run; the host's own TAP lines
# are shown as comments.  With NVCC set, the CUDA output of each file
# (`kernc X.kern`, the default target) must also compile with
# `nvcc -Werror all-warnings`.
#
# Environment:
#   KERNC        the kernc binary (default ./kernc)
#   CC           C compiler (default cc)
#   KRT_INCLUDE  directory of kernrt.h and kernrt_device.h (default $srcdir/runtime)
#   KRT_LIBS     how to link libkernrt, e.g. "runtime/.libs/libkernrt.a -lpthread -lm"
#                (default: $srcdir/runtime/.libs/libkernrt.a -lpthread -lm)
#   NVCC         nvcc, optional
#   KRT_BACKEND  backend the host programs run on (default cpu)
#   srcdir       the source tree (default .)

srcdir=${srcdir:-.}
CC=${CC:-cc}
KERNC=${KERNC:-./kernc}
KRT_INCLUDE=${KRT_INCLUDE:-$srcdir/runtime}
KRT_LIBS=${KRT_LIBS:-"$srcdir/runtime/.libs/libkernrt.a -lpthread -lm"}
KRT_BACKEND=${KRT_BACKEND:-cpu}
export KRT_BACKEND
CFLAGS_E2E="-std=c11 -pedantic -O2 -Wall -Wextra -Werror"

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-e2e.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

kerns=$(ls "$srcdir"/tests/e2e/*.kern 2>/dev/null)
if [ -z "$kerns" ]; then
    echo "1..0 # SKIP no tests/e2e/*.kern"
    exit 0
fi
per=3
[ -n "$NVCC" ] && per=4
count=0
for k in $kerns; do count=$((count + per)); done
echo "1..$count"

n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -s "$work/err" ] && sed 's/^/# /' "$work/err" | head -30
}

if ! $CC $CFLAGS_E2E -I"$srcdir/tests" -c "$srcdir/tests/tap/basic.c" -o "$work/basic.o" 2> "$work/err"; then
    echo "Bail out! cannot compile tests/tap/basic.c"
    exit 1
fi

for k in $kerns; do
    name=$(basename "$k" .kern)
    host=$srcdir/tests/e2e/$name.c
    out=$work/$name
    mkdir -p "$out"
    if $KERNC --target c -o "$out/$name.c" --header "$out/$name.kern.h" "$k" > "$work/err" 2>&1; then
        pass "$name: kernc --target c"
    else
        fail "$name: kernc --target c"
        n=$((n + per - 1)); failed=$((failed + per - 1))
        continue
    fi
    if $CC $CFLAGS_E2E -I"$out" -I"$KRT_INCLUDE" -I"$srcdir/tests" -I"$srcdir/tests/e2e" \
           -o "$out/test" "$host" "$out/$name.c" "$work/basic.o" $KRT_LIBS > "$work/err" 2>&1; then
        pass "$name: generated C and host compile with $CFLAGS_E2E"
        "$out/test" > "$work/tap" 2> "$work/err"
        status=$?
        if [ "$status" -eq 0 ]; then
            pass "$name: $(grep -c '^ok' "$work/tap") checks on the $KRT_BACKEND backend"
        else
            grep -v '^ok' "$work/tap" >> "$work/err"
            fail "$name: host program (exit status $status)"
        fi
    else
        fail "$name: generated C and host compile with $CFLAGS_E2E"
        n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $name: not run"
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
[ "$failed" -eq 0 ]
