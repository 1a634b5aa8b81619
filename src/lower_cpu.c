/*
 * lower_cpu.c - the CPU lowering: a kernel's typed tree into the
 * block-level form of lower_cpu.h, which emit_cpu.c prints.
 *
 * One pass over each kernel, reading the tree only.  A kernel without a
 * barrier or warp operation is one region (one loop over the block's
 * threads, locals in C).  Any other is cut, as MCUDA and PoCL do: runs of
 * statements free of barriers become regions; a statement that holds a
 * barrier becomes block-level code -- a predicated if, a loop that runs
 * while any thread stays in it, a barrier (with the reduction of
 * syncthreads_count/and/or), a warp-operation cut, a grid-sync resume
 * point, or the inlined body of a device function that synchronises.
 * Every local then lives in the per-thread frame (CpuHome; a liveness
 * analysis can keep more of them in C locals), and each region lists the
 * statements by which a thread leaves it early, with the state it gets.
 *
 * A call of a device function that synchronises is hoisted out of its
 * statement: its arguments are stored in a region, its body follows, and
 * the rest of the statement sees the call's result through a CpuBind.
 * That keeps Python's order as long as nothing evaluated before the call
 * in the statement can see what the callee does and the call is not under
 * `and`/`or`/`if-else`; elsewhere the kernel is CUDA-only (CB_FAIL).
 *
 * The numbers of the form are assigned in print order, so that emit_cpu.c
 * prints the same C as when it lowered while printing.
 */
#include "lower_cpu.h"

#include <string.h>

typedef struct Lower {
    CpuKernel *K;
    const Options *opt;
    const CpuFunc *ctx;      /* the function being lowered (kernel or callee) */
    const CpuBlock *inl;     /* ctx inlined: its CB_INLINE */
    const CpuBind *binds;    /* inlined results visible now */
    int bif, bloop;          /* block-level ifs and loops open */
    int nlabels, nwarp, ncalls;
    PtrVec inl_funcs;        /* CpuFunc of callees inlined already */
    PtrVec dsh_members;      /* functions with a krt_dsh_ member */
    bool all_active;         /* no thread can be out of the running here */
    int nret;                /* exits that end a thread for good so far */
} Lower;

/* ---- growable arrays in the arena ---- */

static void *grow(void *items, int len, int *cap, size_t size)
{
    if (len < *cap)
        return items;
    int ncap = *cap ? 2 * *cap : 8;
    void *n = arena_alloc(size * (size_t)ncap);
    if (len)
        memcpy(n, items, size * (size_t)len);
    *cap = ncap;
    return n;
}

static void list_push(CpuList *l, CpuBlock *b)
{
    l->items = grow(l->items, l->len, &l->cap, sizeof *l->items);
    l->items[l->len++] = b;
}

static CpuItem *item_add(CpuBlock *r, CpuItemKind kind, const Node *stmt)
{
    r->items = grow(r->items, r->nitems, &r->items_cap, sizeof *r->items);
    CpuItem *it = &r->items[r->nitems++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->stmt = stmt;
    return it;
}

static void exit_add(Lower *L, CpuBlock *r, const Node *stmt, CpuState state, int depth)
{
    if (state == CPU_RETURNED)
        L->nret++;
    r->exits = grow(r->exits, r->nexits, &r->exits_cap, sizeof *r->exits);
    r->exits[r->nexits++] = (CpuExit){stmt, state, depth};
}

static void slot_add(CpuSlots *s, CpuSlot slot)
{
    s->items = grow(s->items, s->len, &s->cap, sizeof *s->items);
    s->items[s->len++] = slot;
}

static bool vec_contains(const PtrVec *v, const void *p)
{
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == p)
            return true;
    return false;
}

/* ---- uniformity (issue 10) ----
 * A local variable is block-uniform when every assignment of it stores a
 * value equal for all threads of the block (constants, block indices and
 * sizes, grid sizes, parameters the kernel never assigns, other uniform
 * variables, and pure arithmetic of those) under control flow that is
 * itself uniform; with a return, break or continue anywhere in the kernel
 * a thread can skip an assignment, so then only assignments at the top
 * level of the kernel's body count.  Reading a variable before any
 * assignment gives 0 in every thread, which is uniform too.  The greatest
 * solution is found by removing candidates until nothing changes.  Such a
 * variable lives once per block (CPU_HOME_BLOCK); block-level ifs and
 * loops whose condition is uniform (and whose body no thread can leave
 * early) run as plain C, with no thread state; a uniform assignment
 * directly at block level runs once. */

typedef struct Uni {
    const Func *f;
    const bool *param_copied;
    bool *uni;               /* by local index: still a candidate */
    bool has_exit;           /* return, break, continue or a zero-step check */
    bool changed;
} Uni;

static bool uni_local(const Func *f, const Var *v)
{
    return v && (v->kind == VAR_LOCAL || v->kind == VAR_HIDDEN) && v->index >= 0 &&
           v->index < f->nlocals && f->locals[v->index] == v && v->type &&
           v->type->kind != TY_ARRAY;
}

/* A parameter of f the kernel never assigns (no per-thread copy): the same
 * value in every thread and every region. */
static bool param_unchanged(const Func *f, const bool *param_copied, const Var *v)
{
    return v && v->kind == VAR_PARAM && v->index >= 0 && v->index < f->nparams &&
           f->params[v->index] == v && !param_copied[v->index];
}

static bool uni_expr(const Uni *U, const Node *n)
{
    if (!n)
        return true;
    switch (n->kind) {
    case E_CONST:
        return true;
    case E_VAR: {
        const Var *v = n->var;
        if (!v)
            return false;
        if (v->kind == VAR_PARAM)
            return param_unchanged(U->f, U->param_copied, v);
        return uni_local(U->f, v) && U->uni[v->index];
    }
    case E_CAST: case E_UNARY: case E_TUPLEGET:
        if (n->lhs && n->lhs->type && n->lhs->type->kind == TY_RECORD)
            return false;   /* rec: a field is memory, which threads write */
        return uni_expr(U, n->lhs);
    case E_SHAPE:
        return n->lhs && n->lhs->kind == E_VAR && uni_expr(U, n->lhs);
    case E_BINOP: {
        if (n->op == OP_DIV || n->op == OP_FLOORDIV || n->op == OP_MOD || n->op == OP_POW) {
            /* no division that could fail where no thread divides */
            const Node *d = tree_strip_casts(n->rhs);
            if (!d || d->kind != E_CONST || (d->ival == 0 && d->fval == 0))
                return false;
        }
        return uni_expr(U, n->lhs) && uni_expr(U, n->rhs);
    }
    case E_BOOLOP:
        return uni_expr(U, n->lhs) && uni_expr(U, n->rhs);
    case E_IFEXP:
        return uni_expr(U, n->cond) && uni_expr(U, n->lhs) && uni_expr(U, n->rhs);
    case E_COMPARE:
        for (int i = 0; i < n->args.len; i++)
            if (!uni_expr(U, n->args.items[i]))
                return false;
        return true;
    case E_API:
        switch (api_id(n->api)) {
        case API_BID_X: case API_BID_Y: case API_BID_Z: case API_BDIM_X: case API_BDIM_Y:
        case API_BDIM_Z: case API_GDIM_X: case API_GDIM_Y: case API_GDIM_Z: case API_GRIDSIZE:
        case API_WARPSIZE:
            for (int i = 0; i < n->args.len; i++)
                if (!uni_expr(U, n->args.items[i]))
                    return false;
            return true;
        default:
            return false;
        }
    default:
        return false;
    }
}

static void uni_kill(Uni *U, const Var *v)
{
    if (uni_local(U->f, v) && U->uni[v->index]) {
        U->uni[v->index] = false;
        U->changed = true;
    }
}

/* Variables bound by E_LET, and anything assigned inside an expression. */
static Visit uni_let(const Node *n, void *ctx)
{
    if (n->kind == E_LET && n->var)
        uni_kill(ctx, n->var);
    return VISIT_CHILDREN;
}

static Visit uni_exit(const Node *n, void *ctx)
{
    bool *has = ctx;
    int64_t step;
    if (n->kind == S_RETURN || n->kind == S_BREAK || n->kind == S_CONTINUE ||
        (n->kind == S_FORRANGE && !range_step_known(n, &step)) ||
        ((n->kind == S_RAISE || n->kind == S_ASSERT) && !n->ival)) {   /* dev: the thread ends */
        *has = true;
        return VISIT_STOP;
    }
    return VISIT_CHILDREN;
}

static bool has_exit(const Node *n)
{
    bool has = false;
    node_walk(n, uni_exit, &has);
    return has;
}

static bool list_has_exit(const NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        if (has_exit(l->items[i]))
            return true;
    return false;
}

/* One pass over statement list l; ok: the control reaching it is uniform
 * (and, with exits in the kernel, at its top level). */
static void uni_stmts(Uni *U, const NodeList *l, bool ok);

static void uni_stmt(Uni *U, const Node *s, bool ok)
{
    switch (s->kind) {
    case S_ASSIGN: {
        bool single = s->args.len == 1 && s->args.items[0]->kind == E_VAR;
        for (int i = 0; i < s->args.len; i++) {
            const Node *t = s->args.items[i];
            if (t->kind == E_VAR) {
                if (!ok || !single || !uni_expr(U, s->rhs))
                    uni_kill(U, t->var);
            } else if (t->kind == E_TUPLE) {
                for (int k = 0; k < t->args.len; k++)
                    if (t->args.items[k]->kind == E_VAR)
                        uni_kill(U, t->args.items[k]->var);
            }
        }
        return;
    }
    case S_AUGASSIGN:
        if (s->lhs && s->lhs->kind == E_VAR) {
            Node fake = *s;
            fake.kind = E_BINOP;
            if (!ok || !uni_expr(U, s->lhs) || !uni_expr(U, &fake))
                uni_kill(U, s->lhs->var);
        }
        return;
    case S_IF:
        uni_stmts(U, &s->body, ok && !U->has_exit && uni_expr(U, s->cond));
        uni_stmts(U, &s->orelse, ok && !U->has_exit && uni_expr(U, s->cond));
        return;
    case S_WHILE:
        uni_stmts(U, &s->body, ok && !U->has_exit && uni_expr(U, s->cond));
        return;
    case S_FORRANGE: {
        bool b = ok && !U->has_exit;
        for (int i = 0; i < s->args.len; i++)
            b = b && uni_expr(U, s->args.items[i]);
        if (!b) {
            uni_kill(U, s->var);
            uni_kill(U, s->it);
            uni_kill(U, s->stop);
            uni_kill(U, s->step);
        }
        uni_stmts(U, &s->body, b);
        return;
    }
    case S_WARPOP:
        if (s->lhs && s->lhs->kind == E_VAR)
            uni_kill(U, s->lhs->var);
        return;
    case S_BARRIER:
        if (s->rhs && s->rhs->kind == E_VAR)
            uni_kill(U, s->rhs->var);
        return;
    default:
        return;
    }
}

static void uni_stmts(Uni *U, const NodeList *l, bool ok)
{
    for (int i = 0; i < l->len; i++)
        uni_stmt(U, l->items[i], ok);
}

/* The uniform locals of kernel f: their homes become CPU_HOME_BLOCK. */
static void find_uniform(CpuKernel *K, const Func *f)
{
    Uni U = {0};
    U.f = f;
    U.param_copied = K->param_copied;
    U.uni = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < f->nlocals; i++)
        U.uni[i] = uni_local(f, f->locals[i]);
    U.has_exit = list_has_exit(&f->def->body);
    K->has_exit = U.has_exit;
    /* what an E_LET binds is never uniform, whatever the control: once,
     * before the fixed point (the kills only grow, so the point reached is
     * the same) */
    for (int i = 0; i < f->def->body.len; i++)
        node_walk(f->def->body.items[i], uni_let, &U);
    do {
        U.changed = false;
        uni_stmts(&U, &f->def->body, true);
    } while (U.changed);
    K->uni = U.uni;
    for (int i = 0; i < f->nlocals; i++)
        if (U.uni[i])
            K->vars->local_home[i] = CPU_HOME_BLOCK;
}

/* Is expression n block-uniform (after find_uniform)? */
static bool is_uniform(const Lower *L, const Node *n)
{
    if (!L->K->uni || L->ctx != L->K->vars)
        return false;
    Uni U = {0};
    U.f = L->K->fn;
    U.param_copied = L->K->param_copied;
    U.uni = L->K->uni;
    return uni_expr(&U, n);
}

/* A statement run once by the block: an assignment of a uniform variable. */
static bool is_uniform_stmt(const Lower *L, const Node *s)
{
    if (!L->K->uni || L->ctx != L->K->vars || L->binds)
        return false;
    const Node *t = s->kind == S_ASSIGN && s->args.len == 1 ? s->args.items[0]
                    : s->kind == S_AUGASSIGN ? s->lhs : NULL;
    return t && t->kind == E_VAR && uni_local(L->K->fn, t->var) && L->K->uni[t->var->index];
}

/* ---- recomputed variables ----
 * A frame variable assigned once, by a statement at the top level of the
 * kernel's body, from constants, thread and block indices and sizes,
 * parameters the kernel never assigns, array shapes of those, and other
 * such variables, and read only after that statement (tx =
 * cuda.threadIdx.x, i = cuda.grid(1)), has the same value in every region
 * after it: each region that uses it computes it again (CPU_HOME_REMAT),
 * a few instructions instead of a frame slot stored and loaded per thread
 * and region.  Not with debug checks (the -g path keeps its frames). */

typedef struct Remat {
    const Func *f;
    const CpuKernel *K;
    int *defs;               /* by local index: assignments anywhere */
    bool *ok;                /* by local index: recomputable so far */
    const Var *find;         /* remat_reads: the variable looked for */
    bool uniform_only;       /* remat_expr: block-uniform too (uok) */
    bool *uok;               /* by local index: that, and block-uniform */
} Remat;

static void remat_def(Remat *R, const Var *v)
{
    if (v && uni_local(R->f, v))
        R->defs[v->index]++;
}

static Visit remat_defs(const Node *n, void *ctx)
{
    Remat *R = ctx;
    switch (n->kind) {
    case S_ASSIGN:
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_VAR)
                remat_def(R, t->var);
            else if (t->kind == E_TUPLE)
                for (int k = 0; k < t->args.len; k++)
                    if (t->args.items[k]->kind == E_VAR)
                        remat_def(R, t->args.items[k]->var);
        }
        break;
    case S_AUGASSIGN: case S_WARPOP:
        if (n->lhs && n->lhs->kind == E_VAR)
            remat_def(R, n->lhs->var);
        break;
    case S_BARRIER:
        if (n->rhs && n->rhs->kind == E_VAR)
            remat_def(R, n->rhs->var);
        break;
    case S_FORRANGE:
        remat_def(R, n->var);
        remat_def(R, n->it);
        remat_def(R, n->stop);
        remat_def(R, n->step);
        break;
    case E_LET:
        remat_def(R, n->var);
        break;
    default:
        break;
    }
    return VISIT_CHILDREN;
}

static Visit remat_reads(const Node *n, void *ctx)
{
    const Remat *R = ctx;
    return n->kind == E_VAR && n->var == R->find ? VISIT_STOP : VISIT_CHILDREN;
}

static bool remat_expr(const Remat *R, const Node *n)
{
    if (!n)
        return false;
    switch (n->kind) {
    case E_CONST:
        return true;
    case E_VAR: {
        const Var *v = n->var;
        if (!v)
            return false;
        if (v->kind == VAR_PARAM)
            return param_unchanged(R->f, R->K->param_copied, v) && v->type && v->type->kind != TY_ARRAY;
        return uni_local(R->f, v) && (R->uniform_only ? R->uok : R->ok)[v->index];
    }
    case E_CAST:
        return n->type && n->lhs && n->lhs->type && ty_is_scalar(n->type) && ty_is_scalar(n->lhs->type) &&
               remat_expr(R, n->lhs);
    case E_UNARY:
        return (n->op == OP_NEG || n->op == OP_INVERT) && n->type && ty_is_int(n->type) &&
               remat_expr(R, n->lhs);
    case E_TUPLEGET:
        return remat_expr(R, n->lhs);
    case E_SHAPE: {
        const Var *a = n->lhs && n->lhs->kind == E_VAR ? n->lhs->var : NULL;
        return param_unchanged(R->f, R->K->param_copied, a);
    }
    case E_BINOP:
        switch (n->op) {
        case OP_ADD: case OP_SUB: case OP_MUL: case OP_BITAND: case OP_BITOR: case OP_BITXOR:
            break;
        default:
            return false;
        }
        return n->type && ty_is_int(n->type) && remat_expr(R, n->lhs) && remat_expr(R, n->rhs);
    case E_API:
        switch (api_id(n->api)) {
        case API_TID_X: case API_TID_Y: case API_TID_Z: case API_BID_X: case API_BID_Y:
        case API_BID_Z: case API_BDIM_X: case API_BDIM_Y: case API_BDIM_Z: case API_GDIM_X:
        case API_GDIM_Y: case API_GDIM_Z: case API_GRID: case API_GRIDSIZE: case API_WARPSIZE:
        case API_LANEID:
            if (R->uniform_only && api_id_has(api_id(n->api), AF_THREAD_DEP))
                return false;
            for (int i = 0; i < n->args.len; i++)
                if (!remat_expr(R, n->args.items[i]))
                    return false;
            return true;
        default:
            return false;
        }
    default:
        return false;
    }
}

static void find_remat(CpuKernel *K, CpuFunc *kv)
{
    const Func *f = K->fn;
    const NodeList *body = &f->def->body;
    Remat R = {0};
    R.f = f;
    R.K = K;
    R.defs = arena_alloc(sizeof(int) * (size_t)(f->nlocals + 1));
    R.ok = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < body->len; i++)
        node_walk(body->items[i], remat_defs, &R);
    kv->remat = arena_alloc(sizeof(const Node *) * (size_t)(f->nlocals + 1));
    for (int k = 0; k < body->len; k++) {
        const Node *s = body->items[k];
        if (s->kind != S_ASSIGN || s->args.len != 1 || s->args.items[0]->kind != E_VAR)
            continue;
        const Var *v = s->args.items[0]->var;
        if (!uni_local(f, v) || R.defs[v->index] != 1 || !remat_expr(&R, s->rhs))
            continue;
        CpuHome h = kv->local_home[v->index];
        if (h != CPU_HOME_FRAME && h != CPU_HOME_BLOCK)
            continue;
        /* read before its definition: 0 there, not the value */
        R.find = v;
        bool early = node_walk(s->rhs, remat_reads, &R);
        for (int j = 0; j < k && !early; j++)
            early = node_walk(body->items[j], remat_reads, &R);
        if (early)
            continue;
        /* a block-uniform one stays once per block, but others may use it */
        R.ok[v->index] = true;
        if (h == CPU_HOME_FRAME) {
            kv->local_home[v->index] = CPU_HOME_REMAT;
            kv->remat[v->index] = s->rhs;
        }
    }
}

/* ---- frame variables cached in a region's C locals ---- */

static Visit cache_use(const Node *n, void *ctx);

static void cache_var(CpuBlock *r, const Var *v, bool store)
{
    const CpuFunc *cf = r->ctx;
    const Func *f = cf->fn;
    CpuHome h;
    if (!v || !v->type || v->type->kind == TY_ARRAY)
        return;
    if (v->kind == VAR_PARAM) {
        if (v->index < 0 || v->index >= f->nparams || f->params[v->index] != v)
            return;
        h = cf->param_home[v->index];
    } else {
        if (v->index < 0 || v->index >= f->nlocals || f->locals[v->index] != v)
            return;
        h = cf->local_home[v->index];
    }
    if (h == CPU_HOME_BLOCK && store && !vec_contains(&r->uvars, v))
        vec_push(&r->uvars, (void *)v);
    if (h != CPU_HOME_FRAME && h != CPU_HOME_REMAT)
        return;
    for (int i = 0; i < r->ncache; i++)
        if (r->cache[i] == v) {
            r->cache_store[i] |= store;
            return;
        }
    if (h == CPU_HOME_REMAT)
        /* what its value is computed from, cached first */
        node_walk(cf->remat[v->index], cache_use, r);
    if (r->ncache == r->cache_cap) {
        int ncap = r->cache_cap ? 2 * r->cache_cap : 8;
        const Var **nv = arena_alloc(sizeof *nv * (size_t)ncap);
        bool *ns = arena_alloc(sizeof *ns * (size_t)ncap);
        if (r->ncache) {
            memcpy(nv, r->cache, sizeof *nv * (size_t)r->ncache);
            memcpy(ns, r->cache_store, sizeof *ns * (size_t)r->ncache);
        }
        r->cache = nv;
        r->cache_store = ns;
        r->cache_cap = ncap;
    }
    r->cache[r->ncache] = v;
    r->cache_store[r->ncache++] = store;
}

/* Every variable under n (read or written: written ones are marked by
 * cache_stmt; store says n is itself a target). */
static Visit cache_use(const Node *n, void *ctx)
{
    CpuBlock *r = ctx;
    if (n->kind == E_VAR)
        cache_var(r, n->var, false);
    if (n->kind == E_LET)
        cache_var(r, n->var, true);
    if (n->kind == S_FORRANGE) {
        cache_var(r, n->var, true);
        cache_var(r, n->it, true);
        cache_var(r, n->stop, true);
        cache_var(r, n->step, true);
    }
    return VISIT_CHILDREN;
}

static Visit cache_targets(const Node *n, void *ctx)
{
    CpuBlock *r = ctx;
    if (n->kind == S_ASSIGN)
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_VAR)
                cache_var(r, t->var, true);
            else if (t->kind == E_TUPLE)
                for (int k = 0; k < t->args.len; k++)
                    if (t->args.items[k]->kind == E_VAR)
                        cache_var(r, t->args.items[k]->var, true);
        }
    if (n->kind == S_AUGASSIGN && n->lhs && n->lhs->kind == E_VAR)
        cache_var(r, n->lhs->var, true);
    if ((n->kind == S_WARPOP || n->kind == S_BARRIER) && n->lhs && n->lhs->kind == E_VAR)
        cache_var(r, n->lhs->var, true);
    if (n->kind == S_BARRIER && n->rhs && n->rhs->kind == E_VAR)
        cache_var(r, n->rhs->var, true);
    return VISIT_CHILDREN;
}

static void cache_region(CpuBlock *r)
{
    for (int i = 0; i < r->nitems; i++) {
        const CpuItem *it = &r->items[i];
        const Node *s = it->stmt;
        if (!s)
            continue;
        switch (it->kind) {
        case CI_SKIP: case CI_RESET: case CI_ELSE_SWAP:
            break;
        case CI_STMT:
            node_walk(s, cache_targets, r);
            node_walk(s, cache_use, r);
            break;
        case CI_IF_TEST:
            node_walk(s->cond, cache_use, r);
            break;
        case CI_LOOP_TEST:
            if (s->kind == S_FORRANGE) {
                cache_var(r, s->it, false);
                cache_var(r, s->stop, false);
                cache_var(r, s->step, false);
                cache_var(r, s->var, true);
            } else {
                node_walk(s->cond, cache_use, r);
            }
            break;
        case CI_RANGE_INIT:
            for (int k = 0; k < s->args.len; k++)
                node_walk(s->args.items[k], cache_use, r);
            cache_var(r, s->it, true);
            cache_var(r, s->stop, true);
            cache_var(r, s->step, true);
            break;
        case CI_RANGE_NEXT:
            cache_var(r, s->it, true);
            cache_var(r, s->step, false);
            break;
        case CI_RED_ADD:
            node_walk(s->lhs, cache_use, r);
            break;
        case CI_RED_RESULT:
            node_walk(s->rhs, cache_use, r);
            if (s->rhs && s->rhs->kind == E_VAR)
                cache_var(r, s->rhs->var, true);
            break;
        case CI_WARP_STORE:
            for (int k = 0; k < s->args.len && k < 3; k++)
                node_walk(s->args.items[k], cache_use, r);
            break;
        case CI_INLINE_ARGS:
            for (int k = 0; k < s->args.len; k++)
                node_walk(s->args.items[k], cache_use, r);
            break;
        }
    }
}

static int *var_refs(const CpuFunc *cf, const Var *v)
{
    const Func *f = cf->fn;
    if (!cf->param_refs)
        return NULL;
    if (v->kind == VAR_PARAM)
        return v->index >= 0 && v->index < f->nparams && f->params[v->index] == v
                   ? &cf->param_refs[v->index] : NULL;
    return v->index >= 0 && v->index < f->nlocals && f->locals[v->index] == v
               ? &cf->local_refs[v->index] : NULL;
}

static CpuHome var_home(const CpuFunc *cf, const Var *v)
{
    return v->kind == VAR_PARAM ? cf->param_home[v->index] : cf->local_home[v->index];
}

static void refs_alloc(CpuFunc *cf)
{
    if (cf->param_refs)
        return;
    cf->param_refs = arena_alloc(sizeof(int) * (size_t)(cf->fn->nparams + 1));
    cf->local_refs = arena_alloc(sizeof(int) * (size_t)(cf->fn->nlocals + 1));
}

static void cache_list(CpuList *l, bool in_loop, int pass);
static bool bar_kills(const CpuBlock *a, const Var *v);

/* Does region r, all plain statements, set v before anything reads it? */
static bool region_kills(const CpuBlock *r, const Var *v)
{
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].kind != CI_STMT)
            return false;
    return bar_kills(r, v);
}

/* pass 0: cache sets and use counts; pass 1: which cached variables need
 * their frame field at all */
static void cache_block(CpuBlock *b, bool in_loop, int pass)
{
    if (!b)
        return;
    if (b->kind == CB_REGION) {
        if (pass == 0) {
            refs_alloc((CpuFunc *)b->ctx);
            b->in_loop = in_loop;
            cache_region(b);
            b->cache_load = arena_alloc(sizeof(bool) * (size_t)(b->ncache + 1));
            for (int i = 0; i < b->ncache; i++) {
                int *n = var_refs(b->ctx, b->cache[i]);
                if (n)
                    ++*n;
            }
        } else {
            for (int i = 0; i < b->ncache; i++) {
                int *n = var_refs(b->ctx, b->cache[i]);
                /* (in a loop too when it sets the variable before any
                 * read: no value carries from one iteration to the next) */
                bool alone = n && *n == 1 && (!b->in_loop || region_kills(b, b->cache[i]));
                b->cache_load[i] = !alone;
                if (alone || var_home(b->ctx, b->cache[i]) == CPU_HOME_REMAT)
                    b->cache_store[i] = false;
            }
        }
        return;
    }
    if (b->kind == CB_WARP && pass == 0 && b->stmt->lhs && b->stmt->lhs->kind == E_VAR) {
        /* the result is written by the warp's loop, not by a region */
        refs_alloc((CpuFunc *)b->ctx);
        int *n = var_refs(b->ctx, b->stmt->lhs->var);
        if (n)
            *n += 2;
    }
    if (b->kind == CB_WARP && pass == 0 && b->val_direct) {
        /* the warp's loop reads the value from the frame */
        refs_alloc((CpuFunc *)b->ctx);
        int *n = var_refs(b->ctx, b->val_direct);
        if (n)
            *n += 2;
    }
    if (b->kind == CB_INLINE && pass == 0) {
        /* the caller's region stores the callee's parameters */
        CpuFunc *cf = (CpuFunc *)b->callee_ctx;
        refs_alloc(cf);
        for (int i = 0; i < cf->fn->nparams; i++)
            cf->param_refs[i] += 2;
    }
    bool loop = in_loop || b->kind == CB_LOOP;
    cache_block(b->head, loop, pass);
    cache_block(b->next, loop, pass);
    cache_list(&b->body, loop, pass);
    cache_list(&b->orelse, in_loop, pass);
}

static void cache_list(CpuList *l, bool in_loop, int pass)
{
    for (int i = 0; i < l->len; i++)
        cache_block(l->items[i], in_loop, pass);
}

/* ---- warp (issue 10): shuffle-reduction trees (CpuBlock.tree) ---- */

/* An expression a warp may evaluate again for itself: arithmetic on
 * scalar variables and constants, no memory, no call, no division but by
 * a nonzero constant. */
static Visit tree_impure(const Node *n, void *ctx)
{
    (void)ctx;
    switch (n->kind) {
    case E_CONST: case E_CAST: case E_UNARY: case E_COMPARE: case E_BOOLOP:
        return VISIT_CHILDREN;
    case E_VAR:
        return n->var && n->var->type && n->var->type->kind != TY_ARRAY ? VISIT_CHILDREN : VISIT_STOP;
    case E_BINOP:
        if (n->op == OP_POW || n->op == OP_MATMUL)
            return VISIT_STOP;
        if ((n->op == OP_DIV || n->op == OP_FLOORDIV || n->op == OP_MOD) &&
            !(n->rhs && n->rhs->kind == E_CONST && (n->rhs->ival != 0 || n->rhs->fval != 0)))
            return VISIT_STOP;
        return VISIT_CHILDREN;
    default:
        return VISIT_STOP;
    }
}

static bool tree_pure(const Node *n)
{
    return !n || !node_walk(n, tree_impure, NULL);
}

/* A CB_UNIFORM the loop may run once per warp: the assignment of a
 * block-uniform C local from a pure expression. */
static bool tree_uniform_stmt(const CpuBlock *u)
{
    const Node *s = u->stmt;
    const Node *t = NULL;
    if (u->kind != CB_UNIFORM || !s)
        return false;
    if (s->kind == S_ASSIGN && s->args.len == 1)
        t = s->args.items[0];
    else if (s->kind == S_AUGASSIGN)
        t = s->lhs;
    if (!t || t->kind != E_VAR || !uni_local(u->ctx->fn, t->var) ||
        var_home(u->ctx, t->var) != CPU_HOME_BLOCK)
        return false;
    return tree_pure(s->rhs) && (s->kind != S_AUGASSIGN || tree_pure(s->cond));
}

/* Is the fused region r of warp w exactly `v = v + x` (or v += x), v the
 * shuffled float variable, x the shuffle's result? */
static bool tree_add(const CpuBlock *w, const CpuBlock *r)
{
    const Var *v = w->val_direct, *x = w->stmt->lhs->var;
    if (!v || v == x || !v->type || v->type != x->type ||
        (v->type != ty_scalar[TY_FLOAT32] && v->type != ty_scalar[TY_FLOAT64]))
        return false;
    if (r->nitems != 1 || r->items[0].kind != CI_STMT || r->ncache != 2)
        return false;
    const Node *s = r->items[0].stmt, *t = NULL, *a = NULL, *b = NULL;
    if (s->kind == S_ASSIGN && s->args.len == 1 && s->rhs && s->rhs->kind == E_BINOP &&
        s->rhs->op == OP_ADD) {
        t = s->args.items[0];
        a = s->rhs->lhs;
        b = s->rhs->rhs;
    } else if (s->kind == S_AUGASSIGN && s->op == OP_ADD) {
        t = a = s->lhs;
        b = s->rhs;
    }
    if (!t || !a || !b || t->kind != E_VAR || t->var != v || a->kind != E_VAR || b->kind != E_VAR ||
        a->type != v->type || b->type != v->type)
        return false;
    /* a + b: IEEE addition commutes, x + v is v + x */
    return (a->var == v && b->var == x) || (a->var == x && b->var == v);
}

static void tree_find(CpuBlock *b)
{
    const Node *s = b->stmt;
    if (b->kind != CB_LOOP || !b->uniform || b->next || !s || s->kind != S_WHILE ||
        s->orelse.len > 0 || !tree_pure(s->cond) || b->body.len < 2)
        return;
    CpuBlock *w = b->body.items[0], *r = b->body.items[1];
    if (w->kind != CB_WARP || w->fuse != r || w->fuse_store || !r->fused || !tree_add(w, r) ||
        w->stmt->args.len < 3 || !tree_pure(w->stmt->args.items[2]))
        return;
    for (int i = 2; i < b->body.len; i++)
        if (!tree_uniform_stmt(b->body.items[i]))
            return;
    b->tree = w;
}

/* Is there a warp operation in l outside the trees (any: of any kind;
 * otherwise one that reads a source lane, krt_src)?  A tree's shuffle
 * needs neither krt_src nor the lane counter krt_l. */
static bool tree_src_list(const CpuList *l, const CpuBlock *skip, bool any);

static bool tree_src_block(const CpuBlock *b, const CpuBlock *skip, bool any)
{
    if (!b || b == skip)
        return false;
    if (b->kind == CB_WARP &&
        (any || b->ea == API_SHFL_SYNC || b->ea == API_SHFL_UP_SYNC || b->ea == API_SHFL_DOWN_SYNC ||
         b->ea == API_SHFL_XOR_SYNC || b->ea == API_MATCH_ANY_SYNC || b->ea == API_MATCH_ALL_SYNC))
        return true;
    return tree_src_block(b->head, NULL, any) || tree_src_block(b->next, NULL, any) ||
           tree_src_list(&b->body, b->tree, any) || tree_src_list(&b->orelse, NULL, any);
}

static bool tree_src_list(const CpuList *l, const CpuBlock *skip, bool any)
{
    for (int i = 0; i < l->len; i++)
        if (tree_src_block(l->items[i], skip, any))
            return true;
    return false;
}

/* ---- a shuffle and the region after it in one loop (CpuBlock.fuse) ---- */

static Visit fuse_thread_dep(const Node *n, void *ctx)
{
    (void)ctx;
    if (n->kind == E_API && api_id_has(api_id(n->api), AF_THREAD_DEP))
        return VISIT_STOP;
    if (n->kind == S_WARPOP || n->kind == S_BARRIER || n->kind == S_PRINT || n->kind == S_ASSERT)
        return VISIT_STOP;
    return VISIT_CHILDREN;
}

static bool fusable(const CpuBlock *b, const CpuBlock *r)
{
    const Node *s = b->stmt;
    if (b->kind != CB_WARP || !b->full_shfl || !b->arg_direct || b->ea != API_SHFL_DOWN_SYNC ||
        b->head || !s->lhs || s->lhs->kind != E_VAR || b->ctx->debug)
        return false;
    if (!r || r->kind != CB_REGION || r->ctx != b->ctx || r->binds != b->binds || r->inl != b->inl ||
        r->uvars.len > 0 || r->nexits > 0)
        return false;
    const Var *w = s->lhs->var;
    if (!uni_local(b->ctx->fn, w) || var_home(b->ctx, w) != CPU_HOME_FRAME)
        return false;
    bool reads_w = false;
    for (int i = 0; i < r->ncache; i++) {
        if (var_home(r->ctx, r->cache[i]) == CPU_HOME_REMAT)
            return false;
        if (r->cache[i] == w)
            reads_w = true;
    }
    if (!reads_w)
        return false;
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].kind != CI_STMT || node_walk(r->items[i].stmt, fuse_thread_dep, NULL))
            return false;
    return true;
}

static void fuse_list(CpuList *l);

static void fuse_block(CpuBlock *b)
{
    if (!b)
        return;
    fuse_block(b->head);
    fuse_block(b->next);
    fuse_list(&b->body);
    fuse_list(&b->orelse);
}

static void fuse_list(CpuList *l)
{
    for (int i = 0; i < l->len; i++) {
        CpuBlock *b = l->items[i];
        CpuBlock *r = i + 1 < l->len ? l->items[i + 1] : NULL;
        if (fusable(b, r)) {
            const Var *w = b->stmt->lhs->var;
            int *n = var_refs(b->ctx, w);
            b->fuse = r;
            /* the warp's own 2, the region's 1: nobody else reads the field */
            b->fuse_store = !n || *n > 3;
            r->fused = true;
        }
        fuse_block(b);
        tree_find(b);   /* warp (issue 10) */
    }
}

/* ---- two regions across a barrier in one loop (CpuBlock.bar_fuse) ----
 * Region A, syncthreads(), region B: the barrier makes every thread's A
 * come before any thread's B.  Running A then B thread after thread in one
 * loop keeps what each thread reads and writes the same when no element of
 * memory one thread touches in A is touched by another one in B (with a
 * write on either side) in the wrong order.  With a 1-D block and every
 * such access at index tx + a (A) and tx + b (B), a, b block-uniform, the
 * loop in descending thread order is right when a <= b for every such
 * pair, ascending when a >= b (Hillis-Steele's `v = t[tx - off]; barrier;
 * t[tx] += v`: descending; a neighbour difference: ascending).  The
 * offsets are constants plus or minus one uniform value U, the guard then
 * checks U >= 0; parameter arrays may alias each other, the guard checks
 * that those written on one side and read on the other are disjoint. */

typedef struct BarForm {
    int kt;                  /* times threadIdx.x: 0 or 1 */
    int kg;                  /* times blockIdx.x * blockDim.x: 0 or 1 */
    int ku;                  /* times U: -1, 0, 1 */
    int64_t c;
} BarForm;

typedef struct BarAcc {
    const Var *arr;
    bool write, ok;          /* ok: a 1-D index of BarForm f, never negative */
    BarForm f;
} BarAcc;

typedef struct BarScan {
    const CpuKernel *K;
    const CpuFunc *cf;
    BarAcc *acc;
    int nacc, cap;
    const Node *u;           /* U: an E_VAR of a uniform local or parameter */
    bool write_mode;         /* walking an assignment's target */
    bool bad;
} BarScan;

static bool bar_form(BarScan *S, const Node *n, BarForm *f)
{
    memset(f, 0, sizeof *f);
    if (!n || !n->type || !t_int(n->type))
        return false;
    switch (n->kind) {
    case E_CONST:
        if (t_unsigned(n->type) && (int64_t)n->ival < 0)
            return false;
        f->c = (int64_t)n->ival;
        return f->c > -(INT64_C(1) << 31) && f->c < (INT64_C(1) << 31);
    case E_CAST: {
        const Type *from = n->lhs ? n->lhs->type : NULL;
        if (!from || !t_int(from) || ty_size(n->type) < 4)
            return false;
        /* a conversion that keeps the value: widening, or of a value that
         * range.c knows fits */
        bool widens = ty_size(from) < ty_size(n->type) ||
                      (ty_size(from) == ty_size(n->type) && t_signed(from) == t_signed(n->type));
        RangeIv lr = range_of(n->lhs);
        bool fits = lr.known && lr.lo >= (t_signed(n->type) ? INT32_MIN : 0) && lr.hi <= INT32_MAX;
        if (!widens && !fits)
            return false;
        return bar_form(S, n->lhs, f);
    }
    case E_BINOP: {
        BarForm l, r;
        if ((n->op != OP_ADD && n->op != OP_SUB) || !range_of(n).known || !bar_form(S, n->lhs, &l) ||
            !bar_form(S, n->rhs, &r))
            return false;
        int sg = n->op == OP_ADD ? 1 : -1;
        f->kt = l.kt + sg * r.kt;
        f->kg = l.kg + sg * r.kg;
        f->ku = l.ku + sg * r.ku;
        f->c = l.c + sg * r.c;
        return f->kt >= 0 && f->kt <= 1 && f->kg >= 0 && f->kg <= 1 && f->ku >= -1 && f->ku <= 1 &&
               f->c > -(INT64_C(1) << 31) && f->c < (INT64_C(1) << 31);
    }
    case E_API:
        if (api_id(n->api) == API_TID_X) {
            f->kt = 1;
            return true;
        }
        if (api_id(n->api) == API_GRID && n->args.len == 1) {
            int64_t one;
            const Node *a = tree_strip_casts(n->args.items[0]);
            if (!a || a->kind != E_CONST || (one = (int64_t)a->ival) != 1)
                return false;
            f->kt = f->kg = 1;
            return true;
        }
        return false;
    case E_VAR: {
        const Var *v = n->var;
        const CpuFunc *cf = S->cf;
        if (!v)
            return false;
        if (v->kind != VAR_PARAM && uni_local(cf->fn, v) && cf->local_home[v->index] == CPU_HOME_REMAT)
            return bar_form(S, cf->remat[v->index], f);
        bool uni = v->kind == VAR_PARAM ? param_unchanged(cf->fn, S->K->param_copied, v)
                                        : uni_local(cf->fn, v) && S->K->uni && S->K->uni[v->index];
        if (!uni)
            return false;
        if (S->u && S->u->var != v)
            return false;
        S->u = n;
        f->ku = 1;
        return true;
    }
    default:
        return false;
    }
}

static void bar_add(BarScan *S, const Node *n, bool write)
{
    const Node *a = n->lhs;
    const Var *v = a && a->kind == E_VAR ? a->var : NULL;
    if (!v || !n->type || n->type->kind == TY_ARRAY) {
        S->bad = true;
        return;
    }
    if (v->kind == VAR_LOCALARRAY || v->kind == VAR_CONSTARRAY)
        return;   /* the thread's own, or never written */
    if (v->kind != VAR_SHARED && v->kind != VAR_DYNSHARED && v->kind != VAR_PARAM) {
        S->bad = true;   /* a view held in a variable: whose memory? */
        return;
    }
    S->acc = grow(S->acc, S->nacc, &S->cap, sizeof *S->acc);
    BarAcc *x = &S->acc[S->nacc++];
    memset(x, 0, sizeof *x);
    x->arr = v;
    x->write = write;
    const Node *i = n->args.len == 1 ? n->args.items[0] : NULL;
    x->ok = i && (range_nonneg(i) || cpu_nonneg(S->cf, i)) && bar_form(S, i, &x->f);
}

/* The targets of assignment n walked with *write set. */
static void walk_targets(const Node *n, NodeVisitFn *fn, void *ctx, bool *write)
{
    bool saved = *write;
    *write = true;
    if (n->kind == S_AUGASSIGN && n->lhs)
        node_walk(n->lhs, fn, ctx);
    for (int i = 0; n->kind == S_ASSIGN && i < n->args.len; i++)
        node_walk(n->args.items[i], fn, ctx);
    *write = saved;
}

static Visit bar_visit(const Node *n, void *ctx)
{
    BarScan *S = ctx;
    switch (n->kind) {
    case E_INDEX:
        bar_add(S, n, S->write_mode);
        return VISIT_CHILDREN;
    case S_ASSIGN: case S_AUGASSIGN:
        /* targets: writes (an augmented one also reads, seen below) */
        walk_targets(n, bar_visit, S, &S->write_mode);
        return VISIT_CHILDREN;
    case E_API:
        if (api_id_has(api_id(n->api), AF_SIDE_EFFECTS | AF_WARP | AF_COLLECTIVE))
            S->bad = true;
        /* an operation on an array (a cache-hinted load: cuda.ldcg(a, i))
         * reads memory this analysis does not see */
        for (int i = 0; i < n->args.len; i++)
            if (n->args.items[i]->type && n->args.items[i]->type->kind == TY_ARRAY)
                S->bad = true;
        return VISIT_CHILDREN;
    case E_CALLFN: case E_FFICALL: case E_VIEW: case E_ARRAYOP: case S_PRINT: case S_WARPOP:
    case S_BARRIER: case S_RAISE: case S_ASSERT: case S_RETURN:
        S->bad = true;
        return VISIT_STOP;
    default:
        return VISIT_CHILDREN;
    }
}

static bool bar_region_ok(const CpuBlock *r, const CpuKernel *K)
{
    if (!r || r->kind != CB_REGION || r->ctx != K->vars || r->binds || r->inl || r->nexits ||
        r->uvars.len || r->fused || r->ctx->debug)
        return false;
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].kind != CI_STMT)
            return false;
    return true;
}

static void bar_scan(BarScan *S, const CpuBlock *r)
{
    for (int i = 0; i < r->nitems && !S->bad; i++)
        node_walk(r->items[i].stmt, bar_visit, S);
}

static Visit bar_mentions(const Node *n, void *ctx)
{
    return n->kind == E_VAR && n->var == ctx ? VISIT_STOP : VISIT_CHILDREN;
}

/* Does region a set frame variable v before anything reads it? */
static bool bar_kills(const CpuBlock *a, const Var *v)
{
    for (int i = 0; i < a->nitems; i++) {
        const Node *s = a->items[i].stmt;
        if (s->kind == S_ASSIGN && s->args.len == 1 && s->args.items[0]->kind == E_VAR &&
            s->args.items[0]->var == v)
            return !node_walk(s->rhs, bar_mentions, (void *)v);
        if (node_walk(s, bar_mentions, (void *)v))
            return false;
    }
    return false;
}

/* barrier: does every value the regions give v fit in 32 bits (a chunk
 * of the fused loop may then hold it in an int32_t, bar_narrow)? */
typedef struct Narrow {
    const Var *v;
    bool bad;
} Narrow;

static bool fits_i32(const Node *n)
{
    RangeIv r = range_of(n);
    if (r.known)
        return r.lo >= INT32_MIN && r.hi <= INT32_MAX;
    const Type *from = n->kind == E_CAST && n->lhs ? n->lhs->type : NULL;
    return from && t_int(from) && ty_size(from) <= (t_signed(from) ? 4 : 2);
}

static Visit narrow_visit(const Node *n, void *ctx)
{
    Narrow *N = ctx;
    if (n->kind == S_ASSIGN) {
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_VAR && t->var == N->v)
                N->bad |= n->args.len != 1 || !n->rhs || !fits_i32(n->rhs);
            else if (node_walk(t, bar_mentions, (void *)N->v))
                N->bad = true;
        }
    } else if ((n->kind == S_AUGASSIGN && n->lhs && node_walk(n->lhs, bar_mentions, (void *)N->v)) ||
               (n->kind != E_VAR && n->var == N->v)) {
        N->bad = true;
    }
    return N->bad ? VISIT_STOP : VISIT_CHILDREN;
}

static bool narrow_ok(const Var *v, const CpuBlock *a, const CpuBlock *b)
{
    if (!v->type || !t_int(v->type) || !t_signed(v->type) || ty_size(v->type) != 8)
        return false;
    Narrow N = {v, false};
    for (int i = 0; i < a->nitems && !N.bad; i++)
        node_walk(a->items[i].stmt, narrow_visit, &N);
    for (int i = 0; i < b->nitems && !N.bad; i++)
        node_walk(b->items[i].stmt, narrow_visit, &N);
    return !N.bad;
}

static void bar_fuse(const CpuKernel *K, const CpuBlock *a, CpuBlock *bar, const CpuBlock *b)
{
    BarScan SA = {0}, SB = {0};
    SA.K = SB.K = K;
    SA.cf = SB.cf = K->vars;
    bar_scan(&SA, a);
    SB.u = SA.u;
    bar_scan(&SB, b);
    if (SA.bad || SB.bad || (SA.u && SB.u && SA.u->var != SB.u->var))
        return;
    bool desc = true, asc = true, use_u = false;
    PtrVec disj = {0};
    for (int i = 0; i < SA.nacc; i++)
        for (int j = 0; j < SB.nacc; j++) {
            const BarAcc *x = &SA.acc[i], *y = &SB.acc[j];
            if (!x->write && !y->write)
                continue;
            if (x->arr != y->arr) {
                if (x->arr->kind == VAR_DYNSHARED && y->arr->kind == VAR_DYNSHARED)
                    return;   /* one memory, seen as two arrays */
                if (x->arr->kind == VAR_PARAM && y->arr->kind == VAR_PARAM) {
                    bool seen = false;
                    for (int k = 0; k < disj.len && !seen; k += 2)
                        seen = (disj.items[k] == x->arr && disj.items[k + 1] == y->arr) ||
                               (disj.items[k] == y->arr && disj.items[k + 1] == x->arr);
                    if (!seen) {
                        vec_push(&disj, (void *)x->arr);
                        vec_push(&disj, (void *)y->arr);
                    }
                }
                continue;   /* distinct shared arrays, or shared and global */
            }
            if (!x->ok || !y->ok || x->f.kt != 1 || y->f.kt != 1 || x->f.kg != y->f.kg)
                return;
            int du = x->f.ku - y->f.ku;
            int64_t dc = x->f.c - y->f.c;
            use_u |= du != 0;
            desc &= du <= 0 && dc <= 0;
            asc &= du >= 0 && dc >= 0;
        }
    if (!desc && !asc)
        return;
    bar->bar_fuse = true;
    bar->bar_desc = !asc;
    /* barrier: only shared arrays, which the C compiler sees apart */
    bar->bar_chunk = true;
    for (int i = 0; i < SA.nacc + SB.nacc; i++)
        bar->bar_chunk &= (i < SA.nacc ? SA.acc[i] : SB.acc[i - SA.nacc]).arr->kind == VAR_SHARED;
    bar->bar_nonneg = use_u ? (SA.u ? SA.u : SB.u) : NULL;
    bar->bar_disj = disj;
    /* frame variables only these two use, set by a before any read */
    for (int i = 0; i < a->ncache; i++) {
        const Var *v = a->cache[i];
        if (var_home(a->ctx, v) != CPU_HOME_FRAME)
            continue;
        int in_b = 0;
        for (int k = 0; k < b->ncache; k++)
            in_b |= b->cache[k] == v;
        int *n = var_refs(a->ctx, v);
        if (n && *n == 1 + in_b && bar_kills(a, v)) {
            vec_push(&bar->bar_local, (void *)v);
            if (narrow_ok(v, a, b))
                vec_push(&bar->bar_narrow, (void *)v);
        }
    }
}

static void bar_fuse_list(const CpuKernel *K, CpuList *l)
{
    for (int i = 0; i < l->len; i++) {
        CpuBlock *b = l->items[i];
        if (i + 2 < l->len && b->kind == CB_REGION && l->items[i + 1]->kind == CB_BARRIER &&
            l->items[i + 1]->sync == CPU_SYNC_THREADS && bar_region_ok(b, K) &&
            bar_region_ok(l->items[i + 2], K)) {
            bar_fuse(K, b, l->items[i + 1], l->items[i + 2]);
            if (l->items[i + 1]->bar_fuse) {
                i += 2;   /* the second region is taken */
                continue;
            }
        }
        if (b->kind != CB_REGION) {
            bar_fuse_list(K, &b->body);
            bar_fuse_list(K, &b->orelse);
        }
    }
}

/* ---- a region under `if threadIdx.x < U` (CpuBlock.xclamp) ----
 * A tree reduction's `if tx < step: s[tx] += s[tx + step]` visits only
 * the threads below the uniform bound instead of testing every thread of
 * the block at every level; `if i < n` with i = cuda.grid(1) likewise. */

static void xclamp_region(const Lower *L, CpuBlock *r)
{
    if (r->nitems != 1 || r->items[0].kind != CI_STMT || r->nexits || r->uvars.len || r->binds ||
        r->ctx != L->K->vars || r->ctx->debug || r->fused)
        return;
    const Node *s = r->items[0].stmt;
    if (s->kind != S_IF || s->orelse.len || !s->cond || s->cond->kind != E_COMPARE ||
        s->cond->args.len != 2 || s->cond->ops[0] != OP_LT)
        return;
    const Node *x = s->cond->args.items[0], *u = s->cond->args.items[1];
    /* tx (+ the block's base, + a constant) against a signed uniform value */
    BarScan S = {0};
    S.K = L->K;
    S.cf = r->ctx;
    BarForm f;
    if (!u->type || !t_signed(u->type) || x->type != u->type || !is_uniform(L, u) ||
        !bar_form(&S, x, &f) || f.kt != 1 || f.ku != 0)
        return;
    r->xclamp = u;
    r->xclamp_base = f.kg == 1;
    r->xclamp_c = f.c;
}

static void xclamp_list(const Lower *L, CpuList *l)
{
    for (int i = 0; i < l->len; i++) {
        CpuBlock *b = l->items[i];
        if (b->kind == CB_REGION) {
            xclamp_region(L, b);
            continue;
        }
        xclamp_list(L, &b->body);
        xclamp_list(L, &b->orelse);
    }
}

/* ---- conditions on the thread index in a fused barrier loop ----
 * (CpuBlock.bar_split, barrier) Scan's `if tx >= offset`, ndiff's `if tx >
 * 0` and `if i < n`: with offset and n block-uniform, each holds for the
 * threads on one side of a point, so the loop runs the threads in ranges,
 * the condition a constant in each (no test per thread; a loop the C
 * compiler can vectorise). */

typedef struct SplitScan {
    const Lower *L;
    CpuBlock *out;
} SplitScan;

/* a uniform value that is safe to compute once before the loop: a
 * constant, or a variable (an array's shape) in a C local of the block */
static bool split_simple(const CpuFunc *cf, const Node *u)
{
    u = tree_strip_casts(u);
    if (u && u->kind == E_SHAPE)
        u = u->lhs;
    if (!u || (u->kind != E_CONST && u->kind != E_VAR))
        return false;
    CpuHome h = u->kind == E_VAR ? var_home(cf, u->var) : CPU_HOME_C;
    return h == CPU_HOME_C || h == CPU_HOME_BLOCK;
}

static bool split_same(const Node *a, const Node *b)
{
    if (a->kind != b->kind || a->type != b->type)
        return false;
    switch (a->kind) {
    case E_CONST: return a->ival == b->ival;
    case E_VAR: return a->var == b->var;
    case E_CAST: return split_same(a->lhs, b->lhs);
    case E_SHAPE: return a->ival == b->ival && split_same(a->lhs, b->lhs);
    default: return false;
    }
}

static void split_cond(SplitScan *S, const Node *n)
{
    if (!n || n->kind != E_COMPARE || n->args.len != 2)
        return;
    Op op = n->ops[0];
    const Node *x = n->args.items[0], *u = n->args.items[1];
    if (op != OP_LT && op != OP_LE && op != OP_GT && op != OP_GE)
        return;
    BarScan B = {0};
    B.K = S->L->K;
    B.cf = S->L->ctx;
    BarForm f;
    if (!bar_form(&B, x, &f) || f.kt != 1 || f.ku != 0) {
        const Node *t = x;   /* u op X: X op' u */
        x = u;
        u = t;
        op = op == OP_LT ? OP_GT : op == OP_LE ? OP_GE : op == OP_GT ? OP_LT : OP_LE;
        memset(&B, 0, sizeof B);
        B.K = S->L->K;
        B.cf = S->L->ctx;
        if (!bar_form(&B, x, &f) || f.kt != 1 || f.ku != 0)
            return;
    }
    if (!u->type || !t_signed(u->type) || x->type != u->type || ty_size(u->type) > 8 ||
        !split_simple(S->L->ctx, u) || !is_uniform(S->L, u))
        return;
    /* X <= u is X - 1 < u; X > u and X >= u their complements */
    CpuSplit want = {u, f.kg == 1, op == OP_LT || op == OP_LE, f.c - (op == OP_LE || op == OP_GT), {0}};
    CpuSplit *sp = NULL;
    for (int k = 0; k < S->out->bar_split.len && !sp; k++) {
        CpuSplit *o = S->out->bar_split.items[k];
        if (o->base == want.base && o->below == want.below && o->c == want.c && split_same(o->u, u))
            sp = o;
    }
    if (!sp) {
        if (S->out->bar_split.len == SPLIT_MAX)
            return;
        sp = arena_alloc(sizeof *sp);
        *sp = want;
        vec_push(&S->out->bar_split, sp);
    }
    vec_push(&sp->conds, (void *)n);
}

static Visit split_visit(const Node *n, void *ctx)
{
    if (n->kind == S_IF)
        split_cond(ctx, n->cond);
    return VISIT_CHILDREN;
}

/* The copies cost code size (one per range): a region that calls a
 * device function or a foreign one is not split.  Its threads don't run
 * in SIMD lanes anyway, one test per thread is little beside a call, and
 * each copy is more C to print and compile (bench/gen-kern.sh's kernels:
 * 55% more C). */
static Visit call_visit(const Node *n, void *ctx)
{
    if (n->kind == E_CALLFN || n->kind == E_FFICALL) {
        *(bool *)ctx = true;
        return VISIT_STOP;
    }
    return VISIT_CHILDREN;
}

static bool split_calls(const CpuBlock *b)
{
    bool call = false;
    for (int j = 0; j < b->nitems && !call; j++)
        if (b->items[j].kind == CI_STMT)
            node_walk(b->items[j].stmt, call_visit, &call);
    return call;
}

/* issue 10 (cpu): CpuBlock.lanes and lanes_unit of region b, alone in
 * its loop.  Threads of one region run in any order, together or
 * interleaved: a chunk of them in lock step (each operation for all, the
 * vector instructions gcc makes of the chunk's loop) is one such.  Not a
 * region that loads or stores a frame variable. */
static void lanes_region(const Lower *L, CpuBlock *b)
{
    if (!bar_region_ok(b, L->K))
        return;
    /* a frame variable loaded or stored: an access a frame apart for each
     * thread, which gcc -O2 does not vectorise (the chunks would only
     * cost) */
    for (int i = 0; i < b->ncache; i++) {
        const Var *v = b->cache[i];
        bool remat = v->kind != VAR_PARAM && b->ctx->remat && b->ctx->remat[v->index];
        if (b->cache_store[i] || (b->cache_load[i] && !remat))
            return;
    }
    BarScan S;
    memset(&S, 0, sizeof S);
    S.K = L->K;
    S.cf = L->K->vars;
    bar_scan(&S, b);
    bool affine = false;
    for (int i = 0; i < S.nacc && !S.bad; i++) {
        const BarAcc *x = &S.acc[i];
        affine |= x->ok && x->f.kt == 1;
        if (x->arr->kind == VAR_PARAM && !x->arr->type->contiguous &&
            !vec_contains(&b->lanes_unit, x->arr))
            vec_push(&b->lanes_unit, (void *)x->arr);
    }
    b->lanes = !S.bad && affine;
    if (!b->lanes)
        b->lanes_unit.len = 0;
}

/* ---- the next block's elements (CpuKernel.pf) ---- */

typedef struct PfScan {
    BarScan S;               /* bar_form's context; S.write_mode: walking an
                                assignment's targets */
    CpuKernel *K;            /* where the arrays go */
} PfScan;

static void pf_add(PfScan *P, const Node *n)
{
    CpuKernel *K = P->K;
    const Var *v = n->lhs && n->lhs->kind == E_VAR ? n->lhs->var : NULL;
    BarForm f;
    if (!v || v->kind != VAR_PARAM || v->type->kind != TY_ARRAY || v->type->ndim != 1 || n->args.len != 1 ||
        v->type->elem->kind == TY_RNGSTATE || !n->type || n->type->kind == TY_ARRAY || K->param_copied[v->index])
        return;
    P->S.u = NULL;
    if (!bar_form(&P->S, n->args.items[0], &f) || f.kt != 1 || f.kg != 1 || f.ku != 0)
        return;
    int i = 0;
    while (i < K->npf && K->pf[i].arr != v)
        i++;
    if (i == K->npf) {
        if (K->npf == PREFETCH_MAX)
            return;
        K->pf[K->npf++] = (CpuPrefetch){v, f.c, f.c, P->S.write_mode};
    }
    CpuPrefetch *p = &K->pf[i];
    p->lo = f.c < p->lo ? f.c : p->lo;
    p->hi = f.c > p->hi ? f.c : p->hi;
    p->write |= P->S.write_mode;
}

static Visit pf_visit(const Node *n, void *ctx)
{
    PfScan *P = ctx;
    if (n->kind == E_INDEX)
        pf_add(P, n);
    if (n->kind == S_ASSIGN || n->kind == S_AUGASSIGN)
        walk_targets(n, pf_visit, P, &P->S.write_mode);   /* then everything as reads */
    return VISIT_CHILDREN;
}

/* The parameter arrays kernel K's own statements index at cuda.grid(1)
 * plus a constant (not an inlined callee's: those are other functions). */
static void find_prefetch(CpuKernel *K)
{
    PfScan P;
    memset(&P, 0, sizeof P);
    P.S.K = K;
    P.S.cf = K->vars;
    P.K = K;
    for (int i = 0; i < K->fn->def->body.len; i++)
        node_walk(K->fn->def->body.items[i], pf_visit, &P);
    for (int i = 0; i < K->npf; i++)   /* a hint: offsets within 4096 elements */
        if (K->pf[i].hi - K->pf[i].lo > 4096)
            K->pf[i--] = K->pf[--K->npf];
}

static void split_list(const Lower *L, CpuList *l)
{
    for (int i = 0; i < l->len; i++) {
        CpuBlock *b = l->items[i];
        if (b->kind == CB_BARRIER && b->bar_fuse && i > 0 && i + 1 < l->len) {
            if (split_calls(l->items[i - 1]) || split_calls(l->items[i + 1]))
                continue;
            SplitScan S = {L, b};
            for (int k = -1; k <= 1; k += 2)
                for (int j = 0; j < l->items[i + k]->nitems; j++)
                    node_walk(l->items[i + k]->items[j].stmt, split_visit, &S);
            continue;
        }
        bool by_fused = (i > 0 && l->items[i - 1]->bar_fuse) || (i + 1 < l->len && l->items[i + 1]->bar_fuse);
        if (b->kind == CB_REGION && !by_fused && b->ctx == L->K->vars && !b->ctx->debug && !b->uvars.len &&
            !b->nexits && !b->fused && !b->inl) {
            /* a region alone: the same in its 1-D loop (print_region) */
            if (split_calls(b))
                continue;
            lanes_region(L, b);
            SplitScan S = {L, b};
            if (b->xclamp) {   /* its `if` is the loop's range already */
                const Node *x = b->items[0].stmt;
                for (int j = 0; j < x->body.len; j++)
                    node_walk(x->body.items[j], split_visit, &S);
                continue;
            }
            for (int j = 0; j < b->nitems; j++)
                if (b->items[j].kind == CI_STMT)
                    node_walk(b->items[j].stmt, split_visit, &S);
            continue;
        }
        if (b->kind != CB_REGION) {
            split_list(L, &b->body);
            split_list(L, &b->orelse);
        }
    }
}

/* ---- blocks ---- */

static CpuBlock *block_new(Lower *L, CpuBlockKind kind, const Node *stmt)
{
    CpuBlock *b = arena_alloc(sizeof *b);
    b->kind = kind;
    b->stmt = stmt;
    b->binds = L->binds;
    b->ctx = L->ctx;
    b->inl = L->inl;
    return b;
}

/* A region; guard: it starts by skipping threads that are not running. */
static CpuBlock *region_new(Lower *L, CpuList *into, const Node *stmt, bool guard)
{
    CpuBlock *r = block_new(L, CB_REGION, stmt);
    r->label = ++L->nlabels;
    if (guard && !L->all_active)
        item_add(r, CI_SKIP, stmt);
    if (into)
        list_push(into, r);
    return r;
}

static void fail(Lower *L, CpuList *into, Loc loc, const char *msg)
{
    CpuBlock *b = block_new(L, CB_FAIL, NULL);
    b->fail_loc = loc;
    b->fail_msg = msg;
    list_push(into, b);
}

static const char *bound(const Lower *L, const Node *n)
{
    for (const CpuBind *b = L->binds; b; b = b->next)
        if (b->call == n)
            return b->field;
    return NULL;
}

/* Does this statement (or an expression in it) reach a barrier or a
 * warp-collective operation?  An inlined call's result does not. */
static bool reaches_barrier(const Lower *L, const Node *n)
{
    if (!n || bound(L, n))
        return false;
    if (n->kind == S_BARRIER || n->kind == S_WARPOP)
        return true;
    if (n->kind == E_API && n->api) {
        ApiId ea = api_id(n->api);
        if (ea == API_SYNCTHREADS || ea == API_SYNCTHREADS_COUNT || ea == API_SYNCTHREADS_AND ||
            ea == API_SYNCTHREADS_OR || ea == API_SYNCWARP || (api_id_has(ea, AF_WARP) && ea != API_LANEMASK_LT))
            return true;
    }
    if (n->kind == E_CALLFN && n->callee && (n->callee->has_barrier || n->callee->has_warpop))
        return true;
    if (reaches_barrier(L, n->lhs) || reaches_barrier(L, n->rhs) || reaches_barrier(L, n->cond))
        return true;
    for (int i = 0; i < n->args.len; i++)
        if (reaches_barrier(L, n->args.items[i]))
            return true;
    for (int i = 0; i < n->body.len; i++)
        if (reaches_barrier(L, n->body.items[i]))
            return true;
    for (int i = 0; i < n->orelse.len; i++)
        if (reaches_barrier(L, n->orelse.items[i]))
            return true;
    return false;
}

static bool stmt_is_empty(const Node *s)
{
    return s->kind == S_NOP || s->kind == S_PASS || s->kind == S_ARRAYDECL;
}

/* ---- what the printed statements need ----
 * Calls of device functions with shared arrays: the kernel's shared
 * struct gets a krt_dsh_NAME member for each function they reach (see
 * dsh_funcs), in the order the printer meets them. */
static void note_calls(Lower *L, const Node *n)
{
    if (!n || bound(L, n))
        return;
    if (n->kind == E_CALLFN && n->callee) {
        if (func_has_split(n->callee))
            return;   /* not printed: the kernel is CUDA-only */
        PtrVec d = dsh_funcs(n->callee);
        for (int i = 0; i < d.len; i++) {
            Func *h = d.items[i];
            if (vec_contains(&L->dsh_members, h))
                continue;
            vec_push(&L->dsh_members, h);
            slot_add(&L->K->shared_extra,
                     (CpuSlot){arena_printf("krt_dsh_%s", fn_cname(h)), NULL, NULL, h});
        }
    }
    note_calls(L, n->lhs);
    note_calls(L, n->rhs);
    note_calls(L, n->cond);
    for (int i = 0; i < n->args.len; i++)
        note_calls(L, n->args.items[i]);
    for (int i = 0; i < n->body.len; i++)
        note_calls(L, n->body.items[i]);
    for (int i = 0; i < n->orelse.len; i++)
        note_calls(L, n->orelse.items[i]);
}

/* The statements of s (inside cloops C loops of its own) by which a thread
 * leaves region r. */
static void note_exits(Lower *L, CpuBlock *r, const Node *s, int cloops)
{
    int64_t step;
    switch (s->kind) {
    case S_RETURN:
        if (L->ctx->inlined)
            exit_add(L, r, s, CPU_BREAK, L->inl->depth);
        else
            exit_add(L, r, s, CPU_RETURNED, 0);
        return;
    case S_BREAK: case S_CONTINUE:
        if (cloops > 0)
            return;
        if (!L->K->split || L->bloop == 0)
            die("'%s' outside a loop", s->kind == S_BREAK ? "break" : "continue");
        exit_add(L, r, s, s->kind == S_BREAK ? CPU_BREAK : CPU_CONTINUE, L->bloop);
        return;
    case S_IF:
        for (int i = 0; i < s->body.len; i++)
            note_exits(L, r, s->body.items[i], cloops);
        for (int i = 0; i < s->orelse.len; i++)
            note_exits(L, r, s->orelse.items[i], cloops);
        return;
    case S_RAISE: case S_ASSERT:   /* dev: without debug the thread ends */
        if (!s->ival)
            exit_add(L, r, s, CPU_RETURNED, 0);
        return;
    case S_FORRANGE:
        if (!range_step_known(s, &step) && !L->ctx->debug)
            exit_add(L, r, s, CPU_RETURNED, 0);   /* range() arg 3 is zero */
        /* fallthrough */
    case S_WHILE:
        for (int i = 0; i < s->body.len; i++)
            note_exits(L, r, s->body.items[i], cloops + 1);
        return;
    default:
        return;
    }
}

/* A per-thread statement of region r. */
static void region_stmt(Lower *L, CpuBlock *r, const Node *s)
{
    item_add(r, CI_STMT, s);
    note_exits(L, r, s, 0);
    note_calls(L, s);
}

static void lower_block_stmt(Lower *L, CpuList *into, const Node *s);

/* The variables statement s mentions (reads, writes, binds). */
static Visit stmt_vars_visit(const Node *n, void *ctx)
{
    PtrVec *v = ctx;
    const Var *vs[4] = {NULL, NULL, NULL, NULL};
    if (n->kind == E_VAR || n->kind == E_LET)
        vs[0] = n->var;
    if (n->kind == S_FORRANGE) {
        vs[0] = n->var;
        vs[1] = n->it;
        vs[2] = n->stop;
        vs[3] = n->step;
    }
    for (int i = 0; i < 4; i++)
        if (vs[i] && !vec_contains(v, vs[i]))
            vec_push(v, (void *)vs[i]);
    return VISIT_CHILDREN;
}

static PtrVec stmt_vars(const Node *s)
{
    PtrVec v = {0};
    node_walk(s, stmt_vars_visit, &v);
    return v;
}

/* A uniform assignment, run once by the block. */
static void uniform_stmt(Lower *L, CpuList *into, const Node *s)
{
    CpuBlock *b = block_new(L, CB_UNIFORM, s);
    list_push(into, b);
    note_calls(L, s);
}

/* A statement list at block level: runs of barrier-free statements become
 * regions, statements holding a barrier block-level code. */
static void lower_block_list(Lower *L, CpuList *into, const NodeList *l)
{
    int i = 0;
    while (i < l->len) {
        if (reaches_barrier(L, l->items[i])) {
            lower_block_stmt(L, into, l->items[i]);
            i++;
            continue;
        }
        int j = i;
        bool any = false;
        while (j < l->len && !reaches_barrier(L, l->items[j]))
            any |= !stmt_is_empty(l->items[j++]);
        if (!any) {
            i = j;
            continue;
        }
        /* uniform assignments leading or ending the run: once, by the block */
        int a = i, e = j;
        while (a < e && (stmt_is_empty(l->items[a]) || is_uniform_stmt(L, l->items[a])))
            a++;
        while (e > a && (stmt_is_empty(l->items[e - 1]) || is_uniform_stmt(L, l->items[e - 1])))
            e--;
        for (int k = i; k < a; k++)
            if (!stmt_is_empty(l->items[k]))
                uniform_stmt(L, into, l->items[k]);
        /* issue 10 (cpu): and those inside it that nothing before them in
         * the run depends on or changes (n = a.size after i = grid(1)) */
        bool *hoist = arena_alloc(sizeof(bool) * (size_t)(e - a + 1));
        for (int k = a + 1; k < e; k++) {
            if (!is_uniform_stmt(L, l->items[k]))
                continue;
            PtrVec mk = stmt_vars(l->items[k]);
            bool ok = true;
            for (int j = a; j < k && ok; j++) {
                if (hoist[j - a])
                    continue;
                PtrVec mj = stmt_vars(l->items[j]);
                ok = !has_exit(l->items[j]);
                for (int q = 0; q < mj.len && ok; q++)
                    ok = !vec_contains(&mk, mj.items[q]);
            }
            if (ok) {
                hoist[k - a] = true;
                uniform_stmt(L, into, l->items[k]);
            }
        }
        if (a < e) {
            CpuBlock *r = region_new(L, into, l->items[a], true);
            for (int k = a; k < e; k++)
                if (!hoist[k - a])
                    region_stmt(L, r, l->items[k]);
            if (r->nexits)
                L->all_active = false;
        }
        for (int k = e; k < j; k++)
            if (!stmt_is_empty(l->items[k]))
                uniform_stmt(L, into, l->items[k]);
        i = j;
    }
}

/* A region that lets threads in state (state, depth) run again. */
static void reset_region(Lower *L, CpuList *into, const Node *s, CpuState state, int depth)
{
    CpuBlock *r = region_new(L, into, s, false);
    CpuItem *it = item_add(r, CI_RESET, s);
    it->state = state;
    it->depth = depth;
}

/* Is block-level loop s uniform: the same trip count for every thread,
 * and no thread leaves its body early? */
static bool loop_uniform(const Lower *L, const Node *s)
{
    if (list_has_exit(&s->body))
        return false;
    if (s->kind == S_WHILE)
        return !L->K->has_exit && is_uniform(L, s->cond);
    int64_t step;
    if (!range_step_known(s, &step))
        return false;
    for (int i = 0; i < s->args.len; i++)
        if (!is_uniform(L, s->args.items[i]))
            return false;
    const Var *vs[4] = {s->var, s->it, s->stop, s->step};
    for (int i = 0; i < 4; i++)
        if (vs[i] && (!L->K->uni || !uni_local(L->K->fn, vs[i]) || !L->K->uni[vs[i]->index]))
            return false;
    return true;
}

/* Block-level loop s (while or range): runs while any thread stays; a
 * uniform one runs as a plain C loop of the block. */
static void lower_block_loop(Lower *L, CpuList *into, const Node *s)
{
    int d = ++L->bloop;
    bool range = s->kind == S_FORRANGE;
    bool saved = L->all_active;
    int nret = L->nret;
    CpuBlock *b = block_new(L, CB_LOOP, s);
    b->line = s->loc;
    b->depth = d;
    list_push(into, b);
    if (loop_uniform(L, s)) {
        b->uniform = true;
        if (!range)
            note_calls(L, s->cond);
        lower_block_list(L, &b->body, &s->body);
        L->all_active = saved && L->nret == nret;
        L->bloop--;
        return;
    }
    L->K->uses_go = true;
    b->head = region_new(L, NULL, s, false);
    if (!range) {   /* while: a thread that continued is running again */
        CpuItem *it = item_add(b->head, CI_RESET, s);
        it->state = CPU_CONTINUE;
        it->depth = d;
    }
    item_add(b->head, CI_SKIP, s);
    item_add(b->head, CI_LOOP_TEST, s)->depth = d;
    if (!range)
        note_calls(L, s->cond);
    L->all_active = false;
    lower_block_list(L, &b->body, &s->body);
    if (range) {
        b->next = region_new(L, NULL, s, false);
        CpuItem *it = item_add(b->next, CI_RESET, s);
        it->state = CPU_CONTINUE;
        it->depth = d;
        item_add(b->next, CI_SKIP, s);
        item_add(b->next, CI_RANGE_NEXT, s);
    }
    reset_region(L, into, s, CPU_BREAK, d);
    L->all_active = saved && L->nret == nret;
    L->bloop--;
}

/* A block-level flag (not per thread); a cooperative kernel returns at
 * grid syncs, so its flags live in the block's shared struct, which
 * survives until it resumes. */
static const char *new_bvar(Lower *L)
{
    if (L->K->coop)
        return arena_printf("krt_s->krt_br[%d]", L->K->nbvars++);
    return arena_printf("krt_br%d", L->K->nbvars++);
}

/* Predicated if: threads whose condition is false wait (masked) while the
 * others run the body, then the two sets swap for the else branch; a
 * branch no thread takes is skipped. */
static void lower_block_if(Lower *L, CpuList *into, const Node *s)
{
    bool has_else = s->orelse.len > 0;
    bool saved = L->all_active;
    int nret = L->nret;
    if (is_uniform(L, s->cond)) {
        /* the same branch for every thread: plain C at block level */
        CpuBlock *b = block_new(L, CB_IF, s);
        b->line = s->loc;
        b->uniform = true;
        list_push(into, b);
        note_calls(L, s->cond);
        lower_block_list(L, &b->body, &s->body);
        bool after_then = L->all_active;
        L->all_active = saved;
        lower_block_list(L, &b->orelse, &s->orelse);
        L->all_active = after_then && L->all_active && L->nret == nret;
        return;
    }
    int k = ++L->bif;
    CpuBlock *b = block_new(L, CB_IF, s);
    b->line = s->loc;
    b->depth = k;
    b->go = new_bvar(L);
    b->other = has_else ? new_bvar(L) : NULL;
    list_push(into, b);
    b->head = region_new(L, NULL, s, true);
    CpuItem *it = item_add(b->head, CI_IF_TEST, s);
    it->depth = k;
    it->go = b->go;
    it->other = b->other;
    note_calls(L, s->cond);
    L->all_active = false;
    lower_block_list(L, &b->body, &s->body);
    if (has_else) {
        CpuBlock *sw = region_new(L, &b->orelse, s, false);
        item_add(sw, CI_ELSE_SWAP, s)->depth = k;
        lower_block_list(L, &b->orelse, &s->orelse);
    }
    reset_region(L, into, s, CPU_MASKED, k);
    L->all_active = saved && L->nret == nret;
    L->bif--;
}

/* syncthreads_count/and/or(pred): every running thread adds its predicate
 * in one region, the block's result is handed out in the next. */
static void lower_block_reduce(Lower *L, CpuList *into, const Node *s, ApiId ea)
{
    L->K->uses_red = true;
    CpuBlock *b = block_new(L, CB_REDUCE, s);
    b->line = s->loc;
    b->ea = ea;
    list_push(into, b);
    b->head = region_new(L, NULL, s, true);
    item_add(b->head, CI_RED_ADD, s);
    note_calls(L, s->lhs);
    if (s->rhs) {
        b->next = region_new(L, NULL, s, true);
        item_add(b->next, CI_RED_RESULT, s);
        note_calls(L, s->rhs);
    }
}

/* A warp-collective operation: the running threads store their operands
 * in frame slots (one region), then each warp computes the results over
 * the lanes that reached it (emit_cpu.c). */
static void lower_warpop(Lower *L, CpuList *into, const Node *s)
{
    ApiId ea = api_id(s->api);
    if (ea == API_SYNCWARP) {
        CpuBlock *b = block_new(L, CB_BARRIER, s);
        b->line = s->loc;
        b->sync = CPU_SYNC_WARP_LANES;
        list_push(into, b);
        return;
    }
    if (ea == API_NONE || !api_id_has(ea, AF_WARP))
        die("%s is not a warp operation", s->api ? s->api->path : "?");
    int k = L->nwarp++;
    const Node *mask = s->args.len > 0 ? s->args.items[0] : NULL;
    const Node *val = s->args.len > 1 ? s->args.items[1] : NULL;
    const Node *arg = s->args.len > 2 ? s->args.items[2] : NULL;
    bool shfl = ea == API_SHFL_SYNC || ea == API_SHFL_UP_SYNC || ea == API_SHFL_DOWN_SYNC ||
                ea == API_SHFL_XOR_SYNC;
    /* operands the lanes need not store (see CpuBlock.mask_direct) */
    bool mask_direct = !mask || is_uniform(L, mask);
    bool arg_direct = arg && is_uniform(L, arg);
    const Var *val_direct = NULL;
    if (shfl && val && val->kind == E_VAR && val->var && val->var->kind != VAR_PARAM &&
        L->ctx == L->K->vars && !L->binds && uni_local(L->K->fn, val->var) &&
        L->K->vars->local_home[val->var->index] == CPU_HOME_FRAME &&
        !(s->lhs && s->lhs->kind == E_VAR && s->lhs->var == val->var))
        val_direct = val->var;
    CpuSlots *fx = &L->K->frame_extra;
    if (!mask_direct)
        slot_add(fx, (CpuSlot){arena_printf("krt_warp%d_mask", k), ty_uint32, NULL, NULL});
    if (val && !val_direct)
        slot_add(fx, (CpuSlot){arena_printf("krt_warp%d_val", k), val->type, NULL, NULL});
    if (arg && !arg_direct)
        slot_add(fx, (CpuSlot){arena_printf("krt_warp%d_arg", k), ty_scalar[TY_INT64], NULL, NULL});
    L->K->uses_warp = true;
    if (ea == API_ALL_SYNC || ea == API_ANY_SYNC || ea == API_EQ_SYNC || ea == API_BALLOT_SYNC)
        L->K->uses_bal = true;
    if (ea == API_SHFL_SYNC || ea == API_SHFL_UP_SYNC || ea == API_SHFL_DOWN_SYNC || ea == API_SHFL_XOR_SYNC)
        L->K->uses_src = true;
    if (ea == API_MATCH_ANY_SYNC || ea == API_MATCH_ALL_SYNC)
        L->K->uses_bal = L->K->uses_src = true;

    CpuBlock *b = block_new(L, CB_WARP, s);
    b->line = s->loc;
    b->ea = ea;
    b->slot = k;
    b->uniform = L->all_active;   /* every lane of every warp is active */
    const Node *mk = s->args.len > 0 ? tree_strip_casts(s->args.items[0]) : NULL;
    b->full_shfl = b->uniform && mk && mk->kind == E_CONST &&
                   (uint32_t)mk->ival == 0xffffffffu &&
                   (ea == API_SHFL_SYNC || ea == API_SHFL_UP_SYNC || ea == API_SHFL_DOWN_SYNC ||
                    ea == API_SHFL_XOR_SYNC);
    if (!b->full_shfl)
        L->K->uses_act = true;
    b->mask_direct = mask_direct;
    b->arg_direct = arg_direct;
    b->val_direct = val_direct;
    list_push(into, b);
    if (!mask_direct || (arg && !arg_direct) || (val && !val_direct)) {
        b->head = region_new(L, NULL, s, true);
        CpuItem *it = item_add(b->head, CI_WARP_STORE, s);
        it->slot = k;
        it->warp = b;
    }
    for (int i = 0; i < s->args.len && i < 3; i++)
        note_calls(L, s->args.items[i]);
    note_calls(L, s->lhs);
}

/* ---- Device functions that synchronise, inlined ----
 * A callee holding a barrier or a warp operation cannot be a C function
 * that runs one thread: its barriers must cut the caller's thread loops.
 * So its body is lowered in place, at block level: its parameters, locals
 * and result become frame fields (NAME__param, NAME__local: unique, as C
 * names of functions are; a callee's fields are shared by its call sites,
 * which are never active at once since sema refuses recursion), its
 * shared arrays members of the kernel's shared struct.  A thread that
 * returns leaves the callee as a `break` leaves a loop: KRT_BREAK(depth)
 * until the end of the inlined body. */

typedef struct SplitSearch {
    const Node *call;      /* the first such call, in evaluation order */
    bool unsafe_before;    /* an operand the callee could affect comes first */
    bool conditional;      /* the call is under and/or/if-else */
    bool unsafe;           /* (running) such an operand was seen */
} SplitSearch;

static bool is_split_call(const Node *n)
{
    return n && n->kind == E_CALLFN && n->callee && func_has_split(n->callee);
}

/* Does evaluating n itself read or change memory a callee may change? */
static bool expr_touches_memory(const Node *n)
{
    if (n->kind == E_INDEX || n->kind == E_CALLFN || n->kind == E_FFICALL)   /* dev: foreign */
        return true;
    if (n->kind != E_API || !n->api)
        return false;
    return api_has(n->api, AF_SIDE_EFFECTS | AF_WARP) || !n->type || n->type->kind == TY_VOID;
}

/* Python's evaluation order: operands left to right, a call's arguments
 * before the call, `and`/`or` and if-else evaluate some operands only.
 * A bound call is a variable by now. */
static void split_search(const Lower *L, const Node *n, bool cond, SplitSearch *S)
{
    if (!n || S->call || bound(L, n))
        return;
    bool before = S->unsafe;
    if (n->kind == E_BOOLOP) {
        split_search(L, n->lhs, cond, S);
        split_search(L, n->rhs, true, S);
    } else if (n->kind == E_IFEXP) {
        split_search(L, n->cond, cond, S);
        split_search(L, n->lhs, true, S);
        split_search(L, n->rhs, true, S);
    } else {
        split_search(L, n->lhs, cond, S);
        for (int i = 0; i < n->args.len; i++)
            split_search(L, n->args.items[i], cond, S);
        split_search(L, n->rhs, cond, S);
    }
    if (S->call)
        return;
    if (is_split_call(n)) {
        S->call = n;
        S->unsafe_before = before;
        S->conditional = cond;
        return;
    }
    if (expr_touches_memory(n))
        S->unsafe = true;
}

/* The expressions a statement evaluates once, before anything else. */
static void stmt_search(const Lower *L, const Node *s, SplitSearch *S)
{
    switch (s->kind) {
    case S_ASSIGN:
        split_search(L, s->rhs, false, S);   /* Python: the value, then the targets */
        for (int i = 0; i < s->args.len; i++)
            split_search(L, s->args.items[i], false, S);
        break;
    case S_EXPR: case S_RETURN:
        split_search(L, s->lhs, false, S);
        break;
    case S_IF:
        split_search(L, s->cond, false, S);
        break;
    case S_FORRANGE: case S_PRINT: case S_WARPOP:
        for (int i = 0; i < s->args.len; i++)
            split_search(L, s->args.items[i], false, S);
        break;
    case S_ASSERT:
        split_search(L, s->cond, false, S);
        split_search(L, s->lhs, false, S);
        break;
    case S_BARRIER:
        split_search(L, s->lhs, false, S);
        break;
    default:
        break;
    }
}

/* The variables of callee g, inlined: all in the frame (or the shared
 * struct), their fields added the first time g is inlined. */
static const CpuFunc *callee_vars(Lower *L, Func *g)
{
    for (int i = 0; i < L->inl_funcs.len; i++) {
        const CpuFunc *cf = L->inl_funcs.items[i];
        if (cf->fn == g)
            return cf;
    }
    CpuFunc *cf = arena_alloc(sizeof *cf);
    cf->fn = g;
    cf->inlined = true;
    cf->debug = g->opt.debug || (L->opt && L->opt->debug);
    cf->param_home = arena_alloc(sizeof(CpuHome) * (size_t)(g->nparams + 1));
    cf->local_home = arena_alloc(sizeof(CpuHome) * (size_t)(g->nlocals + 1));
    vec_push(&L->inl_funcs, cf);
    const char *gname = fn_cname(g);
    CpuSlots *fx = &L->K->frame_extra, *sx = &L->K->shared_extra;
    for (int i = 0; i < g->nparams; i++) {
        Var *p = g->params[i];
        cf->param_home[i] = CPU_HOME_FRAME;
        slot_add(fx, (CpuSlot){arena_printf("%s__%s", gname, p->cname), p->type, NULL, NULL});
    }
    for (int i = 0; i < g->nlocals; i++) {
        Var *v = g->locals[i];
        const char *name = arena_printf("%s__%s", gname, v->cname);
        switch (v->kind) {
        case VAR_LOCALARRAY:
            cf->local_home[i] = CPU_HOME_FRAME;
            slot_add(fx, (CpuSlot){name, v->type->elem, v, NULL});
            break;
        case VAR_SHARED:
            cf->local_home[i] = CPU_HOME_SHARED;
            slot_add(sx, (CpuSlot){name, v->type->elem, v, NULL});
            break;
        case VAR_DYNSHARED:
            cf->local_home[i] = CPU_HOME_DYNSHARED;
            break;
        case VAR_CONSTARRAY:
            cf->local_home[i] = CPU_HOME_CONST;
            break;
        default:
            cf->local_home[i] = CPU_HOME_FRAME;
            slot_add(fx, (CpuSlot){name, v->type, NULL, NULL});
            break;
        }
    }
    return cf;
}

/* Inline call c at block level: its arguments in a region of the caller,
 * its body in the callee's context. */
static CpuBlock *lower_inline(Lower *L, CpuList *into, const Node *s, const Node *c)
{
    Func *g = c->callee;
    bool nonvoid = g->ret && g->ret->kind != TY_VOID && g->ret->kind != TY_NONE;
    CpuBlock *b = block_new(L, CB_INLINE, s);
    b->line = s->loc;
    b->callee = g;
    if (nonvoid) {
        b->slot = L->ncalls++;
        b->ret = arena_printf("krt_ret%d", b->slot);
        slot_add(&L->K->frame_extra, (CpuSlot){b->ret, g->ret, NULL, NULL});
    }
    b->callee_ctx = callee_vars(L, g);
    list_push(into, b);

    b->head = region_new(L, NULL, c, true);
    item_add(b->head, CI_INLINE_ARGS, c)->inl = b;
    for (int i = 0; i < c->args.len && i < g->nparams; i++)
        note_calls(L, c->args.items[i]);

    const CpuFunc *ctx = L->ctx;
    const CpuBlock *inl = L->inl;
    const CpuBind *binds = L->binds;
    L->ctx = b->callee_ctx;
    L->inl = b;
    b->depth = ++L->bloop;
    L->binds = NULL;   /* the callee's own tree: no call of it is bound */
    bool saved = L->all_active;
    int nret = L->nret;
    lower_block_list(L, &b->body, &g->def->body);
    reset_region(L, &b->body, c, CPU_BREAK, b->depth);
    L->all_active = saved && L->nret == nret;
    L->bloop--;
    L->ctx = ctx;
    L->inl = inl;
    L->binds = binds;
    return b;
}

/* A statement that calls a device function that synchronises: inline the
 * first such call, then lower the statement with its result bound (again,
 * for the next call).  False when s has no such call. */
static bool lower_split_calls(Lower *L, CpuList *into, const Node *s)
{
    SplitSearch S = {0};
    if (s->kind == S_WHILE) {
        split_search(L, s->cond, false, &S);
        if (S.call)
            fail(L, into, S.call->loc,
                 arena_printf("device function '%s' synchronises: on the CPU backend it cannot be "
                              "called in a while condition (assign its result to a variable before "
                              "the loop and at the end of the body)", S.call->callee->name));
        return S.call != NULL;
    }
    stmt_search(L, s, &S);
    const Node *c = S.call;
    if (!c)
        return false;
    if (S.conditional || S.unsafe_before) {
        fail(L, into, c->loc,
             arena_printf("device function '%s' synchronises: on the CPU backend a call of it "
                          "cannot be %s (assign its result to a variable first)", c->callee->name,
                          S.conditional ? "under and/or or a conditional expression"
                                        : "evaluated after an array read or another call in the "
                                          "same statement"));
        return true;
    }
    CpuBlock *b = lower_inline(L, into, s, c);
    if (s->kind == S_EXPR && s->lhs == c)
        return true;
    if (!b->ret)
        die("the value of a device function without a result");
    CpuBind *bind = arena_alloc(sizeof *bind);
    bind->call = c;
    bind->field = b->ret;
    bind->next = L->binds;
    const CpuBind *binds = L->binds;
    L->binds = bind;
    if (reaches_barrier(L, s)) {
        lower_block_stmt(L, into, s);
    } else if (!stmt_is_empty(s)) {
        CpuBlock *r = region_new(L, into, s, true);
        region_stmt(L, r, s);
        if (r->nexits)
            L->all_active = false;
    }
    L->binds = binds;
    return true;
}

static void lower_block_stmt(Lower *L, CpuList *into, const Node *s)
{
    if (lower_split_calls(L, into, s))
        return;
    switch (s->kind) {
    case S_BARRIER: {
        ApiId ea = api_id(s->api);
        if (s->api && s->api->id == API_GRID_SYNC) {
            /* the block stops here and the runtime calls it again once
             * every block of the grid has stopped (see emit_cpu_kernel) */
            if (!L->K->coop)
                die("a grid sync in a kernel not marked as having one");
            CpuBlock *b = block_new(L, CB_GRIDSYNC, s);
            b->line = s->loc;
            b->slot = ++L->K->nresume;
            list_push(into, b);
            return;
        }
        if (ea == API_SYNCTHREADS_COUNT || ea == API_SYNCTHREADS_AND || ea == API_SYNCTHREADS_OR) {
            lower_block_reduce(L, into, s, ea);
            return;
        }
        CpuBlock *b = block_new(L, CB_BARRIER, s);
        b->line = s->loc;
        b->sync = ea == API_SYNCWARP ? CPU_SYNC_WARP_ALL : CPU_SYNC_THREADS;
        list_push(into, b);
        return;
    }
    case S_WARPOP:
        lower_warpop(L, into, s);
        return;
    case S_EXPR:
        if (s->lhs && s->lhs->kind == E_API &&
            (api_id(s->lhs->api) == API_SYNCWARP || api_id(s->lhs->api) == API_SYNCTHREADS)) {
            CpuBlock *b = block_new(L, CB_BARRIER, s);
            b->line = s->loc;
            b->sync = api_id(s->lhs->api) == API_SYNCWARP ? CPU_SYNC_WARP_LANES : CPU_SYNC_THREADS;
            list_push(into, b);
            return;
        }
        break;
    case S_IF:
        lower_block_if(L, into, s);
        return;
    case S_WHILE:
        if (s->orelse.len > 0)
            die("while/else after typing");
        lower_block_loop(L, into, s);
        return;
    case S_FORRANGE: {
        if (!s->it || !s->stop || !s->step)
            die("a range loop without its hidden variables");
        /* the bounds, per thread, then the loop (a uniform loop sets its
         * bounds itself, once) */
        if (!loop_uniform(L, s)) {
            CpuBlock *r = region_new(L, into, s, true);
            r->line = s->loc;
            item_add(r, CI_RANGE_INIT, s);
            if (!range_step_known(s, &(int64_t){0}) && !L->ctx->debug)
                exit_add(L, r, s, CPU_RETURNED, 0);
            if (r->nexits)
                L->all_active = false;
        }
        for (int i = 0; i < s->args.len && i < 3; i++)
            note_calls(L, s->args.items[i]);
        lower_block_loop(L, into, s);
        return;
    }
    default:
        break;
    }
    fail(L, into, s->loc, "a barrier or warp operation inside a device function or an expression "
                          "is not supported on the CPU backend yet");
}

/* ---- the order of the threads of a barrier-free kernel ----
 * Threads without a barrier may run in any order.  A kernel that indexes
 * the last dimension of its arrays by the y component of the thread index
 * (row, col = cuda.grid(2), as numba's documentation writes it) and never
 * by the x component walks memory sequentially with y innermost. */

typedef struct Order {
    PtrVec xs, ys;           /* variables holding the x / y thread component */
    int x_last, y_last;      /* array indices whose last index is x / y */
} Order;

/* 0: x, 1: y, -1: neither */
static int order_comp(const Order *O, const Node *n)
{
    n = tree_strip_casts(n);
    if (!n)
        return -1;
    if (n->kind == E_VAR)
        return vec_contains(&O->xs, n->var) ? 0 : vec_contains(&O->ys, n->var) ? 1 : -1;
    if (n->kind == E_API)
        return api_id(n->api) == API_TID_X ? 0 : api_id(n->api) == API_TID_Y ? 1 : -1;
    if (n->kind == E_TUPLEGET && n->ival <= 1) {
        const Node *g = tree_strip_casts(n->lhs);
        if (g && g->kind == E_API && api_id(g->api) == API_GRID)
            return (int)n->ival;
    }
    return -1;
}

static Visit order_defs(const Node *n, void *ctx)
{
    Order *O = ctx;
    if (n->kind == S_ASSIGN && n->args.len == 1 && n->args.items[0]->kind == E_VAR) {
        int k = order_comp(O, n->rhs);
        if (k >= 0)
            vec_push(k ? &O->ys : &O->xs, n->args.items[0]->var);
    }
    return VISIT_CHILDREN;
}

static Visit order_uses(const Node *n, void *ctx)
{
    Order *O = ctx;
    if (n->kind == E_INDEX && n->args.len >= 2) {
        int k = order_comp(O, n->args.items[n->args.len - 1]);
        if (k == 0)
            O->x_last++;
        else if (k == 1)
            O->y_last++;
    }
    return VISIT_CHILDREN;
}

static bool prefers_y_inner(const Func *f)
{
    Order O = {0};
    for (int i = 0; i < f->def->body.len; i++)
        node_walk(f->def->body.items[i], order_defs, &O);
    if (O.ys.len == 0)
        return false;
    for (int i = 0; i < f->def->body.len; i++)
        node_walk(f->def->body.items[i], order_uses, &O);
    return O.y_last > 0 && O.x_last == 0;
}

/* Does any item read a thread's krt_state (else nothing sets it up)? */
static bool list_reads_state(const CpuList *l);

static bool block_reads_state(const CpuBlock *b)
{
    if (!b)
        return false;
    if (b->kind == CB_REGION) {
        for (int i = 0; i < b->nitems; i++)
            if (b->items[i].kind == CI_SKIP || b->items[i].kind == CI_RESET ||
                b->items[i].kind == CI_ELSE_SWAP)
                return true;
        return false;
    }
    if (b->kind == CB_WARP && !b->uniform)
        return true;
    return block_reads_state(b->head) || block_reads_state(b->next) ||
           list_reads_state(&b->body) || list_reads_state(&b->orelse);
}

static bool list_reads_state(const CpuList *l)
{
    for (int i = 0; i < l->len; i++)
        if (block_reads_state(l->items[i]))
            return true;
    return false;
}

/* ---- grid-stride loops, the threads inside (CpuGridStride) ---- */

/* Is n cuda.grid(1) (through casts, or a prefix variable set to it)? */
static bool gs_is_grid1(const Node *n, const Node *const *def_rhs, const Func *f)
{
    n = tree_strip_casts(n);
    if (n && n->kind == E_VAR && uni_local(f, n->var) && def_rhs[n->var->index])
        n = tree_strip_casts(def_rhs[n->var->index]);
    if (!n || n->kind != E_API || api_id(n->api) != API_GRID || n->args.len != 1 ||
        n->type != ty_scalar[TY_INT64])
        return false;
    const Node *a = tree_strip_casts(n->args.items[0]);
    return a && a->kind == E_CONST && a->ival == 1;
}

typedef struct GsBody {
    const Func *f;
    const bool *set;         /* by local index: holds this iteration's value */
    bool bad;
} GsBody;

/* Every variable the loop's body mentions holds a value of this iteration:
 * a prefix variable, the loop's own, one the body assigned before at its
 * top level, an E_LET temporary; no local array (its elements would carry
 * over), no nested range loop (its variables would). */
static Visit gs_mentions(const Node *n, void *ctx)
{
    GsBody *G = ctx;
    if (n->kind == S_FORRANGE || n->kind == S_ARRAYDECL || n->kind == S_WARPOP || n->kind == S_BARRIER) {
        G->bad = true;
        return VISIT_STOP;
    }
    if (n->kind == E_LET)
        return VISIT_CHILDREN;   /* bound before its use, in the expression */
    if (n->kind != E_VAR || !n->var)
        return VISIT_CHILDREN;
    const Var *v = n->var;
    switch (v->kind) {
    case VAR_PARAM: case VAR_SHARED: case VAR_DYNSHARED: case VAR_CONSTARRAY:
        return VISIT_CHILDREN;
    case VAR_LOCAL: case VAR_HIDDEN:
        if (uni_local(G->f, v) && G->set[v->index])
            return VISIT_CHILDREN;
        break;
    default:
        break;
    }
    G->bad = true;
    return VISIT_STOP;
}

static Visit gs_lets(const Node *n, void *ctx)
{
    GsBody *G = ctx;
    if (n->kind == E_LET && uni_local(G->f, n->var))
        ((bool *)G->set)[n->var->index] = true;
    return VISIT_CHILDREN;
}

/* CpuGridStride.multi: does the body see which thread or block runs it,
 * other than through the loop's variable (its set: what gs_mentions
 * allows less the per-thread prefix variables)? */
typedef struct GsMulti {
    const Func *f;
    const bool *uok;         /* by local index: a block-uniform prefix one */
    const bool *pre;         /* by local index: set by the prefix */
    const Var *var;          /* the loop's */
    bool bad;
} GsMulti;

static Visit gs_multi_visit(const Node *n, void *ctx)
{
    GsMulti *M = ctx;
    if (n->kind == E_CALLFN) {
        M->bad = true;
        return VISIT_STOP;
    }
    if (n->kind == E_API && n->api) {
        switch (api_id(n->api)) {
        case API_TID_X: case API_TID_Y: case API_TID_Z: case API_BID_X: case API_BID_Y: case API_BID_Z:
        case API_GRID: case API_LANEID: case API_LANEMASK_LT: case API_ACTIVEMASK:
            M->bad = true;
            return VISIT_STOP;
        default:
            break;
        }
    }
    const Var *v = n->kind == E_VAR || n->kind == E_LET ? n->var : NULL;
    if (v && (v->kind == VAR_SHARED || v->kind == VAR_DYNSHARED ||
              (v != M->var && uni_local(M->f, v) && M->pre[v->index] && !M->uok[v->index]))) {
        M->bad = true;
        return VISIT_STOP;
    }
    return VISIT_CHILDREN;
}

static void find_grid_stride(CpuKernel *K)
{
    const Func *f = K->fn;
    const NodeList *body = &f->def->body;
    for (int i = 0; i < f->nparams; i++)
        if (K->param_copied[i])
            return;
    int last = body->len - 1;
    while (last >= 0 && (body->items[last]->kind == S_NOP || body->items[last]->kind == S_PASS))
        last--;
    if (last < 0)
        return;
    const Node *loop = body->items[last];
    Remat R = {0};
    R.f = f;
    R.K = K;
    R.defs = arena_alloc(sizeof(int) * (size_t)(f->nlocals + 1));
    R.ok = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    R.uok = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    const Node **def_rhs = arena_alloc(sizeof(const Node *) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < body->len; i++)
        node_walk(body->items[i], remat_defs, &R);

    /* the while's induction variable, set twice: before and at the end */
    const Var *iv = NULL;
    const Node *incr = NULL;
    if (loop->kind == S_WHILE) {
        const Node *c = loop->cond;
        if (!c || c->kind != E_COMPARE || c->args.len != 2 || c->ops[0] != OP_LT || loop->body.len < 1)
            return;
        const Node *a = c->args.items[0];
        if (a->kind != E_VAR || !uni_local(f, a->var) || a->var->type != ty_scalar[TY_INT64] ||
            R.defs[a->var->index] != 2)
            return;
        iv = a->var;
        incr = loop->body.items[loop->body.len - 1];
        if (incr->kind != S_ASSIGN || incr->args.len != 1 || incr->args.items[0]->kind != E_VAR ||
            incr->args.items[0]->var != iv || !incr->rhs || incr->rhs->kind != E_BINOP ||
            incr->rhs->op != OP_ADD || incr->rhs->type != iv->type || !incr->rhs->lhs ||
            incr->rhs->lhs->kind != E_VAR || incr->rhs->lhs->var != iv)
            return;
    } else if (loop->kind == S_FORRANGE) {
        if (loop->args.len != 3 || !loop->it || loop->it->type != ty_scalar[TY_INT64] || !loop->var)
            return;
    } else {
        return;
    }

    CpuGridStride *g = arena_alloc(sizeof *g);
    g->loop = loop;
    g->nprefix = last;
    g->prefix_uniform = arena_alloc(sizeof(bool) * (size_t)(last + 1));
    for (int k = 0; k < last; k++) {
        const Node *s = body->items[k];
        if (s->kind == S_NOP || s->kind == S_PASS)
            continue;
        if (s->kind != S_ASSIGN || s->args.len != 1 || s->args.items[0]->kind != E_VAR)
            return;
        const Var *v = s->args.items[0]->var;
        if (!uni_local(f, v) || R.defs[v->index] != (v == iv ? 2 : 1))
            return;
        R.uniform_only = false;
        if (!remat_expr(&R, s->rhs))
            return;
        R.ok[v->index] = true;
        def_rhs[v->index] = s->rhs;
        R.uniform_only = true;
        if (v != iv && remat_expr(&R, s->rhs)) {
            R.uok[v->index] = true;
            g->prefix_uniform[k] = true;
        }
    }
    R.uniform_only = true;
    if (iv) {
        if (!gs_is_grid1(loop->cond->args.items[0], def_rhs, f) ||
            loop->cond->args.items[1]->type != iv->type || !remat_expr(&R, loop->cond->args.items[1]) ||
            !remat_expr(&R, incr->rhs->rhs))
            return;
        g->var = iv;
        g->stop = loop->cond->args.items[1];
        g->step = incr->rhs->rhs;
        g->nbody = loop->body.len - 1;
    } else {
        if (!gs_is_grid1(loop->args.items[0], def_rhs, f) || !remat_expr(&R, loop->args.items[1]) ||
            !remat_expr(&R, loop->args.items[2]))
            return;
        g->var = loop->var;
        g->stop = loop->args.items[1];
        g->step = loop->args.items[2];
        g->nbody = loop->body.len;
    }
    if (g->stop->type != ty_scalar[TY_INT64] || g->step->type != ty_scalar[TY_INT64])
        return;

    /* the body: no exit, nothing carried from one iteration to the next */
    GsBody G = {0};
    G.f = f;
    bool *set = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    memcpy(set, R.ok, sizeof(bool) * (size_t)f->nlocals);
    if (uni_local(f, g->var))
        set[g->var->index] = true;
    G.set = set;
    for (int k = 0; k < g->nbody; k++) {
        const Node *s = loop->body.items[k];
        if (has_exit(s))
            return;
        node_walk(s, gs_lets, &G);
        bool plain = s->kind == S_ASSIGN && s->args.len == 1 && s->args.items[0]->kind == E_VAR;
        node_walk(plain ? s->rhs : s, gs_mentions, &G);
        if (G.bad)
            return;
        if (plain) {
            const Var *v = s->args.items[0]->var;
            if (!uni_local(f, v) || R.ok[v->index] || v == iv)
                return;   /* a prefix variable: the next iteration's would differ */
            set[v->index] = true;
        }
    }
    g->var_nonneg = iv || (uni_local(f, g->var) && R.defs[g->var->index] == 1);
    GsMulti M = {f, R.uok, R.ok, g->var, false};
    for (int k = 0; k < g->nbody && !M.bad; k++)
        node_walk(loop->body.items[k], gs_multi_visit, &M);
    g->multi = !M.bad;
    K->gs = g;
}

/* ---- a barrier-free kernel under `if i < n` (CpuClamp) ---- */

typedef struct ClampScan {
    const CpuKernel *K;
    const Node **def;        /* by local index: its one assignment's value */
    int *comp_of;            /* by local index: 1 + its tuple component of grid() */
    bool bad;
} ClampScan;

static Visit clamp_pure(const Node *n, void *ctx)
{
    bool *bad = ctx;
    if (n->kind == E_CALLFN || n->kind == E_FFICALL || n->kind == E_ARRAYOP ||
        (n->kind == E_API && api_id_has(api_id(n->api), AF_SIDE_EFFECTS | AF_WARP | AF_COLLECTIVE))) {
        *bad = true;
        return VISIT_STOP;
    }
    return VISIT_CHILDREN;
}

/* X = threadIdx.comp (+ the block's base) + c, its value kept by casts */
static bool clamp_form(const ClampScan *C, const Node *n, CpuClamp *cl, int depth)
{
    if (!n || !n->type || !t_int(n->type) || depth > 8)
        return false;
    const Func *f = C->K->fn;
    switch (n->kind) {
    case E_CAST: {
        const Type *from = n->lhs ? n->lhs->type : NULL;
        if (!from || !t_int(from) || ty_size(n->type) < ty_size(from) ||
            (ty_size(n->type) == ty_size(from) && t_signed(n->type) != t_signed(from)))
            return false;
        return clamp_form(C, n->lhs, cl, depth + 1);
    }
    case E_VAR:
        if (!uni_local(f, n->var))
            return false;
        if (C->comp_of[n->var->index]) {
            cl->comp = C->comp_of[n->var->index] - 1;
            cl->base = true;
            return n->var->type == ty_scalar[TY_INT64];
        }
        return C->def[n->var->index] && clamp_form(C, C->def[n->var->index], cl, depth + 1);
    case E_API:
        switch (api_id(n->api)) {
        case API_TID_X: case API_TID_Y: case API_TID_Z:
            cl->comp = api_id(n->api) == API_TID_X ? 0 : api_id(n->api) == API_TID_Y ? 1 : 2;
            return true;
        case API_GRID: {
            const Node *a = n->args.len == 1 ? tree_strip_casts(n->args.items[0]) : NULL;
            if (!a || a->kind != E_CONST || a->ival != 1)
                return false;
            cl->comp = 0;
            cl->base = true;
            return true;
        }
        default:
            return false;
        }
    case E_TUPLEGET: {
        const Node *g = tree_strip_casts(n->lhs);
        if (!g || g->kind != E_API || api_id(g->api) != API_GRID || n->ival > 2)
            return false;
        cl->comp = (int)n->ival;
        cl->base = true;
        return true;
    }
    case E_BINOP: {
        const Node *k = tree_strip_casts(n->rhs);
        if ((n->op != OP_ADD && n->op != OP_SUB) || !k || k->kind != E_CONST || !t_signed(k->type) ||
            (int64_t)k->ival <= -(INT64_C(1) << 30) || (int64_t)k->ival >= (INT64_C(1) << 30) ||
            !range_of(n).known || !clamp_form(C, n->lhs, cl, depth + 1))
            return false;
        cl->c += n->op == OP_ADD ? (int64_t)k->ival : -(int64_t)k->ival;
        return cl->c > -(INT64_C(1) << 30) && cl->c < (INT64_C(1) << 30);
    }
    default:
        return false;
    }
}

static bool clamp_uniform(const CpuKernel *K, const Node *n)
{
    Uni U = {0};
    U.f = K->fn;
    U.param_copied = K->param_copied;
    U.uni = arena_alloc(sizeof(bool) * (size_t)(K->fn->nlocals + 1));   /* no local */
    return uni_expr(&U, n);
}

static bool clamp_cond(ClampScan *C, CpuKernel *K, const Node *c, CpuClamp *out, int *n)
{
    if (c->kind == E_BOOLOP && c->op == OP_AND)
        return clamp_cond(C, K, c->lhs, out, n) && clamp_cond(C, K, c->rhs, out, n);
    if (c->kind != E_COMPARE || c->args.len != 2 || c->ops[0] != OP_LT || *n >= 6)
        return false;
    const Node *x = c->args.items[0], *u = c->args.items[1];
    CpuClamp cl = {0};
    if (!x->type || x->type != u->type || !t_signed(x->type) || !clamp_form(C, x, &cl, 0) ||
        !clamp_uniform(K, u))
        return false;
    cl.u = u;
    out[(*n)++] = cl;
    return true;
}

static void find_clamp(CpuKernel *K)
{
    const Func *f = K->fn;
    const NodeList *body = &f->def->body;
    int last = body->len - 1;
    while (last >= 0 && (body->items[last]->kind == S_NOP || body->items[last]->kind == S_PASS))
        last--;
    if (last < 0 || body->items[last]->kind != S_IF || body->items[last]->orelse.len)
        return;
    Remat R = {0};
    R.f = f;
    R.K = K;
    R.defs = arena_alloc(sizeof(int) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < body->len; i++)
        node_walk(body->items[i], remat_defs, &R);
    ClampScan C = {0};
    C.K = K;
    C.def = arena_alloc(sizeof(const Node *) * (size_t)(f->nlocals + 1));
    C.comp_of = arena_alloc(sizeof(int) * (size_t)(f->nlocals + 1));
    for (int k = 0; k < last; k++) {
        const Node *s = body->items[k];
        if (s->kind == S_NOP || s->kind == S_PASS)
            continue;
        if (s->kind != S_ASSIGN || s->args.len != 1)
            return;
        bool bad = false;
        node_walk(s->rhs, clamp_pure, &bad);
        if (bad)
            return;
        const Node *t = s->args.items[0];
        const Node *g = tree_strip_casts(s->rhs);
        if (t->kind == E_TUPLE && g && g->kind == E_API && api_id(g->api) == API_GRID) {
            for (int q = 0; q < t->args.len; q++)
                if (t->args.items[q]->kind == E_VAR && uni_local(f, t->args.items[q]->var) &&
                    R.defs[t->args.items[q]->var->index] == 1)
                    C.comp_of[t->args.items[q]->var->index] = q + 1;
            continue;
        }
        if (t->kind != E_VAR || !uni_local(f, t->var))
            continue;   /* (a local the test does not read through) */
        if (R.defs[t->var->index] == 1)
            C.def[t->var->index] = s->rhs;
    }
    const Node *s = body->items[last];
    CpuClamp cl[6];
    int n = 0;
    if (!clamp_cond(&C, K, s->cond, cl, &n) || n == 0)
        return;
    K->clamp_if = s;
    K->clamps = arena_alloc(sizeof *cl * (size_t)n);
    memcpy(K->clamps, cl, sizeof *cl * (size_t)n);
    K->nclamps = n;
}

/* ---- the kernel ---- */

static void mark_assigned(const Func *f, bool *assigned, const Var *v)
{
    if (v->kind == VAR_PARAM && v->index >= 0 && v->index < f->nparams && f->params[v->index] == v)
        assigned[v->index] = true;
}

/* CpuKernel.unit: the parameter arrays a statement indexes (an element,
 * or an atomic's array) whose type leaves the last stride open */
static Visit unit_visit(const Node *n, void *ctx)
{
    PtrVec *unit = ctx;
    const Node *a = n->kind == E_INDEX ? n->lhs : n->kind == E_API && n->args.len ? n->args.items[0] : NULL;
    const Var *v = a && a->kind == E_VAR ? a->var : NULL;
    if (v && v->kind == VAR_PARAM && v->type->kind == TY_ARRAY && v->type->ndim >= 1 &&
        v->type->elem->kind != TY_RNGSTATE && !v->type->contiguous && !vec_contains(unit, v) && unit->len < 4)
        vec_push(unit, (void *)v);
    return VISIT_CHILDREN;
}

/* The parameters the kernel assigns (per-thread copies on the CPU). */
static void walk_assigned(const Func *f, bool *assigned, const Node *n)
{
    if (!n)
        return;
    if (n->kind == S_ASSIGN)
        for (int i = 0; i < n->args.len; i++)
            if (n->args.items[i]->kind == E_VAR && n->args.items[i]->var)
                mark_assigned(f, assigned, n->args.items[i]->var);
    if (n->kind == S_FORRANGE && n->var)
        mark_assigned(f, assigned, n->var);
    walk_assigned(f, assigned, n->lhs);
    walk_assigned(f, assigned, n->rhs);
    walk_assigned(f, assigned, n->cond);
    for (int i = 0; i < n->args.len; i++)
        walk_assigned(f, assigned, n->args.items[i]);
    for (int i = 0; i < n->body.len; i++)
        walk_assigned(f, assigned, n->body.items[i]);
    for (int i = 0; i < n->orelse.len; i++)
        walk_assigned(f, assigned, n->orelse.items[i]);
}

CpuKernel *lower_cpu_kernel(Func *f, const Options *opt)
{
    CpuKernel *K = arena_alloc(sizeof *K);
    K->fn = f;
    K->split = func_has_split(f);
    K->coop = K->split && f->has_grid_sync;
    K->param_copied = arena_alloc(sizeof(bool) * (size_t)(f->nparams + 1));
    for (int i = 0; i < f->def->body.len; i++)
        walk_assigned(f, K->param_copied, f->def->body.items[i]);

    /* Where the variables live: a kernel cut at barriers keeps every local
     * (and every assigned parameter) in the frame. */
    CpuFunc *kv = arena_alloc(sizeof *kv);
    kv->fn = f;
    kv->debug = f->opt.debug || (opt && opt->debug);
    kv->param_home = arena_alloc(sizeof(CpuHome) * (size_t)(f->nparams + 1));
    kv->local_home = arena_alloc(sizeof(CpuHome) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < f->nparams; i++)
        kv->param_home[i] = K->split && K->param_copied[i] ? CPU_HOME_FRAME : CPU_HOME_C;
    for (int i = 0; i < f->nlocals; i++) {
        switch (f->locals[i]->kind) {
        case VAR_SHARED: kv->local_home[i] = CPU_HOME_SHARED; break;
        case VAR_DYNSHARED: kv->local_home[i] = CPU_HOME_C; break;
        case VAR_CONSTARRAY: kv->local_home[i] = CPU_HOME_CONST; break;
        default: kv->local_home[i] = K->split ? CPU_HOME_FRAME : CPU_HOME_C; break;
        }
    }
    K->vars = kv;
    cpu_find_nonneg(kv);

    /* Block-uniform locals live once per block (not in a cooperative
     * kernel, which returns at each grid sync). */
    if (K->split && !K->coop)
        find_uniform(K, f);
    if (K->split && !kv->debug)
        find_remat(K, kv);

    Lower L = {0};
    L.K = K;
    L.opt = opt;
    L.ctx = kv;
    L.all_active = true;
    if (K->split) {
        lower_block_list(&L, &K->body, &f->def->body);
        cache_list(&K->body, false, 0);
        cache_list(&K->body, false, 1);
        fuse_list(&K->body);
        if (!K->coop && !kv->debug) {
            bar_fuse_list(K, &K->body);
            xclamp_list(&L, &K->body);
            split_list(&L, &K->body);
            find_prefetch(K);
        }
        K->uses_src = K->uses_src && tree_src_list(&K->body, NULL, false);   /* warp: trees */
        K->uses_lanes = K->uses_warp && tree_src_list(&K->body, NULL, true);
        K->uses_state = list_reads_state(&K->body);
    } else {
        /* one thread loop over the whole body; its exits go to krt_next */
        K->y_inner = prefers_y_inner(f);
        if (!K->y_inner && !kv->debug)
            find_grid_stride(K);
        if (!K->gs && !kv->debug)
            find_clamp(K);
        CpuBlock *r = block_new(&L, CB_REGION, NULL);
        list_push(&K->body, r);
        for (int i = 0; i < f->def->body.len; i++)
            region_stmt(&L, r, f->def->body.items[i]);
        K->copies = !kv->debug && (K->gs || !list_has_exit(&f->def->body));
        if (K->copies)
            for (int i = 0; i < f->def->body.len; i++)
                node_walk(f->def->body.items[i], unit_visit, &K->unit);
    }
    return K;
}
