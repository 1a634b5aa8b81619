/*
 * ufunc.c - @vectorize, @guvectorize and cuda.reduce: the three decorators
 * that make host-callable operations out of device code (SPEC 1.6).
 *
 * resolve.c hands each decorated def here (ufunc_decorator) and turns
 * `NAME = cuda.reduce(lambda a, b: ...)` into a def first
 * (ufunc_reduce_lambda).  Nothing new is needed below this file: every
 * signature becomes an ordinary @cuda.jit kernel, written as .kern source
 * text, parsed with the same parser, relocated to the decorator and typed
 * by type.c like any other kernel (ufunc_type_all); emit_*.c then emits it
 * as usual, and emit_host.c adds, from the descriptors made here (kernc.h:
 * UFunc), the typed C host function that checks the arguments and
 * launches it through libkernrt.
 *
 *   @vectorize     the user's function stays a device function (eagerly
 *                  typed per signature, so kernels can call it too); the
 *                  kernel calls it once per element of the broadcast
 *                  shape.  Inputs may be host scalars.
 *   @guvectorize   the kernel is the user's body itself, one thread per
 *                  loop index: every use of an array parameter is
 *                  rewritten to see only its core dimensions (A[i, j] ->
 *                  A[l0, l1, i, j], A.shape[0] -> A.shape[2], ...), since
 *                  kernc has no sub-array views.  Scalar inputs are read
 *                  into the parameter's name before the body.
 *   cuda.reduce    numba's own reduction kernel (numba/cuda/kernels/
 *                  reduction.py), transcribed with the same association
 *                  order, so that float results agree bit for bit; one
 *                  kernel per element type, the host side in
 *                  runtime/reduce.c.
 *
 * Names (documented in the README): the host function of a signature is
 * NAME_<code> when all its operands have one element type (gpu_hypot_f4,
 * sum_reduce_i8), else NAME_<code>_<code>... listing the inputs and then
 * the outputs (scale_f8_i4_f8), with numba's letter codes (kernrt_types.h:
 * b1 i1 ... f8).  Its kernel is NAME__vec_..., NAME__guv_... or
 * NAME__red_<code>: an ordinary kernel with a launcher of its own.
 */
#include "kernc.h"

#include <stdlib.h>
#include <string.h>

const char *const ufunc_kind_name[] = {
#define X_(k, deco, tag, krt) deco,
    UFUNC_KINDS(X_)
#undef X_
};
static const char *const uf_kind_tag[] = {
#define X_(k, deco, tag, krt) tag,
    UFUNC_KINDS(X_)
#undef X_
};

/* ------------------------------------------------------------------ */
/* Decorators                                                          */
/* ------------------------------------------------------------------ */

/* The 'target' and other keyword options of @vectorize/@guvectorize. */
static bool uf_options(Node *call, const char *what)
{
    bool ok = true, target = false;
    for (int i = 0; i < call->kwargs.len; i++) {
        Node *kw = call->kwargs.items[i];
        if (strcmp(kw->name, "target") == 0) {
            target = true;
            if (kw->lhs->kind != E_STR || strcmp(kw->lhs->text, "cuda") != 0) {
                sema_error(kw->lhs->loc, "%s: kernc compiles target='cuda' only", what);
                ok = false;
            }
        } else if (strcmp(kw->name, "cache") == 0 || strcmp(kw->name, "nopython") == 0) {
            /* accepted, no effect (as for @cuda.jit) */
        } else {
            sema_error(kw->loc, "%s option '%s' is not supported", what, kw->name);
            ok = false;
        }
    }
    if (!target) {
        sema_error(call->loc, "%s needs target='cuda' (numba's default target is the CPU, "
                   "which kernc does not compile)", what);
        ok = false;
    }
    return ok;
}

/* The signatures argument: a list of signatures, or one. */
static void uf_sig_nodes(Node *e, PtrVec *out)
{
    if (e->kind == E_LIST || e->kind == E_TUPLE)
        for (int i = 0; i < e->args.len; i++)
            vec_push(out, e->args.items[i]);
    else
        vec_push(out, e);
}

/* Host and kernel names from the operands' element types. */
static void uf_names(UFunc *u, UfSig *s)
{
    bool same = true;
    for (int i = 1; i < s->nops; i++)
        same &= s->ops[i].elem == s->ops[0].elem;
    StrBuf b = {0};
    for (int i = 0; i < (same ? 1 : s->nops); i++)
        sb_printf(&b, "_%s", ty_info(s->ops[i].elem)->letters);
    s->host = arena_printf("%s%s", u->name, b.s);
    s->kname = arena_printf("%s__%s%s", c_ident(u->name), uf_kind_tag[u->kind], b.s);
    sb_free(&b);
}

static void uf_add_sig(UFunc *u, const UfSig *s)
{
    for (int i = 0; i < u->nsigs; i++) {
        if (strcmp(u->sigs[i].host, s->host) == 0) {
            sema_error(u->loc, "two signatures of %s '%s' have the same element types "
                       "(%s), hence the same host function '%s'", ufunc_kind_name[u->kind],
                       u->name, s->text, s->host);
            return;
        }
    }
    const Global *g = sema_global(s->host);
    if (g && g->kind == GLOBAL_FUNC) {
        sema_error(u->loc, "the host function '%s' of %s '%s' has the name of function "
                   "'%s' of this file", s->host, ufunc_kind_name[u->kind], u->name, s->host);
        return;
    }
    UfSig *sigs = arena_alloc(sizeof *sigs * (size_t)(u->nsigs + 1));
    if (u->nsigs)
        memcpy(sigs, u->sigs, sizeof *sigs * (size_t)u->nsigs);
    sigs[u->nsigs++] = *s;
    u->sigs = sigs;
}

static const char *uf_sig_text(const Signature *s, bool with_ret)
{
    StrBuf b = {0};
    if (with_ret)
        sb_printf(&b, "%s", ty_name(s->ret));
    sb_putc(&b, '(');
    for (int i = 0; i < s->nparams; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", ty_name(s->params[i]));
    sb_putc(&b, ')');
    return sb_take(&b);
}

static const char *param_name(const FuncDef *fd, int i)
{
    return ((Node *)fd->def->params.items[i])->name;
}

/* Does signature s (written at e) have the function's nparams? */
static bool uf_sig_arity(const UFunc *u, const Node *e, const Signature *s, int nparams)
{
    if (s->nparams == nparams)
        return true;
    sema_error(e->loc, "this signature has %d parameter%s but '%s' takes %d", s->nparams,
               s->nparams == 1 ? "" : "s", u->name, nparams);
    return false;
}

/* Refuse more operands than the runtime's host side takes, here rather
 * than with a failed call at run time. */
static bool uf_check_nops(const UFunc *u, int nops)
{
    if (nops <= UF_MAX_OPS)
        return true;
    sema_error(u->loc, "%s '%s' has %d operands (inputs and outputs); at most %d are "
               "supported, as in NumPy", ufunc_kind_name[u->kind], u->name, nops, UF_MAX_OPS);
    return false;
}

/* @vectorize(['float32(float32, float32)', ...], target='cuda') */
static void uf_vectorize(UFunc *u, Node *call)
{
    FuncDef *fd = u->fd;
    if (!call || call->args.len == 0) {
        sema_error(call ? call->loc : u->loc, "@vectorize needs its list of signatures, "
                   "e.g. @vectorize(['float32(float32, float32)'], target='cuda')");
        return;
    }
    if (call->args.len > 1) {
        sema_error(((Node *)call->args.items[1])->loc,
                   "@vectorize takes one positional argument (the signatures)");
        return;
    }
    if (!uf_options(call, "@vectorize"))
        return;
    int nparams = fd->def->params.len;
    if (!uf_check_nops(u, nparams + 1))
        return;
    PtrVec nodes = {0};
    uf_sig_nodes(call->args.items[0], &nodes);
    Signature *eager = arena_alloc(sizeof *eager * (size_t)(nodes.len + 1));
    int neager = 0;
    for (int i = 0; i < nodes.len; i++) {
        Node *e = nodes.items[i];
        Signature s = {0};
        if (!sema_signature(e, &s))
            continue;
        bool ok = s.ret && ty_is_scalar(s.ret);
        for (int k = 0; k < s.nparams; k++)
            ok &= ty_is_scalar(s.params[k]);
        if (!ok) {
            sema_error(e->loc, "a @vectorize signature maps scalars to a scalar, such as "
                       "'float32(float32, float32)'");
            continue;
        }
        if (!uf_sig_arity(u, e, &s, nparams))
            continue;
        if (nparams == 0) {
            sema_error(e->loc, "a @vectorize function needs at least one input");
            continue;
        }
        eager[neager++] = s;
        UfSig g = {.text = uf_sig_text(&s, true), .nops = nparams + 1,
                   .nloop = UF_MAX_NDIM};
        g.ops = arena_alloc(sizeof *g.ops * (size_t)g.nops);
        for (int k = 0; k <= nparams; k++) {
            UfOp *o = &g.ops[k];
            o->type = o->elem = k < nparams ? s.params[k] : s.ret;
            o->name = k < nparams ? param_name(fd, k) : "out";
            o->is_output = k == nparams;
            o->scalar_ok = k < nparams;
        }
        uf_names(u, &g);
        uf_add_sig(u, &g);
    }
    /* The user's function: a device function typed per signature (its
     * eager specialisations are what the kernels and other kernels call). */
    fd->sigs = eager;
    fd->nsigs = neager;
    u->nin = nparams;
    u->nout = 1;
}

/* '(m,n),(n,p)->(m,p)': groups of dimension names; symbols numbered in
 * order of first appearance. */
static bool uf_layout(UFunc *u, Node *lay, PtrVec *groups)
{
    const char *s = lay->text;
    PtrVec syms = {0};
    int side = 0;               /* 0: inputs, 1: outputs */
    u->nin = u->nout = 0;
    size_t i = 0;
#define SKIP() while (s[i] == ' ' || s[i] == '\t') i++
    for (;;) {
        SKIP();
        if (s[i] != '(')
            goto bad;
        i++;
        int *dims = arena_alloc(sizeof *dims * (UF_MAX_NDIM + 1));   /* [0]: count */
        SKIP();
        while (s[i] != ')') {
            size_t b = i;
            while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                   s[i] == '_' || (i > b && s[i] >= '0' && s[i] <= '9'))
                i++;
            if (i == b)
                goto bad;
            const char *name = arena_strndup(s + b, i - b);
            int k = 0;
            while (k < syms.len && strcmp(syms.items[k], name) != 0)
                k++;
            if (k == syms.len)
                vec_push(&syms, (void *)name);
            if (dims[0] == UF_MAX_NDIM - 1) {
                sema_error(lay->loc, "@guvectorize: a layout group has at most %d "
                           "dimensions here", UF_MAX_NDIM - 1);
                return false;
            }
            dims[++dims[0]] = k;
            SKIP();
            if (s[i] == ',') {
                i++;
                SKIP();
                if (s[i] == ')')
                    goto bad;
            } else if (s[i] != ')') {
                goto bad;
            }
        }
        i++;
        vec_push(groups, dims);
        if (side == 0)
            u->nin++;
        else
            u->nout++;
        SKIP();
        if (s[i] == ',') {
            i++;
            continue;
        }
        if (side == 0 && s[i] == '-' && s[i + 1] == '>') {
            i += 2;
            side = 1;
            continue;
        }
        if (s[i] == '\0' && side == 1)
            break;
        goto bad;
    }
#undef SKIP
    u->symbols = (const char **)syms.items;
    u->nsymbols = syms.len;
    return true;
bad:
    sema_error(lay->loc, "@guvectorize: malformed layout \"%s\"; expected groups of "
               "dimension names such as \"(m,n),(n,p)->(m,p)\" or \"(n),()->()\"", s);
    return false;
}

/* @guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'],
 *              '(m,n),(n,p)->(m,p)', target='cuda') */
static void uf_guvectorize(UFunc *u, Node *call)
{
    FuncDef *fd = u->fd;
    if (!call || call->args.len != 2) {
        sema_error(call ? call->loc : u->loc, "@guvectorize takes the list of signatures "
                   "and the layout, e.g. @guvectorize(['void(float32[:], float32[:])'], "
                   "'(n)->(n)', target='cuda')");
        return;
    }
    Node *lay = call->args.items[1];
    if (lay->kind != E_STR) {
        sema_error(lay->loc, "@guvectorize: the layout must be a string such as "
                   "\"(m,n),(n,p)->(m,p)\"");
        return;
    }
    if (!uf_options(call, "@guvectorize"))
        return;
    PtrVec groups = {0};
    if (!uf_layout(u, lay, &groups))
        return;
    int nparams = fd->def->params.len;
    if (nparams != groups.len) {
        sema_error(lay->loc, "the layout has %d operand%s but '%s' takes %d parameters",
                   groups.len, groups.len == 1 ? "" : "s", u->name, nparams);
        return;
    }
    if (!uf_check_nops(u, nparams))
        return;
    PtrVec nodes = {0};
    uf_sig_nodes(call->args.items[0], &nodes);
    for (int i = 0; i < nodes.len; i++) {
        Node *e = nodes.items[i];
        Signature s = {0};
        if (!sema_signature(e, &s))
            continue;
        if (s.ret != ty_void) {
            sema_error(e->loc, "a @guvectorize signature returns void (its outputs are "
                       "array parameters)");
            continue;
        }
        if (!uf_sig_arity(u, e, &s, nparams))
            continue;
        UfSig g = {.text = uf_sig_text(&s, true), .nops = nparams};
        g.ops = arena_alloc(sizeof *g.ops * (size_t)nparams);
        bool ok = true;
        int maxview = 0;
        for (int k = 0; k < nparams; k++) {
            UfOp *o = &g.ops[k];
            int *dims = groups.items[k];
            Type *t = s.params[k];
            o->name = param_name(fd, k);
            o->type = t;
            o->elem = t->kind == TY_ARRAY ? t->elem : t;
            o->is_output = k >= u->nin;
            o->core_ndim = dims[0];
            for (int d = 0; d < dims[0]; d++)
                o->core_dims[d] = dims[d + 1];
            if (t->kind != TY_ARRAY) {
                if (o->is_output || dims[0] != 0) {
                    sema_error(e->loc, "parameter '%s' is %s in the layout, so its type "
                               "must be an array, not %s", o->name,
                               o->is_output ? "an output" : "not a scalar `()`", ty_name(t));
                    ok = false;
                }
                o->scalar_ok = true;
                o->view_ndim = 0;
            } else if (t->ndim == dims[0] || (dims[0] == 0 && t->ndim == 1)) {
                o->view_ndim = t->ndim;
            } else {
                sema_error(e->loc, "parameter '%s' has %d core dimension%s in the layout "
                           "but its type %s has %d", o->name, dims[0],
                           dims[0] == 1 ? "" : "s", ty_name(t), t->ndim);
                ok = false;
            }
            if (o->view_ndim > maxview)
                maxview = o->view_ndim;
        }
        if (!ok)
            continue;
        g.nloop = UF_MAX_NDIM - maxview;
        uf_names(u, &g);
        uf_add_sig(u, &g);
    }
    /* Not a device function: its body becomes the kernels' bodies. */
    fd->nsigs = 0;
}

/* Does an operator that refuses floats occur in e (for cuda.reduce's
 * element types)? */
static Visit uf_int_op(const Node *n, void *ctx)
{
    (void)ctx;
    if ((n->kind == E_BINOP || n->kind == S_AUGASSIGN) &&
        (n->op == OP_BITAND || n->op == OP_BITOR || n->op == OP_BITXOR ||
         n->op == OP_LSHIFT || n->op == OP_RSHIFT))
        return VISIT_STOP;
    if (n->kind == E_UNARY && n->op == OP_INVERT)
        return VISIT_STOP;
    return VISIT_CHILDREN;
}

static bool uf_int_only(const Node *n)
{
    return node_walk(n, uf_int_op, NULL);
}

/* Does e use what a complex operand refuses (ordering, // %, calls such as
 * min or abs, whose results are not the element type)?  Then cuda.reduce
 * makes no complex kernels (numba-cuda's Reduce would fail to compile
 * them). */
static Visit uf_real_op(const Node *n, void *ctx)
{
    (void)ctx;
    if (n->kind == E_CALL)
        return VISIT_STOP;
    if ((n->kind == E_BINOP || n->kind == S_AUGASSIGN) &&
        (n->op == OP_FLOORDIV || n->op == OP_MOD))
        return VISIT_STOP;
    if (n->kind == E_COMPARE)
        for (int i = 0; i + 1 < n->args.len; i++)
            if (n->ops[i] != OP_EQ && n->ops[i] != OP_NE)
                return VISIT_STOP;
    return VISIT_CHILDREN;
}

static bool uf_real_only(const Node *n)
{
    return node_walk(n, uf_real_op, NULL);
}

/* @cuda.reduce on `def op(a, b)`: one kernel per element type that numba's
 * Reduce would compile for (every numeric type; integers only when the
 * operator uses bit operations, which refuse floats; complex ones only when
 * it uses nothing that refuses them). */
static void uf_reduce(UFunc *u, Node *d)
{
    FuncDef *fd = u->fd;
    if (d->kind == E_CALL) {
        sema_error(d->loc, "@cuda.reduce takes no arguments");
        return;
    }
    if (fd->def->params.len != 2) {
        sema_error(fd->def->loc, "a cuda.reduce operator takes two arguments, '%s' takes %d",
                   u->name, fd->def->params.len);
        return;
    }
    bool ints = false, reals = false;
    for (int i = 0; i < fd->def->body.len; i++) {
        ints |= uf_int_only(fd->def->body.items[i]);
        reals |= uf_real_only(fd->def->body.items[i]);
    }
    for (int k = 0; k < TY_NSCALAR; k++) {
        Type *t = ty_scalar[k];
        if (ty_info(t)->cls == SC_BOOL || (ints && !ty_is_int(t)))
            continue;
        if (ty_is_complex(t) && reals)
            continue;
        UfSig g = {.nops = 1, .nloop = 1};
        g.ops = arena_alloc(sizeof *g.ops);
        g.ops[0] = (UfOp){.name = "arr", .type = ty_array(t, 1, false, SPACE_GLOBAL),
                          .elem = t, .view_ndim = 1};
        g.text = arena_printf("%s[:]", ty_name(t));
        uf_names(u, &g);
        uf_add_sig(u, &g);
    }
    fd->nsigs = 0;
    u->nin = 1;
}

void ufunc_decorator(FuncDef *fd, Node *d)
{
    Node *call = d->kind == E_CALL ? d : NULL;
    Node *callee = call ? call->lhs : d;
    const char *which = callee->kind == E_ATTR ? callee->name : NULL;
    if (callee->kind == E_NAME) {
        const Global *g = sema_global(callee->name);
        which = g && g->kind == GLOBAL_PATH ? g->path : NULL;
    }
    if (!which)
        die("ufunc_decorator: not a ufunc decorator");
    UFunc *u = arena_alloc(sizeof *u);
    u->name = fd->name;
    u->fd = fd;
    u->loc = d->loc;
    fd->is_kernel = false;
    fd->opt.device = true;
    if (strcmp(which, "vectorize") == 0) {
        u->kind = UF_VECTORIZE;
        uf_vectorize(u, call);
    } else if (strcmp(which, "guvectorize") == 0) {
        u->kind = UF_GUVECTORIZE;
        uf_guvectorize(u, call);
    } else {
        u->kind = UF_REDUCE;
        uf_reduce(u, d);
    }
    fd->ufunc = u;
}

/* NAME = cuda.reduce(lambda a, b: EXPR)  ==>  @cuda.reduce def NAME(a, b): return EXPR */
Node *ufunc_reduce_lambda(const char *name, Node *call)
{
    if (call->args.len != 1 || call->kwargs.len != 0) {
        sema_error(call->loc, "cuda.reduce takes one argument, the binary operator "
                   "(a lambda or a function)");
        return NULL;
    }
    Node *fn = call->args.items[0];
    if (fn->kind != E_LAMBDA) {
        sema_error(fn->loc, "cuda.reduce(...) takes a lambda here, e.g. cuda.reduce(lambda "
                   "a, b: a + b); decorate a def with @cuda.reduce for longer operators");
        return NULL;
    }
    Node *def = node_new(S_FUNCDEF, fn->loc);
    def->name = name;
    def->params = fn->params;
    Node *ret = node_new(S_RETURN, fn->lhs->loc);
    ret->lhs = fn->lhs;
    nl_push(&def->body, ret);
    nl_push(&def->decorators, call->lhs);
    return def;
}

/* ------------------------------------------------------------------ */
/* The kernels                                                         */
/* ------------------------------------------------------------------ */

/* Every node of a generated tree points at the decorator. */
static void uf_relocate_slot(Node **slot, void *loc)
{
    (*slot)->loc = *(Loc *)loc;
    node_each_slot(*slot, uf_relocate_slot, loc);
}

static void uf_relocate(Node *n, Loc loc)
{
    n->loc = loc;
    node_each_slot(n, uf_relocate_slot, &loc);
}

/* "krt_u_l0, krt_u_l1, ..." */
static const char *uf_loop_index(int nloop)
{
    StrBuf b = {0};
    for (int j = 0; j < nloop; j++)
        sb_printf(&b, "%skrt_u_l%d", j ? ", " : "", j);
    return sb_take(&b);
}

/* The head every (gu)vectorize kernel shares: one thread per loop index,
 * the flat index split over the loop dimensions of `out`'s view (a plain
 * 1-D run when only the last one is longer than 1). */
static void uf_kernel_head(StrBuf *b, int nloop, const char *out)
{
    sb_puts(b, "    krt_u_i = krt_cuda.grid(1)\n"
               "    if krt_u_i >= krt_u_n:\n"
               "        return\n");
    if (nloop == 1) {
        sb_puts(b, "    krt_u_l0 = krt_u_i\n");
        return;
    }
    sb_printf(b, "    if krt_u_n == %s.shape[%d]:\n", out, nloop - 1);
    for (int j = 0; j < nloop - 1; j++)
        sb_printf(b, "        krt_u_l%d = 0\n", j);
    sb_printf(b, "        krt_u_l%d = krt_u_i\n", nloop - 1);
    sb_puts(b, "    else:\n        krt_u_r = krt_u_i\n");
    for (int j = nloop - 1; j >= 1; j--) {
        sb_printf(b, "        krt_u_l%d = krt_u_r %% %s.shape[%d]\n", j, out, j);
        sb_printf(b, "        krt_u_r = krt_u_r // %s.shape[%d]\n", out, j);
    }
    sb_puts(b, "        krt_u_l0 = krt_u_r\n");
}

/* An input that may be a host scalar: the scalar, or the element. */
static const char *uf_input_value(int k, const char *idx)
{
    return arena_printf("(krt_u_s%d if (krt_u_mask >> %d) & 1 else krt_u_a%d[%s])", k, k, k,
                        idx);
}

/* The parameter list (and signature) of a (gu)vectorize kernel. */
static void uf_kernel_params(StrBuf *b, UFunc *u, UfSig *s, Signature *ks)
{
    PtrVec types = {0};
    sb_printf(b, "def %s(", s->kname);
    for (int k = 0; k < s->nops; k++) {
        UfOp *o = &s->ops[k];
        Type *view = ty_array(o->elem, s->nloop + o->view_ndim, false, SPACE_GLOBAL);
        if (o->scalar_ok) {
            sb_printf(b, "krt_u_a%d, krt_u_s%d, ", k, k);
            vec_push(&types, view);
            vec_push(&types, o->elem);
        } else {
            sb_printf(b, "%s, ", u->kind == UF_VECTORIZE ? "krt_u_out" : o->name);
            vec_push(&types, view);
        }
    }
    sb_puts(b, "krt_u_mask, krt_u_n):\n");
    vec_push(&types, ty_int64);
    vec_push(&types, ty_int64);
    ks->ret = ty_void;
    ks->params = (Type **)types.items;
    ks->nparams = types.len;
}

static Node *uf_parse(const char *text, Loc loc)
{
    Source src = {.path = "<kernc ufunc>", .text = text, .len = strlen(text)};
    Node *m = parse_source(&src);
    if (!m || m->body.len != 1 || ((Node *)m->body.items[0])->kind != S_FUNCDEF)
        die("generated kernel does not parse:\n%s", text);
    Node *def = m->body.items[0];
    uf_relocate(def, loc);
    return def;
}

/* ---- @guvectorize: array parameters see their core dimensions only ---- */

typedef struct GuRewrite {
    UfSig *sig;
    const char *loops;       /* "krt_u_l0, ..." */
    bool failed;
} GuRewrite;

static UfOp *gu_array_param(GuRewrite *G, const Node *e)
{
    if (!e || e->kind != E_NAME)
        return NULL;
    for (int k = 0; k < G->sig->nops; k++) {
        UfOp *o = &G->sig->ops[k];
        if (!o->scalar_ok && strcmp(o->name, e->name) == 0)
            return o;
    }
    return NULL;
}

static Node *gu_name(const char *name, Loc loc)
{
    Node *n = node_new(E_NAME, loc);
    n->name = name;
    return n;
}

static Node *gu_int(int64_t v, Loc loc)
{
    Node *n = node_new(E_INT, loc);
    n->ival = (uint64_t)v;
    n->text = arena_printf("%lld", (long long)v);
    return n;
}

/* A.shape[k] of the kernel's view. */
static Node *gu_shape(const Node *a, int k, Loc loc)
{
    Node *attr = node_new(E_ATTR, loc);
    attr->lhs = gu_name(a->name, a->loc);
    attr->name = "shape";
    Node *sub = node_new(E_SUBSCRIPT, loc);
    sub->lhs = attr;
    sub->rhs = gu_int(k, loc);
    return sub;
}

/* idx -> (l0, ..., idx...) */
static Node *gu_index(GuRewrite *G, Node *idx)
{
    Node *t = node_new(E_TUPLE, idx ? idx->loc : (Loc){0});
    for (int j = 0; j < G->sig->nloop; j++)
        nl_push(&t->args, gu_name(arena_printf("krt_u_l%d", j), t->loc));
    if (idx && idx->kind == E_TUPLE)
        for (int i = 0; i < idx->args.len; i++)
            nl_push(&t->args, idx->args.items[i]);
    else if (idx)
        nl_push(&t->args, idx);
    return t;
}

static void gu_walk(GuRewrite *G, Node **slot);

static void gu_walk_slot(Node **slot, void *G)
{
    gu_walk(G, slot);
}

static void gu_walk(GuRewrite *G, Node **slot)
{
    Node *n = *slot;
    if (!n)
        return;
    int L = G->sig->nloop;
    UfOp *o;
    switch (n->kind) {
    case E_SUBSCRIPT:
        if ((o = gu_array_param(G, n->lhs))) {              /* A[i, j] */
            gu_walk(G, &n->rhs);
            n->rhs = gu_index(G, n->rhs);
            return;
        }
        if (n->lhs->kind == E_ATTR && strcmp(n->lhs->name, "shape") == 0 &&
            (o = gu_array_param(G, n->lhs->lhs))) {          /* A.shape[k] */
            Node *k = sema_fold(n->rhs, false, NULL, NULL);
            if (!k || !ty_is_int(k->type)) {
                sema_error(n->rhs->loc, "in a @guvectorize function, index '%s.shape' with "
                           "a constant", o->name);
                G->failed = true;
                return;
            }
            int64_t v = (int64_t)k->ival;
            if (v < -o->view_ndim || v >= o->view_ndim) {
                sema_error(n->rhs->loc, "'%s' has %d dimension%s; '%s.shape[%lld]' is out "
                           "of range", o->name, o->view_ndim, o->view_ndim == 1 ? "" : "s",
                           o->name, (long long)v);
                G->failed = true;
                return;
            }
            *slot = gu_shape(n->lhs->lhs, (int)(v < 0 ? v + o->view_ndim : v) + L, n->loc);
            return;
        }
        break;
    case E_ATTR:
        if ((o = gu_array_param(G, n->lhs))) {
            if (strcmp(n->name, "shape") == 0) {             /* A.shape */
                Node *t = node_new(E_TUPLE, n->loc);
                for (int d = 0; d < o->view_ndim; d++)
                    nl_push(&t->args, gu_shape(n->lhs, L + d, n->loc));
                *slot = t;
            } else if (strcmp(n->name, "size") == 0) {       /* A.size */
                Node *p = gu_shape(n->lhs, L, n->loc);
                for (int d = 1; d < o->view_ndim; d++) {
                    Node *m = node_new(E_BINOP, n->loc);
                    m->op = OP_MUL;
                    m->lhs = p;
                    m->rhs = gu_shape(n->lhs, L + d, n->loc);
                    p = m;
                }
                *slot = p;
            } else if (strcmp(n->name, "ndim") == 0) {       /* A.ndim */
                *slot = gu_int(o->view_ndim, n->loc);
            } else {
                sema_error(n->loc, "in a @guvectorize function, '%s.%s' is not supported "
                           "(only shape, size and ndim)", o->name, n->name);
                G->failed = true;
            }
            return;
        }
        break;
    case E_CALL:
        if (n->lhs->kind == E_NAME && strcmp(n->lhs->name, "len") == 0 &&
            !sema_global("len") && n->args.len == 1 && n->kwargs.len == 0 &&
            (o = gu_array_param(G, n->args.items[0]))) {     /* len(A) */
            *slot = gu_shape(n->args.items[0], L, n->loc);
            return;
        }
        if (n->lhs->kind == E_ATTR && n->lhs->lhs->kind == E_ATTR &&
            strcmp(n->lhs->lhs->name, "atomic") == 0 && n->args.len >= 2 &&
            gu_array_param(G, n->args.items[0])) {           /* cuda.atomic.add(A, i, v) */
            for (int i = 1; i < n->args.len; i++)
                gu_walk(G, (Node **)&n->args.items[i]);
            n->args.items[1] = gu_index(G, n->args.items[1]);
            return;
        }
        break;
    case E_NAME:
        if ((o = gu_array_param(G, n))) {
            sema_error(n->loc, "in a @guvectorize function, array parameter '%s' can only "
                       "be indexed or measured (%s[i], %s.shape, %s.size, %s.ndim, len(%s)); "
                       "passing it on or assigning it is not supported yet", o->name, o->name,
                       o->name, o->name, o->name, o->name);
            G->failed = true;
        }
        return;
    case S_FUNCDEF: case E_LAMBDA:
        return;   /* refused by type.c in any case */
    default:
        break;
    }
    node_each_slot(n, gu_walk_slot, G);
}

static Node *uf_vectorize_kernel(UFunc *u, UfSig *s, Signature *ks)
{
    StrBuf b = {0};
    uf_kernel_params(&b, u, s, ks);
    uf_kernel_head(&b, s->nloop, "krt_u_out");
    const char *idx = uf_loop_index(s->nloop);
    sb_printf(&b, "    krt_u_out[%s] = %s(", idx, u->name);
    for (int k = 0; k < u->nin; k++)
        sb_printf(&b, "%s%s", k ? ", " : "", uf_input_value(k, idx));
    sb_puts(&b, ")\n");
    Node *def = uf_parse(b.s, u->loc);
    sb_free(&b);
    return def;
}

static Node *uf_guvectorize_kernel(UFunc *u, UfSig *s, Signature *ks)
{
    StrBuf b = {0};
    uf_kernel_params(&b, u, s, ks);
    uf_kernel_head(&b, s->nloop, s->ops[u->nin].name);
    const char *idx = uf_loop_index(s->nloop);
    for (int k = 0; k < s->nops; k++)
        if (s->ops[k].scalar_ok)
            sb_printf(&b, "    %s = %s\n", s->ops[k].name, uf_input_value(k, idx));
    Node *def = uf_parse(b.s, u->loc);
    sb_free(&b);
    GuRewrite G = {.sig = s, .loops = idx};
    for (int i = 0; i < u->fd->def->body.len; i++) {
        Node *st = node_clone(u->fd->def->body.items[i]);
        gu_walk(&G, &st);
        nl_push(&def->body, st);
    }
    return G.failed ? NULL : def;
}

/* numba's gpu_reduce_block_strided (numba/cuda/kernels/reduction.py) with
 * its device functions inlined and the same association order: the block
 * of 128 (4 warps) strides over the array, each warp reduces its 32
 * partials by a halving tree, then (sm[0] op sm[2]) op (sm[1] op sm[3]);
 * the partial block (fewer than 128 threads) trees its full warps and runs
 * the others sequentially, then folds the warps in order; init joins the
 * first partial.  numba's cuda.syncwarp() calls become syncthreads(),
 * always reached by the whole block (same values, no divergent barrier). */
static const char uf_reduce_template[] =
    "def %1$s(arr, partials, init, use_init):\n"
    "    krt_u_sm = krt_cuda.shared.array((4, 33), dtype=krt_u_%2$s)\n"
    "    krt_u_tid = krt_cuda.threadIdx.x\n"
    "    krt_u_warpid = krt_u_tid // 32\n"
    "    krt_u_laneid = krt_u_tid %% 32\n"
    "    if krt_cuda.blockDim.x == 128:\n"
    "        krt_u_start = krt_u_tid + krt_cuda.blockDim.x * krt_cuda.blockIdx.x\n"
    "        krt_u_step = krt_cuda.blockDim.x * krt_cuda.gridDim.x\n"
    "        krt_u_tmp = arr[krt_u_start]\n"
    "        for krt_u_i in range(krt_u_start + krt_u_step, arr.size, krt_u_step):\n"
    "            krt_u_tmp = %3$s(krt_u_tmp, arr[krt_u_i])\n"
    "        krt_cuda.syncthreads()\n"
    "        krt_u_sm[krt_u_warpid, krt_u_laneid] = krt_u_tmp\n"
    "        krt_cuda.syncthreads()\n"
    "        krt_u_width = 16\n"
    "        while krt_u_width:\n"
    "            if krt_u_laneid < krt_u_width:\n"
    "                krt_u_old = krt_u_sm[krt_u_warpid, krt_u_laneid]\n"
    "                krt_u_sm[krt_u_warpid, krt_u_laneid] = %3$s(krt_u_old, "
    "krt_u_sm[krt_u_warpid, krt_u_laneid + krt_u_width])\n"
    "            krt_cuda.syncthreads()\n"
    "            krt_u_width //= 2\n"
    "        if krt_u_tid < 2:\n"
    "            krt_u_sm[krt_u_tid, 0] = %3$s(krt_u_sm[krt_u_tid, 0], krt_u_sm[krt_u_tid + 2, 0])\n"
    "        krt_cuda.syncthreads()\n"
    "        if krt_u_tid == 0:\n"
    "            partials[krt_cuda.blockIdx.x] = %3$s(krt_u_sm[0, 0], krt_u_sm[1, 0])\n"
    "    else:\n"
    "        krt_u_size = arr.size\n"
    "        krt_u_value = arr[krt_u_tid]\n"
    "        krt_u_sm[krt_u_warpid, krt_u_laneid] = krt_u_value\n"
    "        krt_cuda.syncthreads()\n"
    "        krt_u_full = (krt_u_warpid + 1) * 32 < krt_u_size\n"
    "        krt_u_width = 16\n"
    "        while krt_u_width:\n"
    "            if krt_u_full and krt_u_laneid < krt_u_width:\n"
    "                krt_u_old = krt_u_sm[krt_u_warpid, krt_u_laneid]\n"
    "                krt_u_sm[krt_u_warpid, krt_u_laneid] = %3$s(krt_u_old, "
    "krt_u_sm[krt_u_warpid, krt_u_laneid + krt_u_width])\n"
    "            krt_cuda.syncthreads()\n"
    "            krt_u_width //= 2\n"
    "        if not krt_u_full and krt_u_laneid == 0:\n"
    "            krt_u_base = krt_u_warpid * 32\n"
    "            for krt_u_i in range(1, krt_u_size - krt_u_base):\n"
    "                krt_u_sm[krt_u_warpid, 0] = %3$s(krt_u_sm[krt_u_warpid, 0], "
    "krt_u_sm[krt_u_warpid, krt_u_i])\n"
    "        krt_cuda.syncthreads()\n"
    "        if krt_u_tid == 0:\n"
    "            krt_u_nwarps = (krt_cuda.blockDim.x + 31) // 32\n"
    "            krt_u_result = krt_u_sm[0, 0]\n"
    "            for krt_u_i in range(1, krt_u_nwarps):\n"
    "                krt_u_result = %3$s(krt_u_result, krt_u_sm[krt_u_i, 0])\n"
    "            partials[krt_cuda.blockIdx.x] = krt_u_result\n"
    "    if use_init and krt_u_tid == 0 and krt_cuda.blockIdx.x == 0:\n"
    "        partials[0] = %3$s(partials[0], init)\n";

static Node *uf_reduce_kernel(UFunc *u, UfSig *s, Signature *ks)
{
    Type *t = s->ops[0].elem;
    char *text = arena_printf(uf_reduce_template, s->kname, ty_name(t), u->name);
    Type **params = arena_alloc(sizeof *params * 4);
    params[0] = params[1] = ty_array(t, 1, false, SPACE_GLOBAL);
    params[2] = t;
    params[3] = ty_bool;
    *ks = (Signature){.ret = ty_void, .params = params, .nparams = 4};
    return uf_parse(text, u->loc);
}

void ufunc_type_all(const PtrVec *fdefs, int errors_before)
{
    bool any = false;
    for (int i = 0; i < fdefs->len && !any; i++)
        any = ((FuncDef *)fdefs->items[i])->ufunc != NULL;
    if (!any)
        return;
    /* After an error, a kernel that calls the user's function would only
     * repeat it; a guvectorize body is the user's own code, still checked. */
    bool quiet_calls = error_count() > errors_before;
    sema_bind_path("krt_cuda", "cuda");
    for (int k = 0; k < TY_NSCALAR; k++)
        sema_bind_path(arena_printf("krt_u_%s", ty_name(ty_scalar[k])), ty_name(ty_scalar[k]));
    for (int i = 0; i < fdefs->len; i++) {
        UFunc *u = ((FuncDef *)fdefs->items[i])->ufunc;
        if (!u || (quiet_calls && u->kind != UF_GUVECTORIZE))
            continue;
        for (int j = 0; j < u->nsigs; j++) {
            UfSig *s = &u->sigs[j];
            Signature ks;
            Node *def = u->kind == UF_VECTORIZE     ? uf_vectorize_kernel(u, s, &ks)
                        : u->kind == UF_GUVECTORIZE ? uf_guvectorize_kernel(u, s, &ks)
                                                    : uf_reduce_kernel(u, s, &ks);
            if (!def)
                continue;
            FuncDef *kfd = arena_alloc(sizeof *kfd);
            kfd->name = s->kname;
            kfd->c_named = true;
            kfd->def = def;
            kfd->is_kernel = true;
            kfd->opt.debug = u->fd->opt.debug;
            kfd->sigs = arena_alloc(sizeof ks);
            kfd->sigs[0] = ks;
            kfd->nsigs = 1;
            s->kfd = kfd;
            type_kernel(kfd, &kfd->sigs[0], u->loc);
        }
    }
}
