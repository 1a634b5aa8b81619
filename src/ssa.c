/*
 * ssa.c - numba's SSA before typing: one variable per web of definitions.
 *
 * numba (0.50+) rebuilds SSA before typing: each assignment defines a new
 * version of the name, and only the versions that meet at a join (a phi
 * after an if, around a loop) are unified.  `t = 0.5; t = a[i]` leaves the
 * second t an int64, where unifying every assignment of the function would
 * make it a float64 and round large integers.  Before typing, the
 * definitions of each name are grouped into webs (definitions that reach a
 * common use, computed by reaching definitions over the structured body)
 * and every web but the first is renamed "name.N", a distinct local: webs
 * are what numba's phis unify.  A name's uses reached by a subset of a
 * web's definitions still see the whole web's type (numba would see the
 * narrower one there): rare, and never narrower than numba's.
 *
 * type.c calls ssa_split on each function body it is about to type; the
 * pass only renames E_NAME nodes.
 *
 * Linear in the body for straight-line code: names are numbered through a
 * hash, a state holds per name the sorted set of its reaching definitions
 * (immutable arrays, shared between states, so a copy costs one pointer
 * per name), and definition and use nodes are found by pointer hash.
 */
#include "kernc.h"

#include <string.h>

/* The reaching definitions of one name: sorted def ids, never modified once
 * made (states share them). */
typedef struct DefSet {
    int n;
    const int *d;
} DefSet;

typedef struct Webs {
    PtrVec defs;          /* E_NAME definition nodes (N_PARAM for parameters) */
    PtrVec uses;          /* E_NAME use nodes */
    int *use_def;         /* per use: one reaching definition, or -1 */
    int nuse_cap;
    int *parent;          /* union-find over defs */
    PtrMap def_of, use_of;/* node -> its index in defs / uses */
    const char **names;   /* name id -> name */
    int nnames;
    int *nid;             /* def -> name id */
    const char **name_tab;/* hash set of names: slot -> name; ids in name_ids */
    int *name_ids;
    size_t name_cap;
    bool collecting, bail;
    DefSet *brk, *cont;   /* innermost loop: states at break / continue */
} Webs;

static int webs_find(Webs *w, int d)
{
    while (w->parent[d] != d)
        d = w->parent[d] = w->parent[w->parent[d]];
    return d;
}

/* The id of a defined name, or -1. */
static int name_id(const Webs *w, const char *name)
{
    if (!w->name_cap)
        return -1;
    for (size_t h = str_hash_z(name) & (w->name_cap - 1); w->name_tab[h]; h = (h + 1) & (w->name_cap - 1))
        if (strcmp(w->name_tab[h], name) == 0)
            return w->name_ids[h];
    return -1;
}

static void names_build(Webs *w)
{
    w->name_cap = 64;
    while (w->name_cap < 2 * (size_t)w->defs.len + 2)
        w->name_cap *= 2;
    w->name_tab = arena_alloc(sizeof *w->name_tab * w->name_cap);
    w->name_ids = arena_alloc(sizeof *w->name_ids * w->name_cap);
    w->names = arena_alloc(sizeof *w->names * (size_t)(w->defs.len + 1));
    w->nid = arena_alloc(sizeof *w->nid * (size_t)(w->defs.len + 1));
    for (int d = 0; d < w->defs.len; d++) {
        const char *name = ((Node *)w->defs.items[d])->name;
        int id = name_id(w, name);
        if (id < 0) {
            size_t h = str_hash_z(name) & (w->name_cap - 1);
            while (w->name_tab[h])
                h = (h + 1) & (w->name_cap - 1);
            w->name_tab[h] = name;
            w->name_ids[h] = id = w->nnames;
            w->names[w->nnames++] = name;
        }
        w->nid[d] = id;
    }
}

static DefSet *webs_state(Webs *w)
{
    return arena_alloc(sizeof(DefSet) * (size_t)(w->nnames ? w->nnames : 1));
}

static void state_copy(Webs *w, DefSet *dst, const DefSet *src)
{
    if (w->nnames)
        memcpy(dst, src, sizeof(DefSet) * (size_t)w->nnames);
}

static void state_clear(Webs *w, DefSet *st)
{
    if (w->nnames)
        memset(st, 0, sizeof(DefSet) * (size_t)w->nnames);
}

/* a | b; *grew: b had an element a had not */
static DefSet set_union(DefSet a, DefSet b, bool *grew)
{
    if (b.n == 0 || a.d == b.d)
        return a;
    if (a.n == 0) {
        *grew = true;
        return b;
    }
    int *out = NULL, n = 0, i = 0, j = 0;
    bool more = false;
    /* first pass: is b inside a? */
    while (j < b.n) {
        while (i < a.n && a.d[i] < b.d[j])
            i++;
        if (i == a.n || a.d[i] != b.d[j]) {
            more = true;
            break;
        }
        j++;
    }
    if (!more)
        return a;
    *grew = true;
    out = arena_alloc(sizeof *out * (size_t)(a.n + b.n));
    for (i = 0, j = 0; i < a.n || j < b.n;) {
        if (j == b.n || (i < a.n && a.d[i] < b.d[j]))
            out[n++] = a.d[i++];
        else if (i == a.n || b.d[j] < a.d[i])
            out[n++] = b.d[j++];
        else
            out[n++] = a.d[i++], j++;
    }
    return (DefSet){n, out};
}

static bool webs_or(Webs *w, DefSet *dst, const DefSet *src)
{
    bool grew = false;
    for (int k = 0; k < w->nnames; k++)
        dst[k] = set_union(dst[k], src[k], &grew);
    return grew;
}

static void webs_use(Webs *w, Node *e, DefSet *st)
{
    if (!e)
        return;
    if (e->kind == E_LAMBDA) {
        w->bail = true;
        return;
    }
    int id;
    if (e->kind == E_NAME && !w->collecting && (id = name_id(w, e->name)) >= 0) {
        DefSet r = st[id];
        int first = r.n ? r.d[0] : -1;
        for (int k = 1; k < r.n; k++)
            w->parent[webs_find(w, r.d[k])] = webs_find(w, first);
        int u = ptrmap_get(&w->use_of, e);
        if (u < 0) {
            u = w->uses.len;
            vec_push(&w->uses, e);
            ptrmap_put(&w->use_of, e, u);
            if (u >= w->nuse_cap) {
                int cap = w->nuse_cap ? 2 * w->nuse_cap : 64;
                int *nu = arena_alloc(sizeof *nu * (size_t)cap);
                if (w->nuse_cap)
                    memcpy(nu, w->use_def, sizeof *nu * (size_t)w->nuse_cap);
                w->use_def = nu, w->nuse_cap = cap;
            }
            w->use_def[u] = -1;
        }
        if (first >= 0) {
            if (w->use_def[u] >= 0)
                w->parent[webs_find(w, first)] = webs_find(w, w->use_def[u]);
            w->use_def[u] = first;
        }
        return;
    }
    webs_use(w, e->lhs, st);
    webs_use(w, e->rhs, st);
    webs_use(w, e->cond, st);
    for (int i = 0; i < e->args.len; i++)
        webs_use(w, e->args.items[i], st);
    for (int i = 0; i < e->kwargs.len; i++)
        webs_use(w, e->kwargs.items[i], st);
}

/* A definition of target (a name, a tuple of them, or a subscript/attribute
 * whose parts are uses). */
static void webs_def(Webs *w, Node *t, DefSet *st)
{
    if (t->kind == E_TUPLE || t->kind == E_LIST) {
        for (int i = 0; i < t->args.len; i++)
            webs_def(w, t->args.items[i], st);
        return;
    }
    if (t->kind != E_NAME) {
        webs_use(w, t, st);
        return;
    }
    if (w->collecting) {
        if (ptrmap_get(&w->def_of, t) < 0) {
            ptrmap_put(&w->def_of, t, w->defs.len);
            vec_push(&w->defs, t);
        }
        return;
    }
    int id = ptrmap_get(&w->def_of, t);
    int *one = arena_alloc(sizeof *one);
    *one = id;
    st[w->nid[id]] = (DefSet){1, one};
}

static void webs_block(Webs *w, NodeList *body, DefSet *st);

/* A loop: head = entry | end of body | continues, to a fixed point. */
static void webs_loop(Webs *w, Node *s, DefSet *st)
{
    DefSet *brk = webs_state(w), *cont = webs_state(w), *head = webs_state(w);
    DefSet *obrk = w->brk, *ocont = w->cont;
    webs_or(w, head, st);
    for (int iter = 0; iter < 4 * w->defs.len + 4; iter++) {
        DefSet *cur = webs_state(w);
        webs_or(w, cur, head);
        w->brk = brk, w->cont = cont;
        if (s->kind == S_WHILE)
            webs_use(w, s->cond, cur);
        else
            webs_def(w, s->lhs, cur);
        webs_block(w, &s->body, cur);
        webs_or(w, cur, cont);
        bool grew = webs_or(w, head, cur);
        if (!grew || w->collecting)
            break;
    }
    w->brk = obrk, w->cont = ocont;
    /* the loop exits with the head's state (for: the target keeps its last
     * value, or none) into the else block, or from a break */
    if (s->kind == S_WHILE)
        webs_use(w, s->cond, head);
    state_copy(w, st, head);
    webs_block(w, &s->orelse, st);
    webs_or(w, st, brk);
}

static void webs_block(Webs *w, NodeList *body, DefSet *st)
{
    for (int i = 0; i < body->len && !w->bail; i++) {
        Node *s = body->items[i];
        switch (s->kind) {
        case S_ASSIGN:
            webs_use(w, s->rhs, st);
            for (int j = 0; j < s->args.len; j++)
                webs_def(w, s->args.items[j], st);
            break;
        case S_AUGASSIGN:
            /* t op= v reads one version and defines the next (numba:
             * t.2 = t.1 op v): the read is a copy of the target kept in
             * cond, which lower_augassign reads */
            if (s->lhs->kind == E_NAME && !s->cond)
                s->cond = node_clone(s->lhs);
            webs_use(w, s->rhs, st);
            webs_use(w, s->cond, st);
            webs_def(w, s->lhs, st);
            break;
        case S_IF: {
            webs_use(w, s->cond, st);
            DefSet *other = webs_state(w);
            state_copy(w, other, st);
            webs_block(w, &s->body, st);
            webs_block(w, &s->orelse, other);
            webs_or(w, st, other);
            break;
        }
        case S_WHILE:
        case S_FOR:
            if (s->kind == S_FOR)
                webs_use(w, s->rhs, st);
            webs_loop(w, s, st);
            break;
        case S_BREAK:
        case S_CONTINUE:
            if (w->brk)
                webs_or(w, s->kind == S_BREAK ? w->brk : w->cont, st);
            state_clear(w, st);
            break;
        case S_RETURN:
            webs_use(w, s->lhs, st);
            state_clear(w, st);
            break;
        default:
            if (s->body.len || s->orelse.len) {
                w->bail = true;
                return;
            }
            webs_use(w, s->lhs, st);
            webs_use(w, s->rhs, st);
            webs_use(w, s->cond, st);
            for (int j = 0; j < s->args.len; j++)
                webs_use(w, s->args.items[j], st);
            break;
        }
    }
}

/* Names bound to arrays or groups (cuda.shared/local.array,
 * const.array_like, cg.this_grid) stay one variable: a later assignment to
 * them is the error it always was, not a new version. */
static void ssa_pinned(NodeList *body, SsaPinned *is_pinned, void *ctx, PtrVec *pinned)
{
    for (int i = 0; i < body->len; i++) {
        Node *s = body->items[i];
        if (s->kind == S_ASSIGN && is_pinned(ctx, s))
            for (int j = 0; j < s->args.len; j++)
                if (((Node *)s->args.items[j])->kind == E_NAME)
                    vec_push(pinned, (void *)((Node *)s->args.items[j])->name);
        ssa_pinned(&s->body, is_pinned, ctx, pinned);
        ssa_pinned(&s->orelse, is_pinned, ctx, pinned);
    }
}

void ssa_split(Node *def, SsaPinned *is_pinned, void *ctx)
{
    PtrVec pinned = {0};
    ssa_pinned(&def->body, is_pinned, ctx, &pinned);
    Webs w = {0};
    for (int i = 0; i < def->params.len; i++) {
        ptrmap_put(&w.def_of, def->params.items[i], w.defs.len);
        vec_push(&w.defs, def->params.items[i]);
    }
    w.collecting = true;
    DefSet *st = webs_state(&w);
    webs_block(&w, &def->body, st);
    w.collecting = false;
    if (w.bail || w.defs.len == 0)
        return;
    names_build(&w);
    w.parent = arena_alloc(sizeof *w.parent * (size_t)w.defs.len);
    for (int d = 0; d < w.defs.len; d++)
        w.parent[d] = d;
    st = webs_state(&w);
    for (int d = 0; d < def->params.len; d++) {
        int *one = arena_alloc(sizeof *one);
        *one = d;
        st[w.nid[d]] = (DefSet){1, one};
    }
    webs_block(&w, &def->body, st);
    if (w.bail)
        return;
    /* The first web of each name (the parameter's, else the first assigned)
     * keeps the name; the others become name.2, name.3, ... */
    const char **newname = arena_alloc(sizeof *newname * (size_t)w.defs.len);
    const char **rootname = arena_alloc(sizeof *rootname * (size_t)w.defs.len);
    int *webs_of_name = arena_alloc(sizeof *webs_of_name * (size_t)w.nnames);
    bool *is_pinned_name = arena_alloc(sizeof *is_pinned_name * (size_t)w.nnames);
    for (int e = 0; e < pinned.len; e++) {
        int id = name_id(&w, pinned.items[e]);
        if (id >= 0)
            is_pinned_name[id] = true;
    }
    for (int d = 0; d < w.defs.len; d++) {
        Node *n = w.defs.items[d];
        int r = webs_find(&w, d);
        if (!rootname[r]) {
            int k = ++webs_of_name[w.nid[d]];
            if (is_pinned_name[w.nid[d]])
                k = 1;
            rootname[r] = k == 1 ? n->name : arena_printf("%s.%d", n->name, k);
        }
        newname[d] = rootname[r];
    }
    for (int u = 0; u < w.uses.len; u++)
        if (w.use_def[u] >= 0)
            ((Node *)w.uses.items[u])->name = newname[w.use_def[u]];
    for (int d = def->params.len; d < w.defs.len; d++)
        ((Node *)w.defs.items[d])->name = newname[d];
}
