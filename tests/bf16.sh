#!/bin/sh
# tests/bf16.sh - bfloat16 arrays and scalars through `kernc run`: the .npy
# files NumPy writes for ml_dtypes.bfloat16 arrays ('<V2', and '|V2' once
# loaded and saved again without ml_dtypes) are read as bfloat16, results
# are written as '<V2' with the bits the GPU computes, scalars parse with
# round to nearest even and refuse what overflows.  The files are made and
# checked with NumPy (no ml_dtypes: the bits are built by hand).
#
# Environment: KERNC (the kernc binary), srcdir (default .), PYTHON
# (default /usr/bin/python3), KERNC_INCLUDEDIR, KRT_BACKEND (cpu).
srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
PYTHON=${PYTHON:-/usr/bin/python3}
KRT_BACKEND=${KRT_BACKEND:-cpu}
export KRT_BACKEND
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "1..0 # SKIP no NumPy for $PYTHON"
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-bf16-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cat > "$work/k.kern" <<'KERN'
from numba import cuda
from numba.cuda.bf16 import bfloat16


@cuda.jit("void(bfloat16[::1], bfloat16[::1], bfloat16)")
def axpy(x, y, a):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]
KERN
echo "1..4"
# x = [1, 2.5, -3, 0.1] and y = [0.5, 1, 2, 100] as bfloat16 bits
"$PYTHON" - "$work" <<'PY'
import sys, numpy as np
w = sys.argv[1]
def save(path, bits, descr):
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": descr, "fortran_order": False,
                                                 "shape": (len(bits),)})
        f.write(np.array(bits, dtype="<u2").tobytes())
save(w + "/x.npy", [0x3f80, 0x4020, 0xc040, 0x3dcd], "<V2")
save(w + "/y.npy", [0x3f00, 0x3f80, 0x4000, 0x42c8], "<V2")
save(w + "/x2.npy", [0x3f80, 0x4020, 0xc040, 0x3dcd], "|V2")
PY
check() {   # check DIR: y = 1.5 * x + y rounded once: 2.0 4.75 -2.5 100.0
    "$PYTHON" - "$1/arg1.npy" <<'PY'
import sys, numpy as np
with open(sys.argv[1], "rb") as f:
    v = np.lib.format.read_magic(f)
    h = np.lib.format.read_array_header_1_0(f) if v == (1, 0) else None
    data = np.frombuffer(f.read(), dtype="<u2")
want = np.array([0x4000, 0x4098, 0xc020, 0x42c8], dtype="<u2")
ok = h is not None and h[2] == np.dtype("V2") and (data == want).all()
with open(sys.argv[1], "rb") as f:
    ok = ok and b"'descr': '<V2'" in f.read(128)
sys.exit(0 if ok else 1)
PY
}
if "$KERNC" run "$work/k.kern" axpy --backend cpu --grid 1 --block 4 "$work/x.npy" \
        "$work/y.npy" 1.5 --outdir "$work/o1" > "$work/out1" 2>&1 && check "$work/o1"; then
    echo "ok 1 - '<V2' (ml_dtypes.bfloat16) arrays in, '<V2' out, GPU bits"
else
    echo "not ok 1 - '<V2' (ml_dtypes.bfloat16) arrays in, '<V2' out, GPU bits"
    sed 's/^/# /' "$work/out1"
fi
if "$KERNC" run "$work/k.kern" axpy --backend cpu --grid 1 --block 4 "$work/x2.npy" \
        "$work/y.npy" 1.5 --outdir "$work/o2" > "$work/out2" 2>&1 && check "$work/o2"; then
    echo "ok 2 - '|V2' arrays in"
else
    echo "not ok 2 - '|V2' arrays in"
    sed 's/^/# /' "$work/out2"
fi
# 1.50390625 is a tie between 1.5 (even) and 1.5078125: 1.5, as 1.5 above
if "$KERNC" run "$work/k.kern" axpy --backend cpu --grid 1 --block 4 "$work/x.npy" \
        "$work/y.npy" 1.50390625 --outdir "$work/o3" > "$work/out3" 2>&1 && check "$work/o3"; then
    echo "ok 3 - a bfloat16 scalar rounds to nearest even"
else
    echo "not ok 3 - a bfloat16 scalar rounds to nearest even"
    sed 's/^/# /' "$work/out3"
fi
"$KERNC" run "$work/k.kern" axpy --backend cpu --grid 1 --block 4 "$work/x.npy" \
    "$work/y.npy" 1e39 --outdir "$work/o4" > "$work/out4" 2>&1
s=$?
if [ $s -ne 0 ] && grep -q "out of range for bfloat16" "$work/out4" && [ ! -e "$work/o4/arg1.npy" ]; then
    echo "ok 4 - a scalar past bfloat16's range is refused"
else
    echo "not ok 4 - a scalar past bfloat16's range is refused"
    sed 's/^/# /' "$work/out4"
fi
