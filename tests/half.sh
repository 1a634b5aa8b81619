#!/bin/sh
# tests/half.sh - float16 with the C fallback of krt_f16: the float16
# conformance kernels (tests/conformance/half_*.kern) run again by
# tests/conformance.sh with CFLAGS=-DKRT_NO_FLOAT16, so that `kernc run`
# compiles them with krt_half (kernrt_half.h's software binary16) instead of
# the compiler's _Float16; both must give the same bits.
srcdir=$(cd "${abs_top_srcdir:-${srcdir:-.}}" && pwd) || exit 99
CFLAGS="${CFLAGS:+$CFLAGS }-DKRT_NO_FLOAT16"
export CFLAGS
exec "${SHELL:-/bin/sh}" "$srcdir/tests/conformance.sh" "$srcdir"/tests/conformance/half_*.kern
