"""tests/difffuzz.py - differential fuzzing of kernc against numba.

Generates random small kernels (arithmetic over int32, int64, uint32,
float32 and float64, branches, for and while loops, math calls, casts),
each with a conformance header, and runs them through the conformance
harness (tests/conformance/run.py): `kernc run` on the CPU backend against
numba's compiled semantics (njit with the CUDA target's error model).
Every kernel that differs, or that one side refuses, is reported as a TAP
failure followed by its source, so that it can be kept as a test.

Inputs are kept in ranges where no operation overflows or divides by zero
(divisors are made odd or positive), so a difference is a bug in typing,
semantics or lowering, not undefined behaviour.

Usage: /usr/bin/python3 difffuzz.py [--count N] [--seed S] [--keep DIR]
Environment: as run.py (KERNC, KERNC_INCLUDEDIR).
"""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "conformance", "run.py")
INTS = ["int32", "int64", "uint32"]
FLOATS = ["float32", "float64"]
RANGE = {"int32": (-100, 100), "int64": (-1000, 1000), "uint32": (0, 100),
         "float32": (-50, 50), "float64": (-50, 50)}


class Gen:
    def __init__(self, rng, ta, tb):
        self.rng = rng
        self.ints = [v for v, t in (("x", ta), ("y", tb)) if t in INTS]
        self.floats = [v for v, t in (("x", ta), ("y", tb)) if t in FLOATS]
        self.signed = [v for v, t in (("x", ta), ("y", tb)) if t in ("int32", "int64")]

    def pick(self, *choices):
        return self.rng.choice(choices)

    def int_leaf(self):
        c = self.rng.random()
        if self.ints and c < 0.5:
            return self.rng.choice(self.ints)
        if c < 0.7:
            return "k"
        if c < 0.8 and self.floats:
            return "int64(%s)" % self.rng.choice(self.floats)
        return str(self.rng.randint(-9, 9))

    def iexpr(self, depth):
        """An integer expression: int64 (or int32/uint64 where numba keeps it)."""
        if depth <= 0 or self.rng.random() < 0.25:
            return self.int_leaf()
        a, b = self.iexpr(depth - 1), self.iexpr(depth - 1)
        op = self.pick("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "min", "max",
                       "abs", "ifexp", "int32")
        if op in ("//", "%"):
            return "(%s %s (int64(%s) | 1))" % (a, op, b)
        if op in ("<<", ">>"):
            return "(int64(%s) %s %d)" % (a, op, self.rng.randint(0, 5))
        if op in ("&", "|", "^"):
            return "(int64(%s) %s int64(%s))" % (a, op, b)
        if op in ("min", "max"):
            return "%s(%s, %s)" % (op, a, b)
        if op == "abs":
            return "abs(int64(%s))" % a
        if op == "ifexp":
            return "(%s if %s else %s)" % (a, self.cond(depth - 1), b)
        if op == "int32":
            return "int32(%s)" % a
        return "(%s %s %s)" % (a, op, b)

    def float_leaf(self):
        c = self.rng.random()
        if self.floats and c < 0.5:
            return self.rng.choice(self.floats)
        if c < 0.65:
            return "float32(%s)" % self.int_leaf()
        if c < 0.8:
            return "float64(%s)" % self.int_leaf()
        return repr(self.rng.choice([0.5, 1.5, 2.0, 0.25, 3.0, -1.25]))

    def fexpr(self, depth):
        if depth <= 0 or self.rng.random() < 0.25:
            return self.float_leaf()
        a, b = self.fexpr(depth - 1), self.fexpr(depth - 1)
        op = self.pick("+", "-", "*", "/", "sqrt", "sin", "cos", "floor", "fabs", "min",
                       "max", "exp", "atan2", "mixed", "f32", "ifexp", "pow")
        if op == "/":
            return "(%s / (%s * %s + 1.0))" % (a, b, b)
        if op == "sqrt":
            return "math.sqrt(abs(%s))" % a
        if op in ("sin", "cos", "floor", "fabs"):
            return "math.%s(%s)" % (op, a)
        if op == "exp":
            return "math.exp(min(%s, 3.0))" % a
        if op == "atan2":
            return "math.atan2(%s, %s)" % (a, b)
        if op in ("min", "max"):
            return "%s(%s, %s)" % (op, a, b)
        if op == "mixed":
            return "(%s %s %s)" % (a, self.pick("+", "*", "-"), self.iexpr(1))
        if op == "f32":
            return "float32(%s)" % a
        if op == "ifexp":
            return "(%s if %s else %s)" % (a, self.cond(depth - 1), b)
        if op == "pow":
            return "(abs(%s) + 1.0) ** %s" % (a, self.pick("2", "0.5", "3"))
        return "(%s %s %s)" % (a, op, b)

    def cond(self, depth):
        if self.rng.random() < 0.5:
            return "%s %s %s" % (self.iexpr(depth), self.pick("<", "<=", ">", "==", "!="),
                                 self.iexpr(depth))
        return "%s %s %s" % (self.fexpr(depth), self.pick("<", ">=", ">"), self.fexpr(depth))

    def body(self, indent, depth):
        """Statements updating acc (integer) and facc (float)."""
        pad = " " * indent
        out = []
        for _ in range(self.rng.randint(1, 3)):
            c = self.rng.random()
            if c < 0.3 and depth > 0:
                out.append("%sif %s:" % (pad, self.cond(1)))
                out += self.body(indent + 4, depth - 1)
                if self.rng.random() < 0.6:
                    out.append("%selse:" % pad)
                    out += self.body(indent + 4, depth - 1)
            elif c < 0.45 and depth > 0:
                out.append("%sfor k in range(%s):" % (pad, self.pick("3", "1, 4", "5, 0, -2")))
                out += self.body(indent + 4, depth - 1)
            elif c < 0.55 and depth > 0:
                # a counter per depth: a nested loop that reset its
                # enclosing loop's counter would never end
                out.append("%sj%d = 0" % (pad, depth))
                out.append("%swhile j%d < %d:" % (pad, depth, self.rng.randint(1, 3)))
                out += self.body(indent + 4, depth - 1)
                out.append("%s    j%d += 1" % (pad, depth))
            elif c < 0.7:
                out.append("%sacc %s %s" % (pad, self.pick("+=", "-=", "="), self.iexpr(2)))
            elif c < 0.8:
                # acc may have become float64 (uint64 meeting int64): numba
                # has no float ^, so both sides are made integers
                out.append("%sacc = int64(acc) ^ int64(%s)" % (pad, self.iexpr(2)))
            else:
                out.append("%sfacc = facc * 0.5 + %s" % (pad, self.fexpr(2)))
        return out


def kernel(rng, n):
    ta, tb = rng.choice(INTS + FLOATS), rng.choice(INTS + FLOATS)
    g = Gen(rng, ta, tb)
    name = "fuzz%03d" % n
    lines = [
        "# %s: generated by tests/difffuzz.py" % name,
        "# conformance: kernel=%s grid=2 block=32" % name,
        "# arg: a = sample(%s, 64, %d, %d, edges=False)" % ((ta,) + RANGE[ta]),
        "# arg: b = sample(%s, 64, %d, %d, edges=False)" % ((tb,) + RANGE[tb]),
        "# arg: ri = zeros((64, 2), dtype=int64)",
        "# arg: rf = zeros((64, 2), dtype=float64)",
        "# compare: ri exact",
        "# compare: rf ulps=8",
        "",
        "import math",
        "from numba import cuda, float32, float64, int32, int64",
        "",
        "",
        '@cuda.jit("void(%s[::1], %s[::1], int64[:, ::1], float64[:, ::1])")' % (ta, tb),
        "def %s(a, b, ri, rf):" % name,
        "    i = cuda.grid(1)",
        "    if i < a.size:",
        "        x = a[i]",
        "        y = b[i]",
        "        k = 1",
        "        acc = %s" % g.iexpr(2),
        "        facc = %s" % g.fexpr(2),
    ]
    lines += g.body(8, 2)
    lines += [
        "        ri[i, 0] = acc",
        "        rf[i, 0] = facc",
        "        ri[i, 1] = %s" % g.iexpr(3),
        "        rf[i, 1] = %s" % g.fexpr(3),
    ]
    return name, "\n".join(lines) + "\n"


def main(argv):
    count, seed, keep = 20, 1, None
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == "--count":
            count = int(args.pop(0))
        elif a == "--seed":
            seed = int(args.pop(0))
        elif a == "--keep":
            keep = args.pop(0)
        else:
            print("usage: difffuzz.py [--count N] [--seed S] [--keep DIR]", file=sys.stderr)
            return 2
    rng = random.Random(seed)
    work = keep or tempfile.mkdtemp(prefix="kernc-difffuzz.")
    os.makedirs(work, exist_ok=True)
    files, sources = [], {}
    for n in range(count):
        name, text = kernel(rng, n)
        path = os.path.join(work, name + ".kern")
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
        sources[name + ".kern"] = text
    proc = subprocess.run([sys.executable, RUN] + files, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    failed = 0
    for line in proc.stdout.splitlines():
        print(line)
        if line.startswith("not ok "):
            failed += 1
            name = line.split(" - ", 1)[-1].strip()
            print("# the kernel (seed %d):" % seed)
            for src in sources.get(name, "").splitlines():
                print("#   " + src)
    sys.stdout.flush()
    if not keep:
        for p in files:
            os.unlink(p)
        os.rmdir(work)
    return 1 if failed or proc.returncode else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
