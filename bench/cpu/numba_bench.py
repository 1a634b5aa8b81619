"""bench/cpu/numba_bench.py - bench/cpu's numba columns (bench/cpu/run runs it).

Two modes, for the kernels of bench/cpu/*.kern on the inputs cpu_bench.c
builds (the same formulas, so the sums agree):

  prange SCALE [NAME...]  numba's CPU version of each kernel, written with
      numba.njit(parallel=True) and prange over the work (NUMBA_NUM_THREADS
      threads: default all cores), at cpu_bench's sizes divided by SCALE:
      best of 5 after a warm-up (the compile); the result checked against a
      NumPy computation of the same thing.  Prints
      "NUMBA name units best_ms checksum" (checksum: the sum of the output,
      which cpu_bench prints too, so bench/cpu/run checks the two equal).
  sim N [NAME...]  the .kern kernel itself under numba's CUDA simulator
      (run it with NUMBA_ENABLE_CUDASIM=1; bench/cpu/run does) on about N
      elements (the simulator runs each CUDA thread as a Python thread:
      some 10^4 times slower), one run, the result checked against NumPy.
      Prints "SIM name units ms" or "SIMSKIP name reason" (a kernel the
      simulator cannot run, e.g. warp shuffles in numba 0.56).

Run with the Python that has numba (Debian's /usr/bin/python3: numba 0.56).
Exit status 1 when a result differs.
"""
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODE = sys.argv[1] if len(sys.argv) > 1 else "prange"
RUNS = 5


def small_floats(m, mod):
    return ((np.arange(m, dtype=np.int64) * 7 + 3) % mod).astype(np.float32)


def ints(m):
    return ((np.arange(m, dtype=np.int64) * 2654435761 >> 7) & 1023).astype(np.int32)


def ew2d_shape(scale):
    rows = 4096 // (4 if scale >= 16 else 2 if scale >= 4 else 1)
    return rows, 16 * 1024 * 1024 // scale // rows


def matmul_side(scale):
    return 128 if scale >= 64 else 256 if scale >= 8 else 512


def mc_sizes(scale):
    nstates = 16384 // (4 if scale >= 16 else 1)
    return nstates, 16 * 1024 * 1024 // scale // nstates


# ---- NumPy references: (inputs) -> output ----

def ref_axpy(x, y0):
    return np.float32(2.0) * x + y0


def ref_ew2d(a, b):
    return 3.0 * a + b


def ref_ndiff(x):
    out = np.empty_like(x)
    out[0] = x[0]
    out[1:] = x[1:] - x[:-1]
    return out


def ref_stencil(x):
    p = np.concatenate([np.zeros(3, np.float32), x, np.zeros(3, np.float32)])
    out = np.zeros_like(x)
    for k in range(7):
        out += p[k:k + x.size]
    return out


def ref_scan(v):
    n = v.size
    pad = (-n) % 256
    w = np.concatenate([v, np.zeros(pad, np.int32)]).reshape(-1, 256)
    return np.cumsum(w, axis=1, dtype=np.int32).reshape(-1)[:n]


def ref_hist(v):
    return np.bincount(v % 16, minlength=16).astype(np.int32)


def ref_warpsum(x):
    return x.reshape(-1, 32).sum(axis=1, dtype=np.float32)


def ref_matmul(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def checksum(out):
    return float(np.asarray(out, dtype=np.float64).sum())


def fail(name, what):
    print("FAILED %s %s" % (name, what))
    sys.stdout.flush()
    return 1


def best_of(fn, reset):
    best = 1e30
    for r in range(RUNS + 1):
        reset()
        t0 = time.perf_counter()
        fn()
        t = (time.perf_counter() - t0) * 1e3
        if r and t < best:   # run 0 compiles and warms up
            best = t
    return best


# ---- numba prange versions ----

def prange_main(scale, names):
    import numba
    from numba import njit, prange
    from numba.cuda.random import (init_xoroshiro128p_states_cpu, xoroshiro128p_dtype,
                                   xoroshiro128p_uniform_float32)

    @njit(parallel=True)
    def saxpy(x, y, a):
        for i in prange(x.size):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True)
    def ew2d(out, a, b, alpha):
        for r in prange(out.shape[0]):
            for c in range(out.shape[1]):
                out[r, c] = alpha * a[r, c] + b[r, c]

    @njit(parallel=True)
    def ndiff(inp, out):
        out[0] = inp[0]
        for i in prange(1, inp.size):
            out[i] = inp[i] - inp[i - 1]

    @njit(parallel=True)
    def matmul(A, B, C):
        n = A.shape[0]
        for i in prange(n):
            for j in range(n):
                C[i, j] = 0
            for k in range(n):
                a = A[i, k]
                for j in range(n):
                    C[i, j] += a * B[k, j]

    @njit(parallel=True)
    def scan(inp, out):
        n = inp.size
        for s in prange((n + 255) // 256):
            acc = np.int32(0)
            for i in range(s * 256, min(s * 256 + 256, n)):
                acc += inp[i]
                out[i] = acc

    @njit(parallel=True)
    def reduce(inp, partial, chunk):
        for b in prange(partial.size):
            acc = np.float32(0)
            for i in range(b * chunk, min(b * chunk + chunk, inp.size)):
                acc += inp[i]
            partial[b] = acc

    @njit(parallel=True)
    def stencil(inp, out):
        n = inp.size
        for i in prange(n):
            s = np.float32(0)
            for k in range(-3, 4):
                if 0 <= i + k < n:
                    s += inp[i + k]
            out[i] = s

    @njit(parallel=True)
    def histogram(values, nchunks):
        n = values.size
        local = np.zeros((nchunks, 16), np.int32)
        for c in prange(nchunks):
            for i in range(c * n // nchunks, (c + 1) * n // nchunks):
                local[c, values[i] % 16] += 1
        return local.sum(axis=0).astype(np.int32)

    @njit(parallel=True)
    def montecarlo(states, samples, hits):
        for i in prange(states.shape[0]):
            inside = 0
            for s in range(samples):
                x = xoroshiro128p_uniform_float32(states, i)
                y = xoroshiro128p_uniform_float32(states, i)
                if x * x + y * y <= np.float32(1.0):
                    inside += 1
            hits[i] = inside

    @njit
    def montecarlo_seq(states, samples, hits):
        for i in range(states.shape[0]):
            inside = 0
            for s in range(samples):
                x = xoroshiro128p_uniform_float32(states, i)
                y = xoroshiro128p_uniform_float32(states, i)
                if x * x + y * y <= np.float32(1.0):
                    inside += 1
            hits[i] = inside

    @njit(parallel=True)
    def warpsum(inp, out):
        for w in prange(out.size):
            acc = np.float32(0)
            for i in range(w * 32, min(w * 32 + 32, inp.size)):
                acc += inp[i]
            out[w] = acc

    n = 16 * 1024 * 1024 // scale
    status = 0
    nthreads = numba.config.NUMBA_NUM_THREADS

    def report(name, units, ms, out, want, exact=True):
        nonlocal status
        if out.shape != want.shape or not np.array_equal(out, want):
            status |= fail(name, "numba prange result differs from NumPy's")
            return
        print("NUMBA %s %d %.3f %.17g" % (name, units, ms, checksum(out)))
        sys.stdout.flush()

    for name in names:
        if name in ("saxpy", "gridstride"):
            x, y0 = small_floats(n, 13), small_floats(n, 11)
            y = y0.copy()
            ms = best_of(lambda: saxpy(x, y, np.float32(2.0)), lambda: y.__setitem__(slice(None), y0))
            report(name, n, ms, y, ref_axpy(x, y0))
        elif name == "ew2d":
            rows, cols = ew2d_shape(scale)
            i = np.arange(rows * cols)
            a = (i % 17).astype(np.float64).reshape(rows, cols)
            b = (i % 5).astype(np.float64).reshape(rows, cols)
            out = np.zeros((rows, cols))
            ms = best_of(lambda: ew2d(out, a, b, 3.0), lambda: None)
            report(name, rows * cols, ms, out, ref_ew2d(a, b))
        elif name == "ndiff":
            x = small_floats(n, 29)
            out = np.zeros_like(x)
            ms = best_of(lambda: ndiff(x, out), lambda: None)
            report(name, n, ms, out, ref_ndiff(x))
        elif name == "matmul":
            side = matmul_side(scale)
            A = small_floats(side * side, 5).reshape(side, side)
            B = small_floats(side * side, 3).reshape(side, side)
            C = np.zeros_like(A)
            ms = best_of(lambda: matmul(A, B, C), lambda: None)
            report(name, side ** 3, ms, C, ref_matmul(A, B))
        elif name == "scan":
            v = ints(n)
            out = np.zeros_like(v)
            ms = best_of(lambda: scan(v, out), lambda: None)
            report(name, n, ms, out, ref_scan(v))
        elif name == "reduce":
            x = small_floats(n, 9)
            chunk = 256 * 16
            part = np.zeros(n // chunk, np.float32)
            ms = best_of(lambda: reduce(x, part, chunk), lambda: None)
            # blocks and chunks sum different slices: compare the totals
            tot = np.array([part.astype(np.float64).sum()])
            report(name, n, ms, tot, np.array([x.astype(np.float64).sum()]))
        elif name == "stencil":
            x = small_floats(n, 29)
            out = np.zeros_like(x)
            ms = best_of(lambda: stencil(x, out), lambda: None)
            report(name, n, ms, out, ref_stencil(x))
        elif name == "histogram":
            v = ints(n)
            res = {}
            ms = best_of(lambda: res.__setitem__("b", histogram(v, 4 * max(nthreads, 1))), lambda: None)
            report(name, n, ms, res["b"], ref_hist(v))
        elif name == "montecarlo":
            nstates, samples = mc_sizes(scale)
            st0 = np.empty(nstates, dtype=xoroshiro128p_dtype)
            init_xoroshiro128p_states_cpu(st0, 42, 0)
            st = st0.copy()
            hits = np.zeros(nstates, np.int64)
            ms = best_of(lambda: montecarlo(st, samples, hits), lambda: st.__setitem__(slice(None), st0))
            st2, want = st0.copy(), np.zeros(nstates, np.int64)
            montecarlo_seq(st2, samples, want)
            report(name, nstates * samples, ms, hits, want)
        elif name == "warpsum":
            x = small_floats(n, 23)
            out = np.zeros(n // 32, np.float32)
            ms = best_of(lambda: warpsum(x, out), lambda: None)
            report(name, n, ms, out, ref_warpsum(x))
    return status


# ---- numba's CUDA simulator, on the .kern files themselves ----

def load_kernel(name):
    path = os.path.join(HERE, name + ".kern")
    ns = {"__name__": "bench_" + name}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns[name]


def sim_main(nsim, names):
    from numba import cuda
    status = 0
    n = max(256, nsim // 256 * 256)

    def blocks(m, tpb):
        return (m + tpb - 1) // tpb

    for name in names:
        try:
            k = load_kernel(name)
        except Exception as e:   # noqa: BLE001 - reported, not fatal
            print("SIMSKIP %s cannot load: %s" % (name, str(e).splitlines()[0][:80]))
            continue
        units = n
        try:
            t0 = time.perf_counter()
            if name in ("saxpy", "gridstride"):
                x, y0 = small_floats(n, 13), small_floats(n, 11)
                y = y0.copy()
                t0 = time.perf_counter()
                k[blocks(n, 256), 256](x, y, np.float32(2.0))
                ok = np.array_equal(y, ref_axpy(x, y0))
            elif name == "ew2d":
                side = max(16, int(math.sqrt(n)) // 16 * 16)
                units = side * side
                i = np.arange(units)
                a = (i % 17).astype(np.float64).reshape(side, side)
                b = (i % 5).astype(np.float64).reshape(side, side)
                out = np.zeros((side, side))
                t0 = time.perf_counter()
                k[(blocks(side, 16), blocks(side, 16)), (16, 16)](out, a, b, 3.0)
                ok = np.array_equal(out, ref_ew2d(a, b))
            elif name in ("ndiff", "stencil"):
                x = small_floats(n, 29)
                out = np.zeros_like(x)
                tpb = 256 if name == "ndiff" else 128
                t0 = time.perf_counter()
                k[blocks(n, tpb), tpb](x, out)
                ok = np.array_equal(out, (ref_ndiff if name == "ndiff" else ref_stencil)(x))
            elif name == "matmul":
                side = 32
                units = side ** 3
                A = small_floats(side * side, 5).reshape(side, side)
                B = small_floats(side * side, 3).reshape(side, side)
                C = np.zeros_like(A)
                t0 = time.perf_counter()
                k[(2, 2), (16, 16)](A, B, C)
                ok = np.array_equal(C, ref_matmul(A, B))
            elif name == "scan":
                v = ints(n)
                out = np.zeros_like(v)
                t0 = time.perf_counter()
                k[blocks(n, 256), 256](v, out)
                ok = np.array_equal(out, ref_scan(v))
            elif name == "reduce":
                x = small_floats(n, 9)
                nb = max(1, n // 4096)
                part = np.zeros(nb, np.float32)
                t0 = time.perf_counter()
                k[nb, 256](x, part)
                ok = part.astype(np.float64).sum() == x[:n].astype(np.float64).sum()
            elif name == "histogram":
                v = ints(n)
                bins = np.zeros(16, np.int32)
                t0 = time.perf_counter()
                k[blocks(n, 256), 256](v, bins)
                ok = np.array_equal(bins, ref_hist(v))
            elif name == "montecarlo":
                from numba.cuda.random import create_xoroshiro128p_states
                nstates, samples = 256, max(1, n // 256)
                units = nstates * samples
                st = create_xoroshiro128p_states(nstates, 42)
                st0 = st.copy_to_host()
                hits = np.zeros(nstates, np.int64)
                t0 = time.perf_counter()
                k[blocks(nstates, 128), 128](st, samples, hits)
                # the same draws, sequentially, by numba's own generator
                from numba.cuda.random import xoroshiro128p_uniform_float32 as u
                want = np.zeros(nstates, np.int64)
                for i in range(nstates):
                    for s in range(samples):
                        xx = u(st0, i)
                        yy = u(st0, i)
                        want[i] += xx * xx + yy * yy <= np.float32(1.0)
                ok = np.array_equal(hits, want)
            elif name == "warpsum":
                x = small_floats(n, 23)
                out = np.zeros(n // 32, np.float32)
                t0 = time.perf_counter()
                k[blocks(n, 256), 256](x, out)
                ok = np.array_equal(out, ref_warpsum(x))
            else:
                continue
            ms = (time.perf_counter() - t0) * 1e3
        except Exception as e:   # noqa: BLE001 - what the simulator lacks
            print("SIMSKIP %s %s: %s" % (name, type(e).__name__, str(e).splitlines()[-1][:90]))
            sys.stdout.flush()
            continue
        if not ok:
            status |= fail(name, "simulator result differs from NumPy's")
            continue
        print("SIM %s %d %.3f" % (name, units, ms))
        sys.stdout.flush()
    return status


KERNELS = ["saxpy", "ew2d", "gridstride", "ndiff", "matmul", "scan", "reduce", "stencil",
           "histogram", "montecarlo", "warpsum"]

if __name__ == "__main__":
    arg = int(sys.argv[2]) if len(sys.argv) > 2 else (1 if MODE == "prange" else 4096)
    names = sys.argv[3:] or KERNELS
    if MODE == "prange":
        sys.exit(prange_main(arg, names))
    if MODE == "sim":
        sys.exit(sim_main(arg, names))
    sys.exit("usage: numba_bench.py prange SCALE [NAME...] | sim N [NAME...]")
