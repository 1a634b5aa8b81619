/*
 * type_call.c - the typing and lowering of calls: calls of API rows by the
 * row's rule (api.def), atomics, math, intrinsics, random, cache hints,
 * vector types, the complex rows (complex(), cmath.*), NumPy ufuncs (as an
 * element operation and as a loop over out=), calls of device functions
 * (their specialisation) and the methods of arrays and grid groups.  Part
 * of type.c's pass, split off for size; the shared context and helpers are
 * in type_impl.h.
 */
#include "type_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* complex64 / complex128 (numba's Complex; complex.c has the cases)    */
/* ------------------------------------------------------------------ */

/* An E_API of one of the complex rows. */
static Node *cx_api(Loc loc, ApiId id, Type *t, Node **args, int nargs)
{
    Node *r = node_new(E_API, loc);
    r->api = &api_table[id];
    r->type = t;
    for (int i = 0; i < nargs; i++)
        nl_push(&r->args, args[i]);
    return r;
}

/* z.real, z.imag (NumberAttribute: the part's float; an int or float is its
 * own real part, and its imaginary part is a zero of its type). */
Node *lower_complex_part(Ctx *c, Node *e, Node *base)
{
    bool real = strcmp(e->name, "real") == 0;
    Type *t = base->type;
    if (ty_is_complex(t))
        return cx_api(e->loc, real ? API_CX_REAL : API_CX_IMAG, ty_complex_part(t), &base, 1);
    if (t->kind == TY_BOOL)
        return fail(c, e->loc, "a value of type boolean has no attribute '%s'", e->name);
    if (real)
        return base;
    if (!tree_is_pure(base))
        return fail(c, e->loc, "'.imag' of a real expression with effects is not supported; "
                    "assign it to a variable first");
    return ty_is_float(t) ? tree_float(e->loc, t, 0) : tree_int(e->loc, t, 0);
}

/* z.conjugate() (complex_conjugate_impl; a real number is its own). */
static Node *lower_conjugate(Ctx *c, Node *e, Node *base)
{
    if (e->args.len || e->kwargs.len)
        return fail(c, e->loc, "conjugate() takes no arguments");
    if (base->type->kind == TY_BOOL)
        return fail(c, e->lhs->loc, "method 'conjugate' of boolean is not supported");
    if (!ty_is_complex(base->type))
        return base;
    return cx_api(e->loc, API_CX_CONJ, base->type, &base, 1);
}

/* A call of a complex row (complex(), cmath.*), or of any row with a
 * complex argument: typed as numba-cuda types it, NULL when the ordinary
 * rules apply. */
static Node *lower_complex_call(Ctx *c, Node *e, const ApiEntry *a, Node **v, int nargs)
{
    bool any = false;
    for (int i = 0; i < nargs; i++)
        any = any || ty_is_complex(v[i]->type);
    bool row = a->rule == TR_COMPLEX || a->rule == TR_CMATH_UNARY || a->rule == TR_CMATH_PRED ||
               a->rule == TR_CMATH_OVERLOAD || a->rule == TR_CMATH_RECT;
    if (!any && !row)
        return NULL;
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    Type *c64 = ty_scalar[TY_COMPLEX64], *c128 = ty_scalar[TY_COMPLEX128];
    Seq q;
    switch (a->rule) {
    case TR_COMPLEX: {   /* builtins.py Complex: complex64 only from float32 parts */
        for (int i = 0; i < nargs; i++)
            if (v[i]->type->kind == TY_BOOL)
                return fail(c, v[i]->loc, "complex() only supports numbers, not boolean");
        if (nargs == 1)
            return tree_cast(v[0], v[0]->type == ty_float32 ? c64 : c128);
        for (int i = 0; i < nargs; i++)
            if (ty_is_complex(v[i]->type))
                return fail(c, v[i]->loc, "complex(real, imag) takes real parts, not %s",
                            ty_name(v[i]->type));
        Type *t = v[0]->type == ty_float32 && v[1]->type == ty_float32 ? c64 : c128;
        seq_operands(c, v, 2, &q);
        for (int i = 0; i < 2; i++)
            v[i] = tree_cast(v[i], ty_complex_part(t));
        return seq_wrap(cx_api(e->loc, API_B_COMPLEX, t, v, 2), &q);
    }
    case TR_CMATH_UNARY: case TR_CMATH_PRED: {   /* cmathdecl.py */
        const CaseList *cl = a->rule == TR_CMATH_PRED ? &tr_cx_pred
                           : nargs == 2 ? &tr_cx_arith : &tr_cx_unary;
        Type *args[2] = {v[0]->type, nargs > 1 ? v[1]->type : NULL};
        int k = ty_resolve_case(cl->cases, cl->n, args, nargs, true);
        if (k < 0 || v[0]->type->kind == TY_BOOL || (nargs > 1 && v[1]->type->kind == TY_BOOL))
            return fail(c, e->loc, "%s() does not accept these argument types", a->path);
        Type *t = ty_scalar[cl->cases[k].a[0]];
        seq_operands(c, v, nargs, &q);
        for (int i = 0; i < nargs; i++)
            v[i] = tree_cast(v[i], t);
        if (nargs == 2)   /* cmath.log(z, base) = log(z) / log(base) (log_base_impl) */
            return seq_wrap(tree_binop(e->loc, OP_DIV, cx_api(e->loc, API_CM_LOG, t, &v[0], 1),
                                       cx_api(e->loc, API_CM_LOG, t, &v[1], 1), t), &q);
        return seq_wrap(cx_api(e->loc, a->id, ty_scalar[cl->cases[k].ret], v, 1), &q);
    }
    case TR_CMATH_OVERLOAD: {   /* cmathimpl.py's @overload: a complex only */
        Type *t = v[0]->type;
        if (!ty_is_complex(t))
            return fail(c, v[0]->loc, "%s() does not accept %s (numba-cuda takes a complex "
                        "argument only; convert with complex(x))", a->path, ty_name(t));
        Type *ret = t, *part = ty_complex_part(t);
        switch (a->id) {
        case API_CM_LOG10: case API_CM_TANH: case API_CM_ACOSH:
            ret = c128;   /* their float64 constants widen the result */
            break;
        case API_CM_PHASE:
            ret = part;
            break;
        case API_CM_POLAR: {   /* (hypot(re, im), atan2(im, re)): a tuple of two rows */
            Type *el[2] = {part, part};
            if (!tree_is_pure(v[0]))
                return fail(c, v[0]->loc, "cmath.polar() of an expression with effects is not "
                            "supported; assign it to a variable first");
            Node *tup = node_new(E_TUPLE, e->loc), *z2 = node_clone(v[0]);
            nl_push(&tup->args, cx_api(e->loc, API_CX_ABS, part, &v[0], 1));
            nl_push(&tup->args, cx_api(e->loc, API_CM_PHASE, part, &z2, 1));
            tup->type = ty_tuple(el, 2);
            return tup;
        }
        default:
            break;
        }
        return cx_api(e->loc, a->id, ret, v, 1);
    }
    case TR_CMATH_RECT: {   /* impl_cmath_rect: two floats */
        for (int i = 0; i < 2; i++)
            if (!ty_is_float(v[i]->type))
                return fail(c, v[i]->loc, "cmath.rect() takes floats, not %s",
                            ty_name(v[i]->type));
        Type *t = v[0]->type == ty_float32 && v[1]->type == ty_float32 ? c64 : c128;
        seq_operands(c, v, 2, &q);
        for (int i = 0; i < 2; i++)
            v[i] = tree_cast(v[i], ty_complex_part(t));
        return seq_wrap(cx_api(e->loc, a->id, t, v, 2), &q);
    }
    default:
        break;
    }
    /* the other rows, with a complex argument */
    switch (a->id) {
    case API_B_ABS:   /* Abs: the part's float, hypot(re, im) */
        return cx_api(e->loc, API_CX_ABS, ty_complex_part(v[0]->type), v, 1);
    case API_B_BOOL: case API_B_POW:
        return NULL;
    case API_B_INT: case API_B_FLOAT:
        return fail(c, e->loc, "%s() does not support complex (%s)", a->path,
                    ty_name(v[0]->type));
    case API_B_MIN: case API_B_MAX:
        return fail(c, e->loc, "%s() of complex numbers is not supported (numba has no "
                    "ordering of complex numbers)", a->path);
    default:
        break;
    }
    if (a->rule == TR_CAST) {
        Type *to = api_type(a);
        if (!ty_is_complex(to) && to->kind != TY_BOOL)
            return fail(c, e->loc, "cannot convert %s to %s (numba has no conversion from "
                        "complex to a real type; take .real or abs())", ty_name(v[0]->type),
                        ty_name(to));
        return NULL;
    }
    if (a->cls == AC_MATH)
        return fail(c, e->loc, "%s() does not accept %s; the cmath module has the complex "
                    "functions", a->path, ty_name(v[0]->type));
    for (int i = 0; i < nargs; i++)
        if (ty_is_complex(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

static const char *api_short(const ApiEntry *a)
{
    const char *dot = strrchr(a->path, '.');
    return dot ? dot + 1 : a->path;
}

/* Lower every argument; false if one is bad (*bad set). */
bool lower_args(Ctx *c, Node *call, Node **v, Node **bad)
{
    *bad = NULL;
    for (int i = 0; i < call->args.len; i++) {
        v[i] = lx(c, call->args.items[i]);
        if (BAD(v[i]) && (!*bad || v[i]->type == ty_error))
            *bad = v[i];
    }
    return *bad == NULL;
}

/* The element types each atomic rule accepts (numba-cuda cudadecl.py:
 * all_numba_types, integer_numba_types, unsigned_int_numba_types). */
static bool atomic_accepts(ApiRule rule, const Type *el)
{
    bool i32_64 = el == ty_int32 || el == ty_int64 || el == ty_uint32 || el == ty_uint64;
    switch (rule) {
    case TR_ATOMIC_ARITH:
        return i32_64 || el == ty_float32 || el == ty_float64;
    case TR_ATOMIC_UNSIGNED:
        return el == ty_uint32 || el == ty_uint64;
    default:   /* and_ or_ xor exch cas */
        return i32_64;
    }
}

/* cuda.atomic.OP(ary, idx, val), cas(ary, idx, old, val) and
 * compare_and_swap(ary, old, val) (element 0 of a 1-D array). */
static Node *lower_atomic(Ctx *c, Node *e, const ApiEntry *a)
{
    bool cas = a->rule == TR_ATOMIC_CAS, cas0 = a->rule == TR_ATOMIC_CAS0;
    int nvals = cas || cas0 ? 2 : 1, first_val = cas0 ? 1 : 2;
    Node *ary = lx(c, e->args.items[0]);
    Node *vals[2];
    for (int i = 0; i < nvals; i++)
        vals[i] = lx(c, e->args.items[first_val + i]);
    if (BAD(ary))
        return poison(e->loc, ary, NULL);
    for (int i = 0; i < nvals; i++)
        if (BAD(vals[i]))
            return poison(e->loc, vals[i], NULL);
    if (ary->type->kind != TY_ARRAY)
        return fail(c, ary->loc, "the first argument of %s must be an array, not %s", a->path,
                    ty_name(ary->type));
    Type *el = ary->type->elem;
    if (!atomic_accepts(a->rule, el))
        return fail(c, ary->loc, "atomic %s on '%s' arrays is not supported", api_short(a),
                    ty_name(el));
    if (ary->type->space == SPACE_CONST)
        return fail(c, ary->loc, "%s on a constant array: constant memory is read-only",
                    a->path);
    if (cas0 && ary->type->ndim != 1)
        return fail(c, ary->loc, "cuda.atomic.compare_and_swap() needs a 1-D array; use "
                    "cuda.atomic.cas(ary, idx, old, val)");
    Node *n = node_new(E_API, e->loc);
    n->api = cas0 ? &api_table[API_ATOMIC_CAS] : a;
    n->type = el;
    nl_push(&n->args, ary);
    if (cas0) {
        nl_push(&n->args, tree_int(e->loc, ty_int64, 0));
    } else {
        Node *err = lower_indices(c, e->args.items[1], ary->type->ndim, e->loc, a->path,
                                  &n->args, NULL);
        if (err)
            return err;
    }
    for (int i = 0; i < nvals; i++) {
        if (!ty_is_scalar(vals[i]->type))
            return fail(c, vals[i]->loc, "the value of %s must be a scalar, not %s", a->path,
                        ty_name(vals[i]->type));
        nl_push(&n->args, tree_cast(vals[i], el));
    }
    return n;
}

static Node *lower_math(Ctx *c, Node *e, const ApiEntry *a, Node **v)
{
    if (e->args.len == 1 && ((v[0]->type == ty_float16 && half_math_name(a->id)) ||
                             (v[0]->type == ty_bfloat16 && bf16_math_name(a->id)))) {
        /* float16 (src/half.c): numba-cuda's fp16.py overloads; bfloat16
         * (src/bf16.c): bf16.py's */
        Node *r = node_new(E_API, e->loc);
        r->api = a;
        r->type = v[0]->type;
        nl_push(&r->args, v[0]);
        return r;
    }
    const Case *cases = tr_rule_cases[a->rule].cases;
    int n = tr_rule_cases[a->rule].n;
    int nargs = e->args.len;
    Type *args[3];
    for (int i = 0; i < nargs; i++) {
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
        args[i] = v[i]->type;
    }
    int k = ty_resolve_case(cases, n, args, nargs, true);
    if (k < 0)
        return fail(c, e->loc, "%s() does not accept these argument types", a->path);
    Type *ret = ty_scalar[cases[k].ret];
    if (a->rule == TR_MATH_FREXP) {   /* (mantissa, exponent): Tuple(float, int32) */
        Type *el[2] = {ret, ty_int32};
        ret = ty_tuple(el, 2);
    }
    if (a->rule == TR_MATH_MODF) {   /* npk: (fractional, integral): UniTuple(float, 2) */
        Type *el[2] = {ret, ret};
        ret = ty_tuple(el, 2);
    }
    if (a->rule == TR_MATH_SCALE) {
        /* numba: x * (pi / 180) in the result's precision (mathimpl.py) */
        double f = a->id == API_M_RADIANS ? 3.141592653589793 / 180.0 : 180.0 / 3.141592653589793;
        return tree_binop(e->loc, OP_MUL, tree_cast(v[0], ret), tree_float(e->loc, ret, f), ret);
    }
    if (a->rule == TR_MATH_PRED && ty_is_int(ty_scalar[cases[k].a[0]])) {
        /* an integer is never NaN nor infinite (numba's isnan_int_impl) */
        if (tree_is_pure(v[0]))
            return tree_int(e->loc, ty_bool, a->id == API_M_ISFINITE);
        v[0] = tree_cast(v[0], ty_float64);
    } else {
        for (int i = 0; i < nargs; i++)
            v[i] = tree_cast(v[i], ty_scalar[cases[k].a[i]]);
    }
    Seq q;
    seq_operands(c, v, nargs, &q);
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    r->type = ret;
    for (int i = 0; i < nargs; i++)
        nl_push(&r->args, v[i]);
    return seq_wrap(r, &q);
}

/* Keyword arguments and the argument count of an API call; false (and
 * *err) when they do not fit. */
bool check_arity(Ctx *c, Node *e, const ApiEntry *a, Node **err)
{
    int nargs = e->args.len;
    /* numba.cuda.random's functions are imported by their own names */
    const char *name = a->cls == AC_RNG ? api_short(a) : a->path;
    *err = NULL;
    if (e->kwargs.len)
        *err = fail(c, ((Node *)e->kwargs.items[0])->loc, "%s() takes no keyword arguments",
                    name);
    else if (nargs < a->nargs_min || nargs > a->nargs_max) {
        if (a->nargs_min == a->nargs_max)
            *err = fail(c, e->loc, "%s() takes %d argument%s (%d given)", name,
                        a->nargs_min, a->nargs_min == 1 ? "" : "s", nargs);
        else
            *err = fail(c, e->loc, "%s() takes %d to %d arguments (%d given)", name,
                        a->nargs_min, a->nargs_max, nargs);
    }
    return *err == NULL;
}

/* The data of cuda.const.array_like(X): X a module-level np.array or a
 * constant (nested) tuple.  Its name (for the Var) in *name. */
static bool const_array_data_(Ctx *c, Node *e, Node **flat, int64_t shape[3],
                              const char **name);

/* The array's elements outlive a quiet pass (its Var keeps them). */
bool const_array_data(Ctx *c, Node *e, Node **flat, int64_t shape[3],
                      const char **name)
{
    bool scratch = scratch_suspend();
    bool ok = const_array_data_(c, e, flat, shape, name);
    scratch_resume(scratch);
    return ok;
}

static bool const_array_data_(Ctx *c, Node *e, Node **flat, int64_t shape[3],
                              const char **name)
{
    Node *x = e->args.items[0];
    const Global *g = x->kind == E_NAME && !lookup_var(c, x->name) ? sema_global(x->name) : NULL;
    *name = g ? g->name : arena_printf("krt_const_%d_%d", x->loc.first_line,
                                       x->loc.first_column);
    if (g && g->kind == GLOBAL_ARRAY) {
        *flat = g->value;
        memcpy(shape, g->shape, sizeof g->shape);
        return true;
    }
    Node *k = sema_fold(x, false, ctx_is_local, c);
    if (!k || k->kind != E_TUPLE) {
        fail(c, x->loc, "cuda.const.array_like() takes a module-level array or tuple "
             "constant (C = np.array(...) or C = (1.0, 2.0))");
        return false;
    }
    return sema_const_array(k, NULL, flat, shape);   /* its errors: once per place */
}

static Node *lower_const_array_like(Ctx *c, Node *e)
{
    Node *flat;
    int64_t shape[3];
    const char *name;
    if (!const_array_data(c, e, &flat, shape, &name))
        return bad_node(e->loc, ty_error);
    return tree_var(e->loc, const_array_var(c, name, flat, shape, e->loc));
}

/* cuda.popc/brev/clz/ffs/fma/cbrt/selp, cuda.lanemask_lt(): E_API. */
static Node *lower_intrinsic(Ctx *c, Node *e, const ApiEntry *a, Node **v)
{
    int nargs = e->args.len;
    const Case *cases = NULL;
    int ncases = 0;
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    switch (a->rule) {
    case TR_LANEMASK:
        r->type = ty_uint32;
        return r;
    case TR_SELP: {
        /* numba: both values of one type, no conversion (Cuda_selp) */
        Type *t = v[1]->type;
        if (v[1]->type != v[2]->type || t->kind == TY_BOOL || t->kind == TY_INT8 ||
            t->kind == TY_UINT8 || t->kind == TY_FLOAT16)
            return fail(c, e->loc, "cuda.selp() needs two values of one type among int16, "
                        "int32, int64, uint16, uint32, uint64, float32 and float64 (%s and "
                        "%s given)", ty_name(v[1]->type), ty_name(v[2]->type));
        r->type = t;
        nl_push(&r->args, tree_cast(v[0], ty_bool));
        nl_push(&r->args, v[1]);
        nl_push(&r->args, v[2]);
        return r;
    }
    default:
        cases = tr_rule_cases[a->rule].cases, ncases = tr_rule_cases[a->rule].n;
        break;
    }
    if (!cases)
        return fail(c, e->loc, "'%s' is not supported yet", a->path);
    Type *types[3];
    for (int i = 0; i < nargs; i++)
        types[i] = v[i]->type;
    int k = ty_resolve_case(cases, ncases, types, nargs, true);
    if (k < 0)
        return fail(c, e->loc, "%s() does not accept these argument types", a->path);
    if (a->rule == TR_FFS && ty_size(ty_scalar[cases[k].a[0]]) < 4)
        return fail(c, v[0]->loc, "cuda.ffs() of %s is not supported (numba implements it "
                    "for 32- and 64-bit integers)", ty_name(v[0]->type));
    r->type = ty_scalar[cases[k].ret];
    for (int i = 0; i < nargs; i++)
        nl_push(&r->args, tree_cast(v[i], ty_scalar[cases[k].a[i]]));
    return r;
}

/* xoroshiro128p_uniform_float32(states, index) and the other draws
 * (numba/cuda/random.py): index = int64(index), then states[index] is
 * advanced; uniform_float32/normal_float32 -> float32, uniform_float64/
 * normal_float64 -> float64, next -> uint64, jump -> none (a statement). */
static Node *lower_rng(Ctx *c, Node *e, const ApiEntry *a, bool stmt)
{
    Node *states = lx(c, e->args.items[0]), *index = lx(c, e->args.items[1]);
    if (BAD(states) || BAD(index))
        return poison(e->loc, BAD(states) ? states : index, BAD(index) ? index : NULL);
    if (states->type->kind != TY_ARRAY || states->type->elem != ty_rngstate)
        return fail(c, states->loc, "the first argument of %s() must be an array of "
                    "xoroshiro128p states (a xoroshiro128p_type[:] parameter), not %s",
                    api_short(a), ty_name(states->type));
    if (!ty_is_scalar(index->type))
        return fail(c, index->loc, "the index of %s() must be a number, not %s", api_short(a),
                    ty_name(index->type));
    Node *n = node_new(E_API, e->loc);
    n->api = a;
    switch (a->rule) {
    case TR_RNG_FLOAT32: n->type = ty_float32; break;
    case TR_RNG_FLOAT64: n->type = ty_float64; break;
    case TR_RNG_UINT64: n->type = ty_uint64; break;
    default:   /* jump */
        if (!stmt)
            return fail(c, e->loc, "%s() returns no value", api_short(a));
        n->type = ty_void;
        break;
    }
    nl_push(&n->args, states);
    nl_push(&n->args, tree_cast(index, ty_int64));
    return n;
}

/* issue 9: cuda.ldca(ary, i) .. ldcv, cuda.stcg(ary, i, v) .. stwt: on
 * arrays of integers or floats, i an integer (1-D) or a tuple of ndim. */
static Node *lower_cache_hint(Ctx *c, Node *e, const ApiEntry *a, bool stmt)
{
    bool st = a->rule == TR_CACHE_ST;
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc, "%s() takes no keyword arguments",
                    a->path);
    if (st && !stmt)
        return fail(c, e->loc, "%s() returns no value", a->path);
    Node *ary = lx(c, e->args.items[0]);
    Node *val = st ? lx(c, e->args.items[2]) : NULL;
    if (BAD(ary) || (val && BAD(val)))
        return poison(e->loc, ary, val);
    if (ary->type->kind != TY_ARRAY)
        return fail(c, ary->loc, "%s operates on arrays, not %s", a->path, ty_name(ary->type));
    Type *el = ary->type->elem;
    if (!ty_is_int(el) && !ty_is_float(el))
        return fail(c, ary->loc, "%s requires an array of integers or floats, not %s", a->path,
                    ty_name(el));
    if (st && ary->type->space == SPACE_CONST)
        return fail(c, ary->loc, "a constant array is read-only");
    Node *n = node_new(E_API, e->loc);
    n->api = a;
    n->type = st ? ty_void : el;
    nl_push(&n->args, ary);
    Node *err = lower_indices(c, e->args.items[1], ary->type->ndim, e->loc, a->path, &n->args,
                              NULL);
    if (err)
        return err;
    if (st) {
        if (!ty_is_scalar(val->type))
            return fail(c, val->loc, "the value of %s must be a scalar, not %s", a->path,
                        ty_name(val->type));
        nl_push(&n->args, tree_cast(val, el));
    }
    return n;
}

/* A call of an API row, typed by the row's rule (api.def). */
/* cuda.float32x4(...) (vecrec; numba-cuda vector_types.py): the candidates
 * are every sequence of scalars (converted to the base type, unsafely if
 * need be) and vectors of the same base (exactly) with n elements in all; so
 * the arguments' own kinds pick the one candidate.  Lowered to an E_API of
 * the vector type whose args are its n elements: a vector argument gives
 * its fields (E_TUPLEGETs of a hidden variable unless it is a variable; a
 * constructor its own elements), evaluated left to right (E_LETs, as
 * seq_operands). */
static Node *lower_vector(Ctx *c, Node *e, const ApiEntry *a, Node **v)
{
    Type *vt = ty_vector_named(a->path + 5);
    int nargs = e->args.len, total = 0, last = -1;
    for (int i = 0; i < nargs; i++) {
        Type *t = v[i]->type;
        if (t->kind == TY_VECTOR && t->elem == vt->elem)
            total += t->nelems;
        else if (ty_is_scalar(t))
            total++;
        else if (t->kind == TY_VECTOR)
            return fail(c, v[i]->loc, "%s() does not accept %s: its vector arguments must be "
                        "%sx1..%sx%d", a->path, ty_name(t), ty_name(vt->elem),
                        ty_name(vt->elem), vt->nelems);
        else
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(t));
        if (!tree_is_pure(v[i]))
            last = i;
    }
    if (total != vt->nelems)
        return fail(c, e->loc, "%s() takes %d element%s (scalars or %s vectors), not %d",
                    a->path, vt->nelems, vt->nelems == 1 ? "" : "s", ty_name(vt->elem), total);
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    r->type = vt;
    Var *lets[4];
    Node *vals[4];
    int nlets = 0;
    for (int i = 0; i < nargs; i++) {
        Node *x = v[i];
        if (x->type->kind == TY_VECTOR && x->kind == E_API && x->api->rule == TR_VECTOR) {
            for (int k = 0; k < x->args.len; k++)   /* float4(float2(a, b), c, d) */
                nl_push(&r->args, x->args.items[k]);
            continue;
        }
        if (x->type->kind == TY_VECTOR) {
            if (x->kind != E_VAR && x->type->nelems > 1) {
                Var *t = hidden_var(c, "vec", x->type, x->loc);
                lets[nlets] = t;
                vals[nlets++] = x;
                x = tree_var(x->loc, t);
            }
            for (int k = 0; k < x->type->nelems; k++) {
                Node *g = node_new(E_TUPLEGET, x->loc);
                g->lhs = k ? node_clone(x) : x;
                g->ival = (uint64_t)k;
                g->type = vt->elem;
                nl_push(&r->args, g);
            }
            continue;
        }
        if (i < last && !tree_is_stable(x) && (!tree_is_pure(x) || tree_reads_memory(x))) {
            Var *t = hidden_var(c, "seq", x->type, x->loc);
            lets[nlets] = t;
            vals[nlets++] = x;
            x = tree_var(x->loc, t);
        }
        nl_push(&r->args, tree_cast(x, vt->elem));
    }
    for (int i = nlets - 1; i >= 0; i--)
        r = tree_let(r->loc, lets[i], vals[i], r);
    return r;
}

/* ---- npk: NumPy ufuncs (npufunc.c: the loops and element operations) ---- */

static const char *np_type_list(Type *const *t, int n)
{
    StrBuf b = {0};
    for (int i = 0; i < n; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", ty_name(t[i]));
    return sb_take(&b);
}

/* Each operand the element operation may read twice is made safe to: one
 * with an effect (and, when there is one, every operand not stable) is
 * evaluated once, in order, into a hidden variable bound by an E_LET
 * around the result; so is every one not stable where the operation reads
 * its operands more than once (np.maximum(a[i], b[i])). */
static Node *np_element(Ctx *c, const NpUfunc *u, Loc loc, Node **v, Type *const *li,
                        Type *lo)
{
    int nin = npu_nin(u);
    bool any_impure = npu_rereads(u, li);
    for (int i = 0; i < nin; i++)
        any_impure |= !tree_is_pure(v[i]);
    Var *lets[2] = {NULL, NULL};
    Node *vals[2] = {NULL, NULL}, *x[2];
    for (int i = 0; i < nin; i++) {
        x[i] = v[i];
        if (!tree_is_pure(v[i]) || (any_impure && !tree_is_stable(v[i]))) {
            lets[i] = hidden_var(c, "np", v[i]->type, v[i]->loc);
            vals[i] = v[i];
            x[i] = tree_var(v[i]->loc, lets[i]);
        }
    }
    Node *r = npu_element(u, loc, x, li, lo);
    for (int i = nin - 1; i >= 0; i--)
        if (lets[i])
            r = tree_let(loc, lets[i], vals[i], r);
    return r;
}

/* np.sin(x), np.maximum(x, y) on scalars: the value of the loop numba
 * chooses for their types. */
static Node *lower_np_ufunc(Ctx *c, Node *e, const ApiEntry *a)
{
    const NpUfunc *u = npu_find(a->path);
    int nin = npu_nin(u);
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc,
                    "keyword arguments of %s() are not supported", a->path);
    if (e->args.len > nin)
        return fail(c, e->loc, "%s() with an output array writes the array and returns it; "
                    "call it as a statement: %s(..., out)", a->path, a->path);
    Node *v[2], *bad;
    if (!lower_args(c, e, v, &bad))
        return poison(e->loc, bad, NULL);
    Type *in[2], *li[2], *lo;
    for (int i = 0; i < nin; i++) {
        if (v[i]->type->kind == TY_ARRAY)
            return fail(c, v[i]->loc, "%s() of an array makes a new array, which kernels "
                        "cannot allocate; pass the output array: %s(..., out)", a->path,
                        a->path);
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
        in[i] = v[i]->type;
    }
    if (!npu_resolve(u, in, NULL, 0, li, &lo))
        return fail(c, e->loc, "%s() does not accept (%s)", a->path, np_type_list(in, nin));
    return np_element(c, u, e->loc, v, li, lo);
}

static Node *np_shape(Node *arr, int d)
{
    Node *n = node_new(E_SHAPE, arr->loc);
    n->lhs = node_clone(arr);
    n->ival = (uint64_t)d;
    n->type = ty_int64;
    return n;
}

/* np.sin(a, out), np.add-like np.maximum(a, 2.0, out): numba's
 * numpy_ufunc_kernel.  A loop nest over out's shape (C order); an input
 * array is aligned with out's trailing dimensions and read at the loop's
 * index along each dimension of its own longer than 1, at 0 along the
 * others (numba does not check the shapes further: debug=True's bounds
 * checks do); a scalar input is evaluated once, before the loop; each
 * element is converted to out's type as it is stored. */
void lower_np_ufunc_out(Ctx *c, Node *e, const ApiEntry *a, NodeList *out)
{
    const NpUfunc *u = npu_find(a->path);
    int nin = npu_nin(u);
    Node *err;
    if (!check_arity(c, e, a, &err))
        return;
    if (e->kwargs.len) {
        fail(c, ((Node *)e->kwargs.items[0])->loc, "keyword arguments of %s() are not "
             "supported", a->path);
        return;
    }
    Node *v[3], *bad;
    if (!lower_args(c, e, v, &bad))
        return;
    Node *o = v[nin];
    if (o->type->kind != TY_ARRAY) {
        fail(c, o->loc, "the output of %s() must be an array, not %s", a->path,
             ty_name(o->type));
        return;
    }
    if (o->type->space == SPACE_CONST) {
        fail(c, o->loc, "the output of %s() cannot be a constant array", a->path);
        return;
    }
    int nd = o->type->ndim;
    Type *in[2], *li[2], *lo, *oe = o->type->elem;
    for (int i = 0; i <= nin; i++) {
        Type *t = v[i]->type;
        if (t->kind == TY_ARRAY && (t->elem == ty_rngstate || v[i]->kind != E_VAR)) {
            fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(t));
            return;
        }
        if (i == nin)
            break;
        if (t->kind == TY_ARRAY && t->ndim > nd) {
            fail(c, v[i]->loc, "%s(): a %d-D input cannot be broadcast onto a %d-D output",
                 a->path, t->ndim, nd);
            return;
        }
        if (t->kind != TY_ARRAY && !ty_is_scalar(t)) {
            fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(t));
            return;
        }
        in[i] = t->kind == TY_ARRAY ? t->elem : t;
    }
    if (!npu_resolve(u, in, &oe, 1, li, &lo)) {
        fail(c, e->loc, "%s() has no loop for inputs (%s) and an output of %s", a->path,
             np_type_list(in, nin), ty_name(oe));
        return;
    }
    if (c->quiet)
        return;
    Loc loc = e->loc;
    for (int i = 0; i < nin; i++) {
        if (v[i]->type->kind == TY_ARRAY || tree_is_stable(v[i]))
            continue;
        Var *t = hidden_var(c, "np", v[i]->type, v[i]->loc);
        nl_push(out, tree_assign(loc, tree_var(loc, t), v[i]));
        v[i] = tree_var(loc, t);
    }
    Var *iv[8];
    NodeList *body = out;
    for (int d = 0; d < nd; d++) {
        Node *f = tree_stmt(S_FORRANGE, loc);
        iv[d] = hidden_var(c, "i", ty_int64, loc);
        f->var = iv[d];
        f->it = hidden_var(c, "it", ty_int64, loc);
        f->stop = hidden_var(c, "stop", ty_int64, loc);
        f->step = hidden_var(c, "step", ty_int64, loc);
        nl_push(&f->args, tree_int(loc, ty_int64, 0));
        nl_push(&f->args, np_shape(o, d));
        nl_push(&f->args, tree_int(loc, ty_int64, 1));
        nl_push(body, f);
        body = &f->body;
    }
    Node *x[2];
    for (int i = 0; i < nin; i++) {
        Type *t = v[i]->type;
        if (t->kind != TY_ARRAY) {
            x[i] = v[i];
            continue;
        }
        Node *ix = node_new(E_INDEX, loc);
        ix->lhs = node_clone(v[i]);
        ix->type = t->elem;
        for (int j = 0; j < t->ndim; j++) {
            Node *id = tree_var(loc, iv[nd - t->ndim + j]);
            Node *gt = node_new(E_COMPARE, loc);
            nl_push(&gt->args, np_shape(v[i], j));
            nl_push(&gt->args, tree_int(loc, ty_int64, 1));
            gt->ops = arena_alloc(sizeof *gt->ops);
            gt->ops[0] = OP_GT;
            gt->type = ty_bool;
            Node *sel = node_new(E_IFEXP, loc);
            sel->cond = gt;
            sel->lhs = id;
            sel->rhs = tree_int(loc, ty_int64, 0);
            sel->type = ty_int64;
            nl_push(&ix->args, sel);
        }
        x[i] = ix;
    }
    Node *target = node_new(E_INDEX, loc);
    target->lhs = node_clone(o);
    target->type = oe;
    for (int d = 0; d < nd; d++)
        nl_push(&target->args, tree_var(loc, iv[d]));
    nl_push(body, tree_assign(loc, target, tree_cast(np_element(c, u, loc, x, li, lo), oe)));
}

static Node *lower_api_call(Ctx *c, Node *e, const ApiEntry *a, bool stmt)
{
    int nargs = e->args.len;
    switch (a->rule) {   /* uses refused whatever the arguments */
    case TR_VOID:
        return fail(c, e->loc, "'void' cannot be called");
    case TR_ARRAY_DECL:
        return fail(c, e->loc, "%s() must be assigned directly to a name: "
                    "x = %s(shape, dtype)", a->path, a->path);
    case TR_RANGE:
        return fail(c, e->loc, "range() is only supported as the iterable of a for loop");
    case TR_ITER:
        return fail(c, e->loc, "%s() is only supported as the iterable of a for loop", a->path);
    case TR_CACHE_LD:
    case TR_CACHE_ST:
        return lower_cache_hint(c, e, a, stmt);
    case TR_PRINT:
        return fail(c, e->loc, "print() returns no value; call it as a statement");
    case TR_HOST:
        return fail(c, e->loc, "%s() runs on the host, not in a kernel: make the states "
                    "there (krt_create_xoroshiro128p_states() in C) and pass them as a "
                    "xoroshiro128p_type[:] parameter", api_short(a));
    case TR_RNG_TYPE:
        return fail(c, e->loc, "xoroshiro128p_type is only allowed in signatures, as the "
                    "element type of an array of states (xoroshiro128p_type[:])");
    default:
        break;
    }
    if (api_has(a, AF_COLLECTIVE)) {
        bool barrier = a->cls == AC_BARRIER;
        return fail(c, e->loc, "%s() cannot be evaluated conditionally or repeatedly here "
                    "(and/or, x if c else y, a comparison chain, a while condition): assign it "
                    "to a variable first; kernc splits the kernel at %s so that the CPU "
                    "backend can run %s in step", a->path,
                    barrier ? "barriers" : "warp-collective operations",
                    barrier ? "the threads of a block" : "the 32 threads of a warp");
    }
    Node *err;
    if (!check_arity(c, e, a, &err))
        return err;
    switch (a->rule) {   /* rules that lower their own arguments */
    case TR_CONST_ARRAY:
        return lower_const_array_like(c, e);
    case TR_NP_UFUNC:   /* npk */
        return lower_np_ufunc(c, e, a);
    case TR_FENCE: case TR_NANOSLEEP: {
        if (!stmt)
            return fail(c, e->loc, "%s() returns no value", a->path);
        Node *n = node_new(E_API, e->loc);
        n->api = a;
        n->type = ty_void;
        if (a->rule == TR_NANOSLEEP) {   /* Cuda_nanosleep: (uint32) -> void */
            Node *ns = lx(c, e->args.items[0]);
            if (BAD(ns))
                return poison(e->loc, ns, NULL);
            if (!ty_is_scalar(ns->type))
                return fail(c, ns->loc, "cuda.nanosleep() does not accept %s", ty_name(ns->type));
            nl_push(&n->args, tree_cast(ns, ty_uint32));
        }
        return n;
    }
    case TR_SYNCTHREADS:
        if (!stmt)
            return fail(c, e->loc, "cuda.syncthreads() returns no value");
        return bad_node(e->loc, ty_void);   /* the caller makes the S_BARRIER */
    case TR_GRID: {
        int64_t k;
        if (!const_int(c, e->args.items[0], &k) || k < 1 || k > 3)
            return fail(c, ((Node *)e->args.items[0])->loc,
                        "the argument of %s() must be the constant 1, 2 or 3", a->path);
        Node *n = node_new(E_API, e->loc);
        n->api = a;
        nl_push(&n->args, tree_int(((Node *)e->args.items[0])->loc, ty_int64, k));
        if (k == 1) {
            n->type = ty_int64;
        } else {
            Type *el[3] = {ty_int64, ty_int64, ty_int64};
            n->type = ty_tuple(el, (int)k);
        }
        return n;
    }
    case TR_ATOMIC_ARITH: case TR_ATOMIC_BITS: case TR_ATOMIC_UNSIGNED: case TR_ATOMIC_CAS:
    case TR_ATOMIC_CAS0:
        return lower_atomic(c, e, a);
    case TR_RNG_FLOAT32: case TR_RNG_FLOAT64: case TR_RNG_UINT64: case TR_RNG_JUMP:
        return lower_rng(c, e, a, stmt);
    case TR_THIS_GRID: {   /* a GridGroup: lowered to nothing */
        Node *n = node_new(E_API, e->loc);
        n->api = a;
        n->type = ty_gridgroup;
        return n;
    }
    default:
        break;
    }

    Node **v = arena_alloc(sizeof *v * (size_t)(nargs ? nargs : 1));
    Node *bad;
    if (!lower_args(c, e, v, &bad))
        return poison(e->loc, bad, NULL);
    if (a->rule == TR_VECTOR)
        return lower_vector(c, e, a, v);
    Node *cx = lower_complex_call(c, e, a, v, nargs);
    if (cx)
        return cx;
    switch (a->rule) {   /* rules of lowered arguments */
    case TR_FP16: case TR_FP16_PRED: {   /* float16 (src/half.c): cuda.fp16 */
        Seq q;
        for (int i = 0; i < nargs; i++)
            if (!ty_is_scalar(v[i]->type))
                return fail(c, v[i]->loc, "%s() does not accept %s", a->path,
                            ty_name(v[i]->type));
        seq_operands(c, v, nargs, &q);
        Node *r = node_new(E_API, e->loc);
        r->api = a;
        r->type = a->rule == TR_FP16 ? ty_float16 : ty_bool;
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], ty_float16));
        return seq_wrap(r, &q);
    }
    case TR_BF16: {   /* bfloat16 (src/bf16.c): numba.cuda.bf16, one signature */
        Type *ret, *param;
        Seq q;
        if (!bf16_signature(a->id, &ret, &param))
            return fail(c, e->loc, "%s() is not supported", a->path);
        for (int i = 0; i < nargs; i++)
            if (!ty_is_scalar(v[i]->type) || (!ty_converts_safely(v[i]->type, param) &&
                                              !ty_converts_unsafely(v[i]->type, param)))
                return fail(c, v[i]->loc, "%s() does not accept %s (it takes %s)", a->path,
                            ty_name(v[i]->type), ty_name(param));
        seq_operands(c, v, nargs, &q);
        Node *r = node_new(E_API, e->loc);
        r->api = a;
        r->type = ret;
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], param));
        return seq_wrap(r, &q);
    }
    case TR_CAST: {   /* float32(x): a conversion */
        if (!ty_is_scalar(v[0]->type))
            return fail(c, v[0]->loc, "cannot convert %s to %s", ty_name(v[0]->type), a->path);
        return tree_cast(v[0], api_type(a));
    }
    case TR_MATH_UNARY: case TR_MATH_ATAN2: case TR_MATH_BINARY: case TR_MATH_POW:
    case TR_MATH_LDEXP: case TR_MATH_PRED: case TR_MATH_FREXP: case TR_MATH_SCALE:
    case TR_MATH_MODF:
        return lower_math(c, e, a, v);
    case TR_LANEMASK: case TR_SELP: case TR_POPC: case TR_BREV: case TR_FFS: case TR_FMA:
    case TR_FLOAT1:
        return lower_intrinsic(c, e, a, v);
    default:
        break;
    }
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type) && a->rule != TR_LEN)
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    switch (a->rule) {   /* the Python builtins */
    case TR_ABS: {
        if (v[0]->type == ty_float16) {   /* float16 (src/half.c): __habs */
            r->type = ty_float16;
            nl_push(&r->args, v[0]);
            return r;
        }
        const CaseList *rc = &tr_rule_cases[TR_ABS];
        int k = ty_resolve_case(rc->cases, rc->n, &v[0]->type, 1, true);
        r->type = ty_scalar[rc->cases[k].ret];
        nl_push(&r->args, tree_cast(v[0], r->type));
        return r;
    }
    case TR_MINMAX: {
        Type *t = NULL;
        for (int i = 0; i < nargs; i++) {
            if (v[i]->type->kind == TY_BOOL)
                return fail(c, v[i]->loc, "%s() arguments must be numbers, not boolean",
                            a->path);
            t = t ? ty_unify(t, v[i]->type) : v[i]->type;
        }
        r->type = t;
        /* numba-cuda's fmin/fmax lowering is registered for two floats only;
         * with an integer operand (even a constant, which mk_cast folds) it
         * is the generic lowering, Python's comparisons */
        if (nargs == 2 && !(ty_is_float(v[0]->type) && ty_is_float(v[1]->type)))
            r->ival = 1;
        Seq q;
        seq_operands(c, v, nargs, &q);
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], t));
        return seq_wrap(r, &q);
    }
    case TR_INT:
        return ty_is_int(v[0]->type) ? v[0] : tree_cast(v[0], ty_int64);
    case TR_FLOAT:
        if (v[0]->type->kind == TY_BOOL)
            return fail(c, v[0]->loc, "float() does not accept a boolean");
        return ty_is_float(v[0]->type) ? v[0] : tree_cast(v[0], ty_float64);
    case TR_BOOL:
        return tree_cast(v[0], ty_bool);
    case TR_ROUND: {
        const Case *cs = nargs == 1 ? tr_round1.cases : tr_round2.cases;
        int k = ty_resolve_case(cs, 2, (Type *[]){v[0]->type, nargs > 1 ? v[1]->type : NULL},
                             nargs, true);
        if (k < 0)
            return fail(c, e->loc, "round() does not accept these argument types");
        r->type = ty_scalar[cs[k].ret];
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], ty_scalar[cs[k].a[i]]));
        return r;
    }
    case TR_POW:
        return lower_binop(c, e->loc, OP_POW, v[0], v[1]);
    case TR_LEN:
        if (v[0]->type->kind == TY_ARRAY) {
            Node *s = node_new(E_SHAPE, e->loc);
            s->lhs = v[0];
            s->type = ty_int64;
            return s;
        }
        if (v[0]->type->kind == TY_TUPLE)
            return tree_int(e->loc, ty_int64, v[0]->type->nelems);
        if (ty_is_charseq(v[0]->type))   /* str: numba's charseq_len */
            return charseq_len(e->loc, v[0]);
        return fail(c, v[0]->loc, "len() of %s is not supported", ty_name(v[0]->type));
    default:
        break;
    }
    return fail(c, e->loc, "'%s' is not supported yet", a->path);
}

/* py (issue 9): the compile-time type of a device-function argument that
 * names a function (a device function: numba's Dispatcher), a callable API
 * row (cuda.atomic.add, math.sin: Function) or a scalar type (uint32,
 * np.float64: NumberClass), also through a parameter holding one; NULL
 * for an ordinary value. */
static Type *ct_arg(Ctx *c, const Node *a)
{
    if (a->kind != E_NAME && a->kind != E_ATTR)
        return NULL;
    if (a->kind == E_NAME) {
        Var *lv = lookup_var(c, a->name);
        if (lv)
            return ty_is_ct(lv->type) ? lv->type : NULL;
        const Global *g = sema_global(a->name);
        if (g && g->kind == GLOBAL_FUNC)
            return ty_funcref(g->fn);
    }
    const char *p = expr_path(c, a);
    const ApiEntry *api = p ? api_lookup(p) : NULL;
    if (!api)
        return NULL;
    if (api->kind == AK_CALL && api->cls != AC_MEMORY)
        return ty_apiref(api);
    if (api->kind == AK_TYPE) {
        Type *t = api_type(api);
        if (t && ty_is_scalar(t)) {
            Type *r = ty_typeref(t);
            if (!r->api)
                r->api = api;
            return r;
        }
    }
    return NULL;
}

/* py: numba's Literal[int] / Literal[bool], and tuples of them */
static bool is_literal(const Node *v)
{
    if (v->kind == E_CONST)
        return v->type == ty_int64 || v->type == ty_bool;
    if (v->kind != E_TUPLE || !v->args.len)
        return false;
    for (int i = 0; i < v->args.len; i++)
        if (!is_literal(v->args.items[i]))
            return false;
    return true;
}

static int param_index(Ctx *c, const char *name)
{
    Var *v = lookup_var(c, name);
    for (int j = 0; v && j < c->fn->nparams; j++)
        if (c->vars.items[j] == v)
            return j;
    return -1;
}

/* arr: pre0, when not NULL, is e's first argument already lowered (the
 * array of a reduction, reduce_array.c) */
static Node *lower_device_call_(Ctx *c, Node *e, FuncDef *fd, bool stmt, Node *pre0)
{
    /* dev (issue 9): numba-cuda 0.30 compiles a kernel called from device
     * code as a device function for the call's argument types
     * (CUDADispatcher.get_call_template -> compile_device): spec_get makes
     * that specialisation a device function; its result is None */
    bool kernel_callee = fd->is_kernel;
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc,
                    "keyword arguments in device function calls are not supported yet");
    int nargs = e->args.len, nparams = fd->def->params.len;
    /* py (issue 9): def f(a, *args): the extra arguments are a tuple */
    bool va = nparams > 0 && ((Node *)fd->def->params.items[nparams - 1])->ival == 1;
    if (va && nargs < nparams - 1)
        return fail(c, e->loc, "%s() takes at least %d argument%s (%d given)", fd->name,
                    nparams - 1, nparams == 2 ? "" : "s", nargs);
    if (!va && nargs != nparams)
        return fail(c, e->loc, "%s() takes %d argument%s (%d given)", fd->name, nparams,
                    nparams == 1 ? "" : "s", nargs);
    Node **v = arena_alloc(sizeof *v * (size_t)(nargs ? nargs : 1));
    Type **types = arena_alloc(sizeof *types * (size_t)(nargs ? nargs : 1));
    Node **lits = arena_alloc(sizeof *lits * (size_t)(nargs ? nargs : 1));
    int *lit_from = arena_alloc(sizeof *lit_from * (size_t)(nargs ? nargs : 1));
    Node *bad = NULL;
    bool any_lit = false;
    for (int i = 0; i < nargs; i++) {
        Node *a = e->args.items[i];
        lit_from[i] = -1;
        /* py (issue 9): a function, atomic or dtype passed as a value is
         * part of the specialisation, as numba's Dispatcher, Function and
         * NumberClass argument types are */
        Type *ct = fd->nsigs || (i == 0 && pre0) ? NULL : ct_arg(c, a);
        if (ct) {
            types[i] = ct;
            v[i] = NULL;
            continue;
        }
        v[i] = i == 0 && pre0 ? pre0 : lx(c, a);
        if (BAD(v[i])) {
            if (!bad || v[i]->type == ty_error)
                bad = v[i];
            continue;
        }
        /* py: a literal int or bool (numba's Literal[int], Literal[bool]) */
        if (!fd->nsigs && is_literal(v[i]) &&
            (a->kind == E_TUPLE || a->kind == E_INT || a->kind == E_BOOL || a->kind == E_NAME || a->kind == E_UNARY ||
             a->kind == E_BINOP)) {
            lits[i] = v[i];
            any_lit = true;
        } else if (!fd->nsigs && a->kind == E_NAME && c->lits) {
            int j = param_index(c, a->name);
            if (j >= 0 && c->lits[j]) {   /* a literal parameter passed on */
                lits[i] = c->lits[j];
                lit_from[i] = j;
                any_lit = true;
            }
        }
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    if (va) {   /* py: pack the extra arguments (numba's StarArgTuple) */
        int k = nparams - 1;
        Node *tup = node_new(E_TUPLE, e->loc);
        Type **el = arena_alloc(sizeof *el * (size_t)(nargs - k + 1));
        for (int i = k; i < nargs; i++) {
            if (!v[i])
                return fail(c, ((Node *)e->args.items[i])->loc, "a function or dtype cannot be "
                            "passed in '*%s' here", ((Node *)fd->def->params.items[k])->name);
            if (!ty_is_scalar(v[i]->type) && v[i]->type->kind != TY_TUPLE &&
                v[i]->type->kind != TY_VECTOR && v[i]->type->kind != TY_ARRAY)
                return fail(c, v[i]->loc, "cannot pass %s to a device function",
                            ty_name(v[i]->type));
            el[i - k] = v[i]->type;
            nl_push(&tup->args, v[i]);
        }
        if (nargs == k)
            return fail(c, e->loc, "an empty '*%s' is not supported (kernc has no empty "
                        "tuples)", ((Node *)fd->def->params.items[k])->name);
        tup->type = ty_tuple(el, nargs - k);
        v[k] = tup;
        lits[k] = NULL;
        lit_from[k] = -1;
        nargs = nparams;
    }
    for (int i = 0; i < nargs; i++) {
        if (!v[i])
            continue;
        Type *t = v[i]->type;
        if (t == ty_gridgroup)
            return fail(c, v[i]->loc, "cannot pass a GridGroup to a device function; call "
                        "cuda.cg.this_grid() in the device function instead");
        if (!ty_is_scalar(t) && t->kind != TY_ARRAY && t->kind != TY_TUPLE &&
            t->kind != TY_VECTOR && t->kind != TY_RECORD &&   /* rec: by reference */
            t->kind != TY_CHARSEQ)   /* str: by value, as numba */
            return fail(c, v[i]->loc, "cannot pass %s to a device function", ty_name(t));
        types[i] = t;
    }
    if (fd->nsigs > 0 && !kernel_callee) {
        /* eager signature: arguments are converted to it; ufunc.c: of
         * several (@vectorize), the one the arguments match exactly */
        const Signature *sg = &fd->sigs[0];
        for (int j = fd->nsigs - 1; j >= 0; j--)   /* none matches: the first of this arity */
            if (fd->sigs[j].nparams == nargs)
                sg = &fd->sigs[j];
        /* suite (issues 8/9): numba's _resolve_overload: the signature
         * with the fewest (unsafe, safe, promote) conversions, the first
         * on a tie; non-scalars must match exactly */
        int best_rate[3] = {0, 0, 0};
        bool found = false;
        for (int j = 0; j < fd->nsigs; j++) {
            if (fd->sigs[j].nparams != nargs)
                continue;
            int rate[3] = {0, 0, 0};
            bool ok = true;
            for (int i = 0; i < nargs && ok; i++) {
                int k = ty_conversion_kind(types[i], fd->sigs[j].params[i]);
                if (k >= 4)
                    ok = false;
                else if (k > 0)
                    rate[3 - k]++;
            }
            if (!ok)
                continue;
            bool better = !found;
            for (int k = 0; k < 3 && !better; k++)
                if (rate[k] != best_rate[k]) {
                    better = rate[k] < best_rate[k];
                    break;
                }
            if (better) {
                sg = &fd->sigs[j];
                memcpy(best_rate, rate, sizeof rate);
                found = true;
            }
        }
        /* a signature of another arity (the signature's own error says so;
         * kernc checks it when it types the function, which may come after
         * this call): no parameter types to convert to */
        if (sg->nparams != nargs)
            return fail(c, e->loc, "%s() has no signature with %d parameter%s", fd->name,
                        nargs, nargs == 1 ? "" : "s");
        for (int i = 0; i < nargs; i++) {
            Type *want = sg->params[i];
            if (ty_is_scalar(want) && ty_is_scalar(types[i]))
                types[i] = want;
            else if (want != types[i])
                return fail(c, v[i]->loc, "%s() expects %s here, not %s", fd->name,
                            ty_name(want), ty_name(types[i]));
        }
    }
    Spec *s = spec_get_lits(c, fd, types, any_lit ? lits : NULL, nargs, e->loc);
    if (!s)
        return bad_node(e->loc, c->quiet ? NULL : ty_error);
    for (int i = 0; i < nargs; i++)   /* py: the callee used our literal */
        if (lit_from[i] >= 0 && s->lit_used && s->lit_used[i])
            c->lit_used[lit_from[i]] = true;
    if (!s->f->ret)
        return bad_node(e->loc, NULL);
    if (s->failed)   /* its errors are reported: no cascade at the call */
        return bad_node(e->loc, c->quiet ? NULL : ty_error);
    if (s->f->ret == ty_void && !stmt && s->f->recursive && s->finalizing)   /* dev */
        return fail(c, e->loc, "cannot type infer runaway recursion ('%s' returns only what "
                    "it returns)", fd->name);
    if (s->f->ret == ty_void && !stmt)
        return fail(c, e->loc, "device function '%s' returns no value", fd->name);
    /* a call statement, or one to a function with barriers (the emitter
     * splits the caller there), keeps the plain form */
    /* py: compile-time arguments are not passed */
    int nrt = 0;
    for (int i = 0; i < nargs; i++)
        if (v[i]) {
            v[nrt] = v[i];
            types[nrt++] = types[i];
        }
    Seq q = {.n = 0};
    if (s->f->ret != ty_void && !s->f->has_barrier && !s->f->has_warpop)
        seq_operands(c, v, nrt, &q);
    Node *n = node_new(E_CALLFN, e->loc);
    n->callee = s->f;
    n->type = s->f->ret;
    for (int i = 0; i < nrt; i++)
        nl_push(&n->args, tree_cast(v[i], types[i]));
    if (!c->quiet) {
        c->fn->has_barrier |= s->f->has_barrier;
        c->fn->has_warpop |= s->f->has_warpop;
        c->fn->has_grid_sync |= s->f->has_grid_sync;
        c->fn->uses_dynshared |= s->f->uses_dynshared;
        c->fn->ffi_cooperative |= s->f->ffi_cooperative;   /* dev */
    }
    return seq_wrap(n, &q);
}

static Node *lower_device_call(Ctx *c, Node *e, FuncDef *fd, bool stmt)
{
    return lower_device_call_(c, e, fd, stmt, NULL);
}

Node *lower_device_call_pre(Ctx *c, Node *e, FuncDef *fd, bool stmt, Node *pre0)
{
    return lower_device_call_(c, e, fd, stmt, pre0);
}

/* dev (issue 9): a call of a cuda.declare_device function (ffi.c): the
 * arguments converted to its signature as numba converts them (any scalar
 * to any scalar), an E_FFICALL of the wrapper emit_host.c prints. */
static Node *lower_foreign_call(Ctx *c, Node *e, const Foreign *f, bool stmt)
{
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc,
                    "keyword arguments in foreign function calls are not supported");
    int nargs = e->args.len;
    if (nargs != f->sig.nparams)
        return fail(c, e->loc, "%s() takes %d argument%s (%d given)", f->name, f->sig.nparams,
                    f->sig.nparams == 1 ? "" : "s", nargs);
    Node **v = arena_alloc(sizeof *v * (size_t)(nargs ? nargs : 1));
    Node *bad;
    if (!lower_args(c, e, v, &bad))
        return poison(e->loc, bad, NULL);
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() expects %s here, not %s", f->name,
                        ty_name(f->sig.params[i]), ty_name(v[i]->type));
    if (f->sig.ret == ty_void && !stmt)
        return fail(c, e->loc, "foreign function '%s' returns no value", f->name);
    Seq q = {.n = 0};
    seq_operands(c, v, nargs, &q);
    Node *n = node_new(E_FFICALL, e->loc);
    n->name = f->cname;
    n->type = f->sig.ret;
    for (int i = 0; i < nargs; i++)
        nl_push(&n->args, tree_cast(v[i], f->sig.params[i]));
    if (!c->quiet)
        c->fn->ffi_cooperative |= f->cooperative;
    return seq_wrap(n, &q);
}

/* g.sync() on g = cuda.cg.this_grid() (numba: GridGroup.sync): the
 * caller makes the S_BARRIER of a statement; numba's int32 result (always
 * 0) is not available, as kernc splits the kernel there. */
static Node *lower_grid_method(Ctx *c, Node *e, bool stmt)
{
    const ApiEntry *a = &api_table[API_GRID_SYNC];
    if (strcmp(e->lhs->name, "sync") != 0)
        return fail(c, e->lhs->loc, "a GridGroup has no method '%s' (only sync())",
                    e->lhs->name);
    if (e->kwargs.len || e->args.len)
        return fail(c, e->loc, "GridGroup.sync() takes no arguments");
    if (!stmt)
        return fail(c, e->loc, "GridGroup.sync() must be a statement of its own: kernc "
                    "splits the kernel at grid syncs, and their int32 result (always 0) is "
                    "not available");
    Node *n = node_new(E_API, e->loc);
    n->api = a;
    n->type = ty_void;
    return n;
}

/* ---- Array methods (issue 9): a.T, a.transpose(), a.reshape(),
 * a.view(dtype), as numba-cuda 0.30 types them (arraydecl.py) ---- */
static Node *array_op(Loc loc, int op, Node *base, Type *t)
{
    Node *n = node_new(E_ARRAYOP, loc);
    n->ival = (uint64_t)op;
    n->lhs = base;
    n->type = t;
    return n;
}

/* a.T and a.transpose(): the axes reversed (C <-> F); 1-D: a itself */
Node *array_transpose(Loc loc, Node *base)
{
    Type *t = base->type;
    if (t->ndim <= 1)
        return base;
    Type *r = t->contiguous ? ty_array_f(t->elem, t->ndim, t->space)
              : t->fortran ? ty_array(t->elem, t->ndim, true, t->space)
              : t;
    Node *n = array_op(loc, AOP_TRANSPOSE, base, r);
    for (int i = 0; i < t->ndim; i++)
        nl_push(&n->args, tree_int(loc, ty_int64, t->ndim - 1 - i));
    return n;
}

static Node *lower_array_method(Ctx *c, Node *e, Node *base, bool stmt)
{
    const char *m = e->lhs->name;
    Type *t = base->type;
    if (reduce_is_function(m))   /* arr: a.sum() (reduce_array.c) */
        return lower_reduction(c, e, m, base, stmt);
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc, "array.%s() takes no keyword "
                    "arguments here", m);
    if (t->elem == ty_rngstate)
        return fail(c, e->loc, "xoroshiro128p states have no method '%s'", m);
    int nargs = e->args.len;
    Node **items = e->args.items;
    if (nargs == 1 && ((Node *)items[0])->kind == E_TUPLE &&
        (strcmp(m, "transpose") == 0 || strcmp(m, "reshape") == 0)) {
        nargs = ((Node *)items[0])->args.len;   /* a.reshape((2, 3)) */
        items = ((Node *)items[0])->args.items;
    }
    if (strcmp(m, "transpose") == 0) {
        if (nargs == 0)
            return array_transpose(e->loc, base);
        /* numba-cuda 0.30 types transpose(axes) but cannot lower it
         * (arrayobj.py permute_arrays builds a Python set) */
        return fail(c, e->loc, "transpose() with axes cannot be compiled for the CUDA "
                    "target (numba-cuda lowers only a.T and a.transpose())");
    }
    if (strcmp(m, "reshape") == 0) {
        if (!t->contiguous)
            return fail(c, e->loc, "reshape() supports contiguous (C) arrays only, not %s",
                        ty_name(t));
        Node *tv = NULL, *pre = NULL;   /* py: a.reshape(shape) of a tuple value */
        if (nargs == 1 && ((Node *)items[0])->kind != E_TUPLE) {
            Node *v = pre = lx(c, items[0]);
            if (BAD(v))
                return poison(e->loc, v, NULL);
            if (v->type->kind == TY_TUPLE) {
                if (!tree_is_pure(v))
                    return fail(c, v->loc, "a shape tuple returned by a call is not supported "
                                "here; assign it to a variable first");
                tv = v;
                nargs = v->type->nelems;
            }
        }
        if (nargs < 1 || nargs > 3)
            return fail(c, e->loc, "reshape() to %d dimensions is not supported (1 to 3)",
                        nargs);
        Node *n = array_op(e->loc, AOP_RESHAPE, base, ty_array(t->elem, nargs, true, t->space));
        for (int i = 0; i < nargs; i++) {
            Node *v = tv ? tree_tupleget(node_clone(tv), i) : pre ? pre : lx(c, items[i]);
            if (BAD(v))
                return poison(e->loc, v, NULL);
            if (!ty_is_int(v->type))
                return fail(c, items[i]->loc, "the shape of reshape() must be integers, not %s",
                            ty_name(v->type));
            nl_push(&n->args, tree_cast(v, ty_int64));
        }
        return n;
    }
    if (strcmp(m, "view") == 0) {
        if (nargs != 1)
            return fail(c, e->loc, "array.view() takes one dtype");
        const char *dp = expr_path(c, items[0]);
        const ApiEntry *da = dp ? api_lookup(dp) : NULL;
        Type *el = da && da->kind == AK_TYPE ? api_type(da) : NULL;
        if (!el || !ty_is_scalar(el))
            return fail(c, items[0]->loc, "the argument of array.view() must be a scalar type "
                        "such as np.int32");
        if (el == t->elem)
            return base;
        if (t->fortran && ty_size(el) != ty_size(t->elem))
            return fail(c, e->loc, "view() with another itemsize of an F-layout array is not "
                        "supported yet");
        Type *r = t->fortran ? ty_array_f(el, t->ndim, t->space)
                             : ty_array(el, t->ndim, t->contiguous, t->space);
        Node *n = array_op(e->loc, AOP_DTYPE, base, r);
        nl_push(&n->args, tree_int(e->loc, ty_int64, ty_size(t->elem)));
        nl_push(&n->args, tree_int(e->loc, ty_int64, ty_size(el)));
        return n;
    }
    if (reduction_message(m))   /* py: a.sum(), a.max() */
        return fail(c, e->lhs->loc, "%s", reduction_message(m));
    if (strcmp(m, "copy") == 0 || strcmp(m, "flatten") == 0 || strcmp(m, "ravel") == 0 ||
        strcmp(m, "astype") == 0)
        return fail(c, e->loc, "array.%s() allocates a new array, which numba-cuda cannot do "
                    "on the device (NRT)", m);
    return fail(c, e->lhs->loc, "method '%s' of %s is not supported", m, ty_name(t));
}

/* npk: x.bit_count() of an integer: numba-cuda's overload (intrinsics.py)
 * is cuda.popc(x), of x's own type. */
static Node *lower_bit_count(Ctx *c, Node *e, Node *x)
{
    if (e->args.len || e->kwargs.len)
        return fail(c, e->loc, "bit_count() takes no arguments");
    Node *r = node_new(E_API, e->loc);
    r->api = &api_table[API_POPC];
    r->type = x->type;
    nl_push(&r->args, x);
    return r;
}

/* py (issue 9): f(*t), t a tuple (numba's StarArgs): each element of each
 * starred argument into a hidden variable (the tuple evaluated once, left
 * to right), the call made with those, inside E_LETs marked ival 1 (an
 * expression statement makes them assignments). */
static Node *lower_starred_call(Ctx *c, Node *e, bool stmt)
{
    Node *n = arena_alloc(sizeof *n);
    *n = *e;
    n->args = (NodeList){0};
    PtrVec vars = {0}, vals = {0};
    for (int i = 0; i < e->args.len; i++) {
        Node *a = e->args.items[i];
        if (a->kind != E_STARRED) {
            nl_push(&n->args, a);
            continue;
        }
        Node *t = lx(c, a->lhs);
        if (BAD(t))
            return poison(e->loc, t, NULL);
        if (t->type->kind != TY_TUPLE)
            return fail(c, a->loc, "a '*' argument must be a tuple here, not %s",
                        ty_name(t->type));
        Var *tv = hidden_var(c, "star", t->type, a->loc);
        vec_push(&vars, tv);
        vec_push(&vals, t);
        for (int j = 0; j < t->type->nelems; j++) {
            Var *ev = hidden_var(c, "sarg", t->type->elems[j], a->loc);
            vec_push(&vars, ev);
            vec_push(&vals, tree_tupleget(tree_var(a->loc, tv), j));
            nl_push(&n->args, tree_var(a->loc, ev));
        }
    }
    Node *r = lx_call(c, n, stmt);
    if (BAD(r))
        return r;
    for (int i = vars.len - 1; i >= 0; i--) {
        r = tree_let(e->loc, vars.items[i], vals.items[i], r);
        r->ival = 1;
    }
    return r;
}

/* x.view(np.int32) of a scalar: numba-cuda's scalar_view (np/math/
 * numbers.py), for Float and Integer scalars (float16 included; not bool,
 * complex or bfloat16) to a dtype of the same bit width: the bits
 * reinterpreted. */
static Node *lower_scalar_view(Ctx *c, Node *e, Node *x)
{
    Type *t = x->type;
    if (e->args.len != 1 || e->kwargs.len)
        return fail(c, e->loc, "view() takes one dtype");
    if (t->kind == TY_BOOL || ty_is_complex(t) || t->kind == TY_BFLOAT16)
        return fail(c, e->lhs->loc, "method 'view' of %s is not supported", ty_name(t));
    Node *arg = e->args.items[0];
    const char *dp = expr_path(c, arg);
    const ApiEntry *da = dp ? api_lookup(dp) : NULL;
    Type *to = da && da->kind == AK_TYPE ? api_type(da) : NULL;
    if (!to || !ty_is_scalar(to) || to->kind == TY_BOOL || ty_is_complex(to) ||
        to->kind == TY_BFLOAT16)
        return fail(c, arg->loc, "the argument of view() must be an integer or float dtype "
                    "such as np.int32");
    if (ty_size(to) != ty_size(t))
        return fail(c, e->loc, "%s.view(%s): changing the dtype of a 0d array is only "
                    "supported if the itemsize is unchanged", ty_name(t), ty_name(to));
    if (to == t)
        return x;
    Node *r = node_new(E_API, e->loc);
    r->api = &api_table[API_SCALAR_VIEW];
    r->type = to;
    nl_push(&r->args, x);
    return r;
}

/* suite (issues 8/9): the functions of Python's operator module, which
 * numba types as the operators they are (operator.add(a, b) is a + b; the
 * in-place ones, on the scalars and tuples kernels have, compute the same) */
static const struct OperatorFn {
    const char *name;
    NodeKind kind;   /* E_BINOP, E_UNARY or E_COMPARE */
    Op op;
} operator_fns[] = {
    {"add", E_BINOP, OP_ADD}, {"sub", E_BINOP, OP_SUB}, {"mul", E_BINOP, OP_MUL},
    {"truediv", E_BINOP, OP_DIV}, {"floordiv", E_BINOP, OP_FLOORDIV},
    {"mod", E_BINOP, OP_MOD}, {"pow", E_BINOP, OP_POW}, {"lshift", E_BINOP, OP_LSHIFT},
    {"rshift", E_BINOP, OP_RSHIFT}, {"and_", E_BINOP, OP_BITAND},
    {"or_", E_BINOP, OP_BITOR}, {"xor", E_BINOP, OP_BITXOR},
    {"iadd", E_BINOP, OP_ADD}, {"isub", E_BINOP, OP_SUB}, {"imul", E_BINOP, OP_MUL},
    {"itruediv", E_BINOP, OP_DIV}, {"ifloordiv", E_BINOP, OP_FLOORDIV},
    {"imod", E_BINOP, OP_MOD}, {"ipow", E_BINOP, OP_POW}, {"ilshift", E_BINOP, OP_LSHIFT},
    {"irshift", E_BINOP, OP_RSHIFT}, {"iand", E_BINOP, OP_BITAND},
    {"ior", E_BINOP, OP_BITOR}, {"ixor", E_BINOP, OP_BITXOR},
    {"neg", E_UNARY, OP_NEG}, {"pos", E_UNARY, OP_POS}, {"invert", E_UNARY, OP_INVERT},
    {"inv", E_UNARY, OP_INVERT}, {"not_", E_UNARY, OP_NOT},
    {"eq", E_COMPARE, OP_EQ}, {"ne", E_COMPARE, OP_NE}, {"lt", E_COMPARE, OP_LT},
    {"le", E_COMPARE, OP_LE}, {"gt", E_COMPARE, OP_GT}, {"ge", E_COMPARE, OP_GE},
    {"is_", E_COMPARE, OP_IS}, {"is_not", E_COMPARE, OP_ISNOT},
};

static Node *lower_operator_call(Ctx *c, Node *e, const char *name)
{
    const struct OperatorFn *f = NULL;
    for (size_t i = 0; i < sizeof operator_fns / sizeof operator_fns[0]; i++)
        if (strcmp(operator_fns[i].name, name) == 0)
            f = &operator_fns[i];
    if (!f)
        return fail(c, e->lhs->loc, "operator.%s is not supported", name);
    int want = f->kind == E_UNARY ? 1 : 2;
    if (e->args.len != want || e->kwargs.len)
        return fail(c, e->loc, "operator.%s() takes %d argument%s", name, want,
                    want == 1 ? "" : "s");
    Node *n = node_new(f->kind, e->loc);
    n->op = f->op;
    if (f->kind == E_COMPARE) {
        nl_push(&n->args, e->args.items[0]);
        nl_push(&n->args, e->args.items[1]);
        n->ops = arena_alloc(sizeof *n->ops);
        n->ops[0] = f->op;
    } else {
        n->lhs = e->args.items[0];
        if (want == 2)
            n->rhs = e->args.items[1];
    }
    return lx(c, n);
}

Node *lx_call(Ctx *c, Node *e, bool stmt)
{
    for (int i = 0; i < e->args.len; i++)
        if (((Node *)e->args.items[i])->kind == E_STARRED)
            return lower_starred_call(c, e, stmt);
    const char *p = expr_path(c, e->lhs);
    if (p && strncmp(p, "operator.", 9) == 0)
        return lower_operator_call(c, e, p + 9);   /* suite */
    if (p) {
        const ApiEntry *a = api_lookup(p);
        if (!a && strncmp(p, "np.", 3) == 0 && reduce_is_function(p + 3))
            return lower_reduction(c, e, p + 3, NULL, stmt);   /* arr: np.sum(a) */
        if (!a)
            return unknown_path(c, e->lhs->loc, p);
        if (a->kind == AK_CALL || a->kind == AK_TYPE)
            return lower_api_call(c, e, a, stmt);
        return fail(c, e->lhs->loc, "'%s' is not callable", p);
    }
    if (e->lhs->kind == E_NAME) {
        const char *name = e->lhs->name;
        Var *lv = lookup_var(c, name);
        if (lv && lv->type && lv->type->kind == TY_FUNCTION && lv->type->fd)
            return lower_device_call(c, e, lv->type->fd, stmt);   /* py */
        if (lv)
            return fail(c, e->lhs->loc, "'%s' is not callable", name);
        const Global *g = sema_global(name);
        if (g && g->kind == GLOBAL_FUNC)
            return lower_device_call(c, e, g->fn, stmt);
        if (g && g->kind == GLOBAL_NTUPLE)   /* arr: Point(1, 2.5) */
            return ntuple_construct(c, e, g);
        if (g && g->kind == GLOBAL_FOREIGN)   /* dev */
            return lower_foreign_call(c, e, g->foreign, stmt);
        if (g && g->kind == GLOBAL_CONST)
            return fail(c, e->lhs->loc, "'%s' is not callable", name);
        if (strcmp(name, "print") == 0)
            return fail(c, e->loc, "print() is not supported yet");
        if (strcmp(name, "tuple") == 0 && !g) {   /* py: tuple(t) of a tuple is t */
            if (e->args.len != 1 || e->kwargs.len)
                return fail(c, e->loc, "tuple() takes one tuple here");
            Node *t = lx(c, e->args.items[0]);
            if (BAD(t) || t->type->kind == TY_TUPLE)
                return t;
            return fail(c, t->loc, "tuple() of %s is not supported (numba-cuda builds "
                        "tuples of tuples only)", ty_name(t->type));
        }
        return fail(c, e->lhs->loc, "name '%s' is not defined%s", name, name_hint(c, name));
    }
    if (e->lhs->kind == E_ATTR) {
        Node *base = lx(c, e->lhs->lhs);
        if (BAD(base))
            return poison(e->loc, base, NULL);
        if (base->type == ty_gridgroup)
            return lower_grid_method(c, e, stmt);
        if (ty_is_scalar(base->type) && strcmp(e->lhs->name, "conjugate") == 0)
            return lower_conjugate(c, e, base);
        if (base->type->kind == TY_ARRAY)
            return lower_array_method(c, e, base, stmt);
        if (ty_is_int(base->type) && strcmp(e->lhs->name, "bit_count") == 0)
            return lower_bit_count(c, e, base);   /* npk */
        if (ty_is_scalar(base->type) && strcmp(e->lhs->name, "view") == 0) {
            /* numba's check (ir_utils.raise_on_unsupported_feature): the
             * value is a variable or a call of np.<integer or float type> */
            Node *rx = e->lhs->lhs;
            bool np_call = rx->kind == E_CALL && rx->lhs->kind == E_ATTR &&
                           rx->lhs->lhs->kind == E_NAME && sema_global(rx->lhs->lhs->name) &&
                           sema_global(rx->lhs->lhs->name)->kind == GLOBAL_PATH &&
                           strcmp(sema_global(rx->lhs->lhs->name)->path, "np") == 0;
            bool named_type = rx->kind == E_CALL && rx->lhs->kind == E_NAME &&
                              !lookup_var(c, rx->lhs->name);
            if (rx->kind != E_NAME && !np_call && !named_type)
                return fail(c, e->lhs->loc, "'view' can only be called on NumPy dtypes, try "
                            "wrapping the value with 'np.<dtype>()'");
            return lower_scalar_view(c, e, base);
        }
        return fail(c, e->lhs->loc, "method '%s' of %s is not supported", e->lhs->name,
                    ty_name(base->type));
    }
    return fail(c, e->loc, "this call is not supported");
}
