/*
 * type_array.c - the typing and lowering of arrays and tuples: indices and
 * subscripts (a[i], a[i, j], a[t]), slicing and views (issue 9), and the
 * attributes of a value (a.shape, a.T, .real/.imag, numba's array
 * attributes with a hint for a misspelled one), and iteration: the for
 * loops over arrays, tuples, enumerate(), zip() and range() (issue 9).
 * Part of type.c's pass, split off for size; the shared context and
 * helpers are in type_impl.h.
 */
#include "type_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Arrays and tuples                                                   */
/* ------------------------------------------------------------------ */

/* An integer constant (module constants and literals), for shape indices
 * and grid(n); false (reported unless quiet) otherwise. */
bool const_int(Ctx *c, Node *e, int64_t *out)
{
    Node *k = sema_fold_local(e, false, ctx_is_local, ctx_literal, c);   /* py: literals */
    if (!k || !ty_is_int(k->type))
        return false;
    *out = (int64_t)k->ival;
    return true;
}

/* issue 9: a local name bound once in the function, by `NAME = constant`
 * (numba's get_definition of a shape: `N = 100; cuda.shared.array(N,
 * int32)`): its binding, counted over the parsed body. */
typedef struct LocalDef {
    const char *name;
    int nbind;
    const Node *value;       /* the one S_ASSIGN's value, else NULL */
} LocalDef;

static bool binds_name(const Node *t, const char *name)
{
    if (!t)
        return false;
    if (t->kind == E_NAME)
        return strcmp(t->name, name) == 0;
    if (t->kind == E_TUPLE || t->kind == E_LIST)
        for (int i = 0; i < t->args.len; i++)
            if (binds_name(t->args.items[i], name))
                return true;
    return t->kind == E_STARRED && binds_name(t->lhs, name);
}

static Visit local_def_visit(const Node *n, void *ctx)
{
    LocalDef *d = ctx;
    if (n->kind == S_ASSIGN) {
        for (int i = 0; i < n->args.len; i++)
            if (binds_name(n->args.items[i], d->name)) {
                d->nbind++;
                d->value = n->args.len == 1 && ((Node *)n->args.items[0])->kind == E_NAME
                               ? n->rhs : NULL;
            }
    } else if ((n->kind == S_AUGASSIGN || n->kind == S_ANNASSIGN || n->kind == S_FOR) &&
               binds_name(n->lhs, d->name)) {
        d->nbind += 2;
    }
    return VISIT_CHILDREN;
}

bool const_int_local(Ctx *c, Node *e, int64_t *out)
{
    if (e->kind != E_NAME || !c->fd || !c->fd->def)
        return false;
    LocalDef d = {e->name, 0, NULL};
    for (int i = 0; i < c->fd->def->params.len; i++) {
        const Node *p = c->fd->def->params.items[i];
        if (p->name && strcmp(p->name, e->name) == 0)
            return false;   /* a parameter: literal arguments are ctx_literal's */
    }
    for (int i = 0; i < c->fd->def->body.len; i++)
        node_walk(c->fd->def->body.items[i], local_def_visit, &d);
    if (d.nbind != 1 || !d.value)
        return false;
    Node *k = sema_fold_local((Node *)d.value, false, ctx_is_local, ctx_literal, c);
    if (!k || !ty_is_int(k->type))
        return false;
    *out = (int64_t)k->ival;
    return true;
}

/* The indices of one element: a[i], a[i, j], or a[t] with t a tuple value
 * (cuda.grid(2), a tuple variable, a.shape), lowered to ndim int64s in
 * `out`.  `atomic` names the atomic whose index this is (its own message).
 * NULL on success, else the poison node. */
Node *lower_indices(Ctx *c, Node *idx, int ndim, Loc whole, const char *atomic,
                    NodeList *out, Node *pre)
{
    Node **items = NULL, **low = NULL;
    int nidx;
    if (idx->kind == E_TUPLE || idx->kind == E_SLICE) {
        items = idx->kind == E_TUPLE ? idx->args.items : &idx;
        nidx = idx->kind == E_TUPLE ? idx->args.len : 1;
        for (int i = 0; i < nidx; i++)
            if (items[i]->kind == E_SLICE)
                return fail(c, items[i]->loc, "array slicing is not supported yet");
    } else {
        Node *v = pre ? pre : lx(c, idx);
        if (BAD(v))
            return poison(idx->loc, v, NULL);
        if (v->type->kind == TY_TUPLE) {
            nidx = v->type->nelems;
            if (!tree_is_pure(v))
                return fail(c, idx->loc, "an index tuple returned by a call is not supported; "
                            "assign it to a variable first");
            low = arena_alloc(sizeof *low * (size_t)(nidx ? nidx : 1));
            for (int i = 0; i < nidx; i++)
                low[i] = tree_tupleget(i ? node_clone(v) : v, i);
        } else {
            nidx = 1;
            low = arena_alloc(sizeof *low);
            low[0] = v;
        }
    }
    if (nidx != ndim) {
        if (atomic)
            return fail(c, idx->loc, "the index of a %d-D array in %s must have %d "
                        "integer%s, not %d", ndim, atomic, ndim, ndim > 1 ? "s" : "", nidx);
        if (nidx > ndim)
            return fail(c, idx->loc, "too many indices for a %d-D array (%d given)", ndim,
                        nidx);
        return fail(c, whole, "array slicing is not supported yet (a %d-D array needs "
                    "%d indices, %d given)", ndim, ndim, nidx);
    }
    Node *bad = NULL;
    for (int i = 0; i < nidx; i++) {
        Node *v = items ? lx(c, items[i]) : low[i];
        Loc l = items ? items[i]->loc : idx->loc;
        if (BAD(v)) {
            bad = !bad || v->type == ty_error ? v : bad;
            continue;
        }
        if (!ty_is_int(v->type)) {
            bad = fail(c, l, "array index must be an integer, not %s", ty_name(v->type));
            continue;
        }
        nl_push(out, tree_cast(v, ty_int64));
    }
    return bad ? poison(whole, bad, NULL) : NULL;
}

/* ---- Slicing and views (issue 9) ----
 * a[lo:hi:step], a[i, :], a[:, j], a[1:3, ::2], a[..., 0] and a[i] of an
 * n-D array (n > 1) are views: an E_VIEW over the array, of numba's type
 * (arraydecl.py get_array_index_type): integer indices drop their
 * dimension; a C array stays C only when every index before the last one
 * given is an integer and the last is an integer or a slice without a
 * step (a[1:] and b[i, :] are C, a[::2], a[1:3:1], b[:, j], b[0:2, :] are
 * A); an ellipsis stands for the full slices it covers; an A array stays
 * A.  The view keeps the memory space of its array. */

/* One index of a subscript, lowered: an int64 (is_int), a slice whose
 * lowered E_SLICE has int64 bounds or NULL (step: cond), or an ellipsis. */
typedef struct ViewItem {
    Node *n;
    bool is_int, is_slice, is_ellipsis, has_step;
} ViewItem;

static bool view_bound(Ctx *c, Node *x, Node **out, Node **bad)
{
    *out = NULL;
    if (!x || (x->kind == E_NONE && !x->text))
        return true;
    Node *v = lx(c, x);
    if (BAD(v)) {
        *bad = !*bad || v->type == ty_error ? v : *bad;
        return false;
    }
    if (!ty_is_int(v->type) && v->type->kind != TY_BOOL) {
        *bad = fail(c, x->loc, "slice indices must be integers, not %s", ty_name(v->type));
        return false;
    }
    *out = tree_cast(v, ty_int64);
    return true;
}

/* The view base[items] (nitems syntactic items, or the lowered values pre[]
 * when pre is not NULL); an E_INDEX when every dimension gets an integer. */
static Node *lower_view(Ctx *c, Node *e, Node *base, Node **items, Node **pre, int nitems)
{
    Type *at = base->type;
    ViewItem *it = arena_alloc(sizeof *it * (size_t)(nitems ? nitems : 1));
    Node *bad = NULL;
    int nidx = 0, nint = 0, ellipsis = -1;
    for (int i = 0; i < nitems; i++) {
        Node *x = pre ? pre[i] : items[i];
        if (!pre && x->kind == E_NONE && x->text && strcmp(x->text, "...") == 0) {
            if (ellipsis >= 0)
                return fail(c, x->loc, "only one ellipsis is allowed in array indices");
            ellipsis = i;
            it[i].is_ellipsis = true;
            continue;
        }
        nidx++;
        if (!pre && x->kind == E_NONE)
            return fail(c, x->loc, "None (np.newaxis) in an array index is not supported");
        if (!pre && x->kind == E_SLICE) {
            Node *s = node_new(E_SLICE, x->loc);
            bool ok = view_bound(c, x->lhs, &s->lhs, &bad);
            ok &= view_bound(c, x->rhs, &s->rhs, &bad);
            ok &= view_bound(c, x->cond, &s->cond, &bad);
            if (ok && s->cond && s->cond->kind == E_CONST && s->cond->ival == 0)
                bad = fail(c, x->cond->loc, "slice step cannot be zero");
            s->type = ty_none;
            it[i].n = s;
            it[i].is_slice = true;
            it[i].has_step = x->cond != NULL;
            continue;
        }
        Node *v = pre ? x : lx(c, x);
        if (BAD(v)) {
            bad = !bad || v->type == ty_error ? v : bad;
            continue;
        }
        if (!ty_is_int(v->type)) {
            bad = fail(c, x->loc, "array index must be an integer or a slice, not %s",
                       ty_name(v->type));
            continue;
        }
        it[i].n = tree_cast(v, ty_int64);
        it[i].is_int = true;
        nint++;
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    if (nidx > at->ndim)
        return fail(c, e->rhs->loc, "too many indices for a %d-D array (%d given)", at->ndim,
                    nidx);
    int ndim = at->ndim - nint;
    /* numba's layout: the indices before the ellipsis are the left ones */
    bool contiguous = at->contiguous;
    if (contiguous) {
        int nleft = ellipsis >= 0 && nidx != at->ndim ? ellipsis : nitems;
        bool right = false;
        for (int i = nleft; i < nitems; i++)
            right |= !it[i].is_ellipsis;
        if (right)
            contiguous = false;
        int last = -1;
        for (int i = 0; i < nleft; i++)
            if (!it[i].is_ellipsis)
                last = i;
        for (int i = 0; i < nleft && contiguous; i++) {
            if (it[i].is_ellipsis || it[i].is_int)
                continue;
            if (i != last || it[i].has_step)   /* a slice: innermost, no step */
                contiguous = false;
        }
    }
    /* the items per dimension, the ellipsis expanded to full slices */
    Node *n = node_new(ndim == 0 ? E_INDEX : E_VIEW, e->loc);
    n->lhs = base;
    for (int i = 0; i < nitems; i++) {
        if (!it[i].is_ellipsis) {
            nl_push(&n->args, it[i].n);
            continue;
        }
        for (int k = 0; k < at->ndim - nidx; k++) {
            Node *s = node_new(E_SLICE, it[i].n ? it[i].n->loc : e->loc);
            s->type = ty_none;
            nl_push(&n->args, s);
        }
    }
    if (ndim == 0) {   /* a[..., i] of a 1-D array: the element */
        n->type = at->elem;
        return n;
    }
    if (at->fortran) {
        /* F: integers on the right keep it; the indices after the
         * ellipsis (all of them when every dimension is indexed), read
         * from the last, must be integers but for the first one read,
         * which may also be a slice without a step */
        int nright;
        bool fortran;
        if (nidx == at->ndim) {
            nright = nidx;
            fortran = true;
        } else if (ellipsis >= 0) {
            nright = nitems - ellipsis - 1;
            fortran = ellipsis == 0;
        } else {
            nright = 0;
            fortran = nidx == 0;
        }
        int seen = 0;
        for (int i = nitems - 1; i >= 0 && fortran && seen < nright; i--) {
            if (it[i].is_ellipsis)
                continue;
            seen++;
            if (it[i].is_int)
                continue;
            if (seen != nright || it[i].has_step)
                fortran = false;
        }
        n->type = fortran ? ty_array_f(at->elem, ndim, at->space)
                          : ty_array(at->elem, ndim, false, at->space);
        return n;
    }
    n->type = ty_array(at->elem, ndim, contiguous, at->space);
    return n;
}

/* Does subscript idx of an ndim-D array make a view (syntactically)? */
static bool is_view_subscript(const Node *idx, int ndim)
{
    if (idx->kind == E_SLICE || (idx->kind == E_NONE && idx->text))
        return true;
    if (idx->kind != E_TUPLE)
        return false;
    for (int i = 0; i < idx->args.len; i++) {
        const Node *x = idx->args.items[i];
        if (x->kind == E_SLICE || x->kind == E_NONE)
            return true;
    }
    return idx->args.len < ndim;
}

/* rec: field i of a record value (src/record.c): an E_TUPLEGET of the
 * field's type; numba's strict alignment refuses a misaligned one. */
static Node *record_get(Ctx *c, Loc loc, Node *base, int i)
{
    const char *why = record_misaligned(base->type, i);
    if (why)
        return fail(c, loc, "%s", why);
    Node *n = node_new(E_TUPLEGET, loc);
    n->lhs = base;
    n->ival = (uint64_t)i;
    n->type = record_field_type(base->type, i);
    return n;
}

static Node *record_no_field(Ctx *c, Loc loc, const Type *t, const char *name)
{
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; i < t->rec->nfields; i++)
        suggest_add(&sg, t->rec->fields[i].name);
    return fail(c, loc, "record %s has no field '%s'%s", t->rec->pyname, name, suggest_hint(&sg));
}

/* rec: e.name of the lowered record base (a field as a store target) */
Node *record_attr(Ctx *c, Node *e, Node *base)
{
    int f = record_field_index(base->type, e->name);
    if (f < 0)
        return record_no_field(c, e->loc, base->type, e->name);
    return record_get(c, e->loc, base, f);
}

/* rec: a.x of an array of records: a view of field x of every element
 * (layout A: the records' stride), a subarray field's dimensions after
 * the array's, as numba types it */
static Node *record_array_field(Ctx *c, Loc loc, Node *base, int i)
{
    const Type *at = base->type;
    const RecField *f = &at->elem->rec->fields[i];
    const char *why = record_misaligned(at->elem, i);
    if (why)
        return fail(c, loc, "%s", why);
    if (at->fortran)
        return fail(c, loc, "a field of an F-layout array of records is not supported");
    if (at->ndim + f->ndim > 3 || f->ndim > 2)
        return fail(c, loc, "the field view %s.%s would have more than 3 dimensions",
                    ty_name(at), f->name);
    Node *n = node_new(E_ARRAYOP, loc);
    n->ival = AOP_FIELD;
    n->lhs = base;
    n->type = ty_array(f->type, at->ndim + f->ndim, false, at->space == SPACE_CONST ?
                       SPACE_CONST : SPACE_GLOBAL);
    nl_push(&n->args, tree_int(loc, ty_int64, f->offset));
    nl_push(&n->args, tree_int(loc, ty_int64, f->ndim > 0 ? f->shape[0] : 1));
    nl_push(&n->args, tree_int(loc, ty_int64, f->ndim > 1 ? f->shape[1] : 1));
    nl_push(&n->args, tree_int(loc, ty_int64, f->type->kind == TY_RECORD ?
                               f->type->rec->size : ty_size(f->type)));
    return n;
}

/* arr (issue 9): a.real / a.imag of a complex array, numba's
 * array_complex_attr: the view of the underlying float type (layout A,
 * the complex strides), imag one float further (AOP_FIELD of a field of
 * no dimensions); readable, writable, a device-function argument */
static Node *complex_array_part(Loc loc, Node *base, bool imag)
{
    const Type *at = base->type;
    Type *fl = ty_size(at->elem) == 8 ? ty_float32 : ty_float64;
    Node *n = node_new(E_ARRAYOP, loc);
    n->ival = AOP_FIELD;
    n->lhs = base;
    n->type = ty_array(fl, at->ndim, false, at->space == SPACE_CONST ? SPACE_CONST : SPACE_GLOBAL);
    nl_push(&n->args, tree_int(loc, ty_int64, imag ? ty_size(fl) : 0));
    nl_push(&n->args, tree_int(loc, ty_int64, 1));
    nl_push(&n->args, tree_int(loc, ty_int64, 1));
    nl_push(&n->args, tree_int(loc, ty_int64, ty_size(fl)));
    return n;
}

Node *lower_index(Ctx *c, Node *e)
{
    Node *en = enum_lower(c, e);   /* arr: Color["red"] */
    if (en)
        return en;
    /* a.shape[k] */
    if (e->lhs->kind == E_ATTR && strcmp(e->lhs->name, "shape") == 0 &&
        !expr_path(c, e->lhs)) {
        Node *arr = lx(c, e->lhs->lhs);
        if (BAD(arr))
            return poison(e->loc, arr, NULL);
        if (arr->type->kind == TY_ARRAY) {
            int64_t k;
            if (e->rhs->kind == E_SLICE || !const_int(c, e->rhs, &k))
                return fail(c, e->rhs->loc, "the index of %s.shape must be an integer "
                            "constant", "an array");
            if (k < 0)
                k += arr->type->ndim;
            if (k < 0 || k >= arr->type->ndim)
                return fail(c, e->rhs->loc, "shape index out of range for a %d-D array",
                            arr->type->ndim);
            Node *n = node_new(E_SHAPE, e->loc);
            n->lhs = arr;
            n->ival = (uint64_t)k;
            n->type = ty_int64;
            return n;
        }
    }
    const char *p = expr_path(c, e->lhs);
    if (p) {
        const ApiEntry *a = api_lookup(p);
        if (a && a->kind == AK_TYPE)
            return fail(c, e->loc, "array types such as %s[:] are only allowed in "
                        "signatures", p);
    }
    Node *base = lx(c, e->lhs);
    if (BAD(base))
        return poison(e->loc, base, NULL);
    Node *idx = e->rhs;
    if (base->type->kind == TY_TUPLE) {
        int64_t k;
        if (idx->kind == E_TUPLE || idx->kind == E_SLICE || !const_int(c, idx, &k))
            return fail(c, idx->loc, "a tuple index must be an integer constant");
        if (k < 0)
            k += base->type->nelems;
        if (k < 0 || k >= base->type->nelems)
            return fail(c, idx->loc, "tuple index out of range");
        if (base->kind == E_TUPLE) {   /* (a, b)[1], a.shape[...], T[0] of a constant T */
            bool pure = true;
            for (int i = 0; i < base->args.len; i++)
                pure &= i == k || tree_is_pure(base->args.items[i]);
            if (pure) {
                Node *x = base->args.items[k];
                if (x->kind == E_CONST) {   /* of a module-level tuple: located here */
                    x = node_clone(x);
                    x->loc = e->loc;
                }
                return x;
            }
        }
        Node *n = node_new(E_TUPLEGET, e->loc);
        n->lhs = base;
        n->ival = (uint64_t)k;
        n->type = base->type->elems[k];
        return n;
    }
    if (base->type->kind == TY_RECORD) {   /* rec: r['a'], r[0] */
        int64_t k;
        if (idx->kind == E_STR) {
            int f = record_field_index(base->type, idx->text);
            if (f < 0)
                return record_no_field(c, idx->loc, base->type, idx->text);
            return record_get(c, e->loc, base, f);
        }
        if (idx->kind == E_TUPLE || idx->kind == E_SLICE || !const_int(c, idx, &k))
            return fail(c, idx->loc, "a record is indexed by a field name or a constant "
                        "field number");
        if (k < 0)
            k += base->type->rec->nfields;
        if (k < 0 || k >= base->type->rec->nfields)
            return fail(c, idx->loc, "record field number out of range");
        return record_get(c, e->loc, base, (int)k);
    }
    if (base->type->kind == TY_ARRAY && base->type->elem->kind == TY_RECORD &&
        idx->kind == E_STR) {
        int f = record_field_index(base->type->elem, idx->text);
        if (f < 0)
            return record_no_field(c, idx->loc, base->type->elem, idx->text);
        return record_array_field(c, e->loc, base, f);
    }
    if (ty_is_charseq(base->type))   /* str */
        return fail(c, e->loc, charseq_unicode(base->type) ?
                    "indexing %s is not supported (numba-cuda has no getitem of a "
                    "UnicodeCharSeq on its CUDA target)" :
                    "indexing %s is not supported yet (numba-cuda gives the byte's code, "
                    "IndexError for a NUL or past the width)", ty_name(base->type));
    if (base->type->kind != TY_ARRAY)
        return fail(c, e->lhs->loc, "a value of type %s cannot be indexed",
                    ty_name(base->type));
    if (base->type->elem == ty_rngstate)
        return fail(c, e->loc, "xoroshiro128p states can only be passed to xoroshiro128p_* "
                    "functions");
    int ndim = base->type->ndim;
    if (is_view_subscript(idx, ndim))
        return lower_view(c, e, base, idx->kind == E_TUPLE ? idx->args.items : &idx, NULL,
                          idx->kind == E_TUPLE ? idx->args.len : 1);
    Node *pre = NULL;
    if (idx->kind != E_TUPLE && ndim > 1) {
        /* b[i] of a 2-D array is a row; b[t] with t a shorter tuple a view */
        pre = lx(c, idx);
        if (BAD(pre))
            return poison(e->loc, pre, NULL);
        if (pre->type->kind != TY_TUPLE)
            return lower_view(c, e, base, NULL, &pre, 1);
        if (pre->type->nelems < ndim) {
            int k = pre->type->nelems;
            if (!tree_is_pure(pre))
                return fail(c, idx->loc, "an index tuple returned by a call is not supported; "
                            "assign it to a variable first");
            Node **v = arena_alloc(sizeof *v * (size_t)(k ? k : 1));
            for (int i = 0; i < k; i++)
                v[i] = tree_tupleget(i ? node_clone(pre) : pre, i);
            return lower_view(c, e, base, NULL, v, k);
        }
    }
    Node *n = node_new(E_INDEX, e->loc);
    n->lhs = base;
    n->type = base->type->elem;
    Node *err = lower_indices(c, idx, ndim, e->loc, NULL, &n->args, pre);
    return err ? err : n;
}

/* The closest of numba's array attributes to a misspelled one. */
static const char *array_attr_hint(const char *name)
{
    static const char *const attrs[] = {"ndim", "size", "shape", "strides", "itemsize",
                                        "nbytes", "dtype", "T", "real", "imag", NULL};
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; attrs[i]; i++)
        suggest_add(&sg, attrs[i]);
    return suggest_hint(&sg);
}

/* a.shape (kind E_SHAPE) or a.strides (E_STRIDE): the UniTuple(int64,
 * ndim) of one node of that kind per dimension */
static Node *dim_tuple(Loc loc, Node *base, int ndim, NodeKind kind)
{
    Node *tup = node_new(E_TUPLE, loc);
    Type *el[3] = {ty_int64, ty_int64, ty_int64};
    for (int i = 0; i < ndim; i++) {
        Node *s = node_new(kind, loc);
        s->lhs = i ? node_clone(base) : base;
        s->ival = (uint64_t)i;
        s->type = ty_int64;
        nl_push(&tup->args, s);
    }
    tup->type = ty_tuple(el, ndim);
    return tup;
}

Node *lower_attr(Ctx *c, Node *e)
{
    Node *en = enum_lower(c, e);   /* arr: Color.red */
    if (en)
        return en;
    if (strcmp(e->name, "value") == 0 && (en = enum_lower(c, e->lhs)) != NULL &&
        (BAD(en) || en->type == ty_int64))
        return en;   /* arr: Shape.circle.value of an IntEnum member */
    const char *p = expr_path(c, e);
    if (p)
        return lower_path_value(c, e->loc, p);
    Node *base = lx(c, e->lhs);
    if (BAD(base))
        return poison(e->loc, base, NULL);
    Type *t = base->type;
    if (t->kind == TY_ARRAY) {
        if (strcmp(e->name, "ndim") == 0)
            return tree_int(e->loc, ty_int64, t->ndim);
        if (strcmp(e->name, "size") == 0) {
            Node *r = NULL;
            for (int i = 0; i < t->ndim; i++) {
                Node *s = node_new(E_SHAPE, e->loc);
                s->lhs = i ? node_clone(base) : base;
                s->ival = (uint64_t)i;
                s->type = ty_int64;
                r = r ? tree_binop(e->loc, OP_MUL, r, s, ty_int64) : s;
            }
            return r;
        }
        if (strcmp(e->name, "shape") == 0)   /* UniTuple(int64, ndim) */
            return dim_tuple(e->loc, base, t->ndim, E_SHAPE);
        /* issue 9: strides, itemsize, nbytes, T */
        if (strcmp(e->name, "T") == 0)
            return array_transpose(e->loc, base);
        if (strcmp(e->name, "strides") == 0)   /* UniTuple(int64, ndim), bytes */
            return dim_tuple(e->loc, base, t->ndim, E_STRIDE);
        if (t->elem == ty_rngstate && (strcmp(e->name, "itemsize") == 0 ||
                                       strcmp(e->name, "nbytes") == 0))
            return fail(c, e->loc, "xoroshiro128p states have no '%s' here", e->name);
        if (strcmp(e->name, "itemsize") == 0)
            return tree_int(e->loc, ty_int64, ty_size(t->elem));
        if (strcmp(e->name, "nbytes") == 0) {
            Node *r = tree_int(e->loc, ty_int64, ty_size(t->elem));
            for (int i = 0; i < t->ndim; i++) {
                Node *s = node_new(E_SHAPE, e->loc);
                s->lhs = i ? node_clone(base) : base;
                s->ival = (uint64_t)i;
                s->type = ty_int64;
                r = tree_binop(e->loc, OP_MUL, s, r, ty_int64);
            }
            return r;
        }
        /* arr (issue 9): numba's _resolve_real_imag */
        if (strcmp(e->name, "real") == 0 || strcmp(e->name, "imag") == 0) {
            bool number = ty_is_int(t->elem) || t->elem->kind == TY_FLOAT32 ||
                          t->elem->kind == TY_FLOAT64 || ty_is_complex(t->elem);
            if (!number)
                return fail(c, e->loc, "cannot access .%s of array of %s", e->name,
                            ty_name(t->elem));
            if (ty_is_complex(t->elem))
                return complex_array_part(e->loc, base, strcmp(e->name, "imag") == 0);
            if (strcmp(e->name, "real") == 0)
                return base;   /* numba: the identity of a real array */
        }
        if (strcmp(e->name, "copy") == 0 || strcmp(e->name, "flatten") == 0 ||
            strcmp(e->name, "ravel") == 0 || strcmp(e->name, "imag") == 0)
            return fail(c, e->loc, "array.%s allocates a new array, which numba-cuda cannot do "
                        "on the device (NRT)", e->name);
        if (t->elem->kind == TY_RECORD && record_field_index(t->elem, e->name) >= 0)
            return record_array_field(c, e->loc, base, record_field_index(t->elem, e->name));
        return fail(c, e->loc, "array attribute '%s' is not supported%s", e->name,
                    array_attr_hint(e->name));
    }
    if (t->kind == TY_TUPLE && t->is_enum)   /* arr: Color.red.value */
        return enum_attr(c, e, base);
    if (t->kind == TY_TUPLE && t->tname)   /* arr: p.x of a named tuple */
        return ntuple_attr(c, e, base);
    if (t->kind == TY_RECORD) {   /* rec: r.a */
        int f = record_field_index(t, e->name);
        if (f < 0)
            return record_no_field(c, e->loc, t, e->name);
        return record_get(c, e->loc, base, f);
    }
    if (t->kind == TY_VECTOR) {   /* v.x .. v.w (vecrec) */
        static const char fields[] = "xyzw";
        const char *f = e->name[0] && !e->name[1] ? strchr(fields, e->name[0]) : NULL;
        if (!f || f - fields >= t->nelems)
            return fail(c, e->loc, "%s has no attribute '%s' (its fields are %.*s)", ty_name(t),
                        e->name, t->nelems * 2 - 1, &"x y z w"[0]);
        Node *n = node_new(E_TUPLEGET, e->loc);
        n->lhs = base;
        n->ival = (uint64_t)(f - fields);
        n->type = t->elem;
        return n;
    }
    if (ty_is_scalar(t) && (strcmp(e->name, "real") == 0 || strcmp(e->name, "imag") == 0))
        return lower_complex_part(c, e, base);
    return fail(c, e->loc, "a value of type %s has no attribute '%s'", ty_name(t), e->name);
}

/* ---- Iteration (issue 9) ----
 * for x in a (an array: its elements, or the rows of an n-D one), for x in
 * t (a homogeneous tuple), enumerate(it[, start]), zip(it, ...),
 * literal_unroll(t) of a homogeneous tuple, nested as in
 * `for i, (u, v) in enumerate(zip(x, y))`, and range() inside them: each
 * iterable is evaluated once before the loop (arrays into hidden view
 * variables, tuples into hidden tuple variables), then an S_FORRANGE runs
 * a hidden int64 index over the shortest length and assigns the targets
 * from it at the top of the body, so that break, continue and the last
 * values are Python's. */
typedef enum IterKind { IT_ARRAY, IT_TUPLE, IT_RANGE, IT_ENUM, IT_ZIP } IterKind;

typedef struct Iter {
    IterKind kind;
    Loc loc;
    Node *src;              /* IT_ARRAY / IT_TUPLE: the value, read-only (E_VAR) */
    Node *start, *step;     /* IT_RANGE: stable int64 values; IT_ENUM: start */
    Type *rtype;            /* IT_RANGE: the range's type */
    Node *len;              /* int64 length */
    struct Iter *kids[8];
    int nkids;
} Iter;

/* a OP b of two int64s (a typed E_COMPARE) */
static Node *iter_cmp(Loc loc, Op op, Node *a, Node *b)
{
    Node *cmp = node_new(E_COMPARE, loc);
    cmp->ops = arena_alloc(sizeof *cmp->ops);
    cmp->ops[0] = op;
    cmp->type = ty_bool;
    nl_push(&cmp->args, a);
    nl_push(&cmp->args, b);
    return cmp;
}

/* A value evaluated once before the loop: a stable node, or a hidden
 * variable assigned in out. */
static Node *iter_once(Ctx *c, Node *v, const char *what, NodeList *out)
{
    if (v->kind == E_CONST || (v->kind == E_VAR && v->var->kind != VAR_LOCAL &&
                               v->var->kind != VAR_PARAM && v->var->kind != VAR_HIDDEN))
        return v;
    Var *t = hidden_var(c, what, v->type, v->loc);
    if (!c->quiet)
        nl_push(out, tree_assign(v->loc, tree_var(v->loc, t), v));
    return tree_var(v->loc, t);
}

static Iter *lower_iterable(Ctx *c, Node *e, NodeList *out)
{
    Iter *r = arena_alloc(sizeof *r);
    r->loc = e->loc;
    const char *p = e->kind == E_CALL ? expr_path(c, e->lhs) : NULL;
    if (p && (strcmp(p, "range") == 0 || strcmp(p, "enumerate") == 0 ||
              strcmp(p, "zip") == 0 || strcmp(p, "literal_unroll") == 0)) {
        int n = e->args.len;
        if (e->kwargs.len) {
            fail(c, ((Node *)e->kwargs.items[0])->loc, "%s() takes no keyword arguments here", p);
            return NULL;
        }
        if (strcmp(p, "literal_unroll") == 0) {
            if (n != 1) {
                fail(c, e->loc, "literal_unroll() takes one argument");
                return NULL;
            }
            Iter *k = lower_iterable(c, e->args.items[0], out);
            if (k && k->kind != IT_TUPLE && k->kind != IT_ARRAY) {
                fail(c, e->loc, "literal_unroll() takes a tuple or an array");
                return NULL;
            }
            return k;
        }
        if (strcmp(p, "range") == 0) {
            if (n < 1 || n > 3) {
                fail(c, e->loc, "range() takes 1 to 3 positional arguments");
                return NULL;
            }
            Node *v[3];
            Type *types[3];
            for (int i = 0; i < n; i++) {
                v[i] = lx(c, e->args.items[i]);
                if (BAD(v[i]))
                    return NULL;
                if (!ty_is_scalar(v[i]->type)) {
                    fail(c, v[i]->loc, "range() arguments must be numbers, not %s",
                         ty_name(v[i]->type));
                    return NULL;
                }
                types[i] = v[i]->type;
            }
            int k = ty_resolve_case(tr_range.cases, tr_range.n, types, n, true);
            r->kind = IT_RANGE;
            r->rtype = ty_scalar[tr_range.cases[k].ret];
            Node *start = n == 1 ? tree_int(e->loc, ty_int64, 0)
                                 : tree_cast(tree_cast(v[0], r->rtype), ty_int64);
            Node *stop = tree_cast(tree_cast(v[n == 1 ? 0 : 1], r->rtype), ty_int64);
            Node *step = n == 3 ? tree_cast(tree_cast(v[2], r->rtype), ty_int64)
                                : tree_int(e->loc, ty_int64, 1);
            if (step->kind == E_CONST && step->ival == 0) {
                fail(c, step->loc, "range() step must not be zero");
                return NULL;
            }
            r->start = iter_once(c, start, "rstart", out);
            Node *stopv = iter_once(c, stop, "rstop", out);
            r->step = iter_once(c, step, "rstep", out);
            /* len = max(0, ceil((stop - start) / step)): krt_range_len */
            Node *len = node_new(E_API, e->loc);
            len->api = &api_table[API_B_RANGE_LEN];
            len->type = ty_int64;
            nl_push(&len->args, node_clone(r->start));
            nl_push(&len->args, stopv);
            nl_push(&len->args, node_clone(r->step));
            r->len = len;
            return r;
        }
        bool en = strcmp(p, "enumerate") == 0;
        if (en ? n < 1 || n > 2 : n < 1 || n > 8) {
            fail(c, e->loc, en ? "enumerate() takes 1 or 2 arguments" :
                 "zip() takes 1 to 8 iterables here");
            return NULL;
        }
        r->kind = en ? IT_ENUM : IT_ZIP;
        for (int i = 0; i < (en ? 1 : n); i++) {
            r->kids[i] = lower_iterable(c, e->args.items[i], out);
            if (!r->kids[i])
                return NULL;
        }
        r->nkids = en ? 1 : n;
        if (en) {
            Node *st = n == 2 ? lx(c, e->args.items[1]) : tree_int(e->loc, ty_int64, 0);
            if (BAD(st))
                return NULL;
            if (!ty_is_int(st->type)) {
                fail(c, st->loc, "the start of enumerate() must be an integer, not %s",
                     ty_name(st->type));
                return NULL;
            }
            r->start = iter_once(c, tree_cast(st, ty_int64), "estart", out);
            r->len = r->kids[0]->len;
            return r;
        }
        r->len = r->kids[0]->len;
        for (int i = 1; i < n; i++) {   /* the shortest */
            Node *a = r->len, *b = r->kids[i]->len;
            Node *m = node_new(E_IFEXP, e->loc);
            m->cond = iter_cmp(e->loc, OP_LT, a, b);
            m->lhs = node_clone(a);
            m->rhs = node_clone(b);
            m->type = ty_int64;
            r->len = m;
        }
        Node *len = iter_once(c, r->len, "zlen", out);
        r->len = len;
        return r;
    }
    if (p && strcmp(p, "range") != 0 && api_lookup(p) && api_lookup(p)->kind == AK_CALL &&
        !strchr(p, '.') && api_lookup(p)->cls == AC_BUILTIN) {
        fail(c, e->loc, "%s() cannot be iterated over", p);
        return NULL;
    }
    Node *v = lx(c, e);
    if (BAD(v))
        return NULL;
    if (v->type->kind == TY_ARRAY) {
        if (v->type->elem == ty_rngstate) {
            fail(c, e->loc, "xoroshiro128p states cannot be iterated over");
            return NULL;
        }
        r->kind = IT_ARRAY;
        r->src = iter_once(c, v, "iter", out);
        Node *len = node_new(E_SHAPE, e->loc);
        len->lhs = node_clone(r->src);
        len->type = ty_int64;
        r->len = len;
        return r;
    }
    if (v->type->kind == TY_TUPLE) {
        Type *el = v->type->nelems ? v->type->elems[0] : NULL;
        for (int i = 0; i < v->type->nelems; i++)
            if (v->type->elems[i] != el) {
                fail(c, e->loc, "cannot iterate over the heterogeneous tuple %s (numba-cuda "
                     "iterates over tuples of one type only; use literal_unroll())",
                     ty_name(v->type));
                return NULL;
            }
        if (el && !ty_is_scalar(el) && !ty_is_vector(el)) {   /* py: vectors too */
            fail(c, e->loc, "iterating over a tuple of %s is not supported", ty_name(el));
            return NULL;
        }
        r->kind = IT_TUPLE;
        r->src = iter_once(c, v, "titer", out);
        r->len = tree_int(e->loc, ty_int64, v->type->nelems);
        return r;
    }
    fail(c, e->loc, "a value of type %s cannot be iterated over", ty_name(v->type));
    return NULL;
}

/* The value the iterable gives at index k (an E_VAR of int64): a node, or
 * for enumerate/zip the list of the parts (*parts, *nparts). */
static Node *iter_value(Iter *r, Node *k)
{
    switch (r->kind) {
    case IT_ARRAY: {
        Type *at = r->src->type;
        if (at->ndim == 1) {
            Node *n = node_new(E_INDEX, r->loc);
            n->lhs = node_clone(r->src);
            n->type = at->elem;
            nl_push(&n->args, k);
            return n;
        }
        Node *n = node_new(E_VIEW, r->loc);
        n->lhs = node_clone(r->src);
        nl_push(&n->args, k);
        n->type = ty_array(at->elem, at->ndim - 1, at->contiguous, at->space);
        return n;
    }
    case IT_TUPLE: {
        int n = r->src->type->nelems;
        Node *v = tree_tupleget(node_clone(r->src), n - 1);
        for (int i = n - 2; i >= 0; i--) {
            Node *m = node_new(E_IFEXP, r->loc);
            m->cond = iter_cmp(r->loc, OP_EQ, node_clone(k), tree_int(r->loc, ty_int64, i));
            m->lhs = tree_tupleget(node_clone(r->src), i);
            m->rhs = v;
            m->type = v->type;
            v = m;
        }
        return v;
    }
    case IT_RANGE: {
        Node *off = tree_binop(r->loc, OP_MUL, node_clone(k), node_clone(r->step), ty_int64);
        Node *val = tree_binop(r->loc, OP_ADD, node_clone(r->start), off, ty_int64);
        return tree_cast(val, r->rtype);
    }
    default:
        return NULL;
    }
}

/* Assign the targets of a for loop from the iterable's value at k. */
static void iter_assign(Ctx *c, Node *target, Iter *r, Node *k, NodeList *out)
{
    if (r->kind == IT_ENUM || r->kind == IT_ZIP) {
        int n = r->kind == IT_ENUM ? 2 : r->nkids;
        if (target->kind != E_TUPLE && target->kind != E_LIST) {
            fail(c, target->loc, "the target of a loop over %s must unpack its %d items here",
                 r->kind == IT_ENUM ? "enumerate()" : "zip()", n);
            return;
        }
        if (target->args.len != n) {
            fail(c, target->loc, "cannot unpack %d values into %d variables", n,
                 target->args.len);
            return;
        }
        if (r->kind == IT_ENUM) {
            Node *i = tree_binop(r->loc, OP_ADD, node_clone(r->start), node_clone(k), ty_int64);
            assign_value(c, target->args.items[0], i, out);
            iter_assign(c, target->args.items[1], r->kids[0], k, out);
            return;
        }
        for (int i = 0; i < n; i++)
            iter_assign(c, target->args.items[i], r->kids[i], k, out);
        return;
    }
    assign_value(c, target, iter_value(r, node_clone(k)), out);
}

/* py: the targets of a loop whose iterable had an error (reported): poison,
 * so that their uses in the body report nothing more */
static void poison_targets(Ctx *c, Node *t)
{
    if (t->kind == E_NAME) {
        Var *v = lookup_var(c, t->name);
        if (v && !v->type)
            v->type = ty_error;
    } else if (t->kind == E_TUPLE || t->kind == E_LIST) {
        for (int i = 0; i < t->args.len; i++)
            poison_targets(c, t->args.items[i]);
    }
}

/* py (issue 9): literal_unroll(t) of a heterogeneous tuple, as numba
 * versions the loop body per element type: a loop over k whose body is
 * `if k == 0: x = t[0]; BODY elif k == 1: ...`, each copy of BODY typed
 * with its own variable for x (so break and continue keep their meaning).
 * Other variables of the body are one each, their types unified over the
 * copies. */
static Var *unroll_var(Ctx *c, Node *s, int i, Var *base)
{
    for (int j = 0; j + 2 < c->unroll.len; j += 3)
        if (c->unroll.items[j] == s && (intptr_t)c->unroll.items[j + 1] == i)
            return c->unroll.items[j + 2];
    Var *v = arena_alloc(sizeof *v);
    *v = *base;
    v->type = NULL;
    vec_push(&c->unroll, s);
    vec_push(&c->unroll, (void *)(intptr_t)i);
    vec_push(&c->unroll, v);
    return v;
}

static void lower_unroll_mixed(Ctx *c, Node *s, Node *tv, NodeList *out)
{
    if (s->lhs->kind != E_NAME) {
        fail(c, s->lhs->loc, "literal_unroll() of the heterogeneous tuple %s needs a single "
             "loop variable here", ty_name(tv->type));
        return;
    }
    Var *base = lookup_var(c, s->lhs->name);
    int idx = -1;
    for (int j = 0; base && j < c->vars.len; j++)
        if (c->vars.items[j] == base)
            idx = j;
    if (idx < 0) {
        fail(c, s->lhs->loc, "internal: '%s' was not collected", s->lhs->name);
        return;
    }
    Node *src = iter_once(c, tv, "titer", out);
    Var *k = hidden_var(c, "k", ty_int64, s->loc);
    Node *f = tree_stmt(S_FORRANGE, s->loc);
    NodeList *slot = &f->body;
    for (int i = 0; i < tv->type->nelems; i++) {
        Var *xi = unroll_var(c, s, i, base);
        c->vars.items[idx] = xi;
        Node *iff = tree_stmt(S_IF, s->loc);
        iff->cond = iter_cmp(s->loc, OP_EQ, tree_var(s->loc, k), tree_int(s->loc, ty_int64, i));
        assign_value(c, s->lhs, tree_tupleget(node_clone(src), i), &iff->body);
        c->loops++;
        lblock(c, &s->body, &iff->body);
        c->loops--;
        c->vars.items[idx] = base;
        if (!c->quiet && xi->type)
            vec_push(&c->hidden, xi);
        nl_push(slot, iff);
        slot = &iff->orelse;
    }
    if (c->quiet)
        return;
    f->var = k;
    f->it = hidden_var(c, "it", ty_int64, s->loc);
    f->stop = hidden_var(c, "stop", ty_int64, s->loc);
    f->step = hidden_var(c, "step", ty_int64, s->loc);
    nl_push(&f->args, tree_int(s->loc, ty_int64, 0));
    nl_push(&f->args, tree_int(s->loc, ty_int64, tv->type->nelems));
    nl_push(&f->args, tree_int(s->loc, ty_int64, 1));
    nl_push(out, f);
}

static void lower_for_iter(Ctx *c, Node *s, NodeList *out)
{
    const char *up = s->rhs->kind == E_CALL ? expr_path(c, s->rhs->lhs) : NULL;
    if (up && strcmp(up, "literal_unroll") == 0 && s->rhs->args.len == 1 &&
        !s->rhs->kwargs.len) {
        /* py: a heterogeneous tuple? (probed quietly, then lowered for real) */
        bool q = c->quiet;
        c->quiet = true;
        Node *probe = lx(c, s->rhs->args.items[0]);
        c->quiet = q;
        bool mixed = false;
        for (int i = 1; !BAD(probe) && probe->type->kind == TY_TUPLE &&
                        i < probe->type->nelems; i++)
            mixed |= probe->type->elems[i] != probe->type->elems[0];
        if (mixed) {
            Node *tv = q ? probe : lx(c, s->rhs->args.items[0]);
            if (!BAD(tv))
                lower_unroll_mixed(c, s, tv, out);
            return;
        }
    }
    Iter *r = lower_iterable(c, s->rhs, out);
    Node *f = tree_stmt(S_FORRANGE, s->loc);
    Var *k = hidden_var(c, "k", ty_int64, s->loc);
    if (r)
        iter_assign(c, s->lhs, r, tree_var(s->loc, k), &f->body);
    else if (!c->quiet)
        poison_targets(c, s->lhs);
    c->loops++;
    lblock(c, &s->body, &f->body);
    c->loops--;
    if (!r || c->quiet)
        return;
    f->var = k;
    f->it = hidden_var(c, "it", ty_int64, s->loc);
    f->stop = hidden_var(c, "stop", ty_int64, s->loc);
    f->step = hidden_var(c, "step", ty_int64, s->loc);
    nl_push(&f->args, tree_int(s->loc, ty_int64, 0));
    nl_push(&f->args, node_clone(r->len));
    nl_push(&f->args, tree_int(s->loc, ty_int64, 1));
    nl_push(out, f);
}

void lower_for(Ctx *c, Node *s, NodeList *out)
{
    if (s->orelse.len) {
        fail(c, s->loc, "for ... else is not supported yet");
        return;
    }
    Node *it = s->rhs;
    const char *p = it->kind == E_CALL ? expr_path(c, it->lhs) : NULL;
    if (!p || strcmp(p, "range") != 0 || s->lhs->kind != E_NAME) {
        lower_for_iter(c, s, out);
        return;
    }
    if (s->lhs->kind != E_NAME) {
        fail(c, s->lhs->loc, "the target of a for loop must be a single name");
        return;
    }
    if (it->kwargs.len || it->args.len < 1 || it->args.len > 3) {
        fail(c, it->loc, "range() takes 1 to 3 positional arguments");
        return;
    }
    int n = it->args.len;
    Node *v[3];
    Type *types[3];
    bool bad = false;
    for (int i = 0; i < n; i++) {
        v[i] = lx(c, it->args.items[i]);
        if (BAD(v[i])) {
            bad = true;
            continue;
        }
        /* floats are accepted, as numba's Range template converts them
         * (unsafely, truncating) to the chosen case: range(float32) is an
         * int32 range, range(uint8, float64) a uint64 one */
        if (!ty_is_scalar(v[i]->type)) {
            fail(c, v[i]->loc, "range() arguments must be numbers, not %s", ty_name(v[i]->type));
            bad = true;
        }
        types[i] = v[i]->type;
    }
    Var *var = lookup_var(c, s->lhs->name);
    Type *r = NULL;
    if (!bad) {
        int k = ty_resolve_case(tr_range.cases, tr_range.n, types, n, true);
        r = ty_scalar[tr_range.cases[k].ret];
        if (is_array_var(var))
            fail(c, s->lhs->loc, "'%s' is an array; it cannot be a loop variable", var->name);
        else
            bind_var(c, var, r, s->lhs->loc);
    }
    Node *f = tree_stmt(S_FORRANGE, s->loc);
    c->loops++;
    lblock(c, &s->body, &f->body);
    c->loops--;
    if (bad || c->quiet || !var->type)
        return;
    Node *start = n == 1 ? tree_int(it->loc, r, 0) : tree_cast(v[0], r);
    Node *stop = tree_cast(v[n == 1 ? 0 : 1], r);
    Node *step = n == 3 ? tree_cast(v[2], r) : tree_int(it->loc, r, 1);
    if (step->kind == E_CONST && step->ival == 0) {
        fail(c, step->loc, "range() step must not be zero");
        return;
    }
    f->var = var;
    f->it = hidden_var(c, "it", r, s->loc);
    f->stop = hidden_var(c, "stop", r, s->loc);
    f->step = hidden_var(c, "step", r, s->loc);
    nl_push(&f->args, start);
    nl_push(&f->args, stop);
    nl_push(&f->args, step);
    nl_push(out, f);
}
