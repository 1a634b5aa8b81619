#!/bin/sh
# tests/simd.sh - TAP tests of KRT_SIMD_CLONES (kernrt_device.h): a CPU
# kernel with loops over chunks of threads is compiled twice, for AVX2 and
# for the baseline, and the loader picks the AVX2 copy where the CPU has
# it.  On x86-64 with glibc, the object of such a kernel (the conformance
# suite's shared_scan) must hold the AVX2 copy, so that the feature cannot
# vanish unseen; and every conformance test whose C has KRT_SIMD_CLONES
# runs again, compiled with -DKRT_NO_SIMD_CLONES (the baseline copy alone),
# against numba (tests/conformance.sh runs them with both copies, so the
# AVX2 one on such a CPU).  Those runs are skipped without numba, as the
# conformance suite is.
#
# Environment: KERNC (the kernc binary), abs_top_srcdir or srcdir, CC,
# KERNC_INCLUDEDIR and LD_LIBRARY_PATH as set by `make check`; PYTHON
# overrides /usr/bin/python3.

srcdir=$(cd "${abs_top_srcdir:-${srcdir:-.}}" && pwd) || exit 99
PYTHON=${PYTHON:-/usr/bin/python3}
KERNC=${KERNC:-./kernc}
CC=${CC:-cc}
: "${KERNC_INCLUDEDIR:=$srcdir/runtime}"
export KERNC KERNC_INCLUDEDIR

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-simd.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

# the conformance tests with clones
set --
for k in "$srcdir"/tests/conformance/*.kern; do
    "$KERNC" --target c -o "$work/k.c" --header "$work/k.h" "$k" 2>/dev/null &&
        grep -q '^KRT_SIMD_CLONES ' "$work/k.c" && set -- "$@" "$k"
done
numba=yes
"$PYTHON" -c 'import numpy, numba' >/dev/null 2>&1 || numba=no
if [ $numba = yes ]; then echo "1..$(($# + 1))"; else echo "1..1"; fi

name="shared_scan's object holds an AVX2 copy of its CPU kernel"
if [ "$(uname -m)" != x86_64 ] || ! getconf GNU_LIBC_VERSION >/dev/null 2>&1; then
    echo "ok 1 - $name # SKIP not x86-64 with glibc"
elif ! "$KERNC" --target c -o "$work/scan.c" --header "$work/scan.kern.h" \
        "$srcdir/tests/conformance/shared_scan.kern" 2> "$work/err" ||
     ! $CC -O2 -I"$KERNC_INCLUDEDIR" -I"$work" -c -o "$work/scan.o" "$work/scan.c" 2>> "$work/err"; then
    echo "not ok 1 - $name"
    sed 's/^/# /' "$work/err" | head -20
elif nm "$work/scan.o" | grep -q '__cpu\.avx2'; then
    echo "ok 1 - $name"
else
    echo "not ok 1 - $name"
    nm "$work/scan.o" | grep __cpu | sed 's/^/# /'
fi

[ $numba = yes ] || { echo "# the runs without clones: numba not installed for $PYTHON"; exit 0; }
# run.py's TAP, renumbered after test 1
CFLAGS="${CFLAGS:+$CFLAGS }-DKRT_NO_SIMD_CLONES" "$PYTHON" "$srcdir/tests/conformance/run.py" "$@" |
    awk -v n=1 '/^1\.\.[0-9]+$/ { next }
                /^(not )?ok [0-9]+ - / { n++; sub(/ok [0-9]+ - /, "ok " n " - -DKRT_NO_SIMD_CLONES: ") }
                { print }'
