#!/bin/sh
# tests/suite.sh - TAP tests of what the numba-cuda suite replay needed in
# `kernc run` (issues 8/9): under debug=True a division, floor division or
# modulo by zero raises ZeroDivisionError with numba's message (its Python
# error model) and fails the launch, without debug it gives NumPy's inf and
# 0; a file of xoroshiro128p states (numba.cuda.random's dtype) passes for
# a record parameter of the same fields.
#
# Environment: KERNC (the kernc binary), srcdir (default .), KERNC_INCLUDEDIR.

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
KRT_BACKEND=${KRT_BACKEND:-cpu}
export KRT_BACKEND
kern=$srcdir/tests/suite/kernels.kern
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-suite-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

echo "1..6"
n=0
failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; sed 's/^/# /' "$work/out" | head -10; fi; }

"$KERNC" run "$kern" divide_dbg --grid 1 --block 1 'zeros(4)' 'full(4, 3)' > "$work/out" 2>&1
test $? -eq 1 && grep -q "exception raised in a kernel: .*ZeroDivisionError: In function 'divide_dbg', file kernels.kern, line 10, tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: division by zero" "$work/out"
ok $? "debug=True: a float division by zero raises ZeroDivisionError and fails the launch"
"$KERNC" run "$kern" divide_dbg --grid 1 --block 1 'full(4, 2.0)' 'zeros(4, int64)' > "$work/out" 2>&1
test $? -eq 1 && grep -q "line 11, .*: integer division by zero" "$work/out"
ok $? "debug=True: an integer floor division by zero: 'integer division by zero'"
"$KERNC" run "$kern" divide_dbg --grid 1 --block 1 'full(4, 2.0)' 'full(4, 3)' > "$work/out" 2>&1
test $? -eq 0 && grep -q "^\[1\. 2\. 2\. 0\.\]$" "$work/out" && grep -q "^\[1 3 3 0\]$" "$work/out"
ok $? "debug=True: no divisor zero, no exception (2/2, 3//3, 3%3, 2.0%2.0)"
/usr/bin/python3 -c "
import numpy as np
np.save('$work/states.npy', np.array([(1, 2), (3, 4)], dtype=np.dtype([('s0', np.uint64), ('s1', np.uint64)], align=True)))
np.save('$work/r.npy', np.array([5.0, 1.0, 0.0]))
np.save('$work/k.npy', np.array([5, 0, 0]))
" > "$work/out" 2>&1 || { for i in 4 5 6; do echo "ok $i # SKIP no numpy"; done; exit 0; }
"$KERNC" run "$kern" divide --grid 1 --block 1 "$work/r.npy" "$work/k.npy" > "$work/out" 2>&1
test $? -eq 0 && grep -q "^\[inf  1\.  0\.\]$" "$work/out" && grep -q "^\[0 0 0\]$" "$work/out"
ok $? "without debug: NumPy's error model (1.0/0.0 is inf, 0//0 is 0)"
"$KERNC" run "$kern" state_sum --grid 1 --block 2 "$work/states.npy" 'zeros(2, uint64)' --outdir "$work/o" > "$work/out" 2>&1
test $? -eq 0 && grep -q "^\[3 7\]$" "$work/out"
ok $? "a file of xoroshiro128p states passes for a record parameter with its fields"
/usr/bin/python3 -c "
import numpy as np
a = np.load('$work/o/arg0.npy')
assert a.dtype.names == ('s0', 's1') and a['s1'].tolist() == [1, 3], a
" > "$work/out" 2>&1
ok $? "and is written back as those records"
test $failed -eq 0
