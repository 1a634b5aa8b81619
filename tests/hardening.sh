#!/bin/sh
# tests/hardening.sh - TAP: issue 13's item 11 in the generated code.
# Arrays written but never read (tests/hardening/write_only.kern) compile
# with `nvcc -Werror all-warnings` (no #550-D "set but never used") and
# with `cc -Wall -Wextra -Werror`; arrays that are read keep a plain
# declaration.  Without nvcc its tests are skipped.
#
# Environment: KERNC, srcdir, CC, NVCC (optional), KERNC_INCLUDEDIR.
srcdir=${srcdir:-.}
CC=${CC:-cc}
KERNC=${KERNC:-./kernc}
inc=${KERNC_INCLUDEDIR:-$srcdir/runtime}
k=$srcdir/tests/hardening/write_only.kern
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-hardening.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

echo "1..5"
n=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$work/err" | head -20; }

if "$KERNC" -o "$work/w.cu" --header "$work/w.kern.h" "$k" 2> "$work/err" &&
   "$KERNC" --target c -o "$work/w.c" --header "$work/w2.kern.h" "$k" 2>> "$work/err"; then
    pass "write_only.kern translates"
else fail "write_only.kern translates"; fi
if grep -q '__shared__ float s\[32\] KRT_MAYBE_UNUSED;' "$work/w.cu" &&
   grep -q '__shared__ int32_t s\[4\]\[8\] KRT_MAYBE_UNUSED;' "$work/w.cu" &&
   grep -q '^    __shared__ float s\[32\];$' "$work/w.cu"; then
    pass "only the arrays never read are marked"
else grep -n '__shared__' "$work/w.cu" > "$work/err"; fail "only the arrays never read are marked"; fi
if $CC -std=c11 -Wall -Wextra -Werror -I"$inc" -c -o "$work/w.o" "$work/w.c" 2> "$work/err"; then
    pass "cc -Wall -Wextra -Werror"
else fail "cc -Wall -Wextra -Werror"; fi
if [ -n "$NVCC" ] && command -v "$NVCC" > /dev/null 2>&1; then
    if "$NVCC" -arch=sm_90 -Werror all-warnings -I"$inc" -c -o "$work/w_cu.o" "$work/w.cu" 2> "$work/err"; then
        pass "nvcc -Werror all-warnings"
    else fail "nvcc -Werror all-warnings"; fi
    if "$KERNC" -g -o "$work/g.cu" --header "$work/g.kern.h" "$k" 2> "$work/err" &&
       "$NVCC" -arch=sm_90 -Werror all-warnings -I"$inc" -c -o "$work/g_cu.o" "$work/g.cu" 2>> "$work/err"; then
        pass "nvcc -Werror all-warnings, with -g"
    else fail "nvcc -Werror all-warnings, with -g"; fi
else
    n=$((n + 1)); echo "ok $n - nvcc -Werror all-warnings # SKIP no nvcc"
    n=$((n + 1)); echo "ok $n - nvcc -Werror all-warnings, with -g # SKIP no nvcc"
fi
exit 0
