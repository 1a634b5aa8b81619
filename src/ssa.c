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
 */
#include "kernc.h"

#include <string.h>

typedef struct Webs {
    PtrVec defs;          /* E_NAME definition nodes (N_PARAM for parameters) */
    PtrVec uses;          /* E_NAME use nodes */
    int *use_def;         /* per use: one reaching definition, or -1 */
    int nuse_cap;
    int *parent;          /* union-find over defs */
    int words;
    bool collecting, bail;
    uint64_t *brk, *cont; /* innermost loop: states at break / continue */
} Webs;

static int webs_find(Webs *w, int d)
{
    while (w->parent[d] != d)
        d = w->parent[d] = w->parent[w->parent[d]];
    return d;
}

static int webs_def_id(Webs *w, Node *n)
{
    for (int i = 0; i < w->defs.len; i++)
        if (w->defs.items[i] == n)
            return i;
    return -1;
}

static bool webs_tracked(Webs *w, const char *name)
{
    for (int i = 0; i < w->defs.len; i++)
        if (strcmp(((Node *)w->defs.items[i])->name, name) == 0)
            return true;
    return false;
}

static uint64_t *webs_state(Webs *w)
{
    return arena_alloc(sizeof(uint64_t) * (size_t)(w->words ? w->words : 1));
}

static void webs_or(Webs *w, uint64_t *dst, const uint64_t *src)
{
    for (int i = 0; i < w->words; i++)
        dst[i] |= src[i];
}

static void webs_use(Webs *w, Node *e, uint64_t *st)
{
    if (!e)
        return;
    if (e->kind == E_LAMBDA) {
        w->bail = true;
        return;
    }
    if (e->kind == E_NAME && !w->collecting && webs_tracked(w, e->name)) {
        int first = -1;
        for (int d = 0; d < w->defs.len; d++) {
            if (!(st[d / 64] >> (d % 64) & 1) ||
                strcmp(((Node *)w->defs.items[d])->name, e->name) != 0)
                continue;
            if (first < 0)
                first = d;
            else
                w->parent[webs_find(w, d)] = webs_find(w, first);
        }
        int u = 0;
        while (u < w->uses.len && w->uses.items[u] != e)
            u++;
        if (u == w->uses.len) {
            vec_push(&w->uses, e);
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
static void webs_def(Webs *w, Node *t, uint64_t *st)
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
        if (webs_def_id(w, t) < 0)
            vec_push(&w->defs, t);
        return;
    }
    int id = webs_def_id(w, t);
    for (int d = 0; d < w->defs.len; d++)
        if (strcmp(((Node *)w->defs.items[d])->name, t->name) == 0)
            st[d / 64] &= ~((uint64_t)1 << (d % 64));
    st[id / 64] |= (uint64_t)1 << (id % 64);
}

static void webs_block(Webs *w, NodeList *body, uint64_t *st);

/* A loop: head = entry | end of body | continues, to a fixed point. */
static void webs_loop(Webs *w, Node *s, uint64_t *st)
{
    uint64_t *brk = webs_state(w), *cont = webs_state(w), *head = webs_state(w);
    uint64_t *obrk = w->brk, *ocont = w->cont;
    webs_or(w, head, st);
    for (int iter = 0; iter < 4 * w->defs.len + 4; iter++) {
        uint64_t *cur = webs_state(w);
        webs_or(w, cur, head);
        w->brk = brk, w->cont = cont;
        if (s->kind == S_WHILE)
            webs_use(w, s->cond, cur);
        else
            webs_def(w, s->lhs, cur);
        webs_block(w, &s->body, cur);
        webs_or(w, cur, cont);
        bool grew = false;
        for (int i = 0; i < w->words; i++)
            if (cur[i] & ~head[i])
                grew = true, head[i] |= cur[i];
        if (!grew || w->collecting)
            break;
    }
    w->brk = obrk, w->cont = ocont;
    /* the loop exits with the head's state (for: the target keeps its last
     * value, or none) into the else block, or from a break */
    if (s->kind == S_WHILE)
        webs_use(w, s->cond, head);
    memcpy(st, head, sizeof(uint64_t) * (size_t)w->words);
    webs_block(w, &s->orelse, st);
    webs_or(w, st, brk);
}

static void webs_block(Webs *w, NodeList *body, uint64_t *st)
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
            uint64_t *other = webs_state(w);
            memcpy(other, st, sizeof(uint64_t) * (size_t)w->words);
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
            memset(st, 0, sizeof(uint64_t) * (size_t)w->words);
            break;
        case S_RETURN:
            webs_use(w, s->lhs, st);
            memset(st, 0, sizeof(uint64_t) * (size_t)w->words);
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
    for (int i = 0; i < def->params.len; i++)
        vec_push(&w.defs, def->params.items[i]);
    w.collecting = true;
    w.words = 1;
    uint64_t *st = webs_state(&w);
    webs_block(&w, &def->body, st);
    w.collecting = false;
    if (w.bail || w.defs.len == 0)
        return;
    w.words = (w.defs.len + 63) / 64;
    w.parent = arena_alloc(sizeof *w.parent * (size_t)w.defs.len);
    for (int d = 0; d < w.defs.len; d++)
        w.parent[d] = d;
    st = webs_state(&w);
    for (int d = 0; d < def->params.len; d++)
        st[d / 64] |= (uint64_t)1 << (d % 64);
    webs_block(&w, &def->body, st);
    if (w.bail)
        return;
    /* The first web of each name (the parameter's, else the first assigned)
     * keeps the name; the others become name.2, name.3, ... */
    const char **newname = arena_alloc(sizeof *newname * (size_t)w.defs.len);
    bool *first = arena_alloc(sizeof *first * (size_t)w.defs.len);
    for (int d = 0; d < w.defs.len; d++) {
        Node *n = w.defs.items[d];
        int k = 1;
        first[d] = true;
        for (int e = 0; e < d && first[d]; e++) {
            if (strcmp(((Node *)w.defs.items[e])->name, n->name) != 0)
                continue;
            if (webs_find(&w, e) == webs_find(&w, d))
                first[d] = false, newname[d] = newname[e];
            else if (first[e])
                k++;
        }
        for (int e = 0; e < pinned.len && k > 1; e++)
            if (strcmp(pinned.items[e], n->name) == 0)
                k = 1;
        if (first[d])
            newname[d] = k == 1 ? n->name : arena_printf("%s.%d", n->name, k);
    }
    for (int u = 0; u < w.uses.len; u++)
        if (w.use_def[u] >= 0)
            ((Node *)w.uses.items[u])->name = newname[w.use_def[u]];
    for (int d = def->params.len; d < w.defs.len; d++)
        ((Node *)w.defs.items[d])->name = newname[d];
}

