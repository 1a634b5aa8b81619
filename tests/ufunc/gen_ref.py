#!/usr/bin/python3
"""gen_ref.py - reference results of cuda.reduce for tests/ufunc/reduce.c.

Run once with Debian's numba (`/usr/bin/python3 tests/ufunc/gen_ref.py >
tests/ufunc/reduce_ref.h`); the output is kept in the tree, so the tests
need no Python.

The order in which numba's cuda.reduce associates its operands is that of
the GPU kernel in numba/cuda/kernels/reduction.py: numba's CUDA simulator
does NOT run that kernel (its cuda.reduce is functools.reduce, a left
fold, and it has no cuda.syncwarp), so it cannot tell the GPU's float
result.  This script therefore reads numba's reduction.py, checks that it
is the kernel transcribed below (same constants, same steps), and replays
that kernel's launches and association order on the host with NumPy
scalars of the element type, which round exactly as the GPU's IEEE
arithmetic does for + and max.  The sequential simulator result is printed
as a comment next to each value, for comparison.

The data come from a 64-bit LCG that tests/ufunc/reduce.c reproduces, with
values exactly representable in the element type.
"""
import inspect
import sys

import numpy as np
import numba
import numba.cuda.kernels.reduction as red

WARPSIZE, NUMWARPS = 32, 4
BLOCK = WARPSIZE * NUMWARPS
M64 = (1 << 64) - 1


def check_numba_source():
    src = inspect.getsource(red)
    must = [
        "_WARPSIZE = 32", "_NUMWARPS = 4",
        "width = _WARPSIZE // 2",
        "sm_this[laneid] = reduce_op(old, sm_this[laneid + width])",
        "sm_partials[tid, 0] = reduce_op(sm_partials[tid, 0],",
        "partials[blkid] = reduce_op(sm_partials[0, 0], sm_partials[1, 0])",
        "if (warpid + 1) * _WARPSIZE < size:",
        "sm_this[0] = reduce_op(sm_this[0], sm_this[i])",
        "result = reduce_op(result, sm_partials[i, 0])",
        "partials[0] = reduce_op(partials[0], init)",
        "full_blockct = min(size_full // blocksize, _WARPSIZE * 2)",
        "not full_blockct)",
        "kernel[1, partials_size, stream](partials, partials, init, False)",
    ]
    for m in must:
        if m not in src:
            sys.exit("numba's reduction.py changed: missing %r" % m)


def lcg_values(n, seed, kind):
    x = seed
    out = []
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        e = (x >> 20) & 15
        if kind == "f4":
            out.append(np.float32(((x >> 40) / 16777216.0 - 0.5) * 2.0 ** e))
        elif kind == "f8":
            out.append(np.float64(((x >> 11) / 9007199254740992.0 - 0.5) * 2.0 ** e))
        elif kind == "i4":
            out.append(np.int32(np.uint32(x >> 32).view(np.int32)))
        else:  # i8
            out.append(np.int64(np.uint64(x).view(np.int64)))
    return out


def kernel(op, arr, partials, pbase, init, use_init, grid, block):
    """One launch of gpu_reduce_block_strided: arr is a list; partials a
    list written at pbase + blockIdx."""
    size = len(arr)
    for blkid in range(grid):
        sm = [[None] * (WARPSIZE + 1) for _ in range(NUMWARPS)]
        if block == BLOCK:                       # device_reduce_full_block
            for tid in range(block):
                start = tid + block * blkid
                step = block * grid
                tmp = arr[start]
                for i in range(start + step, size, step):
                    tmp = op(tmp, arr[i])
                sm[tid // WARPSIZE][tid % WARPSIZE] = tmp
            for w in range(NUMWARPS):
                width = WARPSIZE // 2
                while width:
                    for lane in range(width):
                        sm[w][lane] = op(sm[w][lane], sm[w][lane + width])
                    width //= 2
            for tid in range(2):
                sm[tid][0] = op(sm[tid][0], sm[tid + 2][0])
            partials[pbase + blkid] = op(sm[0][0], sm[1][0])
        else:                                    # device_reduce_partial_block
            for tid in range(block):
                sm[tid // WARPSIZE][tid % WARPSIZE] = arr[tid]
            nwarps = (block + WARPSIZE - 1) // WARPSIZE
            for w in range(nwarps):
                if (w + 1) * WARPSIZE < size:
                    width = WARPSIZE // 2
                    while width:
                        for lane in range(width):
                            sm[w][lane] = op(sm[w][lane], sm[w][lane + width])
                        width //= 2
                else:
                    base = w * WARPSIZE
                    for i in range(1, size - base):
                        sm[w][0] = op(sm[w][0], sm[w][i])
            result = sm[0][0]
            for i in range(1, nwarps):
                result = op(result, sm[i][0])
            partials[pbase + blkid] = result
        if use_init and blkid == 0:
            partials[pbase] = op(partials[pbase], init)


def gpu_reduce(op, arr, init):
    """Reduce.__call__, launch by launch."""
    n = len(arr)
    if n < 1:
        return init
    size_full = n // BLOCK * BLOCK
    size_partial = n - size_full
    full_blockct = min(size_full // BLOCK, WARPSIZE * 2)
    partials = [None] * (full_blockct + (1 if size_partial else 0))
    if size_full:
        kernel(op, arr[:size_full], partials, 0, init, True, full_blockct, BLOCK)
    if size_partial:
        kernel(op, arr[size_full:], partials, full_blockct, init, not full_blockct, 1,
               size_partial)
    if len(partials) > 1:
        kernel(op, list(partials), partials, 0, init, False, 1, len(partials))
    return partials[0]


def cast(kind, v):
    return {"f4": np.float32, "f8": np.float64, "i4": np.int32, "i8": np.int64}[kind](v)


def main():
    check_numba_source()
    lengths = [0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 1000, 8191, 8192,
               8193, 9973, 100003, 1 << 20]
    cases = [("sum", "f4", 0.5), ("sum", "f8", -0.25), ("max", "f4", -1e30),
             ("sum", "i4", 7), ("max", "i8", -(1 << 62))]
    print("/* Generated by tests/ufunc/gen_ref.py with numba %s, numpy %s: do not edit."
          % (numba.__version__, np.__version__))
    print(" * numba cuda.reduce results (GPU association order) for the LCG data of")
    print(" * reduce.c: {op, type code, length, seed, init, result}; floats as bits. */")
    print("static const struct reduce_ref {")
    print("    const char *op, *code;")
    print("    long long n;")
    print("    unsigned long long seed;")
    print("    double init;")
    print("    unsigned long long bits;   /* the result's bits (ints: the value) */")
    print("} reduce_refs[] = {")
    for opname, kind, init in cases:
        for n in lengths:
            if kind != "f4" and n > 100003:
                continue
            seed = (n * 2654435761 + len(kind) * 97 + (opname == "max")) & M64
            data = lcg_values(n, seed, kind)
            t = cast(kind, 0).dtype.type

            def op(a, b, t=t):
                # numba: a + b of two ints is int64, stored back as the
                # element type (wraps); floats keep their type.
                if opname == "sum":
                    r = np.add(a, b, dtype=np.int64 if kind[0] == "i" else None)
                else:
                    r = max(a, b)
                return t(np.array(r).astype(t))

            iv = cast(kind, init)
            got = gpu_reduce(op, data, iv)
            seq = iv
            for v in data:
                seq = op(seq, v)
            if kind == "f4":
                bits = int(np.float32(got).view(np.uint32))
            elif kind == "f8":
                bits = int(np.float64(got).view(np.uint64))
            else:
                bits = int(got) & M64
            print("    {\"%s\", \"%s\", %d, %dull, %r, 0x%xull},   /* %r; left fold %r */"
                  % (opname, kind, n, seed, float(init), bits, got.item(), seq.item()))
    print("};")


if __name__ == "__main__":
    with np.errstate(over="ignore"):
        main()
