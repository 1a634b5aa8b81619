"""sim_bench.py - numba's side of the comparison with its CUDA simulator.

A benchmark driver only (bench/run calls it; no build or test needs it):
under NUMBA_ENABLE_CUDASIM=1 it loads the very .kern files kernc translates
(they are valid Python and valid numba) and launches saxpy, the block
reduction and the tiled matmul with the sizes and launch configurations of
bench/sim_bench.c, which is kernc's side.

    NUMBA_ENABLE_CUDASIM=1 /usr/bin/python3 sim_bench.py \
        SAXPY_KERN REDUCE_KERN MATMUL_KERN SAXPY_N REDUCE_N MATMUL_N

prints "NUMBA name ms" per kernel: one launch after a one-block warm-up
(a simulated launch costs seconds, so there is no best-of-N), copies not
timed; each result is checked against NumPy and a wrong one fails the run.
"""
import importlib.machinery
import importlib.util
import os
import sys
import time

import numpy as np
from numba import cuda

SAXPY_TPB = 256
REDUCE_TPB = 256          # TPB in bench/reduce.kern
REDUCE_PER_THREAD = 16    # as in sim_bench.c
MATMUL_TPB = 16           # TPB in examples/matmul.kern


def load_kern(path):
    """Import a .kern file as a module (the suffix is not .py)."""
    name = os.path.basename(path).replace(".", "_")
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def cdiv(a, b):
    return (a + b - 1) // b


def timed(launch):
    t0 = time.perf_counter()
    launch()
    cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


def bench_saxpy(mod, n):
    i = np.arange(n)
    x = ((i % 1000) / np.float32(1000)).astype(np.float32)
    y = (i % 7).astype(np.float32)
    a = np.float32(0.5)
    dx = cuda.to_device(x)
    dy = cuda.to_device(y)
    mod.saxpy[1, SAXPY_TPB](dx, dy, a)                     # warm-up
    dy = cuda.to_device(y)
    ms = timed(lambda: mod.saxpy[cdiv(n, SAXPY_TPB), SAXPY_TPB](dx, dy, a))
    want = a * x + y
    got = dy.copy_to_host()
    return ms, int(np.sum(np.abs(got - want) > 1e-5 * (1 + np.abs(want))))


def bench_reduce(mod, n):
    blocks = cdiv(n, REDUCE_TPB * REDUCE_PER_THREAD)
    x = ((np.arange(n) % 1000) / np.float32(1000)).astype(np.float32)
    dx = cuda.to_device(x)
    dpartial = cuda.device_array(blocks, np.float32)
    mod.block_sum[1, REDUCE_TPB](dx, dpartial)             # warm-up
    ms = timed(lambda: mod.block_sum[blocks, REDUCE_TPB](dx, dpartial))
    got = float(dpartial.copy_to_host().astype(np.float64).sum())
    want = float(x.astype(np.float64).sum())
    return ms, int(abs(got - want) > 1e-4 * want)


def bench_matmul(mod, n):
    grid = cdiv(n, MATMUL_TPB)
    i, j = np.indices((n, n))
    a = (((i + 2 * j) % 7) / np.float32(4)).astype(np.float32)
    b = (((3 * i + j) % 5) - 2).astype(np.float32)
    da = cuda.to_device(a)
    db = cuda.to_device(b)
    dc = cuda.device_array((n, n), np.float32)
    block = (MATMUL_TPB, MATMUL_TPB)
    mod.fast_matmul[(1, 1), block](da, db, dc)             # warm-up
    ms = timed(lambda: mod.fast_matmul[(grid, grid), block](da, db, dc))
    want = a.astype(np.float64) @ b.astype(np.float64)
    got = dc.copy_to_host()
    return ms, int(np.sum(np.abs(got - want) > 1e-4 * (1 + np.abs(want))))


BENCHES = (("saxpy", bench_saxpy), ("reduce", bench_reduce),
           ("matmul", bench_matmul))


def main(argv):
    if len(argv) != 7:
        sys.stderr.write(__doc__)
        return 2
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        sys.stderr.write("sim_bench.py: set NUMBA_ENABLE_CUDASIM=1\n")
        return 2
    kerns, sizes = argv[1:4], [int(s) for s in argv[4:7]]
    modules = [load_kern(path) for path in kerns]
    for (name, bench), mod, n in zip(BENCHES, modules, sizes):
        ms, bad = bench(mod, n)
        if bad:
            sys.stderr.write("sim_bench.py: %s: %d wrong results\n" % (name, bad))
            return 1
        print("NUMBA %s %.4f" % (name, ms), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
