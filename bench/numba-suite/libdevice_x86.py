"""bench/numba-suite/libdevice_x86.py - compiled numba-cuda's math without
a GPU: the CUDA toolkit's libdevice (nvvm/libdevice/libdevice.10.bc, the
bitcode numba-cuda links into every kernel, where math.gamma is
__nv_tgamma and math.lgamma __nv_lgamma) recompiled for this machine's CPU,
so that sim_deviations.py can compare kernc with what the GPU computes.

llvm-dis turns the bitcode into text; the functions asked for and
everything they call are kept; NVVM's intrinsics become calls to C
functions that compute the same IEEE operations (fma.rn is fma, add.rn is
+, lohi.i2d builds a double from its words, ...); __nvvm_reflect answers 0
(no flush to zero: numba-cuda compiles without fastmath); the reciprocal
approximations (rcp.approx.ftz.f64 is MUFU.RCP64H: the high word of the
reciprocal, the low word zero; libdevice refines it by Newton steps) are
the nearest CPU equivalent.  clang compiles the result for x86-64 into a
shared library that ctypes loads.

    libdevice_x86.build(WORKDIR, ["__nv_tgamma", ...]) -> path of the .so
    libdevice_x86.function(so, "__nv_tgamma", "float64") -> a Python callable
"""
import ctypes
import hashlib
import os
import re
import subprocess

LIBDEVICE = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                         "nvvm", "libdevice", "libdevice.10.bc")

SHIM = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>
static double d_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint64_t u_of(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
int shim___nvvm_reflect(const char *s) { (void)s; return 0; }
int shim_llvm_nvvm_d2i_hi(double d) { return (int)(u_of(d) >> 32); }
int shim_llvm_nvvm_d2i_lo(double d) { return (int)(uint32_t)u_of(d); }
double shim_llvm_nvvm_lohi_i2d(int lo, int hi) { return d_of((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo); }
int shim_llvm_nvvm_f2i_rz(float a) { return (int)a; }
double shim_llvm_nvvm_rcp_approx_ftz_d(double a) { return d_of(u_of(1.0 / a) & 0xffffffff00000000ull); }
float shim_rcp_approx_ftz_f(float a) { return 1.0f / a; }
#define F2(n, t, e) t shim_llvm_nvvm_##n(t a, t b) { return e; }
#define F1(n, t, e) t shim_llvm_nvvm_##n(t a) { return e; }
F2(add_rn_d, double, a + b) F2(add_rn_f, float, a + b) F2(add_rn_ftz_f, float, a + b)
F2(mul_rn_d, double, a * b) F2(mul_rn_f, float, a * b) F2(mul_rn_ftz_f, float, a * b)
F2(div_approx_f, float, a * (1.0f / b)) F2(div_approx_ftz_f, float, a * (1.0f / b))
F1(fabs_d, double, fabs(a)) F1(fabs_f, float, fabsf(a)) F1(fabs_ftz_f, float, fabsf(a))
F1(floor_d, double, floor(a)) F1(floor_f, float, floorf(a)) F1(floor_ftz_f, float, floorf(a))
F1(round_d, double, round(a)) F1(round_f, float, roundf(a))
F1(trunc_d, double, trunc(a)) F1(trunc_f, float, truncf(a))
double shim_llvm_nvvm_fma_rn_d(double a, double b, double c) { return fma(a, b, c); }
float shim_llvm_nvvm_fma_rn_f(float a, float b, float c) { return fmaf(a, b, c); }
float shim_llvm_nvvm_fma_rn_ftz_f(float a, float b, float c) { return fmaf(a, b, c); }
"""


def _extract(text, roots):
    lines = text.split("\n")
    funcs, globs, decls = {}, {}, {}
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = re.match(r"define .*?@([\w.$]+)\(", ln)
        if m:
            j = i
            while lines[j] != "}":
                j += 1
            funcs[m.group(1)] = "\n".join(lines[i:j + 1])
            i = j + 1
            continue
        m = re.match(r"@([\w.$]+) = ", ln)
        if m:
            globs[m.group(1)] = ln
        m = re.match(r"declare .*?@([\w.$]+)\(", ln)
        if m:
            decls[m.group(1)] = re.sub(r" #\d+", "", ln)
        i += 1
    need, gneed, ext = set(), set(), set()
    todo = list(roots)
    while todo:
        f = todo.pop()
        if f in need:
            continue
        need.add(f)
        for name in re.findall(r"@([\w.$]+)", funcs[f]):
            if name in funcs:
                todo.append(name)
            elif name in globs:
                gneed.add(name)
            else:
                ext.add(name)
    body = "\n".join(funcs[f] for f in sorted(need))
    body = re.sub(r" #\d+", "", body)
    body = re.sub(r", ![\w.]+ !\d+", "", body)
    body = body.replace("define internal", "define")
    body = body.replace('asm "rcp.approx.ftz.f32 $0,$1;", "=f,f"', "@shim_rcp_approx_ftz_f")
    out = ['target triple = "x86_64-pc-linux-gnu"']
    out += [ln for ln in lines if ln.startswith("%struct")]
    out += [globs[g] for g in sorted(gneed)]
    out.append("declare float @shim_rcp_approx_ftz_f(float)")
    for n in sorted(ext):
        d = decls[n]
        if n.startswith("llvm.nvvm.") or n == "__nvvm_reflect":
            new = "shim_" + n.replace(".", "_")
            body = body.replace("@%s(" % n, "@%s(" % new)
            d = d.replace("@%s(" % n, "@%s(" % new)
        out.append(d)
    out.append(body)
    return "\n".join(out) + "\n"


def build(workdir, roots):
    """The shared library of libdevice's functions `roots` (cached in workdir)."""
    os.makedirs(workdir, exist_ok=True)
    key = hashlib.sha1(" ".join(sorted(roots)).encode()).hexdigest()[:16]
    so = os.path.join(workdir, "libdevice-%s.so" % key)
    if os.path.exists(so):
        return so
    text = subprocess.run(["llvm-dis", LIBDEVICE, "-o", "-"], check=True,
                          capture_output=True).stdout.decode()
    ll = os.path.join(workdir, "libdevice.ll")
    open(ll, "w").write(_extract(text, roots))
    shim = os.path.join(workdir, "shim.c")
    open(shim, "w").write(SHIM)
    subprocess.run(["clang", "-O1", "-fPIC", "-ffp-contract=off", "-Wno-override-module",
                    "-shared", ll, shim, "-lm", "-o", so], check=True)
    return so


def function(so, name, ftype):
    """__nv_NAME of the library, as a Python callable on floats of ftype."""
    f = getattr(ctypes.CDLL(so), name)
    ct = ctypes.c_double if ftype == "float64" else ctypes.c_float
    f.restype, f.argtypes = ct, [ct]
    return f
