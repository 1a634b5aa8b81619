#!/bin/sh
# tests/difffuzz.sh - TAP entry point of the differential fuzzer
# (tests/difffuzz.py): DIFFFUZZ_COUNT random kernels (default 20) from
# DIFFFUZZ_SEED (default 1, so that a run is repeatable), each run by
# `kernc run` and compared with numba through the conformance harness; a
# mismatch prints the kernel.  Skipped without Debian's numba, as the
# conformance suite.  Other seeds and counts explore further:
#   DIFFFUZZ_SEED=7 DIFFFUZZ_COUNT=200 make check TESTS=tests/difffuzz.sh

srcdir=$(cd "${abs_top_srcdir:-${srcdir:-.}}" && pwd) || exit 99
PYTHON=${PYTHON:-/usr/bin/python3}
KERNC=${KERNC:-./kernc}
export KERNC

if ! "$PYTHON" -c 'import numpy, numba' >/dev/null 2>&1; then
    echo "1..0 # SKIP numba not installed for $PYTHON"
    exit 0
fi
: "${KERNC_INCLUDEDIR:=$srcdir/runtime}"
export KERNC_INCLUDEDIR
exec "$PYTHON" "$srcdir/tests/difffuzz.py" --count "${DIFFFUZZ_COUNT:-20}" \
    --seed "${DIFFFUZZ_SEED:-1}"
