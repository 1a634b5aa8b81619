/*
 * emit.c - the last pass: C text from the lowered, typed Program.
 *
 * Three outputs share one expression and statement printer:
 *   emit_cuda    FILE.cu: __device__ functions and __global__ kernels, the CPU
 *                version of every kernel, the kernel descriptors, the typed
 *                launchers and the module table (nvcc compiles it as C++);
 *   emit_c       FILE.c for --target c: the same without the CUDA half (C11);
 *   emit_header  FILE.kern.h: the launcher prototypes.
 * Python's meaning is kept exactly by spelling every operation whose C
 * meaning differs (wrapping integer arithmetic, floor division, `**`,
 * shifts, float-to-int conversion, atomics) through the inline helpers of
 * runtime/kernrt_device.h, which work in CUDA and in C alike.
 *
 * The CPU version of a kernel runs every thread of one block per call
 * (`NAME__cpu(block, args)`; the runtime runs blocks in parallel).  Threads
 * are emulated by loop fission at barriers, as MCUDA and PoCL do, rather
 * than with fibers: no stacks to allocate or switch, the thread loops are
 * plain C loops the compiler can vectorise, and a kernel without a barrier
 * pays nothing -- its body is simply one loop over the block's threads with
 * ordinary C locals.  A kernel with barriers is cut at each syncthreads()
 * into "regions", each its own loop over the threads; whatever must survive
 * from one region to the next (every local variable) lives in a per-thread
 * frame struct, shared arrays in a per-block struct.  Control flow that
 * contains a barrier becomes block-level control flow: its condition is
 * evaluated per thread in a region and the block follows it (CUDA requires
 * such conditions to be uniform); `break`, `continue` and `return` that
 * leave a region set the thread's state (KRT_BREAK(depth), KRT_CONTINUE,
 * KRT_RETURNED) and later regions skip it until the enclosing block-level
 * loop resets it.
 */
#include "kernc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

/* Identifiers a user name must not become: C, C++ and CUDA keywords and
 * builtins, and the library names the generated code calls. */
static const char *const emit_reserved[] = {
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
};

static bool name_is_reserved(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < sizeof emit_reserved / sizeof emit_reserved[0]; i++) {
        const char *r = emit_reserved[i];
        if (strcmp(r, s) == 0)
            return true;
        /* sqrtf, fabsf, ...: the float variant of a <math.h> name */
        if (n > 1 && s[n - 1] == 'f' && strlen(r) == n - 1 && strncmp(r, s, n - 1) == 0)
            return true;
    }
    return false;
}

/* The C spelling of a user name: itself, or with a trailing '_' when it
 * would collide with C/C++/CUDA, with our krt_ namespace, or with the
 * NAME__suffix names the emitter makes. */
static const char *emit_mangle(const char *name)
{
    if (name_is_reserved(name) || strncmp(name, "krt_", 4) == 0 ||
        strncmp(name, "KRT_", 4) == 0 || strstr(name, "__") || name[0] == '_')
        return arena_printf("%s_", name);
    return name;
}

/* The emitter's own per-function names, which user and hidden variables
 * must not take. */
static const char *const emit_internal_names[] = {
    "krt_b", "krt_args", "krt_tid", "krt_t", "krt_f", "krt_fr", "krt_s",
    "krt_go", "krt_c", "krt_next", "krt_dynshared",
};

/* ------------------------------------------------------------------ */
/* The emitter                                                         */
/* ------------------------------------------------------------------ */

typedef enum Mode {
    MODE_CUDA,        /* CUDA C: __device__ functions, __global__ kernels */
    MODE_CPU,         /* C for the CPU backend */
} Mode;

typedef struct Emitter {
    StrBuf *out;
    Program *prog;
    const Options *opt;
    const char *path;        /* the .kern file as given */
    const char *line_file;   /* the same, escaped for #line */
    int indent;
    Mode mode;
    bool c_target;           /* emit_c: CPU failures are errors */

    /* The function being emitted */
    Func *fn;
    bool frame;              /* CPU kernel split at barriers: krt_f->x */
    bool thread_loop;        /* inside a CPU thread loop: exits are gotos */
    int exit_label;          /* the thread loop's exit label number */
    bool exit_used;
    int cloops;              /* C loops open inside the function or region */
    int bloop;               /* block-level loops open (frame mode) */
    int nlabels;
    bool *param_read, *param_assigned, *local_read;
    bool used_s, used_go, used_c;
    bool cpu_failed;         /* the CPU version cannot be made */
    Loc cpu_fail_loc;
    const char *cpu_fail_msg;

    /* Expression temporaries of the function: krt_tmpN */
    Type **tmp_types;
    int ntmp, tmp_cap;

    /* Tuple types used anywhere, each emitted once as a struct */
    PtrVec tuples;
    /* Device functions whose CPU version could not be made */
    PtrVec cpu_failed_funcs;
} Emitter;

static void outf(Emitter *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line at the current indentation. */
static void outf(Emitter *E, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    for (int i = 0; i < E->indent; i++)
        sb_puts(E->out, "    ");
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf) {
        char *big = malloc((size_t)n + 1);
        if (!big)
            die("out of memory");
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb_puts(E->out, big);
        free(big);
    } else {
        sb_puts(E->out, buf);
    }
    sb_putc(E->out, '\n');
}

static void emit_lineno(Emitter *E, Loc loc)
{
    if (loc.first_line > 0)
        sb_printf(E->out, "#line %d \"%s\"\n", loc.first_line, E->line_file);
}

/* A construct the CPU backend cannot run: an error for --target c, else a
 * warning and a CUDA-only kernel (its descriptor's .cpu is NULL). */
static void cpu_unsupported(Emitter *E, Loc loc, const char *msg)
{
    if (E->mode != MODE_CPU)
        return;
    if (!E->cpu_failed) {
        E->cpu_failed = true;
        E->cpu_fail_loc = loc;
        E->cpu_fail_msg = msg;
    }
}

/* ------------------------------------------------------------------ */
/* Types                                                               */
/* ------------------------------------------------------------------ */

static bool t_int(const Type *t) { return t && t->kind >= TY_INT8 && t->kind <= TY_UINT64; }
static bool t_signed(const Type *t) { return t && t->kind >= TY_INT8 && t->kind <= TY_INT64; }
static bool t_unsigned(const Type *t) { return t && t->kind >= TY_UINT8 && t->kind <= TY_UINT64; }
static bool t_float(const Type *t) { return t && (t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64); }
static bool t_scalar(const Type *t) { return t && t->kind <= TY_FLOAT64; }

static int t_bits(const Type *t)
{
    static const int bits[] = {
#define X_(k, nm, c, sz, dt) sz * 8,
        SCALAR_TYPES(X_)
#undef X_
    };
    return t_scalar(t) ? bits[t->kind] : 0;
}

/* Helper suffix: krt_add_i64, krt_floordiv_f32, ... */
static const char *t_suffix(const Type *t)
{
    static const char *const sfx[] = {"b", "i8", "i16", "i32", "i64", "u8",
                                      "u16", "u32", "u64", "f32", "f64"};
    return t_scalar(t) ? sfx[t->kind] : "?";
}

static const char *tuple_cname(const Type *t);

static const char *t_c(const Type *t)
{
    static const char *const names[] = {
#define X_(k, nm, c, sz, dt) c,
        SCALAR_TYPES(X_)
#undef X_
    };
    if (!t)
        return "void";
    if (t_scalar(t))
        return names[t->kind];
    switch (t->kind) {
    case TY_ARRAY: return "krt_view";
    case TY_TUPLE: return tuple_cname(t);
    default: return "void";
    }
}

static const char *tuple_cname(const Type *t)
{
    StrBuf b = {0};
    sb_puts(&b, "krt_tup");
    for (int i = 0; i < t->nelems; i++) {
        sb_putc(&b, '_');
        sb_puts(&b, t->elems[i]->kind == TY_TUPLE ? tuple_cname(t->elems[i])
                                                  : t_suffix(t->elems[i]));
    }
    char *s = arena_strdup(b.s);
    sb_free(&b);
    return s;
}

/* krt_dtype enumerator of a scalar type (SCALAR_TYPES and KRT_DTYPE_MAP
 * list the same types in the same order). */
static const char *t_dtype(const Type *t)
{
    static const char *const names[] = {
        "KRT_BOOL", "KRT_INT8", "KRT_INT16", "KRT_INT32", "KRT_INT64",
        "KRT_UINT8", "KRT_UINT16", "KRT_UINT32", "KRT_UINT64", "KRT_FLOAT32",
        "KRT_FLOAT64"};
    return t_scalar(t) ? names[t->kind] : "KRT_INT64";
}

static bool same_type(const Type *a, const Type *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    if (a->kind == TY_TUPLE) {
        if (a->nelems != b->nelems)
            return false;
        for (int i = 0; i < a->nelems; i++)
            if (!same_type(a->elems[i], b->elems[i]))
                return false;
        return true;
    }
    if (a->kind == TY_ARRAY)
        return a->ndim == b->ndim && a->contiguous == b->contiguous &&
               same_type(a->elem, b->elem);
    return true;
}

/* ------------------------------------------------------------------ */
/* Pre-passes: tuple types, variable use, barriers                     */
/* ------------------------------------------------------------------ */

static void note_tuple(Emitter *E, Type *t)
{
    if (!t || t->kind != TY_TUPLE)
        return;
    for (int i = 0; i < t->nelems; i++)
        note_tuple(E, t->elems[i]);     /* inner structs first */
    for (int i = 0; i < E->tuples.len; i++)
        if (same_type(E->tuples.items[i], t))
            return;
    vec_push(&E->tuples, t);
}

static void walk_tuples(Emitter *E, Node *n)
{
    if (!n)
        return;
    note_tuple(E, n->type);
    walk_tuples(E, n->lhs);
    walk_tuples(E, n->rhs);
    walk_tuples(E, n->cond);
    for (int i = 0; i < n->args.len; i++)
        walk_tuples(E, n->args.items[i]);
    for (int i = 0; i < n->body.len; i++)
        walk_tuples(E, n->body.items[i]);
    for (int i = 0; i < n->orelse.len; i++)
        walk_tuples(E, n->orelse.items[i]);
}

static void mark_read(Emitter *E, Var *v)
{
    if (v->kind == VAR_PARAM) {
        if (v->index >= 0 && v->index < E->fn->nparams)
            E->param_read[v->index] = true;
    } else if (v->index >= 0 && v->index < E->fn->nlocals) {
        E->local_read[v->index] = true;
    }
}

static void mark_assigned(Emitter *E, Var *v)
{
    if (v->kind == VAR_PARAM && v->index >= 0 && v->index < E->fn->nparams)
        E->param_assigned[v->index] = true;
}

/* Which variables are read and which parameters are assigned: unread
 * locals get a (void) so -Wunused-but-set-variable stays quiet, assigned
 * kernel parameters become per-thread copies on the CPU. */
static void walk_uses(Emitter *E, Node *n, bool target)
{
    if (!n)
        return;
    if (n->kind == E_VAR && n->var) {
        if (target)
            mark_assigned(E, n->var);
        else
            mark_read(E, n->var);
        return;
    }
    if (n->kind == S_ASSIGN) {
        for (int i = 0; i < n->args.len; i++)
            walk_uses(E, n->args.items[i], true);
        walk_uses(E, n->rhs, false);
        return;
    }
    if (n->kind == S_FORRANGE) {
        if (n->var)
            mark_assigned(E, n->var);
        Var *hidden[3] = {n->it, n->stop, n->step};
        for (int i = 0; i < 3; i++)
            if (hidden[i])
                mark_read(E, hidden[i]);
    }
    walk_uses(E, n->lhs, false);
    walk_uses(E, n->rhs, false);
    walk_uses(E, n->cond, false);
    for (int i = 0; i < n->args.len; i++)
        walk_uses(E, n->args.items[i], false);
    for (int i = 0; i < n->body.len; i++)
        walk_uses(E, n->body.items[i], false);
    for (int i = 0; i < n->orelse.len; i++)
        walk_uses(E, n->orelse.items[i], false);
}

/* Does this statement (or an expression in it) reach a barrier? */
static bool has_barrier(const Node *n)
{
    if (!n)
        return false;
    if (n->kind == S_BARRIER)
        return true;
    if (n->kind == E_API && n->api && n->api->id == API_SYNCTHREADS)
        return true;
    if (n->kind == E_CALLFN && n->callee && n->callee->has_barrier)
        return true;
    if (has_barrier(n->lhs) || has_barrier(n->rhs) || has_barrier(n->cond))
        return true;
    for (int i = 0; i < n->args.len; i++)
        if (has_barrier(n->args.items[i]))
            return true;
    for (int i = 0; i < n->body.len; i++)
        if (has_barrier(n->body.items[i]))
            return true;
    for (int i = 0; i < n->orelse.len; i++)
        if (has_barrier(n->orelse.items[i]))
            return true;
    return false;
}

/* C names for a function's variables: the user's names, mangled, unique in
 * the function and apart from the emitter's own krt_ names. */
static void name_vars(Func *f)
{
    PtrVec used = {0};
    for (size_t i = 0; i < sizeof emit_internal_names / sizeof emit_internal_names[0]; i++)
        vec_push(&used, (void *)emit_internal_names[i]);
    for (int pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? f->nparams : f->nlocals;
        Var **vs = pass == 0 ? f->params : f->locals;
        for (int i = 0; i < n; i++) {
            Var *v = vs[i];
            const char *base = v->kind == VAR_HIDDEN ? v->name : emit_mangle(v->name);
            const char *c = base;
            for (int k = 2;; k++) {
                bool clash = strncmp(c, "krt_tmp", 7) == 0 || strncmp(c, "krt_skip", 8) == 0;
                for (int j = 0; j < used.len && !clash; j++)
                    clash = strcmp(used.items[j], c) == 0;
                if (!clash)
                    break;
                c = arena_printf("%s_%d", base, k);
            }
            v->cname = c;
            vec_push(&used, (void *)c);
        }
    }
}

/* Function names keep type.c's "name__codes" of later specialisations. */
static const char *fn_cname(const Func *f)
{
    const char *c = f->cname ? f->cname : f->name;
    if (name_is_reserved(c) || strncmp(c, "krt_", 4) == 0 || strncmp(c, "KRT_", 4) == 0)
        return arena_printf("%s_", c);
    return c;
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

static const char *ex(Emitter *E, Node *n);

/* "(a < b)" -> "a < b" where the context brackets it anyway. */
static const char *unparen(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return s;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0 && i < n - 1)
            return s;     /* "(a) + (b)": the first ')' closes early */
    }
    return arena_strndup(s + 1, n - 2);
}

/* A condition, as the inside of if (...) / while (...). */
static const char *ex_cond(Emitter *E, Node *n)
{
    return unparen(ex(E, n));
}

static const char *new_tmp(Emitter *E, Type *t)
{
    if (E->ntmp == E->tmp_cap) {
        E->tmp_cap = E->tmp_cap ? 2 * E->tmp_cap : 8;
        Type **nt = arena_alloc(sizeof(Type *) * (size_t)E->tmp_cap);
        if (E->ntmp)
            memcpy(nt, E->tmp_types, sizeof(Type *) * (size_t)E->ntmp);
        E->tmp_types = nt;
    }
    E->tmp_types[E->ntmp] = t;
    return arena_printf("krt_tmp%d", E->ntmp++);
}

/* A variable as an lvalue/rvalue in the current context. */
static const char *var_ref(Emitter *E, Var *v)
{
    const char *c = v->cname ? v->cname : v->name;
    switch (v->kind) {
    case VAR_PARAM:
        if (E->frame && E->param_assigned[v->index])
            return arena_printf("krt_f->%s", c);
        return c;
    case VAR_SHARED:
        if (E->mode == MODE_CPU) {
            E->used_s = true;
            return arena_printf("krt_s->%s", c);
        }
        return c;
    case VAR_DYNSHARED:
        return c;
    case VAR_LOCAL:
    case VAR_LOCALARRAY:
    case VAR_HIDDEN:
        return E->frame ? arena_printf("krt_f->%s", c) : c;
    }
    return c;
}

static const char *fmt_int(const Type *t, uint64_t bits)
{
    int w = t_bits(t);
    if (t->kind == TY_BOOL)
        return bits ? "true" : "false";
    if (t_unsigned(t)) {
        if (w < 64)
            bits &= (UINT64_C(1) << w) - 1;
        if (w == 64)
            return bits > 0xffffffffu ? arena_printf("UINT64_C(%llu)", (unsigned long long)bits)
                                      : arena_printf("%lluu", (unsigned long long)bits);
        return arena_printf("%lluu", (unsigned long long)bits);
    }
    int64_t v = (int64_t)bits;
    if (w < 64)   /* sign-extend from the type's width */
        v = (int64_t)(bits << (64 - w)) >> (64 - w);
    if (v == INT64_MIN)
        return "INT64_MIN";
    if (v == INT32_MIN)
        return w == 64 ? "INT64_C(-2147483648)" : "INT32_MIN";
    if (v > INT32_MAX || v < INT32_MIN)
        return arena_printf("INT64_C(%lld)", (long long)v);
    return v < 0 ? arena_printf("(%lld)", (long long)v) : arena_printf("%lld", (long long)v);
}

static const char *fmt_float(const Type *t, double d)
{
    bool f32 = t->kind == TY_FLOAT32;
    if (d != d)
        return f32 ? "NAN" : "((double)NAN)";
    if (d > 1.79769313486231570815e308)
        return f32 ? "HUGE_VALF" : "HUGE_VAL";
    if (d < -1.79769313486231570815e308)
        return f32 ? "(-HUGE_VALF)" : "(-HUGE_VAL)";
    char buf[64];
    snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", f32 ? (double)(float)d : d);
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    return arena_printf(d < 0 || (d == 0 && buf[0] == '-') ? "(%s%s)" : "%s%s", buf, f32 ? "f" : "");
}

/* Conversion of C expression s from type `from` to type `to`. */
static const char *conv(const char *s, const Type *from, const Type *to)
{
    if (!to || !from || same_type(from, to) || !t_scalar(to) || !t_scalar(from))
        return s;
    if (to->kind == TY_BOOL)
        return arena_printf("(%s != 0)", s);
    if (t_float(from) && t_int(to))
        return arena_printf("krt_cvt_%s_%s(%s)", t_suffix(to), t_suffix(from), s);
    return arena_printf("((%s)%s)", t_c(to), s);
}

static const char *ex_as(Emitter *E, Node *n, const Type *to)
{
    return conv(ex(E, n), n->type, to);
}

/* The value of an integer constant expression: a constant, possibly
 * negated or converted (type.c does not fold `-1`). */
static bool const_int(const Node *n, int64_t *v)
{
    if (!n)
        return false;
    if (n->kind == E_CONST && t_int(n->type)) {
        *v = (int64_t)n->ival;
        return !(t_unsigned(n->type) && *v < 0);
    }
    if (n->kind == E_CAST && t_int(n->type) && t_int(n->lhs->type))
        return const_int(n->lhs, v) && t_bits(n->type) == 64;
    if (n->kind == E_UNARY && n->op == OP_NEG && t_signed(n->type) && const_int(n->lhs, v) &&
        *v != INT64_MIN) {
        *v = -*v;
        return true;
    }
    return false;
}

/* An index expression, as int64, wrapped when it may be negative. */
static const char *index_expr(Emitter *E, Node *i, const char *len)
{
    int64_t v;
    if (const_int(i, &v)) {
        if (v >= 0)
            return arena_printf("%lld", (long long)v);
        return arena_printf("krt_wrap_index(%lld, %s)", (long long)v, len);
    }
    const char *s = ex(E, i);
    if (t_signed(i->type))
        return arena_printf("krt_wrap_index(%s, %s)", s, len);
    return arena_printf("(int64_t)%s", s);
}

/* The number of elements of a dynamic shared array of element type t. */
static const char *dyn_len(Emitter *E, const Type *elem)
{
    if (E->mode == MODE_CUDA)
        return arena_printf("(int64_t)(krt_dynamic_smem_bytes() / sizeof(%s))", t_c(elem));
    return arena_printf("(int64_t)(krt_b->dyn_shared_bytes / sizeof(%s))", t_c(elem));
}

/* The element of array expression `arr` at the given indices (an lvalue). */
static const char *elem_ref(Emitter *E, Node *arr, Node **idx, int nidx)
{
    Type *at = arr->type;
    if (!at || at->kind != TY_ARRAY) {
        error_at(arr->loc, "cannot index a value of this type");
        return "0";
    }
    const char *T = t_c(at->elem);
    if (nidx != at->ndim) {
        error_at(arr->loc, "%d indices for a %d-dimensional array", nidx, at->ndim);
        return "0";
    }
    Var *v = arr->kind == E_VAR ? arr->var : NULL;
    if (v && (v->kind == VAR_SHARED || v->kind == VAR_LOCALARRAY)) {
        StrBuf b = {0};
        sb_puts(&b, var_ref(E, v));
        for (int k = 0; k < nidx; k++)
            sb_printf(&b, "[%s]", index_expr(E, idx[k], arena_printf("%lld", (long long)v->shape[k])));
        char *s = arena_strdup(b.s);
        sb_free(&b);
        return s;
    }
    if (v && v->kind == VAR_DYNSHARED)
        return arena_printf("%s[%s]", var_ref(E, v), index_expr(E, idx[0], dyn_len(E, at->elem)));
    /* a view: a parameter, or an array variable holding one */
    const char *a = ex(E, arr);
    if (arr->kind != E_VAR)
        a = arena_printf("(%s)", a);
    StrBuf b = {0};
    if (at->contiguous) {
        /* ((i * shape1) + j) * shape2 + k */
        const char *lin = index_expr(E, idx[0], arena_printf("%s.shape[0]", a));
        for (int k = 1; k < nidx; k++)
            lin = arena_printf("%s * %s.shape[%d] + %s", k > 1 ? arena_printf("(%s)", lin) : lin,
                               a, k, index_expr(E, idx[k], arena_printf("%s.shape[%d]", a, k)));
        sb_printf(&b, "((%s *)%s.data)[%s]", T, a, lin);
    } else {
        sb_printf(&b, "*(%s *)(%s.data", T, a);
        for (int k = 0; k < nidx; k++)
            sb_printf(&b, " + %s * %s.strides[%d]",
                      index_expr(E, idx[k], arena_printf("%s.shape[%d]", a, k)), a, k);
        sb_putc(&b, ')');
    }
    char *s = arena_strdup(b.s);
    sb_free(&b);
    return s;
}

/* An array expression passed as a value (a device-function argument): a
 * view; shared and local arrays get one made around them. */
static const char *array_value(Emitter *E, Node *n)
{
    Var *v = n->kind == E_VAR ? n->var : NULL;
    if (!v || (v->kind != VAR_SHARED && v->kind != VAR_LOCALARRAY && v->kind != VAR_DYNSHARED))
        return ex(E, n);
    const Type *t = n->type;
    const char *len[3] = {"0", "0", "0"};
    for (int k = 0; k < t->ndim && k < 3; k++)
        len[k] = v->kind == VAR_DYNSHARED ? dyn_len(E, t->elem)
                                          : arena_printf("%lld", (long long)v->shape[k]);
    return arena_printf("krt_view_make(%s, %d, %s, %s, %s, (int64_t)sizeof(%s))", var_ref(E, v),
                        t->ndim, len[0], len[1], len[2], t_c(t->elem));
}

static const char *ex_shape(Emitter *E, Node *arr, int k)
{
    Var *v = arr->kind == E_VAR ? arr->var : NULL;
    if (v && (v->kind == VAR_SHARED || v->kind == VAR_LOCALARRAY))
        return arena_printf("%lld", (long long)v->shape[k]);
    if (v && v->kind == VAR_DYNSHARED)
        return dyn_len(E, arr->type->elem);
    const char *a = ex(E, arr);
    return arena_printf(arr->kind == E_VAR ? "%s.shape[%d]" : "(%s).shape[%d]", a, k);
}

/* The type numba compares two different operand types in. */
static const Type *compare_type(const Type *a, const Type *b)
{
    if (same_type(a, b))
        return a;
    if (t_float(a) || t_float(b))
        return (a->kind == TY_FLOAT64 || b->kind == TY_FLOAT64 || t_int(a) || t_int(b))
                   ? ty_scalar[TY_FLOAT64] : ty_scalar[TY_FLOAT32];
    if (t_signed(a) == t_signed(b) || a->kind == TY_BOOL || b->kind == TY_BOOL)
        return t_bits(a) >= t_bits(b) ? a : b;
    /* mixed signedness: int64 holds both unless one is 64-bit unsigned */
    if ((t_unsigned(a) && t_bits(a) == 64) || (t_unsigned(b) && t_bits(b) == 64))
        return ty_scalar[TY_FLOAT64];
    return ty_scalar[TY_INT64];
}

static const char *cmp_op(Op op)
{
    switch (op) {
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    default: return NULL;
    }
}

static const char *ex_compare(Emitter *E, Node *n)
{
    int nops = n->args.len - 1;
    if (nops < 1) {
        error_at(n->loc, "malformed comparison");
        return "false";
    }
    StrBuf b = {0};
    const char *prev = NULL;
    sb_putc(&b, '(');
    for (int i = 0; i < nops; i++) {
        Node *l = n->args.items[i], *r = n->args.items[i + 1];
        const char *op = cmp_op(n->ops[i]);
        if (!op) {
            error_at(n->loc, "operator '%s' is not supported here", op_spelling[n->ops[i]]);
            op = "==";
        }
        const Type *ct = compare_type(l->type, r->type);
        const char *ls = prev ? prev : ex(E, l);
        const char *rs;
        if (i + 1 < nops) {
            /* a middle operand: evaluated once, kept in a temporary */
            const char *t = new_tmp(E, r->type);
            rs = arena_printf("(%s = %s)", t, ex(E, r));
            prev = t;
        } else {
            rs = ex(E, r);
        }
        if (i > 0)
            sb_puts(&b, " && ");
        sb_printf(&b, "%s %s %s", conv(ls, l->type, ct), op, conv(rs, r->type, ct));
    }
    sb_putc(&b, ')');
    char *s = arena_strdup(b.s);
    sb_free(&b);
    return s;
}

static const char *ex_binop(Emitter *E, Node *n)
{
    const Type *t = n->type;
    Node *l = n->lhs, *r = n->rhs;
    const char *sfx = t_suffix(t);
    switch (n->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: {
        const char *name = n->op == OP_ADD ? "add" : n->op == OP_SUB ? "sub" : "mul";
        const char *sym = n->op == OP_ADD ? "+" : n->op == OP_SUB ? "-" : "*";
        if (t_float(t) || (t_unsigned(t) && t_bits(t) >= 32))
            return arena_printf("(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t));
        if (t_int(t))
            return arena_printf("krt_%s_%s(%s, %s)", name, sfx, ex_as(E, l, t), ex_as(E, r, t));
        break;
    }
    case OP_DIV:
        if (t_float(t))
            return arena_printf("(%s / %s)", ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_FLOORDIV: case OP_MOD:
        if (t_int(t) || t_float(t))
            return arena_printf("krt_%s_%s(%s, %s)", n->op == OP_MOD ? "mod" : "floordiv", sfx,
                                ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_POW:
        if (t_int(t))
            return arena_printf("krt_pow_%s(%s, %s)", sfx, ex_as(E, l, t), ex_as(E, r, t));
        if (t_float(t) && t_int(r->type))
            return arena_printf("krt_powi_%s(%s, %s)", sfx, ex_as(E, l, t),
                                ex_as(E, r, ty_scalar[TY_INT64]));
        if (t_float(t))
            return arena_printf("%s(%s, %s)", t->kind == TY_FLOAT32 ? "powf" : "pow",
                                ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_LSHIFT: case OP_RSHIFT:
        if (t_int(t))
            return arena_printf("krt_%s_%s(%s, %s)", n->op == OP_LSHIFT ? "shl" : "shr", sfx,
                                ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_BITAND: case OP_BITOR: case OP_BITXOR: {
        const char *sym = n->op == OP_BITAND ? "&" : n->op == OP_BITOR ? "|" : "^";
        if (t->kind == TY_BOOL)
            return arena_printf("(bool)(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t));
        if (t_int(t) && t_bits(t) >= 32)
            return arena_printf("(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t));
        if (t_int(t))
            return arena_printf("(%s)(%s %s %s)", t_c(t), ex_as(E, l, t), sym, ex_as(E, r, t));
        break;
    }
    default:
        break;
    }
    error_at(n->loc, "operator '%s' is not supported on %s", op_spelling[n->op],
             t_scalar(t) ? t_c(t) : "this type");
    return "0";
}

static const char *ex_unary(Emitter *E, Node *n)
{
    const Type *t = n->type;
    switch (n->op) {
    case OP_NEG: {
        int64_t v;
        if (t_signed(t) && t_bits(t) == 64 && const_int(n->lhs, &v) && v != INT64_MIN)
            return fmt_int(t, (uint64_t)-v);
        if (n->lhs->kind == E_CONST && t_float(t) && same_type(n->lhs->type, t))
            return fmt_float(t, -n->lhs->fval);
    }
        if (t_float(t))
            return arena_printf("(-%s)", ex_as(E, n->lhs, t));
        if (t_int(t))
            return arena_printf("krt_neg_%s(%s)", t_suffix(t), ex_as(E, n->lhs, t));
        break;
    case OP_POS:
        return ex_as(E, n->lhs, t);
    case OP_INVERT:
        if (t_int(t) && t_bits(t) >= 32)
            return arena_printf("~%s", ex_as(E, n->lhs, t));
        if (t_int(t))
            return arena_printf("(%s)~%s", t_c(t), ex_as(E, n->lhs, t));
        break;
    case OP_NOT:
        return arena_printf("(!%s)", ex(E, n->lhs));
    default:
        break;
    }
    error_at(n->loc, "unary '%s' is not supported on this type", op_spelling[n->op]);
    return "0";
}

/* `a and b` / `a or b`: Python returns an operand, not a bool. */
static const char *ex_boolop(Emitter *E, Node *n)
{
    const Type *t = n->type;
    bool is_and = n->op == OP_AND;
    if (t && t->kind == TY_BOOL && n->lhs->type->kind == TY_BOOL && n->rhs->type->kind == TY_BOOL)
        return arena_printf("(%s %s %s)", ex(E, n->lhs), is_and ? "&&" : "||", ex(E, n->rhs));
    const char *tmp = new_tmp(E, n->lhs->type);
    const char *l = conv(tmp, n->lhs->type, t);
    const char *r = ex_as(E, n->rhs, t);
    return arena_printf("((%s = %s) ? %s : %s)", tmp, ex(E, n->lhs), is_and ? r : l,
                        is_and ? l : r);
}

/* cuda.grid(k) / cuda.gridsize(k), component c. */
static const char *grid_comp(Emitter *E, bool size, int c)
{
    const char xyz = (char)("xyz"[c]);
    if (E->mode == MODE_CUDA)
        return size ? arena_printf("((int64_t)blockDim.%c * gridDim.%c)", xyz, xyz)
                    : arena_printf("((int64_t)blockIdx.%c * blockDim.%c + threadIdx.%c)", xyz, xyz, xyz);
    return size ? arena_printf("((int64_t)krt_b->block_dim.%c * krt_b->grid_dim.%c)", xyz, xyz)
                : arena_printf("((int64_t)krt_b->block_idx.%c * krt_b->block_dim.%c + krt_tid.%c)",
                               xyz, xyz, xyz);
}

/* cuda.atomic.OP(ary, idx, val): type.c passes args[0] the array,
 * args[1..ndim] the indices, args[ndim+1] the value. */
static const char *ex_atomic(Emitter *E, Node *n, const char *op)
{
    Node *arr = n->args.len > 0 ? n->args.items[0] : NULL;
    if (!arr || !arr->type || arr->type->kind != TY_ARRAY ||
        n->args.len != arr->type->ndim + 2) {
        error_at(n->loc, "%s takes (array, index, value)", n->api->path);
        return "0";
    }
    const Type *et = arr->type->elem;
    if (et->kind != TY_INT32 && et->kind != TY_UINT32 && et->kind != TY_INT64 &&
        et->kind != TY_UINT64 && !t_float(et)) {
        error_at(n->loc, "%s is not supported on %s arrays", n->api->path, ty_name(et));
        return "0";
    }
    int nix = arr->type->ndim;
    const char *p = elem_ref(E, arr, &n->args.items[1], nix);
    return arena_printf("krt_atomic_%s_%s(&%s, %s)", op, t_suffix(et), p,
                        ex_as(E, n->args.items[nix + 1], et));
}

/* The math.* rows: api.def's spelling, with "f" for float32. */
static const char *ex_math(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    const char *spell = E->mode == MODE_CUDA ? a->cuda : a->cpu;
    Node *x = n->args.len > 0 ? n->args.items[0] : NULL;
    const Type *ft = x && x->type && x->type->kind == TY_FLOAT32 ? x->type : ty_scalar[TY_FLOAT64];
    const char *f = ft->kind == TY_FLOAT32 ? "f" : "";
    switch (a->id) {
    case API_M_ISNAN: case API_M_ISINF: case API_M_ISFINITE:
        if (x && t_int(x->type))     /* numba: integers are finite numbers */
            return a->id == API_M_ISFINITE ? "true" : "false";
        return arena_printf("(%s(%s) != 0)", spell, ex_as(E, x, ft));
    case API_M_LOG:
        if (n->args.len == 2)
            return arena_printf("(log%s(%s) / log%s(%s))", f, ex_as(E, x, ft), f,
                                ex_as(E, n->args.items[1], ft));
        break;
    case API_M_LDEXP:
        return arena_printf("ldexp%s(%s, (int)%s)", f, ex_as(E, x, ft),
                            ex_as(E, n->args.items[1], ty_scalar[TY_INT32]));
    case API_M_RADIANS:
        return arena_printf("(%s * %s)", ex_as(E, x, ft),
                            fmt_float(ft, 3.14159265358979323846 / 180.0));
    case API_M_DEGREES:
        return arena_printf("(%s * %s)", ex_as(E, x, ft),
                            fmt_float(ft, 180.0 / 3.14159265358979323846));
    case API_M_FREXP:
        error_at(n->loc, "math.frexp is not supported yet");
        return "0";
    default:
        break;
    }
    if (!spell) {
        error_at(n->loc, "%s is not supported yet", a->path);
        return "0";
    }
    StrBuf b = {0};
    sb_printf(&b, "%s%s(", spell, f);
    for (int i = 0; i < n->args.len; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], ft));
    sb_putc(&b, ')');
    const char *s = arena_strdup(b.s);
    sb_free(&b);
    /* math.floor/ceil/trunc return int64 in numba: convert if typed so */
    return conv(s, ft, n->type);
}

static const char *ex_api(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    const Type *t = n->type;
    Node *x = n->args.len > 0 ? n->args.items[0] : NULL;
    switch (a->id) {
    case API_TID_X: case API_TID_Y: case API_TID_Z:
    case API_BID_X: case API_BID_Y: case API_BID_Z:
    case API_BDIM_X: case API_BDIM_Y: case API_BDIM_Z:
    case API_GDIM_X: case API_GDIM_Y: case API_GDIM_Z:
        return arena_printf("((%s)%s)", t_c(t), E->mode == MODE_CUDA ? a->cuda : a->cpu);
    case API_GRID: case API_GRIDSIZE: {
        bool size = a->id == API_GRIDSIZE;
        if (!t || t->kind != TY_TUPLE)
            return grid_comp(E, size, 0);
        StrBuf b = {0};
        sb_printf(&b, "%s_make(", tuple_cname(t));
        for (int c = 0; c < t->nelems && c < 3; c++)
            sb_printf(&b, "%s%s", c ? ", " : "", grid_comp(E, size, c));
        sb_putc(&b, ')');
        const char *s = arena_strdup(b.s);
        sb_free(&b);
        return s;
    }
    case API_ATOMIC_ADD: return ex_atomic(E, n, "add");
    case API_ATOMIC_SUB: return ex_atomic(E, n, "sub");
    case API_ATOMIC_MAX: return ex_atomic(E, n, "max");
    case API_ATOMIC_MIN: return ex_atomic(E, n, "min");
    case API_SYNCTHREADS:
        if (E->mode == MODE_CUDA)
            return "__syncthreads()";
        cpu_unsupported(E, n->loc, "syncthreads() inside an expression is not supported on the CPU backend");
        return "0";
    case API_M_PI: return fmt_float(t, 3.14159265358979323846);
    case API_M_E: return fmt_float(t, 2.71828182845904523536);
    case API_M_INF: return fmt_float(t, HUGE_VAL);
    case API_M_NAN: return fmt_float(t, NAN);
    case API_B_ABS:
        if (t_int(t))
            return arena_printf("krt_abs_%s(%s)", t_suffix(t), ex_as(E, x, t));
        if (t_float(t))
            return arena_printf("%s(%s)", t->kind == TY_FLOAT32 ? "fabsf" : "fabs", ex_as(E, x, t));
        break;
    case API_B_MIN: case API_B_MAX: {
        if (!t_scalar(t) || t->kind == TY_BOOL)
            break;
        const char *acc = ex_as(E, x, t);
        for (int i = 1; i < n->args.len; i++)
            acc = arena_printf("krt_%s_%s(%s, %s)", a->id == API_B_MIN ? "min" : "max",
                               t_suffix(t), acc, ex_as(E, n->args.items[i], t));
        return acc;
    }
    case API_B_ROUND:
        if (n->args.len == 1) {
            if (t_float(x->type))
                return conv(arena_printf("%s(%s)", x->type->kind == TY_FLOAT32 ? "rintf" : "rint",
                                         ex(E, x)), x->type, t);
            return ex_as(E, x, t);
        }
        if (t_float(t))
            return arena_printf("krt_round_ndigits_%s(%s, %s)", t_suffix(t), ex_as(E, x, t),
                                ex_as(E, n->args.items[1], ty_scalar[TY_INT64]));
        break;
    case API_B_POW: {
        Node tmp = *n;
        tmp.kind = E_BINOP;
        tmp.op = OP_POW;
        tmp.lhs = x;
        tmp.rhs = n->args.items[1];
        return ex_binop(E, &tmp);
    }
    case API_B_LEN:
        return ex_shape(E, x, 0);
    case API_B_INT: case API_B_FLOAT: case API_B_BOOL:
    case API_T_BOOLEAN: case API_T_BOOL_: case API_T_INT8: case API_T_INT16:
    case API_T_INT32: case API_T_INT64: case API_T_UINT8: case API_T_UINT16:
    case API_T_UINT32: case API_T_UINT64: case API_T_FLOAT32: case API_T_FLOAT64:
        if (x)
            return ex_as(E, x, t);
        break;
    default:
        if (strncmp(a->path, "math.", 5) == 0)
            return ex_math(E, n);
        break;
    }
    error_at(n->loc, "%s is not supported here", a->path);
    return "0";
}

static const char *ex_call(Emitter *E, Node *n)
{
    Func *f = n->callee;
    StrBuf b = {0};
    if (E->mode == MODE_CPU) {
        for (int i = 0; i < E->cpu_failed_funcs.len; i++)
            if (E->cpu_failed_funcs.items[i] == f)
                cpu_unsupported(E, n->loc, arena_printf("device function '%s' has no CPU version", f->name));
        sb_printf(&b, "%s__cpu(krt_b, krt_tid", fn_cname(f));
    } else {
        sb_printf(&b, "%s(", fn_cname(f));
    }
    for (int i = 0; i < n->args.len; i++) {
        Node *a = n->args.items[i];
        const Type *pt = i < f->nparams ? f->params[i]->type : a->type;
        const char *s = a->type && a->type->kind == TY_ARRAY ? array_value(E, a) : ex_as(E, a, pt);
        sb_printf(&b, "%s%s", (i || E->mode == MODE_CPU) ? ", " : "", s);
    }
    sb_putc(&b, ')');
    const char *s = arena_strdup(b.s);
    sb_free(&b);
    return s;
}

static const char *ex(Emitter *E, Node *n)
{
    if (!n)
        return "0";
    switch (n->kind) {
    case E_CONST:
        if (t_float(n->type))
            return fmt_float(n->type, n->fval);
        return fmt_int(n->type, n->ival);
    case E_VAR:
        return var_ref(E, n->var);
    case E_CAST:
        return ex_as(E, n->lhs, n->type);
    case E_API:
        return ex_api(E, n);
    case E_CALLFN:
        return ex_call(E, n);
    case E_INDEX:
        return elem_ref(E, n->lhs, n->args.items, n->args.len);
    case E_SHAPE:
        return ex_shape(E, n->lhs, (int)n->ival);
    case E_TUPLEGET: {
        Node *t = n->lhs;
        if (t->kind == E_API && t->api && (t->api->id == API_GRID || t->api->id == API_GRIDSIZE))
            return grid_comp(E, t->api->id == API_GRIDSIZE, (int)n->ival);
        if (t->kind == E_TUPLE && (int)n->ival < t->args.len)
            return ex(E, t->args.items[n->ival]);
        return arena_printf(t->kind == E_VAR ? "%s.f%d" : "(%s).f%d", ex(E, t), (int)n->ival);
    }
    case E_TUPLE: {
        if (!n->type || n->type->kind != TY_TUPLE)
            break;
        StrBuf b = {0};
        sb_printf(&b, "%s_make(", tuple_cname(n->type));
        for (int i = 0; i < n->args.len; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], n->type->elems[i]));
        sb_putc(&b, ')');
        const char *s = arena_strdup(b.s);
        sb_free(&b);
        return s;
    }
    case E_BINOP:
        return ex_binop(E, n);
    case E_UNARY:
        return ex_unary(E, n);
    case E_BOOLOP:
        return ex_boolop(E, n);
    case E_COMPARE:
        return ex_compare(E, n);
    case E_IFEXP:
        return arena_printf("(%s ? %s : %s)", ex(E, n->cond), ex_as(E, n->lhs, n->type),
                            ex_as(E, n->rhs, n->type));
    default:
        break;
    }
    error_at(n->loc, "%s cannot be translated here", node_kind_desc[n->kind]);
    return "0";
}

/* ------------------------------------------------------------------ */
/* Statements, inside one thread                                       */
/* ------------------------------------------------------------------ */

static void emit_stmt(Emitter *E, Node *s);

static void emit_stmts(Emitter *E, NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        emit_stmt(E, l->items[i]);
}

/* Leave the thread loop of a CPU kernel (return, or break/continue of a
 * block-level loop). */
static void emit_thread_exit(Emitter *E, const char *state)
{
    if (E->frame)
        outf(E, "krt_f->krt_state = %s;", state);
    outf(E, E->frame ? "goto krt_skip%d;" : "goto krt_next;", E->exit_label);
    E->exit_used = true;
}

/* The loop condition of a range with iterator it, bound stop, step step. */
static const char *range_cond(Node *s, const char *it, const char *stop, const char *step,
                              const Type *st)
{
    Node *stepe = s->args.len > 2 ? s->args.items[2] : NULL;
    int64_t v = 1;
    bool known = !stepe || const_int(stepe, &v) ||
                 (stepe->kind == E_CONST && t_unsigned(stepe->type) && (v = 1));
    if (known && v > 0)
        return arena_printf("%s < %s", it, stop);
    if (known && v < 0)
        return arena_printf("%s > %s", it, stop);
    if (known)    /* step 0: numba raises; run nothing */
        return "false";
    if (t_unsigned(st))
        return arena_printf("(%s != 0 && %s < %s)", step, it, stop);
    return arena_printf("(%s > 0 ? %s < %s : (%s < 0 && %s > %s))", step, it, stop, step, it, stop);
}

static void emit_for_range(Emitter *E, Node *s)
{
    Type *vt = s->var ? s->var->type : ty_scalar[TY_INT64];
    Type *it_t = s->it ? s->it->type : vt;
    const char *it = s->it ? var_ref(E, s->it) : new_tmp(E, it_t);
    const char *stop = s->stop ? var_ref(E, s->stop) : new_tmp(E, it_t);
    const char *step = s->step ? var_ref(E, s->step) : new_tmp(E, it_t);
    Node *a0 = s->args.len > 0 ? s->args.items[0] : NULL;
    Node *a1 = s->args.len > 1 ? s->args.items[1] : NULL;
    Node *a2 = s->args.len > 2 ? s->args.items[2] : NULL;
    outf(E, "%s = %s;", it, a0 ? ex_as(E, a0, it_t) : "0");
    outf(E, "%s = %s;", stop, a1 ? ex_as(E, a1, it_t) : "0");
    outf(E, "%s = %s;", step, a2 ? ex_as(E, a2, it_t) : "1");
    outf(E, "for (; %s; %s += %s) {", range_cond(s, it, stop, step, it_t), it, step);
    E->indent++;
    if (s->var)
        outf(E, "%s = %s;", var_ref(E, s->var), conv(it, it_t, vt));
    E->cloops++;
    emit_stmts(E, &s->body);
    E->cloops--;
    E->indent--;
    outf(E, "}");
}

/* A function's "zero" of type t, for a return the flow cannot reach. */
static const char *zero_of(const Type *t)
{
    if (t && t->kind == TY_TUPLE) {
        StrBuf b = {0};
        sb_printf(&b, "%s_make(", tuple_cname(t));
        for (int i = 0; i < t->nelems; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", zero_of(t->elems[i]));
        sb_putc(&b, ')');
        const char *s = arena_strdup(b.s);
        sb_free(&b);
        return s;
    }
    if (t && t->kind == TY_ARRAY)
        return "krt_view_make(NULL, 1, 0, 0, 0, 1)";
    return t && t->kind == TY_BOOL ? "false" : "0";
}

static void emit_stmt(Emitter *E, Node *s)
{
    switch (s->kind) {
    case S_NOP: case S_PASS: case S_ARRAYDECL:
        return;
    default:
        break;
    }
    emit_lineno(E, s->loc);
    switch (s->kind) {
    case S_EXPR: {
        Node *e = s->lhs;
        const char *x = ex(E, e);
        if (!e->type || e->type->kind == TY_VOID || e->type->kind == TY_NONE)
            outf(E, "%s;", x);
        else
            outf(E, "(void)%s;", x);
        return;
    }
    case S_ASSIGN: {
        if (s->args.len == 1) {
            Node *t = s->args.items[0];
            outf(E, "%s = %s;", ex(E, t), unparen(ex_as(E, s->rhs, t->type)));
            return;
        }
        const char *tmp = new_tmp(E, s->rhs->type);
        outf(E, "%s = %s;", tmp, ex(E, s->rhs));
        for (int i = 0; i < s->args.len; i++) {
            Node *t = s->args.items[i];
            outf(E, "%s = %s;", ex(E, t), conv(tmp, s->rhs->type, t->type));
        }
        return;
    }
    case S_IF: {
        outf(E, "if (%s) {", ex_cond(E, s->cond));
        for (;;) {
            E->indent++;
            emit_stmts(E, &s->body);
            E->indent--;
            /* elif: an else holding one if */
            if (s->orelse.len == 1 && s->orelse.items[0]->kind == S_IF) {
                s = s->orelse.items[0];
                emit_lineno(E, s->loc);
                outf(E, "} else if (%s) {", ex_cond(E, s->cond));
                continue;
            }
            if (s->orelse.len > 0) {
                outf(E, "} else {");
                E->indent++;
                emit_stmts(E, &s->orelse);
                E->indent--;
            }
            break;
        }
        outf(E, "}");
        return;
    }
    case S_WHILE:
        if (s->orelse.len > 0) {
            error_at(s->loc, "while/else is not supported");
            return;
        }
        outf(E, "while (%s) {", ex_cond(E, s->cond));
        E->indent++;
        E->cloops++;
        emit_stmts(E, &s->body);
        E->cloops--;
        E->indent--;
        outf(E, "}");
        return;
    case S_FORRANGE:
        emit_for_range(E, s);
        return;
    case S_BREAK: case S_CONTINUE: {
        bool brk = s->kind == S_BREAK;
        if (E->cloops > 0)
            outf(E, brk ? "break;" : "continue;");
        else if (E->thread_loop && E->frame && E->bloop > 0)
            emit_thread_exit(E, arena_printf(brk ? "KRT_BREAK(%d)" : "KRT_CONTINUE(%d)", E->bloop));
        else
            error_at(s->loc, "'%s' outside a loop", brk ? "break" : "continue");
        return;
    }
    case S_RETURN:
        if (E->fn->is_kernel) {
            if (s->lhs && s->lhs->kind != E_NONE && s->lhs->type && s->lhs->type->kind != TY_NONE)
                error_at(s->loc, "a kernel cannot return a value");
            if (E->thread_loop)
                emit_thread_exit(E, "KRT_RETURNED");
            else
                outf(E, "return;");
        } else if (!E->fn->ret || E->fn->ret->kind == TY_VOID || E->fn->ret->kind == TY_NONE) {
            outf(E, "return;");
        } else if (!s->lhs) {
            outf(E, "return %s;", zero_of(E->fn->ret));
        } else {
            outf(E, "return %s;", unparen(ex_as(E, s->lhs, E->fn->ret)));
        }
        return;
    case S_BARRIER:
        if (E->mode == MODE_CUDA)
            outf(E, "__syncthreads();");
        else
            cpu_unsupported(E, s->loc, "syncthreads() inside a device function is not supported "
                                       "on the CPU backend yet");
        return;
    default:
        error_at(s->loc, "%s cannot be translated here", node_kind_desc[s->kind]);
        return;
    }
}

/* Can control reach the end of this statement list? (To add a return the
 * compiler can see at the end of a device function that needs one.) */
static bool falls_through(const NodeList *l)
{
    if (l->len == 0)
        return true;
    const Node *s = l->items[l->len - 1];
    if (s->kind == S_RETURN)
        return false;
    if (s->kind == S_IF)
        return s->orelse.len == 0 || falls_through(&s->body) || falls_through(&s->orelse);
    return true;
}

/* ------------------------------------------------------------------ */
/* Declarations                                                        */
/* ------------------------------------------------------------------ */

static const char *array_dims(const Var *v)
{
    const Type *t = v->type;
    StrBuf b = {0};
    for (int k = 0; k < t->ndim && k < 3; k++)
        sb_printf(&b, "[%lld]", (long long)v->shape[k]);
    char *s = arena_strdup(b.s ? b.s : "");
    sb_free(&b);
    return s;
}

/* Declare local variable v as a C local (not in a frame). */
static void decl_local(Emitter *E, Var *v)
{
    const Type *t = v->type;
    switch (v->kind) {
    case VAR_SHARED:
        if (E->mode == MODE_CUDA)
            outf(E, "__shared__ %s %s%s;", t_c(t->elem), v->cname, array_dims(v));
        return;
    case VAR_DYNSHARED:
        if (E->mode == MODE_CUDA)
            outf(E, "%s *%s = (%s *)krt_dynshared;", t_c(t->elem), v->cname, t_c(t->elem));
        else
            outf(E, "%s *%s = (%s *)krt_b->dyn_shared;", t_c(t->elem), v->cname, t_c(t->elem));
        return;
    case VAR_LOCALARRAY:
        outf(E, "%s %s%s;", t_c(t->elem), v->cname, array_dims(v));
        return;
    default:
        break;
    }
    if (t->kind == TY_ARRAY)
        outf(E, "krt_view %s;", v->cname);
    else if (t_scalar(t) || t->kind == TY_TUPLE)
        outf(E, "%s %s = %s;", t_c(t), v->cname, zero_of(t));
    else
        error_at(v->loc, "variable '%s' has a type kernc cannot translate (%s)", v->name,
                 ty_name(t));
}

static void decl_tmps(Emitter *E)
{
    for (int i = 0; i < E->ntmp; i++)
        outf(E, "%s krt_tmp%d;", t_c(E->tmp_types[i]), i);
}

static void void_unread(Emitter *E, bool params, bool locals)
{
    Func *f = E->fn;
    if (params)
        for (int i = 0; i < f->nparams; i++)
            if (!E->param_read[i])
                outf(E, "(void)%s;", f->params[i]->cname);
    if (locals)
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (!E->local_read[i] && v->kind != VAR_SHARED)
                outf(E, "(void)%s;", v->cname);
        }
}

static void func_begin(Emitter *E, Func *f, Mode mode)
{
    E->fn = f;
    E->mode = mode;
    E->frame = false;
    E->thread_loop = false;
    E->cloops = E->bloop = 0;
    E->nlabels = 0;
    E->ntmp = 0;
    E->used_s = E->used_go = E->used_c = false;
    E->cpu_failed = false;
    E->param_read = arena_alloc(sizeof(bool) * (size_t)(f->nparams + 1));
    E->param_assigned = arena_alloc(sizeof(bool) * (size_t)(f->nparams + 1));
    E->local_read = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < f->nparams; i++)
        f->params[i]->index = i;
    for (int i = 0; i < f->nlocals; i++)
        f->locals[i]->index = i;
    for (int i = 0; i < f->def->body.len; i++)
        walk_uses(E, f->def->body.items[i], false);
}

/* Swap the output buffer: bodies are printed first (so that the
 * declarations know what the body used), then assembled. */
static StrBuf *swap_out(Emitter *E, StrBuf *b)
{
    StrBuf *old = E->out;
    E->out = b;
    return old;
}

static const char *param_decl(const Var *v)
{
    return arena_printf("%s %s", t_c(v->type), v->cname);
}

static const char *param_list(const Func *f, const char *lead)
{
    StrBuf b = {0};
    sb_puts(&b, lead);
    for (int i = 0; i < f->nparams; i++)
        sb_printf(&b, "%s%s", (i || *lead) ? ", " : "", param_decl(f->params[i]));
    if (!b.s || !*b.s)
        sb_puts(&b, "void");
    char *s = arena_strdup(b.s);
    sb_free(&b);
    return s;
}

/* ------------------------------------------------------------------ */
/* CUDA functions                                                      */
/* ------------------------------------------------------------------ */

static void emit_cuda_func(Emitter *E, Func *f)
{
    func_begin(E, f, MODE_CUDA);
    StrBuf body = {0};
    StrBuf *out = swap_out(E, &body);
    E->indent = 1;
    emit_stmts(E, &f->def->body);
    bool nonvoid = !f->is_kernel && f->ret && f->ret->kind != TY_VOID && f->ret->kind != TY_NONE;
    if (nonvoid && falls_through(&f->def->body))
        outf(E, "return %s;", zero_of(f->ret));
    swap_out(E, out);
    E->indent = 0;

    emit_lineno(E, f->def->loc);
    if (f->is_kernel)
        outf(E, "__global__ void %s__cuda(%s)", fn_cname(f), param_list(f, ""));
    else
        outf(E, "static __device__ inline KRT_MAYBE_UNUSED %s %s(%s)", nonvoid ? t_c(f->ret) : "void",
             fn_cname(f), param_list(f, ""));
    outf(E, "{");
    E->indent = 1;
    for (int i = 0; i < f->nlocals; i++)
        decl_local(E, f->locals[i]);
    decl_tmps(E);
    void_unread(E, true, true);
    if (body.s)
        sb_puts(E->out, body.s);
    sb_free(&body);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

/* ------------------------------------------------------------------ */
/* CPU functions                                                       */
/* ------------------------------------------------------------------ */

static void emit_cpu_devfunc(Emitter *E, Func *f)
{
    func_begin(E, f, MODE_CPU);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_SHARED)
            cpu_unsupported(E, f->locals[i]->loc, "cuda.shared.array inside a device function is not "
                                                  "supported on the CPU backend yet");
    StrBuf body = {0};
    StrBuf *out = swap_out(E, &body);
    E->indent = 1;
    emit_stmts(E, &f->def->body);
    bool nonvoid = f->ret && f->ret->kind != TY_VOID && f->ret->kind != TY_NONE;
    if (nonvoid && falls_through(&f->def->body))
        outf(E, "return %s;", zero_of(f->ret));
    swap_out(E, out);
    if (E->cpu_failed) {
        vec_push(&E->cpu_failed_funcs, f);
        sb_free(&body);
        if (E->c_target)
            error_at(E->cpu_fail_loc, "%s", E->cpu_fail_msg);
        return;
    }
    E->indent = 0;
    emit_lineno(E, f->def->loc);
    outf(E, "static inline KRT_MAYBE_UNUSED %s %s__cpu(%s)", nonvoid ? t_c(f->ret) : "void", fn_cname(f),
         param_list(f, "const krt_cpu_block *krt_b, krt_dim3 krt_tid"));
    outf(E, "{");
    E->indent = 1;
    outf(E, "(void)krt_b;");
    outf(E, "(void)krt_tid;");
    for (int i = 0; i < f->nlocals; i++)
        decl_local(E, f->locals[i]);
    decl_tmps(E);
    void_unread(E, true, true);
    if (body.s)
        sb_puts(E->out, body.s);
    sb_free(&body);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

/* A region: one loop over the threads that are still running. */
static void region_begin(Emitter *E, bool guard)
{
    outf(E, "KRT_FOR_EACH_THREAD_T(krt_b) {");
    E->indent++;
    outf(E, "krt_f = &krt_fr[krt_t];");
    if (guard) {
        outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
        outf(E, "    continue;");
    }
    E->thread_loop = true;
    E->exit_label = ++E->nlabels;
    E->exit_used = false;
    E->cloops = 0;
}

static void region_end(Emitter *E)
{
    if (E->exit_used) {
        E->indent--;
        outf(E, "krt_skip%d:;", E->exit_label);
        E->indent++;
    }
    E->indent--;
    outf(E, "}");
    E->thread_loop = false;
}

static bool stmt_is_empty(const Node *s)
{
    return s->kind == S_NOP || s->kind == S_PASS || s->kind == S_ARRAYDECL;
}

static void emit_block_stmt(Emitter *E, Node *s);

/* A statement list at block level: runs of barrier-free statements become
 * regions, statements holding a barrier become block-level code. */
static void emit_block_list(Emitter *E, NodeList *l)
{
    int i = 0;
    while (i < l->len) {
        if (has_barrier(l->items[i])) {
            emit_block_stmt(E, l->items[i]);
            i++;
            continue;
        }
        int j = i;
        bool any = false;
        while (j < l->len && !has_barrier(l->items[j]))
            any |= !stmt_is_empty(l->items[j++]);
        if (any) {
            region_begin(E, true);
            for (int k = i; k < j; k++)
                emit_stmt(E, l->items[k]);
            region_end(E);
        }
        i = j;
    }
}

/* Block-level loop around `body`: cond_fn prints, inside a region, the
 * test that keeps a thread in the loop. */
static void emit_block_loop(Emitter *E, Node *s, const char *cond, const char *enter,
                            const char *next)
{
    int d = ++E->bloop;
    emit_lineno(E, s->loc);
    outf(E, "for (;;) {");
    E->indent++;
    outf(E, "krt_go = 0;");
    E->used_go = true;
    region_begin(E, false);
    if (!next) {   /* while: a thread that continued is running again */
        outf(E, "if (krt_f->krt_state == KRT_CONTINUE(%d))", d);
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
    }
    outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
    outf(E, "    continue;");
    emit_lineno(E, s->loc);
    outf(E, "if (%s) {", cond);
    E->indent++;
    if (enter)
        outf(E, "%s", enter);
    outf(E, "krt_go = 1;");
    E->indent--;
    outf(E, "} else {");
    outf(E, "    krt_f->krt_state = KRT_BREAK(%d);", d);
    outf(E, "}");
    region_end(E);
    outf(E, "if (!krt_go)");
    outf(E, "    break;");
    emit_block_list(E, &s->body);
    if (next) {
        region_begin(E, false);
        outf(E, "if (krt_f->krt_state == KRT_CONTINUE(%d))", d);
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
        outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
        outf(E, "    continue;");
        outf(E, "%s", next);
        region_end(E);
    }
    E->indent--;
    outf(E, "}");
    region_begin(E, false);
    outf(E, "if (krt_f->krt_state == KRT_BREAK(%d))", d);
    outf(E, "    krt_f->krt_state = KRT_RUNNING;");
    region_end(E);
    E->bloop--;
}

static void emit_block_stmt(Emitter *E, Node *s)
{
    switch (s->kind) {
    case S_BARRIER:
        emit_lineno(E, s->loc);
        outf(E, "/* cuda.syncthreads(): every thread has reached this point */");
        return;
    case S_IF: {
        emit_lineno(E, s->loc);
        outf(E, "krt_go = -1;");
        E->used_go = E->used_c = true;
        region_begin(E, true);
        emit_lineno(E, s->loc);
        outf(E, "krt_c = %s;", ex_cond(E, s->cond));
        outf(E, "if (krt_go < 0)");
        outf(E, "    krt_go = krt_c;");
        region_end(E);
        outf(E, "if (krt_go == 1) {");
        E->indent++;
        emit_block_list(E, &s->body);
        E->indent--;
        if (s->orelse.len > 0) {
            outf(E, "} else if (krt_go == 0) {");
            E->indent++;
            emit_block_list(E, &s->orelse);
            E->indent--;
        }
        outf(E, "}");
        return;
    }
    case S_WHILE:
        if (s->orelse.len > 0) {
            error_at(s->loc, "while/else is not supported");
            return;
        }
        emit_block_loop(E, s, ex_cond(E, s->cond), NULL, NULL);
        return;
    case S_FORRANGE: {
        Type *vt = s->var ? s->var->type : ty_scalar[TY_INT64];
        if (!s->it || !s->stop || !s->step) {
            cpu_unsupported(E, s->loc, "a range loop without its hidden variables");
            return;
        }
        Type *it_t = s->it->type;
        const char *it = var_ref(E, s->it), *stop = var_ref(E, s->stop), *step = var_ref(E, s->step);
        emit_lineno(E, s->loc);
        region_begin(E, true);
        Node *a0 = s->args.len > 0 ? s->args.items[0] : NULL;
        Node *a1 = s->args.len > 1 ? s->args.items[1] : NULL;
        Node *a2 = s->args.len > 2 ? s->args.items[2] : NULL;
        outf(E, "%s = %s;", it, a0 ? ex_as(E, a0, it_t) : "0");
        outf(E, "%s = %s;", stop, a1 ? ex_as(E, a1, it_t) : "0");
        outf(E, "%s = %s;", step, a2 ? ex_as(E, a2, it_t) : "1");
        region_end(E);
        const char *enter = s->var ? arena_printf("%s = %s;", var_ref(E, s->var), conv(it, it_t, vt)) : NULL;
        emit_block_loop(E, s, range_cond(s, it, stop, step, it_t), enter,
                        arena_printf("%s += %s;", it, step));
        return;
    }
    default:
        cpu_unsupported(E, s->loc, "syncthreads() inside a device function is not supported on "
                                   "the CPU backend yet");
        return;
    }
}

static bool kernel_has_shared(const Func *f)
{
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_SHARED)
            return true;
    return false;
}

/* The CPU version of kernel f: static void NAME__cpu(block, args). */
static void emit_cpu_kernel(Emitter *E, Func *f)
{
    const char *name = fn_cname(f);
    func_begin(E, f, MODE_CPU);
    E->frame = f->has_barrier;

    StrBuf body = {0};
    StrBuf *out = swap_out(E, &body);
    E->indent = 1;
    if (!E->frame) {
        /* One thread loop; locals are plain C locals of the loop body. */
        outf(E, "KRT_FOR_EACH_THREAD(krt_b) {");
        E->indent++;
        for (int i = 0; i < f->nparams; i++) {
            Var *v = f->params[i];
            if (E->param_assigned[i])
                outf(E, "%s %s = %s;", t_c(v->type), v->cname,
                     arena_printf("krt_arg_%s", v->cname));
        }
        for (int i = 0; i < f->nlocals; i++)
            if (f->locals[i]->kind != VAR_SHARED && f->locals[i]->kind != VAR_DYNSHARED)
                decl_local(E, f->locals[i]);
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (!E->local_read[i] && v->kind != VAR_SHARED && v->kind != VAR_DYNSHARED)
                outf(E, "(void)%s;", v->cname);
        }
        E->thread_loop = true;
        E->exit_label = 0;
        E->exit_used = false;
        emit_stmts(E, &f->def->body);
        if (E->exit_used) {
            E->indent--;
            outf(E, "krt_next:;");
            E->indent++;
        }
        E->thread_loop = false;
        E->indent--;
        outf(E, "}");
    } else {
        /* Frames start running; assigned parameters become per-thread. */
        outf(E, "KRT_FOR_EACH_THREAD_T(krt_b) {");
        outf(E, "    krt_fr[krt_t].krt_state = KRT_RUNNING;");
        for (int i = 0; i < f->nparams; i++)
            if (E->param_assigned[i])
                outf(E, "    krt_fr[krt_t].%s = krt_arg_%s;", f->params[i]->cname, f->params[i]->cname);
        outf(E, "}");
        emit_block_list(E, &f->def->body);
    }
    swap_out(E, out);
    E->indent = 0;

    if (E->cpu_failed) {
        sb_free(&body);
        if (E->c_target)
            error_at(E->cpu_fail_loc, "%s", E->cpu_fail_msg);
        else
            warning_at(E->cpu_fail_loc, "%s; kernel '%s' will run on CUDA only", E->cpu_fail_msg,
                       f->name);
        return;
    }

    /* Per-block shared arrays and per-thread frames. */
    if (kernel_has_shared(f)) {
        outf(E, "struct %s__shared {", name);
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (v->kind == VAR_SHARED)
                outf(E, "    %s %s%s;", t_c(v->type->elem), v->cname, array_dims(v));
        }
        outf(E, "};");
        outf(E, "%s", "");
    }
    if (E->frame) {
        outf(E, "struct %s__frame {", name);
        outf(E, "    int krt_state;");
        E->indent++;
        for (int i = 0; i < f->nparams; i++)
            if (E->param_assigned[i])
                outf(E, "%s;", param_decl(f->params[i]));
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (v->kind == VAR_LOCALARRAY)
                outf(E, "%s %s%s;", t_c(v->type->elem), v->cname, array_dims(v));
            else if (v->kind != VAR_SHARED && v->kind != VAR_DYNSHARED)
                outf(E, "%s %s;", t_c(v->type), v->cname);
        }
        E->indent--;
        outf(E, "};");
        outf(E, "%s", "");
    }

    emit_lineno(E, f->def->loc);
    outf(E, "static void %s__cpu(const krt_cpu_block *krt_b, void **krt_args)", name);
    outf(E, "{");
    E->indent = 1;
    for (int i = 0; i < f->nparams; i++) {
        Var *v = f->params[i];
        const char *c = E->param_assigned[i] ? arena_printf("krt_arg_%s", v->cname) : v->cname;
        if (v->type->kind == TY_BOOL)
            outf(E, "const bool %s = *(const uint8_t *)krt_args[%d] != 0;", c, i);
        else
            outf(E, "const %s %s = *(const %s *)krt_args[%d];", t_c(v->type), c, t_c(v->type), i);
    }
    if (E->used_s)
        outf(E, "struct %s__shared *krt_s = (struct %s__shared *)krt_b->shared;", name, name);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_DYNSHARED)
            decl_local(E, f->locals[i]);
    if (E->frame) {
        outf(E, "struct %s__frame *krt_fr = (struct %s__frame *)krt_b->frame;", name, name);
        outf(E, "struct %s__frame *krt_f;", name);
        outf(E, "unsigned krt_t;");
    }
    if (E->used_go)
        outf(E, "int krt_go;");
    if (E->used_c)
        outf(E, "int krt_c;");
    outf(E, "krt_dim3 krt_tid;");
    decl_tmps(E);
    for (int i = 0; i < f->nparams; i++)
        if (!E->param_read[i] && !E->param_assigned[i])
            outf(E, "(void)%s;", f->params[i]->cname);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_DYNSHARED && !E->local_read[i])
            outf(E, "(void)%s;", f->locals[i]->cname);
    if (body.s)
        sb_puts(E->out, body.s);
    sb_free(&body);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

/* ------------------------------------------------------------------ */
/* Descriptors, launchers, files                                       */
/* ------------------------------------------------------------------ */

static const char *path_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* krt_module_<base>: the base name without ".kern", as an identifier. */
static const char *module_ident(const char *path)
{
    const char *b = path_base(path);
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".kern") == 0)
        n -= 5;
    char *s = arena_strndup(b, n);
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            *p = '_';
    return s;
}

static const char *c_string(const char *s)
{
    StrBuf b = {0};
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putc(&b, '\\');
        sb_putc(&b, *s);
    }
    char *r = arena_strdup(b.s ? b.s : "");
    sb_free(&b);
    return r;
}

/* The launcher's C type of a parameter (bool travels as uint8_t). */
static const char *abi_type(const Type *t)
{
    if (t->kind == TY_ARRAY)
        return "krt_array";
    if (t->kind == TY_BOOL)
        return "uint8_t";
    return t_c(t);
}

static const char *launcher_proto(const Func *f)
{
    StrBuf b = {0};
    sb_printf(&b, "int %s(krt_launch_cfg cfg", fn_cname(f));
    for (int i = 0; i < f->nparams; i++)
        sb_printf(&b, ", %s %s", abi_type(f->params[i]->type), f->params[i]->cname);
    sb_putc(&b, ')');
    char *s = arena_strdup(b.s);
    sb_free(&b);
    return s;
}

static void emit_descriptor(Emitter *E, Func *f, bool with_cuda, bool with_cpu)
{
    const char *name = fn_cname(f);
    E->indent = 0;
    if (f->nparams > 0) {
        outf(E, "static const krt_param %s__params[] = {", name);
        for (int i = 0; i < f->nparams; i++) {
            const Type *t = f->params[i]->type;
            bool arr = t->kind == TY_ARRAY;
            outf(E, "    {\"%s\", %s, %s, %d, %d},", c_string(f->params[i]->name),
                 arr ? "KRT_PARAM_ARRAY" : "KRT_PARAM_SCALAR", t_dtype(arr ? t->elem : t),
                 arr ? t->ndim : 0, arr && t->contiguous ? 1 : 0);
        }
        outf(E, "};");
    }
    bool frame = f->has_barrier;
    outf(E, "KRT_EXTERN_C const krt_kernel %s__kernel = {", name);
    outf(E, "    \"%s\", \"%s\", %d, %s,", c_string(f->name), c_string(path_base(E->path)),
         f->nparams, f->nparams > 0 ? arena_printf("%s__params", name) : "NULL");
    outf(E, "    %s, %s,", with_cpu ? arena_printf("%s__cpu", name) : "NULL",
         with_cuda ? arena_printf("(const void *)%s__cuda", name) : "NULL");
    outf(E, "    %s, %s",
         with_cpu && kernel_has_shared(f) ? arena_printf("sizeof(struct %s__shared)", name) : "0",
         with_cpu && frame ? arena_printf("sizeof(struct %s__frame)", name) : "0");
    outf(E, "};");
    outf(E, "%s", "");

    outf(E, "KRT_EXTERN_C %s", launcher_proto(f));
    outf(E, "{");
    E->indent = 1;
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i]->type->kind == TY_ARRAY)
            outf(E, "krt_view krt_v%d;", i);
    if (f->nparams > 0)
        outf(E, "void *krt_argv[%d];", f->nparams);
    for (int i = 0; i < f->nparams; i++) {
        Var *v = f->params[i];
        if (v->type->kind == TY_ARRAY) {
            outf(E, "KRT_TRY(krt_check_array(&%s__kernel, %d, &%s, &krt_v%d));", name, i,
                 v->cname, i);
            outf(E, "krt_argv[%d] = &krt_v%d;", i, i);
        } else {
            if (v->type->kind == TY_BOOL)
                outf(E, "%s = (uint8_t)(%s != 0);", v->cname, v->cname);
            outf(E, "krt_argv[%d] = &%s;", i, v->cname);
        }
    }
    outf(E, "return krt_launch(&%s__kernel, cfg, %s);", name, f->nparams > 0 ? "krt_argv" : "NULL");
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

static void emit_prologue(Emitter *E, const char *what)
{
    const char *base = path_base(E->path);
    outf(E, "/*");
    outf(E, " * Generated by kernc from %s: do not edit.", base);
    outf(E, " * %s", what);
    outf(E, " */");
    outf(E, "#include <kernrt.h>");
    outf(E, "#include <kernrt_device.h>");
    outf(E, "%s", "");
}

static void emit_tuples(Emitter *E)
{
    for (int i = 0; i < E->tuples.len; i++) {
        Type *t = E->tuples.items[i];
        const char *n = tuple_cname(t);
        outf(E, "typedef struct %s {", n);
        for (int k = 0; k < t->nelems; k++)
            outf(E, "    %s f%d;", t_c(t->elems[k]), k);
        outf(E, "} %s;", n);
        StrBuf b = {0};
        for (int k = 0; k < t->nelems; k++)
            sb_printf(&b, "%s%s f%d", k ? ", " : "", t_c(t->elems[k]), k);
        outf(E, "KRT_FN KRT_MAYBE_UNUSED %s %s_make(%s)", n, n, b.s ? b.s : "void");
        sb_free(&b);
        outf(E, "{");
        outf(E, "    %s r;", n);
        for (int k = 0; k < t->nelems; k++)
            outf(E, "    r.f%d = f%d;", k, k);
        outf(E, "    return r;");
        outf(E, "}");
    }
    if (E->tuples.len)
        outf(E, "%s", "");
}

static void emitter_init(Emitter *E, StrBuf *out, Program *p, const Options *opt)
{
    memset(E, 0, sizeof *E);
    E->out = out;
    E->prog = p;
    E->opt = opt;
    E->path = p->src && p->src->path ? p->src->path : opt && opt->input ? opt->input : "input.kern";
    E->line_file = c_string(E->path);
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        name_vars(f);
        for (int k = 0; k < f->nparams; k++)
            note_tuple(E, f->params[k]->type);
        for (int k = 0; k < f->nlocals; k++)
            note_tuple(E, f->locals[k]->type);
        note_tuple(E, f->ret);
        for (int k = 0; k < f->def->body.len; k++)
            walk_tuples(E, f->def->body.items[k]);
    }
}

/* The CPU half (device functions, kernels, descriptors, launchers) and the
 * module table; `cuda`: the CUDA kernels exist too. */
static void emit_cpu_half(Emitter *E, bool cuda)
{
    Program *p = E->prog;
    bool *cpu_ok = arena_alloc(sizeof(bool) * (size_t)(p->nfuncs + 1));
    outf(E, "/* ---- CPU backend: each kernel runs all threads of one block ---- */");
    outf(E, "%s", "");
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        if (f->is_kernel) {
            emit_cpu_kernel(E, f);
            cpu_ok[i] = !E->cpu_failed;
        } else {
            emit_cpu_devfunc(E, f);
        }
    }
    outf(E, "/* ---- kernel descriptors and launchers ---- */");
    outf(E, "%s", "");
    int nk = 0;
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->is_kernel) {
            emit_descriptor(E, p->funcs[i], cuda, cpu_ok[i]);
            nk++;
        }
    const char *mod = module_ident(E->path);
    if (nk > 0) {
        outf(E, "static const krt_kernel *const krt_kernels_%s[] = {", mod);
        for (int i = 0; i < p->nfuncs; i++)
            if (p->funcs[i]->is_kernel)
                outf(E, "    &%s__kernel,", fn_cname(p->funcs[i]));
        outf(E, "};");
    }
    outf(E, "KRT_EXTERN_C const krt_module krt_module_%s = {", mod);
    outf(E, "    \"%s\", %d, %s", c_string(path_base(E->path)), nk,
         nk ? arena_printf("krt_kernels_%s", mod) : "NULL");
    outf(E, "};");
}

void emit_cuda(StrBuf *out, Program *p, const Options *opt)
{
    Emitter E;
    emitter_init(&E, out, p, opt);
    emit_prologue(&E, "CUDA kernels, their CPU versions, and the typed launchers.");
    emit_tuples(&E);
    bool dyn = false;
    for (int i = 0; i < p->nfuncs; i++)
        for (int k = 0; k < p->funcs[i]->nlocals; k++)
            dyn |= p->funcs[i]->locals[k]->kind == VAR_DYNSHARED;
    outf(&E, "/* ---- CUDA ---- */");
    outf(&E, "%s", "");
    if (dyn) {
        outf(&E, "extern __shared__ __align__(16) unsigned char krt_dynshared[];");
        outf(&E, "%s", "");
    }
    for (int i = 0; i < p->nfuncs; i++)
        emit_cuda_func(&E, p->funcs[i]);
    emit_cpu_half(&E, true);
}

void emit_c(StrBuf *out, Program *p, const Options *opt)
{
    Emitter E;
    emitter_init(&E, out, p, opt);
    E.c_target = true;
    emit_prologue(&E, "C for kernc's CPU backend (kernc --target c), and the typed launchers.");
    emit_tuples(&E);
    emit_cpu_half(&E, false);
}

void emit_header(StrBuf *out, Program *p, const Options *opt)
{
    Emitter E;
    emitter_init(&E, out, p, opt);
    const char *mod = module_ident(E.path);
    char *guard = arena_printf("%s_KERN_H_", mod);
    for (char *g = guard; *g; g++)
        if (*g >= 'a' && *g <= 'z')
            *g = (char)(*g - 'a' + 'A');
    outf(&E, "/*");
    outf(&E, " * Generated by kernc from %s: do not edit.", path_base(E.path));
    outf(&E, " * One launcher per kernel: it checks the arguments against the kernel's");
    outf(&E, " * signature and launches it on the current backend (KRT_BACKEND).");
    outf(&E, " */");
    outf(&E, "#ifndef %s", guard);
    outf(&E, "#define %s", guard);
    outf(&E, "%s", "");
    outf(&E, "#include <kernrt.h>");
    outf(&E, "%s", "");
    outf(&E, "#ifdef __cplusplus");
    outf(&E, "extern \"C\" {");
    outf(&E, "#endif");
    outf(&E, "%s", "");
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        if (!f->is_kernel)
            continue;
        StrBuf sig = {0};
        for (int k = 0; k < f->nparams; k++)
            sb_printf(&sig, "%s%s", k ? ", " : "", ty_name(f->params[k]->type));
        outf(&E, "/* kernel %s: void(%s) */", f->name, sig.s ? sig.s : "");
        sb_free(&sig);
        outf(&E, "%s;", launcher_proto(f));
        outf(&E, "extern const krt_kernel %s__kernel;", fn_cname(f));
        outf(&E, "%s", "");
    }
    outf(&E, "extern const krt_module krt_module_%s;", mod);
    outf(&E, "%s", "");
    outf(&E, "#ifdef __cplusplus");
    outf(&E, "}");
    outf(&E, "#endif");
    outf(&E, "#endif /* %s */", guard);
}
