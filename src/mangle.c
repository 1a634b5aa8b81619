/*
 * mangle.c - the C spelling of a user name, one scheme for every name the
 * generated code declares (variables, device functions, kernels, launchers).
 *
 * A name is kept as the user wrote it when it is "plain": not a keyword of
 * C, C++ or CUDA, not declared by a header that the generated code includes
 * (src/reserved.def, made by tools/gen-reserved.py from the preprocessed
 * headers: macros such as EOF or M_PI_2, C library functions such as remove
 * or y0, CUDA's clock, sinpi, uint3...), not starting with '_', without
 * "__" (kernc's own NAME__suffix names: k__kernel, k__cpu, f__f8), not in
 * kernc's krt_/KRT_ namespace, and, if it ends with '_', one whose name
 * without that '_' is kept too (divmod_ is kept, int_ is not).  Any other
 * name gets a '_' appended (more while that is reserved too: __global_ ->
 * __global___).  The map is one to one (a renamed name X_ is never a kept
 * one), so two user names never meet: int -> int_, int_ -> int__; and
 * kernc's names (NAME__kernel, f__f8, krt_tmp3: all with "__" or krt_)
 * are never a user's.
 */
#include "kernc.h"

#include <string.h>

/* Keywords and builtins of C11, C++ and CUDA (which no header declares),
 * and the names the generated code gives its own parameters. */
static const char *const c_keywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
    "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
    "char8_t", "class", "compl", "concept", "const", "const_cast",
    "consteval", "constexpr", "constinit", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do",
    "double", "dynamic_cast", "else", "enum", "explicit", "export",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline",
    "int", "long", "mutable", "namespace", "new", "noexcept", "not",
    "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
    "public", "register", "reinterpret_cast", "requires", "restrict",
    "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    "xor", "xor_eq", "fortran", "main",
    /* CUDA */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
    "min", "max", "atomicAdd", "atomicSub", "atomicMax", "atomicMin",
    "atomicCAS", "atomicExch", "printf", "assert", "malloc", "free",
    "uint", "ushort", "ulong", "uchar", "float2", "float3", "float4",
    "int2", "int3", "int4", "double2",
    /* <stdint.h>, <stddef.h>, <string.h>, <stdbool.h>, <stdlib.h> */
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
    "NULL", "offsetof", "memcpy", "memset", "memcmp", "memmove", "strlen",
    "abort", "exit", "errno", "cfg",
    /* <math.h>; the float variants ("sqrtf") are matched by stripping f */
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt",
    "ceil", "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2",
    "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod",
    "frexp", "hypot", "ilogb", "isfinite", "isinf", "isnan", "isnormal",
    "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p",
    "log2", "logb", "lrint", "lround", "modf", "nan", "nearbyint",
    "nextafter", "pow", "remainder", "remquo", "rint", "round", "scalbn",
    "signbit", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc",
    "abs", "labs", "div", "rsqrt", "sincos", "exp10", "HUGE_VAL",
    "HUGE_VALF", "INFINITY", "NAN", "M_PI", "M_E",
    /* C11 */
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic",
    "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
    /* CUDA qualifiers */
    "__global__", "__device__", "__host__", "__shared__", "__constant__",
    "__managed__", "__restrict__", "__noinline__", "__forceinline__",
    "__launch_bounds__", "__grid_constant__",
};

static const char *const c_header_names[] = {
#include "reserved.def"
};

/* Both tables in one hash set, built at the first use (every variable and
 * call is looked up: a scan would be the emitter's hot spot). */
static bool reserved_has(const char *s, size_t n)
{
    enum { CAP = 8192 };   /* a power of two, over twice the rows */
    static const char *set[CAP];
    static bool built;
    if (!built) {
        size_t nk = sizeof c_keywords / sizeof c_keywords[0];
        size_t nh = sizeof c_header_names / sizeof c_header_names[0];
        for (size_t i = 0; i < nk + nh; i++) {
            const char *r = i < nk ? c_keywords[i] : c_header_names[i - nk];
            size_t h = str_hash_z(r) & (CAP - 1);
            while (set[h] && strcmp(set[h], r) != 0)
                h = (h + 1) & (CAP - 1);
            set[h] = r;
        }
        built = true;
    }
    for (size_t h = str_hash(s, n) & (CAP - 1); set[h]; h = (h + 1) & (CAP - 1))
        if (strncmp(set[h], s, n) == 0 && set[h][n] == '\0')
            return true;
    return false;
}

bool c_name_reserved(const char *s)
{
    size_t n = strlen(s);
    /* sqrtf, fabsf, ...: the float variant of a <math.h> name too */
    return reserved_has(s, n) || (n > 1 && s[n - 1] == 'f' && reserved_has(s, n - 1));
}

/* Not reserved, no '_' first, no "__", not krt_/KRT_. */
static bool c_name_free(const char *s, size_t n)
{
    if (n == 0 || s[0] == '_' || (n >= 4 && (memcmp(s, "krt_", 4) == 0 || memcmp(s, "KRT_", 4) == 0)))
        return false;
    for (size_t i = 1; i < n; i++)
        if (s[i] == '_' && s[i - 1] == '_')
            return false;
    /* sqrtf, fabsf, ...: the float variant of a <math.h> name too */
    return !reserved_has(s, n) && !(n > 1 && s[n - 1] == 'f' && reserved_has(s, n - 1));
}

bool c_name_plain(const char *s)
{
    size_t n = strlen(s);
    /* NAME_ only where NAME is kept too: else NAME's C name is NAME_ */
    return c_name_free(s, n) && (s[n - 1] != '_' || c_name_free(s, n - 1));
}

const char *c_ident(const char *name)
{
    if (c_name_plain(name))
        return name;
    const char *c = arena_printf("%s_", name);
    while (c_name_reserved(c))
        c = arena_printf("%s_", c);
    return c;
}

/* ---- issue 13 (hard): --module-name ------------------------------------
 * Every global symbol of a module gets the module name and '_' in front
 * (kernels: NAME_k, NAME_k__kernel, NAME_k__launch; ufunc host functions),
 * so that two files with the same kernel names link into one program.  One
 * translation at a time: set by the emitter from its Options. */
static const char *module_prefix;

void mangle_set_module(const char *name)
{
    module_prefix = name && *name ? name : NULL;
}

const char *module_sym(const char *name)
{
    return module_prefix ? arena_printf("%s_%s", module_prefix, name) : name;
}
