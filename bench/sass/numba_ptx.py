"""numba_ptx.py OUTDIR FILE.kern... - numba-cuda's PTX of every kernel of
each .kern file, for bench/sass/count: OUTDIR/NAME.ptx per kernel (the
first signature), compiled as numba-cuda does it for cc 9.0
(cuda.compile_ptx, no GPU needed), with the kernel's fastmath and lineinfo
options.  Run with a Python that has numba-cuda (e.g. numba-cuda 0.30)."""
import os
import sys

from numba import cuda

outdir = sys.argv[1]
recorded = []
real_jit = cuda.jit


def recording_jit(*args, **kw):
    def deco(fn):
        if not kw.get("device"):
            recorded.append((fn, args[0] if args else None, kw))
        return real_jit(**kw)(fn) if kw.get("device") else fn
    if args and callable(args[0]) and not kw:
        fn = args[0]
        return real_jit(fn)
    return deco


cuda.jit = recording_jit
for path in sys.argv[2:]:
    src = open(path).read()
    env = {"__name__": os.path.basename(path)[:-5]}
    recorded.clear()
    exec(compile(src, path, "exec"), env)
    for fn, sig, kw in recorded:
        if isinstance(sig, list):
            sig = sig[0]
        opts = {k: kw[k] for k in ("fastmath", "lineinfo") if k in kw}
        ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0), **opts)
        with open(os.path.join(outdir, fn.__name__ + ".ptx"), "w") as f:
            f.write(ptx)
