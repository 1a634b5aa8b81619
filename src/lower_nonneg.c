/*
 * lower_nonneg.c - the non-negative integer locals of a kernel for the CPU
 * lowering (CpuFunc.local_nonneg), and cpu_nonneg, which lower_cpu.c and
 * emit_cpu.c ask of an index.  Split from lower_cpu.c for size: one
 * fixed-point walk of the kernel's typed tree, reading it only.
 */
#include "lower_cpu.h"

/* An index that can never be negative needs no krt_wrap_index.  No
 * arithmetic is trusted (it could wrap); widening conversions are. */

static int nn_bits(const Type *t)
{
    return ty_size(t) * 8;
}

bool cpu_nonneg(const CpuFunc *cf, const Node *n)
{
    if (!n || !n->type || !t_int(n->type))
        return false;
    switch (n->kind) {
    case E_CONST:
        return t_unsigned(n->type) || (int64_t)n->ival >= 0;
    case E_CAST: {
        const Type *from = n->lhs ? n->lhs->type : NULL;
        if (!from || !t_int(from))
            return false;
        if (nn_bits(n->type) < nn_bits(from) ||
            (t_unsigned(from) && t_signed(n->type) && nn_bits(n->type) == nn_bits(from)))
            return false;   /* may truncate or wrap */
        return t_unsigned(from) ? nn_bits(n->type) > nn_bits(from) || t_unsigned(n->type)
                                : cpu_nonneg(cf, n->lhs);
    }
    case E_VAR: {
        const Var *v = n->var;
        const Func *f = cf ? cf->fn : NULL;
        return f && cf->local_nonneg && v && v->kind != VAR_PARAM && v->index >= 0 &&
               v->index < f->nlocals && f->locals[v->index] == v && cf->local_nonneg[v->index];
    }
    case E_BINOP: {
        /* Python's % takes the divisor's sign; // of a non-negative
         * number by a positive one and & with a non-negative one cannot be
         * negative either */
        int64_t d;
        const Node *r = tree_strip_casts(n->rhs);
        bool pos = r && r->kind == E_CONST && t_int(r->type) &&
                   (t_unsigned(r->type) ? r->ival != 0 : (d = (int64_t)r->ival) > 0);
        if (n->op == OP_MOD)
            return pos;
        if (n->op == OP_FLOORDIV)
            return pos && cpu_nonneg(cf, n->lhs);
        if (n->op == OP_BITAND)
            return cpu_nonneg(cf, n->lhs) || cpu_nonneg(cf, n->rhs);
        return false;
    }
    case E_TUPLEGET: {
        const Node *g = tree_strip_casts(n->lhs);
        return g && g->kind == E_API && (api_id(g->api) == API_GRID || api_id(g->api) == API_GRIDSIZE);
    }
    case E_API:
        switch (api_id(n->api)) {
        case API_TID_X: case API_TID_Y: case API_TID_Z: case API_BID_X: case API_BID_Y:
        case API_BID_Z: case API_BDIM_X: case API_BDIM_Y: case API_BDIM_Z: case API_GDIM_X:
        case API_GDIM_Y: case API_GDIM_Z: case API_GRID: case API_GRIDSIZE: case API_LANEID:
        case API_WARPSIZE:
            return true;
        default:
            return false;
        }
    default:
        return false;
    }
}

typedef struct NonNeg {
    CpuFunc *cf;
    bool changed;
} NonNeg;

static void nn_kill(NonNeg *N, const Var *v)
{
    const Func *f = N->cf->fn;
    if (v && v->kind != VAR_PARAM && v->index >= 0 && v->index < f->nlocals &&
        f->locals[v->index] == v && N->cf->local_nonneg[v->index]) {
        N->cf->local_nonneg[v->index] = false;
        N->changed = true;
    }
}

static Visit nn_defs(const Node *n, void *ctx);

/* Does statement n assign variable ctx (nn_defs's definitions)? */
static Visit assigns_var(const Node *n, void *ctx)
{
    const Var *v = ctx;
    switch (n->kind) {
    case S_ASSIGN:
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_VAR && t->var == v)
                return VISIT_STOP;
            if (t->kind == E_TUPLE)
                for (int k = 0; k < t->args.len; k++)
                    if (t->args.items[k]->kind == E_VAR && t->args.items[k]->var == v)
                        return VISIT_STOP;
        }
        return VISIT_CHILDREN;
    case S_FORRANGE:
        return n->var == v ? VISIT_STOP : VISIT_CHILDREN;
    case E_LET:
        return n->var == v ? VISIT_STOP : VISIT_CHILDREN;
    case S_WARPOP:
        return n->lhs && n->lhs->kind == E_VAR && n->lhs->var == v ? VISIT_STOP : VISIT_CHILDREN;
    case S_BARRIER:
        return n->rhs && n->rhs->kind == E_VAR && n->rhs->var == v ? VISIT_STOP : VISIT_CHILDREN;
    default:
        return VISIT_CHILDREN;
    }
}

/* `while v < a.size: ... v += e` with e >= 0 (a grid-stride loop kept
 * inside each thread): the body's first assignment of v, when it is that
 * step at the body's top level, adds e to a v still below an array's
 * length, so (for arrays of fewer than 2**62 elements) it cannot wrap and
 * v stays non-negative; the step, or NULL. */
static const Node *while_step(const CpuFunc *cf, const Node *w)
{
    const Node *c = w->cond;
    if (!c || c->kind != E_COMPARE || c->args.len != 2 || (c->ops[0] != OP_LT && c->ops[0] != OP_LE))
        return NULL;
    const Node *x = c->args.items[0], *lim = tree_strip_casts(c->args.items[1]);
    if (x->kind != E_VAR || !x->var || !lim || lim->kind != E_SHAPE)
        return NULL;
    for (int i = 0; i < w->body.len; i++) {
        const Node *s = w->body.items[i];
        if (!node_walk(s, assigns_var, (void *)x->var))
            continue;
        const Node *r = s->kind == S_ASSIGN && s->args.len == 1 && s->args.items[0]->kind == E_VAR ? s->rhs : NULL;
        if (!r || r->kind != E_BINOP || r->op != OP_ADD)
            return NULL;
        if (r->lhs->kind == E_VAR && r->lhs->var == x->var && cpu_nonneg(cf, r->rhs))
            return s;
        if (r->rhs->kind == E_VAR && r->rhs->var == x->var && cpu_nonneg(cf, r->lhs))
            return s;
        return NULL;
    }
    return NULL;
}

static Visit nn_defs(const Node *n, void *ctx)
{
    NonNeg *N = ctx;
    int64_t step;
    switch (n->kind) {
    case S_WHILE: {
        const Node *g = while_step(N->cf, n);
        if (!g)
            break;
        node_walk(n->cond, nn_defs, N);
        for (int i = 0; i < n->body.len; i++)
            node_walk(n->body.items[i] == g ? g->rhs : n->body.items[i], nn_defs, N);
        for (int i = 0; i < n->orelse.len; i++)
            node_walk(n->orelse.items[i], nn_defs, N);
        return VISIT_SKIP;
    }
    case S_ASSIGN:
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_VAR) {
                if (!cpu_nonneg(N->cf, n->rhs))
                    nn_kill(N, t->var);
            } else if (t->kind == E_TUPLE) {
                for (int k = 0; k < t->args.len; k++)
                    if (t->args.items[k]->kind == E_VAR)
                        nn_kill(N, t->args.items[k]->var);
            }
        }
        break;
    case S_AUGASSIGN:
        if (n->lhs && n->lhs->kind == E_VAR)
            nn_kill(N, n->lhs->var);
        break;
    case S_FORRANGE:
        nn_kill(N, n->it);
        nn_kill(N, n->stop);
        nn_kill(N, n->step);
        /* the variable takes the iterator's values below stop only */
        /* (a step of 0 ends the thread before the loop) */
        if (!(n->args.len > 0 && (n->args.len == 1 || cpu_nonneg(N->cf, n->args.items[0])) &&
              (n->args.len < 3 ? true
                               : range_step_known(n, &step) ? step > 0
                                                            : cpu_nonneg(N->cf, n->args.items[2]))))
            nn_kill(N, n->var);
        break;
    case E_LET:
        nn_kill(N, n->var);
        break;
    case S_WARPOP:
        if (n->lhs && n->lhs->kind == E_VAR)
            nn_kill(N, n->lhs->var);
        break;
    case S_BARRIER:
        if (n->rhs && n->rhs->kind == E_VAR)
            nn_kill(N, n->rhs->var);
        break;
    default:
        break;
    }
    return VISIT_CHILDREN;
}

void cpu_find_nonneg(CpuFunc *cf)
{
    const Func *f = cf->fn;
    cf->local_nonneg = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < f->nlocals; i++) {
        const Var *v = f->locals[i];
        cf->local_nonneg[i] = (v->kind == VAR_LOCAL || v->kind == VAR_HIDDEN) && v->type &&
                              t_int(v->type);
    }
    NonNeg N = {cf, false};
    do {
        N.changed = false;
        for (int i = 0; i < f->def->body.len; i++)
            node_walk(f->def->body.items[i], nn_defs, &N);
    } while (N.changed);
}
