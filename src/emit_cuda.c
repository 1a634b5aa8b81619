/*
 * emit_cuda.c - the CUDA half of FILE.cu: __device__ functions and
 * __global__ kernels, from the shared printer of emit_expr.c.
 */
#include "emit.h"

/* ------------------------------------------------------------------ */
/* CUDA functions                                                      */
/* ------------------------------------------------------------------ */

void emit_cuda_func(Emitter *E, Func *f)
{
    func_begin(E, f, MODE_CUDA);
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
    func_close(E, f, &body);
}

/* ------------------------------------------------------------------ */
