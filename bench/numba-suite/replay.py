"""bench/numba-suite/replay.py - numba-cuda 0.30's own test suite, replayed
through `kernc run` on the CPU backend (the measurement of issues 8 and 9).

Not part of `make check`: it needs numba-cuda 0.30 (a virtual environment,
e.g. /work/V) and takes minutes.  Run it from the build tree:

    /work/V/bin/python bench/numba-suite/replay.py [--work DIR] [--jobs N]
        [--timeout S] [--module-timeout S] [--ulps N] [--kernc PATH]
        [--capture-only | --replay-only] [MODULE ...]

MODULE is a test module name (test_math, test_ufuncs, ...; default: every
numba/cuda/tests/cudapy/test_*.py of the installed numba-cuda).

1. Capture.  Each test module runs (unittest, one subprocess per module,
   --module-timeout) under numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1)
   with the simulator's kernel launch wrapped: every launch records
     - the kernel's source (inspect.getsource, dedented) with everything it
       names from its module globals and closure cells: imports of the
       modules and functions it uses (math, np, cuda, `from math import sin`,
       numba types), constants (numbers, tuples, small arrays), the device
       functions it calls (their sources, recursively), records as
       `from_dtype(np.dtype(...))`, all in one .kern file whose decorators
       are rewritten to `@cuda.jit(SIG)`: the explicit signatures of the
       original `cuda.jit(...)` where it had them, else the signature the
       launch used (numba.typeof of every argument, as numba-cuda's lazy
       dispatch types them: Python int int64, float float64, arrays with
       their layout);
     - the launch configuration (grid, block, dynamic shared memory);
     - every argument before the launch (arrays as .npy, scalars as
       literals, record scalars as 0-d structured .npy: numba copies a record
       argument to the device and back, so it is compared like an array) and every array after it: the simulator's results are the
       reference.
   A launch of a debug=True kernel that the simulator ends with an
   exception is replayed as one that must fail with it (kernc run: "exception
   raised in a kernel", the same class; the simulator's FloatingPointError
   is compiled numba's ZeroDivisionError); recursive device functions, user
   exception classes and kernels called from device code (numba-cuda
   compiles them as device functions) are written as they are.
   A launch that cannot be written as a .kern file (a lambda, a closure over
   a Python object, a plain Python function called from the kernel, a 0-d
   array, a named tuple or a tuple of arrays, ...) is recorded as "not
   replayable" with the reason; a tuple of numbers (nested too) is passed
   as `kernc run`'s tuple literal, '(1, 2.5, (3, 4))'.
2. Replay.  Each distinct .kern file is first translated once
   (`kernc --target c -fsyntax-only`): a translation error fails all its
   launches with that message.  The others run one by one,
   `kernc run FILE.kern KERNEL --backend cpu --grid X,Y,Z --block X,Y,Z
   [--shared B] --outdir D --quiet ARGS` (--timeout seconds each), and every
   array is compared with the simulator's: exactly for integers and
   booleans, within --ulps ulps for floats (default 4; NaN matches NaN, and
   infinities and signs of zero must match).
3. Report.  Each launch is classified: pass, fail (by its first kernc error:
   `translate: MESSAGE` with names of the test's own variables and numbers
   normalised, `compile: ...` when the C compiler rejects the generated code,
   `run: ...` a launch-time or run-time error, a crash or a timeout,
   `wrong result: ...`), sim deviation (a wrong result of a test listed in
   sim-deviations.tsv: the simulator computes with Python's cmath or NumPy
   where compiled numba-cuda does not, and kernc computes what compiled
   numba-cuda does; sim_deviations.py shows it), or not replayable.
   Written to DIR/summary.txt (the
   counts and the most frequent causes) and DIR/launches.tsv (one line per
   launch: id, module, test, kernel, status, cause), and the summary is
   printed.  --replay-only reuses a previous capture in DIR (after a change
   to kernc, the capture need not be repeated; with MODULEs, only theirs
   are replayed).  An argument passed as cuda.In(a) is not compared (the
   simulator never copies it back).

Default DIR: numba-suite-work/ in the current directory.  --jobs defaults
to 2 (the machine this was written on is shared).
"""
import argparse
import ast
import collections
import concurrent.futures
import glob
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# Capture (runs inside the per-module subprocess, under the simulator)
# ---------------------------------------------------------------------------


class NotReplayable(Exception):
    pass


_CURRENT_TEST = ["?"]


def _install_pytest_shim():
    """Twelve test modules import pytest (raises, warns, mark,
    importorskip); where it is not installed a small stand-in serves."""
    try:
        import pytest  # noqa: F401
        return
    except ImportError:
        pass
    sys.path.insert(0, os.path.join(HERE, "shim"))


def _capture_module(modname, outdir, max_launches):
    import numpy as np
    import unittest
    import numba
    from numba import cuda
    from numba.cuda.simulator import kernel as simkernel
    from numba.cuda.simulator import api as simapi
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    from numba.cuda.simulator.args import ArgHint

    os.makedirs(outdir, exist_ok=True)
    workdir = os.path.dirname(os.path.dirname(outdir))
    kerndir = os.path.join(workdir, "kern")
    os.makedirs(kerndir, exist_ok=True)
    log = open(os.path.join(outdir, "launches.jsonl"), "w")
    counter = [0]

    # -- sources of functions made by exec() (test_ufuncs makes its kernels
    # from strings): remember each string by the code objects it defined --
    import builtins
    exec_sources = {}
    orig_exec = builtins.exec

    def exec_(src, globals_=None, locals_=None, *rest, **kw):
        res = orig_exec(src, globals_, locals_, *rest, **kw) if locals_ is not None \
            else orig_exec(src, globals_, *rest, **kw) if globals_ is not None \
            else orig_exec(src, sys._getframe(1).f_globals, sys._getframe(1).f_locals)
        if isinstance(src, str):
            for d in (globals_, locals_):
                if isinstance(d, dict):
                    for v in list(d.values()):
                        code = getattr(v, "__code__", None)
                        if code is not None and code.co_filename == "<string>" \
                                and code not in exec_sources:
                            exec_sources[code] = src
        return res

    builtins.exec = exec_

    # -- shared and local arrays start with known contents ------------------
    # The simulator makes them with np.empty; CUDA leaves them uninitialised
    # too.  They are filled with zero bytes, and a launch of a kernel that
    # makes such arrays runs a second time with them filled with 0x5A bytes
    # (on fresh copies of its inputs): where the results differ, the kernel
    # reads memory it never wrote, its result is undefined on a GPU as on
    # the CPU, and the launch is not replayable.
    from numba.cuda.simulator import kernelapi as simkapi
    fill = [0]

    class _FilledNumpy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def empty(shape, dtype=float, *a, **kw):
            res = np.empty(shape, dtype, *a, **kw)
            np.frombuffer(res.data, np.uint8).fill(fill[0]) if res.size else None
            return res

    simkapi.np = _FilledNumpy()

    def undefined_result(kernel, args, rec, mdir):
        """Does the launch's result depend on the initial contents of its
        shared or local arrays?  (rerun with the other fill)"""
        src = open(os.path.join(workdir, rec["kern"])).read()
        if "shared.array(" not in src and "local.array(" not in src:
            return False
        fresh = []
        for a, r in zip(args, rec["args"]):
            h = unwrap(a)
            if isinstance(h, np.ndarray):
                fresh.append(np.load(os.path.join(mdir, r["in"])).reshape(h.shape))
            elif isinstance(h, np.void):
                return False
            else:
                fresh.append(h)
        fill[0] = 0x5A
        try:
            orig_call(kernel, *fresh)
        except BaseException:
            return False
        finally:
            fill[0] = 0
        for i, r in enumerate(rec["args"]):
            if "out" in r:
                ref = np.load(os.path.join(mdir, r["out"]))
                got = np.ascontiguousarray(fresh[i])
                if ref.dtype.names is None and not np.array_equal(ref, got, equal_nan=True):
                    return True
        return False

    FakeCUDAKernel = simkernel.FakeCUDAKernel
    orig_call = FakeCUDAKernel.__call__
    orig_jit = simapi.jit

    # -- remember the explicit signatures given to cuda.jit ---------------
    def jit(func_or_sig=None, *args, **kwargs):
        res = orig_jit(func_or_sig, *args, **kwargs)
        opts = {k: v for k, v in kwargs.items()
                if k in ("device", "fastmath", "debug", "opt", "lineinfo")}
        if args:
            opts["device"] = args[0]
        sigs = None
        if isinstance(func_or_sig, list):
            sigs = func_or_sig
        elif func_or_sig is not None and not callable(func_or_sig):
            sigs = [func_or_sig]
        if isinstance(res, FakeCUDAKernel):
            res._npk_sigs = sigs
            res._npk_opts = opts
            return res

        def wrapper(fn):
            k = res(fn)
            k._npk_sigs = sigs
            k._npk_opts = opts
            return k
        return wrapper

    simapi.jit = jit
    cuda.jit = jit
    try:
        import numba.cuda.simulator as simpkg
        simpkg.jit = jit
    except Exception:
        pass

    # -- numba types and signatures in .kern spelling -----------------------
    from numba.core import types as nbt

    class Env:
        """The module-level definitions one .kern file needs."""

        def __init__(self):
            self.imports = {}      # name -> import line
            self.consts = {}       # name -> assignment line
            self.funcs = {}        # name -> source (device functions)
            self.order = []        # device function names, callees first
            self.records = {}      # dtype -> name
            self.active = set()

    def dtype_expr(dt):
        if dt.fields is None:
            if dt.subdtype is not None:
                base, shape = dt.subdtype
                return "(%s, %r)" % (dtype_expr(base), shape)
            return repr(dt.str)
        names = list(dt.names)
        formats = ", ".join(dtype_expr(dt.fields[n][0]) for n in names)
        offsets = [dt.fields[n][1] for n in names]
        return ("np.dtype({'names': %r, 'formats': [%s], 'offsets': %r, "
                "'itemsize': %d}, align=%r)" % (names, formats, offsets,
                                                  dt.itemsize, dt.isalignedstruct))

    def type_str(t, env):
        if isinstance(t, nbt.Array):
            dims = [":"] * t.ndim
            if t.layout == "C" and t.ndim > 0:
                dims[-1] = "::1"
            return "%s[%s]" % (type_str(t.dtype, env), ", ".join(dims))
        if isinstance(t, (nbt.Record, nbt.CharSeq, nbt.UnicodeCharSeq)):
            # char sequences too: from_dtype(np.dtype('|S12')) is numba's
            # CharSeq(12) (its str(), '[char x 12]', is no signature)
            dt = numba.np.numpy_support.as_dtype(t)
            key = dtype_expr(dt)
            if not isinstance(t, nbt.Record):
                key = "np.dtype(%s)" % key
            if key not in env.records:
                name = "_rec%d" % len(env.records)
                env.records[key] = name
                env.imports["from_dtype"] = "from numba import from_dtype"
                env.imports["np"] = "import numpy as np"
            return env.records[key]
        if t == nbt.boolean:
            return "boolean"
        if t == nbt.none:
            return "void"
        if isinstance(t, (nbt.NamedTuple, nbt.NamedUniTuple)):
            raise NotReplayable("named tuple argument")
        if isinstance(t, nbt.UniTuple):
            return "UniTuple(%s, %d)" % (type_str(t.dtype, env), t.count)
        if isinstance(t, nbt.Tuple):
            return "Tuple((%s%s))" % (", ".join(type_str(a, env) for a in t.types),
                                      "," if len(t.types) == 1 else "")
        s = str(t)
        return s

    def arg_type(v):
        import enum
        if isinstance(v, enum.Enum):   # an IntEnum member is an int too: its own type
            return numba.typeof(v)
        if isinstance(v, bool) or isinstance(v, np.bool_):
            return nbt.boolean
        if isinstance(v, int):
            return nbt.int64
        if isinstance(v, float):
            return nbt.float64
        if isinstance(v, complex):
            return nbt.complex128
        return numba.typeof(v)

    def sig_str(s, env):
        if isinstance(s, str):
            return s
        if isinstance(s, tuple):
            return "void(%s)" % ", ".join(type_str(a, env) for a in s)
        if hasattr(s, "args") and hasattr(s, "return_type"):
            return "%s(%s)" % (type_str(s.return_type, env),
                               ", ".join(type_str(a, env) for a in s.args))
        raise NotReplayable("signature %r" % (s,))

    # -- sources and the names they need -----------------------------------
    MODULE_SPELLING = {
        "numpy": "import numpy as {n}",
        "math": "import math as {n}",
        "cmath": "import cmath as {n}",
        "operator": "import operator as {n}",
        "numba": "import numba as {n}",
        "numba.cuda": "from numba import cuda as {n}",
    }
    SEARCH_MODULES = ["math", "cmath", "numpy", "operator", "numba.cuda",
                      "numba.cuda.random", "numba.cuda.fp16", "numba.cuda.bf16",
                      "numba.cuda.cg", "numba", "numba.cuda.libdevice"]

    def import_line(name, value):
        import types as pytypes
        import importlib
        if isinstance(value, pytypes.ModuleType):
            mname = value.__name__
            if mname.startswith("numba.cuda.simulator"):
                mname = "numba.cuda"
            if mname in MODULE_SPELLING:
                line = MODULE_SPELLING[mname].format(n=name)
            elif "." in mname:
                pkg, _, last = mname.rpartition(".")
                line = "from %s import %s as %s" % (pkg, last, name)
            else:
                line = "import %s as %s" % (mname, name)
            return line.replace(" as %s" % name.split(".")[-1], "") \
                if line.endswith(" as " + mname.split(".")[-1]) else line
        number = isinstance(value, (bool, int, float, complex, np.generic))
        for m in SEARCH_MODULES:
            if number and m not in ("math", "cmath", "numpy"):
                continue   # a module's private constant: written as a constant
            try:
                mod = importlib.import_module(m)
            except Exception:
                continue
            for attr in ([name] + [getattr(value, "__name__", None)]):
                if attr and getattr(mod, attr, None) is value:
                    return ("from %s import %s" % (m, attr) if attr == name
                            else "from %s import %s as %s" % (m, attr, name))
        if isinstance(value, nbt.Type):
            s = str(value)
            if s.isidentifier() and hasattr(numba, s):
                return ("from numba import %s" % s if s == name
                        else "from numba import %s as %s" % (s, name))
            if value == nbt.boolean:
                return "from numba import boolean as %s" % name
        return None

    def const_line(name, value):
        if isinstance(value, (bool, int, float, complex, str)) or value is None:
            return "%s = %r" % (name, value)
        if isinstance(value, np.generic) and value.dtype.fields is None:
            return "%s = np.%s(%r)" % (name, value.dtype.name, value.item())
        if isinstance(value, tuple):
            items = []
            for v in value:
                line = const_line("x", v)
                if line is None:
                    return None
                items.append(line[4:])
            return "%s = (%s%s)" % (name, ", ".join(items),
                                    "," if len(items) == 1 else "")
        if isinstance(value, np.ndarray) and value.dtype.fields is None:
            if value.size > 4096:
                raise NotReplayable("global array of %d elements" % value.size)
            return "%s = np.array(%r, dtype=np.%s)" % (
                name, value.tolist(), value.dtype.name)
        return None

    def parse_function(fn):
        if fn.__name__ == "<lambda>":
            raise NotReplayable("lambda")
        code = fn.__code__
        if code in exec_sources:
            tree = ast.parse(exec_sources[code])
            defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                    and n.name == code.co_name and n.lineno == code.co_firstlineno]
            if not defs:
                raise NotReplayable("no source (exec)")
            tree = ast.Module(body=[defs[0]], type_ignores=[])
        else:
            try:
                src = textwrap.dedent(inspect.getsource(fn))
            except (OSError, TypeError) as e:
                raise NotReplayable("no source (%s)" % type(e).__name__)
            try:
                tree = ast.parse(src)
            except SyntaxError:
                raise NotReplayable("source does not parse alone")
        fdef = tree.body[0] if tree.body else None
        if not isinstance(fdef, ast.FunctionDef):
            raise NotReplayable("source is not a def")
        if fn.__name__.isidentifier():
            fdef.name = fn.__name__
        return tree, fdef

    def free_names(fdef):
        loads, stores = set(), set()
        for a in fdef.args.args + fdef.args.kwonlyargs:
            stores.add(a.arg)
        decorators = set()   # rewritten: the names they use are not needed
        for d in fdef.decorator_list:
            decorators.update(id(n) for n in ast.walk(d))
        for node in ast.walk(fdef):
            if id(node) in decorators:
                continue
            if isinstance(node, ast.Name):
                (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not fdef:
                raise NotReplayable("nested function")
        return loads - stores

    def add_def(table, name, line):
        old = table.get(name)
        if old is not None and old != line:
            raise NotReplayable("name conflict: %s" % name)
        table[name] = line

    def resolve_names(fn, fdef, env):
        import builtins
        cells = {}
        if fn.__closure__:
            for nm, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    cells[nm] = cell.cell_contents
                except ValueError:
                    raise NotReplayable("empty closure cell %s" % nm)
        for name in sorted(free_names(fdef)):
            if name in cells:
                value = cells[name]
            elif name in fn.__globals__:
                value = fn.__globals__[name]
            elif hasattr(builtins, name):
                continue
            else:
                continue  # unbound: the simulator would have failed too
            if isinstance(value, FakeCUDAKernel):
                # a kernel called from device code: numba-cuda 0.30 compiles it
                # as a device function for the call's argument types
                add_device(name, value.fn,
                           getattr(value, "_npk_sigs", None) if value._device else None, env)
                continue
            if hasattr(value, "py_func") and callable(value):
                add_device(name, value.py_func, None, env)
                continue
            line = import_line(name, value)
            if line is not None:
                add_def(env.imports, name, line)
                continue
            line = const_line(name, value)
            if line is not None:
                if "np." in line:
                    env.imports.setdefault("np", "import numpy as np")
                add_def(env.consts, name, line)
                continue
            if inspect.isfunction(value):
                raise NotReplayable("calls plain Python function %s" % name)
            if (isinstance(value, type) and issubclass(value, Exception)
                    and value.__module__ != "builtins"):
                # a user exception class, raised by the kernel
                base = next(b for b in value.__mro__[1:] if b.__module__ == "builtins")
                add_def(env.consts, name, "class %s(%s):\n    pass" % (name, base.__name__))
                continue
            if inspect.isclass(value):
                raise NotReplayable("class %s" % type(value).__name__
                                    if not isinstance(value, type) else
                                    "class %s" % value.__name__)
            raise NotReplayable("global %s of type %s" % (name, type(value).__name__))

    def decorator(sigs, opts, env, device):
        parts = []
        if sigs:
            ss = [sig_str(s, env) for s in sigs]
            parts.append(repr(ss[0]) if len(ss) == 1 else repr(ss))
        if device:
            parts.append("device=True")
        for k in ("fastmath", "debug", "opt", "lineinfo"):
            if k in opts and isinstance(opts[k], bool):
                parts.append("%s=%r" % (k, opts[k]))
        return "cuda.jit(%s)" % ", ".join(parts)

    def add_device(name, fn, sigs, env):
        if name in env.funcs or name in env.active:
            return  # done, or recursion: the outer call writes it
        env.active.add(name)
        tree, fdef = parse_function(fn)
        resolve_names(fn, fdef, env)
        fdef.name = name
        fdef.decorator_list = [ast.parse(decorator(sigs, {}, env, True)).body[0].value]
        env.funcs[name] = ast.unparse(tree)
        env.order.append(name)
        env.active.discard(name)

    def kern_source(kernel, args):
        env = Env()
        fn = kernel.fn
        tree, fdef = parse_function(fn)
        resolve_names(fn, fdef, env)
        sigs = getattr(kernel, "_npk_sigs", None)
        if not sigs:
            types_ = []
            for a in args:
                types_.append(type_str(arg_type(a), env))
            sigs = ["void(%s)" % ", ".join(types_)]
        opts = getattr(kernel, "_npk_opts", {})
        fdef.decorator_list = [ast.parse(decorator(sigs, opts, env, False)).body[0].value]
        env.imports.setdefault("cuda", "from numba import cuda")
        text = ast.unparse(tree)
        out = ["# captured from numba-cuda's test suite by bench/numba-suite/replay.py"]
        out += sorted(set(env.imports.values()))
        out.append("")
        for dt, nm in env.records.items():
            out.append("%s = from_dtype(%s)" % (nm, dt))
        out += [env.consts[k] for k in sorted(env.consts)]
        for nm in env.order:
            out += ["", "", env.funcs[nm]]
        out += ["", "", text, ""]
        return fn.__name__, "\n".join(out)

    # -- the launch wrapper ----------------------------------------------------
    def unwrap(a):
        """The host array behind an argument, or the scalar itself."""
        if isinstance(a, ArgHint):
            a = a.value
        if isinstance(a, FakeCUDAArray):
            a = a._ary
        return a

    def tuple_literal(t):
        """A tuple argument as `kernc run` takes it: '(1, 2.5, (3, 4))'."""
        if hasattr(t, "_fields"):
            raise NotReplayable("named tuple argument")
        parts = []
        for v in t:
            if isinstance(v, tuple):
                parts.append(tuple_literal(v))
            elif isinstance(v, (bool, np.bool_)):
                parts.append("True" if v else "False")
            elif isinstance(v, (int, np.integer)):
                parts.append(str(int(v)))
            elif isinstance(v, (float, np.floating)):
                parts.append(repr(float(v)))
            elif isinstance(v, np.ndarray):
                raise NotReplayable("tuple of arrays argument")
            else:
                raise NotReplayable("tuple argument holding %s" % type(v).__name__)
        if not parts:
            raise NotReplayable("empty tuple argument")
        return "(%s%s)" % (", ".join(parts), "," if len(parts) == 1 else "")
    def record_array(r):
        """A record scalar as a 0-d array of its plain structured dtype
        (the bytes as they are: offsets and padding kept)."""
        d = r.dtype
        plain = np.dtype({"names": list(d.names),
                          "formats": [d.fields[f][0] for f in d.names],
                          "offsets": [d.fields[f][1] for f in d.names],
                          "itemsize": d.itemsize, "aligned": d.isalignedstruct})
        return np.frombuffer(bytes(memoryview(np.array(r)).cast("B")), plain).reshape(())

    def passed_as(kernel, arg):
        """The argument as the kernel's extensions hand it to the launch
        (an extension's prepare_args may make an array cuda.In, as
        test_retrieve_autoconverted_arrays' DefaultIn does), as the
        simulator applies them."""
        ty_val = (None, arg)
        for ext in getattr(kernel, "extensions", ()):
            try:
                ty_val = ext.prepare_args(*ty_val, stream=0, retr=[])
            except Exception:
                return arg
        return ty_val[1]

    def wrap_int_literals(kernel, argrecs):
        """A Python int passed for an integer parameter of a kernel's one
        explicit signature: compiled numba-cuda converts it with ctypes
        (c_int32(0x80000000) is -2**31), wrapping where `kernc run` would
        refuse a literal out of range; the literal becomes that value."""
        import ctypes
        sigs = getattr(kernel, "_npk_sigs", None)
        if not sigs or len(sigs) != 1:
            return
        try:
            from numba.core import sigutils
            params = sigutils.normalize_signature(sigs[0])[0]
        except Exception:
            return
        for a, t in zip(argrecs, params):
            if a["kind"] != "scalar" or not isinstance(t, nbt.Integer):
                continue
            try:
                v = int(a["value"])
            except ValueError:
                continue
            a["value"] = str(getattr(ctypes, "c_%s" % t.name)(v).value)

    def call(self, *args):
        if self._device or simkernel._kernel_context:
            return orig_call(self, *args)
        counter[0] += 1
        n = counter[0]
        rec = {"id": "%s:%d" % (modname, n), "module": modname,
               "test": _CURRENT_TEST[0], "kernel": getattr(self.fn, "__name__", "?")}
        before = None
        if n > max_launches:
            rec["status"] = "not replayable"
            rec["cause"] = "over %d launches in the module" % max_launches
        elif self.grid_dim is not None and self.block_dim is not None and \
                0 in tuple(self.grid_dim) + tuple(self.block_dim):
            # compiled numba-cuda launches nothing here (forall(0), test_forall's
            # no_work), and CUDA refuses such a launch: there is none to replay
            rec["status"] = "not replayable"
            rec["cause"] = "a grid or block with a zero dimension (no launch)"
        else:
            try:
                host = [unwrap(a) for a in args]
                for a in host:
                    if isinstance(a, np.ndarray):
                        if a.ndim == 0:
                            raise NotReplayable("0-d array argument")
                        if a.nbytes > (16 << 20):
                            raise NotReplayable("array argument over 16 MiB")
                    elif isinstance(a, list):
                        raise NotReplayable("list argument")
                    elif isinstance(a, tuple):
                        tuple_literal(a)   # kernc run takes tuples of numbers
                    elif isinstance(a, np.void):
                        pass   # a record: a 0-d structured .npy, in and out
                    elif not isinstance(a, (bool, int, float, complex, np.generic)):
                        raise NotReplayable("argument of type %s" % type(a).__name__)
                name, text = kern_source(self, host)
                h = hashlib.sha1(text.encode()).hexdigest()[:16]
                path = os.path.join(kerndir, h + ".kern")
                if not os.path.exists(path):
                    with open(path, "w") as f:
                        f.write(text)
                rec["kern"] = os.path.relpath(path, workdir)
                rec["kernel"] = name
                rec["grid"] = list(self.grid_dim)
                rec["block"] = list(self.block_dim)
                rec["shared"] = int(self.dynshared_size or 0)
                argrecs = []
                before = []
                for i, a in enumerate(host):
                    if isinstance(a, np.void):
                        # a record scalar: numba copies it to the device and
                        # back, so it is compared after the launch as an array
                        p = "L%d_a%d_in.npy" % (n, i)
                        np.save(os.path.join(outdir, p), record_array(a))
                        argrecs.append({"kind": "array", "in": p})
                        before.append(a)
                    elif isinstance(a, np.ndarray):
                        p = "L%d_a%d_in.npy" % (n, i)
                        np.save(os.path.join(outdir, p), np.ascontiguousarray(a))
                        argrecs.append({"kind": "array", "in": p})
                        before.append(a)
                    elif isinstance(a, tuple):
                        argrecs.append({"kind": "scalar", "value": tuple_literal(a)})
                        before.append(None)
                    else:
                        if isinstance(a, (complex, np.complexfloating)):
                            lit = repr(complex(a))
                        elif isinstance(a, (bool, np.bool_)):
                            lit = "true" if a else "false"
                        elif isinstance(a, (float, np.floating)):
                            lit = repr(float(a))
                        else:
                            lit = str(int(a))
                        if isinstance(a, np.generic):
                            # numba types a NumPy scalar by its dtype (it
                            # chooses among overloads by it): kernc run's
                            # typed literal, float32(1.0)
                            lit = "%s(%s)" % (a.dtype.name, lit)
                        argrecs.append({"kind": "scalar", "value": lit})
                        before.append(None)
                wrap_int_literals(self, argrecs)
                rec["args"] = argrecs
            except NotReplayable as e:
                rec["status"] = "not replayable"
                rec["cause"] = str(e)
                before = None
            except Exception as e:  # a bug of the capture: say which
                rec["status"] = "not replayable"
                rec["cause"] = "capture error: %s: %s" % (type(e).__name__, str(e)[:80])
                before = None
        try:
            return orig_call(self, *args)
        except BaseException as e:
            # debug=True: compiled numba-cuda reports the exception too, so
            # kernc's launch must fail with it (without debug compiled code
            # ignores it, unlike the simulator: not replayable)
            if (isinstance(e, Exception) and rec.get("status") is None and before is not None
                    and getattr(self, "_npk_opts", {}).get("debug")):
                rec["expect_exception"] = type(e).__name__
                before = None
            else:
                rec["status"] = "not replayable"
                rec["cause"] = "the simulator raised %s" % type(e).__name__
            raise
        finally:
            if before is not None and rec.get("status") is None:
                for i, a in enumerate(before):
                    # cuda.In(a): the device's copy is never read back, so
                    # the simulator's result for it is not observable
                    if a is not None and type(passed_as(self, args[i])).__name__ != "In":
                        p = "L%d_a%d_out.npy" % (n, i)
                        host = unwrap(args[i])
                        np.save(os.path.join(outdir, p), record_array(host)
                                if isinstance(host, np.void) else np.ascontiguousarray(host))
                        rec["args"][i]["out"] = p
                if undefined_result(self, args, rec, outdir):
                    rec["status"] = "not replayable"
                    rec["cause"] = ("reads shared or local memory it never wrote "
                                    "(an undefined result)")
            log.write(json.dumps(rec) + "\n")
            log.flush()

    FakeCUDAKernel.__call__ = call

    # -- run the module's tests --------------------------------------------------
    class Result(unittest.TextTestResult):
        def startTest(self, test):
            _CURRENT_TEST[0] = test.id().rsplit(".", 2)[-2] + "." + test.id().rsplit(".", 1)[-1]
            super().startTest(test)

    suite = unittest.defaultTestLoader.loadTestsFromName(
        "numba.cuda.tests.cudapy." + modname)
    with open(os.devnull, "w") as devnull:
        runner = unittest.TextTestRunner(stream=devnull, resultclass=Result, verbosity=0)
        res = runner.run(suite)
    log.close()
    for test, tb in (res.errors + res.failures)[:20]:
        print("FAILED %s: %s" % (test.id(), tb.strip().splitlines()[-1][:200]))
    with open(os.path.join(outdir, "done.json"), "w") as f:
        json.dump({"tests": res.testsRun, "errors": len(res.errors),
                   "failures": len(res.failures), "skipped": len(res.skipped)}, f)


# ---------------------------------------------------------------------------
# Replay and report (runs with any Python that has numpy)
# ---------------------------------------------------------------------------

_QUOTED = re.compile(r"'([^']*)'")
_NUM = re.compile(r"\b\d+\b")


def normalise(msg, source_names):
    """An error message with the test's own names and numbers replaced, so
    that one cause counts once: quoted words that are names of the kernel's
    variables/parameters become 'X'; API names and types are kept."""
    def q(m):
        w = m.group(1)
        return "'X'" if w in source_names else m.group(0)
    msg = _QUOTED.sub(q, msg)
    return _NUM.sub("N", msg)


def source_names(text):
    names = set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    for mod in ("math", "np", "numpy", "cuda", "cmath", "numba", "operator"):
        names.discard(mod)
    return names


_ERR = re.compile(r"^[^\n:]+\.kern:\d+:\d+: error: (.*)$", re.M)
_RUNERR = re.compile(r"^kernc run: (?:error: )?(.*)$", re.M)


def first_error(stderr):
    m = _ERR.search(stderr)
    if m:
        return "translate", m.group(1).strip()
    m = _RUNERR.search(stderr)
    if m:
        return "run", m.group(1).strip()
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return "run", (lines[0] if lines else "no message")


def ulp_diff(a, b, np):
    """Elementwise distance in ulps of two float arrays of one dtype."""
    it = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ai = a.view(it).astype(np.int64)
    bi = b.view(it).astype(np.int64)
    big = np.int64(1) << (a.dtype.itemsize * 8 - 1)
    ai = np.where(ai < 0, -(ai + big), ai)   # sign-magnitude to a line
    bi = np.where(bi < 0, -(bi + big), bi)
    return np.abs(ai - bi)


def compare(ref, got, ulps, np):
    """None when equal, else a short reason."""
    if ref.shape != got.shape:
        return "shape %s, expected %s" % (got.shape, ref.shape)
    if ref.dtype != got.dtype:
        return "dtype %s, expected %s" % (got.dtype, ref.dtype)
    if ref.dtype.fields is not None:
        for f in ref.dtype.names:
            r = compare(ref[f], got[f], ulps, np)
            if r:
                return "field %s: %s" % (f, r)
        return None
    if ref.dtype.kind == "c":
        return compare(ref.real.copy(), got.real.copy(), ulps, np) or \
            compare(ref.imag.copy(), got.imag.copy(), ulps, np)
    if ref.dtype.kind == "f":
        rn, gn = np.isnan(ref), np.isnan(got)
        bad = rn != gn
        both = ~rn & ~gn
        d = np.zeros(ref.shape, dtype=np.int64)
        d[both] = ulp_diff(ref[both], got[both], np)
        # infinities and zero signs: exact (ulp_diff of +0/-0 is 0)
        zero = both & (ref == 0)
        bad |= zero & (np.signbit(ref) != np.signbit(got))
        bad |= both & (np.isinf(ref) | np.isinf(got)) & (ref != got)
        bad |= d > ulps
        if bad.any():
            i = tuple(int(x) for x in np.argwhere(bad)[0])
            return "%d of %d elements differ (at %s: %r, expected %r)" % (
                int(bad.sum()), ref.size, i, got[i].item(), ref[i].item())
        return None
    bad = ref != got
    if np.any(bad):
        i = tuple(int(x) for x in np.argwhere(bad)[0])
        return "%d of %d elements differ (at %s: %r, expected %r)" % (
            int(bad.sum()), ref.size, i, got[i].item(), ref[i].item())
    return None


def replay_one(rec, work, kernc, timeout, ulps, translate_cache):
    import numpy as np
    kern = os.path.join(work, rec["kern"])
    mdir = os.path.join(work, "cap", rec["module"])
    err = translate_cache.get(rec["kern"])
    if err is not None:
        return "fail", err
    with tempfile.TemporaryDirectory(prefix="npk-") as d:
        cmd = [kernc, "run", kern, rec["kernel"], "--backend", "cpu",
               "--grid", ",".join(map(str, rec["grid"])),
               "--block", ",".join(map(str, rec["block"])),
               "--outdir", d, "--quiet"]
        if rec.get("shared"):
            cmd += ["--shared", str(rec["shared"])]
        for a in rec["args"]:
            cmd.append(os.path.join(mdir, a["in"]) if a["kind"] == "array" else a["value"])
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, env=dict(os.environ, KRT_BACKEND="cpu"))
        except subprocess.TimeoutExpired:
            return "fail", "run: timeout after %ds" % timeout
        stderr = p.stderr.decode(errors="replace")
        if p.returncode < 0:
            return "fail", "run: killed by signal %d" % -p.returncode
        exc = rec.get("expect_exception")
        if exc:
            # the simulator's FloatingPointError is compiled numba's
            # ZeroDivisionError (test_exception.py says so)
            want = "ZeroDivisionError" if exc == "FloatingPointError" else exc
            if p.returncode != 0 and "exception raised in a kernel" in stderr \
                    and (want + ":") in stderr:
                return "pass", ""
            if p.returncode == 0:
                return "fail", "wrong result: the launch did not raise %s" % want
        if exc and p.returncode != 0 and "exception raised in a kernel" in stderr:
            return "fail", "wrong result: raised another exception than %s" % exc
        if p.returncode != 0:
            kind, msg = first_error(stderr)
            if kind == "run" and msg.startswith("compilation of the generated code failed"):
                kind = "compile"
                m = re.search(r"error: (.*)", stderr)
                msg = m.group(1) if m else msg
            names = source_names(open(kern).read())
            return "fail", "%s: %s" % (kind, normalise(msg, names))
        for i, a in enumerate(rec["args"]):
            if a["kind"] != "array":
                continue
            if "out" not in a:   # cuda.In: nothing to compare
                continue
            ref = np.load(os.path.join(mdir, a["out"]))
            gp = os.path.join(d, "arg%d.npy" % i)
            if not os.path.exists(gp):
                return "fail", "run: no arg%d.npy written" % i
            got = np.load(gp)
            why = compare(ref, got, ulps, np)
            if why:
                return "fail", "wrong result: %s array: arg%d: %s" % (ref.dtype, i, why)
    return "pass", ""


def translate_check(path, kernc, timeout):
    try:
        p = subprocess.run([kernc, path, "--target", "c", "-fsyntax-only", "-w"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "translate: timeout"
    if p.returncode == 0:
        return None
    stderr = p.stderr.decode(errors="replace")
    kind, msg = first_error(stderr)
    if kind != "translate":
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        msg = lines[0] if lines else "exit status %d" % p.returncode
    return "translate: " + normalise(msg, source_names(open(path).read()))


def capture(args, modules):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONHASHSEED="0")
    env.pop("NUMBA_CUDA_TEST_BIN_DIR", None)
    capdir = os.path.join(args.work, "cap")
    os.makedirs(capdir, exist_ok=True)

    def one(mod):
        out = os.path.join(capdir, mod)   # a module's capture is redone whole
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.makedirs(out)
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--_capture", mod,
                                "--work", args.work, "--max-launches", str(args.max_launches)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=args.module_timeout)
            status = "ok" if p.returncode == 0 else "exit %d" % p.returncode
            tail = p.stdout.decode(errors="replace")[-2000:]
        except subprocess.TimeoutExpired:
            status, tail = "timeout", ""
        with open(os.path.join(out, "capture.log"), "w") as f:
            f.write("%s %.1fs\n%s" % (status, time.time() - t0, tail))
        return mod, status, time.time() - t0

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for mod, status, dt in ex.map(one, modules):
            n = 0
            lj = os.path.join(capdir, mod, "launches.jsonl")
            if os.path.exists(lj):
                n = sum(1 for _ in open(lj))
            print("capture %-40s %-8s %6.1fs %5d launches" % (mod, status, dt, n), flush=True)


def load_launches(work):
    recs = []
    for lj in sorted(glob.glob(os.path.join(work, "cap", "*", "launches.jsonl"))):
        with open(lj) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        recs.append(json.loads(line))
                    except ValueError:
                        pass
    return recs


def replay(args):
    recs = load_launches(args.work)
    if args.replay_only and args.modules:
        recs = [r for r in recs if r["module"] in args.modules]
    kernc = args.kernc
    todo = [r for r in recs if r.get("status") is None]
    kerns = sorted({r["kern"] for r in todo})
    cache = {}
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for k, err in zip(kerns, ex.map(
                lambda k: translate_check(os.path.join(args.work, k), kernc, args.timeout),
                kerns)):
            if err is not None:
                cache[k] = err
    print("translated %d kernel files in %.1fs: %d fail" % (len(kerns), time.time() - t0,
                                                            len(cache)), flush=True)

    deviations = load_deviations()

    def one(r):
        try:
            st, cause = replay_one(r, args.work, kernc, args.timeout, args.ulps, cache)
        except Exception as e:
            st, cause = "fail", "harness: %s: %s" % (type(e).__name__, e)
        why = deviations.get((r["module"], r["test"]))
        if st == "fail" and cause.startswith("wrong result") and why:
            st, cause = "sim deviation", "%s (%s)" % (why, cause)
        return st, cause

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for r, (st, cause) in zip(todo, ex.map(one, todo)):
            r["status"], r["cause"] = st, cause
    print("replayed %d launches in %.1fs" % (len(todo), time.time() - t0), flush=True)
    report(args, recs)


def load_deviations():
    """sim-deviations.tsv: (module, test) -> why the simulator's result is
    not compiled numba-cuda's (sim_deviations.py has the evidence)."""
    out = {}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sim-deviations.tsv")
    if os.path.exists(path):
        for ln in open(path):
            if ln.strip() and not ln.startswith("#"):
                mod, test, why = ln.rstrip("\n").split("\t")
                out[(mod, test)] = why
    return out


def cause_key(cause):
    """The cause as counted in the summary: wrong results by dtype, run
    errors and translate errors by their normalised message."""
    if cause.startswith("wrong result"):
        return ":".join(cause.split(":")[:2])
    return cause


def report(args, recs):
    counts = collections.Counter(r["status"] for r in recs)
    fails = collections.Counter(cause_key(r["cause"]) for r in recs if r["status"] == "fail")
    kinds = collections.Counter(r["cause"].split(":")[0] for r in recs if r["status"] == "fail")
    nrep = collections.Counter(r["cause"] for r in recs if r["status"] == "not replayable")
    mods = collections.defaultdict(collections.Counter)
    for r in recs:
        mods[r["module"]][r["status"]] += 1
    lines = []
    total = len(recs)
    lines.append("numba-cuda test-suite replay through `kernc run --backend cpu`")
    lines.append("launches: %d   pass: %d   fail: %d   not replayable: %d" % (
        total, counts["pass"], counts["fail"], counts["not replayable"]))
    if counts["sim deviation"]:
        lines.append("sim deviation: %d (wrong results against the simulator where compiled "
                     "numba-cuda computes what kernc does: sim-deviations.tsv; counted in "
                     "neither pass nor fail)" % counts["sim deviation"])
    rep = counts["pass"] + counts["fail"]
    if rep:
        lines.append("pass rate of the replayable launches: %.1f%%" % (100.0 * counts["pass"] / rep))
    lines.append("")
    lines.append("failures by kind:")
    for k, n in kinds.most_common():
        lines.append("  %6d  %s" % (n, k))
    lines.append("")
    lines.append("top failure causes:")
    for c, n in fails.most_common(args.top):
        lines.append("  %6d  %s" % (n, c[:150]))
    lines.append("")
    lines.append("the same, quoted names folded ('np.sin' and 'np.cos' count as one):")
    folded = collections.Counter(_QUOTED.sub("'...'", c) for c in
                                 (cause_key(r["cause"]) for r in recs if r["status"] == "fail"))
    for c, n in folded.most_common(args.top // 2):
        lines.append("  %6d  %s" % (n, c[:150]))
    lines.append("")
    lines.append("not replayable, by reason:")
    for c, n in nrep.most_common(20):
        lines.append("  %6d  %s" % (n, c[:150]))
    lines.append("")
    lines.append("by module (pass / fail / not replayable):")
    for m in sorted(mods):
        c = mods[m]
        lines.append("  %-40s %5d %5d %5d" % (m, c["pass"], c["fail"], c["not replayable"]) +
                     ("   (%d sim deviation)" % c["sim deviation"] if c["sim deviation"] else ""))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.work, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.work, "launches.tsv"), "w") as f:
        f.write("id\tmodule\ttest\tkernel\tkern\tstatus\tcause\n")
        for r in recs:
            f.write("\t".join([r["id"], r["module"], r["test"], r["kernel"], r.get("kern", ""),
                               r["status"], r["cause"].replace("\t", " ").replace("\n", " ")])
                    + "\n")
    print(text, end="")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("modules", nargs="*")
    ap.add_argument("--work", default="numba-suite-work")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per launch")
    ap.add_argument("--module-timeout", type=int, default=900)
    ap.add_argument("--max-launches", type=int, default=3000,
                    help="launches recorded per module at most")
    ap.add_argument("--ulps", type=int, default=4)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--kernc", default=os.path.abspath("kernc"))
    ap.add_argument("--capture-only", action="store_true")
    ap.add_argument("--replay-only", action="store_true")
    ap.add_argument("--_capture", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    if args._capture:
        _install_pytest_shim()
        _capture_module(args._capture, os.path.join(args.work, "cap", args._capture),
                        args.max_launches)
        return
    if not args.replay_only:
        import numba_cuda  # noqa: F401  (fails early where numba-cuda is missing)
        tests = os.path.join(os.path.dirname(numba_cuda.__file__), "numba", "cuda",
                             "tests", "cudapy")
        modules = args.modules or sorted(
            os.path.basename(p)[:-3] for p in glob.glob(os.path.join(tests, "test_*.py")))
        os.makedirs(args.work, exist_ok=True)
        capture(args, modules)
    if not args.capture_only:
        if not os.access(args.kernc, os.X_OK):
            sys.exit("replay.py: no kernc at %s (--kernc)" % args.kernc)
        replay(args)


if __name__ == "__main__":
    main()
