#!/bin/sh
# tests/conformance.sh - TAP entry point of the conformance suite: every
# tests/conformance/*.kern kernel run by `kernc run` on the CPU backend and
# compared with numba (compiled semantics through njit, or the CUDA
# simulator; where numba 0.56 models nothing, as for warp intrinsics,
# NumPy expectations written from CUDA's documented semantics), by
# tests/conformance/run.py.  That needs Debian's numba for
# /usr/bin/python3 (not a pyenv python3 on PATH); without it the suite is
# skipped as a whole.
#
# Environment: KERNC (the kernc binary), abs_top_srcdir or srcdir (where
# tests/ is), KERNC_INCLUDEDIR and LD_LIBRARY_PATH as set by `make check`;
# PYTHON overrides /usr/bin/python3.  Arguments: .kern files to run instead
# of all of them.

srcdir=$(cd "${abs_top_srcdir:-${srcdir:-.}}" && pwd) || exit 99
PYTHON=${PYTHON:-/usr/bin/python3}
KERNC=${KERNC:-./kernc}
export KERNC

if ! "$PYTHON" -c 'import numpy, numba' >/dev/null 2>&1; then
    echo "1..0 # SKIP numba not installed for $PYTHON"
    exit 0
fi
# The harness writes its temporary directories under TMPDIR; kernc run's
# compiler gets the runtime headers from KERNC_INCLUDEDIR.
: "${KERNC_INCLUDEDIR:=$srcdir/runtime}"
export KERNC_INCLUDEDIR
exec "$PYTHON" "$srcdir/tests/conformance/run.py" "$@"
