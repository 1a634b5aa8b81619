/*
 * emit_cpu.c - the CPU version of every kernel, for kernc's CPU backend.
 *
 * The CPU version of a kernel runs every thread of one block per call
 * (`NAME__cpu(block, args)`; the runtime runs blocks in parallel).  Threads
 * are emulated by loop fission at barriers, as MCUDA and PoCL do, rather
 * than with fibers: no stacks to allocate or switch, the thread loops are
 * plain C loops the compiler can vectorise, and a kernel without a barrier
 * pays nothing -- its body is simply one loop over the block's threads with
 * ordinary C locals.  A kernel with barriers is cut at each syncthreads()
 * into "regions", each its own loop over the threads; whatever must survive
 * from one region to the next (every local variable) lives in a per-thread
 * frame struct, shared arrays in a per-block struct.  Control flow that
 * contains a barrier becomes block-level control flow: its condition is
 * evaluated per thread in a region and the block follows it (CUDA requires
 * such conditions to be uniform); `break`, `continue` and `return` that
 * leave a region set the thread's state (KRT_BREAK(depth), KRT_CONTINUE,
 * KRT_RETURNED) and later regions skip it until the enclosing block-level
 * loop resets it.
 *
 * Block-level control flow is predicated, so that it also holds for
 * conditions that differ between threads: an `if` marks the threads whose
 * condition is false KRT_MASKED(depth) while the others run the branch
 * (and swaps the two sets for `else`); a loop runs while any thread
 * stays in it.  Warp-collective operations (shfl, votes, match,
 * activemask, syncwarp) are cuts too: the running threads store their
 * operands in frame slots, then each warp of 32 consecutive threads
 * computes the results over the lanes that reached the operation -- the
 * lockstep a GPU warp gives -- and syncthreads_count/and/or reduce the
 * predicate over the block between two regions.  A device function that
 * synchronises is inlined into the kernel's regions (inline_call); the
 * shared arrays of one that does not live in the kernel's per-block struct
 * too, reached through hidden pointer arguments (dsh_funcs), and a
 * kernel with a grid sync (cuda.cg.this_grid().sync()) becomes resumable:
 * it returns at each grid sync and the runtime calls it again once every
 * block has stopped there (emit_cpu_kernel).  With debug=True (or -g)
 * every array index is checked: the CPU code fails the launch through
 * krt_cpu_fail and sends the access to a scratch sink, the CUDA code
 * prints the same message and traps.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* CPU functions                                                       */
/* ------------------------------------------------------------------ */

void emit_cpu_devfunc(Emitter *E, Func *f)
{
    func_begin(E, f, MODE_CPU);
    StrBuf body = {0};
    func_body(E, f, &body);
    bool nonvoid = func_returns_value(f);
    if (E->cpu_failed) {
        vec_push(&E->cpu_failed_funcs, f);
        sb_free(&body);
        if (E->c_target)
            error_at(E->cpu_fail_loc, "%s", E->cpu_fail_msg);
        return;
    }
    E->indent = 0;
    /* its shared arrays, one instance per block (see dsh_funcs) */
    StrBuf lead = {0};
    sb_puts(&lead, "const krt_cpu_block *krt_b, krt_dim3 krt_tid");
    PtrVec d = dsh_funcs(f);
    if (func_has_shared(f)) {
        outf(E, "struct %s__dshared {", fn_cname(f));
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (v->kind == VAR_SHARED)
                outf(E, "    %s %s%s;", t_c(v->type->elem), v->cname, array_dims(v));
        }
        outf(E, "};");
        outf(E, "%s", "");
    }
    for (int i = 0; i < d.len; i++)
        sb_printf(&lead, ", struct %s__dshared *krt_dsh_%s", fn_cname(d.items[i]), fn_cname(d.items[i]));
    emit_lineno(E, f->def->loc);
    outf(E, "static inline KRT_MAYBE_UNUSED %s %s__cpu(%s)", nonvoid ? t_c(f->ret) : "void", fn_cname(f),
         param_list(f, sb_take(&lead)));
    outf(E, "{");
    E->indent = 1;
    outf(E, "(void)krt_b;");
    outf(E, "(void)krt_tid;");
    for (int i = 0; i < d.len; i++)
        outf(E, "(void)krt_dsh_%s;", fn_cname(d.items[i]));
    func_close(E, f, &body);
}

/* A region: one loop over the threads that are still running. */
static void region_begin(Emitter *E, bool guard)
{
    outf(E, "KRT_FOR_EACH_THREAD_T(krt_b) {");
    E->indent++;
    outf(E, "krt_f = &krt_fr[krt_t];");
    if (E->debug) {
        outf(E, "if (*krt_b->error != KRT_OK)");
        outf(E, "    return;");
    }
    if (guard) {
        outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
        outf(E, "    continue;");
    }
    E->thread_loop = true;
    E->exit_label = ++E->nlabels;
    E->exit_used = false;
    E->cloops = 0;
}

static void region_end(Emitter *E)
{
    if (E->exit_used) {
        E->indent--;
        outf(E, "krt_skip%d:;", E->exit_label);
        E->indent++;
    }
    E->indent--;
    outf(E, "}");
    E->thread_loop = false;
}

static bool stmt_is_empty(const Node *s)
{
    return s->kind == S_NOP || s->kind == S_PASS || s->kind == S_ARRAYDECL;
}

static void emit_block_stmt(Emitter *E, Node *s);

/* A statement list at block level: runs of barrier-free statements become
 * regions, statements holding a barrier become block-level code. */
static void emit_block_list(Emitter *E, NodeList *l)
{
    int i = 0;
    while (i < l->len) {
        if (has_barrier(l->items[i])) {
            emit_block_stmt(E, l->items[i]);
            i++;
            continue;
        }
        int j = i;
        bool any = false;
        while (j < l->len && !has_barrier(l->items[j]))
            any |= !stmt_is_empty(l->items[j++]);
        if (any) {
            region_begin(E, true);
            for (int k = i; k < j; k++)
                emit_stmt(E, l->items[k]);
            region_end(E);
        }
        i = j;
    }
}

/* Block-level loop around `body`: cond_fn prints, inside a region, the
 * test that keeps a thread in the loop. */
static void emit_block_loop(Emitter *E, Node *s, const char *cond, const char *enter,
                            const char *next)
{
    int d = ++E->bloop;
    emit_lineno(E, s->loc);
    outf(E, "for (;;) {");
    E->indent++;
    outf(E, "krt_go = 0;");
    E->used_go = true;
    region_begin(E, false);
    if (!next) {   /* while: a thread that continued is running again */
        outf(E, "if (krt_f->krt_state == KRT_CONTINUE(%d))", d);
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
    }
    outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
    outf(E, "    continue;");
    emit_lineno(E, s->loc);
    outf(E, "if (%s) {", cond);
    E->indent++;
    if (enter)
        outf(E, "%s", enter);
    outf(E, "krt_go = 1;");
    E->indent--;
    outf(E, "} else {");
    outf(E, "    krt_f->krt_state = KRT_BREAK(%d);", d);
    outf(E, "}");
    region_end(E);
    outf(E, "if (!krt_go)");
    outf(E, "    break;");
    emit_block_list(E, &s->body);
    if (next) {
        region_begin(E, false);
        outf(E, "if (krt_f->krt_state == KRT_CONTINUE(%d))", d);
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
        outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
        outf(E, "    continue;");
        outf(E, "%s", next);
        region_end(E);
    }
    E->indent--;
    outf(E, "}");
    region_begin(E, false);
    outf(E, "if (krt_f->krt_state == KRT_BREAK(%d))", d);
    outf(E, "    krt_f->krt_state = KRT_RUNNING;");
    region_end(E);
    E->bloop--;
}

/* A block-level int of the kernel's CPU function (not per thread). */
static const char *new_bvar(Emitter *E)
{
    /* a cooperative kernel returns at grid syncs: its block-level state
     * lives in the block's shared struct, which survives until it resumes */
    if (E->coop) {
        E->used_s = true;
        return arena_printf("krt_s->krt_br[%d]", E->nbvars++);
    }
    return arena_printf("krt_br%d", E->nbvars++);
}

/* syncthreads_count/and/or(pred): every running thread adds its predicate
 * in one region, the block's result is handed out in the next. */
static void emit_block_reduce(Emitter *E, Node *s, ApiId ea)
{
    E->used_red = true;
    outf(E, "krt_red = 0;");
    outf(E, "krt_nred = 0;");
    region_begin(E, true);
    emit_lineno(E, s->loc);
    outf(E, "krt_red += (%s) != 0;", s->lhs ? ex(E, s->lhs) : "1");
    outf(E, "krt_nred++;");
    region_end(E);
    if (!s->rhs)
        return;
    const char *r = ea == API_SYNCTHREADS_COUNT ? "(int32_t)krt_red"
                    : ea == API_SYNCTHREADS_AND ? "(int32_t)(krt_red == krt_nred)" : "(int32_t)(krt_red != 0)";
    region_begin(E, true);
    outf(E, "%s = %s;", ex(E, s->rhs), conv(r, ty_int32, s->rhs->type));
    region_end(E);
}

/* A warp-collective operation on the CPU: the running threads store their
 * operands in frame slots (one region), then each warp of 32 consecutive
 * threads (the last one may be partial) computes the results over the
 * lanes that reached the operation -- the "active" lanes: those still
 * running, not returned and not masked by a thread-dependent branch --
 * as the hardware does in lockstep.  Where CUDA leaves a result undefined
 * (a shuffle from an inactive lane, or from a lane outside the mask, or
 * past the end of a partial warp) a lane gets its own value, as it does
 * for a source outside the warp. */
void emit_warpop_cpu(Emitter *E, Node *s)
{
    ApiId ea = api_id(s->api);
    if (ea == API_SYNCWARP) {
        /* the cut itself is the synchronisation: every lane has finished
         * the region before */
        outf(E, "/* cuda.syncwarp(): the lanes of each warp have all reached this point */");
        return;
    }
    if (ea == API_NONE || !api_id_has(ea, AF_WARP)) {
        error_at(s->loc, "%s is not a warp operation kernc knows", s->api ? s->api->path : "?");
        return;
    }
    int k = E->nwarp++;
    Node *mask = s->args.len > 0 ? s->args.items[0] : NULL;
    Node *val = s->args.len > 1 ? s->args.items[1] : NULL;
    Node *arg = s->args.len > 2 ? s->args.items[2] : NULL;
    const char *M = arena_printf("krt_warp%d_mask", k), *V = arena_printf("krt_warp%d_val", k),
               *A = arena_printf("krt_warp%d_arg", k);
    sb_printf(&E->frame_extra, "    uint32_t %s;\n", M);
    if (val)
        sb_printf(&E->frame_extra, "    %s %s;\n", t_c(val->type), V);
    if (arg)
        sb_printf(&E->frame_extra, "    int64_t %s;\n", A);
    E->used_warp = true;

    region_begin(E, true);
    emit_lineno(E, s->loc);
    outf(E, "krt_f->%s = %s;", M, mask ? arena_printf("(uint32_t)%s", ex(E, mask)) : "0xffffffffu");
    if (val)
        outf(E, "krt_f->%s = %s;", V, ex(E, val));
    if (arg)
        outf(E, "krt_f->%s = (int64_t)%s;", A, ex(E, arg));
    region_end(E);

    bool vote = ea == API_ALL_SYNC || ea == API_ANY_SYNC || ea == API_EQ_SYNC || ea == API_BALLOT_SYNC;
    outf(E, "for (krt_w = 0; krt_w < krt_nt; krt_w += 32) {");
    E->indent++;
    outf(E, "krt_wn = krt_nt - krt_w < 32 ? krt_nt - krt_w : 32;");
    outf(E, "krt_act = 0;");
    if (vote) {
        outf(E, "krt_bal = 0;");
        E->used_bal = true;
    }
    outf(E, "for (krt_l = 0; krt_l < krt_wn; krt_l++) {");
    outf(E, "    if (krt_fr[krt_w + krt_l].krt_state != KRT_RUNNING)");
    outf(E, "        continue;");
    outf(E, "    krt_act |= 1u << krt_l;");
    if (vote)
        outf(E, "    krt_bal |= (uint32_t)(krt_fr[krt_w + krt_l].%s != 0) << krt_l;", V);
    outf(E, "}");
    outf(E, "for (krt_l = 0; krt_l < krt_wn; krt_l++) {");
    E->indent++;
    outf(E, "krt_f = &krt_fr[krt_w + krt_l];");
    outf(E, "if (!(krt_act >> krt_l & 1u))");
    outf(E, "    continue;");
    const char *part = arena_printf("(krt_act & krt_f->%s)", M);
    const char *res = NULL;
    const Type *rt = ty_uint32;
    switch (ea) {
    case API_SHFL_SYNC: case API_SHFL_UP_SYNC: case API_SHFL_DOWN_SYNC: case API_SHFL_XOR_SYNC: {
        /* PTX shfl.sync with numba's clamp values: idx uses the low 5 bits
         * of the lane; up is valid from lane 0, down and xor up to lane 31 */
        const char *src = ea == API_SHFL_SYNC ? "(int64_t)(krt_f->%s & 31)"
                          : ea == API_SHFL_UP_SYNC ? "(int64_t)krt_l - (int64_t)(uint32_t)krt_f->%s"
                          : ea == API_SHFL_DOWN_SYNC ? "(int64_t)krt_l + (int64_t)(uint32_t)krt_f->%s"
                                               : "(int64_t)(krt_l ^ (uint32_t)krt_f->%s)";
        E->used_src = true;
        outf(E, "krt_src = %s;", arena_printf(src, A));
        outf(E, "if (krt_src < 0 || krt_src >= (int64_t)krt_wn || !(%s >> krt_src & 1u))", part);
        outf(E, "    krt_src = krt_l;");
        res = arena_printf("krt_fr[krt_w + krt_src].%s", V);
        rt = val->type;
        break;
    }
    case API_ALL_SYNC:
        res = arena_printf("((%s & ~krt_bal) == 0)", part);
        rt = ty_bool;
        break;
    case API_ANY_SYNC:
        res = arena_printf("((%s & krt_bal) != 0)", part);
        rt = ty_bool;
        break;
    case API_EQ_SYNC:
        res = arena_printf("((%s & krt_bal) == 0 || (%s & krt_bal) == %s)", part, part, part);
        rt = ty_bool;
        break;
    case API_BALLOT_SYNC:
        res = arena_printf("(%s & krt_bal)", part);
        break;
    case API_MATCH_ANY_SYNC: case API_MATCH_ALL_SYNC:
        /* lanes of the mask holding the same bits as this one */
        E->used_bal = E->used_src = true;
        outf(E, "krt_bal = 0;");
        outf(E, "for (krt_src = 0; krt_src < (int64_t)krt_wn; krt_src++)");
        outf(E, "    if ((%s >> krt_src & 1u) &&", part);
        outf(E, "        memcmp(&krt_fr[krt_w + krt_src].%s, &krt_f->%s, sizeof krt_f->%s) == 0)", V, V, V);
        outf(E, "        krt_bal |= 1u << krt_src;");
        if (ea == API_MATCH_ANY_SYNC) {
            res = "krt_bal";
        } else {
            const Type *tt = s->lhs ? s->lhs->type : NULL;
            if (tt && tt->kind == TY_TUPLE && tt->nelems == 2)
                res = arena_printf("%s_make(%s, %s)", tuple_cname(tt),
                                   conv(arena_printf("(krt_bal == %s ? %s : 0u)", part, part), ty_uint32, tt->elems[0]),
                                   conv(arena_printf("(krt_bal == %s)", part), ty_bool, tt->elems[1]));
            rt = tt;
        }
        break;
    case API_ACTIVEMASK:
        res = "krt_act";
        break;
    case API_LANEMASK_LT:
        res = "((1u << krt_l) - 1u)";
        break;
    default:
        break;
    }
    if (res && s->lhs)
        outf(E, "%s = %s;", ex(E, s->lhs), unparen(conv(res, rt, s->lhs->type)));
    else if (res)
        outf(E, "(void)%s;", res);
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "}");
}

/* ---- Device functions that synchronise, inlined into a CPU kernel ----
 * A callee holding a barrier or a warp operation cannot be a C function
 * that runs one thread: its barriers must cut the caller's thread loops.
 * So its body is emitted in place, at block level, with the caller's
 * region structure: its parameters, locals and result become frame fields
 * (NAME__param, NAME__local: unique, as C names of functions are; a
 * callee's fields are shared by its call sites, which are never active at
 * once since sema refuses recursion), its shared arrays members of the
 * kernel's shared struct.  A thread that returns leaves the callee as a
 * `break` leaves a loop: KRT_BREAK(depth) until the end of the inlined
 * body.  The call itself is hoisted out of its statement: the arguments
 * are evaluated in a region, the body follows, then the statement runs
 * with the call replaced by its result.  That keeps Python's order as long
 * as nothing evaluated before the call in the statement can see what the
 * callee does (an array read, another call, an atomic, a draw) and the
 * call is not under `and`/`or`/`if-else`; elsewhere a clear error. */

typedef struct SplitSearch {
    Node *call;            /* the first such call, in evaluation order */
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
    if (n->kind == E_INDEX || n->kind == E_CALLFN)
        return true;
    if (n->kind != E_API || !n->api)
        return false;
    return api_has(n->api, AF_SIDE_EFFECTS | AF_WARP) || !n->type || n->type->kind == TY_VOID;
}

/* Python's evaluation order: operands left to right, a call's arguments
 * before the call, `and`/`or` and if-else evaluate some operands only. */
static void split_search(Node *n, bool cond, SplitSearch *S)
{
    if (!n || S->call)
        return;
    bool before = S->unsafe;
    if (n->kind == E_BOOLOP) {
        split_search(n->lhs, cond, S);
        split_search(n->rhs, true, S);
    } else if (n->kind == E_IFEXP) {
        split_search(n->cond, cond, S);
        split_search(n->lhs, true, S);
        split_search(n->rhs, true, S);
    } else {
        split_search(n->lhs, cond, S);
        for (int i = 0; i < n->args.len; i++)
            split_search(n->args.items[i], cond, S);
        split_search(n->rhs, cond, S);
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
static void stmt_search(Node *s, SplitSearch *S)
{
    switch (s->kind) {
    case S_ASSIGN:
        split_search(s->rhs, false, S);   /* Python: the value, then the targets */
        for (int i = 0; i < s->args.len; i++)
            split_search(s->args.items[i], false, S);
        break;
    case S_EXPR: case S_RETURN:
        split_search(s->lhs, false, S);
        break;
    case S_IF:
        split_search(s->cond, false, S);
        break;
    case S_FORRANGE: case S_PRINT: case S_WARPOP:
        for (int i = 0; i < s->args.len; i++)
            split_search(s->args.items[i], false, S);
        break;
    case S_ASSERT:
        split_search(s->cond, false, S);
        split_search(s->lhs, false, S);
        break;
    case S_BARRIER:
        split_search(s->lhs, false, S);
        break;
    default:
        break;
    }
}

/* Inline call c (see above); returns the frame field of its result, NULL
 * for a function without one. */
const char *inline_call(Emitter *E, Node *c)
{
    Func *g = c->callee;
    const char *gname = fn_cname(g);
    bool nonvoid = g->ret && g->ret->kind != TY_VOID && g->ret->kind != TY_NONE;
    const char *ret = NULL;
    if (nonvoid) {
        ret = arena_printf("krt_ret%d", E->ncalls++);
        sb_printf(&E->frame_extra, "    %s %s;\n", t_c(g->ret), ret);
    }
    bool known = false;
    for (int i = 0; i < E->inl_funcs.len; i++)
        known |= E->inl_funcs.items[i] == g;
    if (!known) {
        vec_push(&E->inl_funcs, g);
        for (int i = 0; i < g->nparams; i++)
            sb_printf(&E->frame_extra, "    %s %s__%s;\n", t_c(g->params[i]->type), gname,
                      g->params[i]->cname);
        for (int i = 0; i < g->nlocals; i++) {
            Var *v = g->locals[i];
            switch (v->kind) {
            case VAR_LOCALARRAY:
                sb_printf(&E->frame_extra, "    %s %s__%s%s;\n", t_c(v->type->elem), gname, v->cname,
                          array_dims(v));
                break;
            case VAR_SHARED:
                sb_printf(&E->shared_extra, "    %s %s__%s%s;\n", t_c(v->type->elem), gname, v->cname,
                          array_dims(v));
                break;
            case VAR_DYNSHARED: case VAR_CONSTARRAY:
                break;
            default:
                sb_printf(&E->frame_extra, "    %s %s__%s;\n", t_c(v->type), gname, v->cname);
                break;
            }
        }
    }

    /* the arguments, in the caller's context, left to right */
    region_begin(E, true);
    emit_lineno(E, c->loc);
    for (int i = 0; i < c->args.len && i < g->nparams; i++) {
        Node *a = c->args.items[i];
        Var *p = g->params[i];
        const char *v = a->type && a->type->kind == TY_ARRAY ? array_value(E, a) : ex_as(E, a, p->type);
        outf(E, "krt_f->%s__%s = %s;", gname, p->cname, unparen(v));
    }
    if (ret)
        outf(E, "krt_f->%s = %s;", ret, zero_of(g->ret));
    region_end(E);

    /* the body, in the callee's context */
    Func *fn = E->fn;
    bool inlined = E->inlined, debug = E->debug;
    const char *inl_ret = E->inl_ret;
    int inl_depth = E->inl_depth;
    bool *pr = E->param_read, *pa = E->param_assigned, *lr = E->local_read;
    E->fn = g;
    E->inlined = true;
    E->inl_ret = ret;
    E->inl_depth = ++E->bloop;
    E->debug = g->opt.debug || (E->opt && E->opt->debug);
    E->param_read = arena_alloc(sizeof(bool) * (size_t)(g->nparams + 1));
    E->param_assigned = arena_alloc(sizeof(bool) * (size_t)(g->nparams + 1));
    E->local_read = arena_alloc(sizeof(bool) * (size_t)(g->nlocals + 1));
    for (int i = 0; i < g->nparams; i++)
        g->params[i]->index = i;
    for (int i = 0; i < g->nlocals; i++)
        g->locals[i]->index = i;
    outf(E, "/* device function %s, inlined */", g->name);
    emit_block_list(E, &g->def->body);
    region_begin(E, false);
    outf(E, "if (krt_f->krt_state == KRT_BREAK(%d))", E->inl_depth);
    outf(E, "    krt_f->krt_state = KRT_RUNNING;");
    region_end(E);
    E->bloop--;
    E->fn = fn;
    E->inlined = inlined;
    E->debug = debug;
    E->inl_ret = inl_ret;
    E->inl_depth = inl_depth;
    E->param_read = pr;
    E->param_assigned = pa;
    E->local_read = lr;
    return ret;
}

/* A statement that calls a device function that synchronises: inline the
 * first such call, then emit the statement with its result (again, for
 * the next call).  False when s has no such call. */
bool emit_split_calls(Emitter *E, Node *s)
{
    SplitSearch S = {0};
    if (s->kind == S_WHILE) {
        split_search(s->cond, false, &S);
        if (S.call)
            cpu_unsupported(E, S.call->loc, arena_printf("device function '%s' synchronises: on the "
                                                         "CPU backend it cannot be called in a while "
                                                         "condition (assign its result to a variable "
                                                         "before the loop and at the end of the body)",
                                                         S.call->callee->name));
        return S.call != NULL;
    }
    stmt_search(s, &S);
    Node *c = S.call;
    if (!c)
        return false;
    if (S.conditional || S.unsafe_before) {
        cpu_unsupported(E, c->loc, arena_printf("device function '%s' synchronises: on the CPU "
                                                "backend a call of it cannot be %s (assign its "
                                                "result to a variable first)", c->callee->name,
                                                S.conditional ? "under and/or or a conditional "
                                                                "expression"
                                                              : "evaluated after an array read or "
                                                                "another call in the same statement"));
        return true;
    }
    emit_lineno(E, s->loc);
    const char *ret = inline_call(E, c);
    if (s->kind == S_EXPR && s->lhs == c)
        return true;
    if (!ret) {
        error_at(c->loc, "internal error: the value of a function without a result");
        return true;
    }
    Var *rv = arena_alloc(sizeof *rv);
    rv->name = emit_inline_result;
    rv->cname = ret;
    rv->kind = VAR_HIDDEN;
    rv->type = c->type;
    rv->loc = c->loc;
    rv->index = -1;
    Node saved = *c;
    c->kind = E_VAR;
    c->var = rv;
    c->callee = NULL;
    c->args = (NodeList){0};
    if (has_barrier(s)) {
        emit_block_stmt(E, s);
    } else if (!stmt_is_empty(s)) {
        region_begin(E, true);
        emit_stmt(E, s);
        region_end(E);
    }
    *c = saved;
    return true;
}

static void emit_block_stmt(Emitter *E, Node *s)
{
    if (emit_split_calls(E, s))
        return;
    switch (s->kind) {
    case S_BARRIER: {
        ApiId ea = api_id(s->api);
        emit_lineno(E, s->loc);
        if (s->api && s->api->id == API_GRID_SYNC) {
            /* The block stops here and the runtime calls it again once
             * every block of the grid has stopped (see emit_cpu_kernel). */
            if (!E->coop) {
                error_at(s->loc, "internal error: a grid sync in a kernel not marked as having one");
                return;
            }
            int k = ++E->nresume;
            outf(E, "/* this_grid().sync(): every block of the grid reaches this point */");
            outf(E, "*krt_b->resume = %d;", k);
            outf(E, "return;");
            E->indent--;
            outf(E, "case %d:;", k);
            E->indent++;
            return;
        }
        if (ea == API_SYNCTHREADS_COUNT || ea == API_SYNCTHREADS_AND || ea == API_SYNCTHREADS_OR)
            emit_block_reduce(E, s, ea);
        else if (ea == API_SYNCWARP)
            outf(E, "/* cuda.syncwarp(): every thread has reached this point */");
        else
            outf(E, "/* cuda.syncthreads(): every thread has reached this point */");
        return;
    }
    case S_WARPOP:
        emit_lineno(E, s->loc);
        emit_warpop_cpu(E, s);
        return;
    case S_EXPR:
        if (s->lhs && s->lhs->kind == E_API && api_id(s->lhs->api) == API_SYNCWARP) {
            emit_lineno(E, s->loc);
            outf(E, "/* cuda.syncwarp(): the lanes of each warp have all reached this point */");
            return;
        }
        if (s->lhs && s->lhs->kind == E_API && api_id(s->lhs->api) == API_SYNCTHREADS) {
            emit_lineno(E, s->loc);
            outf(E, "/* cuda.syncthreads(): every thread has reached this point */");
            return;
        }
        break;
    case S_IF: {
        /* Predicated: threads whose condition is false wait (masked) while
         * the others run the body, then the two sets swap for the else
         * branch; a branch no thread takes is skipped. */
        int k = ++E->bif;
        bool has_else = s->orelse.len > 0;
        const char *go = new_bvar(E), *other = has_else ? new_bvar(E) : NULL;
        emit_lineno(E, s->loc);
        outf(E, "%s = 0;", go);
        if (has_else)
            outf(E, "%s = 0;", other);
        region_begin(E, true);
        emit_lineno(E, s->loc);
        outf(E, "if (%s) {", ex_cond(E, s->cond));
        outf(E, "    %s = 1;", go);
        outf(E, "} else {");
        outf(E, "    krt_f->krt_state = KRT_MASKED(%d);", k);
        if (has_else)
            outf(E, "    %s = 1;", other);
        outf(E, "}");
        region_end(E);
        outf(E, "if (%s) {", go);
        E->indent++;
        emit_block_list(E, &s->body);
        E->indent--;
        outf(E, "}");
        if (s->orelse.len > 0) {
            outf(E, "if (%s) {", other);
            E->indent++;
            region_begin(E, false);
            outf(E, "if (krt_f->krt_state == KRT_RUNNING)");
            outf(E, "    krt_f->krt_state = KRT_MASKED(%d);", k);
            outf(E, "else if (krt_f->krt_state == KRT_MASKED(%d))", k);
            outf(E, "    krt_f->krt_state = KRT_RUNNING;");
            region_end(E);
            emit_block_list(E, &s->orelse);
            E->indent--;
            outf(E, "}");
        }
        region_begin(E, false);
        outf(E, "if (krt_f->krt_state == KRT_MASKED(%d))", k);
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
        region_end(E);
        E->bif--;
        return;
    }
    case S_WHILE:
        if (s->orelse.len > 0) {
            error_at(s->loc, "while/else is not supported");
            return;
        }
        emit_block_loop(E, s, ex_cond(E, s->cond), NULL, NULL);
        return;
    case S_FORRANGE: {
        Type *vt = s->var ? s->var->type : ty_scalar[TY_INT64];
        if (!s->it || !s->stop || !s->step) {
            cpu_unsupported(E, s->loc, "a range loop without its hidden variables");
            return;
        }
        Type *it_t = s->it->type;
        const char *it = var_ref(E, s->it), *stop = var_ref(E, s->stop), *step = var_ref(E, s->step);
        emit_lineno(E, s->loc);
        region_begin(E, true);
        emit_range_init(E, s, it, stop, step, it_t);
        region_end(E);
        const char *enter = s->var ? arena_printf("%s = %s;", var_ref(E, s->var), conv(it, it_t, vt)) : NULL;
        emit_block_loop(E, s, range_cond(s, it, stop, step, it_t), enter,
                        arena_printf("%s += %s;", it, step));
        return;
    }
    default:
        break;
    }
    cpu_unsupported(E, s->loc, "a barrier or warp operation inside a device function or "
                               "an expression is not supported on the CPU backend yet");
}

static bool kernel_has_shared(const Func *f)
{
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_SHARED)
            return true;
    return false;
}

/* The CPU version of kernel f: static void NAME__cpu(block, args). */
void emit_cpu_kernel(Emitter *E, Func *f)
{
    const char *name = fn_cname(f);
    func_begin(E, f, MODE_CPU);
    E->frame = func_has_split(f);
    E->coop = E->frame && f->has_grid_sync;

    StrBuf body = {0};
    StrBuf *out = swap_out(E, &body);
    E->indent = 1;
    if (!E->frame) {
        /* One thread loop; locals are plain C locals of the loop body. */
        outf(E, "KRT_FOR_EACH_THREAD(krt_b) {");
        E->indent++;
        if (E->debug) {
            outf(E, "if (*krt_b->error != KRT_OK)");
            outf(E, "    return;");
        }
        for (int i = 0; i < f->nparams; i++) {
            Var *v = f->params[i];
            if (E->param_assigned[i])
                outf(E, "%s %s = %s;", t_c(v->type), v->cname,
                     arena_printf("krt_arg_%s", v->cname));
        }
        for (int i = 0; i < f->nlocals; i++)
            if (f->locals[i]->kind != VAR_SHARED && f->locals[i]->kind != VAR_DYNSHARED)
                decl_local(E, f->locals[i]);
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (!E->local_read[i] && v->kind != VAR_SHARED && v->kind != VAR_DYNSHARED &&
                v->kind != VAR_CONSTARRAY)
                outf(E, "(void)%s;", v->cname);
        }
        E->thread_loop = true;
        E->exit_label = 0;
        E->exit_used = false;
        emit_stmts(E, &f->def->body);
        if (E->exit_used) {
            E->indent--;
            outf(E, "krt_next:;");
            E->indent++;
        }
        E->thread_loop = false;
        E->indent--;
        outf(E, "}");
    } else {
        /* A kernel with a grid sync is resumable: it returns at each sync
         * (emit_block_stmt) and the runtime, once every block of the grid
         * has stopped there, calls it again with the sync's number; the
         * switch jumps back to just after that sync, into the block-level
         * loops and ifs if need be (case labels nested in them are plain C,
         * as in Duff's device).  Nothing else needs saving: every thread's
         * state is in its frame, the block-level flags (krt_br) are in the
         * block's shared struct, both kept alive per block by the runtime,
         * and the other block-level variables (krt_go, krt_red, the warp
         * loops' counters) are set and read between two cuts, never across
         * a sync.  No declaration lies inside the switch, so no jump skips
         * an initialisation (C++ forbids that for nvcc's compile). */
        if (E->coop) {
            outf(E, "switch (krt_rp) {");
            outf(E, "default:");
            outf(E, "    krt_cpu_fail(krt_b, KRT_EINTERNAL, \"bad resume point\");");
            outf(E, "    return;");
            outf(E, "case 0:");
        }
        /* Frames start running; assigned parameters become per-thread. */
        outf(E, "KRT_FOR_EACH_THREAD_T(krt_b) {");
        outf(E, "    krt_fr[krt_t].krt_state = KRT_RUNNING;");
        for (int i = 0; i < f->nparams; i++)
            if (E->param_assigned[i])
                outf(E, "    krt_fr[krt_t].%s = krt_arg_%s;", f->params[i]->cname, f->params[i]->cname);
        outf(E, "}");
        emit_block_list(E, &f->def->body);
        if (E->coop)
            outf(E, "}");
    }
    swap_out(E, out);
    E->indent = 0;

    if (E->cpu_failed) {
        sb_free(&body);
        func_end_cpu(E);
        if (E->c_target)
            error_at(E->cpu_fail_loc, "%s", E->cpu_fail_msg);
        else
            warning_at(E->cpu_fail_loc, "%s; kernel '%s' will run on CUDA only", E->cpu_fail_msg,
                       f->name);
        return;
    }

    /* Per-block shared arrays (with those of inlined callees, and the
     * block-level flags of a cooperative kernel) and per-thread frames. */
    if (kernel_has_shared(f) || E->shared_extra.s || (E->coop && E->nbvars > 0)) {
        outf(E, "struct %s__shared {", name);
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (v->kind == VAR_SHARED)
                outf(E, "    %s %s%s;", t_c(v->type->elem), v->cname, array_dims(v));
        }
        if (E->shared_extra.s)
            sb_puts(E->out, E->shared_extra.s);
        if (E->coop && E->nbvars > 0)
            outf(E, "    int krt_br[%d];", E->nbvars);
        outf(E, "};");
        outf(E, "%s", "");
        vec_push(&E->shared_structs, f);
    }
    if (E->frame) {
        outf(E, "struct %s__frame {", name);
        outf(E, "    int krt_state;");
        E->indent++;
        for (int i = 0; i < f->nparams; i++)
            if (E->param_assigned[i])
                outf(E, "%s;", param_decl(f->params[i]));
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (v->kind == VAR_LOCALARRAY)
                outf(E, "%s %s%s;", t_c(v->type->elem), v->cname, array_dims(v));
            else if (v->kind != VAR_SHARED && v->kind != VAR_DYNSHARED &&
                     v->kind != VAR_CONSTARRAY)
                outf(E, "%s %s;", t_c(v->type), v->cname);
        }
        E->indent--;
        if (E->frame_extra.s)
            sb_puts(E->out, E->frame_extra.s);
        outf(E, "};");
        outf(E, "%s", "");
    }

    emit_lineno(E, f->def->loc);
    outf(E, "static void %s__cpu(const krt_cpu_block *krt_b, void **krt_args)", name);
    outf(E, "{");
    E->indent = 1;
    for (int i = 0; i < f->nparams; i++) {
        Var *v = f->params[i];
        const char *c = E->param_assigned[i] ? arena_printf("krt_arg_%s", v->cname) : v->cname;
        if (v->type->kind == TY_BOOL)
            outf(E, "const bool %s = *(const uint8_t *)krt_args[%d] != 0;", c, i);
        else
            outf(E, "const %s %s = *(const %s *)krt_args[%d];", t_c(v->type), c, t_c(v->type), i);
    }
    if (E->used_s)
        outf(E, "struct %s__shared *krt_s = (struct %s__shared *)krt_b->shared;", name, name);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_DYNSHARED)
            decl_local(E, f->locals[i]);
    if (E->frame) {
        outf(E, "struct %s__frame *krt_fr = (struct %s__frame *)krt_b->frame;", name, name);
        outf(E, "struct %s__frame *krt_f;", name);
        outf(E, "unsigned krt_t;");
    }
    if (E->used_go)
        outf(E, "int krt_go;");
    if (E->used_c)
        outf(E, "int krt_c;");
    for (int i = 0; i < E->nbvars && !E->coop; i++)
        outf(E, "int krt_br%d;", i);
    if (E->coop) {
        /* where to resume; 0 (finished) unless a grid sync says otherwise */
        outf(E, "const int krt_rp = *krt_b->resume;");
    }
    if (E->used_warp) {
        outf(E, "const unsigned krt_nt = krt_cpu_nthreads(krt_b);");
        outf(E, "unsigned krt_w, krt_wn, krt_l;");
        outf(E, "uint32_t krt_act;");
        if (E->used_bal)
            outf(E, "uint32_t krt_bal;");
        if (E->used_src)
            outf(E, "int64_t krt_src;");
    }
    if (E->used_red)
        outf(E, "int64_t krt_red, krt_nred;");
    outf(E, "krt_dim3 krt_tid;");
    decl_tmps(E);
    for (int i = 0; i < f->nparams; i++)
        if (!E->param_read[i] && !E->param_assigned[i])
            outf(E, "(void)%s;", f->params[i]->cname);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_DYNSHARED && !E->local_read[i])
            outf(E, "(void)%s;", f->locals[i]->cname);
    if (E->coop)
        outf(E, "*krt_b->resume = 0;");
    if (body.s)
        sb_puts(E->out, body.s);
    sb_free(&body);
    func_end_cpu(E);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

/* ------------------------------------------------------------------ */
