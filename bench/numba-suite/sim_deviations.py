"""bench/numba-suite/sim_deviations.py - the evidence for the launches that
replay.py records as "sim deviation": kernels whose result under numba-cuda's
simulator (which calls Python's cmath, or NumPy) is not what compiled
numba-cuda computes.

sim-deviations.tsv lists them (module, test, reason).  For each listed test
this script reruns each launch through `kernc run` (as replay.py does) and
compares kernc's result with compiled numba's: the kernel's device function
(the captured .kern file's `@cuda.jit(SIG, device=True)` function, which is
all test_complex's kernels compute: `out[i] = device_func(a[i], ...)`)
compiled with numba.njit(SIG), or, for a kernel that uses nothing of cuda
(test_ufuncs': `np.log(a0, a1)`), the kernel itself compiled with
numba.njit(SIG) and called on the inputs; for a kernel `B[i] =
math.gamma(A[i])` or math.lgamma (test_math), the libdevice function that
compiled numba-cuda calls, built for this CPU by libdevice_x86.py (needs
llvm-dis, clang and the CUDA toolkit's libdevice).  numba's cmathimpl.py and
npyfuncs.py are the code numba-cuda 0.30's numba/cuda/cpython/cmathimpl.py,
np/math/cmathimpl.py and np/npyfuncs.py copy (the files differ in imports
and registration only); its ufunc loops are those of numba/cuda/ufuncs.py.  It prints, per launch, where kernc,
compiled numba and the simulator agree.  A listed launch is a deviation of
the simulator only where kernc equals compiled numba.

    /work/V/bin/python bench/numba-suite/sim_deviations.py --work DIR [--kernc PATH] [MODULE ...]

DIR is replay.py's work directory (after a --replay-only of the modules).
Exit status 1 when a listed launch's kernc result differs from compiled
numba's.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def load_list(path):
    out = {}
    for ln in open(path):
        if not ln.strip() or ln.startswith("#"):
            continue
        mod, test, reason = ln.rstrip("\n").split("\t")
        out[(mod, test)] = reason
    return out


def njit_of(kern_path, kernel):
    """(function, signature, whole) of the .kern file's device function, or
    of its kernel where that uses nothing of cuda (whole: the function is
    the kernel), compiled by numba.njit with the decorator's signature."""
    import numba
    src = open(kern_path).read()
    body = re.sub(r"@cuda\.jit\([^\n]*\)\n", "", src)
    m = re.search(r"@cuda\.jit\('([^']*)', device=True\)\ndef (\w+)", src)
    whole = False
    if not m:
        m = re.search(r"@cuda\.jit\('([^']*)'\)\ndef (%s)\b" % kernel, src)
        if not m or "cuda." in body.split("def " + kernel, 1)[1]:
            return None
        whole = True
    sig, name = m.group(1), m.group(2)
    g = {}
    exec(compile(body, kern_path, "exec"), g)
    return numba.njit(sig)(g[name]), sig, whole


def cpow_of(kern_path):
    """numba-cuda's complex power, for a kernel whose body is `r[i] = x[i] **
    y[i]` (or pow(x[i], y[i])) over complex arrays (test_powi): compiled
    numba-cuda lowers it with the Python function cpow_internal of its
    mathimpl.py (compile_internal); here that same source, compiled by
    numba.njit for the arrays' complex type, applied element by element.
    (None for another kernel, or where numba-cuda is not importable.)"""
    import inspect
    import math
    import textwrap
    import numba
    import numpy as np
    src = open(kern_path).read()
    m = re.search(r"@cuda\.jit\('void\((complex64|complex128)\[::1\], \1\[::1\], \1\[::1\]\)'\)", src)
    if not m or not re.search(r"r\[i\] = (x\[i\] \*\* y\[i\]|pow\(x\[i\], y\[i\]\))", src):
        return None
    try:
        from numba.cuda import mathimpl
    except Exception:
        return None
    outer = inspect.getsource(mathimpl.cpow_implement)
    inner = re.search(r"\n(\s*)def cpow_internal\(a, b\):\n(?:\1 .*\n|\s*\n)*", outer)
    if not inner:
        return None
    cty = {"complex64": np.complex64, "complex128": np.complex128}[m.group(1)]
    fty = {"complex64": np.float32, "complex128": np.float64}[m.group(1)]
    g = {"math": math, "fty": fty, "cty": cty}
    exec(textwrap.dedent(inner.group(0)), g)
    f = numba.njit(g["cpow_internal"])

    def run(r, x, y):
        for i in range(r.shape[0]):
            r[i] = f(x[i], y[i])
    return run, m.group(1), "first"


# math functions whose compiled numba-cuda code is a libdevice call
# (numba-cuda 0.30's mathimpl.py: unarys), by Python name
LIBDEVICE_MATH = {"gamma": "tgamma", "lgamma": "lgamma"}


def libdevice_of(kern_path, work):
    """compiled numba-cuda's result for a kernel `B[i] = math.F(A[i])` over
    1-D arrays (test_math's unary template), F one of LIBDEVICE_MATH:
    libdevice's __nv_F (float64 result; the input converted to it, as
    numba-cuda converts an integer argument) or __nv_Ff (float32), built
    for this CPU by libdevice_x86.py.  None for another kernel, or where
    llvm-dis or clang is missing."""
    import numpy as np
    src = open(kern_path).read()
    m = re.search(r"@cuda\.jit\('void\((\w+)\[::1\], (float32|float64)\[::1\]\)'\)\n"
                  r"def \w+\(A, B\):\n    i = cuda\.grid\(1\)\n"
                  r"    B\[i\] = math\.(\w+)\(A\[i\]\)\n", src)
    if not m or m.group(3) not in LIBDEVICE_MATH:
        return None
    import libdevice_x86
    rty = m.group(2)
    name = "__nv_" + LIBDEVICE_MATH[m.group(3)] + ("f" if rty == "float32" else "")
    try:
        so = libdevice_x86.build(os.path.join(work, "libdevice"), [name])
    except (OSError, subprocess.CalledProcessError):
        return None
    f = libdevice_x86.function(so, name, rty)

    def run(a, b):
        for i in range(b.shape[0]):
            b[i] = f(float(a[i]))
    return run, "%s -> %s (libdevice %s)" % (m.group(1), rty, name), "last"


def main():
    import numpy as np
    import replay
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--kernc", default=os.path.abspath("kernc"))
    ap.add_argument("--ulps", type=int, default=4)
    ap.add_argument("modules", nargs="*", help="only these modules' listed tests")
    args = ap.parse_args()
    listed = load_list(os.path.join(HERE, "sim-deviations.tsv"))
    if args.modules:
        listed = {k: v for k, v in listed.items() if k[0] in args.modules}
    bad = 0
    for mod in sorted({m for m, _ in listed}):
        mdir = os.path.join(args.work, "cap", mod)
        for ln in open(os.path.join(mdir, "launches.jsonl")):
            rec = json.loads(ln)
            if (mod, rec.get("test")) not in listed or "kern" not in rec:
                continue
            kern = os.path.join(args.work, rec["kern"])
            dev = njit_of(kern, rec["kernel"]) or cpow_of(kern) or libdevice_of(kern, args.work)
            if not dev:
                continue
            fn, sig, whole = dev
            ins = [np.load(os.path.join(mdir, a["in"])) if a["kind"] == "array"
                   else eval(a["value"]) for a in rec["args"]]
            outs = [i for i, a in enumerate(rec["args"]) if a["kind"] == "array" and "out" in a]
            o = 0 if whole == "first" else outs[-1] if whole else 0
            ref_sim = np.load(os.path.join(mdir, rec["args"][o]["out"]))
            if whole:
                fn(*ins)
                ref_nb = ins[o]
            else:
                ref_nb = ref_sim.copy()
                for i in range(ref_nb.shape[0]):
                    ref_nb[i] = fn(*[x[i] for x in ins[1:]])
            with tempfile.TemporaryDirectory(prefix="npk-") as d:
                cmd = [args.kernc, "run", kern, rec["kernel"], "--backend", "cpu",
                       "--grid", ",".join(map(str, rec["grid"])),
                       "--block", ",".join(map(str, rec["block"])),
                       "--outdir", d, "--quiet"]
                cmd += [os.path.join(mdir, a["in"]) if a["kind"] == "array" else a["value"]
                        for a in rec["args"]]
                p = subprocess.run(cmd, capture_output=True)
                if p.returncode:
                    print("%s %s: kernc failed: %s" % (rec["id"], rec["test"],
                                                       p.stderr.decode()[:200]))
                    bad += 1
                    continue
                got = np.load(os.path.join(d, "arg%d.npy" % o))
            vs_nb = replay.compare(ref_nb, got, args.ulps, np)
            vs_sim = replay.compare(ref_sim, got, args.ulps, np)
            nb_sim = replay.compare(ref_sim, ref_nb, args.ulps, np)
            print("%-16s %-24s %-30s kernc vs compiled numba: %s; vs simulator: %s; "
                  "compiled numba vs simulator: %s" % (
                      rec["id"], rec["test"], sig, vs_nb or "equal", vs_sim or "equal",
                      nb_sim or "equal"))
            bad += vs_nb is not None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
