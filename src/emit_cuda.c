/*
 * emit_cuda.c - the CUDA half of FILE.cu: __device__ functions and
 * __global__ kernels, from the shared printer of emit_expr.c.
 */
#include "emit.h"

/* ------------------------------------------------------------------ */
/* Options that are nvcc flags                                         */
/* ------------------------------------------------------------------ */

/* lineinfo=True is numba's -lineinfo to NVVM: nvcc's -lineinfo maps the
 * SASS to the #line directives, that is to the .kern lines.  It is a
 * flag of the whole file (nvcc has no per-kernel form). */
const char *emit_nvcc_flags(const Program *p)
{
    bool lineinfo = false;
    for (int i = 0; i < p->nfuncs; i++)
        lineinfo |= p->funcs[i]->opt.lineinfo;
    /* dev (issue 9): calls of foreign __device__ functions (cuda.declare_device)
     * are linked by nvcc's device linker */
    if (ffi_count())
        return lineinfo ? "-lineinfo -rdc=true" : "-rdc=true";
    return lineinfo ? "-lineinfo" : "";
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

void emit_cuda_func(Emitter *E, Func *f)
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
        outf(E, "KRT_EXTERN_C __global__ void %s%s(%s)", maxreg, fn_cname(f), param_list(f, ""));
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
