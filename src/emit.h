/*
 * emit.h - what the emitter's files share (they alone include it): the
 * Emitter state and the functions one emitter file calls in another (the
 * API rows they print are api.def's, by emission kind and spelling).
 *
 *   emit_expr.c  names, types, expressions and per-thread statements, for
 *                both targets (the shared printer);
 *   emit_builtin.c  the Python builtins and char sequences' len() and
 *                comparisons (split from emit_expr.c for size);
 *   emit_cuda.c  __device__ functions and __global__ kernels;
 *   lower_cpu.c  the CPU lowering: each kernel into the block-level form
 *                of lower_cpu.h (regions between barriers, warp cuts,
 *                inlining of functions that synchronise);
 *   emit_cpu.c   the CPU version of every device function, and of every
 *                kernel from its block-level form;
 *   emit_host.c  kernel descriptors, launchers, the module table, the
 *                ufunc host functions, the header, and the three entry
 *                points emit_cuda, emit_c and emit_header.
 */
#ifndef KERNC_EMIT_H
#define KERNC_EMIT_H

#include "kernc.h"

/* ------------------------------------------------------------------ */
/* The emitter                                                         */
/* ------------------------------------------------------------------ */

typedef enum Mode {
    MODE_CUDA,        /* CUDA C: __device__ functions, __global__ kernels */
    MODE_CPU,         /* C for the CPU backend */
} Mode;

typedef struct Emitter {
    StrBuf *out;
    Program *prog;
    const Options *opt;
    const char *path;        /* the .kern file as given */
    const char *line_file;   /* the same, escaped for #line */
    const char *line_tail;   /* ` "line_file"\n`, what follows each #line's number */
    size_t line_tail_len;
    const char *base_file;   /* its base name, escaped, for run-time messages */
    const char *modsym;      /* emit_module_symbol's (krt_exception_<modsym>) */
    int indent;
    Mode mode;
    bool c_target;           /* emit_c: CPU failures are errors */

    /* The function being emitted */
    Func *fn;
    bool frame;              /* CPU kernel split at barriers: exits set the
                                thread's state */
    bool thread_loop;        /* inside a CPU thread loop: exits are gotos */
    int exit_label;          /* the thread loop's exit label number */
    bool exit_used;
    int cloops;              /* C loops open inside the function or region */
    bool *param_read, *local_read;
    bool used_s;             /* the CPU kernel reads its shared struct */
    bool debug;              /* bounds checks and asserts (debug=True, -g) */
    bool used_sink;          /* a checked CPU access needs krt_sinkv */
    int line, axis;          /* of the array access being checked */
    bool cpu_failed;         /* the CPU version cannot be made */
    Loc cpu_fail_loc;
    const char *cpu_fail_msg;

    /* CPU kernels: the block-level form being printed (lower_cpu.h) */
    const struct EmitCpuHooks *cpu_hooks;
    const struct CpuKernel *cpu;
    const struct CpuFunc *cpu_vars;    /* where variables live (var_ref) */
    const struct CpuBind *cpu_binds;   /* inlined calls' results (ex) */
    const struct CpuBlock *cpu_region; /* the region: its thread exits */
    const int *cpu_priv;     /* issue 10: by kernel parameter, the slot of its
                                privatised atomics (krt_pvK), or -1 */
    bool cpu_chunked;        /* issue 10: the CPU kernel has loops over chunks
                                of threads (KRT_SIMD_CLONES) */
    bool inlined;            /* E->fn is a callee inlined into the kernel */
    const char *inl_ret;     /* its result's frame field (NULL: none) */
    /* Kernels whose CPU code has a `struct NAME__shared` */
    PtrVec shared_structs;

    /* --assume-noalias, for the CUDA kernel being emitted (emit_cuda.c;
     * NULL otherwise), by parameter index: reached through its
     * __restrict__ pointer krt_rp_NAME; read only (loads through __ldg) */
    bool *noalias_ptr, *noalias_ro;
    /* issue 11 (sass): printing a kernel's 32-bit variant (emit_cuda.c):
     * the parameters' strides fit in int32 (range_i32_param) */
    bool i32;
    PtrVec i32_kernels;      /* the kernels that have one */
    /* fastmath=True's NVVM options (ftz, prec-div=0, prec-sqrt=0) hold for
     * the function being printed: its own fastmath, or a device function
     * that only fastmath kernels reach (numba-cuda gives the kernel's NVVM
     * options to the whole module, its device functions too) */
    bool nvvm_fast;

    /* issue 13 (hard): --racecheck, the kind of the checked CPU access
     * being printed (KRT_RC_READ, KRT_RC_WRITE, KRT_RC_ATOMIC) */
    int rc_kind;

    /* Expression temporaries of the function: krt_tmpN */
    Type **tmp_types;
    int ntmp, tmp_cap;

    /* Tuple types used anywhere, each emitted once as a struct */
    PtrVec tuples;
    PtrVec records;          /* rec: the record types the code uses */
    /* Device functions whose CPU version could not be made */
    PtrVec cpu_failed_funcs;
} Emitter;

/* Scalar type classes (kernrt_types.h's class column) */
static inline bool t_scalar(const Type *t) { return ty_is_scalar(t); }
static inline bool t_int(const Type *t) { return ty_is_int(t); }
static inline bool t_signed(const Type *t) { return ty_is_signed(t); }
static inline bool t_unsigned(const Type *t) { return t_scalar(t) && ty_info(t)->cls == SC_UINT; }
static inline bool t_float(const Type *t) { return ty_is_float(t); }

/* emit_expr.c */
void outf(Emitter *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_lineno(Emitter *E, Loc loc);
void cpu_unsupported(Emitter *E, Loc loc, const char *msg);
const char *t_c(const Type *t);
const char *t_elem(const Type *t);   /* rec: array elements, struct members */
const char *tuple_cname(const Type *t);
const char *tuple_member(const Type *t, int k);   /* arr: f0, or a named tuple's field */
const char *t_dtype(const Type *t);
void note_tuple(Emitter *E, Type *t);
void walk_tuples(Emitter *E, Node *n);
bool has_barrier(const Node *n);
bool func_has_split(const Func *f);
void name_vars(Func *f);
const char *fn_cname(const Func *f);
const char *unparen(const char *s);
const char *ex_cond(Emitter *E, Node *n);
bool func_has_shared(const Func *f);
PtrVec dsh_funcs(Func *g);
const char *var_ref(Emitter *E, Var *v);
const char *fmt_int(const Type *t, uint64_t bits);
const char *fmt_float(const Type *t, double d);
const char *conv(const char *s, const Type *from, const Type *to);
const char *ex_as(Emitter *E, Node *n, const Type *to);
int64_t cpu_priv_need(const Emitter *E, const Node *n, int *slot);
/* emit_expr.c's helpers that emit_builtin.c (split from it) uses */
const char *t_suffix(const Type *t);
const char *t_libm(const Type *t);
const char *ex_shape(Emitter *E, Node *arr, int k);
const char *ex_binop(Emitter *E, Node *n);
const char *ex_builtin(Emitter *E, Node *n);   /* emit_builtin.c: an EK_BUILTIN call */
const char *array_value(Emitter *E, Node *n);
const char *ex(Emitter *E, Node *n);
/* --assume-noalias: the __restrict__ pointer of array parameter v of the
 * kernel being emitted (E->noalias_ptr, set by emit_cuda.c), or NULL;
 * whether its loads go through __ldg */
const char *noalias_data(const Emitter *E, const Var *v);
bool noalias_readonly(const Emitter *E, const Var *v);
void emit_stmts(Emitter *E, NodeList *l);
bool range_step_known(const Node *s, int64_t *v);
const char *range_cond(Node *s, const char *it, const char *stop, const char *step,
                              const Type *st);
void emit_range_init(Emitter *E, Node *s, const char *it, const char *stop,
                            const char *step, Type *it_t);
const char *zero_of(const Type *t);
void emit_stmt(Emitter *E, Node *s);
bool falls_through(const NodeList *l);
const char *array_dims(const Var *v);
void decl_local(Emitter *E, Var *v);
void decl_tmps(Emitter *E);
void void_unread(Emitter *E, bool params, bool locals);
void func_begin(Emitter *E, Func *f, Mode mode);
StrBuf *swap_out(Emitter *E, StrBuf *b);
const char *param_decl(const Var *v);
const char *param_list(const Func *f, const char *lead);
void func_close(Emitter *E, Func *f, StrBuf *body);
void func_body(Emitter *E, Func *f, StrBuf *body);
bool func_returns_value(const Func *f);

/* emit_cuda.c */
void emit_cuda_func(Emitter *E, Func *f);
void emit_cuda_func_proto(Emitter *E, Func *f);   /* dev: recursive functions */

/* emit_cpu.c */
void emit_cpu_devfunc(Emitter *E, Func *f);
void emit_cpu_devfunc_proto(Emitter *E, Func *f);   /* dev: recursive functions */
void emit_cpu_kernel(Emitter *E, Func *f);
/* The hooks of the shared printer into a CPU kernel's block-level form
 * (E->cpu_hooks; through pointers, so that emit_expr.c stays below
 * emit_cpu.c): a variable where lower_cpu put it, the result field an
 * inlined call stands for (NULL if none), the state a thread exit sets,
 * and a dynamic-shared member a call needs. */
typedef struct EmitCpuHooks {
    const char *(*var_ref)(Emitter *E, const Var *v);
    const char *(*bound)(const Emitter *E, const Node *n);
    const char *(*exit_state)(Emitter *E, const Node *s);
    void (*dsh_member)(Emitter *E, const Func *h);
    bool (*nonneg)(const Emitter *E, const Node *n);   /* issue 10: an index
                                                           that needs no wrap */
} EmitCpuHooks;
extern const EmitCpuHooks emit_cpu_hooks;

/* emit_host.c */

#endif /* KERNC_EMIT_H */
