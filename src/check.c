/*
 * check.c - kernel rules on the lowered program (after type.c, before emit).
 *
 * - syncthreads() (and syncthreads_count/and/or) must be reached by every
 *   thread of a block: a barrier (directly, or through a device function
 *   that has one) under an if, a while or a range loop whose condition
 *   depends on the thread index is reported as a warning (an error with
 *   -Werror).  "Depends on the thread index" is a taint analysis:
 *   cuda.threadIdx.*, cuda.grid(), cuda.laneid, lanemask_lt(), atomics'
 *   results, warp-collective results (they differ between warps), device
 *   functions that read those, and every variable assigned from a tainted
 *   value or under a tainted condition, to a fixed point.  blockIdx,
 *   blockDim, gridDim and the value of a syncthreads_count/and/or are
 *   uniform across a block and do not taint.
 * - A grid sync (cuda.cg.this_grid().sync(), an S_BARRIER of api
 *   GRID_SYNC) must be reached by every thread of the grid: the same
 *   warning under a thread-dependent condition, and one under a condition
 *   that depends on the block (a second taint analysis in which blockIdx
 *   and the barriers' values, uniform only within a block, taint too).
 * - Static shared memory of a kernel (its own arrays and those of every
 *   device function it reaches) must fit in 48 KiB, the limit without
 *   opt-in; a local array must fit in 64 KiB per thread.
 * - A kernel whose name C cannot take as the launcher's (free, int, a
 *   name with "__"...: mangle.c) gets a warning naming the launcher's name
 *   (the header says it too).
 */
#include "kernc.h"

#include <string.h>

#define SHARED_LIMIT 49152
#define LOCAL_LIMIT 65536

typedef struct Taint {
    PtrVec vars;        /* tainted Var* */
    bool changed;
    bool grid;          /* values that differ between blocks taint too */
} Taint;

static bool is_tainted_var(Taint *t, const Var *v)
{
    for (int i = 0; i < t->vars.len; i++)
        if (t->vars.items[i] == v)
            return true;
    return false;
}

static void taint_var(Taint *t, Var *v)
{
    if (v && !is_tainted_var(t, v)) {
        vec_push(&t->vars, v);
        t->changed = true;
    }
}

/* Does a function read the thread index anywhere (itself or callees)? */
static bool reads_tid_expr(const Node *n, int depth, bool grid);

static bool reads_tid_list(const NodeList *l, int depth, bool grid)
{
    for (int i = 0; i < l->len; i++)
        if (reads_tid_expr(l->items[i], depth, grid))
            return true;
    return false;
}

/* grid: also the block index, which differs between the blocks a grid
 * sync waits for. */
static bool is_tid_source(const Node *n, bool grid)
{
    if (n->kind == E_FFICALL)   /* dev: foreign code may read the thread index */
        return true;
    if (n->kind != E_API || !n->api)
        return false;
    return api_has(n->api, AF_THREAD_DEP) || (grid && api_has(n->api, AF_BLOCK_DEP));
}

typedef struct TidSearch {
    int depth;              /* device-function calls followed so far */
    bool grid;
} TidSearch;

static Visit tid_read(const Node *n, void *ctx)
{
    const TidSearch *s = ctx;
    if (is_tid_source(n, s->grid))
        return VISIT_STOP;
    if (n->kind == E_CALLFN && n->callee && n->callee->recursive)
        return VISIT_STOP;   /* dev: not followed (exponential); counted as reading it */
    if (n->kind == E_CALLFN && n->callee &&
        reads_tid_list(&n->callee->def->body, s->depth + 1, s->grid))
        return VISIT_STOP;
    if (n->kind == S_WARPOP && n->lhs)
        return VISIT_STOP;
    if (n->kind == S_BARRIER && n->rhs && s->grid)
        return VISIT_STOP;
    return VISIT_CHILDREN;
}

static bool reads_tid_expr(const Node *n, int depth, bool grid)
{
    TidSearch s = {depth, grid};
    return depth <= 64 && node_walk(n, tid_read, &s);
}

static Visit taint_source(const Node *e, void *ctx)
{
    Taint *t = ctx;
    if (is_tid_source(e, t->grid))
        return VISIT_STOP;
    if (e->kind == E_VAR)
        return is_tainted_var(t, e->var) ? VISIT_STOP : VISIT_SKIP;
    if (e->kind == E_CALLFN && (e->callee->recursive ||   /* dev */
                                reads_tid_list(&e->callee->def->body, 0, t->grid)))
        return VISIT_STOP;
    return VISIT_CHILDREN;
}

static bool tainted(Taint *t, const Node *e)
{
    return node_walk(e, taint_source, t);
}

static void propagate(Taint *t, const NodeList *body, bool ctrl)
{
    for (int i = 0; i < body->len; i++) {
        const Node *s = body->items[i];
        switch (s->kind) {
        case S_ASSIGN: {
            const Node *target = s->args.items[0];
            if (target->kind == E_VAR && (ctrl || tainted(t, s->rhs)))
                taint_var(t, target->var);
            break;
        }
        case S_WARPOP:
            if (s->lhs)
                taint_var(t, s->lhs->var);
            break;
        case S_BARRIER:
            if (s->rhs && (ctrl || t->grid))
                taint_var(t, s->rhs->var);
            break;
        case S_IF:
            propagate(t, &s->body, ctrl || tainted(t, s->cond));
            propagate(t, &s->orelse, ctrl || tainted(t, s->cond));
            break;
        case S_WHILE:
            propagate(t, &s->body, ctrl || tainted(t, s->cond));
            break;
        case S_FORRANGE: {
            bool c = ctrl;
            for (int j = 0; j < s->args.len; j++)
                c = c || tainted(t, s->args.items[j]);
            if (c) {
                taint_var(t, s->var);
                taint_var(t, s->it);
            }
            propagate(t, &s->body, c);
            break;
        }
        default:
            break;
        }
    }
}

/* A call to a device function that has a barrier (grid: a grid sync). */
typedef struct BarrierCall {
    bool grid;
    const Node *where;
} BarrierCall;

static Visit barrier_call(const Node *e, void *ctx)
{
    BarrierCall *b = ctx;
    if (e->kind == E_CALLFN && e->callee &&
        (b->grid ? e->callee->has_grid_sync : e->callee->has_barrier)) {
        b->where = e;
        return VISIT_STOP;
    }
    return VISIT_CHILDREN;
}

static bool has_barrier_call(const Node *e, bool grid, const Node **where)
{
    BarrierCall b = {grid, NULL};
    if (!node_walk(e, barrier_call, &b))
        return false;
    *where = b.where;
    return true;
}

/* The name of a barrier in the warnings. */
static const char *barrier_name(const ApiEntry *a)
{
    if (a->id == API_GRID_SYNC)
        return "this_grid().sync";
    return strrchr(a->path, '.') + 1;
}

/* t: the thread-index taint; g: the block-index one (NULL when the
 * function has no grid sync); ctrl / gctrl: under such a condition. */
static bool cond_tainted(Taint *t, const Node *e) { return t && tainted(t, e); }

static void check_barriers(Taint *t, Taint *g, const NodeList *body, bool ctrl, bool gctrl)
{
    for (int i = 0; i < body->len; i++) {
        const Node *s = body->items[i];
        const Node *call = NULL;
        switch (s->kind) {
        case S_BARRIER:
            if (ctrl)
                warning_at(s->loc, W_DIVERGENT_BARRIER, "%s() under a condition that depends on the thread index",
                           barrier_name(s->api));
            else if (gctrl && s->api->rule == TR_GRID_SYNC)
                warning_at(s->loc, W_DIVERGENT_BARRIER, "this_grid().sync() under a condition that depends on the "
                           "block index (every thread of the grid must reach it)");
            break;
        case S_IF: {
            bool c = ctrl || tainted(t, s->cond), gc = gctrl || cond_tainted(g, s->cond);
            check_barriers(t, g, &s->body, c, gc);
            check_barriers(t, g, &s->orelse, c, gc);
            break;
        }
        case S_WHILE:
            check_barriers(t, g, &s->body, ctrl || tainted(t, s->cond),
                           gctrl || cond_tainted(g, s->cond));
            break;
        case S_FORRANGE: {
            bool c = ctrl, gc = gctrl;
            for (int j = 0; j < s->args.len; j++) {
                c = c || tainted(t, s->args.items[j]);
                gc = gc || cond_tainted(g, s->args.items[j]);
            }
            check_barriers(t, g, &s->body, c, gc);
            break;
        }
        default:
            if (ctrl && (has_barrier_call(s->lhs, false, &call) ||
                         has_barrier_call(s->rhs, false, &call)))
                warning_at(call->loc, W_DIVERGENT_BARRIER, "'%s' calls %s() and is called under a condition that "
                           "depends on the thread index", call->callee->name,
                           call->callee->has_grid_sync ? "this_grid().sync" : "syncthreads");
            else if (gctrl && (has_barrier_call(s->lhs, true, &call) ||
                               has_barrier_call(s->rhs, true, &call)))
                warning_at(call->loc, W_DIVERGENT_BARRIER, "'%s' calls this_grid().sync() and is called under a "
                           "condition that depends on the block index (every thread of the "
                           "grid must reach it)", call->callee->name);
            break;
        }
    }
}

/* ---- memory limits ---- */

static void collect_callees_list(const NodeList *l, PtrVec *seen);

static Visit callee_of(const Node *n, void *seen_)
{
    PtrVec *seen = seen_;
    if (n->kind == E_CALLFN && n->callee) {
        bool dup = false;
        for (int i = 0; i < seen->len && !dup; i++)
            dup = seen->items[i] == n->callee;
        if (!dup) {
            vec_push(seen, n->callee);
            collect_callees_list(&n->callee->def->body, seen);
        }
    }
    return VISIT_CHILDREN;
}

/* Every device function called from the statements of l, directly or not. */
static void collect_callees_list(const NodeList *l, PtrVec *seen)
{
    for (int i = 0; i < l->len; i++)
        node_walk(l->items[i], callee_of, seen);
}

/* The bytes of a local or shared array; INT64_MAX where that does not fit
 * in 64 bits (cuda.shared.array(0x7fffffffffffffff, float32): the product
 * overflowed, to a size under the limit, and cc refused the C array). */
static int64_t array_bytes(const Var *v)
{
    int64_t n = ty_size(v->type->elem);
    for (int i = 0; i < v->type->ndim; i++) {
        if (v->shape[i] != 0 && n > INT64_MAX / v->shape[i])
            return INT64_MAX;
        n *= v->shape[i];
    }
    return n;
}

static const char *bytes_text(int64_t n)
{
    return n == INT64_MAX ? arena_printf("more than %lld bytes", (long long)INT64_MAX)
                          : arena_printf("%lld bytes", (long long)n);
}

static void check_memory(Func *f)
{
    for (int i = 0; i < f->nlocals; i++) {
        Var *v = f->locals[i];
        if (v->kind == VAR_LOCALARRAY && array_bytes(v) > LOCAL_LIMIT)
            error_at(v->loc, "local array '%s' takes %s per thread; the limit is %d",
                     v->name, bytes_text(array_bytes(v)), LOCAL_LIMIT);
    }
    if (!f->is_kernel)
        return;
    PtrVec funcs = {0};
    vec_push(&funcs, f);
    collect_callees_list(&f->def->body, &funcs);
    int64_t total = 0;
    for (int j = 0; j < funcs.len; j++) {
        Func *g = funcs.items[j];
        for (int i = 0; i < g->nlocals; i++) {
            Var *v = g->locals[i];
            if (v->kind != VAR_SHARED)
                continue;
            int64_t bytes = array_bytes(v);   /* total <= SHARED_LIMIT: no overflow */
            total = bytes > INT64_MAX - total ? INT64_MAX : total + bytes;
            if (total > SHARED_LIMIT) {
                error_at(v->loc, "static shared memory of kernel '%s' reaches %s "
                         "with '%s'; the limit is %d", f->name, bytes_text(total), v->name,
                         SHARED_LIMIT);
                return;
            }
        }
    }
}

void check_program(Program *p, const Options *opt)
{
    (void)opt;
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        if (f->type_failed)
            continue;
        Taint t = {0}, g = {.grid = true};
        do {
            t.changed = false;
            propagate(&t, &f->def->body, false);
        } while (t.changed);
        if (f->has_grid_sync)
            do {
                g.changed = false;
                propagate(&g, &f->def->body, false);
            } while (g.changed);
        check_barriers(&t, f->has_grid_sync ? &g : NULL, &f->def->body, false, false);
        check_memory(f);
        if (f->is_kernel && !f->c_named && f->cname && strcmp(f->cname, f->name) == 0 &&
            !c_name_plain(f->name))
            warning_at(f->def->loc, W_LAUNCHER_NAME, "kernel '%s' is launched from C as '%s': C, CUDA or kernc "
                       "reserve the name '%s'", f->name, c_ident(f->name), f->name);
    }
}
