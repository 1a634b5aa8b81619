#!/bin/sh
# tests/complex.sh - TAP tests of complex64/complex128 in `kernc run`:
# complex literals on the command line, complex arrays made by the
# generators, printed as Python's repr, written back as '<c8'/'<c16' .npy
# files, a bad literal refused with a usage error, a complex division by
# zero, cuda.reduce, @vectorize and @guvectorize over complex, NumPy
# ufuncs on complex inside a @vectorize function.
#
# Environment: KERNC (the kernc binary), srcdir (default .), KERNC_INCLUDEDIR.

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
KRT_BACKEND=${KRT_BACKEND:-cpu}
export KRT_BACKEND
kern=$srcdir/tests/complex/kernels.kern
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-complex-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

echo "1..11"
n=0
failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; sed 's/^/# /' "$work/out" | head -10; fi; }

"$KERNC" run "$kern" scale --grid 1 --block 4 'arange(4)' '1+2j' --outdir "$work/o1" > "$work/out" 2>&1
grep -q '(2+2j) (4+4j) (6+6j)' "$work/out"; ok $? "complex64: arange(4) * (1+2j) + i, printed as Python's repr"
head -c 128 "$work/o1/arg0.npy" | grep -q "'<c8'"; ok $? "complex64 array written back as a '<c8' .npy file"
"$KERNC" run "$kern" shift --grid 1 --block 4 'zeros(2)' '(0.5-1e20j)' > "$work/out" 2>&1
grep -q '(0.5-1e+20j) (0.5-1e+20j)' "$work/out"; ok $? "complex128: a literal in Python's repr form, (0.5-1e+20j)"
"$KERNC" run "$kern" shift --grid 1 --block 4 "$work/o1/arg0.npy" '3j' > "$work/out" 2>&1
test $? -eq 1 && grep -q 'complex64' "$work/out"; ok $? "a complex64 .npy for a complex128 parameter is refused"
"$KERNC" run "$kern" shift --grid 1 --block 4 'zeros(2)' '1+2k' > "$work/out" 2>&1
test $? -eq 2 && grep -q 'expected a complex number' "$work/out"; ok $? "a bad complex literal is a usage error"
"$KERNC" run "$kern" divide --grid 1 --block 4 'full(3, 1)' 'zeros(3)' > "$work/out" 2>&1
test $? -eq 1 && grep -q 'kernels.kern:24: ZeroDivisionError: complex division by zero' "$work/out"
ok $? "complex division by zero: numba's ZeroDivisionError fails the CPU launch"
"$KERNC" run "$kern" csum 'full(4, 0.5j, complex128)' '1+1j' > "$work/out" 2>&1
grep -qx '(1+3j)' "$work/out"; ok $? "cuda.reduce over complex128 with a complex init: (1+3j)"
"$KERNC" run "$kern" cmul 'full(3, 2, complex64)' '1+1j' 'zeros(3, complex64)' > "$work/out" 2>&1
grep -q '(2+2j) (2+2j) (2+2j)' "$work/out"; ok $? "@vectorize over complex64 with a complex scalar"
"$KERNC" run "$kern" cmul 'full(2, 1j, complex128)' 'full(2, 3, float64)' 'zeros(2, complex128)' > "$work/out" 2>&1
grep -q '3j 3j' "$work/out"; ok $? "@vectorize: the complex128 x float64 signature chosen by the dtypes"
"$KERNC" run "$kern" cnorm 'full((2, 3), 1+1j, complex128)' 'zeros(2, complex64)' > "$work/out" 2>&1
grep -q '(6+0j) (6+0j)' "$work/out"; ok $? "@guvectorize over complex128 into complex64: sum of |z|^2"
"$KERNC" run "$kern" ctanh 'full(2, 0.5+0.25j, complex128)' 'zeros(2, complex128)' > "$work/out" 2>&1
grep -q '(0.9854872810241354+0.4480554499513495j)' "$work/out"; ok $? "@vectorize calling np.tanh and np.maximum on complex128 (numba's tanh formula)"
exit $((failed != 0))
