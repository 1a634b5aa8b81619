/*
 * npufunc.c - NumPy ufuncs called inside kernels (np.sin(x), np.add-like
 * np.maximum(a, b, out)), as numba-cuda 0.30 compiles them: the ufuncs of
 * its CUDA ufunc database (numba/cuda/ufuncs.py), the loop chosen as
 * numba's ufunc_find_matching_loop chooses it (numba/cuda/np/
 * numpy_support.py), and each loop's element operation (npyfuncs.py,
 * mathimpl.py, numbers.py) written as nodes of the typed tree, so that
 * both backends print it with no code of their own.
 *
 * Loop choice: NumPy's loops of the ufunc in NumPy's order (ufunc.types),
 * of which the real and complex ones are kept here (float16 loops are
 * skipped by numba, long double ones cannot be typed; the complex loops,
 * F and D, are those numba-cuda's database has: it has one for every
 * ufunc below whose NumPy loops include complex); the first loop each
 * input can be cast to safely (np.can_cast 'safe'; when the inputs mix
 * integers and floats any integer may go to any float) and whose outputs
 * can be cast 'same_kind' to the explicit output arrays is the one.  A
 * ufunc NumPy has but numba-cuda's database lacks (np.add, np.sqrt, ...)
 * gets an error naming the operator or math function to use instead.
 *
 * type.c's lower_np_ufunc calls npu_resolve and npu_element; the loop
 * nest over an output array (numba's numpy_ufunc_kernel) is written there.
 */
#include "kernc.h"

#include <math.h>
#include <string.h>

typedef enum NpuImpl {
    NPU_MATH,      /* a math.* row at the loop's float type */
    NPU_SCALE,     /* deg2rad/rad2deg: x * constant */
    NPU_CMP,       /* a comparison -> bool */
    NPU_LOGIC,     /* logical_and/or/xor on truth values */
    NPU_LNOT,      /* logical_not */
    NPU_MAX, NPU_MIN, NPU_FMAX, NPU_FMIN,
    NPU_BITS,      /* bitwise_and/or/xor, left_shift, right_shift */
    NPU_INVERT,
    NPU_ISNAN,
    NPU_IDENT,     /* conjugate of a real number */
    NPU_DIV,       /* true division */
} NpuImpl;

struct NpUfunc {
    const char *name;    /* the NumPy name after "np." */
    int nin;
    NpuImpl impl;
    const char *math;    /* NPU_MATH: the math.* row */
    Op op;               /* NPU_CMP, NPU_LOGIC, NPU_BITS: the operator */
    const char *loops;   /* NumPy's real loops, in order: input letters, ':',
                            output letter (l/L and q/Q both int64/uint64) */
};

/* Loops as NumPy 1.25+ / 2.x lists them (ufunc.types), real and complex
 * ones (F complex64, D complex128). */
#define L_REAL1 "f:f d:d"
#define L_FLOAT1 "f:f d:d F:F D:D"
#define L_FLOAT2 "ff:f dd:d"
#define L_DIV "ff:f dd:d FF:F DD:D"
#define L_CMP "??:? bb:? BB:? hh:? HH:? ii:? II:? ll:? LL:? qq:? QQ:? qQ:? Qq:? ff:? dd:? FF:? DD:?"
#define L_LOGIC "??:? bb:? BB:? hh:? HH:? ii:? II:? ll:? LL:? qq:? QQ:? ff:? dd:? FF:? DD:?"
#define L_LNOT "?:? b:? B:? h:? H:? i:? I:? l:? L:? q:? Q:? f:? d:? F:? D:?"
#define L_MINMAX "??:? bb:b BB:B hh:h HH:H ii:i II:I ll:l LL:L qq:q QQ:Q ff:f dd:d FF:F DD:D"
#define L_BITS "??:? bb:b BB:B hh:h HH:H ii:i II:I ll:l LL:L qq:q QQ:Q"
#define L_SHIFT "bb:b BB:B hh:h HH:H ii:i II:I ll:l LL:L qq:q QQ:Q"
#define L_INVERT "?:? b:b B:B h:h H:H i:i I:I l:l L:L q:q Q:Q"
#define L_CONJ "b:b B:B h:h H:H i:i I:I l:l L:L q:q Q:Q f:f d:d F:F D:D"

static const NpUfunc npu_table[] = {
    {"sin", 1, NPU_MATH, "math.sin", OP_NONE_, L_FLOAT1},
    {"cos", 1, NPU_MATH, "math.cos", OP_NONE_, L_FLOAT1},
    {"tan", 1, NPU_MATH, "math.tan", OP_NONE_, L_FLOAT1},
    {"arcsin", 1, NPU_MATH, "math.asin", OP_NONE_, L_FLOAT1},
    {"arccos", 1, NPU_MATH, "math.acos", OP_NONE_, L_FLOAT1},
    {"arctan", 1, NPU_MATH, "math.atan", OP_NONE_, L_FLOAT1},
    {"arctan2", 2, NPU_MATH, "math.atan2", OP_NONE_, L_FLOAT2},
    {"hypot", 2, NPU_MATH, "math.hypot", OP_NONE_, L_FLOAT2},
    {"sinh", 1, NPU_MATH, "math.sinh", OP_NONE_, L_FLOAT1},
    {"cosh", 1, NPU_MATH, "math.cosh", OP_NONE_, L_FLOAT1},
    {"tanh", 1, NPU_MATH, "math.tanh", OP_NONE_, L_FLOAT1},
    {"arcsinh", 1, NPU_MATH, "math.asinh", OP_NONE_, L_FLOAT1},
    {"arccosh", 1, NPU_MATH, "math.acosh", OP_NONE_, L_FLOAT1},
    {"arctanh", 1, NPU_MATH, "math.atanh", OP_NONE_, L_FLOAT1},
    {"log", 1, NPU_MATH, "math.log", OP_NONE_, L_FLOAT1},
    {"log2", 1, NPU_MATH, "math.log2", OP_NONE_, L_FLOAT1},
    {"log10", 1, NPU_MATH, "math.log10", OP_NONE_, L_FLOAT1},
    {"deg2rad", 1, NPU_SCALE, NULL, OP_NONE_, L_REAL1},
    {"radians", 1, NPU_SCALE, NULL, OP_NONE_, L_REAL1},
    {"rad2deg", 1, NPU_SCALE, NULL, OP_NONE_, L_REAL1},
    {"degrees", 1, NPU_SCALE, NULL, OP_NONE_, L_REAL1},
    {"greater", 2, NPU_CMP, NULL, OP_GT, L_CMP},
    {"greater_equal", 2, NPU_CMP, NULL, OP_GE, L_CMP},
    {"less", 2, NPU_CMP, NULL, OP_LT, L_CMP},
    {"less_equal", 2, NPU_CMP, NULL, OP_LE, L_CMP},
    {"equal", 2, NPU_CMP, NULL, OP_EQ, L_CMP},
    {"not_equal", 2, NPU_CMP, NULL, OP_NE, L_CMP},
    {"logical_and", 2, NPU_LOGIC, NULL, OP_BITAND, L_LOGIC},
    {"logical_or", 2, NPU_LOGIC, NULL, OP_BITOR, L_LOGIC},
    {"logical_xor", 2, NPU_LOGIC, NULL, OP_BITXOR, L_LOGIC},
    {"logical_not", 1, NPU_LNOT, NULL, OP_NONE_, L_LNOT},
    {"maximum", 2, NPU_MAX, NULL, OP_NONE_, L_MINMAX},
    {"minimum", 2, NPU_MIN, NULL, OP_NONE_, L_MINMAX},
    {"fmax", 2, NPU_FMAX, NULL, OP_NONE_, L_MINMAX},
    {"fmin", 2, NPU_FMIN, NULL, OP_NONE_, L_MINMAX},
    {"bitwise_and", 2, NPU_BITS, NULL, OP_BITAND, L_BITS},
    {"bitwise_or", 2, NPU_BITS, NULL, OP_BITOR, L_BITS},
    {"bitwise_xor", 2, NPU_BITS, NULL, OP_BITXOR, L_BITS},
    {"invert", 1, NPU_INVERT, NULL, OP_NONE_, L_INVERT},
    {"left_shift", 2, NPU_BITS, NULL, OP_LSHIFT, L_SHIFT},
    {"right_shift", 2, NPU_BITS, NULL, OP_RSHIFT, L_SHIFT},
    {"isnan", 1, NPU_ISNAN, NULL, OP_NONE_, L_LNOT},
    {"conjugate", 1, NPU_IDENT, NULL, OP_NONE_, L_CONJ},
    {"divide", 2, NPU_DIV, NULL, OP_NONE_, L_DIV},
};

/* NumPy 2's other names for the same ufunc objects. */
static const struct { const char *alias, *name; } npu_aliases[] = {
    {"asin", "arcsin"}, {"acos", "arccos"}, {"atan", "arctan"}, {"atan2", "arctan2"},
    {"asinh", "arcsinh"}, {"acosh", "arccosh"}, {"atanh", "arctanh"},
    {"bitwise_not", "invert"}, {"bitwise_invert", "invert"},
    {"bitwise_left_shift", "left_shift"}, {"bitwise_right_shift", "right_shift"},
    {"conj", "conjugate"}, {"true_divide", "divide"},
};

const NpUfunc *npu_find(const char *path)
{
    if (!path || strncmp(path, "np.", 3) != 0)
        return NULL;
    const char *name = path + 3;
    for (size_t i = 0; i < sizeof npu_aliases / sizeof npu_aliases[0]; i++)
        if (strcmp(name, npu_aliases[i].alias) == 0)
            name = npu_aliases[i].name;
    for (size_t i = 0; i < sizeof npu_table / sizeof npu_table[0]; i++)
        if (strcmp(name, npu_table[i].name) == 0)
            return &npu_table[i];
    return NULL;
}

int npu_nin(const NpUfunc *u) { return u->nin; }

/* NumPy ufuncs numba-cuda 0.30's CUDA target has no loops for (typing
 * accepts them; lowering fails with a KeyError): what to write instead. */
static const struct { const char *name, *instead; } npu_missing[] = {
    {"add", "the + operator"}, {"subtract", "the - operator"},
    {"multiply", "the * operator"}, {"floor_divide", "the // operator"},
    {"remainder", "the % operator"}, {"mod", "the % operator"},
    {"fmod", "math.fmod"}, {"power", "the ** operator"}, {"pow", "the ** operator"},
    {"float_power", "the ** operator"}, {"negative", "unary -"}, {"positive", "unary +"},
    {"absolute", "abs()"}, {"abs", "abs()"}, {"fabs", "math.fabs"}, {"sign", NULL},
    {"sqrt", "math.sqrt"}, {"cbrt", "cuda.cbrt"}, {"square", "x * x"},
    {"reciprocal", "1 / x"}, {"exp", "math.exp"}, {"exp2", "math.exp2"},
    {"expm1", "math.expm1"}, {"log1p", "math.log1p"}, {"logaddexp", NULL},
    {"logaddexp2", NULL}, {"floor", "math.floor"}, {"ceil", "math.ceil"},
    {"trunc", "math.trunc"}, {"rint", NULL}, {"fix", NULL}, {"copysign", "math.copysign"},
    {"nextafter", "math.nextafter"}, {"spacing", NULL}, {"ldexp", "math.ldexp"},
    {"frexp", "math.frexp"}, {"modf", "math.modf"}, {"divmod", NULL},
    {"isfinite", "math.isfinite"}, {"isinf", "math.isinf"}, {"signbit", NULL},
    {"isnat", NULL}, {"gcd", NULL}, {"lcm", NULL}, {"heaviside", NULL},
    {"bitwise_count", "x.bit_count() or cuda.popc"}, {"matmul", NULL},
};

/* The message for np.NAME where NAME is a NumPy ufunc without CUDA loops
 * in numba-cuda, or NULL. */
const char *npu_missing_message(const char *path)
{
    if (!path || strncmp(path, "np.", 3) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof npu_missing / sizeof npu_missing[0]; i++)
        if (strcmp(path + 3, npu_missing[i].name) == 0)
            return npu_missing[i].instead
                ? arena_printf("'%s' is not supported in kernels (numba-cuda has no CUDA "
                               "loop for this ufunc); use %s", path, npu_missing[i].instead)
                : arena_printf("'%s' is not supported in kernels (numba-cuda has no CUDA "
                               "loop for this ufunc)", path);
    return NULL;
}

/* ---- NumPy's casting rules over the real and complex types ---- */

/* The type letter of a scalar type (int64 is 'l', uint64 'L'), or 0. */
static char letter_of(const Type *t)
{
    switch (t->kind) {
    /* float16 (bf16 helper): numba-cuda skips the 'e' loops, and 'e'
     * casts (safe as an input, same_kind as an output) exactly as 'f' does
     * to and from every other loop letter: a float16 operand takes the
     * float32 loop, converted to it and back */
    case TY_FLOAT16: return 'f';
    case TY_BOOL: return '?';
    case TY_INT8: return 'b';
    case TY_UINT8: return 'B';
    case TY_INT16: return 'h';
    case TY_UINT16: return 'H';
    case TY_INT32: return 'i';
    case TY_UINT32: return 'I';
    case TY_INT64: return 'l';
    case TY_UINT64: return 'L';
    case TY_FLOAT32: return 'f';
    case TY_FLOAT64: return 'd';
    case TY_COMPLEX64: return 'F';
    case TY_COMPLEX128: return 'D';
    default: return 0;
    }
}

static const char letters[] = "?bBhHiIlLfdFD";

static int letter_index(char c)
{
    if (c == 'q')
        c = 'l';
    if (c == 'Q')
        c = 'L';
    const char *p = strchr(letters, c);
    return p ? (int)(p - letters) : -1;
}

static Type *type_of_letter(char c)
{
    static const TypeKind kinds[] = {TY_BOOL, TY_INT8, TY_UINT8, TY_INT16, TY_UINT16,
                                     TY_INT32, TY_UINT32, TY_INT64, TY_UINT64, TY_FLOAT32,
                                     TY_FLOAT64, TY_COMPLEX64, TY_COMPLEX128};
    return ty_scalar[kinds[letter_index(c)]];
}

/* np.can_cast(from, to, 'safe') and 'same_kind', row from, column to, in
 * the order of letters[] (printed by NumPy 2.4 and 1.x alike). */
static const char *const can_safe[] = {
    "1111111111111", "0101010101111", "0011111111111", "0001010101111", "0000111111111",
    "0000010100101", "0000001110101", "0000000100101", "0000000010101", "0000000001111",
    "0000000000101", "0000000000011", "0000000000001"};
static const char *const can_same_kind[] = {
    "1111111111111", "0101010101111", "0111111111111", "0101010101111", "0111111111111",
    "0101010101111", "0111111111111", "0101010101111", "0111111111111", "0000000001111",
    "0000000001111", "0000000000011", "0000000000011"};

static bool can_cast(char from, char to, bool mixed, bool same_kind)
{
    int f = letter_index(from), t = letter_index(to);
    if (f < 0 || t < 0)
        return false;
    /* numba's ufunc_can_cast: with mixed integer and float (or complex)
     * inputs, any integer goes to any float or complex (np.power(float32,
     * int32) is float32) */
    if (mixed && strchr("bBhHiIlL", letters[f]) && strchr("fdFD", letters[t]))
        return true;
    return (same_kind ? can_same_kind : can_safe)[f][t] == '1';
}

bool npu_resolve(const NpUfunc *u, Type *const *in, Type *const *out, int nout,
                 Type **loop_in, Type **loop_out)
{
    char ic[2] = {0, 0}, oc[1] = {0};
    bool has_int = false, has_float = false;
    for (int i = 0; i < u->nin; i++) {
        ic[i] = letter_of(in[i]);
        if (!ic[i])
            return false;
        has_int |= strchr("bBhHiIlL", ic[i]) != NULL;
        has_float |= strchr("fdFD", ic[i]) != NULL;
    }
    for (int i = 0; i < nout; i++) {
        oc[i] = letter_of(out[i]);
        if (!oc[i])
            return false;
    }
    bool mixed = has_int && has_float;
    const char *p = u->loops;
    while (*p) {
        const char *loop = p;   /* nin letters, ':', one letter */
        bool ok = true;
        for (int i = 0; i < u->nin && ok; i++)
            ok = can_cast(ic[i], loop[i], mixed, false);
        for (int i = 0; i < nout && ok; i++)
            ok = can_cast(loop[u->nin + 1], oc[i], mixed, true);
        if (ok) {
            for (int i = 0; i < u->nin; i++)
                loop_in[i] = type_of_letter(loop[i]);
            loop_out[0] = type_of_letter(loop[u->nin + 1]);
            return true;
        }
        p += u->nin + 2;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* ---- the element operations ---- */

static Node *mk_cmp(Loc loc, Op op, Node *a, Node *b)
{
    Node *n = node_new(E_COMPARE, loc);
    nl_push(&n->args, a);
    nl_push(&n->args, b);
    n->ops = arena_alloc(sizeof *n->ops);
    n->ops[0] = op;
    n->type = ty_bool;
    return n;
}

static Node *mk_if(Loc loc, Node *cond, Node *a, Node *b)
{
    Node *n = node_new(E_IFEXP, loc);
    n->cond = cond;
    n->lhs = a;
    n->rhs = b;
    n->type = a->type;
    return n;
}

static Node *mk_unary(Loc loc, Op op, Node *a, Type *t)
{
    Node *n = node_new(E_UNARY, loc);
    n->op = op;
    n->lhs = a;
    n->type = t;
    return n;
}

static Node *mk_math(Loc loc, const char *path, Node **x, int n, Type *t)
{
    Node *r = node_new(E_API, loc);
    r->api = api_lookup(path);
    for (int i = 0; i < n; i++)
        nl_push(&r->args, x[i]);
    r->type = t;
    return r;
}

static Node *isnan_of(Loc loc, Node *x)
{
    if (x->kind == E_CONST)
        return tree_int(loc, ty_bool, isnan(x->fval));
    return mk_math(loc, "math.isnan", &x, 1, ty_bool);
}

static Node *or_bool(Loc loc, Node *a, Node *b)
{
    if (a->kind == E_CONST)
        return a->ival ? a : b;
    if (b->kind == E_CONST)
        return b->ival ? b : a;
    return tree_binop(loc, OP_BITOR, a, b, ty_bool);
}

static Node *pick_if(Loc loc, Node *cond, Node *a, Node *b)
{
    if (cond->kind == E_CONST)
        return cond->ival ? a : b;
    return mk_if(loc, cond, a, b);
}

bool npu_rereads(const NpUfunc *u, Type *const *loop_in)
{
    if (ty_is_complex(loop_in[0]))   /* the complex loops are helpers of one call */
        return false;
    switch (u->impl) {
    case NPU_MAX: case NPU_MIN: case NPU_FMAX: case NPU_FMIN:
        return loop_in[0]->kind != TY_BOOL;
    case NPU_CMP:
        return loop_in[0] != loop_in[1];
    default:
        return false;
    }
}

/* numbers.int_signed_unsigned_cmp / int_unsigned_signed_cmp: an int64 and
 * a uint64 compared by value.  s < 0 decides alone; otherwise both are
 * compared as uint64. */
static Node *mixed_cmp(Loc loc, Op op, Node *a, Node *b, bool signed_first)
{
    Node *s = signed_first ? a : b;
    bool s_small;   /* the result when the signed operand is negative */
    switch (op) {
    case OP_GT: case OP_GE: s_small = !signed_first; break;
    case OP_LT: case OP_LE: s_small = signed_first; break;
    case OP_EQ: s_small = false; break;
    default: s_small = true; break;   /* OP_NE */
    }
    Node *neg = mk_cmp(loc, OP_LT, node_clone(s), tree_int(loc, ty_int64, 0));
    Node *cmp = mk_cmp(loc, op, tree_cast(a, ty_uint64), tree_cast(b, ty_uint64));
    return mk_if(loc, neg, tree_int(loc, ty_bool, s_small), cmp);
}

/* ---- cx: the complex loops (F, D) of numba-cuda 0.30's ufunc database
 * (ufuncs.py): the cmath functions its entries call (cmathimpl.py, typed
 * at the loop's type as cmath.* is), its own formulas as helpers of
 * kernrt_cmath.h (krt_np*), and the truth-value and isnan loops ---- */

static Node *cx_row(Loc loc, ApiId id, Node **x, int n, Type *t)
{
    Node *r = node_new(E_API, loc);
    r->api = &api_table[id];
    for (int i = 0; i < n; i++)
        nl_push(&r->args, x[i]);
    r->type = t;
    return r;
}

/* The element of a complex loop; v are the operands at the loop's type. */
static Node *npu_complex_element(const NpUfunc *u, Loc loc, Node **v, Type *res)
{
    static const struct { const char *name; ApiId id; } rows[] = {
        /* npyfuncs.np_complex_sin_impl/cos: cmathimpl's; tan, arcsin,
         * arccos, arctan, arcsinh, arctanh: cmathimpl's directly */
        {"sin", API_CM_SIN}, {"cos", API_CM_COS}, {"tan", API_CM_TAN},
        {"arcsin", API_CM_ASIN}, {"arccos", API_CM_ACOS}, {"arctan", API_CM_ATAN},
        {"arcsinh", API_CM_ASINH}, {"arctanh", API_CM_ATANH}, {"log", API_CM_LOG},
        /* ufuncs.py's np_complex_sinh/cosh/tanh_impl, npyfuncs' log2,
         * log10, acosh */
        {"sinh", API_NPCX_SINH}, {"cosh", API_NPCX_COSH}, {"tanh", API_NPCX_TANH},
        {"log2", API_NPCX_LOG2}, {"log10", API_NPCX_LOG10}, {"arccosh", API_NPCX_ACOSH},
    };
    Type *t = v[0]->type;
    switch (u->impl) {
    case NPU_MATH:
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            if (strcmp(u->name, rows[i].name) == 0)
                return cx_row(loc, rows[i].id, v, 1, res);
        return NULL;
    case NPU_CMP:   /* lexicographic; == and != part by part */
        switch (u->op) {
        case OP_GT: return cx_row(loc, API_NPCX_GT, v, 2, ty_bool);
        case OP_GE: return cx_row(loc, API_NPCX_GE, v, 2, ty_bool);
        case OP_LT: return cx_row(loc, API_NPCX_LT, v, 2, ty_bool);
        case OP_LE: return cx_row(loc, API_NPCX_LE, v, 2, ty_bool);
        default: return mk_cmp(loc, u->op, v[0], v[1]);
        }
    case NPU_LOGIC:   /* _complex_is_true: either part nonzero */
        return tree_binop(loc, u->op, tree_cast(v[0], ty_bool), tree_cast(v[1], ty_bool),
                          ty_bool);
    case NPU_LNOT:
        return mk_unary(loc, OP_NOT, tree_cast(v[0], ty_bool), ty_bool);
    case NPU_MAX: return cx_row(loc, API_NPCX_MAXIMUM, v, 2, t);
    case NPU_MIN: return cx_row(loc, API_NPCX_MINIMUM, v, 2, t);
    case NPU_FMAX: return cx_row(loc, API_NPCX_FMAX, v, 2, t);
    case NPU_FMIN: return cx_row(loc, API_NPCX_FMIN, v, 2, t);
    case NPU_ISNAN:   /* cmathimpl.is_nan */
        return cx_row(loc, API_CM_ISNAN, v, 1, ty_bool);
    case NPU_IDENT:   /* complex_conjugate_impl */
        return cx_row(loc, API_CX_CONJ, v, 1, t);
    case NPU_DIV:
        return cx_row(loc, API_NPCX_DIV, v, 2, t);
    default:
        return NULL;   /* no complex loops: npu_resolve never picks one */
    }
}

Node *npu_element(const NpUfunc *u, Loc loc, Node **x, Type *const *loop_in, Type *res)
{
    Node *v[2];
    for (int i = 0; i < u->nin; i++)
        v[i] = tree_cast(x[i], loop_in[i]);
    Type *t = loop_in[0];
    if (ty_is_complex(t))
        return npu_complex_element(u, loc, v, res);
    switch (u->impl) {
    case NPU_MATH:
        return mk_math(loc, u->math, v, u->nin, res);
    case NPU_SCALE: {
        /* mathimpl.radians_float_impl: x * (pi / 180) in the loop's type */
        bool rad = strcmp(u->name, "deg2rad") == 0 || strcmp(u->name, "radians") == 0;
        double f = rad ? 3.141592653589793 / 180.0 : 180.0 / 3.141592653589793;
        return tree_binop(loc, OP_MUL, v[0], tree_float(loc, res, f), res);
    }
    case NPU_CMP:
        if (loop_in[0] != loop_in[1])   /* qQ, Qq */
            return mixed_cmp(loc, u->op, v[0], v[1], ty_is_signed(loop_in[0]));
        return mk_cmp(loc, u->op, v[0], v[1]);
    case NPU_LOGIC:
        return tree_binop(loc, u->op, tree_cast(v[0], ty_bool), tree_cast(v[1], ty_bool),
                          ty_bool);
    case NPU_LNOT:
        return mk_unary(loc, OP_NOT, tree_cast(v[0], ty_bool), ty_bool);
    case NPU_MAX: case NPU_MIN: case NPU_FMAX: case NPU_FMIN: {
        bool max = u->impl == NPU_MAX || u->impl == NPU_FMAX;
        if (t->kind == TY_BOOL)   /* ??->?: logical or / and */
            return tree_binop(loc, max ? OP_BITOR : OP_BITAND, v[0], v[1], ty_bool);
        /* npyfuncs.np_int_[su]max_impl, np_real_maximum_impl, ...:
         * a >= b ? a : b (max), a <= b ? a : b (min); with a NaN operand
         * maximum/minimum give the NaN (a's if both are), fmax gives
         * (isnan(b) ? a : b), fmin (isnan(a) ? b : a) */
        Node *pick = mk_if(loc, mk_cmp(loc, max ? OP_GE : OP_LE, v[0], v[1]),
                           node_clone(v[0]), node_clone(v[1]));
        if (!ty_is_float(t))
            return pick;
        Node *any_nan = or_bool(loc, isnan_of(loc, node_clone(v[0])),
                                isnan_of(loc, node_clone(v[1])));
        Node *nan_result, *nb = isnan_of(loc, node_clone(v[1]));
        if (nb->kind == E_CONST && !nb->ival)   /* b is a number: only a can be NaN */
            nan_result = node_clone(u->impl == NPU_MAX || u->impl == NPU_MIN ? v[0] : v[1]);
        else if (u->impl == NPU_MAX || u->impl == NPU_MIN)
            nan_result = pick_if(loc, isnan_of(loc, node_clone(v[0])), node_clone(v[0]),
                                 node_clone(v[1]));
        else if (u->impl == NPU_FMAX)
            nan_result = pick_if(loc, isnan_of(loc, node_clone(v[1])), node_clone(v[0]),
                                 node_clone(v[1]));
        else
            nan_result = pick_if(loc, isnan_of(loc, node_clone(v[0])), node_clone(v[1]),
                                 node_clone(v[0]));
        return pick_if(loc, any_nan, nan_result, pick);
    }
    case NPU_BITS:
        return tree_binop(loc, u->op, v[0], v[1], res);
    case NPU_INVERT:
        return mk_unary(loc, t->kind == TY_BOOL ? OP_NOT : OP_INVERT, v[0], res);
    case NPU_ISNAN:
        if (!ty_is_float(t))   /* np_int_isnan_impl */
            return tree_int(loc, ty_bool, 0);
        return isnan_of(loc, v[0]);
    case NPU_IDENT:
        return v[0];
    case NPU_DIV:
        return tree_binop(loc, OP_DIV, v[0], v[1], res);
    }
    return NULL;
}

/* The values of the constant rows added with these (api.def's npk
 * blocks): NumPy's float attributes, which numba freezes as float64
 * constants, and math.tau; false for any other row. */
bool npu_const_value(ApiId id, double *v)
{
    switch (id) {
    case API_NP_C_PI: *v = 3.141592653589793; return true;
    case API_NP_C_E: *v = 2.718281828459045; return true;
    case API_NP_C_EULER_GAMMA: *v = 0.5772156649015329; return true;
    case API_M_TAU: *v = 6.283185307179586; return true;
    case API_NP_C_INF: case API_NP_C_INF_1: case API_NP_C_INF_2: case API_NP_C_INF_3:
    case API_NP_C_PINF:
        *v = INFINITY;
        return true;
    case API_NP_C_NINF: *v = -INFINITY; return true;
    case API_NP_C_NAN: case API_NP_C_NAN_1: case API_NP_C_NAN_2: *v = NAN; return true;
    case API_NP_C_PZERO: *v = 0.0; return true;
    case API_NP_C_NZERO: *v = -0.0; return true;
    default: return false;
    }
}
