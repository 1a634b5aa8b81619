/*
 * sig.c - kernel and device-function signatures as numba takes them:
 * strings ("void(float32[:], int32)", parsed by the small recursive-descent
 * parser below, with errors pointing inside the string), expressions
 * (void(float32[::1])), lists of either, --signature NAME=SIG, and PEP 3107
 * parameter annotations.
 */
#include "kernc.h"

#include <string.h>

void sema_add_signature(FuncDef *fd, const Signature *s)
{
    Signature *sigs = arena_alloc(sizeof *sigs * (size_t)(fd->nsigs + 1));
    if (fd->nsigs)
        memcpy(sigs, fd->sigs, sizeof *sigs * (size_t)fd->nsigs);
    sigs[fd->nsigs++] = *s;
    fd->sigs = sigs;
}


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

static Type *sig_type(SigParser *P, bool allow_void);

/* issue 9: numba's tuple types, as its str() and its constructors spell
 * them: UniTuple(int64, 2), UniTuple(int64 x 2), Tuple(int64, float64),
 * Tuple((int64, float64)); elements scalars or tuples. */
static Type *sig_tuple(SigParser *P, bool uni, size_t start)
{
    Type *el[16];
    int n = 0;
    if (!sig_accept(P, '(')) {
        sig_error(P, "expected '(' after %s", uni ? "UniTuple" : "Tuple");
        return NULL;
    }
    if (uni) {
        el[0] = sig_type(P, false);
        if (!el[0])
            return NULL;
        sig_space(P);
        if (P->s[P->pos] == 'x' && P->s[P->pos + 1] == ' ')
            P->pos++;
        else if (!sig_accept(P, ',')) {
            sig_error(P, "expected ',' or 'x' in UniTuple(type, count)");
            return NULL;
        }
        sig_space(P);
        long cnt = 0;
        size_t d0 = P->pos;
        while (P->s[P->pos] >= '0' && P->s[P->pos] <= '9' && cnt < 100)
            cnt = cnt * 10 + (P->s[P->pos++] - '0');
        if (P->pos == d0 || cnt < 1 || cnt > 16) {
            sig_error(P, "expected a count from 1 to 16 in UniTuple(type, count)");
            return NULL;
        }
        n = (int)cnt;
        for (int i = 1; i < n; i++)
            el[i] = el[0];
    } else {
        bool inner = sig_accept(P, '(');
        if (!(inner ? sig_accept(P, ')') : false)) {
            do {
                if (n == 16) {
                    sig_error(P, "tuples of more than 16 elements are not supported");
                    return NULL;
                }
                el[n] = sig_type(P, false);
                if (!el[n])
                    return NULL;
                n++;
            } while (sig_accept(P, ','));
            if (inner && !sig_accept(P, ')')) {
                sig_error(P, "expected ')'");
                return NULL;
            }
        }
    }
    if (!sig_accept(P, ')')) {
        sig_error(P, "expected ')'");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (el[i]->kind != TY_TUPLE && !ty_is_scalar(el[i])) {
            size_t save = P->pos;
            P->pos = start;
            sig_error(P, "tuples of %s are not supported", ty_name(el[i]));
            P->pos = save;
            return NULL;
        }
    if (n == 0) {
        P->pos = start;
        sig_error(P, "an empty tuple is not supported as a parameter");
        return NULL;
    }
    return ty_tuple(el, n);
}

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
    if (strcmp(base, "UniTuple") == 0 || strcmp(base, "Tuple") == 0)
        return sig_tuple(P, base[0] == 'U', start);
    Type *t = strcmp(base, "xoroshiro128p_type") == 0 ? ty_rngstate
                                                      : sema_scalar_named(sema_type_alias(base));
    if (!t && (strcmp(base, "CharSeq") == 0 || strcmp(base, "UnicodeCharSeq") == 0) &&
        sig_accept(P, '(')) {   /* str: numba's CharSeq(12), UnicodeCharSeq(12) */
        sig_space(P);
        long cnt = 0;
        size_t d0 = P->pos;
        while (P->s[P->pos] >= '0' && P->s[P->pos] <= '9' && cnt <= (1 << 20))
            cnt = cnt * 10 + (P->s[P->pos++] - '0');
        if (P->pos == d0 || cnt < 1 || cnt > (1 << 20)) {
            sig_error(P, "expected a width from 1 to %d in %s(count)", 1 << 20, base);
            return NULL;
        }
        if (!sig_accept(P, ')')) {
            sig_error(P, "expected ')'");
            return NULL;
        }
        t = ty_charseq(base[0] == 'U', cnt);
    }
    if (!t && !strchr(name, '.'))
        t = record_named(name);   /* rec: a module-level from_dtype(...) */
    if (!t) {
        size_t save = P->pos;
        P->pos = start;
        Suggest sg;
        suggest_init(&sg, base);
        sema_suggest_types(&sg);
        sig_error(P, "unknown type '%s'%s", name, suggest_hint(&sg));
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
    int ndim = 0, unit = -1;   /* unit: the dimension with '::1' */
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
            if (unit >= 0) {
                sig_error(P, "'::1' on more than one dimension");
                return NULL;
            }
            unit = ndim - 1;
            P->pos++;
            sig_space(P);
            if (P->s[P->pos] == ',' && unit != 0) {
                sig_error(P, "'::1' must be on the last dimension (layout C) or the "
                          "first (layout F)");
                return NULL;
            }
        }
    } while (sig_accept(P, ','));
    bool contig = unit >= 0 && unit == ndim - 1;
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
    if (unit == 0 && ndim > 1)   /* int32[::1, :]: numba's layout F */
        return ty_array_f(t, ndim, SPACE_GLOBAL);
    return ty_array(t, ndim, contig, SPACE_GLOBAL);
}

static bool sig_parse_string(SigParser *P, Signature *out)
{
    sig_space(P);
    size_t ret_pos = P->pos;
    Type *ret = ty_void;
    bool inferred = P->s[P->pos] == '(';   /* suite: '(float32, float64)' */
    if (!inferred) {
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
    out->ret_inferred = inferred;
    out->params = (Type **)params.items;
    out->nparams = params.len;
    out->has_loc = P->has_loc;   /* issue 13: for the checks against the def */
    if (P->has_loc) {
        out->loc = P->base;
        out->ret_loc = P->base;
        out->ret_loc.first_column = P->base.first_column + 1 + (int)ret_pos;
        out->ret_loc.last_line = out->ret_loc.first_line;
        out->ret_loc.last_column = out->ret_loc.first_column;
    }
    return true;
}

static Type *sig_type_expr(Node *e, bool allow_void);

/* arr (issue 9): types.NamedUniTuple(int64, 2, Point) and
 * types.NamedTuple((int64, float64), Point), Point a module-level
 * namedtuple class, as numba-cuda 0.30 takes them in @cuda.jit(...) */
static Type *sig_ntuple_expr(Node *e)
{
    Node *f = e->lhs;
    bool uni = f->kind == E_ATTR && strcmp(f->name, "NamedUniTuple") == 0;
    if (!uni && !(f->kind == E_ATTR && strcmp(f->name, "NamedTuple") == 0)) {
        sema_error(e->loc, "expected a type such as float32, float32[:] or "
                   "types.NamedUniTuple(int64, 2, Point)");
        return NULL;
    }
    int want = uni ? 3 : 2;
    Node *cls = e->args.len == want ? e->args.items[want - 1] : NULL;
    const Global *g = cls && cls->kind == E_NAME ? sema_global(cls->name) : NULL;
    if (e->kwargs.len || !g || g->kind != GLOBAL_NTUPLE) {
        sema_error(e->loc, "expected types.%s(%s, CLASS) with CLASS a module-level "
                   "namedtuple", f->name, uni ? "type, count" : "(types...)");
        return NULL;
    }
    int n = g->value->args.len;
    Type **el = arena_alloc(sizeof *el * (size_t)n);
    Node *items = e->args.items[0];
    int given = uni ? (((Node *)e->args.items[1])->kind == E_INT ? (int)((Node *)e->args.items[1])->ival : -1)
                    : items->kind == E_TUPLE ? items->args.len : -1;
    if (given != n) {
        sema_error(e->loc, "%s has %d field%s, not %d", g->path, n, n == 1 ? "" : "s", given);
        return NULL;
    }
    const char **names = arena_alloc(sizeof *names * (size_t)n);
    for (int i = 0; i < n; i++) {
        Node *te = uni ? items : items->args.items[i];
        el[i] = uni && i > 0 ? el[0] : sig_type_expr(te, false);
        if (!el[i])
            return NULL;
        if (!ty_is_scalar(el[i])) {
            sema_error(te->loc, "named tuples of %s are not supported", ty_name(el[i]));
            return NULL;
        }
        names[i] = ((Node *)g->value->args.items[i])->text;
    }
    return ty_ntuple(el, n, g->path, names);
}

/* float32, np.float32, float32[:], float32[:, ::1] written as an expression */
static Type *sig_type_expr(Node *e, bool allow_void)
{
    if (e->kind == E_CALL)   /* arr: types.NamedUniTuple(...) */
        return sig_ntuple_expr(e);
    Node *base = e->kind == E_SUBSCRIPT ? e->lhs : e;
    const char *p = sema_path_of(base, NULL, NULL);
    Type *t = p && strcmp(p, "cuda.random.xoroshiro128p_type") == 0 ? ty_rngstate
            : p ? sema_scalar_named(p) : NULL;
    if (!t && base->kind == E_NAME)
        t = record_named(base->name);   /* rec: a module-level from_dtype(...) */
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
    int unit = -1;   /* the dimension with '::1' */
    for (int i = 0; i < ndim; i++) {
        Node *d = dims[i];
        if (d->kind != E_SLICE || d->lhs || d->rhs ||
            (d->cond && !(d->cond->kind == E_INT && d->cond->ival == 1))) {
            sema_error(d->loc, "expected ':' or '::1' in an array type");
            return NULL;
        }
        if (d->cond) {
            if (unit >= 0) {
                sema_error(d->loc, "'::1' on more than one dimension");
                return NULL;
            }
            if (i != 0 && i != ndim - 1) {
                sema_error(d->loc, "'::1' must be on the last dimension (layout C) or "
                           "the first (layout F)");
                return NULL;
            }
            unit = i;
        }
    }
    bool contig = unit >= 0 && unit == ndim - 1;
    if (ndim > 3) {
        sema_error(idx->loc, "arrays of more than 3 dimensions are not supported");
        return NULL;
    }
    if (t == ty_rngstate && ndim != 1) {
        sema_error(idx->loc, RNG_NDIM_MSG);
        return NULL;
    }
    if (unit == 0 && ndim > 1)   /* float32[::1, :]: numba's layout F */
        return ty_array_f(t, ndim, SPACE_GLOBAL);
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
        if (!sig_param_exprs(&e->args, ret, out))
            return false;
        out->has_loc = true;   /* issue 13 */
        out->loc = e->loc;
        out->ret_loc = e->lhs->loc;
        return true;
    }
    if (e->kind == E_TUPLE) {  /* argument types only: (float32[:], int32) */
        if (!sig_param_exprs(&e->args, ty_void, out))
            return false;
        out->has_loc = true;   /* issue 13 */
        out->loc = out->ret_loc = e->loc;
        return true;
    }
    sema_error(e->loc, "expected a signature such as \"void(float32[:], int32)\"");
    return false;
}

bool sema_signature(Node *e, Signature *out)
{
    return sig_from_node(e, out);
}

bool sema_signature_string(const char *s, const char *who, Signature *out)
{
    SigParser P = {.s = s, .who = who};
    return sig_parse_string(&P, out);
}

/* PEP 3107: `def k(a: float32[:], n: int32)` under a bare @cuda.jit is the
 * kernel's signature.  A signature in the decorator or on the command line
 * wins, and device functions are typed at each call as numba does, so their
 * annotations are documentation only. */
void sema_signature_annotations(FuncDef *fd)
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
    sema_add_signature(fd, &sg);
}

