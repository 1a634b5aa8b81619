"""tests/conformance/run.py - the conformance suite: kernc against numba.

Each tests/conformance/*.kern file is valid numba.cuda code whose launch,
inputs and checks are described by a comment block at its top:

    # conformance: kernel=NAME grid=X[,Y[,Z]] block=X[,Y[,Z]] [shared=BYTES]
    #              [reference=njit|sim|numpy]
    # arg: NAME = NUMPY-EXPRESSION        (one per kernel parameter, in order)
    # compare: NAME exact | ulps=N [sorted]
    # expect: NAME = NUMPY-EXPRESSION     (optional: the expected output)

Arguments are NumPy expressions evaluated with numpy's names in scope, `np`,
`rng` (a np.random.default_rng seeded the same for every test), the helpers
edge(dtype) (limits, signed zeros, infinities, NaN of a dtype), sample(dtype,
n, lo, hi) (those edges then seeded random values), nonzero(v),
fma(a, b, c) (exactly rounded), rng_states(n, seed) (numba's xoroshiro128p
states, from the simulator's create_xoroshiro128p_states) and
rng_draws(states, name, k) (k draws of
numba.cuda.random.xoroshiro128p_NAME from each state, compiled by numba),
and the arguments defined above them.  The signature is the first of the
kernel's (one, a list of overloads, or the parameters' annotations) whose
array parameters the arrays fit, as `kernc run` chooses; scalars are cast
to the types it gives them.  The reference result comes from numba itself,
never from kernc:

  reference=njit (default)  compiled numba semantics: the kernel and its
      device functions are recompiled with numba.njit(error_model='numpy'),
      which is the error model of numba's CUDA target, after rewriting the
      cuda.* indexing into per-thread int32 parameters, local arrays into
      np.zeros, atomics into sequential read-modify-write helpers, and the
      few places where the CUDA target differs from the CPU one into what
      the CUDA target does: two-argument min/max of floats are fmin/fmax,
      math.floor/ceil/trunc return floats.  Every thread then runs in turn.  This is the
      reference for everything whose threads do not talk to each other.
  reference=sim  numba's CUDA simulator (NumPy scalar rules): for kernels
      that use shared memory and barriers; the tests keep their values in a
      range where NumPy scalar widths and compiled widths agree.
  reference=numpy  no kernel runs but kernc's: every compared output has an
      expect: line, written from CUDA's documented semantics (warp
      intrinsics, which numba 0.56's simulator lacks, partial masks).
  expect: lines override the reference for one output (the cases where
      neither of the above computes what compiled CUDA numba does).

Then `$KERNC run FILE KERNEL --backend cpu --grid .. --block .. --outdir D`
runs the kernel with the inputs written as .npy files, and every `compare`
output is checked against D/argI.npy: exactly for integers and booleans,
within N ulps for floats (NaN matches NaN in the same place; zeros, signs of
zeros and infinities must match exactly); `sorted` compares the sorted
values (order-independent outputs of atomics under contention).

Output: TAP, one test per file, with the first mismatches as diagnostics.
Usage: /usr/bin/python3 run.py [--reference-only] [FILE.kern ...]
(default: every test here; --reference-only computes the references and
checks the test descriptions without running kernc, for test authors)
Environment: KERNC (the kernc binary; default ./kernc), KERNC_BACKEND
(default cpu), KEEP=1 keeps the temporary directories.
"""
import ast
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings
from fractions import Fraction

# The simulator must be chosen before numba is imported; njit is unaffected.
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba.core import sigutils, types as nbtypes  # noqa: E402
from numba.np import numpy_support  # noqa: E402

# py: numba-cuda 0.30 has literal_unroll in numba.cuda.misc.special (only
# there: its kernels refuse numba.literal_unroll); numba 0.56 has no such
# module, so the tests that import it from there find numba's here.
if "numba.cuda.misc.special" not in sys.modules:
    try:
        import numba.cuda.misc.special  # noqa: E402,F401
    except ImportError:
        import types as _types
        _special = _types.ModuleType("numba.cuda.misc.special")
        _special.literal_unroll = numba.literal_unroll
        _misc = _types.ModuleType("numba.cuda.misc")
        _misc.special = _special
        sys.modules["numba.cuda.misc"] = _misc
        sys.modules["numba.cuda.misc.special"] = _special

# bfloat16: numba-cuda 0.30's numba.cuda.bf16, which numba 0.56 lacks; a
# test's import of its names must succeed for the signature to be read
# (the names are never called here: their results are expect: lines).
def _stub_module(name):
    import types as pytypes
    if name in sys.modules:
        return
    try:
        __import__(name)
    except ImportError:
        mod = pytypes.ModuleType(name)
        mod.__getattr__ = lambda attr: (_ for _ in ()).throw(
            AttributeError(attr)) if attr.startswith("__") else "%s.%s" % (name, attr)
        sys.modules[name] = mod


_stub_module("numba.cuda.bf16")

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240229

warnings.simplefilter("ignore")
np.seterr(all="ignore")


class TestError(Exception):
    """A broken test description (not a kernc failure)."""


# ---------------------------------------------------------------------------
# The comment block
# ---------------------------------------------------------------------------

def parse_header(path):
    """Read the '# conformance/arg/compare/expect:' lines of one file."""
    spec = {"opts": {}, "args": [], "compare": [], "expect": {}}
    seen_conf = False
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            m = re.match(r"#\s*(conformance|arg|compare|expect):\s*(.*?)\s*$", line)
            if not m:
                continue
            key, text = m.groups()
            text = re.sub(r"\s+#.*$", "", text)  # trailing comment
            if key == "conformance":
                seen_conf = True
                for word in text.split():
                    if "=" not in word:
                        raise TestError("%d: bad option %r" % (lineno, word))
                    k, v = word.split("=", 1)
                    spec["opts"][k] = v
            elif key in ("arg", "expect"):
                m2 = re.match(r"([A-Za-z_]\w*)\s*=\s*(.+)$", text)
                if not m2:
                    raise TestError("%d: expected 'NAME = EXPR'" % lineno)
                if key == "arg":
                    spec["args"].append((m2.group(1), m2.group(2), lineno))
                else:
                    spec["expect"][m2.group(1)] = (m2.group(2), lineno)
            else:
                words = text.split()
                if len(words) < 2:
                    raise TestError("%d: expected 'NAME exact|ulps=N'" % lineno)
                how = {"name": words[0], "ulps": None, "sorted": False}
                for w in words[1:]:
                    if w == "exact":
                        how["ulps"] = None
                    elif w.startswith("ulps="):
                        how["ulps"] = int(w[5:])
                    elif w == "sorted":
                        how["sorted"] = True
                    else:
                        raise TestError("%d: unknown compare word %r" % (lineno, w))
                spec["compare"].append(how)
    if not seen_conf:
        raise TestError("no '# conformance:' line")
    for k in ("kernel", "grid", "block"):
        if k not in spec["opts"]:
            raise TestError("'# conformance:' lacks %s=" % k)
    unknown = set(spec["opts"]) - {"kernel", "grid", "block", "shared", "reference"}
    if unknown:
        raise TestError("unknown options: %s" % ", ".join(sorted(unknown)))
    if not spec["compare"]:
        raise TestError("no '# compare:' line")
    return spec


def dims(text):
    parts = [int(x) for x in text.split(",")]
    if not 1 <= len(parts) <= 3 or min(parts) < 1:
        raise TestError("bad launch dimension %r" % text)
    return tuple(parts + [1] * (3 - len(parts)))


# ---------------------------------------------------------------------------
# The kernel's signature and the inputs
# ---------------------------------------------------------------------------

def is_cuda_jit(dec):
    """@cuda.jit or @cuda.jit(...)."""
    node = dec.func if isinstance(dec, ast.Call) else dec
    return (isinstance(node, ast.Attribute) and node.attr == "jit" and
            isinstance(node.value, ast.Name) and node.value.id == "cuda")


def is_device(dec):
    return isinstance(dec, ast.Call) and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value
        for k in dec.keywords)


def kernel_signature(tree, module_ns, name):
    """(parameter names, [numba argument types of each signature]) of
    kernel NAME: the decorator's signature, each one of a list of
    signatures (overloads, in order), or the PEP 3107 annotations of the
    parameters."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            params = [a.arg for a in node.args.args]
            for dec in node.decorator_list:
                if is_cuda_jit(dec) and isinstance(dec, ast.Call) and dec.args:
                    sig = dec.args[0]
                    if isinstance(sig, ast.Constant):
                        sig = sig.value
                    else:
                        sig = eval(compile(ast.Expression(sig), "<sig>", "eval"), module_ns)
                    sigs = sig if isinstance(sig, list) else [sig]
                    # a string naming module-level types (records and
                    # char sequences: rec_t = from_dtype(...)) is
                    # evaluated among them
                    sigs = [eval(t, dict(vars(nbtypes), **module_ns))
                            if isinstance(t, str) and any(
                                re.search(r"\b%s\b" % re.escape(k), t)
                                for k, v in module_ns.items()
                                if isinstance(v, (nbtypes.Record, nbtypes.CharSeq,
                                                  nbtypes.UnicodeCharSeq))) else t
                            for t in sigs]
                    return params, [list(sigutils.normalize_signature(s)[0]) for s in sigs]
            if node.args.args and all(a.annotation is not None for a in node.args.args):
                return params, [[eval(compile(ast.Expression(a.annotation), "<annotation>",
                                              "eval"), module_ns) for a in node.args.args]]
            raise TestError("kernel %s has no signature" % name)
    raise TestError("no function %s in the file" % name)


def fits(values, params, argtys):
    """Whether the array arguments have the dtypes and ranks of one
    signature (as `kernc run` picks the first overload that fits)."""
    for p, ty in zip(params, argtys):
        v = values[p]
        if isinstance(ty, nbtypes.Record):
            # a record scalar: a 0-d array of its dtype (kernc run's .npy;
            # numba copies a record argument back, so it can be compared)
            if not (isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype == np_dtype(ty)):
                return False
            continue
        if isinstance(ty, nbtypes.Array) != isinstance(v, np.ndarray):
            return False
        if isinstance(ty, nbtypes.Array) and (v.dtype != np_dtype(ty.dtype) or v.ndim != ty.ndim):
            return False
    return True


def np_dtype(nbty):
    return numpy_support.as_dtype(nbty)


def edge(dtype):
    """The values of a dtype where arithmetic goes wrong: limits, signs,
    zeros, halves, infinities, NaN."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [info.min, info.max, info.min + 1, info.max - 1, 0, 1, -1, 2, -2,
                3, -3, 7, -7, 100, -100, info.max // 2, info.min // 2, 1 << (dt.itemsize * 4)]
        vals = [v for v in vals if info.min <= v <= info.max]
    elif dt.kind == "f":
        info = np.finfo(dt)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -3.0, 7.0,
                -7.0, 1e30, -1e30, float(info.tiny), float(info.max), -float(info.max),
                float(info.tiny) / 4, math.inf, -math.inf, math.nan, 0.1, 1e-7]
    else:
        vals = [False, True]
    out = []
    for v in vals:  # no duplicates (NaN included)
        if not any(repr(v) == repr(w) for w in out):
            out.append(v)
    return np.array(out, dtype=dt)


def rng_states(n, seed, subsequence_start=0):
    """numba's xoroshiro128p states, as the simulator creates them (the
    same integers as on the GPU)."""
    from numba.cuda import random as nbrandom
    return nbrandom.create_xoroshiro128p_states(
        n, seed=seed, subsequence_start=subsequence_start).copy_to_host()


# The child that draws: numba.cuda.random's functions are numba @jit
# functions, compiled only outside the simulator (under it they fall back
# to object mode, float64 Python math), so the draws come from a process
# without NUMBA_ENABLE_CUDASIM, called from an @njit loop: numba's compiled
# typing, as on the GPU.
RNG_CHILD = r"""
import sys
import numpy as np
from numba import njit
from numba.cuda import random as r
states = np.load(sys.argv[1])
k = int(sys.argv[3])
fn = getattr(r, 'xoroshiro128p_' + sys.argv[2])
@njit
def draw(st, out):
    for i in range(st.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = fn(st, i)
dt = {'next': np.uint64, 'uniform_float32': np.float32, 'uniform_float64': np.float64,
      'normal_float32': np.float32, 'normal_float64': np.float64}[sys.argv[2]]
out = np.zeros((states.shape[0], k), dtype=dt)
draw(states, out)
np.save(sys.argv[4], out)
np.save(sys.argv[5], states)
"""


def rng_draws(states, name, k, after=False):
    """k draws of xoroshiro128p_NAME from each state, in thread order: an
    (n, k) array; with after=True, the states once drawn instead."""
    tmp = tempfile.mkdtemp(prefix="kernc-conf-rng-")
    try:
        f = [os.path.join(tmp, x) for x in ("in.npy", "out.npy", "st.npy")]
        np.save(f[0], states)
        env = {k_: v for k_, v in os.environ.items() if k_ != "NUMBA_ENABLE_CUDASIM"}
        subprocess.run([sys.executable, "-c", RNG_CHILD, f[0], name, str(k), f[1], f[2]],
                       env=env, check=True, timeout=120)
        return np.load(f[2] if after else f[1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fma(a, b, c):
    """a * b + c rounded once, elementwise, to a's dtype (float32 or
    float64): the exact value as a Fraction, then the nearest float, ties
    to even; an infinite or NaN operand by plain arithmetic, except that
    the product of finite operands never overflows."""
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    dt = a.dtype
    out = np.empty(a.shape, dt)
    for ix in np.ndindex(a.shape):
        x, y, z = a[ix], b[ix], c[ix]
        if not (np.isfinite(x) and np.isfinite(y)):
            out[ix] = dt.type(np.float64(x) * np.float64(y) + np.float64(z))
            continue
        if not np.isfinite(z):      # a finite product, even one that overflows
            out[ix] = z
            continue
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        if exact == 0:
            # an exact zero is -0 only when the product and c are both -0
            prod_neg0 = (x == 0 or y == 0) and np.signbit(x) != np.signbit(y)
            out[ix] = dt.type(-0.0) if prod_neg0 and np.signbit(z) else dt.type(0.0)
            continue
        f = dt.type(float(exact))
        best = None
        for cand in (np.nextafter(f, dt.type(-np.inf)), f, np.nextafter(f, dt.type(np.inf))):
            if not np.isfinite(cand):
                continue
            err = abs(Fraction(float(cand)) - exact)
            even = int(np.array(cand).view({4: np.uint32, 8: np.uint64}[dt.itemsize])) % 2 == 0
            if best is None or err < best[0] or (err == best[0] and even):
                best = (err, cand)
        out[ix] = best[1] if best is not None else f
    return out


def make_ns():
    """The names an arg:/expect: expression can use."""
    ns = {k: getattr(np, k) for k in dir(np) if not k.startswith("_")}
    rng = np.random.default_rng(SEED)

    def sample(dtype, n, lo=None, hi=None, edges=True):
        """edge(dtype) (when edges) followed by random values up to n:
        integers uniform in [lo, hi) (default the dtype's range), floats
        uniform in [lo, hi) (default normal with sd 100)."""
        dt = np.dtype(dtype)
        head = edge(dt)[:n] if edges else np.zeros(0, dt)
        k = n - head.size
        if dt.kind in "iu":
            info = np.iinfo(dt)
            lo = info.min if lo is None else lo
            hi = info.max if hi is None else hi - 1
            tail = rng.integers(lo, hi, k, dtype=dt, endpoint=True)
        elif dt.kind == "f":
            if lo is None:
                tail = rng.normal(0, 100, k)
            else:
                tail = rng.uniform(lo, hi, k)
        else:
            tail = rng.integers(0, 2, k).astype(bool)
        return np.concatenate([head, tail.astype(dt)])

    def nonzero(v):
        """v with zeros replaced by ones."""
        return np.where(v == 0, v.dtype.type(1), v).astype(v.dtype)

    def records(dtype, n):
        """n records of a structured dtype, every field (nested ones and
        the elements of subarrays too) seeded random: integers in
        [-100, 100) (unsigned [0, 100)), floats multiples of 1/4 in [-64, 64),
        booleans; padding bytes zero."""
        dt = np.dtype(dtype)
        out = np.zeros(n, dt)

        def fill(view, d):
            for name in d.names:
                sub = view[name]
                fd = d.fields[name][0]
                base = fd.base if fd.subdtype is not None else fd
                if base.names is not None:
                    fill(sub, base)
                elif base.kind in "iu":
                    lo = 0 if base.kind == "u" else -100
                    sub[...] = rng.integers(lo, 100, sub.shape).astype(base)
                elif base.kind == "f":
                    sub[...] = (rng.integers(-256, 256, sub.shape) / 4).astype(base)
                elif base.kind == "c":
                    sub[...] = (rng.integers(-256, 256, sub.shape) / 4 +
                                1j * rng.integers(-256, 256, sub.shape) / 4).astype(base)
                elif base.kind in "SU":
                    # str: words of 0..width+1 letters (some truncated)
                    n = base.itemsize // (4 if base.kind == "U" else 1)
                    words = ["".join(chr(97 + int(k)) for k in rng.integers(0, 26, int(m)))
                             for m in rng.integers(0, n + 2, sub.size)]
                    sub[...] = np.array(words if base.kind == "U" else
                                        [w.encode() for w in words]).reshape(sub.shape)
                else:
                    sub[...] = rng.integers(0, 2, sub.shape).astype(bool)
        fill(out, dt)
        return out

    ns.update(np=np, math=math, rng=rng, edge=edge, sample=sample, nonzero=nonzero,
              rng_states=rng_states, rng_draws=rng_draws, fma=fma, records=records)
    # records: the module's structured dtypes by their names
    ns.update(MODULE_DTYPES)
    return ns


# The structured dtypes (np.dtype with fields) of the module under test.
MODULE_DTYPES = {}


def make_inputs(spec, params, sigs):
    """Evaluate the arg: lines; returns ({name: value} in parameter order,
    the names an expect: line sees, the argument types of the signature
    the arrays fit)."""
    if [a[0] for a in spec["args"]] != params:
        raise TestError("arg: names %s do not match the parameters %s" %
                        ([a[0] for a in spec["args"]], params))
    ns = make_ns()
    values = {}
    for name, expr, lineno in spec["args"]:
        try:
            v = eval(expr, ns)
        except Exception as e:
            raise TestError("%d: arg %s: %s" % (lineno, name, e))
        if isinstance(v, np.ndarray) and v.ndim > 0:   # (it makes a 0-d array 1-D)
            v = np.ascontiguousarray(v)
        values[name] = v
        ns[name] = v
    argtys = next((tys for tys in sigs if fits(values, params, tys)), None)
    if argtys is None:
        raise TestError("the arguments (%s) fit no signature of the kernel (%s)" % (
            ", ".join("%s %d-D" % (v.dtype, v.ndim) if isinstance(v, np.ndarray)
                      else type(v).__name__ for v in values.values()),
            "; ".join(", ".join(map(str, tys)) for tys in sigs)))
    for name, ty in zip(params, argtys):
        if not isinstance(ty, (nbtypes.Array, nbtypes.Record)):
            values[name] = ns[name] = cast_scalar(ty, values[name])
    return values, ns, argtys


def cast_scalar(ty, v):
    """A scalar, or a (nested) tuple of them, as the signature types it."""
    if isinstance(ty, nbtypes.BaseTuple):
        return tuple(cast_scalar(t, e) for t, e in zip(ty.types, v))
    return np_dtype(ty).type(v)


def literal(v):
    """A scalar (or a tuple of them) as `kernc run` reads it."""
    if isinstance(v, tuple):
        return "(" + ", ".join(literal(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, np.bool_):
        return "true" if v else "false"
    if isinstance(v, np.integer):
        return str(int(v))
    f = float(v)
    if math.isnan(f):
        return "nan"
    return repr(f)


def fresh(values):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in values.items()}


# ---------------------------------------------------------------------------
# Reference 1: compiled numba semantics through njit
# ---------------------------------------------------------------------------

THREAD_PARAMS = ["_tx", "_ty", "_tz", "_bx", "_by", "_bz",
                 "_bdx", "_bdy", "_bdz", "_gdx", "_gdy", "_gdz"]
DIM3 = {"threadIdx": "_t", "blockIdx": "_b", "blockDim": "_bd", "gridDim": "_gd"}


def _expr(text):
    return ast.parse(text, mode="eval").body


class ToNjit(ast.NodeTransformer):
    """Rewrites the cuda.* parts of a kernel into plain numba code."""

    def __init__(self, in_kernel):
        self.in_kernel = in_kernel

    def need_kernel(self, node, what):
        if not self.in_kernel:
            raise TestError("line %d: %s in a device function: use reference=sim"
                            % (node.lineno, what))

    def visit_Attribute(self, node):
        self.generic_visit(node)
        v = node.value
        # cuda.threadIdx.x and friends
        if (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and
                v.value.id == "cuda" and v.attr in DIM3 and node.attr in "xyz"):
            self.need_kernel(node, "cuda." + v.attr)
            return ast.copy_location(ast.Name(DIM3[v.attr] + node.attr, ast.Load()), node)
        if isinstance(v, ast.Name) and v.id == "cuda":
            if node.attr == "warpsize":
                return ast.copy_location(_expr("_i32(32)"), node)
            if node.attr == "laneid":
                self.need_kernel(node, "cuda.laneid")
                return ast.copy_location(
                    _expr("_i32((_tx + _bdx * (_ty + _bdy * _tz)) % 32)"), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "cuda":
            if f.attr in ("grid", "gridsize"):
                self.need_kernel(node, "cuda." + f.attr)
                n = node.args[0].value
                parts = []
                for c in "xyz"[:n]:
                    if f.attr == "grid":
                        parts.append("_i32(_b%s * _bd%s + _t%s)" % (c, c, c))
                    else:
                        parts.append("_i32(_bd%s * _gd%s)" % (c, c))
                text = parts[0] if n == 1 else "(%s)" % ", ".join(parts)
                return ast.copy_location(_expr(text), node)
            # Barriers, warp intrinsics and the rest make threads depend on
            # each other: only the simulator runs them.
            raise TestError("line %d: cuda.%s has no njit model: use reference=sim"
                            % (node.lineno, f.attr))
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and
                isinstance(f.value.value, ast.Name) and f.value.value.id == "cuda"):
            space = f.value.attr
            if space == "local" and f.attr == "array":
                shape, dtype = node.args[0], node.args[1]
                for k in node.keywords:
                    if k.arg == "shape":
                        shape = k.value
                    elif k.arg == "dtype":
                        dtype = k.value
                call = ast.Call(ast.Attribute(ast.Name("_np", ast.Load()), "zeros", ast.Load()),
                                [shape, dtype], [])
                return ast.copy_location(call, node)
            if space == "shared":
                raise TestError("line %d: shared memory needs reference=sim" % node.lineno)
            if space == "atomic":
                name = "_atomic_" + f.attr.rstrip("_")
                if name not in ATOMICS and f.attr not in ("cas", "compare_and_swap"):
                    raise TestError("line %d: no njit model of cuda.atomic.%s" %
                                    (node.lineno, f.attr))
                return ast.copy_location(ast.Call(ast.Name(name, ast.Load()),
                                                  node.args, node.keywords), node)
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and
                f.value.id == "math" and f.attr in CUDA_MATH):
            node.func = ast.Name("_math_" + f.attr, ast.Load())
            return node
        if isinstance(f, ast.Name) and f.id in ("min", "max") and len(node.args) == 2:
            return ast.copy_location(ast.Call(ast.Name("_cuda_" + f.id, ast.Load()),
                                              node.args, node.keywords), node)
        return node


def _atomic(op):
    # CUDA converts the value to the array's dtype first, then applies the
    # operation in that dtype; the old value is returned.
    def model(ary, idx, val):
        old = ary[idx]
        cast = np.empty(1, ary.dtype)
        cast[0] = val
        ary[idx] = op(old, cast[0])
        return old
    return model


# numba's atomic max/min (nvvm.py ir_numba_atomic_minmax): max and min
# leave memory alone when the value or the stored one is NaN; nanmax and
# nanmin ignore a NaN value and replace a stored NaN.  For integers the
# NaN tests are never true.
def _pick_max(a, b):
    if a != a or b != b:
        return a
    return b if a < b else a


def _pick_min(a, b):
    if a != a or b != b:
        return a
    return b if a > b else a


def _pick_nanmax(a, b):
    if b != b:
        return a
    return b if a < b or a != a else a


def _pick_nanmin(a, b):
    if b != b:
        return a
    return b if a > b or a != a else a


# CUDA's atomicInc and atomicDec on unsigned words (numba's
# ir_numba_atomic_inc/dec): ((old >= val) ? 0 : (old + 1)) and
# (((old == 0) | (old > val)) ? val : (old - 1)); a - a and np.uint64(1)
# keep numba's typing unsigned (a literal 1 would make it float64).
def _pick_inc(a, b):
    return a - a if a >= b else a + np.uint64(1)


def _pick_dec(a, b):
    d = a - np.uint64(1)
    return d if d < b else b


def _atomic_cas(ary, idx, old, val):
    loaded = ary[idx]
    if loaded == old:
        ary[idx] = val
    return loaded


def _fmax(a, b):
    # CUDA lowers max(float, float) to fmax: a NaN operand is ignored.
    if a != a:
        return b
    if b != b:
        return a
    return a if a >= b else b


def _fmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return a if a <= b else b


NJIT = dict(error_model="numpy")

# math.* functions whose CPU implementation differs from the CUDA target's
# (libdevice, typed by numba/cuda/cudamath.py: float32 stays float32,
# integers compute in float64, no Python exceptions on domain errors,
# floor/ceil/trunc return floats; log2 and fmod do not exist on the CPU
# target of numba 0.56): modelled by the NumPy ufunc of the same function.
CUDA_MATH = {
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "fabs": "fabs", "radians": "radians", "degrees": "degrees",
    "atan2": "arctan2", "hypot": "hypot", "copysign": "copysign", "fmod": "fmod",
    "pow": "power",
}
ATOMICS = {
    "_atomic_add": (lambda a, b: a + b),
    "_atomic_sub": (lambda a, b: a - b),
    "_atomic_max": _pick_max,
    "_atomic_min": _pick_min,
    "_atomic_and": (lambda a, b: a & b),
    "_atomic_or": (lambda a, b: a | b),
    "_atomic_xor": (lambda a, b: a ^ b),
    "_atomic_exch": (lambda a, b: b),
    "_atomic_nanmax": _pick_nanmax,
    "_atomic_nanmin": _pick_nanmin,
    "_atomic_inc": _pick_inc,
    "_atomic_dec": _pick_dec,
}


def njit_helpers():
    """The names the rewritten code refers to, compiled by numba."""
    ns = {"_i32": numba.int32, "_np": np}
    for name, fn in ATOMICS.items():
        ns[name] = numba.njit(**NJIT)(_atomic(numba.njit(**NJIT)(fn)))
    cas = numba.njit(**NJIT)(_atomic_cas)
    ns["_atomic_cas"] = cas
    ns["_atomic_compare_and_swap"] = numba.njit(**NJIT)(
        lambda ary, old, val: cas(ary, 0, old, val))

    fmax, fmin = numba.njit(**NJIT)(_fmax), numba.njit(**NJIT)(_fmin)

    # Two-argument min/max: the CUDA target's float lowering (fmin/fmax,
    # in double when the types differ); anything else keeps the builtin.
    def mk(builtin, ffun):
        @numba.generated_jit(nopython=True, error_model="numpy")
        def chooser(a, b):
            if isinstance(a, nbtypes.Float) and isinstance(b, nbtypes.Float):
                if a != b:
                    return lambda a, b: ffun(np.float64(a), np.float64(b))
                return lambda a, b: ffun(a, b)
            return lambda a, b: builtin(a, b)
        return chooser
    ns["_cuda_max"] = mk(max, fmax)
    ns["_cuda_min"] = mk(min, fmin)
    for name, ufunc in CUDA_MATH.items():
        ns["_math_" + name] = cuda_math(getattr(np, ufunc), name == "pow")
    return ns


def cuda_math(ufunc, is_pow):
    """A math.* function with the CUDA target's typing, computed by ufunc."""
    def flt(t):
        return np.float32 if t == nbtypes.float32 else np.float64

    @numba.generated_jit(nopython=True, error_model="numpy")
    def unary(x):
        if isinstance(x, nbtypes.Float):
            return lambda x: ufunc(x)
        return lambda x: ufunc(np.float64(x))

    @numba.generated_jit(nopython=True, error_model="numpy")
    def binary(x, y):
        if isinstance(x, nbtypes.Float) and x == y:
            return lambda x, y: ufunc(x, y)
        if is_pow and isinstance(x, nbtypes.Float) and isinstance(y, nbtypes.Integer):
            cast = flt(x)    # pow(float, int32): powi, in x's type
            return lambda x, y: ufunc(x, cast(y))
        return lambda x, y: ufunc(np.float64(x), np.float64(y))

    return binary if ufunc.nin == 2 else unary


_HELPERS = None


def njit_reference(src, path, spec, values, params):
    global _HELPERS
    if _HELPERS is None:
        _HELPERS = njit_helpers()
    tree = ast.parse(src, path)
    kname = spec["opts"]["kernel"]
    body = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(is_cuda_jit(d) for d in node.decorator_list):
            kernel = not any(is_device(d) for d in node.decorator_list)
            node.decorator_list = []
            node = ToNjit(kernel).visit(node)
            if kernel:
                node.args.args = node.args.args + [ast.arg(p) for p in THREAD_PARAMS]
        body.append(node)
    tree.body = body
    ast.fix_missing_locations(tree)
    ns = dict(_HELPERS)
    ns["__name__"] = "conformance_njit"
    exec(compile(tree, path, "exec"), ns)
    # Compile every former cuda.jit function: device functions must be
    # dispatchers in the namespace by the time the kernel is typed.
    for node in ast.parse(src, path).body:
        if isinstance(node, ast.FunctionDef) and any(is_cuda_jit(d) for d in node.decorator_list):
            ns[node.name] = numba.njit(**NJIT)(ns[node.name])
    kern = ns[kname]
    args = fresh(values)
    grid, block = dims(spec["opts"]["grid"]), dims(spec["opts"]["block"])
    i32 = np.int32
    # a record scalar (a 0-d array): njit takes the record, a view of it
    argv = [args[p][()] if isinstance(args[p], np.ndarray) and args[p].ndim == 0 and
            args[p].dtype.names is not None else args[p] for p in params]
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            kern(*argv, i32(tx), i32(ty), i32(tz), i32(bx), i32(by), i32(bz),
                                 i32(block[0]), i32(block[1]), i32(block[2]),
                                 i32(grid[0]), i32(grid[1]), i32(grid[2]))
    return args


# ---------------------------------------------------------------------------
# Reference 2: the CUDA simulator
# ---------------------------------------------------------------------------

def sim_reference(src, path, spec, values, params):
    ns = {"__name__": "conformance_sim"}
    exec(compile(src, path, "exec"), ns)
    kern = ns[spec["opts"]["kernel"]]
    args = fresh(values)
    grid, block = dims(spec["opts"]["grid"]), dims(spec["opts"]["block"])
    shared = int(spec["opts"].get("shared", 0))
    kern[grid, block, 0, shared](*[args[p] for p in params])
    return args


# ---------------------------------------------------------------------------
# kernc
# ---------------------------------------------------------------------------

def run_kernc(path, spec, values, params, argtys, work):
    cmd = [os.environ.get("KERNC", "./kernc"), "run", path, spec["opts"]["kernel"],
           "--backend", os.environ.get("KERNC_BACKEND", "cpu"),
           "--grid", spec["opts"]["grid"], "--block", spec["opts"]["block"],
           "--outdir", os.path.join(work, "out")]
    if "shared" in spec["opts"]:
        cmd += ["--shared", spec["opts"]["shared"]]
    for i, (p, ty) in enumerate(zip(params, argtys)):
        v = values[p]
        if isinstance(v, np.ndarray):
            f = os.path.join(work, "in%d.npy" % i)
            np.save(f, v)
            cmd.append(f)
        else:
            cmd.append(literal(v))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    if r.returncode != 0:
        lines = r.stdout.strip().splitlines()
        errors = [l for l in lines if "error" in l]
        return None, "kernc run exited with %d:\n%s" % (
            r.returncode, "\n".join((errors or lines)[:8]))
    out = {}
    for i, p in enumerate(params):
        if isinstance(values[p], np.ndarray):
            f = os.path.join(work, "out", "arg%d.npy" % i)
            if not os.path.exists(f):
                return None, "kernc run wrote no %s" % f
            out[p] = np.load(f)
    return out, None


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------

def ulp_distance(a, b):
    """Distance in units of last place between same-dtype finite floats."""
    ity = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]   # 2: float16
    ia = a.view(ity).astype(object)
    ib = b.view(ity).astype(object)
    big = 1 << (8 * a.dtype.itemsize - 1)
    # Map the sign-magnitude bit patterns onto a monotonic integer line.
    fa = np.array([x if x >= 0 else -(x + big) for x in ia.ravel()], dtype=object)
    fb = np.array([x if x >= 0 else -(x + big) for x in ib.ravel()], dtype=object)
    return np.abs(fa - fb).reshape(a.shape)


def mismatches(got, want, how):
    """Indices (as tuples) where got and want differ, per the compare rule."""
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape), []
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype), []
    if how["sorted"]:
        got, want = np.sort(got, axis=None), np.sort(want, axis=None)
    if got.dtype.kind == "c":
        # complex: each part compared as a float, an element bad if either is
        part = np.dtype("f%d" % (got.dtype.itemsize // 2))
        g2 = np.ascontiguousarray(got).view(part).reshape(got.shape + (2,))
        w2 = np.ascontiguousarray(want).view(part).reshape(want.shape + (2,))
        err, bad = mismatches(g2, w2, dict(how, sorted=False))
        return err, sorted({ix[:-1] for ix in bad})
    if got.dtype.kind != "f":
        bad = got != want
    else:
        tol = how["ulps"] or 0
        gn, wn = np.isnan(got), np.isnan(want)
        special = ~np.isfinite(got) | ~np.isfinite(want) | (got == 0) | (want == 0)
        exact = (got == want) & (np.signbit(got) == np.signbit(want))
        bad = (gn != wn) | (~gn & ~wn & special & ~exact)
        normal = ~gn & ~wn & ~special
        if tol == 0:
            bad |= normal & (got != want)
        elif normal.any():
            d = ulp_distance(np.where(normal, got, 0).astype(got.dtype),
                             np.where(normal, want, 0).astype(got.dtype))
            bad |= normal & (d > tol).astype(bool)
    return None, [tuple(int(x) for x in ix) for ix in np.argwhere(bad)]


def input_note(values, outputs, ix):
    """The same-index elements of the 1-D input arrays, for context."""
    parts = []
    for k, v in values.items():
        if k not in outputs and isinstance(v, np.ndarray) and v.ndim >= 1 and \
                v.shape[0] > ix[0] and v.dtype.kind != "b" and v.ndim == 1:
            parts.append("%s=%s" % (k, show(v[ix[0]])))
    return " (%s)" % ", ".join(parts[:3]) if parts else ""


def show(v):
    if isinstance(v, (float, np.floating)):
        return repr(float(v)) if v.dtype.itemsize == 8 else "%r (f32)" % float(v)
    return repr(v.item() if hasattr(v, "item") else v)


# ---------------------------------------------------------------------------
# One test
# ---------------------------------------------------------------------------

def run_test(path):
    """Returns (ok, diagnostics lines)."""
    spec = parse_header(path)
    src = open(path).read()
    tree = ast.parse(src, path)
    # The module's names, for the signatures; its functions undecorated,
    # since numba 0.56's cuda.jit takes no list of signatures.
    bare = ast.parse(src, path)
    for node in bare.body:
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []
    module_ns = {"__name__": "conformance_sig"}
    exec(compile(bare, path, "exec"), module_ns)
    MODULE_DTYPES.clear()
    MODULE_DTYPES.update({k: v for k, v in module_ns.items()
                          if isinstance(v, np.dtype) and v.names is not None})
    params, sigs = kernel_signature(tree, module_ns, spec["opts"]["kernel"])
    values, ns, argtys = make_inputs(spec, params, sigs)
    for how in spec["compare"]:
        if how["name"] not in params or not isinstance(values[how["name"]], np.ndarray):
            raise TestError("compare: %s is not an array parameter" % how["name"])

    wanted = {}
    need_ref = [h["name"] for h in spec["compare"] if h["name"] not in spec["expect"]]
    mode = spec["opts"].get("reference", "njit")
    if mode == "numpy" and need_ref:
        raise TestError("reference=numpy: no expect: line for %s" % ", ".join(need_ref))
    if need_ref:
        if mode == "njit":
            ref = njit_reference(src, path, spec, values, params)
        elif mode == "sim":
            ref = sim_reference(src, path, spec, values, params)
        else:
            raise TestError("unknown reference=%s" % mode)
        for n in need_ref:
            wanted[n] = ref[n]
    for n, (expr, lineno) in spec["expect"].items():
        try:
            wanted[n] = np.asarray(eval(expr, dict(ns))).astype(values[n].dtype)
        except Exception as e:
            raise TestError("%d: expect %s: %s" % (lineno, n, e))

    if REFERENCE_ONLY:
        return True, ["reference: " + ", ".join("%s %s" % (n, wanted[n].dtype) for n in wanted)]
    work = tempfile.mkdtemp(prefix="kernc-conf-")
    try:
        got, err = run_kernc(path, spec, values, params, argtys, work)
    finally:
        if os.environ.get("KEEP"):
            sys.stderr.write("# kept %s\n" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if err:
        return False, err.splitlines()[:20]
    diag = []
    for how in spec["compare"]:
        n = how["name"]
        problem, bad = mismatches(got[n], wanted[n], how)
        if problem:
            diag.append("%s: %s" % (n, problem))
            continue
        if bad:
            g = np.sort(got[n], axis=None) if how["sorted"] else got[n]
            w = np.sort(wanted[n], axis=None) if how["sorted"] else wanted[n]
            if how["sorted"]:
                g, w = g.reshape(-1), w.reshape(-1)
            diag.append("%s: %d of %d elements differ%s" % (
                n, len(bad), w.size, " (sorted)" if how["sorted"] else ""))
            for ix in bad[:4]:
                where = ", ".join(map(str, ix))
                outputs = {h["name"] for h in spec["compare"]}
                note = "" if how["sorted"] else input_note(values, outputs, ix)
                diag.append("  %s[%s] = %s, expected %s%s" % (n, where, show(g[ix]), show(w[ix]), note))
    return not diag, diag


REFERENCE_ONLY = False


def main(argv):
    global REFERENCE_ONLY
    argv = list(argv)
    if len(argv) > 1 and argv[1] == "--reference-only":
        REFERENCE_ONLY = True
        del argv[1]
    files = argv[1:] or sorted(glob.glob(os.path.join(HERE, "*.kern")))
    kernc = os.environ.get("KERNC", "./kernc")
    if not REFERENCE_ONLY and not os.access(kernc, os.X_OK):
        print("Bail out! no kernc at %s (set KERNC)" % kernc)
        return 1
    print("1..%d" % len(files))
    failed = 0
    for i, path in enumerate(files, 1):
        name = os.path.basename(path)
        try:
            ok, diag = run_test(path)
        except TestError as e:
            ok, diag = False, ["test error: %s" % e]
        except Exception:
            ok, diag = False, ["harness error: " + traceback.format_exc().splitlines()[-1][:300]]
        if not ok:
            failed += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        for line in diag:
            print("# " + line)
        sys.stdout.flush()
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
