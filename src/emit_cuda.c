/*
 * emit_cuda.c - the CUDA half of FILE.cu: __device__ functions and
 * __global__ kernels, from the shared printer of emit_expr.c.
 */
#include "emit.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Options that are nvcc flags                                         */
/* ------------------------------------------------------------------ */

/* lineinfo=True is numba's -lineinfo to NVVM: nvcc's -lineinfo maps the
 * SASS to the #line directives, that is to the .kern lines.  It is a
 * flag of the whole file (nvcc has no per-kernel form). */
const char *emit_nvcc_flags(const Program *p)
{
    bool lineinfo = false, all_fast = true, kernels = false;
    for (int i = 0; i < p->nfuncs; i++) {
        lineinfo |= p->funcs[i]->opt.lineinfo;
        if (p->funcs[i]->is_kernel) {
            kernels = true;
            all_fast &= p->funcs[i]->opt.fastmath;
        }
    }
    /* fastmath=True: numba-cuda's NVVM options (ftz=1, prec-div=0,
     * prec-sqrt=0, fma=1) are nvcc's -ftz=true -prec-div=false
     * -prec-sqrt=false (-fmad=true is nvcc's default); flags of the whole
     * file, so only where every kernel asks for fastmath (otherwise the
     * code itself gives the division and sqrt, without flush-to-zero) */
    const char *fast = kernels && all_fast ? "-ftz=true -prec-div=false -prec-sqrt=false" : "";
    /* dev (issue 9): calls of foreign __device__ functions (cuda.declare_device)
     * are linked by nvcc's device linker */
    const char *rdc = ffi_count() ? "-rdc=true" : "";
    StrBuf b = {0};
    const char *parts[3] = {lineinfo ? "-lineinfo" : "", fast, rdc};
    for (int i = 0; i < 3; i++)
        if (*parts[i])
            sb_printf(&b, "%s%s", b.len ? " " : "", parts[i]);
    return b.len ? sb_take(&b) : "";
}

/* ------------------------------------------------------------------ */
/* CUDA functions                                                      */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* --assume-noalias                                                    */
/* ------------------------------------------------------------------ */

/* What a kernel does with each array parameter. */
typedef struct NoaliasUse {
    const Func *f;
    bool *indexed, *written;
} NoaliasUse;

static int param_of(const NoaliasUse *u, const Node *n)
{
    if (!n || n->kind != E_VAR || !n->var || n->var->kind != VAR_PARAM)
        return -1;
    int k = n->var->index;
    return k >= 0 && k < u->f->nparams && u->f->params[k] == n->var ? k : -1;
}

static Visit noalias_visit(const Node *n, void *ctx)
{
    NoaliasUse *u = ctx;
    int k;
    switch (n->kind) {
    case E_INDEX:
        if ((k = param_of(u, n->lhs)) >= 0)
            u->indexed[k] = true;
        break;
    case S_ASSIGN:
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_INDEX && (k = param_of(u, t->lhs)) >= 0)
                u->written[k] = true;
        }
        break;
    case E_API:
    case E_CALLFN:
    case S_WARPOP:
        /* atomics write; a device function or anything else that takes
         * the array itself may */
        for (int i = 0; i < n->args.len; i++)
            if ((k = param_of(u, n->args.items[i])) >= 0) {
                u->written[k] = true;
                if (n->kind == E_API && n->api && n->api->cls == AC_ATOMIC && i == 0)
                    u->indexed[k] = true;
            }
        break;
    default:
        break;
    }
    return VISIT_CHILDREN;
}

/* An element type __ldg has an overload for. */
static bool ldg_type(const Type *t)
{
    return ty_is_int(t) || t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64;
}

/* Which parameters of kernel f get a __restrict__ pointer, and which are
 * read only (E->noalias_*). */
static void noalias_scan(Emitter *E, Func *f)
{
    int n = f->nparams ? f->nparams : 1;
    NoaliasUse u = {f, arena_alloc(sizeof(bool) * (size_t)n), arena_alloc(sizeof(bool) * (size_t)n)};
    for (int i = 0; i < f->def->body.len; i++)
        node_walk(f->def->body.items[i], noalias_visit, &u);
    E->noalias_ptr = arena_alloc(sizeof(bool) * (size_t)n);
    E->noalias_ro = arena_alloc(sizeof(bool) * (size_t)n);
    for (int k = 0; k < f->nparams; k++) {
        Type *t = f->params[k]->type;
        if (!t || t->kind != TY_ARRAY || t->space != SPACE_GLOBAL || !t->elem || !ty_is_scalar(t->elem))
            continue;
        E->noalias_ptr[k] = u.indexed[k];
        E->noalias_ro[k] = u.indexed[k] && !u.written[k] && ldg_type(t->elem);
    }
}

/* ------------------------------------------------------------------ */
/* CUDA functions                                                      */
/* ------------------------------------------------------------------ */

/* dev (issue 9): the prototype of a recursive device function, printed
 * before every function (mutual recursion calls one defined later). */
void emit_cuda_func_proto(Emitter *E, Func *f)
{
    outf(E, "static __device__ %s KRT_MAYBE_UNUSED %s %s(%s);",
         f->opt.inline_ ? "__forceinline__" : "inline", func_returns_value(f) ? t_c(f->ret) : "void",
         fn_cname(f), param_list(f, ""));
}

/* f as CUDA; the 32-bit variant of kernel f (E->i32) is NAME__i32. */
static void cuda_func_text(Emitter *E, Func *f)
{
    func_begin(E, f, MODE_CUDA);
    bool noalias = f->is_kernel && E->opt && E->opt->assume_noalias && !E->debug;
    if (noalias)
        noalias_scan(E, f);
    StrBuf body = {0};
    func_body(E, f, &body);
    bool nonvoid = func_returns_value(f);
    E->indent = 0;

    emit_lineno(E, f->def->loc);
    /* max_registers=N: nvcc's __maxnreg__ (CUDA 12.4+), the per-kernel
     * form of -maxrregcount that numba passes to NVVM */
    const char *maxreg = f->opt.max_registers > 0 ? arena_printf("__maxnreg__(%d) ", f->opt.max_registers) : "";
    /* extern "C": profilers and cuobjdump show the kernel as the user named
     * it (the launcher is NAME__launch, the header's NAME forwards to it) */
    if (f->is_kernel)
        outf(E, "KRT_EXTERN_C __global__ void %s%s%s(%s)", maxreg, fn_cname(f), E->i32 ? "__i32" : "",
             param_list(f, ""));
    else
        outf(E, "static __device__ %s KRT_MAYBE_UNUSED %s %s(%s)",
             f->opt.inline_ ? "__forceinline__" : "inline", nonvoid ? t_c(f->ret) : "void",
             fn_cname(f), param_list(f, ""));
    outf(E, "{");
    E->indent = 1;
    if (noalias) {
        /* --assume-noalias: the arrays never overlap */
        for (int k = 0; k < f->nparams; k++)
            if (E->noalias_ptr[k]) {
                Var *v = f->params[k];
                outf(E, "%schar *__restrict__ const %s = %s.data;", E->noalias_ro[k] ? "const " : "",
                     noalias_data(E, v), v->cname ? v->cname : v->name);
            }
    }
    func_close(E, f, &body);
    E->noalias_ptr = E->noalias_ro = NULL;
}

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* The 32-bit variant of a kernel (issue 11)                          */
/* ------------------------------------------------------------------ */

/* numba types cuda.grid, lengths and index arithmetic as int64, and the
 * kernel NAME computes them so.  Most launches are smaller: where
 * gridDim.x * blockDim.x <= 2^30, gridDim.x <= 2^24 and every array
 * parameter has extents < 2^30 and strides in int32 (krt_launch_fits32,
 * runtime/krt.c), range.c proves more of those values in int32
 * (range_func_i32), and NAME__i32 computes them in 32 bits, with the
 * same results.  The launch picks NAME__i32 when the arguments satisfy
 * the conditions (KRT_I32=0 in the environment: never).  A kernel gets the
 * variant only where its text differs from NAME's (printed only where
 * range_i32_matters says it can). */
static bool i32_differs(const StrBuf *a, const StrBuf *b)
{
    const char *x = a->s ? strstr(a->s, "\n{\n") : NULL, *y = b->s ? strstr(b->s, "\n{\n") : NULL;
    return !x || !y || strcmp(x, y) != 0;
}

void emit_cuda_func(Emitter *E, Func *f)
{
    bool debug = f->opt.debug || (E->opt && E->opt->debug);
    if (!f->is_kernel || debug) {
        cuda_func_text(E, f);
        return;
    }
    StrBuf gen = {0}, v32 = {0};
    StrBuf *out = swap_out(E, &gen);
    int errors = error_count();
    cuda_func_text(E, f);
    if (error_count() == errors) {
        /* speed (issue 7): printed only where it can differ; the tree
         * keeps the general intervals */
        range_func_i32(f);
        if (range_i32_matters(f)) {
            swap_out(E, &v32);
            E->i32 = true;
            cuda_func_text(E, f);
            E->i32 = false;
        }
        range_i32_end();
    }
    swap_out(E, out);
    sb_putn(E->out, gen.s ? gen.s : "", gen.len);
    if (v32.len && i32_differs(&gen, &v32)) {
        sb_putn(E->out, v32.s, v32.len);
        vec_push(&E->i32_kernels, f);
    }
    sb_free(&gen);
    sb_free(&v32);
}
