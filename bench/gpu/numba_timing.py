"""numba_timing.py [N [REPEAT [SIDE [SAMPLES]]]] - numba-cuda's timings of the kernels
that tests/gpu/timing.sh times for kernc, on the same .kern files, sizes and
launch configurations (Monte Carlo: min(N, 2^18) threads drawing SAMPLES
points each, matmul min(SIDE, 1024) square): CUDA events around each launch, one warm-up launch
first (it also compiles), the minimum of REPEAT launches; the streaming
kernels' effective bandwidth.  Run with a Python that has numba-cuda 0.30;
exit status 77 (skipped) without numba-cuda or without a CUDA device."""
import os
import sys

try:
    import numpy as np
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states
except ImportError as e:
    print("numba_timing: SKIP: %s" % e)
    sys.exit(77)
if not cuda.is_available():
    print("numba_timing: SKIP: no CUDA device")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 24
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 20
side = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
samples = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
mods = {}


def kernel(path, name):
    """the @cuda.jit kernel NAME of a .kern file (numba's own decorator)"""
    if path not in mods:
        env = {"__name__": os.path.basename(path)[:-5]}
        exec(compile(open(path).read(), path, "exec"), env)
        mods[path] = env
    return mods[path][name]


def run(name, nbytes, path, kname, grid, block, *args):
    k = kernel(os.path.join(top, path), kname)[grid, block]
    k(*args)                       # warm-up (and compilation)
    cuda.synchronize()
    a, b = cuda.event(), cuda.event()
    best = float("inf")
    for _ in range(repeat):
        a.record()
        k(*args)
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b))
    if nbytes:
        print("%-12s %10.4f ms %8.1f GB/s" % (name, best, nbytes / (best * 1e-3) / 1e9))
    else:
        print("%-12s %10.4f ms" % (name, best))


rng = np.random.default_rng(1)
f32 = lambda m: cuda.to_device(rng.random(m, dtype=np.float32))
blocks = (n + 255) // 256
print("kernel             time  (numba-cuda, min of %d launches after a warm-up)" % repeat)
run("saxpy", 12 * n, "bench/sass/saxpy.kern", "saxpy", blocks, 256, f32(n), f32(n), np.float32(2.5))
run("axpy2d", 24 * side * side, "bench/sass/axpy2d.kern", "axpy2d", (side // 16, side // 16), (16, 16),
    cuda.device_array((side, side)), cuda.to_device(rng.random((side, side))),
    cuda.to_device(rng.random((side, side))), 2.0)
run("block_sum", 4 * n, "bench/sass/reduce.kern", "block_sum", 1024, 256, f32(n),
    cuda.device_array(1024, np.float32))
run("histogram", 0, "bench/sass/histogram.kern", "histogram", 1024, 256,
    cuda.to_device(np.arange(n, dtype=np.int32)), cuda.to_device(np.zeros(16, np.int32)))
m = min(side, 1024)
run("fast_matmul", 0, "bench/sass/matmul.kern", "fast_matmul", (m // 16, m // 16), (16, 16),
    f32((m, m)), f32((m, m)), cuda.device_array((m, m), np.float32))
run("block_scan", 0, "bench/sass/scan.kern", "block_scan", blocks, 256,
    cuda.to_device(np.arange(n, dtype=np.int32)), cuda.device_array(n, np.int32))
run("stencil1d", 0, "bench/sass/stencil.kern", "stencil1d", (n + 127) // 128, 128, f32(n),
    cuda.device_array(n, np.float32))
run("warp_sum", 0, "bench/sass/warpsum.kern", "warp_sum", blocks, 256, f32(n),
    cuda.device_array(n // 32, np.float32))
run("gridstride", 12 * n, "examples/gridstride.kern", "saxpy_stride", 1024, 256, f32(n), f32(n),
    np.float32(2.5))
mc = min(n, 1024 * 256)
run("montecarlo", 0, "examples/montecarlo_pi.kern", "count_inside", (mc + 255) // 256, 256,
    create_xoroshiro128p_states(mc, seed=1), samples, cuda.device_array(mc, np.int64))
