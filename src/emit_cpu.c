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
 * synchronises is inlined into the kernel's regions; the shared arrays of
 * one that does not live in the kernel's per-block struct too, reached
 * through hidden pointer arguments (dsh_funcs), and a kernel with a grid
 * sync (cuda.cg.this_grid().sync()) becomes resumable: it returns at each
 * grid sync and the runtime calls it again once every
 * block has stopped there (emit_cpu_kernel).  With debug=True (or -g)
 * every array index is checked: the CPU code fails the launch through
 * krt_cpu_fail and sends the access to a scratch sink, the CUDA code
 * prints the same message and traps.
 *
 * That lowering is src/lower_cpu.c's, which builds the block-level form of
 * lower_cpu.h; this file prints it (the statements of a thread through
 * emit_expr.c's printer, which asks back through the cpu_* hooks where a
 * variable lives, what an inlined call's result is and how a thread
 * leaves its region), and prints device functions as C functions of one
 * thread.  Nothing here changes the typed tree.
 */
#include "lower_cpu.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* CPU functions                                                       */
/* ------------------------------------------------------------------ */

/* dev (issue 9): the prototype of a recursive device function, printed
 * before every function (mutual recursion calls one defined later). */
void emit_cpu_devfunc_proto(Emitter *E, Func *f)
{
    StrBuf lead = {0};
    sb_puts(&lead, "const krt_cpu_block *krt_b, krt_dim3 krt_tid");
    PtrVec d = dsh_funcs(f);
    for (int i = 0; i < d.len; i++)
        sb_printf(&lead, ", struct %s__dshared *krt_dsh_%s", fn_cname(d.items[i]), fn_cname(d.items[i]));
    outf(E, "static inline KRT_MAYBE_UNUSED %s %s__cpu(%s);", func_returns_value(f) ? t_c(f->ret) : "void",
         fn_cname(f), param_list(f, sb_take(&lead)));
}

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
                outf(E, "    %s %s%s;", t_elem(v->type->elem), v->cname, array_dims(v));
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

/* ------------------------------------------------------------------ */
/* Kernels: printing the block-level form (lower_cpu.h)                */
/* ------------------------------------------------------------------ */

/* The form holds the typed tree read-only; the expression printer takes
 * plain pointers and does not write through them either. */
static Node *tree(const Node *n)
{
    return (Node *)n;
}

/* The context of block b's statements: their function, inlined results,
 * debug checks. */
static void enter_block(Emitter *E, const CpuBlock *b)
{
    E->fn = b->ctx->fn;
    E->cpu_vars = b->ctx;
    E->inlined = b->ctx->inlined;
    E->debug = b->ctx->debug;
    E->inl_ret = b->inl ? b->inl->ret : NULL;
    E->cpu_binds = b->binds;
}

/* The index in r's cache of v, or -1. */
static int cache_index(const CpuBlock *r, const Var *v)
{
    for (int i = 0; i < r->ncache; i++)
        if (r->cache[i] == v)
            return i;
    return -1;
}

/* A variable in the kernel's CPU code, where lower_cpu put it. */
static const char *cpu_var_ref(Emitter *E, const Var *v)
{
    const CpuFunc *cf = E->cpu_vars;
    const Func *f = cf->fn;
    int i = v->index;
    CpuHome h;
    if (v->kind == VAR_PARAM) {
        if (i < 0 || i >= f->nparams || f->params[i] != v)
            die("parameter '%s' not of function '%s'", v->name, f->name);
        h = cf->param_home[i];
    } else {
        if (i < 0 || i >= f->nlocals || f->locals[i] != v)
            die("variable '%s' not of function '%s'", v->name, f->name);
        h = cf->local_home[i];
    }
    const char *c = v->cname ? v->cname : v->name;
    const char *field = cf->inlined ? arena_printf("%s__%s", fn_cname(f), c) : c;
    switch (h) {
    case CPU_HOME_C: case CPU_HOME_BLOCK:
        return c;
    case CPU_HOME_FRAME:
        /* cached in a C local of the region being printed? */
        if (E->cpu_region && cache_index(E->cpu_region, v) >= 0)
            return field;
        return arena_printf("krt_f->%s", field);
    case CPU_HOME_REMAT:
        if (E->cpu_region && cache_index(E->cpu_region, v) >= 0)
            return field;
        die("recomputed variable '%s' outside a region that computes it", v->name);
    case CPU_HOME_SHARED:
        E->used_s = true;
        return arena_printf("krt_s->%s", field);
    case CPU_HOME_DYNSHARED:
        return arena_printf("((%s *)krt_b->dyn_shared)", t_elem(v->type->elem));
    case CPU_HOME_CONST:
        return arena_printf("%s__%s_cpu", fn_cname(f), c);
    }
    die("variable '%s' has no home", v->name);
}

/* An inlined call's result, standing for the call n (NULL: n is not one). */
static const char *cpu_bound(const Emitter *E, const Node *n)
{
    for (const CpuBind *b = E->cpu_binds; b; b = b->next)
        if (b->call == n)
            return b->text ? b->text : arena_printf("krt_f->%s", b->field);
    return NULL;
}

static const char *state_name(CpuState s, int depth)
{
    switch (s) {
    case CPU_RUNNING: return "KRT_RUNNING";
    case CPU_RETURNED: return "KRT_RETURNED";
    case CPU_BREAK: return arena_printf("KRT_BREAK(%d)", depth);
    case CPU_CONTINUE: return arena_printf("KRT_CONTINUE(%d)", depth);
    case CPU_MASKED: return arena_printf("KRT_MASKED(%d)", depth);
    }
    die("bad thread state %d", (int)s);
}

/* The state a thread leaving the region by statement s gets. */
static const char *cpu_exit_state(Emitter *E, const Node *s)
{
    const CpuBlock *r = E->cpu_region;
    for (int i = 0; r && i < r->nexits; i++)
        if (r->exits[i].stmt == s)
            return state_name(r->exits[i].state, r->exits[i].depth);
    die("a thread exit the CPU lowering did not foresee (line %d)", s->loc.first_line);
}

/* A device function with shared arrays called from the kernel: its
 * krt_dsh_ member of the shared struct exists. */
static void cpu_dsh_member(Emitter *E, const Func *h)
{
    const CpuSlots *sx = &E->cpu->shared_extra;
    for (int i = 0; i < sx->len; i++)
        if (sx->items[i].dshared == h)
            return;
    die("shared arrays of '%s' not in the kernel's shared struct", h->name);
}

/* An index expression that is never negative (no krt_wrap_index). */
static bool cpu_index_nonneg(const Emitter *E, const Node *n)
{
    return E->cpu_vars && cpu_nonneg(E->cpu_vars, n);
}

const EmitCpuHooks emit_cpu_hooks = {cpu_var_ref, cpu_bound, cpu_exit_state, cpu_dsh_member,
                                     cpu_index_nonneg};

static void print_item(Emitter *E, const CpuItem *it);
static void print_list(Emitter *E, const CpuList *l);

static bool vec_contains_var(const PtrVec *l, const Var *v)
{
    for (int i = 0; i < l->len; i++)
        if (l->items[i] == v)
            return true;
    return false;
}

/* The C local caching frame variable v in region r: the frame field's name. */
static const char *cached_name(const CpuBlock *r, const Var *v)
{
    const char *c = v->cname ? v->cname : v->name;
    return r->ctx->inlined ? arena_printf("%s__%s", fn_cname(r->ctx->fn), c) : c;
}

/* The run of region r by the thread of krt_f: its frame variables in C
 * locals, its items, the frame variables it changed stored back.  set (if
 * not NULL) starts from value instead of its frame field (a fused warp
 * result, CpuBlock.fuse), which is stored too when store_set. */
static void print_region_run_skip(Emitter *E, const CpuBlock *r, const Var *set, const char *value,
                                  bool store_set, const PtrVec *skip);

static void print_region_run(Emitter *E, const CpuBlock *r, const Var *set, const char *value, bool store_set)
{
    print_region_run_skip(E, r, set, value, store_set, NULL);
}

/* An `if` whose condition the thread loop around it has made true
 * (CpuBlock.xclamp, CpuKernel.clamp_if): its body, the condition in a
 * comment. */
static void print_clamped_if(Emitter *E, const Node *stmt)
{
    Node *s = tree(stmt);
    emit_lineno(E, s->loc);
    outf(E, "/* %s: the threads the loop visits */", ex_cond(E, s->cond));
    emit_stmts(E, &s->body);
}

/* skip: cached variables declared by the caller, neither loaded nor
 * stored (CpuBlock.bar_local) */
static void print_region_run_skip(Emitter *E, const CpuBlock *r, const Var *set, const char *value,
                                  bool store_set, const PtrVec *skip)
{
    /* the frame variables it uses, in C locals for the thread's run (and
     * those it computes again from their definition) */
    E->cpu_region = r;
    for (int i = 0; i < r->ncache; i++) {
        const Var *v = r->cache[i];
        const char *name = cached_name(r, v);
        if (skip && vec_contains_var(skip, v))
            continue;
        const Node *rv = v->kind != VAR_PARAM && r->ctx->remat ? r->ctx->remat[v->index] : NULL;
        if (v == set)
            outf(E, "%s %s KRT_MAYBE_UNUSED = %s;", t_c(v->type), name, value);
        else if (rv && r->cache_load[i])
            outf(E, "%s %s KRT_MAYBE_UNUSED = %s;", t_c(v->type), name, unparen(ex(E, tree(rv))));
        else if (r->cache_load[i])
            outf(E, "%s %s KRT_MAYBE_UNUSED = krt_f->%s;", t_c(v->type), name, name);
        else
            outf(E, "%s %s KRT_MAYBE_UNUSED = %s;", t_c(v->type), name, zero_of(v->type));
    }
    E->thread_loop = true;
    E->exit_label = r->label;
    E->exit_used = false;
    E->cloops = 0;
    E->cpu_region = r;
    for (int i = 0; i < r->nitems; i++) {
        if (r->xclamp && !skip) {   /* `if tx < U`: the loop visits those threads only */
            print_clamped_if(E, r->items[i].stmt);
            continue;
        }
        print_item(E, &r->items[i]);
    }
    if (E->exit_used) {
        E->indent--;
        outf(E, "krt_skip%d:;", E->exit_label);
        E->indent++;
    }
    for (int i = 0; i < r->ncache; i++)
        if ((r->cache_store[i] || (r->cache[i] == set && store_set)) &&
            !(skip && vec_contains_var(skip, r->cache[i])))
            outf(E, "krt_f->%s = %s;", cached_name(r, r->cache[i]), cached_name(r, r->cache[i]));
}

static void print_split_points(Emitter *E, const CpuBlock *bar);
static void print_bar_range(Emitter *E, const CpuBlock *a, const CpuBlock *bar, const CpuBlock *b, int k,
                            const char *lo, const char *hi, bool *val);
static const CpuBind *split_binds(const CpuBlock *a, const CpuBlock *bar, const bool *val);

/* krt_clamp_below's base for the thread index X + c: c, or with
 * blockIdx.x * blockDim.x (X counts from the grid's start) */
static const char *clamp_base(bool grid, int64_t c)
{
    const char *base = "(int64_t)krt_b->block_idx.x * krt_b->block_dim.x";
    return grid && c ? arena_printf("%s + %lld", base, (long long)c) : grid ? base : arena_printf("%lld", (long long)c);
}

/* The bound krt_xn of a region's `if X < U` (CpuBlock.xclamp). */
static void print_xn(Emitter *E, const CpuBlock *r)
{
    outf(E, "const unsigned krt_xn = krt_clamp_below(%s, %s, krt_b->block_dim.x);",
         unparen(ex(E, tree(r->xclamp))), clamp_base(r->xclamp_base, r->xclamp_c));
}

static void print_region_loop(Emitter *E, const CpuBlock *r);

/* A region: one loop over the threads (those still running, if its first
 * item says so).  barrier (issue 10): a clamped region (xclamp) or one
 * with conditions on the thread index (bar_split) has, for a 1-D block,
 * a loop with an int counter (print_bar_range), in ranges. */
static void print_region(Emitter *E, const CpuBlock *r)
{
    enter_block(E, r);
    emit_lineno(E, r->line);
    if ((!r->xclamp && !r->bar_split.len) || r->uvars.len || E->debug) {
        print_region_loop(E, r);
        return;
    }
    outf(E, "if (krt_b->block_dim.y == 1 && krt_b->block_dim.z == 1) {");
    E->indent++;
    outf(E, "/* a 1-D block: the threads in ranges */");
    outf(E, "krt_tid.y = 0;");
    outf(E, "krt_tid.z = 0;");
    if (r->xclamp)
        print_xn(E, r);
    print_split_points(E, r);
    bool val[SPLIT_MAX];
    print_bar_range(E, r, r, NULL, 0, "0", r->xclamp ? "krt_xn" : "krt_b->block_dim.x", val);
    E->thread_loop = false;
    E->cpu_region = NULL;
    E->indent--;
    outf(E, "} else {");
    E->indent++;
    print_region_loop(E, r);
    E->indent--;
    outf(E, "}");
}

static void print_region_loop(Emitter *E, const CpuBlock *r)
{
    /* a uniform variable the threads assign: each starts from its value
     * on entry, and all end with the same one */
    if (r->uvars.len > 0) {
        outf(E, "{");
        E->indent++;
        for (int i = 0; i < r->uvars.len; i++) {
            const Var *v = r->uvars.items[i];
            outf(E, "const %s krt_in_%s = %s;", t_c(v->type), v->cname, v->cname);
        }
    }
    if (r->xclamp) {
        /* (lower_cpu's xclamp_region: no uniform variable assigned here) */
        outf(E, "{");
        E->indent++;
        print_xn(E, r);
        outf(E, "KRT_FOR_EACH_THREAD_XN(krt_b, krt_xn) {");
    } else {
        outf(E, "KRT_FOR_EACH_THREAD_T(krt_b) {");
    }
    E->indent++;
    outf(E, "krt_f = &krt_fr[krt_t];");
    for (int i = 0; i < r->uvars.len; i++) {
        const Var *v = r->uvars.items[i];
        outf(E, "%s = krt_in_%s;", v->cname, v->cname);
    }
    if (E->debug) {
        outf(E, "if (*krt_b->error != KRT_OK)");
        outf(E, "    return;");
    }
    print_region_run(E, r, NULL, NULL, false);
    E->indent--;
    outf(E, "}");
    if (r->xclamp) {
        E->indent--;
        outf(E, "}");
    }
    if (r->uvars.len > 0) {
        E->indent--;
        outf(E, "}");
    }
    E->thread_loop = false;
    E->cpu_region = NULL;
}

static const char *block_result(ApiId ea)
{
    return ea == API_SYNCTHREADS_COUNT ? "(int32_t)krt_red"
           : ea == API_SYNCTHREADS_AND ? "(int32_t)(krt_red == krt_nred)" : "(int32_t)(krt_red != 0)";
}

static void print_item(Emitter *E, const CpuItem *it)
{
    Node *s = tree(it->stmt);
    switch (it->kind) {
    case CI_STMT:
        emit_stmt(E, s);
        return;
    case CI_SKIP:
        outf(E, "if (krt_f->krt_state != KRT_RUNNING)");
        outf(E, "    continue;");
        return;
    case CI_RESET:
        outf(E, "if (krt_f->krt_state == %s)", state_name(it->state, it->depth));
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
        return;
    case CI_IF_TEST:
        emit_lineno(E, s->loc);
        outf(E, "if (%s) {", ex_cond(E, s->cond));
        outf(E, "    %s = 1;", it->go);
        outf(E, "} else {");
        outf(E, "    krt_f->krt_state = KRT_MASKED(%d);", it->depth);
        if (it->other)
            outf(E, "    %s = 1;", it->other);
        outf(E, "}");
        return;
    case CI_ELSE_SWAP:
        outf(E, "if (krt_f->krt_state == KRT_RUNNING)");
        outf(E, "    krt_f->krt_state = KRT_MASKED(%d);", it->depth);
        outf(E, "else if (krt_f->krt_state == KRT_MASKED(%d))", it->depth);
        outf(E, "    krt_f->krt_state = KRT_RUNNING;");
        return;
    case CI_LOOP_TEST: {
        const char *cond, *enter = NULL;
        if (s->kind == S_FORRANGE) {
            Type *vt = s->var ? s->var->type : ty_scalar[TY_INT64];
            Type *it_t = s->it->type;
            const char *i = var_ref(E, s->it);
            cond = range_cond(s, i, var_ref(E, s->stop), var_ref(E, s->step), it_t);
            if (s->var)
                enter = arena_printf("%s = %s;", var_ref(E, s->var), conv(i, it_t, vt));
        } else {
            cond = ex_cond(E, s->cond);
        }
        emit_lineno(E, s->loc);
        outf(E, "if (%s) {", cond);
        E->indent++;
        if (enter)
            outf(E, "%s", enter);
        outf(E, "krt_go = 1;");
        E->indent--;
        outf(E, "} else {");
        outf(E, "    krt_f->krt_state = KRT_BREAK(%d);", it->depth);
        outf(E, "}");
        return;
    }
    case CI_RANGE_INIT:
        emit_range_init(E, s, var_ref(E, s->it), var_ref(E, s->stop), var_ref(E, s->step),
                        s->it->type);
        return;
    case CI_RANGE_NEXT:
        outf(E, "%s += %s;", var_ref(E, s->it), var_ref(E, s->step));
        return;
    case CI_RED_ADD:
        emit_lineno(E, s->loc);
        outf(E, "krt_red += (%s) != 0;", s->lhs ? ex(E, s->lhs) : "1");
        outf(E, "krt_nred++;");
        return;
    case CI_RED_RESULT:
        outf(E, "%s = %s;", ex(E, s->rhs), conv(block_result(api_id(s->api)), ty_int32, s->rhs->type));
        return;
    case CI_WARP_STORE: {
        Node *mask = s->args.len > 0 ? s->args.items[0] : NULL;
        Node *val = s->args.len > 1 ? s->args.items[1] : NULL;
        Node *arg = s->args.len > 2 ? s->args.items[2] : NULL;
        int k = it->slot;
        emit_lineno(E, s->loc);
        if (!it->warp->mask_direct)
            outf(E, "krt_f->krt_warp%d_mask = %s;", k,
                 mask ? arena_printf("(uint32_t)%s", ex(E, mask)) : "0xffffffffu");
        if (val && !it->warp->val_direct)
            outf(E, "krt_f->krt_warp%d_val = %s;", k, ex(E, val));
        if (arg && !it->warp->arg_direct)
            outf(E, "krt_f->krt_warp%d_arg = (int64_t)%s;", k, ex(E, arg));
        return;
    }
    case CI_INLINE_ARGS: {
        const CpuBlock *b = it->inl;
        Func *g = b->callee;
        const char *gname = fn_cname(g);
        emit_lineno(E, s->loc);
        for (int i = 0; i < s->args.len && i < g->nparams; i++) {
            Node *a = s->args.items[i];
            Var *p = g->params[i];
            const char *v = a->type && a->type->kind == TY_ARRAY ? array_value(E, a) : ex_as(E, a, p->type);
            outf(E, "krt_f->%s__%s = %s;", gname, p->cname, unparen(v));
        }
        if (b->ret)
            outf(E, "krt_f->%s = %s;", b->ret, zero_of(g->ret));
        return;
    }
    }
    die("bad region item %d", (int)it->kind);
}

/* A warp-collective operation on the CPU, after its store region: each
 * warp of 32 consecutive threads (the last one may be partial) computes
 * the results over the lanes that reached the operation -- the "active"
 * lanes: those still running, not returned and not masked by a
 * thread-dependent branch -- as the hardware does in lockstep.  Where CUDA
 * leaves a result undefined (a shuffle from an inactive lane, or from a
 * lane outside the mask, or past the end of a partial warp) a lane gets
 * its own value, as it does for a source outside the warp. */
static void print_warp(Emitter *E, const CpuBlock *b)
{
    Node *s = tree(b->stmt);
    ApiId ea = b->ea;
    int k = b->slot;
    Node *val = s->args.len > 1 ? s->args.items[1] : NULL;
    const char *M = arena_printf("krt_warp%d_mask", k), *V = arena_printf("krt_warp%d_val", k),
               *A = arena_printf("krt_warp%d_arg", k);
    bool vote = ea == API_ALL_SYNC || ea == API_ANY_SYNC || ea == API_EQ_SYNC || ea == API_BALLOT_SYNC;
    /* operands not stored per lane: the uniform ones once, in C locals of
     * the same names; a shuffled variable from its own frame field */
    bool scope = b->mask_direct || b->arg_direct;
    if (scope) {
        outf(E, "{");
        E->indent++;
    }
    if (b->mask_direct) {
        Node *mask = s->args.len > 0 ? s->args.items[0] : NULL;
        outf(E, "const uint32_t %s KRT_MAYBE_UNUSED = %s;", M,
             mask ? arena_printf("(uint32_t)%s", ex(E, mask)) : "0xffffffffu");
        M = arena_printf("(%s)", M);
    } else {
        M = arena_printf("krt_f->%s", M);
    }
    if (b->arg_direct) {
        outf(E, "const int64_t %s = (int64_t)%s;", A, ex(E, s->args.items[2]));
    } else {
        A = arena_printf("krt_f->%s", A);
    }
    if (b->val_direct)
        V = b->val_direct->cname ? b->val_direct->cname : b->val_direct->name;
    if (b->full_shfl && b->arg_direct && s->lhs && (ea == API_SHFL_DOWN_SYNC || ea == API_SHFL_UP_SYNC)) {
        /* every lane active, a uniform delta d: down, the lanes below
         * wn - d read lane l + d and the others their own value; up, the
         * lanes from d read lane l - d -- two plain copy loops (or the
         * fused region after it, CpuBlock.fuse) */
        bool down = ea == API_SHFL_DOWN_SYNC;
        const char *lhs = ex(E, s->lhs);
        const char *from = unparen(conv(arena_printf("krt_fr[krt_w + krt_l %s (size_t)krt_src].%s",
                                                     down ? "+" : "-", V), val->type, s->lhs->type));
        const char *own = unparen(conv(arena_printf("krt_f->%s", V), val->type, s->lhs->type));
        outf(E, "krt_src = (int64_t)(uint32_t)%s;", A);
        outf(E, "for (krt_w = 0; krt_w < krt_nt; krt_w += 32) {");
        E->indent++;
        outf(E, "krt_wn = krt_nt - krt_w < 32 ? krt_nt - krt_w : 32;");
        outf(E, down ? "for (krt_l = 0; (int64_t)krt_l + krt_src < (int64_t)krt_wn; krt_l++) {"
                     : "for (krt_l = 0; krt_l < krt_wn && (int64_t)krt_l < krt_src; krt_l++) {");
        for (int half = 0; half < 2; half++) {
            const char *value = (half == 0) == down ? from : own;
            if (half == 1)
                outf(E, "for (; krt_l < krt_wn; krt_l++) {");
            E->indent++;
            outf(E, "krt_f = &krt_fr[krt_w + krt_l];");
            if (b->fuse) {
                /* the region after the shuffle, run by this lane now */
                enter_block(E, b->fuse);
                emit_lineno(E, b->fuse->line);
                print_region_run(E, b->fuse, s->lhs->var, value, b->fuse_store);
                E->thread_loop = false;
                E->cpu_region = NULL;
                enter_block(E, b);
            } else {
                outf(E, "%s = %s;", lhs, value);
            }
            E->indent--;
            outf(E, "}");
        }
        E->indent--;
        outf(E, "}");
        if (scope) {
            E->indent--;
            outf(E, "}");
        }
        return;
    }
    outf(E, "for (krt_w = 0; krt_w < krt_nt; krt_w += 32) {");
    E->indent++;
    outf(E, "krt_wn = krt_nt - krt_w < 32 ? krt_nt - krt_w : 32;");
    if (b->uniform) {
        /* no thread can have left or be masked: every lane is active */
        if (!b->full_shfl)
            outf(E, "krt_act = krt_wn == 32 ? 0xffffffffu : (1u << krt_wn) - 1u;");
        if (vote) {
            outf(E, "krt_bal = 0;");
            outf(E, "for (krt_l = 0; krt_l < krt_wn; krt_l++)");
            outf(E, "    krt_bal |= (uint32_t)(krt_fr[krt_w + krt_l].%s != 0) << krt_l;", V);
        }
    } else {
        outf(E, "krt_act = 0;");
        if (vote)
            outf(E, "krt_bal = 0;");
        outf(E, "for (krt_l = 0; krt_l < krt_wn; krt_l++) {");
        outf(E, "    if (krt_fr[krt_w + krt_l].krt_state != KRT_RUNNING)");
        outf(E, "        continue;");
        outf(E, "    krt_act |= 1u << krt_l;");
        if (vote)
            outf(E, "    krt_bal |= (uint32_t)(krt_fr[krt_w + krt_l].%s != 0) << krt_l;", V);
        outf(E, "}");
    }
    outf(E, "for (krt_l = 0; krt_l < krt_wn; krt_l++) {");
    E->indent++;
    outf(E, "krt_f = &krt_fr[krt_w + krt_l];");
    if (!b->uniform) {
        outf(E, "if (!(krt_act >> krt_l & 1u))");
        outf(E, "    continue;");
    }
    const char *part = arena_printf("(krt_act & %s)", M);
    const char *res = NULL;
    const Type *rt = ty_uint32;
    switch (ea) {
    case API_SHFL_SYNC: case API_SHFL_UP_SYNC: case API_SHFL_DOWN_SYNC: case API_SHFL_XOR_SYNC: {
        /* PTX shfl.sync with numba's clamp values: idx uses the low 5 bits
         * of the lane; up is valid from lane 0, down and xor up to lane 31 */
        const char *src = ea == API_SHFL_SYNC ? "(int64_t)(%s & 31)"
                          : ea == API_SHFL_UP_SYNC ? "(int64_t)krt_l - (int64_t)(uint32_t)%s"
                          : ea == API_SHFL_DOWN_SYNC ? "(int64_t)krt_l + (int64_t)(uint32_t)%s"
                                               : "(int64_t)(krt_l ^ (uint32_t)%s)";
        outf(E, "krt_src = %s;", arena_printf(src, A));
        if (b->full_shfl)
            /* every lane active, all in the mask: any lane of the warp */
            outf(E, "if (krt_src < 0 || krt_src >= (int64_t)krt_wn)");
        else
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
        die("%s is not a warp operation", s->api ? s->api->path : "?");
    }
    if (res && s->lhs)
        outf(E, "%s = %s;", ex(E, s->lhs), unparen(conv(res, rt, s->lhs->type)));
    else if (res)
        outf(E, "(void)%s;", res);
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "}");
    if (scope) {
        E->indent--;
        outf(E, "}");
    }
}

static void print_block(Emitter *E, const CpuBlock *b);

/* warp (issue 10): a shuffle-reduction tree (CpuBlock.tree, lower_cpu.c's
 * tree_find): the uniform loop runs once per warp, on an array of the
 * warp's values of the shuffled variable (one level of the tree:
 * krt_lanes_down_add_*, runtime/kernrt_device.h), its block-uniform
 * variables starting from their values on entry each time; the values go
 * back to the frames after the loop.  Warps share nothing without a
 * barrier, so running them one after the other is one of the orders a
 * GPU may take. */
/* The uniform variables a shuffle tree's loop t assigns (its statements
 * after the shuffle and the level's update), each once. */
static PtrVec tree_uvars(const CpuBlock *t)
{
    PtrVec uv = {0};
    for (int i = 2; i < t->body.len; i++) {
        const Node *u = t->body.items[i]->stmt;
        Var *x = u->kind == S_ASSIGN ? u->args.items[0]->var : u->lhs->var;
        if (!vec_contains_var(&uv, x))
            vec_push(&uv, x);
    }
    return uv;
}

/* The tree loop t run once for the block, recording its deltas in
 * krt_lev<slot>/krt_nlev<slot>, with the lane array's declaration and the
 * uniform variables' values on entry (krt_in_<name>) */
static void print_tree_record(Emitter *E, const CpuBlock *t, const PtrVec *uv)
{
    const CpuBlock *w = t->tree;
    Node *s = tree(t->stmt), *ws = tree(w->stmt);
    const Var *v = w->val_direct;
    const char *lev = arena_printf("krt_lev%d", w->slot), *nlev = arena_printf("krt_nlev%d", w->slot);
    const char *suf = v->type == ty_scalar[TY_FLOAT32] ? "f32" : "f64";
    outf(E, "int64_t %s[KRT_LANES_MAXLEV], %s = 0, krt_k;", lev, nlev);
    outf(E, "%s krt_lanes%d[64];   /* 32 lanes, 32 for krt_lanes_down_add_%s */", t_c(v->type), w->slot, suf);
    for (int j = 0; j < uv->len; j++) {
        Var *u = uv->items[j];
        outf(E, "const %s krt_in_%s = %s;", t_c(u->type), u->cname, var_ref(E, u));
    }
    outf(E, "while (%s) {", ex_cond(E, s->cond));
    E->indent++;
    enter_block(E, w);
    emit_lineno(E, w->line);
    outf(E, "if (%s < KRT_LANES_MAXLEV)", nlev);
    outf(E, "    %s[%s] = (int64_t)(uint32_t)%s;", lev, nlev, ex(E, ws->args.items[2]));
    outf(E, "%s++;", nlev);
    for (int i = 2; i < t->body.len; i++)
        print_block(E, t->body.items[i]);
    enter_block(E, t);
    E->indent--;
    outf(E, "}");
}

static void print_warp_tree(Emitter *E, const CpuBlock *b)
{
    const CpuBlock *w = b->tree;
    Node *s = tree(b->stmt), *ws = tree(w->stmt);
    const Var *v = w->val_direct;
    const char *V = v->cname ? v->cname : v->name;
    const char *lv = arena_printf("krt_lanes%d", w->slot);
    const char *suf = v->type == ty_scalar[TY_FLOAT32] ? "f32" : "f64";
    PtrVec uv = tree_uvars(b);
    const char *lev = arena_printf("krt_lev%d", w->slot), *nlev = arena_printf("krt_nlev%d", w->slot);
    const char *arg = ex(E, ws->args.items[2]);
    outf(E, "/* a shuffle-reduction tree: the loop runs once for the block, recording");
    outf(E, " * its deltas, then each warp runs the levels on an array of its lanes' %s */", v->name);
    outf(E, "{");
    E->indent++;
    print_tree_record(E, b, &uv);
    outf(E, "if (%s <= KRT_LANES_MAXLEV) {", nlev);
    E->indent++;
    bool t16 = v->type == ty_scalar[TY_FLOAT32];
    if (t16)
        outf(E, "const int krt_t16 = krt_lanes_is_tree16(%s, %s);", lev, nlev);
    outf(E, "for (krt_w = 0; krt_w < krt_nt; krt_w += 32) {");
    E->indent++;
    outf(E, "krt_wn = krt_nt - krt_w < 32 ? krt_nt - krt_w : 32;");
    outf(E, "krt_lanes_get_%s(%s, &krt_fr[krt_w].%s, sizeof *krt_fr, krt_wn);", suf, lv, V);
    if (t16) {
        outf(E, "if (krt_wn == 32 && krt_t16)");
        outf(E, "    krt_lanes_tree16_add_f32(%s);", lv);
        outf(E, "else");
        outf(E, "    for (krt_k = 0; krt_k < %s && krt_k < KRT_LANES_MAXLEV; krt_k++)", nlev);
        outf(E, "        krt_lanes_down_add_%s(%s, krt_wn, %s[krt_k]);", suf, lv, lev);
    } else {
        outf(E, "for (krt_k = 0; krt_k < %s && krt_k < KRT_LANES_MAXLEV; krt_k++)", nlev);
        outf(E, "    krt_lanes_down_add_%s(%s, krt_wn, %s[krt_k]);", suf, lv, lev);
    }
    outf(E, "krt_lanes_put_%s(%s, &krt_fr[krt_w].%s, sizeof *krt_fr, krt_wn);", suf, lv, V);
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "} else {");
    E->indent++;
    outf(E, "/* more levels than recorded: each warp runs the loop again */");
    outf(E, "for (krt_w = 0; krt_w < krt_nt; krt_w += 32) {");
    E->indent++;
    outf(E, "krt_wn = krt_nt - krt_w < 32 ? krt_nt - krt_w : 32;");
    outf(E, "krt_lanes_get_%s(%s, &krt_fr[krt_w].%s, sizeof *krt_fr, krt_wn);", suf, lv, V);
    for (int j = 0; j < uv.len; j++) {
        Var *t = uv.items[j];
        outf(E, "%s = krt_in_%s;", var_ref(E, t), t->cname);
    }
    outf(E, "while (%s) {", ex_cond(E, s->cond));
    E->indent++;
    enter_block(E, w);
    emit_lineno(E, w->line);
    outf(E, "krt_lanes_down_add_%s(%s, krt_wn, (int64_t)(uint32_t)%s);", suf, lv, arg);
    for (int i = 2; i < b->body.len; i++)
        print_block(E, b->body.items[i]);
    enter_block(E, b);
    E->indent--;
    outf(E, "}");
    outf(E, "krt_lanes_put_%s(%s, &krt_fr[krt_w].%s, sizeof *krt_fr, krt_wn);", suf, lv, V);
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "}");
}

/* warp (issue 10): region a, the block-uniform statements before a tree
 * (CB_UNIFORM), the tree loop t (CpuBlock.tree) and region b, warp by
 * warp in a 1-D block: each warp's lanes run a, storing the shuffled
 * variable straight into the lane array, the tree runs on it, and the
 * lanes run b from it -- no frame round trip for the tree's value (issue
 * 10's "warp operations on lane arrays").  Warps share nothing without a
 * barrier, so a then b one warp after the other is one of the orders a GPU
 * may take.  Which lists qualify: tree_fusable. */
static Visit uses_var(const Node *n, void *ctx)
{
    return n->kind == E_VAR && n->var == ctx ? VISIT_STOP : VISIT_CHILDREN;
}

/* Arithmetic on scalars, constants and argument-free API values (block
 * sizes): what a uniform statement may compute to run before region a. */
static Visit impure(const Node *n, void *ctx)
{
    (void)ctx;
    switch (n->kind) {
    case E_CONST: case E_CAST: case E_UNARY: case E_COMPARE: case E_BOOLOP: case E_BINOP:
        return VISIT_CHILDREN;
    case E_VAR:
        return n->var && n->var->type && n->var->type->kind != TY_ARRAY ? VISIT_CHILDREN : VISIT_STOP;
    case E_API:
        return n->args.len == 0 ? VISIT_SKIP : VISIT_STOP;
    default:
        return VISIT_STOP;
    }
}

static bool region_plain(const Emitter *E, const CpuBlock *r, const CpuBlock *t)
{
    if (r->kind != CB_REGION || r->nexits > 0 || r->uvars.len > 0 || r->fused ||
        r->bar_fuse || r->ctx != t->ctx || r->binds != t->binds || r->inl != t->inl || r->ctx->debug ||
        (E->opt && E->opt->racecheck))
        return false;
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].kind != CI_STMT)
            return false;
    return true;
}

/* Does region r set v, at its top level, before anything reads it? */
static bool region_sets_first(const CpuBlock *r, const Var *v)
{
    for (int i = 0; i < r->nitems; i++) {
        const Node *s = r->items[i].stmt;
        if (s->kind == S_ASSIGN && s->args.len == 1 && s->args.items[0]->kind == E_VAR &&
            s->args.items[0]->var == v && !node_walk(s->rhs, uses_var, (void *)v))
            return true;
        if (node_walk(s, uses_var, (void *)v))
            return false;
    }
    return false;
}

/* Is region r one `if` whose condition starts with `cuda.laneid == 0`
 * (and nothing else): only lane 0 of each warp runs anything in it? */
static bool region_lane0(const CpuBlock *r)
{
    if (r->nitems != 1 || r->items[0].kind != CI_STMT)
        return false;
    const Node *s = r->items[0].stmt, *c = s->kind == S_IF && s->orelse.len == 0 ? s->cond : NULL;
    while (c && c->kind == E_BOOLOP && c->op == OP_AND)
        c = c->lhs;
    if (!c || c->kind != E_COMPARE || c->args.len != 2 || c->ops[0] != OP_EQ)
        return false;
    const Node *x = c->args.items[0], *z = c->args.items[1];
    while (x->kind == E_CAST && x->lhs)
        x = x->lhs;
    return x->kind == E_API && api_id(x->api) == API_LANEID && z->kind == E_CONST && z->ival == 0 &&
           z->fval == 0;
}

/* l[i] is region a: how many blocks from i the fused loop prints (0: not
 * fusable). */
static int tree_fusable(const Emitter *E, const CpuList *l, int i)
{
    int j = i + 1;
    while (j < l->len && l->items[j]->kind == CB_UNIFORM)
        j++;
    if (j + 1 >= l->len || !l->items[j]->tree || j - i > 4)
        return 0;
    const CpuBlock *a = l->items[i], *t = l->items[j], *b = l->items[j + 1];
    if (!region_plain(E, a, t) || a->xclamp || !region_plain(E, b, t) ||
        (j + 2 < l->len && l->items[j + 2]->bar_fuse))
        return 0;
    /* the uniform statements run before a: a must not read what they set */
    for (int k = i + 1; k < j; k++) {
        const Node *u = l->items[k]->stmt;
        const Node *tg = !u ? NULL
                         : u->kind == S_ASSIGN && u->args.len == 1 ? u->args.items[0]
                         : u->kind == S_AUGASSIGN ? u->lhs : NULL;
        if (!tg || tg->kind != E_VAR || !tg->var || node_walk(u->rhs, impure, NULL))
            return 0;
        for (int m = 0; m < a->nitems; m++)
            if (node_walk(a->items[m].stmt, uses_var, (void *)tg->var))
                return 0;
    }
    return j + 2 - i;
}

/* The tree's levels on the lane array lv of warp krt_w (krt_wn lanes),
 * its deltas recorded in lev/nlev (print_tree_fused). */
static void print_tree_levels(Emitter *E, const CpuBlock *t, const char *lv, const char *suf,
                              const PtrVec *uv)
{
    const CpuBlock *w = t->tree;
    Node *s = tree(t->stmt), *ws = tree(w->stmt);
    const char *lev = arena_printf("krt_lev%d", w->slot), *nlev = arena_printf("krt_nlev%d", w->slot);
    outf(E, "if (%s <= KRT_LANES_MAXLEV) {", nlev);
    if (!strcmp(suf, "f32")) {
        outf(E, "    if (krt_wn == 32 && krt_t16)");
        outf(E, "        krt_lanes_tree16_add_f32(%s);", lv);
        outf(E, "    else");
        outf(E, "        for (krt_k = 0; krt_k < %s && krt_k < KRT_LANES_MAXLEV; krt_k++)", nlev);
        outf(E, "            krt_lanes_down_add_%s(%s, krt_wn, %s[krt_k]);", suf, lv, lev);
    } else {
        outf(E, "    for (krt_k = 0; krt_k < %s && krt_k < KRT_LANES_MAXLEV; krt_k++)", nlev);
        outf(E, "        krt_lanes_down_add_%s(%s, krt_wn, %s[krt_k]);", suf, lv, lev);
    }
    outf(E, "} else {");
    E->indent++;
    outf(E, "/* more levels than recorded: the warp runs the loop again */");
    for (int j = 0; j < uv->len; j++) {
        Var *u = uv->items[j];
        outf(E, "%s = krt_in_%s;", var_ref(E, u), u->cname);
    }
    outf(E, "while (%s) {", ex_cond(E, s->cond));
    E->indent++;
    enter_block(E, w);
    emit_lineno(E, w->line);
    outf(E, "krt_lanes_down_add_%s(%s, krt_wn, (int64_t)(uint32_t)%s);", suf, lv, ex(E, ws->args.items[2]));
    for (int i = 2; i < t->body.len; i++)
        print_block(E, t->body.items[i]);
    enter_block(E, t);
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "}");
}

/* The loop over warp krt_w's lanes from `from` (NULL: the last loop's
 * end) below `to`, krt_f and krt_tid set (a 1-D block). */
static void open_lane_loop(Emitter *E, const char *from, const char *to)
{
    outf(E, from ? "for (krt_t = %s; krt_t < %s; krt_t++) {" : "for (%s; krt_t < %s; krt_t++) {",
         from ? from : "", to);
    E->indent++;
    outf(E, "krt_tid.x = (unsigned)krt_t;");
    outf(E, "krt_f = &krt_fr[krt_t];");
}

/* The same loop over all 32 lanes of a full warp, with a fixed trip count
 * and krt_t, krt_tid and krt_f its own constants: gcc -O2 vectorises it
 * then (its cheap cost model takes no loop that needs a remainder, and a
 * store to the function's krt_tid or krt_f in the body stops it), and a
 * tree that loads the lane array as vectors finds vector stores there to
 * forward from, not 32 scalar ones. */
static void open_full_lane_loop(Emitter *E)
{
    outf(E, "for (int krt_l = 0; krt_l < 32; krt_l++) {");
    E->indent++;
    outf(E, "const size_t krt_t = krt_w + (size_t)krt_l;");
    outf(E, "const krt_dim3 krt_tid = {(unsigned)krt_w + (unsigned)krt_l, 0, 0};");
    outf(E, "struct %s__frame *const krt_f KRT_MAYBE_UNUSED = &krt_fr[krt_t];", fn_cname(E->fn));
}

/* Region a of a fused tree (print_tree_fused) for one lane in a lane
 * loop just opened: v in a C local (cache slot ka, loaded from the frame
 * when `load`), `val` the values of the region's split conditions (NULL:
 * none), v into the lane array; closes the loop. */
static void print_tree_lane_a(Emitter *E, const CpuBlock *a, const Var *v, int ka, bool load,
                              const bool *val, PtrVec *skip, const char *lane)
{
    if (ka >= 0)
        outf(E, "%s %s = %s;", t_c(v->type), cached_name(a, v),
             load ? arena_printf("krt_f->%s", cached_name(a, v)) : zero_of(v->type));
    outf(E, "{");
    E->indent++;
    E->cpu_binds = val ? split_binds(a, a, val) : a->binds;
    print_region_run_skip(E, a, NULL, NULL, false, ka >= 0 ? skip : NULL);
    E->cpu_binds = a->binds;
    E->indent--;
    outf(E, "}");
    outf(E, "%s = %s;", lane, ka >= 0 ? cached_name(a, v) : arena_printf("krt_f->%s", v->cname ? v->cname : v->name));
    E->thread_loop = false;
    E->cpu_region = NULL;
    E->indent--;
    outf(E, "}");
}

/* Region b of a fused tree for one lane in a lane loop just opened, set
 * (NULL: none) starting from the lane array (stored to its frame field
 * when store), or field (NULL: none) storing it there first; closes the
 * loop. */
static void print_tree_lane_b(Emitter *E, const CpuBlock *b, const Var *set, const char *field,
                              const char *lane, bool store)
{
    if (field)
        outf(E, "krt_f->%s = %s;", field, lane);
    outf(E, "{");
    E->indent++;
    print_region_run(E, b, set, lane, store);
    E->indent--;
    outf(E, "}");
    E->thread_loop = false;
    E->cpu_region = NULL;
    E->indent--;
    outf(E, "}");
}

static void print_tree_fused(Emitter *E, const CpuList *l, int i, int n)
{
    const CpuBlock *a = l->items[i], *t = l->items[i + n - 2], *b = l->items[i + n - 1];
    const CpuBlock *w = t->tree;
    const Var *v = w->val_direct;
    const char *V = v->cname ? v->cname : v->name;
    const char *lv = arena_printf("krt_lanes%d", w->slot);
    const char *suf = v->type == ty_scalar[TY_FLOAT32] ? "f32" : "f64";
    const char *lev = arena_printf("krt_lev%d", w->slot), *nlev = arena_printf("krt_nlev%d", w->slot);
    const char *lane = arena_printf("%s[krt_t - krt_w]", lv);
    int ka = cache_index(a, v), kb = cache_index(b, v);
    /* does anything but a, the tree and b read v's frame field?  (refs:
     * lower_cpu.c's cache_block) */
    int *refs = v->kind == VAR_PARAM || !a->ctx->local_refs ? NULL : &a->ctx->local_refs[v->index];
    int mine = 3 + (ka >= 0) + (kb >= 0);   /* the tree's 3 (its region, the warp's 2) */
    bool load = ka >= 0 && a->cache_load[ka] && !region_sets_first(a, v);
    bool store = !refs || *refs != mine || load;
    PtrVec uv = tree_uvars(t), skip = {0};
    enter_block(E, a);
    emit_lineno(E, a->line);
    outf(E, "if (krt_b->block_dim.y == 1 && krt_b->block_dim.z == 1) {");
    E->indent++;
    outf(E, "/* a 1-D block: warp by warp, the region before the tree storing %s in the", v->name);
    outf(E, " * warp's lane array, the tree on it, the region after reading it there */");
    for (int k = i + 1; k < i + n - 2; k++)
        print_block(E, l->items[k]);
    enter_block(E, t);
    emit_lineno(E, t->line);
    print_tree_record(E, t, &uv);
    if (!strcmp(suf, "f32"))
        outf(E, "const int krt_t16 = krt_lanes_is_tree16(%s, %s);", lev, nlev);
    outf(E, "krt_tid.y = 0;");
    outf(E, "krt_tid.z = 0;");
    if (a->bar_split.len == 1)
        print_split_points(E, a);
    if (b->xclamp) {
        enter_block(E, b);
        print_xn(E, b);
        enter_block(E, t);
    }
    outf(E, "for (krt_w = 0; krt_w < krt_nt; krt_w += 32) {");
    E->indent++;
    outf(E, "krt_wn = krt_nt - krt_w < 32 ? krt_nt - krt_w : 32;");
    /* a: v in a C local of the loop, into the lane array; with one
     * condition on the thread index (CpuBlock.bar_split: `if i < n`), the
     * lanes below its point, then the others, each with its value */
    enter_block(E, a);
    if (ka >= 0)
        vec_push(&skip, (void *)v);
    const CpuSplit *sp = a->bar_split.len == 1 ? a->bar_split.items[0] : NULL;
    bool val[2] = {sp && sp->below, sp && !sp->below};   /* below the point, above */
    if (sp) {
        outf(E, "{");
        E->indent++;
        outf(E, "const size_t krt_m0 = krt_s0 < krt_w ? krt_w : krt_s0 > krt_w + krt_wn ? krt_w + krt_wn : krt_s0;");
    }
    outf(E, sp ? "if (krt_m0 == krt_w + 32) {" : "if (krt_wn == 32) {");
    E->indent++;
    open_full_lane_loop(E);
    print_tree_lane_a(E, a, v, ka, load, sp ? &val[0] : NULL, &skip, lane);
    E->indent--;
    outf(E, "} else {");
    E->indent++;
    open_lane_loop(E, "krt_w", sp ? "krt_m0" : "krt_w + krt_wn");
    print_tree_lane_a(E, a, v, ka, load, sp ? &val[0] : NULL, &skip, lane);
    if (sp) {
        open_lane_loop(E, NULL, "krt_w + krt_wn");
        print_tree_lane_a(E, a, v, ka, load, &val[1], &skip, lane);
    }
    E->indent--;
    outf(E, "}");
    if (sp) {
        E->indent--;
        outf(E, "}");
    }
    enter_block(E, t);
    bool lane0 = !store && region_lane0(b);
    if (lane0 && !strcmp(suf, "f32")) {
        outf(E, "if (krt_wn == 32 && krt_t16) {");
        outf(E, "    %s[0] = krt_lanes_tree16_lane0_f32(%s);   /* the only result read */", lv, lv);
        outf(E, "} else {");
        E->indent++;
        print_tree_levels(E, t, lv, suf, &uv);
        E->indent--;
        outf(E, "}");
    } else {
        print_tree_levels(E, t, lv, suf, &uv);
    }
    /* b: v from the lane array (and into its frame field when read
     * elsewhere) */
    enter_block(E, b);
    if (lane0) {
        outf(E, "/* only lane 0 runs anything here */");
        outf(E, "krt_t = krt_w;");
        outf(E, "krt_tid.x = (unsigned)krt_t;");
        outf(E, "krt_f = &krt_fr[krt_t];");
        outf(E, "{");
        E->indent++;
        print_region_run(E, b, kb >= 0 ? v : NULL, arena_printf("%s[0]", lv), store);
        E->indent--;
        outf(E, "}");
        E->thread_loop = false;
        E->cpu_region = NULL;
    } else {
        /* the lanes b runs for (with `if X < U`, those below its bound:
         * print_region_run prints only the if's body), the full warp's
         * with a fixed trip count; v into the frame of the others too */
        const char *end = b->xclamp ? "krt_mb" : "krt_w + krt_wn";
        const char *field = kb >= 0 ? cached_name(b, v) : V;
        if (b->xclamp) {
            outf(E, "{");
            E->indent++;
            outf(E, "const size_t krt_mb = krt_xn < krt_w ? krt_w : krt_xn > krt_w + krt_wn ? krt_w + krt_wn : krt_xn;");
        }
        outf(E, b->xclamp ? "if (krt_mb == krt_w + 32) {" : "if (krt_wn == 32) {");
        E->indent++;
        open_full_lane_loop(E);
        print_tree_lane_b(E, b, kb >= 0 ? v : NULL, kb < 0 && store ? field : NULL, lane, store);
        E->indent--;
        outf(E, "} else {");
        E->indent++;
        open_lane_loop(E, "krt_w", end);
        print_tree_lane_b(E, b, kb >= 0 ? v : NULL, kb < 0 && store ? field : NULL, lane, store);
        E->indent--;
        outf(E, "}");
        if (b->xclamp && store) {
            open_lane_loop(E, "krt_mb", "krt_w + krt_wn");
            outf(E, "krt_f->%s = %s;", field, lane);
            E->indent--;
            outf(E, "}");
        }
        if (b->xclamp) {
            E->indent--;
            outf(E, "}");
        }
    }
    E->indent--;
    outf(E, "}");   /* the warp loop */
    E->indent--;
    outf(E, "} else {");
    E->indent++;
    for (int k = i; k < i + n; k++)
        print_block(E, l->items[k]);
    E->indent--;
    outf(E, "}");
}

/* issue 13 (hard): under -g, a barrier `what` (NULL: a syncwarp) checks
 * that every live thread of the block reached it (krt_cpu_barrier in
 * runtime/cpucheck.c, once more at the end of the kernel for the threads
 * that exited instead; only where a thread can wait elsewhere, i.e. where
 * the kernel has thread states); under --racecheck it starts a new
 * interval of the race detector.  Nothing without -g. */
static void barrier_checks(Emitter *E, const CpuBlock *b, const char *what)
{
    const CpuKernel *K = E->cpu;
    if (!K || !K->vars->debug)
        return;
    if (what && K->uses_state)
        outf(E, "krt_cpu_barrier(krt_b, &krt_fr[0].krt_state, &krt_fr[0].krt_missed, sizeof *krt_fr, "
             "\"%s\", %d, \"%s\");", E->base_file, b->line.first_line, what);
    if (E->opt && E->opt->racecheck)
        outf(E, what ? "krt_rc_sync(krt_b);" : "krt_rc_syncwarp(krt_b);");
}

static void print_block(Emitter *E, const CpuBlock *b)
{
    if (b->kind == CB_REGION) {
        print_region(E, b);
        return;
    }
    enter_block(E, b);
    emit_lineno(E, b->line);
    switch (b->kind) {
    case CB_IF:
        if (b->uniform) {
            Node *s = tree(b->stmt);
            outf(E, "if (%s) {", ex_cond(E, s->cond));
            E->indent++;
            print_list(E, &b->body);
            E->indent--;
            if (b->orelse.len > 0) {
                outf(E, "} else {");
                E->indent++;
                print_list(E, &b->orelse);
                E->indent--;
            }
            outf(E, "}");
            return;
        }
        outf(E, "%s = 0;", b->go);
        if (b->other)
            outf(E, "%s = 0;", b->other);
        print_region(E, b->head);
        outf(E, "if (%s) {", b->go);
        E->indent++;
        print_list(E, &b->body);
        E->indent--;
        outf(E, "}");
        if (b->other) {
            outf(E, "if (%s) {", b->other);
            E->indent++;
            print_list(E, &b->orelse);
            E->indent--;
            outf(E, "}");
        }
        return;
    case CB_LOOP:
        if (b->tree) {   /* warp (issue 10) */
            print_warp_tree(E, b);
            return;
        }
        if (b->uniform) {
            Node *s = tree(b->stmt);
            if (s->kind == S_FORRANGE) {
                Type *vt = s->var ? s->var->type : ty_scalar[TY_INT64];
                Type *it_t = s->it->type;
                const char *i = var_ref(E, s->it), *stop = var_ref(E, s->stop),
                           *step = var_ref(E, s->step);
                emit_range_init(E, s, i, stop, step, it_t);
                outf(E, "for (; %s; %s += %s) {", range_cond(s, i, stop, step, it_t), i, step);
                E->indent++;
                if (s->var)
                    outf(E, "%s = %s;", var_ref(E, s->var), conv(i, it_t, vt));
            } else {
                outf(E, "while (%s) {", ex_cond(E, s->cond));
                E->indent++;
            }
            print_list(E, &b->body);
            enter_block(E, b);
            E->indent--;
            outf(E, "}");
            return;
        }
        outf(E, "for (;;) {");
        E->indent++;
        outf(E, "krt_go = 0;");
        print_region(E, b->head);
        outf(E, "if (!krt_go)");
        outf(E, "    break;");
        print_list(E, &b->body);
        if (b->next)
            print_region(E, b->next);
        E->indent--;
        outf(E, "}");
        return;
    case CB_BARRIER:
        if (b->sync == CPU_SYNC_WARP_LANES)
            outf(E, "/* cuda.syncwarp(): the lanes of each warp have all reached this point */");
        else if (b->sync == CPU_SYNC_WARP_ALL)
            outf(E, "/* cuda.syncwarp(): every thread has reached this point */");
        else
            outf(E, "/* cuda.syncthreads(): every thread has reached this point */");
        barrier_checks(E, b, b->sync == CPU_SYNC_THREADS ? "cuda.syncthreads()" : NULL);
        return;
    case CB_REDUCE:
        barrier_checks(E, b, arena_printf("%s()", b->stmt && b->stmt->api ? b->stmt->api->path
                                                                           : "cuda.syncthreads_count"));
        outf(E, "krt_red = 0;");
        outf(E, "krt_nred = 0;");
        print_region(E, b->head);
        if (b->next)
            print_region(E, b->next);
        return;
    case CB_WARP:
        if (b->head)
            print_region(E, b->head);
        enter_block(E, b);
        print_warp(E, b);
        return;
    case CB_GRIDSYNC:
        /* the runtime calls the block again, with this number, once every
         * block of the grid has stopped here (see emit_cpu_kernel) */
        outf(E, "/* this_grid().sync(): every block of the grid reaches this point */");
        barrier_checks(E, b, "this_grid().sync()");
        outf(E, "*krt_b->resume = %d;", b->slot);
        outf(E, "return;");
        E->indent--;
        outf(E, "case %d:;", b->slot);
        E->indent++;
        return;
    case CB_INLINE:
        print_region(E, b->head);
        outf(E, "/* device function %s, inlined */", b->callee->name);
        print_list(E, &b->body);
        return;
    case CB_FAIL:
        cpu_unsupported(E, b->fail_loc, b->fail_msg);
        return;
    case CB_UNIFORM:
        /* a block-uniform variable: once for the block (emit_stmt gives
         * its #line) */
        emit_stmt(E, tree(b->stmt));
        return;
    case CB_REGION:
        break;
    }
    die("bad CPU block %d", (int)b->kind);
}

/* barrier: one region of the fused loop, for the thread of krt_f (its
 * bar_local variables the loop's, or the chunk's) */
static void print_fused_part(Emitter *E, const CpuBlock *r, const CpuBlock *bar, const CpuBind *binds)
{
    enter_block(E, r);
    E->cpu_binds = binds;
    emit_lineno(E, r->line);
    outf(E, "{");
    E->indent++;
    print_region_run_skip(E, r, NULL, NULL, false, &bar->bar_local);
    E->indent--;
    outf(E, "}");
    E->thread_loop = false;
    E->cpu_region = NULL;
    E->cpu_binds = NULL;
}

/* barrier: the fused loop in chunks of KRT_CHUNK threads, the chunks in
 * the loop's order, each running the first region for all its threads,
 * then the second (bar_local carried in arrays of the chunk's, an int32_t
 * one for bar_narrow's): a thread reads
 * in the first region what another writes in the second, or the other
 * way round, only when the loop's order allows the fused loop, and then
 * the chunks' order or the barrier between the chunk's two loops keeps
 * the barrier's order.  Loops of a known count of simple iterations, that
 * gcc -O2 (its very-cheap cost model) vectorises; the loop over the chunks
 * unrolled (KRT_UNROLL_CHUNKS). */
enum { KRT_CHUNK = 8 };

static bool chunkable(const CpuBlock *bar)
{
    if (!bar->bar_chunk)
        return false;
    for (int i = 0; i < bar->bar_local.len; i++) {
        const Var *v = bar->bar_local.items[i];
        if (!t_int(v->type) && !t_float(v->type))
            return false;
    }
    return true;
}

/* a carried value of type t (an int32_t one if narrow) in a vector of
 * KRT_CHUNK lanes (KRT_CHUNK_LANES, kernrt_device.h): a scalar int or
 * float of at least 2 bytes, not a 16-bit float (a struct in C) */
static bool chunk_lanes(const Type *t, bool narrow)
{
    if (narrow)
        return true;
    return (t_int(t) || (t_float(t) && !ty_is_half16(t))) && ty_size(t) >= 2;
}

static void print_fused_chunks(Emitter *E, const CpuBlock *a, const CpuBlock *bar, const CpuBlock *b,
                               const CpuBind *binds, const char *ilo, const char *hi)
{
    E->cpu_chunked = true;
    outf(E, "{");
    E->indent++;
    if (bar->bar_desc) {
        outf(E, "int krt_c = (int)%s;", hi);
        outf(E, "KRT_UNROLL_CHUNKS");
        outf(E, "for (; krt_c - %d >= %s; krt_c -= %d) {", KRT_CHUNK, ilo, KRT_CHUNK);
    } else {
        outf(E, "int krt_c = %s;", ilo);
        outf(E, "KRT_UNROLL_CHUNKS");
        outf(E, "for (; krt_c + %d <= (int)%s; krt_c += %d) {", KRT_CHUNK, hi, KRT_CHUNK);
    }
    E->indent++;
    for (int i = 0; i < bar->bar_local.len; i++) {
        const Var *v = bar->bar_local.items[i];
        bool narrow = vec_contains_var(&bar->bar_narrow, v);
        outf(E, "%s(%s, krt_cv_%s, %d) = {0};", chunk_lanes(v->type, narrow) ? "KRT_CHUNK_LANES" : "KRT_CHUNK_ARRAY",
             narrow ? "int32_t" : t_c(v->type), cached_name(a, v), KRT_CHUNK);
    }
    const CpuBlock *rs[2] = {a, b};
    for (int r = 0; r < 2; r++) {
        outf(E, "for (int krt_j = 0; krt_j < %d; krt_j++) {", KRT_CHUNK);
        E->indent++;
        outf(E, bar->bar_desc ? "const int krt_x = krt_c - %d + krt_j;" : "const int krt_x = krt_c + krt_j;",
             KRT_CHUNK);
        outf(E, "krt_t = (size_t)krt_x;");
        outf(E, "krt_tid.x = (unsigned)krt_x;");
        outf(E, "krt_f = &krt_fr[krt_t];");
        for (int i = 0; i < bar->bar_local.len; i++) {
            const Var *v = bar->bar_local.items[i];
            const char *name = cached_name(a, v);
            outf(E, "%s %s KRT_MAYBE_UNUSED = %s;", t_c(v->type), name,
                 r ? arena_printf("krt_cv_%s[krt_j]", name) : zero_of(v->type));
        }
        print_fused_part(E, rs[r], bar, binds);
        for (int i = 0; r == 0 && i < bar->bar_local.len; i++) {
            const Var *v = bar->bar_local.items[i];
            const char *name = cached_name(a, v);
            outf(E, "krt_cv_%s[krt_j] = %s%s;", name, vec_contains_var(&bar->bar_narrow, v) ? "(int32_t)" : "",
                 name);
        }
        E->indent--;
        outf(E, "}");
    }
    E->indent--;
    outf(E, "}");
}

/* barrier (issue 10): the split points krt_sK of bar's conditions
 * (CpuBlock.bar_split). */
static void print_split_points(Emitter *E, const CpuBlock *bar)
{
    for (int k = 0; k < bar->bar_split.len; k++) {
        const CpuSplit *sp = bar->bar_split.items[k];
        outf(E, "const size_t krt_s%d = krt_clamp_below(%s, %s, krt_b->block_dim.x);", k,
             unparen(ex(E, tree(sp->u))), clamp_base(sp->base, sp->c));
    }
}

/* Region a's bindings with bar's split conditions k at their values val[k]
 * (print_bar_range, print_tree_fused). */
static const CpuBind *split_binds(const CpuBlock *a, const CpuBlock *bar, const bool *val)
{
    const CpuBind *binds = a->binds;
    for (int j = 0; j < bar->bar_split.len; j++) {
        const CpuSplit *sp = bar->bar_split.items[j];
        for (int i = 0; i < sp->conds.len; i++) {
            CpuBind *x = arena_alloc(sizeof *x);
            memset(x, 0, sizeof *x);
            x->call = sp->conds.items[i];
            x->text = val[j] ? "1" : "0";
            x->next = binds;
            binds = x;
        }
    }
    return binds;
}

/* barrier (issue 10): the 1-D thread loop over the threads lo to hi of
 * region a (b NULL) or of the fused regions a, bar, b (print_bar_fused),
 * split at the points of bar's conditions k on (CpuBlock.bar_split, bar
 * the region itself when b is NULL): each range's loop prints those
 * conditions as their values there. */
static void print_bar_range(Emitter *E, const CpuBlock *a, const CpuBlock *bar, const CpuBlock *b, int k,
                            const char *lo, const char *hi, bool *val)
{
    if (k < bar->bar_split.len) {
        const CpuSplit *sp = bar->bar_split.items[k];
        const char *m = arena_printf("krt_s%d", k);
        bool top = strcmp(hi, "krt_b->block_dim.x") == 0;
        bool inner = strcmp(lo, "0") != 0 || !top;
        if (inner) {
            /* the point within lo..hi */
            outf(E, "{");
            E->indent++;
            const char *c = arena_printf("krt_m%d", k);
            if (strcmp(lo, "0") == 0)
                outf(E, "const size_t %s = %s > %s ? %s : %s;", c, m, hi, hi, m);
            else if (top)
                outf(E, "const size_t %s = %s < %s ? %s : %s;", c, m, lo, lo, m);
            else
                outf(E, "const size_t %s = %s < %s ? %s : %s > %s ? %s : %s;", c, m, lo, lo, m, hi, hi, m);
            m = c;
        }
        for (int h = 0; h < 2; h++) {
            bool upper = b && bar->bar_desc ? h == 0 : h == 1;
            val[k] = upper ? !sp->below : sp->below;
            print_bar_range(E, a, bar, b, k + 1, upper ? m : lo, upper ? hi : m, val);
        }
        if (inner) {
            E->indent--;
            outf(E, "}");
        }
        return;
    }
    /* the conditions' values in this range */
    const CpuBind *binds = split_binds(a, bar, val);
    /* an int counter (blockDim.x <= 1024): tx = (int32_t)krt_tid.x is
     * then the counter itself to the C compiler, an affine index */
    const char *ilo = strcmp(lo, "0") == 0 ? "0" : arena_printf("(int)%s", lo);
    bool chunk = b && chunkable(bar);
    if (chunk) {
        /* the chunks, then the threads left (krt_c's side of the range) */
        print_fused_chunks(E, a, bar, b, binds, ilo, hi);
        if (bar->bar_desc)
            hi = "krt_c";
        else
            ilo = "krt_c";
    }
    bool lanes = !b && a->lanes;
    if (lanes) {
        /* the chunks, where the arrays' elements lie next to each other,
         * then the threads left (all of them otherwise) */
        StrBuf g = {0};
        for (int i = 0; i < a->lanes_unit.len; i++) {
            const Var *p = a->lanes_unit.items[i];
            sb_printf(&g, "%s%s.strides[%d] == (int64_t)sizeof(%s)", i ? " && " : "", p->cname,
                      p->type->ndim - 1, t_elem(p->type->elem));
        }
        outf(E, "{");
        E->indent++;
        outf(E, "int krt_c = %s;", ilo);
        bool unit = g.len > 0;
        if (unit) {
            outf(E, "if (%s) {", sb_take(&g));
            E->indent++;
        }
        outf(E, "KRT_UNROLL_CHUNKS");
        outf(E, "for (; krt_c + %d <= (int)%s; krt_c += %d) {", KRT_CHUNK, hi, KRT_CHUNK);
        E->indent++;
        outf(E, "KRT_IVDEP");
        E->cpu_chunked = true;
        outf(E, "for (int krt_j = 0; krt_j < %d; krt_j++) {", KRT_CHUNK);
        E->indent++;
        outf(E, "const int krt_x = krt_c + krt_j;");
        outf(E, "krt_t = (size_t)krt_x;");
        outf(E, "krt_tid.x = (unsigned)krt_x;");
        outf(E, "krt_f = &krt_fr[krt_t];");
        E->cpu_binds = binds;
        print_region_run(E, a, NULL, NULL, false);
        E->cpu_binds = a->binds;
        E->indent--;
        outf(E, "}");
        E->indent--;
        outf(E, "}");
        if (unit) {
            E->indent--;
            outf(E, "}");
        }
        ilo = "krt_c";
    }
    if (b && bar->bar_desc)
        outf(E, "for (int krt_x = (int)%s; krt_x-- > %s;) {", hi, ilo);
    else
        outf(E, "for (int krt_x = %s; krt_x < (int)%s; krt_x++) {", ilo, hi);
    E->indent++;
    outf(E, "krt_t = (size_t)krt_x;");
    outf(E, "krt_tid.x = (unsigned)krt_x;");
    outf(E, "krt_f = &krt_fr[krt_t];");
    if (!b) {
        E->cpu_binds = binds;
        print_region_run(E, a, NULL, NULL, false);
        E->cpu_binds = a->binds;
        E->indent--;
        outf(E, "}");
        if (lanes) {
            E->indent--;
            outf(E, "}");
        }
        return;
    }
    for (int i = 0; i < bar->bar_local.len; i++) {
        const Var *v = bar->bar_local.items[i];
        outf(E, "%s %s KRT_MAYBE_UNUSED = %s;", t_c(v->type), cached_name(a, v), zero_of(v->type));
    }
    print_fused_part(E, a, bar, binds);
    print_fused_part(E, b, bar, binds);
    E->indent--;
    outf(E, "}");
    if (chunk) {
        E->indent--;
        outf(E, "}");
    }
}

/* issue 10 (cpu): region a, barrier bar, region b in one loop over the
 * threads where bar's guard holds (CpuBlock.bar_fuse), else as they are. */
static void print_bar_fused(Emitter *E, const CpuBlock *a, const CpuBlock *bar, const CpuBlock *b)
{
    enter_block(E, a);
    StrBuf g = {0};
    sb_puts(&g, "krt_b->block_dim.y == 1 && krt_b->block_dim.z == 1");
    if (bar->bar_nonneg)
        sb_printf(&g, " && %s >= 0", ex(E, tree(bar->bar_nonneg)));
    for (int k = 0; k + 1 < bar->bar_disj.len; k += 2) {
        const Var *p = bar->bar_disj.items[k], *q = bar->bar_disj.items[k + 1];
        sb_printf(&g, " &&\n        krt_views_disjoint(&%s, %d, sizeof(%s), &%s, %d, sizeof(%s))", p->cname,
                  p->type->ndim, t_elem(p->type->elem), q->cname, q->type->ndim, t_elem(q->type->elem));
    }
    emit_lineno(E, bar->line);
    outf(E, "if (%s) {", sb_take(&g));
    E->indent++;
    outf(E, "/* a 1-D block: both sides of the barrier in one loop, the threads %s */",
         bar->bar_desc ? "descending" : "ascending");
    outf(E, "krt_tid.y = 0;");
    outf(E, "krt_tid.z = 0;");
    print_split_points(E, bar);
    bool val[SPLIT_MAX];
    print_bar_range(E, a, bar, b, 0, "0", "krt_b->block_dim.x", val);
    E->indent--;
    outf(E, "} else {");
    E->indent++;
    print_block(E, a);
    print_block(E, bar);
    print_block(E, b);
    E->indent--;
    outf(E, "}");
}

static void print_list(Emitter *E, const CpuList *l)
{
    for (int i = 0; i < l->len; i++) {
        if (l->items[i]->fused)   /* printed by the warp before it */
            continue;
        if (i + 2 < l->len && l->items[i + 1]->bar_fuse) {
            print_bar_fused(E, l->items[i], l->items[i + 1], l->items[i + 2]);
            i += 2;
            continue;
        }
        int n = tree_fusable(E, l, i);   /* warp (issue 10) */
        if (n > 0) {
            print_tree_fused(E, l, i, n);
            i += n - 1;
            continue;
        }
        print_block(E, l->items[i]);
    }
}

/* An extra member of the frame or the shared struct. */
static void print_slot(Emitter *E, const CpuSlot *s)
{
    if (s->dshared)
        outf(E, "    struct %s__dshared %s;", fn_cname(s->dshared), s->name);
    else if (s->array)
        outf(E, "    %s %s%s;", t_c(s->type), s->name, array_dims(s->array));
    else
        outf(E, "    %s %s;", t_c(s->type), s->name);
}

static bool kernel_has_shared(const Func *f)
{
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_SHARED)
            return true;
    return false;
}

typedef struct PrivNeed {
    const Emitter *E;
    int64_t *need;   /* by slot, the bytes (cpu_priv_need) */
} PrivNeed;

static Visit priv_need_visit(const Node *n, void *ctx)
{
    PrivNeed *pn = ctx;
    int k = -1;
    int64_t b = cpu_priv_need(pn->E, n, &k);
    if (b > 0 && b > pn->need[k])
        pn->need[k] = b;
    return VISIT_CHILDREN;
}

/* print(E, K, r) once, or twice where CpuKernel.unit names arrays or
 * privatised atomics have an index in a known range: the first copy where
 * the arrays' elements lie next to each other along their last dimension
 * (their last strides known to the C compiler) and each private copy holds
 * what those atomics need, the second for all other cases. */
static void print_unit_copies(Emitter *E, const CpuKernel *K, const CpuBlock *r,
                              void (*print)(Emitter *, const CpuKernel *, const CpuBlock *))
{
    StrBuf u = {0};
    for (int i = 0; i < K->unit.len; i++) {
        const Var *p = K->unit.items[i];
        sb_printf(&u, "%s%s.strides[%d] == (int64_t)sizeof(%s)", i ? " && " : "", p->cname, p->type->ndim - 1,
                  t_elem(p->type->elem));
    }
    /* the privatised atomics with an index in a known range
     * (krt_priv_addn): in the first copy, where each private copy holds
     * what they need, they add without a test */
    if (E->cpu_priv && K->copies) {
        PrivNeed pn = {E, arena_alloc(sizeof(int64_t) * (size_t)(K->fn->nparams + 1))};
        for (int i = 0; i < K->fn->def->body.len; i++)
            node_walk(K->fn->def->body.items[i], priv_need_visit, &pn);
        for (int k = 0; k < K->fn->nparams; k++)
            if (pn.need[k] > 0)
                sb_printf(&u, "%skrt_pv%d.nbytes >= %lld", u.len ? " && " : "", k, (long long)pn.need[k]);
    }
    if (!u.len) {
        print(E, K, r);
        return;
    }
    outf(E, "if (%s) {", sb_take(&u));
    E->indent++;
    print(E, K, r);
    E->indent--;
    outf(E, "} else {");
    E->indent++;
    print(E, K, r);
    E->indent--;
    outf(E, "}");
}

/* The grid-stride loop itself (print_grid_stride), krt_gs over the
 * block's rows and the threads inside. */
static void print_gs_loop(Emitter *E, const CpuKernel *K, const CpuBlock *r)
{
    const CpuGridStride *g = K->gs;
    const NodeList *body = &K->fn->def->body;
    const bool multi = g->multi && E->c_target;   /* (print_grid_stride) */
    outf(E, "for (krt_gs = (int64_t)krt_b->block_idx.x * krt_b->block_dim.x; krt_gs < krt_gs_stop;");
    outf(E, "     krt_gs = krt_gs_stop - krt_gs > krt_gs_step ? krt_gs + krt_gs_step : krt_gs_stop) {");
    E->indent++;
    outf(E, multi ? "const unsigned krt_gs_n = krt_clamp_below(krt_gs_stop, krt_gs, krt_b->block_dim.x * krt_gs_nb);"
                  : "const unsigned krt_gs_n = krt_clamp_below(krt_gs_stop, krt_gs, krt_b->block_dim.x);");
    outf(E, "for (krt_tid.x = 0; krt_tid.x < krt_gs_n; krt_tid.x++) {");
    E->indent++;
    E->thread_loop = true;
    E->exit_label = 0;
    E->exit_used = false;
    E->cpu_region = r;
    for (int k = 0; k < g->nprefix; k++)
        if (!g->prefix_uniform[k])
            emit_stmt(E, tree(body->items[k]));
    outf(E, "%s = %s;", g->var->cname ? g->var->cname : g->var->name,
         unparen(conv("(krt_gs + (int64_t)krt_tid.x)", ty_scalar[TY_INT64], g->var->type)));
    for (int k = 0; k < g->nbody; k++)
        emit_stmt(E, tree(g->loop->body.items[k]));
    if (E->exit_used)
        die("an exit in a grid-stride loop the CPU lowering did not foresee");
    E->thread_loop = false;
    E->cpu_region = NULL;
    E->indent--;
    outf(E, "}");
    E->indent--;
    outf(E, "}");
}

/* A grid-stride loop (CpuGridStride) with the threads inside: with a 1-D
 * block and a positive step, iteration k of every thread in turn, thread
 * t at element base + k * step + t, so that the block walks consecutive
 * elements; the locals are C locals of the function, each set before it
 * is read in every iteration.  Otherwise (the else branch the caller
 * prints) the plain thread loop. */
static void print_grid_stride(Emitter *E, const CpuKernel *K, const CpuBlock *r)
{
    const Func *f = K->fn;
    const CpuGridStride *g = K->gs;
    const NodeList *body = &f->def->body;
    outf(E, "{");
    E->indent++;
    outf(E, "/* a grid-stride loop: the threads run inside it */");
    for (int i = 0; i < f->nlocals; i++) {
        Var *v = f->locals[i];
        if (K->vars->local_home[i] != CPU_HOME_C || v->kind == VAR_DYNSHARED)
            continue;
        if ((v->kind == VAR_LOCAL || v->kind == VAR_HIDDEN) && v->type->kind != TY_ARRAY)
            outf(E, "%s %s KRT_MAYBE_UNUSED = %s;", t_c(v->type), v->cname, zero_of(v->type));
        else
            decl_local(E, v);
    }
    for (int k = 0; k < g->nprefix; k++)
        if (g->prefix_uniform[k])
            emit_stmt(E, tree(body->items[k]));
    const char *step = ex(E, tree(g->step));
    outf(E, "if (krt_b->block_dim.y == 1 && krt_b->block_dim.z == 1 && %s > 0) {", step);
    E->indent++;
    outf(E, "const int64_t krt_gs_step = %s;", unparen(step));
    outf(E, "const int64_t krt_gs_stop = %s;", unparen(ex(E, tree(g->stop))));
    outf(E, "int64_t krt_gs;");
    /* issue 10 (cpu): the C target runs the worker's next blocks along x
     * too (CpuGridStride.multi): thread t of the run is thread t % bdim of
     * block bx + t / bdim, so each pass of the loop walks nbx blocks' rows
     * of memory in order instead of one block's */
    bool multi = g->multi && E->c_target;
    if (multi) {
        outf(E, "const unsigned krt_gs_nb = krt_b->nbx > 1 && krt_b->nbx <= 4096 ? krt_b->nbx : 1;");
        outf(E, "if (krt_gs_nb > 1)");
        outf(E, "    *krt_b->ndone = krt_gs_nb;");
    }
    outf(E, "krt_tid.y = 0;");
    outf(E, "krt_tid.z = 0;");
    /* the loop's variable is the thread's element there: never negative */
    bool *nn = K->vars->local_nonneg, was = false;
    if (g->var_nonneg && nn)
        was = nn[g->var->index], nn[g->var->index] = true;
    print_unit_copies(E, K, r, print_gs_loop);
    if (g->var_nonneg && nn)
        nn[g->var->index] = was;
    E->indent--;
    outf(E, "} else {");
    E->indent++;
}

/* The CPU version of kernel f: static void NAME__cpu(block, args). */
/* issue 10 (cpu): privatised atomics.  A 1-D integer array parameter
 * that the kernel names only as the target of cuda.atomic.add/sub whose
 * result is dropped (an S_EXPR: no thread can see the array's contents
 * during the launch) adds into a per-block copy on the worker's stack
 * without a lock, flushed with one atomic per nonzero element when the
 * block ends (kernrt_device.h's krt_priv: 1-D contiguous arrays up to
 * KRT_PRIV_BYTES, no overlap with another array parameter, else the
 * atomics as before).  Only the C target (the CUDA file's CPU versions
 * are left as they were), not under debug (checks, the race detector) nor
 * in a resumable (grid-sync) kernel.  Every other parameter must be a
 * plain value or an array, so that only array parameters can hold the
 * array's memory. */
static int priv_param(const Func *f, const Var *v)
{
    for (int i = 0; v && i < f->nparams; i++)
        if (f->params[i] == v)
            return i;
    return -1;
}

typedef struct PrivScan {
    const Func *f;
    int *refs, *good;
} PrivScan;

static Visit priv_visit(const Node *n, void *ctx)
{
    PrivScan *ps = ctx;
    const Node *a = n->kind == S_EXPR ? n->lhs : NULL;
    if (a && a->kind == E_API && a->api && (a->api->id == API_ATOMIC_ADD || a->api->id == API_ATOMIC_SUB) &&
        a->args.len == 3 && a->args.items[0]->kind == E_VAR) {
        int i = priv_param(ps->f, a->args.items[0]->var);
        if (i >= 0)
            ps->good[i]++;
    }
    const Var *vs[4] = {n->var, n->it, n->stop, n->step};
    for (int k = 0; k < 4; k++) {
        int i = priv_param(ps->f, vs[k]);
        if (i >= 0)
            ps->refs[i]++;
    }
    return VISIT_CHILDREN;
}

static int priv_params(const Func *f, int **slots)
{
    for (int i = 0; i < f->nparams; i++) {
        const Type *t = f->params[i]->type;
        if (!t || !(t->kind == TY_ARRAY || t->kind == TY_VECTOR || t_scalar(t)))
            return 0;
    }
    PrivScan ps = {f, arena_alloc(sizeof(int) * (size_t)(f->nparams + 1)),
                   arena_alloc(sizeof(int) * (size_t)(f->nparams + 1))};
    memset(ps.refs, 0, sizeof(int) * (size_t)(f->nparams + 1));
    memset(ps.good, 0, sizeof(int) * (size_t)(f->nparams + 1));
    for (int i = 0; i < f->def->body.len; i++)
        node_walk(f->def->body.items[i], priv_visit, &ps);
    int *slot = arena_alloc(sizeof(int) * (size_t)(f->nparams + 1));
    int n = 0;
    for (int i = 0; i < f->nparams; i++) {
        const Type *t = f->params[i]->type;
        slot[i] = -1;
        if (t->kind != TY_ARRAY || t->ndim != 1 || t->space != SPACE_GLOBAL || !t->elem)
            continue;
        TypeKind ek = t->elem->kind;
        if (ek != TY_INT32 && ek != TY_UINT32 && ek != TY_INT64 && ek != TY_UINT64)
            continue;
        if (ps.good[i] > 0 && ps.good[i] == ps.refs[i])
            slot[i] = n++;
    }
    *slots = slot;
    return n;
}

/* The signature of the kernel's CPU function: NAME__cpu, or with
 * privatised atomics NAME__cpu_pv, which print_priv_wrapper's NAME__cpu
 * calls between the copies' set-up and their flush (so that every way out
 * of the block, a return too, flushes); in the C target, with loops over
 * chunks of threads, after KRT_SIMD_CLONES (also an AVX2 copy: the
 * chunks' vectors twice as wide). */
static void cpu_head(Emitter *E, const char *name, const char *b, int npriv)
{
    const char *clones = E->c_target && E->cpu_chunked ? "KRT_SIMD_CLONES " : "";
    if (npriv)
        outf(E, "%sstatic inline void %s__cpu_pv(const krt_cpu_block *%s, void **krt_args, const krt_priv *krt_pv)",
             clones, name, b);
    else
        outf(E, "%sstatic void %s__cpu(const krt_cpu_block *%s, void **krt_args)", clones, name, b);
}

static const char *priv_suffix(const Type *t)
{
    switch (t->kind) {
    case TY_INT32: return "i32";
    case TY_UINT32: return "u32";
    case TY_INT64: return "i64";
    default: return "u64";
    }
}

static void print_priv_wrapper(Emitter *E, const Func *f, const char *name, const int *priv, int npriv)
{
    outf(E, "static void %s__cpu(const krt_cpu_block *krt_b, void **krt_args)", name);
    outf(E, "{");
    E->indent = 1;
    outf(E, "krt_priv krt_pv[%d];", npriv);
    for (int k = 0; k < npriv; k++)
        outf(E, "int64_t krt_pbuf%d[KRT_PRIV_BYTES / 8];", k);
    for (int i = 0; i < f->nparams; i++) {
        int k = priv[i];
        if (k < 0)
            continue;
        const Type *t = f->params[i]->type;
        outf(E, "krt_priv_init(&krt_pv[%d], (const krt_view *)krt_args[%d], sizeof(%s), krt_pbuf%d);", k, i,
             t_elem(t->elem), k);
        for (int j = 0; j < f->nparams; j++) {
            const Type *u = f->params[j]->type;
            if (u->kind == TY_ARRAY && priv[j] < 0)
                outf(E, "krt_priv_clash(&krt_pv[%d], (const krt_view *)krt_args[%d], %d, sizeof(%s));", k, j,
                     u->ndim, t_elem(u->elem));
        }
    }
    outf(E, "%s__cpu_pv(krt_b, krt_args, krt_pv);", name);
    for (int i = 0; i < f->nparams; i++)
        if (priv[i] >= 0)
            outf(E, "krt_priv_flush_%s(&krt_pv[%d]);", priv_suffix(f->params[i]->type->elem), priv[i]);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

/* A kernel without barriers: its one thread loop (the threads that pass
 * its `if`, CpuKernel.clamps, where it has one), its locals plain C locals
 * of the loop's body. */
static void print_thread_loop(Emitter *E, const CpuKernel *K, const CpuBlock *r)
{
    const Func *f = K->fn;
    /* (any order is right without a barrier: the one that walks the
     * arrays sequentially, see lower_cpu's prefers_y_inner) */
    if (K->nclamps) {
        /* issue 10 (cpu): only the threads that pass the kernel's
         * `if` (lower_cpu's find_clamp) */
        static const char comp[] = "xyz";
        outf(E, "{");
        E->indent++;
        for (int c = 0; c < 3; c++)
            outf(E, "unsigned krt_n%c = krt_b->block_dim.%c;", comp[c], comp[c]);
        for (int i = 0; i < K->nclamps; i++) {
            const CpuClamp *cl = &K->clamps[i];
            char c = comp[cl->comp];
            const char *base = cl->base ? arena_printf("(int64_t)krt_b->block_idx.%c * krt_b->block_dim.%c", c, c)
                                        : NULL;
            const char *b = base && cl->c ? arena_printf("%s + %lld", base, (long long)cl->c)
                            : base ? base : arena_printf("%lld", (long long)cl->c);
            outf(E, "krt_n%c = krt_clamp_below(%s, %s, krt_n%c);", c, unparen(ex(E, tree(cl->u))), b, c);
        }
        outf(E, K->y_inner ? "KRT_FOR_EACH_THREAD_YX_N(krt_nx, krt_ny, krt_nz) {"
                           : "KRT_FOR_EACH_THREAD_N(krt_nx, krt_ny, krt_nz) {");
    } else {
        outf(E, K->y_inner ? "KRT_FOR_EACH_THREAD_YX(krt_b) {" : "KRT_FOR_EACH_THREAD(krt_b) {");
    }
    E->indent++;
    if (E->debug) {
        outf(E, "if (*krt_b->error != KRT_OK)");
        outf(E, "    return;");
    }
    for (int i = 0; i < f->nparams; i++) {
        Var *v = f->params[i];
        if (K->param_copied[i])
            outf(E, "%s %s = %s;", t_c(v->type), v->cname,
                 arena_printf("krt_arg_%s", v->cname));
    }
    /* (those lower_cpu left per thread; block-level ones are the
     * function's) */
    const CpuHome *home = K->vars->local_home;
    for (int i = 0; i < f->nlocals; i++)
        if (home[i] == CPU_HOME_C && f->locals[i]->kind != VAR_DYNSHARED)
            decl_local(E, f->locals[i]);
    for (int i = 0; i < f->nlocals; i++)
        if (!E->local_read[i] && home[i] == CPU_HOME_C && f->locals[i]->kind != VAR_DYNSHARED)
            outf(E, "(void)%s;", f->locals[i]->cname);
    E->thread_loop = true;
    E->exit_label = 0;
    E->exit_used = false;
    E->cpu_region = r;
    for (int i = 0; i < r->nitems; i++) {
        if (r->items[i].stmt == K->clamp_if) {
            print_clamped_if(E, K->clamp_if);
            continue;
        }
        print_item(E, &r->items[i]);
    }
    if (E->exit_used) {
        E->indent--;
        outf(E, "krt_next:;");
        E->indent++;
    }
    E->thread_loop = false;
    E->cpu_region = NULL;
    E->indent--;
    outf(E, "}");
    if (K->nclamps) {
        E->indent--;
        outf(E, "}");
    }
}

void emit_cpu_kernel(Emitter *E, Func *f)
{
    const char *name = fn_cname(f);
    func_begin(E, f, MODE_CPU);
    CpuKernel *K = lower_cpu_kernel(f, E->opt);
    E->cpu = K;
    E->frame = K->split;
    int *priv = NULL;
    int npriv = E->c_target && !K->vars->debug && !K->coop ? priv_params(f, &priv) : 0;
    E->cpu_priv = npriv ? priv : NULL;

    StrBuf body = {0};
    StrBuf *out = swap_out(E, &body);
    E->indent = 1;
    if (!K->split) {
        /* One thread loop; locals are plain C locals of the loop body. */
        const CpuBlock *r = K->body.items[0];
        enter_block(E, r);
        if (K->gs)
            print_grid_stride(E, K, r);
        if (K->gs)   /* (the grid-stride loop's fallback: one copy) */
            print_thread_loop(E, K, r);
        else
            print_unit_copies(E, K, r, print_thread_loop);
        if (K->gs) {
            E->indent--;
            outf(E, "}");
            E->indent--;
            outf(E, "}");
        }
    } else {
        /* A kernel with a grid sync is resumable: it returns at each sync
         * (CB_GRIDSYNC) and the runtime, once every block of the grid has
         * stopped there, calls it again with the sync's number; the switch
         * jumps back to just after that sync, into the block-level loops
         * and ifs if need be (case labels nested in them are plain C, as
         * in Duff's device).  Nothing else needs saving: every thread's
         * state is in its frame, the block-level flags (krt_br) are in the
         * block's shared struct, both kept alive per block by the runtime,
         * and the other block-level variables (krt_go, krt_red, the warp
         * loops' counters) are set and read between two cuts, never across
         * a sync.  No declaration lies inside the switch, so no jump skips
         * an initialisation (C++ forbids that for nvcc's compile). */
        if (K->coop) {
            outf(E, "switch (krt_rp) {");
            outf(E, "default:");
            outf(E, "    krt_cpu_fail(krt_b, KRT_EINTERNAL, \"bad resume point\");");
            outf(E, "    return;");
            outf(E, "case 0:");
        }
        /* Frames start running (where anything tests the state);
         * assigned parameters become per-thread. */
        bool copies = false;
        for (int i = 0; i < f->nparams; i++)
            copies |= K->vars->param_home[i] == CPU_HOME_FRAME;
        if (K->uses_state || copies) {
            outf(E, "KRT_FOR_EACH_THREAD_T(krt_b) {");
            if (K->uses_state)
                outf(E, "    krt_fr[krt_t].krt_state = KRT_RUNNING;");
            if (K->uses_state && K->vars->debug)   /* issue 13: see barrier_checks */
                outf(E, "    krt_fr[krt_t].krt_missed = 0;");
            for (int i = 0; i < f->nparams; i++)
                if (K->vars->param_home[i] == CPU_HOME_FRAME)
                    outf(E, "    krt_fr[krt_t].%s = krt_arg_%s;", f->params[i]->cname, f->params[i]->cname);
            outf(E, "}");
        }
        print_list(E, &K->body);
        if (K->uses_state && K->vars->debug)   /* issue 13: see barrier_checks */
            outf(E, "krt_cpu_barrier(krt_b, &krt_fr[0].krt_state, &krt_fr[0].krt_missed, "
                 "sizeof *krt_fr, \"%s\", 0, NULL);", E->base_file);
        if (K->coop)
            outf(E, "}");
    }
    swap_out(E, out);
    E->indent = 0;
    E->fn = f;
    E->cpu_vars = NULL;
    E->cpu_binds = NULL;
    E->inlined = false;
    E->inl_ret = NULL;
    E->debug = K->vars->debug;
    E->cpu = NULL;
    E->cpu_priv = NULL;

    if (E->cpu_failed) {
        sb_free(&body);
        if (E->c_target)
            error_at(E->cpu_fail_loc, "%s", E->cpu_fail_msg);
        else
            warning_at(E->cpu_fail_loc, W_CUDA_ONLY, "%s; kernel '%s' will run on CUDA only", E->cpu_fail_msg,
                       f->name);
        return;
    }

    /* Per-block shared arrays (with those of inlined callees, and the
     * block-level flags of a cooperative kernel) and per-thread frames. */
    bool coop_flags = K->coop && K->nbvars > 0;
    if (coop_flags)
        E->used_s = true;
    bool has_shared_struct = kernel_has_shared(f) || K->shared_extra.len > 0 || coop_flags;
    if (has_shared_struct) {
        outf(E, "struct %s__shared {", name);
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (v->kind == VAR_SHARED)
                outf(E, "    %s %s%s;", t_elem(v->type->elem), v->cname, array_dims(v));
        }
        for (int i = 0; i < K->shared_extra.len; i++)
            print_slot(E, &K->shared_extra.items[i]);
        if (coop_flags)
            outf(E, "    int krt_br[%d];", K->nbvars);
        outf(E, "};");
        outf(E, "%s", "");
        vec_push(&E->shared_structs, f);
    }
    if (K->split) {
        outf(E, "struct %s__frame {", name);
        outf(E, "    int krt_state;");
        if (K->uses_state && K->vars->debug)   /* issue 13: see barrier_checks */
            outf(E, "    int krt_missed;");
        E->indent++;
        for (int i = 0; i < f->nparams; i++)
            if (K->vars->param_home[i] == CPU_HOME_FRAME)
                outf(E, "%s;", param_decl(f->params[i]));
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (K->vars->local_home[i] != CPU_HOME_FRAME)
                continue;
            if (v->kind == VAR_LOCALARRAY)
                outf(E, "%s %s%s;", t_elem(v->type->elem), v->cname, array_dims(v));
            else if (v->type == ty_bool)   /* read before written, a byte of the last block's
                                              (or another kernel's) frame: no _Bool trap */
                outf(E, "uint8_t %s;", v->cname);
            else
                outf(E, "%s %s;", t_c(v->type), v->cname);
        }
        E->indent--;
        for (int i = 0; i < K->frame_extra.len; i++)
            print_slot(E, &K->frame_extra.items[i]);
        outf(E, "};");
        outf(E, "%s", "");
    }

    emit_lineno(E, f->def->loc);
    if (K->y_inner) {
        /* blocks may run in any order: y fastest, so that consecutive
         * blocks continue along the rows the threads walk (a bijection of
         * the block indices the runtime hands out) */
        cpu_head(E, name, "krt_b0", npriv);
        outf(E, "{");
        E->indent = 1;
        outf(E, "krt_cpu_block krt_bb = *krt_b0;");
        outf(E, "const unsigned krt_lin = krt_b0->block_idx.y * krt_b0->grid_dim.x + krt_b0->block_idx.x;");
        outf(E, "krt_bb.block_idx.y = krt_lin %% krt_b0->grid_dim.y;");
        outf(E, "krt_bb.block_idx.x = krt_lin / krt_b0->grid_dim.y;");
        outf(E, "const krt_cpu_block *const krt_b = &krt_bb;");
    } else if (!K->vars->debug && !K->coop) {
        /* issue 10 (cpu): the block's description in a local, which no
         * store of the kernel's can change: its sizes stay in registers */
        cpu_head(E, name, "krt_b0", npriv);
        outf(E, "{");
        E->indent = 1;
        outf(E, "const krt_cpu_block krt_bb = *krt_b0;");
        outf(E, "const krt_cpu_block *const krt_b = &krt_bb;");
    } else {
        cpu_head(E, name, "krt_b", npriv);
        outf(E, "{");
        E->indent = 1;
    }
    for (int i = 0; i < f->nparams; i++) {
        Var *v = f->params[i];
        const char *c = K->param_copied[i] ? arena_printf("krt_arg_%s", v->cname) : v->cname;
        if (v->type->kind == TY_BOOL)
            outf(E, "const bool %s = *(const uint8_t *)krt_args[%d] != 0;", c, i);
        else
            outf(E, "const %s %s = *(const %s *)krt_args[%d];", t_c(v->type), c, t_c(v->type), i);
    }
    for (int i = 0; i < npriv; i++)
        outf(E, "const krt_priv krt_pv%d = krt_pv[%d];", i, i);
    if (E->used_s)
        outf(E, "struct %s__shared *krt_s = (struct %s__shared *)krt_b->shared;", name, name);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_DYNSHARED)
            decl_local(E, f->locals[i]);
    for (int i = 0; i < f->nlocals; i++)
        if (K->vars->local_home[i] == CPU_HOME_BLOCK)
            decl_local(E, f->locals[i]);
    if (K->split) {
        outf(E, "struct %s__frame *krt_fr = (struct %s__frame *)krt_b->frame;", name, name);
        /* issue 13: regions that read no frame member still point krt_f at
         * the thread's frame; then it is set but never used (gcc, nvcc #550-D) */
        bool f_used = body.s && strstr(body.s, "krt_f->");
        outf(E, "struct %s__frame *krt_f%s;", name, f_used ? "" : " KRT_MAYBE_UNUSED");
        outf(E, "size_t krt_t;");
    }
    if (K->uses_go)
        outf(E, "int krt_go;");
    for (int i = 0; i < K->nbvars && !K->coop; i++)
        outf(E, "int krt_br%d;", i);
    if (K->coop) {
        /* where to resume; 0 (finished) unless a grid sync says otherwise */
        outf(E, "const int krt_rp = *krt_b->resume;");
    }
    if (K->uses_warp) {
        outf(E, "const unsigned krt_nt = krt_cpu_nthreads(krt_b);");
        outf(E, K->uses_lanes ? "size_t krt_w, krt_wn, krt_l;" : "size_t krt_w, krt_wn;");
        if (K->uses_act)
            outf(E, "uint32_t krt_act;");
        if (K->uses_bal)
            outf(E, "uint32_t krt_bal;");
        if (K->uses_src)
            outf(E, "int64_t krt_src;");
    }
    if (K->uses_red)
        outf(E, "int64_t krt_red, krt_nred;");
    outf(E, "krt_dim3 krt_tid;");
    decl_tmps(E);
    for (int i = 0; i < f->nparams; i++)
        if (!E->param_read[i] && !K->param_copied[i])
            outf(E, "(void)%s;", f->params[i]->cname);
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_DYNSHARED && !E->local_read[i])
            outf(E, "(void)%s;", f->locals[i]->cname);
    if (K->coop)
        outf(E, "*krt_b->resume = 0;");
    if (K->npf)
        outf(E, "/* the next block's elements of the arrays indexed at cuda.grid(1), into the cache */");
    for (int i = 0; i < K->npf; i++) {
        const CpuPrefetch *p = &K->pf[i];
        outf(E, "krt_prefetch_next(&%s, sizeof(%s), krt_b, %lld, %lld, %d);", p->arr->cname,
             t_elem(p->arr->type->elem), (long long)p->lo, (long long)p->hi, p->write);
    }
    if (K->vars->debug && E->opt && E->opt->racecheck)   /* issue 13: the race detector */
        outf(E, "krt_rc_begin(krt_b, %s);",
             has_shared_struct ? arena_printf("sizeof(struct %s__shared)", name) : "0");
    if (body.s)
        sb_puts(E->out, body.s);
    sb_free(&body);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
    if (npriv)
        print_priv_wrapper(E, f, name, priv, npriv);
}

/* ------------------------------------------------------------------ */

