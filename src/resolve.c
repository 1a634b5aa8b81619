/*
 * resolve.c - the module level of a .kern file: imports, constants, the
 * decorated functions and their signatures; then analyze() drives type.c.
 *
 * A .kern file runs top to bottom under Python, so its module-level names
 * are bound in order: imports bind API paths ("np" -> numpy, f4 ->
 * float32), assignments bind constants folded here with Python's semantics
 * (int literal -> int64, float -> float64, bool; np.float32(x) keeps
 * float32), defs bind functions.  Kernel bodies see the final bindings, as
 * numba does when it compiles at the first launch.  Signatures come as
 * numba's strings ("void(float32[:], int32)", parsed by a small recursive
 * descent parser below, with errors pointing inside the string), as
 * expressions (void(float32[::1])), or as lists of either; --signature
 * overrides them.
 */
#include "kernc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static PtrVec globals;      /* Global*, in binding order; the last binding wins */
static PtrVec fdefs;        /* FuncDef*, in file order */

const Global *sema_global(const char *name)
{
    for (int i = globals.len - 1; i >= 0; i--) {
        Global *g = globals.items[i];
        if (strcmp(g->name, name) == 0)
            return g;
    }
    return NULL;
}

static Global *bind_global(GlobalKind kind, const char *name)
{
    Global *g = arena_alloc(sizeof *g);
    g->kind = kind;
    g->name = name;
    vec_push(&globals, g);
    return g;
}

/* Whether `name` is one of the space-separated words of `list`. */
static bool is_word_of(const char *name, const char *list)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len;
        p += *p == ' ';
    }
    return false;
}

/* numba and NumPy spellings of the types: a scalar type's name and aliases
 * (kernrt_types.h) give its name; bool_ is a type name of its own (API row
 * T_BOOL_, spelled so in messages), none is void. */
const char *sema_type_alias(const char *name)
{
    for (int k = 0; k < TY_NSCALAR; k++) {
        const ScalarInfo *info = &ty_scalar_info[k];
        if (strcmp(info->name, name) == 0 || is_word_of(name, info->aliases))
            return info->name;
    }
    if (strcmp(name, "bool_") == 0)
        return "bool_";
    if (strcmp(name, "void") == 0 || strcmp(name, "none") == 0)
        return "void";
    return NULL;
}

static Type *scalar_named(const char *canon)
{
    const ApiEntry *a = canon ? api_lookup(canon) : NULL;
    if (!a || a->kind != AK_TYPE)
        return NULL;
    if (strcmp(canon, "void") == 0)
        return ty_void;
    if (strcmp(canon, "bool_") == 0)
        return ty_bool;
    return ty_scalar_named(canon);
}

/* The canonical path of a name or attribute chain at module level (or in
 * a function, skipping its locals). */
static const char *path_of(const Node *e, bool (*is_local)(void *, const char *), void *ctx)
{
    if (e->kind == E_NAME) {
        if (is_local && is_local(ctx, e->name))
            return NULL;
        const Global *g = sema_global(e->name);
        if (g)
            return g->kind == GLOBAL_PATH ? g->path : NULL;
        const ApiEntry *a = api_lookup(e->name);
        return a && a->kind == AK_CALL ? e->name : NULL;
    }
    if (e->kind == E_ATTR) {
        const char *p = path_of(e->lhs, is_local, ctx);
        if (!p)
            return NULL;
        const char *full = arena_printf("%s.%s", p, e->name);
        if (strncmp(full, "numba.", 6) == 0)
            full += 6;
        if (strncmp(full, "np.", 3) == 0 && sema_type_alias(full + 3))
            return sema_type_alias(full + 3);
        if (strncmp(full, "types.", 6) == 0 && sema_type_alias(full + 6))
            return sema_type_alias(full + 6);
        if (!strchr(full, '.') && sema_type_alias(full))
            return sema_type_alias(full);
        return full;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Constant folding (Python semantics)                                 */
/* ------------------------------------------------------------------ */

/* A Python int while folding.  Intermediate values may leave the 64-bit
 * types (CPython computes 9223372036854775807 + 1 exactly, and numba then
 * types the literal 2**63 as uint64); 128 bits is also as far as CPython's
 * compiler folds (ast_opt.c, MAX_INT_SIZE).  A result that fits no 64-bit
 * integer type is an error where it becomes a constant, as in numba. */
typedef __int128 PyInt;
#define PYINT_BITS 128

/* A value during folding: a Python int, float, bool, a typed scalar made
 * by a cast such as np.float32(0.5), or a tuple (typed: an E_TUPLE of
 * constants). */
typedef struct Val {
    enum { V_INT, V_FLOAT, V_BOOL, V_TYPED, V_TUPLE } kind;
    PyInt i;
    double f;
    Node *typed;
} Val;

typedef struct Folder {
    bool report;
    bool (*is_local)(void *, const char *);
    void *ctx;
    bool literal;      /* a literal-only expression in a function: fold only
                          what CPython's compiler folds (see sema_fold_literal) */
    bool runtime;      /* literal: CPython leaves it to run time */
    bool too_large;    /* an int beyond what kernc or numba can hold */
    const char *why;   /* the first reason folding failed, and where */
    Loc why_loc;
} Folder;

static bool fold(Folder *F, Node *e, Val *out);

static bool fold_fail(Folder *F, Loc loc, const char *msg)
{
    if (F->report)
        sema_error(loc, "%s", msg);
    if (!F->why) {
        F->why = msg;
        F->why_loc = loc;
    }
    return false;
}

/* CPython's compiler does not fold this operation (a zero divisor, a
 * negative shift count, a result beyond its size limit): numba computes
 * it at run time with the types of its operands. */
static bool fold_runtime(Folder *F, Loc loc, const char *msg)
{
    if (F->literal) {
        F->runtime = true;
        return false;
    }
    return fold_fail(F, loc, msg);
}

static bool fold_too_large(Folder *F, Loc loc)
{
    F->too_large = true;
    return fold_fail(F, loc, "integer constant expression too large (beyond 128 bits)");
}

/* Bits of |v| (Python's int.bit_length()). */
static int pyint_bits(PyInt v)
{
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    int n = 0;
    while (m) {
        n++;
        m >>= 1;
    }
    return n;
}

/* The decimal digits of v, for messages. */
static const char *pyint_text(PyInt v)
{
    char buf[48], *p = buf + sizeof buf;
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    *--p = '\0';
    do {
        *--p = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    if (v < 0)
        *--p = '-';
    return arena_strdup(p);
}

/* numba types an int as int64, or uint64 from 2**63 to 2**64 - 1. */
static bool pyint_fits(PyInt v)
{
    return v >= INT64_MIN && v <= (PyInt)UINT64_MAX;
}

static Val val_of_const(const Node *k)
{
    Val v = {0};
    if (k->type == ty_int64) {
        v.kind = V_INT;
        v.i = (int64_t)k->ival;
    } else if (k->type == ty_float64) {
        v.kind = V_FLOAT;
        v.f = k->fval;
    } else if (k->type == ty_bool) {
        v.kind = V_BOOL;
        v.i = k->ival != 0;
    } else if (k->kind == E_TUPLE) {
        v.kind = V_TUPLE;
        v.typed = (Node *)k;
    } else {
        v.kind = V_TYPED;
        v.typed = (Node *)k;
    }
    return v;
}

/* NULL (an error, reported if F->report) for an int that fits no type. */
static Node *const_of_val(Folder *F, const Val *v, Loc loc)
{
    if (v->kind == V_TYPED || v->kind == V_TUPLE) {
        Node *k = node_clone(v->typed);
        k->loc = loc;
        return k;
    }
    if (v->kind == V_INT && !pyint_fits(v->i)) {
        F->too_large = true;
        fold_fail(F, loc, arena_printf("integer constant %s does not fit int64 or uint64",
                                       pyint_text(v->i)));
        return NULL;
    }
    Node *k = node_new(E_CONST, loc);
    switch (v->kind) {
    case V_INT:
        k->type = v->i > INT64_MAX ? ty_uint64 : ty_int64;
        k->ival = (uint64_t)v->i;
        break;
    case V_BOOL: k->type = ty_bool; k->ival = (uint64_t)v->i; break;
    default: k->type = ty_float64; k->fval = v->f; break;
    }
    return k;
}

static double py_fmod(double a, double b)
{
    double m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0)))
        m += b;
    return m;
}

static bool fold_binop(Folder *F, Node *e, Val a, Val b, Val *out)
{
    if (a.kind == V_TUPLE || b.kind == V_TUPLE)
        return fold_fail(F, e->loc, "arithmetic on tuples is not supported");
    if (a.kind == V_TYPED || b.kind == V_TYPED)
        return fold_fail(F, e->loc, "arithmetic on typed constants is not supported yet; "
                         "convert inside the kernel");
    bool isf = a.kind == V_FLOAT || b.kind == V_FLOAT;
    double fa = a.kind == V_FLOAT ? a.f : (double)a.i;
    double fb = b.kind == V_FLOAT ? b.f : (double)b.i;
    PyInt x = a.i, y = b.i, r;
    out->kind = V_INT;
    switch (e->op) {
    case OP_ADD: case OP_SUB: case OP_MUL:
        if (isf) {
            out->kind = V_FLOAT;
            out->f = e->op == OP_ADD ? fa + fb : e->op == OP_SUB ? fa - fb : fa * fb;
            return true;
        }
        /* CPython's safe_multiply */
        if (F->literal && e->op == OP_MUL && x && y &&
            pyint_bits(x) + pyint_bits(y) > PYINT_BITS)
            return fold_runtime(F, e->loc, "");
        if (e->op == OP_ADD ? __builtin_add_overflow(x, y, &r)
            : e->op == OP_SUB ? __builtin_sub_overflow(x, y, &r)
            : __builtin_mul_overflow(x, y, &r))
            return fold_too_large(F, e->loc);
        out->i = r;
        return true;
    case OP_DIV:
        if (fb == 0)
            return fold_runtime(F, e->loc, "division by zero in a constant expression");
        out->kind = V_FLOAT;
        out->f = fa / fb;
        return true;
    case OP_FLOORDIV: case OP_MOD:
        if (isf ? fb == 0 : y == 0)
            return fold_runtime(F, e->loc, "division by zero in a constant expression");
        if (isf) {
            double m = py_fmod(fa, fb);
            out->kind = V_FLOAT;
            /* CPython's float_floor_div: (a - a mod b) / b is integral */
            out->f = e->op == OP_MOD ? m : round((fa - m) / fb);
            return true;
        }
        if (y == -1 && x == -x && x != 0)   /* the one quotient that overflows */
            return fold_too_large(F, e->loc);
        {
            PyInt q = x / y, m = x % y;
            if (m != 0 && ((m < 0) != (y < 0))) {
                q--;
                m += y;
            }
            out->i = e->op == OP_MOD ? m : q;
        }
        return true;
    case OP_POW:
        if (!isf && y < 0 && x == 0)
            return fold_runtime(F, e->loc, "0 cannot be raised to a negative power");
        if (isf || y < 0) {
            out->kind = V_FLOAT;
            out->f = pow(fa, fb);
            return true;
        }
        /* CPython's safe_power */
        if (F->literal && x && y > 0 && pyint_bits(x) > PYINT_BITS / y)
            return fold_runtime(F, e->loc, "");
        if (x == 0 || x == 1 || y == 0) {
            out->i = y == 0 ? 1 : x;
            return true;
        }
        if (x == -1) {
            out->i = y % 2 ? -1 : 1;
            return true;
        }
        if (y >= PYINT_BITS)                 /* |x| >= 2: certainly too large */
            return fold_too_large(F, e->loc);
        r = 1;
        for (PyInt k = 0; k < y; k++)
            if (__builtin_mul_overflow(r, x, &r))
                return fold_too_large(F, e->loc);
        out->i = r;
        return true;
    case OP_LSHIFT: case OP_RSHIFT: case OP_BITAND: case OP_BITOR: case OP_BITXOR:
        if (isf)
            return fold_fail(F, e->loc, "bitwise operation on a float constant");
        if (a.kind == V_BOOL && b.kind == V_BOOL &&
            (e->op == OP_BITAND || e->op == OP_BITOR || e->op == OP_BITXOR))
            out->kind = V_BOOL;
        if (e->op == OP_BITAND) out->i = x & y;
        else if (e->op == OP_BITOR) out->i = x | y;
        else if (e->op == OP_BITXOR) out->i = x ^ y;
        else if (y < 0)
            return fold_runtime(F, e->loc, "negative shift count");
        else if (e->op == OP_RSHIFT)
            out->i = y >= PYINT_BITS - 1 ? (x < 0 ? -1 : 0) : x >> y;
        else if (x == 0)
            out->i = 0;
        else if (F->literal && (y > PYINT_BITS || pyint_bits(x) > PYINT_BITS - y))
            return fold_runtime(F, e->loc, "");    /* CPython's safe_lshift */
        else if (y >= PYINT_BITS - 1 || pyint_bits(x) > PYINT_BITS - 1 - y)
            return fold_too_large(F, e->loc);
        else
            out->i = x * ((PyInt)1 << y);
        return true;
    default:
        return fold_fail(F, e->loc, "this operator is not allowed in a constant expression");
    }
}

/* int(x), float(x), bool(x), float32(x), np.int32(x) of a constant. */
static bool fold_cast(Folder *F, Node *e, const char *path, Val *out)
{
    if (e->args.len != 1 || e->kwargs.len)
        return fold_fail(F, e->loc, "a conversion takes one argument");
    Val a;
    if (!fold(F, e->args.items[0], &a))
        return false;
    if (a.kind == V_TUPLE)
        return fold_fail(F, e->args.items[0]->loc, "a tuple cannot be converted to a number");
    if (strcmp(path, "int") == 0 && a.kind != V_FLOAT && a.kind != V_TYPED) {
        out->kind = V_INT;   /* int(7), int(True): a Python int, of any size */
        out->i = a.i;
        return true;
    }
    Node *k = const_of_val(F, &a, e->loc);
    if (!k)
        return false;
    double f = ty_is_float(k->type) ? k->fval
             : ty_is_signed(k->type) ? (double)(int64_t)k->ival : (double)k->ival;
    bool isf = ty_is_float(k->type);
    if (strcmp(path, "int") == 0) {
        if (isf && !(f > -9223372036854775808.0 && f < 9223372036854775808.0))
            return fold_fail(F, e->loc, "integer constant overflows int64");
        out->kind = V_INT;
        out->i = isf ? (PyInt)(int64_t)f
               : ty_is_signed(k->type) ? (PyInt)(int64_t)k->ival : (PyInt)k->ival;
        return true;
    }
    if (strcmp(path, "float") == 0) {
        out->kind = V_FLOAT;
        out->f = f;
        return true;
    }
    if (strcmp(path, "bool") == 0) {
        out->kind = V_BOOL;
        out->i = isf ? f != 0 : k->ival != 0;
        return true;
    }
    Type *t = scalar_named(path);
    if (!t || t == ty_void)
        return fold_fail(F, e->loc, "this call is not a constant expression");
    Node *r = node_new(E_CONST, e->loc);
    r->type = t;
    if (t == ty_bool) {
        r->ival = isf ? f != 0 : k->ival != 0;
    } else if (ty_is_float(t)) {
        r->fval = t == ty_float32 ? (double)(float)f : f;
    } else if (isf) {
        if (!(f > -9223372036854775808.0 && f < 18446744073709551616.0))
            return fold_fail(F, e->loc, "constant out of range of the integer type");
        r->ival = f < 0 ? (uint64_t)(int64_t)f : (uint64_t)f;
    } else {
        r->ival = k->ival;
    }
    if (ty_is_int(t)) {   /* wrap to the width, as NumPy's casts do */
        int bitsz = ty_size(t) * 8;
        if (bitsz < 64) {
            uint64_t m = (UINT64_C(1) << bitsz) - 1;
            uint64_t v = r->ival & m;
            if (ty_is_signed(t) && (v >> (bitsz - 1)))
                v |= ~m;
            r->ival = v;
        }
    }
    *out = val_of_const(r);
    if (t == ty_int64 || t == ty_float64 || t == ty_bool) {
        out->kind = V_TYPED;   /* np.int64(3) stays a typed constant */
        out->typed = r;
    }
    return true;
}

static bool fold(Folder *F, Node *e, Val *out)
{
    switch (e->kind) {
    case E_INT:   /* a Python int; 2**63 and above become uint64 constants */
        out->kind = V_INT;
        out->i = (PyInt)e->ival;
        return true;
    case E_FLOAT:
        out->kind = V_FLOAT;
        out->f = e->fval;
        return true;
    case E_BOOL:
        out->kind = V_BOOL;
        out->i = e->ival != 0;
        return true;
    case E_CONST:
        *out = val_of_const(e);
        return true;
    case E_NAME: {
        if (F->is_local && F->is_local(F->ctx, e->name))
            return fold_fail(F, e->loc, "a local variable is not a compile-time constant");
        const Global *g = sema_global(e->name);
        if (g && g->kind == GLOBAL_CONST) {
            *out = val_of_const(g->value);
            return true;
        }
        if (!g && !api_lookup(e->name))
            return fold_fail(F, e->loc, arena_printf("name '%s' is not defined", e->name));
        return fold_fail(F, e->loc, arena_printf("'%s' is not a constant", e->name));
    }
    case E_ATTR: {
        const char *p = path_of(e, F->is_local, F->ctx);
        if (p && strcmp(p, "math.pi") == 0) { out->kind = V_FLOAT; out->f = 3.141592653589793; return true; }
        if (p && strcmp(p, "math.e") == 0) { out->kind = V_FLOAT; out->f = 2.718281828459045; return true; }
        if (p && strcmp(p, "math.inf") == 0) { out->kind = V_FLOAT; out->f = INFINITY; return true; }
        if (p && strcmp(p, "math.nan") == 0) { out->kind = V_FLOAT; out->f = NAN; return true; }
        return fold_fail(F, e->loc, "not a compile-time constant");
    }
    case E_UNARY: {
        Val a;
        if (!fold(F, e->lhs, &a))
            return false;
        if (a.kind == V_TUPLE)
            return fold_fail(F, e->loc, "arithmetic on tuples is not supported");
        if (a.kind == V_TYPED)
            return fold_fail(F, e->loc, "arithmetic on typed constants is not supported yet; "
                             "convert inside the kernel");
        switch (e->op) {
        case OP_NOT:
            out->kind = V_BOOL;
            out->i = a.kind == V_FLOAT ? a.f == 0 : a.i == 0;
            return true;
        case OP_POS: case OP_NEG:
            if (a.kind == V_FLOAT) {
                out->kind = V_FLOAT;
                out->f = e->op == OP_NEG ? -a.f : a.f;
                return true;
            }
            out->kind = V_INT;
            if (e->op == OP_NEG && __builtin_sub_overflow((PyInt)0, a.i, &out->i))
                return fold_too_large(F, e->loc);
            if (e->op == OP_POS)
                out->i = a.i;
            return true;
        case OP_INVERT:
            if (a.kind == V_FLOAT)
                return fold_fail(F, e->loc, "bad operand type for unary ~: float");
            out->kind = V_INT;
            out->i = ~a.i;
            return true;
        default:
            return fold_fail(F, e->loc, "not a compile-time constant");
        }
    }
    case E_BINOP: {
        Val a, b;
        if (!fold(F, e->lhs, &a) || !fold(F, e->rhs, &b))
            return false;
        return fold_binop(F, e, a, b, out);
    }
    case E_TUPLE: {
        /* (1, 2.5, True): a tuple of constants, typed element by element
         * as numba types a global tuple */
        Node *t = node_new(E_TUPLE, e->loc);
        Type **el = arena_alloc(sizeof *el * (size_t)(e->args.len ? e->args.len : 1));
        for (int i = 0; i < e->args.len; i++) {
            Val v;
            if (!fold(F, e->args.items[i], &v))
                return false;
            Node *k = const_of_val(F, &v, ((Node *)e->args.items[i])->loc);
            if (!k)
                return false;
            nl_push(&t->args, k);
            el[i] = k->type;
        }
        t->type = ty_tuple(el, e->args.len);
        out->kind = V_TUPLE;
        out->typed = t;
        return true;
    }
    case E_SUBSCRIPT: {   /* T[i] of a constant tuple */
        Val t, i;
        if (!fold(F, e->lhs, &t))
            return false;
        if (t.kind != V_TUPLE)
            return fold_fail(F, e->lhs->loc, "only a tuple can be indexed in a constant "
                             "expression");
        if (e->rhs->kind == E_SLICE || !fold(F, e->rhs, &i) ||
            (i.kind != V_INT && i.kind != V_BOOL))
            return fold_fail(F, e->rhs->loc, "a tuple index must be an integer constant");
        int n = t.typed->args.len;
        PyInt k = i.i < 0 ? i.i + n : i.i;
        if (k < 0 || k >= n)
            return fold_fail(F, e->rhs->loc, "tuple index out of range");
        *out = val_of_const(t.typed->args.items[k]);
        return true;
    }
    case E_CALL: {
        const char *p = path_of(e->lhs, F->is_local, F->ctx);
        if (p && strcmp(p, "len") == 0 && e->args.len == 1 && !e->kwargs.len) {
            Val t;
            if (!fold(F, e->args.items[0], &t))
                return false;
            if (t.kind != V_TUPLE)
                return fold_fail(F, e->loc, "len() of a number");
            out->kind = V_INT;
            out->i = t.typed->args.len;
            return true;
        }
        if (p && (strcmp(p, "int") == 0 || strcmp(p, "float") == 0 ||
                  strcmp(p, "bool") == 0 || scalar_named(p)))
            return fold_cast(F, e, p, out);
        return fold_fail(F, e->loc, "this call is not a compile-time constant");
    }
    default:
        return fold_fail(F, e->loc, "not a compile-time constant");
    }
}

Node *sema_fold(Node *e, bool report, bool (*is_local)(void *, const char *), void *ctx)
{
    Folder F = {.report = report, .is_local = is_local, .ctx = ctx};
    Val v;
    if (!fold(&F, e, &v))
        return NULL;
    return const_of_val(&F, &v, e->loc);
}

Node *sema_fold_literal(Node *e, bool report, bool *runtime)
{
    Folder F = {.literal = true};
    Val v;
    Node *k = fold(&F, e, &v) ? const_of_val(&F, &v, e->loc) : NULL;
    /* Other failures (1.5 & 2) are left to the typing of the operation,
     * which says what is wrong with it. */
    *runtime = !k && !F.too_large;
    if (!k && F.too_large && report)
        sema_error(F.why_loc, "%s", F.why);
    return k;
}

/* ------------------------------------------------------------------ */
/* Signatures                                                          */
/* ------------------------------------------------------------------ */

/* sig   := [type] '(' [type {',' type}] ')'
 * type  := name {'.' name} ['[' dim {',' dim} ']']
 * dim   := ':' | '::1'          ('::1' on the last dimension: C layout) */
typedef struct SigParser {
    const char *s;
    size_t pos;
    Loc base;          /* the string literal; no location for --signature */
    bool has_loc;
    const char *who;   /* "--signature k" */
    bool failed;
} SigParser;

static void sig_error(SigParser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sig_error(SigParser *P, const char *fmt, ...)
{
    if (P->failed)
        return;
    P->failed = true;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (P->has_loc) {
        Loc l = P->base;
        /* the column inside a one-line literal: after its opening quote */
        l.first_column = P->base.first_column + 1 + (int)P->pos;
        l.last_line = l.first_line;
        l.last_column = l.first_column;
        sema_error(l, "bad signature: %s", buf);
    } else {
        sema_error((Loc){0}, "%s: bad signature '%s': %s (at offset %zu)", P->who, P->s, buf,
                   P->pos);
    }
}

static void sig_space(SigParser *P)
{
    while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t')
        P->pos++;
}

static bool sig_accept(SigParser *P, char ch)
{
    sig_space(P);
    if (P->s[P->pos] == ch) {
        P->pos++;
        return true;
    }
    return false;
}

/* numba.cuda.random's states: xoroshiro128p_type only as the element type
 * of a 1-D array (the kernel indexes states[index] with one integer). */
#define RNG_SCALAR_MSG "xoroshiro128p_type is only allowed as the element type of an " \
    "array of states (xoroshiro128p_type[:])"
#define RNG_NDIM_MSG "an array of xoroshiro128p states must be 1-D (xoroshiro128p_type[:])"

static Type *sig_type(SigParser *P, bool allow_void)
{
    sig_space(P);
    size_t start = P->pos;
    while (P->s[P->pos] && (P->s[P->pos] == '_' || P->s[P->pos] == '.' ||
                            (P->s[P->pos] >= 'a' && P->s[P->pos] <= 'z') ||
                            (P->s[P->pos] >= 'A' && P->s[P->pos] <= 'Z') ||
                            (P->s[P->pos] >= '0' && P->s[P->pos] <= '9')))
        P->pos++;
    if (P->pos == start) {
        sig_error(P, "expected a type name");
        return NULL;
    }
    const char *name = arena_strndup(P->s + start, P->pos - start);
    const char *base = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    Type *t = strcmp(base, "xoroshiro128p_type") == 0 ? ty_rngstate
                                                      : scalar_named(sema_type_alias(base));
    if (!t) {
        size_t save = P->pos;
        P->pos = start;
        sig_error(P, "unknown type '%s'", name);
        P->pos = save;
        return NULL;
    }
    if (t == ty_void && !allow_void) {
        P->pos = start;
        sig_error(P, "'void' is only allowed as the return type");
        return NULL;
    }
    if (!sig_accept(P, '[')) {
        if (t == ty_rngstate) {
            P->pos = start;
            sig_error(P, "%s", RNG_SCALAR_MSG);
            return NULL;
        }
        return t;
    }
    if (t == ty_void) {
        sig_error(P, "an array of void");
        return NULL;
    }
    int ndim = 0;
    bool contig = false;
    do {
        if (!sig_accept(P, ':')) {
            sig_error(P, "expected ':' or '::1' in an array type");
            return NULL;
        }
        ndim++;
        if (sig_accept(P, ':')) {
            sig_space(P);
            if (P->s[P->pos] != '1') {
                sig_error(P, "expected '1' after '::'");
                return NULL;
            }
            P->pos++;
            contig = true;
            sig_space(P);
            if (P->s[P->pos] == ',') {
                sig_error(P, "'::1' on a dimension other than the last (Fortran layout) "
                          "is not supported");
                return NULL;
            }
        }
    } while (sig_accept(P, ','));
    if (!sig_accept(P, ']')) {
        sig_error(P, "expected ']'");
        return NULL;
    }
    if (ndim > 3) {
        sig_error(P, "arrays of more than 3 dimensions are not supported");
        return NULL;
    }
    if (t == ty_rngstate && ndim != 1) {
        P->pos = start;
        sig_error(P, "%s", RNG_NDIM_MSG);
        return NULL;
    }
    return ty_array(t, ndim, contig, SPACE_GLOBAL);
}

static bool sig_parse_string(SigParser *P, Signature *out)
{
    sig_space(P);
    Type *ret = ty_void;
    if (P->s[P->pos] != '(') {
        ret = sig_type(P, true);
        if (!ret)
            return false;
        if (ret->kind == TY_ARRAY) {
            sig_error(P, "returning an array is not supported");
            return false;
        }
    }
    if (!sig_accept(P, '(')) {
        sig_error(P, "expected '(' after the return type");
        return false;
    }
    PtrVec params = {0};
    if (!sig_accept(P, ')')) {
        do {
            Type *t = sig_type(P, false);
            if (!t)
                return false;
            vec_push(&params, t);
        } while (sig_accept(P, ','));
        if (!sig_accept(P, ')')) {
            sig_error(P, "expected ',' or ')'");
            return false;
        }
    }
    sig_space(P);
    if (P->s[P->pos]) {
        sig_error(P, "unexpected text after the signature");
        return false;
    }
    out->ret = ret;
    out->params = (Type **)params.items;
    out->nparams = params.len;
    return true;
}

/* float32, np.float32, float32[:], float32[:, ::1] written as an expression */
static Type *sig_type_expr(Node *e, bool allow_void)
{
    Node *base = e->kind == E_SUBSCRIPT ? e->lhs : e;
    const char *p = path_of(base, NULL, NULL);
    Type *t = p && strcmp(p, "cuda.random.xoroshiro128p_type") == 0 ? ty_rngstate
            : p ? scalar_named(p) : NULL;
    if (t == ty_rngstate && e->kind != E_SUBSCRIPT) {
        sema_error(base->loc, RNG_SCALAR_MSG);
        return NULL;
    }
    if (!t) {
        sema_error(base->loc, "expected a type such as float32 or float32[:]");
        return NULL;
    }
    if (t == ty_void && (!allow_void || e->kind == E_SUBSCRIPT)) {
        sema_error(base->loc, "'void' is only allowed as the return type");
        return NULL;
    }
    if (e->kind != E_SUBSCRIPT)
        return t;
    Node *idx = e->rhs;
    int ndim = idx->kind == E_TUPLE ? idx->args.len : 1;
    Node **dims = idx->kind == E_TUPLE ? idx->args.items : &e->rhs;
    bool contig = false;
    for (int i = 0; i < ndim; i++) {
        Node *d = dims[i];
        if (d->kind != E_SLICE || d->lhs || d->rhs ||
            (d->cond && !(d->cond->kind == E_INT && d->cond->ival == 1))) {
            sema_error(d->loc, "expected ':' or '::1' in an array type");
            return NULL;
        }
        if (d->cond) {
            if (i != ndim - 1) {
                sema_error(d->loc, "'::1' on a dimension other than the last (Fortran "
                           "layout) is not supported");
                return NULL;
            }
            contig = true;
        }
    }
    if (ndim > 3) {
        sema_error(idx->loc, "arrays of more than 3 dimensions are not supported");
        return NULL;
    }
    if (t == ty_rngstate && ndim != 1) {
        sema_error(idx->loc, RNG_NDIM_MSG);
        return NULL;
    }
    return ty_array(t, ndim, contig, SPACE_GLOBAL);
}

/* A signature's parameter types from type expressions, and ret. */
static bool sig_param_exprs(const NodeList *args, Type *ret, Signature *out)
{
    PtrVec params = {0};
    for (int i = 0; i < args->len; i++) {
        Type *t = sig_type_expr(args->items[i], false);
        if (!t)
            return false;
        vec_push(&params, t);
    }
    out->ret = ret;
    out->params = (Type **)params.items;
    out->nparams = params.len;
    return true;
}

/* One signature written as a string or an expression. */
static bool sig_from_node(Node *e, Signature *out)
{
    if (e->kind == E_STR) {
        SigParser P = {.s = e->text, .base = e->loc, .has_loc = true};
        return sig_parse_string(&P, out);
    }
    if (e->kind == E_CALL) {
        Type *ret = sig_type_expr(e->lhs, true);
        if (!ret)
            return false;
        if (e->kwargs.len) {
            sema_error(((Node *)e->kwargs.items[0])->loc, "keyword arguments in a signature");
            return false;
        }
        return sig_param_exprs(&e->args, ret, out);
    }
    if (e->kind == E_TUPLE)   /* argument types only: (float32[:], int32) */
        return sig_param_exprs(&e->args, ty_void, out);
    sema_error(e->loc, "expected a signature such as \"void(float32[:], int32)\"");
    return false;
}

/* ufunc.c: the signatures of @vectorize/@guvectorize. */
bool sema_signature(Node *e, Signature *out)
{
    return sig_from_node(e, out);
}

/* ------------------------------------------------------------------ */
/* Module level                                                        */
/* ------------------------------------------------------------------ */

static void add_sig(FuncDef *fd, const Signature *s)
{
    Signature *sigs = arena_alloc(sizeof *sigs * (size_t)(fd->nsigs + 1));
    if (fd->nsigs)
        memcpy(sigs, fd->sigs, sizeof *sigs * (size_t)fd->nsigs);
    sigs[fd->nsigs++] = *s;
    fd->sigs = sigs;
}

static void bind_path(const char *name, const char *path)
{
    bind_global(GLOBAL_PATH, name)->path = path;
}

/* ufunc.c: the names its generated kernels use for cuda and the types. */
void sema_bind_path(const char *name, const char *path)
{
    bind_path(name, path);
}

static void resolve_import(Node *s)
{
    for (int i = 0; i < s->names.len; i++) {
        Node *a = s->names.items[i];
        const char *mod = a->name, *as = a->text;
        const char *path = NULL;
        if (strcmp(mod, "math") == 0) path = "math";
        else if (strcmp(mod, "numpy") == 0) path = "np";
        else if (strcmp(mod, "numba") == 0) path = "numba";
        else if (strcmp(mod, "numba.cuda") == 0) path = as ? "cuda" : "numba";
        else if (strcmp(mod, "numba.cuda.random") == 0) path = as ? "cuda.random" : "numba";
        else {
            sema_error(a->loc, "import of module '%s' is not supported", mod);
            continue;
        }
        /* `import numba.cuda` binds "numba", as Python does */
        bind_path(as ? as : strncmp(mod, "numba.", 6) == 0 ? "numba" : mod, path);
    }
}

static void resolve_fromimport(Node *s)
{
    const char *mod = s->text;
    for (int i = 0; i < s->names.len; i++) {
        Node *a = s->names.items[i];
        const char *name = a->name, *as = a->text ? a->text : a->name;
        const char *path = NULL;
        if (strcmp(name, "*") == 0) {
            sema_error(a->loc, "'from %s import *' is not supported", mod);
            continue;
        }
        if (strcmp(mod, "numba") == 0 || strcmp(mod, "numba.types") == 0 ||
            strcmp(mod, "numpy") == 0) {
            if (sema_type_alias(name))
                path = sema_type_alias(name);
            else if (strcmp(mod, "numba") == 0 && strcmp(name, "cuda") == 0)
                path = "cuda";
            else if (strcmp(mod, "numba") == 0 &&
                     (strcmp(name, "vectorize") == 0 || strcmp(name, "guvectorize") == 0))
                path = name;
        } else if (strcmp(mod, "numba.cuda") == 0) {
            const char *p = arena_printf("cuda.%s", name);
            if (api_lookup(p) || strcmp(name, "jit") == 0)
                path = p;
        } else if (strcmp(mod, "numba.cuda.random") == 0) {
            const char *p = arena_printf("cuda.random.%s", name);
            if (api_lookup(p))
                path = p;

        } else if (strcmp(mod, "math") == 0) {
            const char *p = arena_printf("math.%s", name);
            if (api_lookup(p))
                path = p;
        } else {
            sema_error(s->loc, "import from module '%s' is not supported", mod);
            return;
        }
        if (!path) {
            sema_error(a->loc, "importing '%s' from %s is not supported", name, mod);
            continue;
        }
        bind_path(as, path);
    }
}

/* ---- module-level arrays: C = np.array(((1, 2), (3, 4)), dtype=np.float32) ----
 * numba freezes a global NumPy array into the kernel as constant data; the
 * values are folded here, in C order, with NumPy's dtype rule when none is
 * given (Python ints -> int64, any float -> float64, all bools -> bool). */

typedef struct ArrayFold {
    PtrVec vals;          /* Node* E_CONST leaves, C order */
    int64_t shape[3];
    int ndim;             /* -1 until the first leaf fixes it */
    bool ok;
} ArrayFold;

static void array_fold(ArrayFold *A, Node *e, int depth)
{
    if (!A->ok)
        return;
    Node *items = NULL;
    if (e->kind == E_LIST || e->kind == E_TUPLE) {
        items = e;
    } else if (e->kind == E_NAME) {
        const Global *g = sema_global(e->name);
        if (g && g->kind == GLOBAL_CONST && g->value->kind == E_TUPLE)
            items = g->value;
    }
    if (!items) {   /* a leaf */
        if (A->ndim < 0)
            A->ndim = depth;
        if (depth != A->ndim) {
            sema_error(e->loc, "the rows of an array constant must all have the same length");
            A->ok = false;
            return;
        }
        Node *k = sema_fold(e, true, NULL, NULL);
        if (!k || !ty_is_scalar(k->type)) {
            if (k)
                sema_error(e->loc, "an array constant holds numbers");
            A->ok = false;
            return;
        }
        vec_push(&A->vals, k);
        return;
    }
    if (depth >= 3) {
        sema_error(e->loc, "array constants of more than 3 dimensions are not supported");
        A->ok = false;
        return;
    }
    int n = items->args.len;
    if (A->ndim >= 0 && depth >= A->ndim) {
        sema_error(e->loc, "the rows of an array constant must all have the same length");
        A->ok = false;
        return;
    }
    if (A->shape[depth] < 0)
        A->shape[depth] = n;
    else if (A->shape[depth] != n) {
        sema_error(e->loc, "the rows of an array constant must all have the same length");
        A->ok = false;
        return;
    }
    if (n == 0) {
        sema_error(e->loc, "an empty array constant");
        A->ok = false;
        return;
    }
    for (int i = 0; i < n; i++)
        array_fold(A, items->args.items[i], depth + 1);
}

/* A scalar constant converted as NumPy's array constructor does. */
static Node *array_elem(Node *k, Type *t)
{
    Node *r = node_new(E_CONST, k->loc);
    r->type = t;
    bool isf = ty_is_float(k->type);
    double f = isf ? k->fval : ty_is_signed(k->type) ? (double)(int64_t)k->ival : (double)k->ival;
    if (t == ty_bool) {
        r->ival = isf ? f != 0 : k->ival != 0;
    } else if (ty_is_float(t)) {
        r->fval = t == ty_float32 ? (double)(float)f : f;
    } else {
        if (isf && !(f > -9223372036854775808.0 && f < 18446744073709551616.0)) {
            sema_error(k->loc, "constant out of range of %s", ty_name(t));
            return NULL;
        }
        uint64_t v = isf ? (f < 0 ? (uint64_t)(int64_t)f : (uint64_t)f) : k->ival;
        int bits = ty_size(t) * 8;
        if (bits < 64) {
            uint64_t m = (UINT64_C(1) << bits) - 1;
            v &= m;
            if (ty_is_signed(t) && (v >> (bits - 1)))
                v |= ~m;
        }
        r->ival = v;
    }
    return r;
}

static void resolve_array_constant(const char *name, Node *call)
{
    Node *data = call->args.len > 0 ? call->args.items[0] : NULL;
    Node *dtype = call->args.len > 1 ? call->args.items[1] : NULL;
    if (call->args.len > 2) {
        sema_error(((Node *)call->args.items[2])->loc, "np.array() takes the data and a dtype");
        return;
    }
    for (int i = 0; i < call->kwargs.len; i++) {
        Node *kw = call->kwargs.items[i];
        if (strcmp(kw->name, "dtype") == 0 && !dtype) {
            dtype = kw->lhs;
        } else {
            sema_error(kw->loc, "unsupported keyword argument '%s' in np.array()", kw->name);
            return;
        }
    }
    if (!data) {
        sema_error(call->loc, "np.array() needs the data");
        return;
    }
    Type *elem = NULL;
    if (dtype) {
        const char *p = dtype->kind == E_STR ? sema_type_alias(dtype->text)
                                             : path_of(dtype, NULL, NULL);
        if (p && strcmp(p, "float") == 0)
            p = "float64";
        else if (p && strcmp(p, "int") == 0)
            p = "int64";
        else if (p && strcmp(p, "bool") == 0)
            p = "boolean";
        elem = p ? scalar_named(p) : NULL;
        if (!elem || elem == ty_void) {
            sema_error(dtype->loc, "the dtype of an array constant must be a scalar type "
                       "such as np.float32");
            return;
        }
    }
    Node *flat;
    int64_t shape[3];
    if (!sema_const_array(data, elem, &flat, shape))
        return;
    Global *g = bind_global(GLOBAL_ARRAY, name);
    g->value = flat;
    memcpy(g->shape, shape, sizeof shape);
}

bool sema_const_array(Node *data, Type *elem, Node **flat_out, int64_t shape[3])
{
    ArrayFold A = {.ndim = -1, .ok = true, .shape = {-1, -1, -1}};
    array_fold(&A, data, 0);
    if (!A.ok)
        return false;
    if (A.ndim == 0) {
        sema_error(data->loc, "an array constant needs a sequence of numbers");
        return false;
    }
    if (!elem) {
        bool any_float = false, all_bool = true;
        for (int i = 0; i < A.vals.len; i++) {
            Type *t = ((Node *)A.vals.items[i])->type;
            any_float |= ty_is_float(t);
            all_bool &= t == ty_bool;
        }
        elem = any_float ? ty_float64 : all_bool ? ty_bool : ty_int64;
    }
    Node *flat = node_new(E_TUPLE, data->loc);
    for (int i = 0; i < A.vals.len; i++) {
        Node *k = array_elem(A.vals.items[i], elem);
        if (!k)
            return false;
        nl_push(&flat->args, k);
    }
    flat->type = ty_array(elem, A.ndim, true, SPACE_CONST);
    for (int i = 0; i < 3; i++)
        shape[i] = i < A.ndim ? A.shape[i] : 0;
    *flat_out = flat;
    return true;
}

/* A module-level function (a def, or a cuda.reduce lambda made one):
 * listed in file order and bound to its name. */
static void add_funcdef(Node *def)
{
    FuncDef *fd = arena_alloc(sizeof *fd);
    fd->name = def->name;
    fd->def = def;
    vec_push(&fdefs, fd);
    bind_global(GLOBAL_FUNC, def->name)->fn = fd;
}

static void resolve_constant(Node *s)
{
    Node *t = s->args.items[0];
    if (s->rhs->kind == E_CALL) {
        const char *p = path_of(s->rhs->lhs, NULL, NULL);
        if (p && strcmp(p, "cuda.reduce") == 0) {   /* ufunc.c: a lambda becomes a def */
            Node *def = ufunc_reduce_lambda(t->name, s->rhs);
            if (def)
                add_funcdef(def);
            return;
        }
        if (p && (strcmp(p, "np.array") == 0 || strcmp(p, "np.asarray") == 0)) {
            resolve_array_constant(t->name, s->rhs);
            return;
        }
    }
    Folder F = {0};
    Val v;
    Node *k = fold(&F, s->rhs, &v) ? const_of_val(&F, &v, s->rhs->loc) : NULL;
    if (!k) {
        /* say why, at the part that is not constant */
        sema_error(F.why_loc, "module-level name '%s' must be a compile-time constant: %s",
                   t->name, F.why);
        return;
    }
    bind_global(GLOBAL_CONST, t->name)->value = k;
}

static bool opt_bool(Node *kw, bool *out)
{
    Node *k = sema_fold(kw->lhs, false, NULL, NULL);
    if (!k || (k->type != ty_bool && !ty_is_int(k->type))) {
        sema_error(kw->lhs->loc, "option '%s' must be True or False", kw->name);
        return false;
    }
    *out = k->ival != 0;
    return true;
}

static void resolve_decorator(FuncDef *fd)
{
    Node *def = fd->def;
    if (def->decorators.len == 0) {
        sema_error(def->loc, "function '%s' has no @cuda.jit decorator (plain Python "
                   "functions are not supported)", def->name);
        return;
    }
    if (def->decorators.len > 1) {
        sema_error(((Node *)def->decorators.items[1])->loc,
                   "only one decorator per function is supported");
        return;
    }
    Node *d = def->decorators.items[0];
    Node *call = d->kind == E_CALL ? d : NULL;
    const char *p = path_of(call ? d->lhs : d, NULL, NULL);
    if (p && (strcmp(p, "vectorize") == 0 || strcmp(p, "guvectorize") == 0 ||
              strcmp(p, "cuda.reduce") == 0)) {
        ufunc_decorator(fd, d);   /* ufunc.c */
        return;
    }
    if (!p || strcmp(p, "cuda.jit") != 0) {
        sema_error(d->loc, "unsupported decorator; kernels and device functions use "
                   "@cuda.jit");
        return;
    }
    fd->is_kernel = true;
    Node *sigs = NULL;
    if (call) {
        if (call->args.len > 1) {
            sema_error(((Node *)call->args.items[1])->loc,
                       "@cuda.jit takes at most one positional argument (the signatures)");
            return;
        }
        if (call->args.len == 1)
            sigs = call->args.items[0];
        for (int i = 0; i < call->kwargs.len; i++) {
            Node *kw = call->kwargs.items[i];
            bool b;
            if (strcmp(kw->name, "device") == 0) {
                if (opt_bool(kw, &b))
                    fd->opt.device = b, fd->is_kernel = !b;
            } else if (strcmp(kw->name, "fastmath") == 0) {
                if (opt_bool(kw, &b)) fd->opt.fastmath = b;
            } else if (strcmp(kw->name, "lineinfo") == 0) {
                if (opt_bool(kw, &b)) fd->opt.lineinfo = b;
            } else if (strcmp(kw->name, "debug") == 0) {
                if (opt_bool(kw, &b)) fd->opt.debug = b;
            } else if (strcmp(kw->name, "cache") == 0) {
                if (opt_bool(kw, &b)) fd->opt.cache = b;
            } else if (strcmp(kw->name, "opt") == 0) {
                if (opt_bool(kw, &b)) fd->opt.opt = b, fd->opt.opt_set = true;
            } else if (strcmp(kw->name, "inline") == 0) {
                if (kw->lhs->kind == E_STR) {   /* numba: 'always' / 'never' */
                    if (strcmp(kw->lhs->text, "always") == 0) fd->opt.inline_ = true;
                    else if (strcmp(kw->lhs->text, "never") != 0)
                        sema_error(kw->lhs->loc, "inline must be 'always', 'never' or a bool");
                } else if (opt_bool(kw, &b)) {
                    fd->opt.inline_ = b;
                }
            } else if (strcmp(kw->name, "max_registers") == 0) {
                Node *k = sema_fold(kw->lhs, false, NULL, NULL);
                if (!k || !ty_is_int(k->type) || (int64_t)k->ival <= 0 ||
                    (int64_t)k->ival > 255)
                    sema_error(kw->lhs->loc, "max_registers must be an integer from 1 to 255");
                else
                    fd->opt.max_registers = (int)k->ival;
            } else if (strcmp(kw->name, "link") == 0) {
                sema_error(kw->loc, "@cuda.jit option 'link' (linking external PTX or CUDA "
                           "code) is not supported");
            } else if (strcmp(kw->name, "boundscheck") == 0) {
                sema_error(kw->loc, "@cuda.jit option 'boundscheck' is not supported (numba "
                           "refuses it on CUDA); use debug=True or kernc -g");
            } else {
                sema_error(kw->loc, "unknown @cuda.jit option '%s'", kw->name);
            }
        }
    }
    if (sigs) {
        if (sigs->kind == E_LIST) {
            for (int i = 0; i < sigs->args.len; i++) {
                Signature s;
                if (sig_from_node(sigs->args.items[i], &s))
                    add_sig(fd, &s);
                else
                    fd->sig_failed = true;
            }
        } else {
            Signature s;
            if (sig_from_node(sigs, &s))
                add_sig(fd, &s);
            else
                fd->sig_failed = true;
        }
    }
}

/* PEP 3107: `def k(a: float32[:], n: int32)` under a bare @cuda.jit is the
 * kernel's signature.  A signature in the decorator or on the command line
 * wins, and device functions are typed at each call as numba does, so their
 * annotations are documentation only. */
static void sig_from_annotations(FuncDef *fd)
{
    Node *def = fd->def;
    int n = def->params.len, given = 0;
    for (int i = 0; i < n; i++)
        given += ((Node *)def->params.items[i])->lhs != NULL;
    if ((!given && !def->rhs) || !fd->is_kernel || fd->nsigs || fd->sig_failed)
        return;
    PtrVec params = {0};
    for (int i = 0; i < n; i++) {
        Node *p = def->params.items[i];
        Type *t = NULL;
        if (!p->lhs) {
            sema_error(p->loc, "parameter '%s' has no annotation; annotate every parameter "
                       "of kernel '%s' or give a signature in @cuda.jit(...)", p->name,
                       fd->name);
        } else if (p->lhs->kind == E_STR) {   /* a: "float32[:]" */
            SigParser P = {.s = p->lhs->text, .base = p->lhs->loc, .has_loc = true};
            t = sig_type(&P, false);
            sig_space(&P);
            if (t && P.s[P.pos]) {
                sig_error(&P, "unexpected text after the type");
                t = NULL;
            }
        } else {
            t = sig_type_expr(p->lhs, false);
        }
        if (!t) {
            fd->sig_failed = true;
            return;
        }
        vec_push(&params, t);
    }
    if (def->rhs && def->rhs->kind != E_NONE) {
        Type *r = def->rhs->kind == E_STR ? NULL : sig_type_expr(def->rhs, true);
        if (r != ty_void) {
            if (r || def->rhs->kind == E_STR)
                sema_error(def->rhs->loc, "a kernel returns None; its return annotation "
                           "can only be None or void");
            fd->sig_failed = true;
            return;
        }
    }
    Signature sg = {.ret = ty_void, .params = (Type **)params.items, .nparams = params.len};
    add_sig(fd, &sg);
}

static bool check_params(FuncDef *fd)
{
    bool ok = true;
    for (int i = 0; i < fd->def->params.len; i++) {
        Node *p = fd->def->params.items[i];
        if (p->rhs) {
            sema_error(p->rhs->loc, "default parameter values are not supported");
            ok = false;
        }
    }
    return ok;
}

Program *analyze(Node *module, const Options *opt)
{
    int errors_before = error_count();
    types_init();
    type_reset();
    ufunc_reset();   /* ufunc.c */
    globals = (PtrVec){0};
    fdefs = (PtrVec){0};

    /* Pass 1: bind names in file order. */
    for (int i = 0; i < module->body.len; i++) {
        Node *s = module->body.items[i];
        switch (s->kind) {
        case S_IMPORT:
            resolve_import(s);
            break;
        case S_FROMIMPORT:
            resolve_fromimport(s);
            break;
        case S_FUNCDEF: {
            const Global *old = sema_global(s->name);
            if (old && old->kind == GLOBAL_FUNC) {
                sema_error(s->loc, "redefinition of function '%s'", s->name);
                break;
            }
            add_funcdef(s);
            break;
        }
        case S_ASSIGN:
            if (s->args.len == 1 && ((Node *)s->args.items[0])->kind == E_NAME)
                resolve_constant(s);
            else
                sema_error(s->loc, "only assignments of constants to single names are "
                           "supported at module level");
            break;
        case S_EXPR:
            if (s->lhs->kind != E_STR)   /* docstrings are fine */
                sema_error(s->loc, "module-level expressions are not supported "
                           "(a .kern file holds kernels, device functions and constants)");
            break;
        case S_PASS: case S_NOP:
            break;
        case S_CLASS:
            sema_error(s->loc, "classes are not supported");
            break;
        default:
            sema_error(s->loc, "module-level %s statements are not supported "
                       "(a .kern file holds kernels, device functions and constants)",
                       node_kind_desc[s->kind]);
            break;
        }
    }

    /* Pass 2: decorators, signatures, --signature. */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        resolve_decorator(fd);
        for (int j = 0; opt && j < opt->nsigs; j++) {
            if (strcmp(opt->sigs[j].kernel, fd->name) != 0)
                continue;
            SigParser P = {.s = opt->sigs[j].sig,
                           .who = arena_printf("--signature %s", fd->name)};
            Signature s;
            fd->nsigs = 0;   /* the command line replaces the decorator's */
            fd->sig_failed = !sig_parse_string(&P, &s);
            if (!fd->sig_failed)
                add_sig(fd, &s);
        }
        sig_from_annotations(fd);
        if (opt && opt->debug)   /* -g: every function as with debug=True */
            fd->opt.debug = true;
    }
    for (int j = 0; opt && j < opt->nsigs; j++) {
        const Global *g = sema_global(opt->sigs[j].kernel);
        if (!g || g->kind != GLOBAL_FUNC)
            sema_error((Loc){0}, "--signature: no function named '%s' in this file",
                       opt->sigs[j].kernel);
    }

    /* Pass 3: type every kernel signature and eager device function; their
     * calls type the device-function specialisations they need. */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        if (!check_params(fd))
            continue;
        if (fd->def->decorators.len != 1)
            continue;
        if (fd->sig_failed)
            continue;
        if (fd->is_kernel && fd->nsigs == 0) {
            sema_error(fd->def->loc, "kernel '%s' has no signature; give one in "
                       "@cuda.jit(...), as parameter annotations, or with --signature "
                       "%s=void(...)", fd->name, fd->name);
            continue;
        }
        for (int j = 0; j < fd->nsigs; j++) {
            Signature *s = &fd->sigs[j];
            if (fd->is_kernel && s->ret != ty_void) {
                sema_error(fd->def->loc, "the signature of kernel '%s' must return void, "
                           "not %s", fd->name, ty_name(s->ret));
                continue;
            }
            if (s->nparams != fd->def->params.len) {
                sema_error(fd->def->loc, "the signature of '%s' has %d parameter%s but the "
                           "function takes %d", fd->name, s->nparams,
                           s->nparams == 1 ? "" : "s", fd->def->params.len);
                continue;
            }
            type_kernel(fd, s, fd->def->loc);
        }
    }
    ufunc_type_all();   /* ufunc.c: the kernels of @vectorize, @guvectorize, cuda.reduce */

    if (error_count() > errors_before)
        return NULL;
    Program *p = arena_alloc(sizeof *p);
    type_finish(p);
    return p;
}
