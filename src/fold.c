/*
 * fold.c - constant folding with Python's semantics: module-level
 * constants, the constant parts of kernel code (shapes, options, tuple
 * indices), CPython's own folding of literal-only expressions, and the
 * values of constant arrays (np.array(...) at module level,
 * cuda.const.array_like).
 */
#include "kernc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A Python int while folding.  Intermediate values may leave the 64-bit
 * types (CPython computes 9223372036854775807 + 1 exactly, and numba then
 * types the literal 2**63 as uint64); 128 bits is also as far as CPython's
 * compiler folds (ast_opt.c, MAX_INT_SIZE).  A result that fits no 64-bit
 * integer type is an error where it becomes a constant, as in numba. */
typedef __int128 PyInt;
#define PYINT_BITS 128

/* A value during folding: a Python int, float, bool, complex (f + fi j,
 * cx: module-level `C = 1 + 2j`), a typed scalar made by a cast such as
 * np.float32(0.5), or a tuple (typed: an E_TUPLE of constants). */
typedef struct Val {
    enum { V_INT, V_FLOAT, V_BOOL, V_TYPED, V_TUPLE, V_COMPLEX } kind;
    PyInt i;
    double f, fi;
    Node *typed;
} Val;

typedef struct Folder {
    bool report;
    bool (*is_local)(void *, const char *);
    Node *(*local_value)(void *, const char *);   /* py: literal arguments */
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
    } else if (k->kind == E_CONST && k->type == ty_scalar[TY_COMPLEX128]) {
        v.kind = V_COMPLEX;   /* a Python complex is numba's complex128 */
        v.f = k->fval;
        v.fi = k->fimag;
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
    case V_COMPLEX:
        k->type = ty_scalar[TY_COMPLEX128];
        k->fval = v->f;
        k->fimag = v->fi;
        break;
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

/* cx: a binary operation with a complex operand, as CPython computes it
 * (complexobject.c: the other operand made complex; _Py_c_quot). */
static bool fold_complex_binop(Folder *F, Node *e, Val a, Val b, Val *out)
{
    double ar = a.kind == V_COMPLEX || a.kind == V_FLOAT ? a.f : (double)a.i;
    double ai = a.kind == V_COMPLEX ? a.fi : 0;
    double br = b.kind == V_COMPLEX || b.kind == V_FLOAT ? b.f : (double)b.i;
    double bi = b.kind == V_COMPLEX ? b.fi : 0;
    out->kind = V_COMPLEX;
    switch (e->op) {
    case OP_ADD: out->f = ar + br; out->fi = ai + bi; return true;
    case OP_SUB: out->f = ar - br; out->fi = ai - bi; return true;
    case OP_MUL: out->f = ar * br - ai * bi; out->fi = ar * bi + ai * br; return true;
    case OP_DIV: {
        double abs_br = fabs(br), abs_bi = fabs(bi);
        if (br == 0 && bi == 0)
            return fold_runtime(F, e->loc, "complex division by zero in a constant expression");
        if (abs_br >= abs_bi) {
            double ratio = bi / br, denom = br + bi * ratio;
            out->f = (ar + ai * ratio) / denom;
            out->fi = (ai - ar * ratio) / denom;
        } else if (abs_bi >= abs_br) {
            double ratio = br / bi, denom = br * ratio + bi;
            out->f = (ar * ratio + ai) / denom;
            out->fi = (ai * ratio - ar) / denom;
        } else {   /* a NaN part */
            out->f = out->fi = NAN;
        }
        return true;
    }
    default:
        return fold_fail(F, e->loc, "only + - * / are supported on complex constants in a "
                         "constant expression");
    }
}

static bool fold_binop(Folder *F, Node *e, Val a, Val b, Val *out)
{
    if (a.kind == V_TUPLE || b.kind == V_TUPLE)
        return fold_fail(F, e->loc, "arithmetic on tuples is not supported");
    if (a.kind == V_TYPED || b.kind == V_TYPED)
        return fold_fail(F, e->loc, "arithmetic on typed constants is not supported yet; "
                         "convert inside the kernel");
    if (a.kind == V_COMPLEX || b.kind == V_COMPLEX)
        return fold_complex_binop(F, e, a, b, out);
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
    if (a.kind == V_COMPLEX || ty_is_complex(sema_scalar_named(path) ? sema_scalar_named(path)
                                                                       : ty_void)) {
        /* cx: np.complex64(1 + 2j), bool(1j); int()/float() of a complex
         * is a TypeError in Python */
        Type *t = sema_scalar_named(path);
        Node *k = const_of_val(F, &a, e->loc), *r;
        if (strcmp(path, "bool") == 0)
            t = ty_bool;
        if (!k || !t || !(r = cx_const_convert(k, t)))
            return fold_fail(F, e->loc, "a complex constant cannot be converted to a real type");
        *out = val_of_const(r);
        if (out->kind != V_COMPLEX && out->kind != V_BOOL) {
            out->kind = V_TYPED;
            out->typed = r;
        }
        return true;
    }
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
    Type *t = sema_scalar_named(path);
    if (!t || t == ty_void)
        return fold_fail(F, e->loc, "this call is not a constant expression");
    Node *r = node_new(E_CONST, e->loc);
    r->type = t;
    if (t == ty_bool) {
        r->ival = isf ? f != 0 : k->ival != 0;
    } else if (ty_is_float(t)) {
        r->fval = ty_round_float(t, f);
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
        if (ast_is_imag(e)) {   /* 2j (cx) */
            out->kind = V_COMPLEX;
            out->f = 0;
            out->fi = e->fval;
            return true;
        }
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
        if (F->is_local && F->is_local(F->ctx, e->name)) {
            Node *k = F->local_value ? F->local_value(F->ctx, e->name) : NULL;
            if (k) {
                *out = val_of_const(k);
                return true;
            }
            return fold_fail(F, e->loc, "a local variable is not a compile-time constant");
        }
        const Global *g = sema_global(e->name);
        if (g && g->kind == GLOBAL_CONST) {
            *out = val_of_const(g->value);
            return true;
        }
        if (!g && !api_lookup(e->name)) {
            Suggest sg;
            suggest_init(&sg, e->name);
            sema_suggest_globals(&sg);
            api_suggest(&sg, "");
            return fold_fail(F, e->loc, arena_printf("name '%s' is not defined%s", e->name,
                                                     suggest_hint(&sg)));
        }
        return fold_fail(F, e->loc, arena_printf("'%s' is not a constant", e->name));
    }
    case E_ATTR: {
        const char *p = sema_path_of(e, F->is_local, F->ctx);
        if (p && strcmp(p, "math.pi") == 0) { out->kind = V_FLOAT; out->f = 3.141592653589793; return true; }
        if (p && strcmp(p, "math.e") == 0) { out->kind = V_FLOAT; out->f = 2.718281828459045; return true; }
        if (p && strcmp(p, "math.inf") == 0) { out->kind = V_FLOAT; out->f = INFINITY; return true; }
        if (p && strcmp(p, "math.nan") == 0) { out->kind = V_FLOAT; out->f = NAN; return true; }
        if (p && npu_const_value(api_id(api_lookup(p)), &out->f)) {   /* npk: np.pi, ... */
            out->kind = V_FLOAT;
            return true;
        }
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
        if (a.kind == V_COMPLEX) {   /* cx */
            if (e->op == OP_NOT) {
                out->kind = V_BOOL;
                out->i = a.f == 0 && a.fi == 0;
                return true;
            }
            if (e->op != OP_POS && e->op != OP_NEG)
                return fold_fail(F, e->loc, "bad operand type for a unary operator: complex");
            *out = a;
            if (e->op == OP_NEG) {
                out->f = -a.f;
                out->fi = -a.fi;
            }
            return true;
        }
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
        const char *p = sema_path_of(e->lhs, F->is_local, F->ctx);
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
        if (p && strcmp(p, "complex") == 0 && !e->kwargs.len && e->args.len >= 1 &&
            e->args.len <= 2) {   /* cx: complex(re[, im]) of numbers */
            Val v[2] = {{0}, {0}};
            for (int i = 0; i < e->args.len; i++) {
                if (!fold(F, e->args.items[i], &v[i]))
                    return false;
                if (v[i].kind == V_TUPLE || v[i].kind == V_TYPED)
                    return fold_fail(F, ((Node *)e->args.items[i])->loc,
                                     "complex() of this constant is not supported");
            }
            double re[2], im[2];
            for (int i = 0; i < 2; i++) {
                re[i] = v[i].kind == V_COMPLEX || v[i].kind == V_FLOAT ? v[i].f : (double)v[i].i;
                im[i] = v[i].kind == V_COMPLEX ? v[i].fi : 0;
            }
            /* CPython's complex_new: re + im * 1j, a part left as it is
             * where the other argument has none to add (signed zeros) */
            out->kind = V_COMPLEX;
            out->f = v[1].kind == V_COMPLEX ? re[0] - im[1] : re[0];
            out->fi = e->args.len == 1 ? im[0] : v[0].kind == V_COMPLEX ? im[0] + re[1] : re[1];
            return true;
        }
        if (p && (strcmp(p, "int") == 0 || strcmp(p, "float") == 0 ||
                  strcmp(p, "bool") == 0 || sema_scalar_named(p)))
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

Node *sema_fold_local(Node *e, bool report, bool (*is_local)(void *, const char *),
                      Node *(*local_value)(void *, const char *), void *ctx)
{
    Folder F = {.report = report, .is_local = is_local, .local_value = local_value, .ctx = ctx};
    Val v;
    if (!fold(&F, e, &v))
        return NULL;
    return const_of_val(&F, &v, e->loc);
}

Node *sema_fold_why(Node *e, const char **why, Loc *why_loc)
{
    Folder F = {0};
    Val v;
    Node *k = fold(&F, e, &v) ? const_of_val(&F, &v, e->loc) : NULL;
    *why = F.why;
    *why_loc = F.why_loc;
    return k;
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
    if (n == 0 && depth == 0) {   /* np.array([]): shape (0,) */
        A->ndim = 1;
        A->shape[0] = 0;
        return;
    }
    if (n == 0) {
        sema_error(e->loc, "an array constant with an empty row");
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
    bool isf = ty_is_float(k->type) || ty_is_complex(k->type);
    double f = isf ? k->fval : ty_is_signed(k->type) ? (double)(int64_t)k->ival : (double)k->ival;
    if (ty_is_complex(t)) {   /* suite: the parts rounded to the part type */
        r->fval = ty_round_float(ty_complex_part(t), f);
        r->fimag = ty_is_complex(k->type) ? ty_round_float(ty_complex_part(t), k->fimag) : 0.0;
        return r;
    }
    if (ty_is_complex(k->type)) {
        sema_error(k->loc, "a complex value in an array constant of %s (NumPy would drop "
                   "its imaginary part)", ty_name(t));
        return NULL;
    }
    if (t == ty_bool) {
        r->ival = isf ? f != 0 : k->ival != 0;
    } else if (ty_is_float(t)) {
        r->fval = ty_round_float(t, f);
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
        bool any_float = false, all_bool = true, any_complex = false;
        for (int i = 0; i < A.vals.len; i++) {
            Type *t = ((Node *)A.vals.items[i])->type;
            any_float |= ty_is_float(t);
            any_complex |= ty_is_complex(t);
            all_bool &= t == ty_bool;
        }
        /* NumPy's: np.array([]) is float64 */
        elem = any_complex ? ty_scalar[TY_COMPLEX128]
             : any_float || A.vals.len == 0 ? ty_float64
             : all_bool ? ty_bool : ty_int64;
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

