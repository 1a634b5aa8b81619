/*
 * reduce_array.c - issue 9 (arr): NumPy's whole-array reductions in
 * kernels and device functions, as numba-cuda 0.30 lowers them:
 *
 *   a.sum() a.prod() a.mean() a.var() a.std() a.all() a.any() a.argmin()
 *   a.argmax(), the same as np.sum(a) ..., and np.nansum np.nanprod
 *   np.nanmean np.nanvar np.nanstd np.count_nonzero (functions only, as
 *   numba has no such methods); a.sum(dtype=T) / np.sum(a, dtype=T).
 *
 * numba-cuda implements each of them in Python (numba/cuda/np/arraymath.py:
 * array_sum, array_prod, array_mean, array_var, np_all, np_nansum, ...)
 * compiled for the argument's type.  kernc does the same: for each
 * reduction, element class, dimension count and iteration order it writes
 * that Python as an ordinary device function (.kern text, parsed with the
 * same parser, relocated to the call as ufunc.c does), and the call becomes
 * a call of it, specialised per argument type by type.c like any other
 * device function.  So the result types are numba's own (sum of int32 is
 * int64, of uint8 uint64, mean of float32 accumulates in float32 and is
 * float64, prod of int32 int64, nanmean accumulates in float64, ...), the
 * order of summation is numba's (np.nditer: C order, or Fortran order for
 * an F-layout array of 2 or more dimensions; argmin/argmax use a.flat,
 * always C order), and views of any layout and dimension come for free.
 *
 * Refused, with numba-cuda 0.30's reason: axis= (the result is an array:
 * NRT), float16 and bfloat16 arrays (NVVM rejects the IR / no NumPy dtype),
 * argmin/argmax of complex arrays (no ordering), and the reductions its
 * typing rejects without NRT (max min amax amin nanmax nanmin median
 * cumsum cumprod ptp: type.c's reduction_message).
 */
#include "type_impl.h"

#include <string.h>

typedef enum RedKind {
    R_SUM, R_PROD, R_MEAN, R_VAR, R_STD, R_ALL, R_ANY, R_ARGMIN, R_ARGMAX,
    R_NANSUM, R_NANPROD, R_NANMEAN, R_NANVAR, R_NANSTD, R_COUNT_NONZERO, R_NKINDS
} RedKind;

static const struct {
    const char *name;
    bool method;            /* also a method of arrays (a.sum()) */
} reds[R_NKINDS] = {
    {"sum", true}, {"prod", true}, {"mean", true}, {"var", true}, {"std", true},
    {"all", true}, {"any", true}, {"argmin", true}, {"argmax", true},
    {"nansum", false}, {"nanprod", false}, {"nanmean", false}, {"nanvar", false},
    {"nanstd", false}, {"count_nonzero", false},
};

static int red_kind(const char *name, bool method)
{
    for (int k = 0; k < R_NKINDS; k++)
        if (strcmp(reds[k].name, name) == 0 && (!method || reds[k].method))
            return k;
    return -1;
}

bool reduce_is_function(const char *name)
{
    return red_kind(name, false) >= 0;
}

bool reduce_is_method(const char *name)
{
    return red_kind(name, true) >= 0;
}

/* ---- the helpers' text ---- */

/* The element classes the text depends on. */
typedef enum ElemClass { EC_INT, EC_BOOL, EC_FLOAT, EC_COMPLEX } ElemClass;

static ElemClass elem_class(const Type *el)
{
    if (ty_is_complex(el))
        return EC_COMPLEX;
    if (ty_is_float(el))
        return EC_FLOAT;
    if (el == ty_bool)
        return EC_BOOL;
    return EC_INT;
}

/* One made helper, by its text (the text names everything it depends on). */
typedef struct Made {
    const char *name;
    const char *text;
    bool debug;
    FuncDef *fd;
    struct Made *next;
} Made;
static Made *made;
static bool names_bound;

void reduce_reset(void)
{
    made = NULL;
    names_bound = false;
}

/* The module-level names the helpers use, bound once. */
static void bind_names(void)
{
    if (names_bound)
        return;
    names_bound = true;
    sema_bind_path("krt_r_math", "math");
    sema_bind_path("krt_r_cmath", "cmath");
    sema_bind_path("krt_r_np", "np");
    for (int k = 0; k < TY_NSCALAR; k++)
        sema_bind_path(arena_printf("krt_r_%s", ty_name(ty_scalar[k])), ty_name(ty_scalar[k]));
}

/* The element of the current loop index: a[i0, i1, ...] */
static const char *elem_at(int nd)
{
    StrBuf b = {0};
    sb_puts(&b, "a[");
    for (int k = 0; k < nd; k++)
        sb_printf(&b, "%si%d", k ? ", " : "", k);
    sb_puts(&b, "]");
    return sb_take(&b);
}

/* Nested loops over every element, in np.nditer's order (C, or F: the
 * first index fastest) at indentation `ind`; returns the body's. */
static int loops(StrBuf *b, int nd, bool forder, int ind)
{
    for (int k = 0; k < nd; k++) {
        int d = forder ? nd - 1 - k : k;
        sb_printf(b, "%*sfor i%d in range(a.shape[%d]):\n", ind, "", d, d);
        ind += 4;
    }
    return ind;
}

/* "if not isnan(v): " for the classes that have NaNs (numba's get_isnan:
 * always false for integers and booleans), at indentation ind; returns
 * the indentation of what it guards. */
static int not_nan(StrBuf *b, ElemClass ec, const char *v, int ind)
{
    if (ec != EC_FLOAT && ec != EC_COMPLEX)
        return ind;
    sb_printf(b, "%*sif not krt_r_%s.isnan(%s):\n", ind, "", ec == EC_COMPLEX ? "cmath" : "math",
              v);
    return ind + 4;
}

/* The sum of squared deviations from m, numba's
 * `ssd += np.real(val * np.conj(val))`. */
static const char *square(ElemClass ec)
{
    return ec == EC_COMPLEX ? "(val * val.conjugate()).real" : "val * val";
}

static const char *helper_text(RedKind k, const Type *el, int nd, bool forder, Type *dtype,
                               bool cast, const char *name)
{
    StrBuf b = {0};
    ElemClass ec = elem_class(el);
    const char *x = elem_at(nd);
    const char *en = ty_name(el);
    int in;
    sb_printf(&b, "def %s(a):\n", name);
    switch (k) {
    case R_SUM:   /* array_sum: c = zero of the result type; c += v */
        sb_printf(&b, "    c = krt_r_%s(0)\n", ty_name(dtype));
        in = loops(&b, nd, forder, 4);
        if (cast)   /* dtype=: numba's locals=dict(c=dtype) */
            sb_printf(&b, "%*sc = krt_r_%s(c + %s)\n", in, "", ty_name(dtype), x);
        else
            sb_printf(&b, "%*sc += %s\n", in, "", x);
        sb_puts(&b, "    return c\n");
        break;
    case R_PROD:   /* array_prod: c = the array's dtype(1); c *= v */
        sb_printf(&b, "    c = krt_r_%s(1)\n", en);
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sc *= %s\n", in, "", x);
        sb_puts(&b, "    return c\n");
        break;
    case R_MEAN: case R_VAR: case R_STD:
        /* array_mean: float64 for integers and booleans, else the dtype;
         * array_var: m = a.mean(); ssd += real(val * conj(val)) */
        sb_printf(&b, "    c = krt_r_%s(0)\n", ec == EC_INT || ec == EC_BOOL ? "float64" : en);
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sc += %s\n", in, "", x);
        if (k == R_MEAN) {
            sb_puts(&b, "    return c / a.size\n");
            break;
        }
        sb_puts(&b, "    m = c / a.size\n    ssd = 0.0\n");
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sval = %s - m\n%*sssd += %s\n", in, "", x, in, "", square(ec));
        sb_printf(&b, "    return %s\n", k == R_VAR ? "ssd / a.size" : "(ssd / a.size) ** 0.5");
        break;
    case R_ALL: case R_ANY:   /* np_all, np_any */
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sif %s%s:\n%*sreturn %s\n", in, "", k == R_ALL ? "not " : "", x, in + 4,
                  "", k == R_ALL ? "False" : "True");
        sb_printf(&b, "    return %s\n", k == R_ALL ? "True" : "False");
        break;
    case R_ARGMIN: case R_ARGMAX: {   /* array_argmin_impl_float / _generic: a.flat */
        const char *cmp = k == R_ARGMIN ? "<" : ">";
        StrBuf z = {0};
        for (int d = 0; d < nd; d++)
            sb_printf(&z, "%s0", d ? ", " : "");
        sb_printf(&b, "    if a.size == 0:\n"
                      "        raise ValueError(\"attempt to get %s of an empty sequence\")\n"
                      "    mv = a[%s]\n    mi = 0\n", reds[k].name, sb_take(&z));
        if (ec == EC_FLOAT)
            sb_puts(&b, "    if krt_r_math.isnan(mv):\n        return mi\n");
        sb_puts(&b, "    idx = 0\n");
        in = loops(&b, nd, false, 4);
        sb_printf(&b, "%*sv = %s\n", in, "", x);
        if (ec == EC_FLOAT)
            sb_printf(&b, "%*sif krt_r_math.isnan(v):\n%*sreturn idx\n", in, "", in + 4, "");
        sb_printf(&b, "%*sif v %s mv:\n%*smv = v\n%*smi = idx\n%*sidx += 1\n", in, "", cmp,
                  in + 4, "", in + 4, "", in, "");
        sb_puts(&b, "    return mi\n");
        break;
    }
    case R_NANSUM: case R_NANPROD: {   /* np_nansum, np_nanprod: intp for integers */
        bool sum = k == R_NANSUM;
        sb_printf(&b, "    c = krt_r_%s(%d)\n", ec == EC_INT || ec == EC_BOOL ? "int64" : en,
                  sum ? 0 : 1);
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sv = %s\n", in, "", x);
        in = not_nan(&b, ec, "v", in);
        sb_printf(&b, "%*sc %s= v\n", in, "", sum ? "+" : "*");
        sb_puts(&b, "    return c\n");
        break;
    }
    case R_NANMEAN: case R_NANVAR: case R_NANSTD:
        /* np_nanmean: c = 0.0; np.divide(c, count) (no ZeroDivisionError) */
        sb_printf(&b, "    c = %s\n    n = 0\n", ec == EC_COMPLEX ? "0j" : "0.0");
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sv = %s\n", in, "", x);
        in = not_nan(&b, ec, "v", in);
        sb_printf(&b, "%*sc += v\n%*sn += 1\n", in, "", in, "");
        if (k == R_NANMEAN) {
            sb_puts(&b, "    return krt_r_np.divide(c, n)\n");
            break;
        }
        sb_puts(&b, "    m = krt_r_np.divide(c, n)\n    ssd = 0.0\n    n2 = 0\n");
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sv = %s\n", in, "", x);
        in = not_nan(&b, ec, "v", in);
        sb_printf(&b, "%*sval = v - m\n%*sssd += %s\n%*sn2 += 1\n", in, "", in, "", square(ec),
                  in, "");
        sb_printf(&b, "    return %s\n", k == R_NANVAR ? "krt_r_np.divide(ssd, n2)"
                                                       : "krt_r_np.divide(ssd, n2) ** 0.5");
        break;
    case R_COUNT_NONZERO:   /* np_count_nonzero: v.item() != 0 */
        sb_puts(&b, "    c = 0\n");
        in = loops(&b, nd, forder, 4);
        sb_printf(&b, "%*sif %s != 0:\n%*sc += 1\n", in, "", x, in + 4, "");
        sb_puts(&b, "    return c\n");
        break;
    default:
        die("reduction %d", (int)k);
    }
    return sb_take(&b);
}

/* Every node of a generated tree points at the call. */
static void relocate_slot(Node **slot, void *loc)
{
    (*slot)->loc = *(Loc *)loc;
    node_each_slot(*slot, relocate_slot, loc);
}

static FuncDef *helper(Ctx *c, RedKind k, const Type *el, int nd, bool forder, Type *dtype,
                       bool cast, Loc loc)
{
    ElemClass ec = elem_class(el);
    static const char *const ecs[] = {"i", "b", "f", "c"};
    /* the name says what the text depends on: kind, class, ndim, order,
     * the sum's result type */
    const char *name = arena_printf("krt_%s_%s%d%s%s%s", reds[k].name, ecs[ec], nd,
                                    forder ? "f" : "", cast ? "_to_" : "",
                                    cast ? ty_code(dtype) : "");
    if (k == R_PROD || k == R_SUM || k == R_MEAN || k == R_VAR || k == R_STD || k == R_NANSUM ||
        k == R_NANPROD)   /* the text names the element type */
        name = arena_printf("%s_%s", name, ty_code(el));
    bool debug = c->fd && c->fd->opt.debug;
    for (Made *m = made; m; m = m->next)
        if (strcmp(m->name, name) == 0 && m->debug == debug)
            return m->fd;
    bind_names();
    const char *text = helper_text(k, el, nd, forder, dtype, cast, name);
    /* the helper outlives the (maybe quiet, scratch) pass that makes it */
    bool scratch = scratch_suspend();
    Source src = {.path = "<kernc reduction>", .text = text, .len = strlen(text)};
    Node *mod = parse_source(&src);
    if (!mod || mod->body.len != 1 || ((Node *)mod->body.items[0])->kind != S_FUNCDEF)
        die("generated reduction does not parse:\n%s", text);
    Node *def = mod->body.items[0];
    def->loc = loc;
    node_each_slot(def, relocate_slot, &loc);
    scratch_resume(scratch);
    FuncDef *fd = arena_alloc(sizeof *fd);
    fd->name = name;
    fd->def = def;
    fd->opt.device = true;
    fd->opt.debug = debug;
    fd->opt.inline_ = true;
    fd->c_named = true;   /* krt_sum_f1_f4: a name kernc made */
    Made *m = arena_alloc(sizeof *m);
    *m = (Made){.name = name, .text = text, .debug = debug, .fd = fd, .next = made};
    made = m;
    return fd;
}

/* a.NAME(...) (base: the lowered array, method true) or np.NAME(a, ...)
 * (base NULL: the array is e's first argument). */
Node *lower_reduction(Ctx *c, Node *e, const char *name, Node *base, bool stmt)
{
    bool method = base != NULL;
    int k = red_kind(name, method);
    const char *what = method ? arena_printf("a.%s()", name) : arena_printf("np.%s()", name);
    if (k < 0) {
        if (method && red_kind(name, false) >= 0)
            return fail(c, e->lhs->loc, "arrays have no method '%s' in numba-cuda 0.30; "
                        "use np.%s(a)", name, name);
        return fail(c, e->lhs->loc, "%s is not an array reduction", what);
    }
    Node *arg = NULL;
    int npos = e->args.len;
    if (!method) {
        if (npos < 1)
            return fail(c, e->loc, "%s takes an array", what);
        arg = e->args.items[0];
        npos--;
    }
    /* no positional argument: args.items may be NULL, and NULL + 0 is undefined */
    Node **pos = npos ? (Node **)e->args.items + (method ? 0 : 1) : NULL;
    Type *dtype = NULL;
    Node *axis = npos ? pos[0] : NULL;
    for (int i = 0; i < e->kwargs.len; i++) {
        Node *kw = e->kwargs.items[i];
        if (strcmp(kw->name, "dtype") == 0 && k == R_SUM) {
            const char *dp = expr_path(c, kw->lhs);
            const ApiEntry *da = dp ? api_lookup(dp) : NULL;
            dtype = da && da->kind == AK_TYPE ? api_type(da) : NULL;
            if (!dtype || !ty_is_scalar(dtype))
                return fail(c, kw->lhs->loc, "the dtype of %s must be a scalar type such as "
                            "np.float64", what);
        } else if (strcmp(kw->name, "axis") == 0 && !axis &&
                   (k == R_SUM || k == R_ARGMIN || k == R_ARGMAX || k == R_COUNT_NONZERO)) {
            axis = kw->lhs;
        } else {
            return fail(c, kw->loc, "%s takes no keyword argument '%s' here", what, kw->name);
        }
    }
    if (npos > 1 || (npos == 1 && k != R_SUM && k != R_ARGMIN && k != R_ARGMAX &&
                     k != R_COUNT_NONZERO))
        return fail(c, pos[npos > 1 ? 1 : 0]->loc, "%s takes %s", what,
                    k == R_SUM || k == R_ARGMIN || k == R_ARGMAX || k == R_COUNT_NONZERO
                        ? "at most an axis" : "no other argument");
    if (!base) {
        base = lx(c, arg);
        if (BAD(base))
            return poison(e->loc, base, NULL);
    }
    Type *t = base->type;
    if (t->kind != TY_ARRAY)
        return fail(c, arg ? arg->loc : e->loc, "%s of %s is not supported (numba-cuda 0.30 "
                    "reduces arrays only)", what, ty_name(t));
    if (axis) {
        /* numba-cuda: argmin/argmax short-circuit a 1-D array (any axis in
         * range); otherwise the result is an array, which needs NRT */
        int64_t ax;
        if ((k == R_ARGMIN || k == R_ARGMAX) && t->ndim == 1 && const_int(c, axis, &ax) &&
            (ax == 0 || ax == -1))
            axis = NULL;
        else if (axis->kind != E_NONE || k == R_SUM)
            return fail(c, axis->loc, "%s with an axis makes an array, which numba-cuda 0.30 "
                        "cannot do on the device (NRT); write the loop", what);
    }
    Type *el = t->elem;
    if (el->kind == TY_RECORD || el == ty_rngstate)
        return fail(c, e->loc, "%s of %s is not supported", what, ty_name(t));
    if (el == ty_bfloat16)
        return fail(c, e->loc, "numba-cuda 0.30 cannot compile %s of a bfloat16 array (bfloat16 "
                    "has no NumPy dtype)", what);
    if (el == ty_float16 && k != R_COUNT_NONZERO)
        return fail(c, e->loc, "numba-cuda 0.30 cannot compile %s of a float16 array (%s)", what,
                    k == R_ARGMIN || k == R_ARGMAX || k >= R_NANSUM
                        ? "unsupported type for input operand: float16"
                        : "NVVM rejects the IR it makes");
    if (ty_is_complex(el) && (k == R_ARGMIN || k == R_ARGMAX))
        return fail(c, e->loc, "%s of a complex array is not supported: numba-cuda 0.30 has no "
                    "'%s' of complex numbers", what, k == R_ARGMIN ? "<" : ">");
    if (dtype && (dtype->kind == TY_FLOAT16 || dtype->kind == TY_BFLOAT16))
        return fail(c, e->loc, "numba-cuda 0.30 cannot compile %s to %s", what,
                    ty_name(dtype));
    /* numba's array.sum typing: integers widen to 64 bits */
    Type *natural = el == ty_bool ? ty_int64
                    : ty_is_int(el) ? (ty_is_signed(el) ? ty_int64 : ty_uint64)
                    : el;
    bool cast = dtype && dtype != natural;
    if (k == R_SUM && !dtype)
        dtype = natural;
    bool forder = t->fortran && t->ndim >= 2;
    FuncDef *fd = helper(c, (RedKind)k, el, t->ndim, forder, dtype, cast, e->loc);
    /* the call of the helper, with the array already lowered */
    Node *call = node_new(E_CALL, e->loc);
    call->lhs = node_new(E_NAME, e->loc);
    call->lhs->name = fd->name;
    nl_push(&call->args, base);
    return lower_device_call_pre(c, call, fd, stmt, base);
}
