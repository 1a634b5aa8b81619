#!/usr/bin/python3
"""gen-reserved.py - the names that the headers generated code includes
declare at file scope, for src/reserved.def.

kernc renames a user name that the C or CUDA compiler would see as
something else (emit_expr.c, emit_mangle).  The keywords are listed by
hand there; this script lists what the headers bring: every macro
(`cc -E -dM`, `nvcc -E -Xcompiler -dM`) and every identifier declared at
file scope (functions, variables, typedefs, struct/union/enum tags, enum
constants) in the preprocessed text of

    #include <kernrt.h>
    #include <kernrt_device.h>

as cc compiles FILE.c and as nvcc compiles FILE.cu (which includes
cuda_runtime.h first).  Names that kernc renames anyway (starting with
'_', or krt_/KRT_) are left out.  Run by hand after a change of the
headers or the toolkit; the output is committed:

    tools/gen-reserved.py [CC [NVCC]] > src/reserved.def
"""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
runtime = os.path.join(here, "..", "runtime")
cc = sys.argv[1] if len(sys.argv) > 1 else "cc"
nvcc = sys.argv[2] if len(sys.argv) > 2 else "nvcc"

SRC = "#include <kernrt.h>\n#include <kernrt_device.h>\n"
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[A-Za-z_][A-Za-z0-9_]*'
                   r'|[0-9][0-9A-Za-z_.]*|::|->|\S')
SKIP_AFTER = {"struct", "union", "enum", "class"}
NOT_NAMES = {"extern", "static", "inline", "const", "volatile", "typedef", "struct",
             "union", "enum", "class", "template", "typename", "operator", "namespace",
             "using", "return", "sizeof", "decltype", "void", "char", "short", "int",
             "long", "float", "double", "signed", "unsigned", "bool", "auto", "register",
             "restrict", "noexcept", "throw", "constexpr", "public", "private",
             "protected", "virtual", "friend", "explicit", "this", "new", "delete"}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def macros(text):
    out = set()
    for line in text.splitlines():
        m = re.match(r"#define\s+([A-Za-z_][A-Za-z0-9_]*)", line)
        if m:
            out.add(m.group(1))
    return out


def declared(text):
    """File-scope declarators of preprocessed C/C++: the identifier before
    a '(' or the last one before ';', '=', '[', ',' or '{' of a declaration
    at brace depth 0 (extern "C" { } and namespace-free blocks transparent),
    tags after struct/union/enum/class, and enum constants."""
    text = "\n".join(l for l in text.splitlines() if not l.startswith("#"))
    toks = TOKEN.findall(text)
    out = set()
    depth = 0          # braces that hide names (bodies, classes, namespaces)
    stack = []         # for each open brace: does it hide names?
    paren = 0
    last = None        # last identifier at paren depth 0 in this declaration
    enum_body = False
    prev = None
    pending_transparent = False
    for i, t in enumerate(toks):
        if t == '{':
            transparent = pending_transparent
            is_enum = prev is not None and (prev in ("enum",) or (i >= 2 and toks[i - 2] == "enum"))
            if depth == 0 and paren == 0 and last and not transparent and not is_enum:
                out.add(last)       # a function definition or a tag body
            stack.append((transparent, is_enum))
            if not transparent:
                depth += 1
            enum_body = is_enum and depth == 1
            pending_transparent = False
            last = None
        elif t == '}':
            if stack:
                transparent, is_enum = stack.pop()
                if not transparent:
                    depth -= 1
            enum_body = False
            last = None
        elif depth == 0 or enum_body:
            if t == '(':
                if paren == 0 and last and depth == 0:
                    out.add(last)
                paren += 1
            elif t == ')':
                paren = max(0, paren - 1)
            elif paren == 0 and t in (';', '=', '[', ','):
                if last and depth == 0:
                    out.add(last)
                if t == ';':
                    last = None
            elif enum_body and paren == 0 and IDENT.fullmatch(t) and prev in ('{', ','):
                out.add(t)
            elif paren == 0 and IDENT.fullmatch(t) and t not in NOT_NAMES:
                if prev in SKIP_AFTER and depth == 0:
                    out.add(t)
                last = t
            if t.startswith('"') and prev == "extern" and i + 1 < len(toks) and toks[i + 1] == '{':
                pending_transparent = True
        prev = t
    return out


names = set()
with tempfile.TemporaryDirectory() as d:
    for ext, cmd in (("c", [cc]), ("cu", [nvcc, "-arch=sm_90"])):
        f = os.path.join(d, "h." + ext)
        with open(f, "w") as fp:
            fp.write(SRC)
        try:
            pre = run(cmd + ["-E", "-I", runtime, f])
            dm = run(cmd + ["-E", "-I", runtime, f] + (["-dM"] if ext == "c" else ["-Xcompiler", "-dM"]))
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit("gen-reserved.py: %s: %s" % (cmd[0], e))
        names |= macros(dm) | declared(pre)

keep = sorted(n for n in names if not n.startswith("_") and not n.startswith(("krt_", "KRT_")))
print("/* src/reserved.def - generated by tools/gen-reserved.py: do not edit.")
print(" * Names declared or defined by the headers that generated code includes")
print(" * (kernrt.h, kernrt_device.h and, under nvcc, cuda_runtime.h); a user")
print(" * name among them is renamed (emit_expr.c). %d names. */" % len(keep))
for n in keep:
    print('"%s",' % n)
