/*
 * emit.h - what the emitter's files share (they alone include it): the
 * Emitter state, the rows of the API table they spell, and the functions
 * one emitter file calls in another.
 *
 *   emit_expr.c  names, types, expressions and per-thread statements, for
 *                both targets (the shared printer);
 *   emit_cuda.c  __device__ functions and __global__ kernels;
 *   emit_cpu.c   the CPU version of every kernel (regions between barriers,
 *                warp emulation, inlining of functions that synchronise);
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

/* The api.def rows spelled here, found by path: X(id, path).  Paths rather
 * than ApiIds so that this file does not depend on how api.def names the
 * rows it adds; a row missing from api.def simply never matches. */
#define EMIT_APIS(X)                                                         \
    X(EA_ATOMIC_ADD, "cuda.atomic.add") X(EA_ATOMIC_SUB, "cuda.atomic.sub")  \
    X(EA_ATOMIC_MAX, "cuda.atomic.max") X(EA_ATOMIC_MIN, "cuda.atomic.min")  \
    X(EA_ATOMIC_NANMAX, "cuda.atomic.nanmax")                                \
    X(EA_ATOMIC_NANMIN, "cuda.atomic.nanmin")                                \
    X(EA_ATOMIC_AND, "cuda.atomic.and_") X(EA_ATOMIC_OR, "cuda.atomic.or_")  \
    X(EA_ATOMIC_XOR, "cuda.atomic.xor") X(EA_ATOMIC_EXCH, "cuda.atomic.exch") \
    X(EA_ATOMIC_INC, "cuda.atomic.inc") X(EA_ATOMIC_DEC, "cuda.atomic.dec")  \
    X(EA_ATOMIC_CAS, "cuda.atomic.cas")                                      \
    X(EA_ATOMIC_CAS2, "cuda.atomic.compare_and_swap")                        \
    X(EA_SYNCTHREADS, "cuda.syncthreads")                                    \
    X(EA_SYNC_COUNT, "cuda.syncthreads_count")                               \
    X(EA_SYNC_AND, "cuda.syncthreads_and") X(EA_SYNC_OR, "cuda.syncthreads_or") \
    X(EA_SYNCWARP, "cuda.syncwarp")                                          \
    X(EA_FENCE, "cuda.threadfence") X(EA_FENCE_BLOCK, "cuda.threadfence_block") \
    X(EA_FENCE_SYSTEM, "cuda.threadfence_system")                            \
    X(EA_SHFL, "cuda.shfl_sync") X(EA_SHFL_UP, "cuda.shfl_up_sync")          \
    X(EA_SHFL_DOWN, "cuda.shfl_down_sync") X(EA_SHFL_XOR, "cuda.shfl_xor_sync") \
    X(EA_ALL, "cuda.all_sync") X(EA_ANY, "cuda.any_sync")                    \
    X(EA_EQ, "cuda.eq_sync") X(EA_BALLOT, "cuda.ballot_sync")                \
    X(EA_MATCH_ANY, "cuda.match_any_sync") X(EA_MATCH_ALL, "cuda.match_all_sync") \
    X(EA_ACTIVEMASK, "cuda.activemask") X(EA_LANEMASK_LT, "cuda.lanemask_lt") \
    X(EA_LANEID, "cuda.laneid") X(EA_WARPSIZE, "cuda.warpsize")              \
    X(EA_POPC, "cuda.popc") X(EA_BREV, "cuda.brev") X(EA_CLZ, "cuda.clz")    \
    X(EA_FFS, "cuda.ffs") X(EA_FMA, "cuda.fma") X(EA_CBRT, "cuda.cbrt")      \
    X(EA_SELP, "cuda.selp") X(EA_NANOSLEEP, "cuda.nanosleep")

typedef enum EmitApi {
    EA_NONE,
#define X_(id, path) id,
    EMIT_APIS(X_)
#undef X_
} EmitApi;


static inline bool ea_is_warp(EmitApi e) { return e >= EA_SHFL && e <= EA_LANEMASK_LT; }

typedef struct Emitter {
    StrBuf *out;
    Program *prog;
    const Options *opt;
    const char *path;        /* the .kern file as given */
    const char *line_file;   /* the same, escaped for #line */
    const char *base_file;   /* its base name, escaped, for run-time messages */
    int indent;
    Mode mode;
    bool c_target;           /* emit_c: CPU failures are errors */

    /* The function being emitted */
    Func *fn;
    bool frame;              /* CPU kernel split at barriers: krt_f->x */
    bool thread_loop;        /* inside a CPU thread loop: exits are gotos */
    int exit_label;          /* the thread loop's exit label number */
    bool exit_used;
    int cloops;              /* C loops open inside the function or region */
    int bloop;               /* block-level loops open (frame mode) */
    int nlabels;
    bool *param_read, *param_assigned, *local_read;
    bool used_s, used_go, used_c;
    bool debug;              /* bounds checks and asserts (debug=True, -g) */
    bool used_sink;          /* a checked CPU access needs krt_sinkv */
    int line, axis;          /* of the array access being checked */
    int bif;                 /* block-level (predicated) ifs open */
    int nbvars;              /* block-level int locals krt_bN of the kernel */
    int nwarp;               /* warp operations cut so far (frame slots) */
    bool used_warp, used_red, used_bal, used_src;
    StrBuf frame_extra;      /* frame fields the cuts need */
    bool cpu_failed;         /* the CPU version cannot be made */
    Loc cpu_fail_loc;
    const char *cpu_fail_msg;

    /* CPU kernels: device functions that synchronise, inlined (see
     * inline_call) */
    bool inlined;            /* E->fn is a callee inlined into the kernel */
    const char *inl_ret;     /* its result's frame field (NULL: none) */
    int inl_depth;           /* KRT_BREAK(inl_depth): returned from it */
    int ncalls;              /* inlined calls so far: krt_retN fields */
    PtrVec inl_funcs;        /* callees whose frame fields exist already */
    StrBuf shared_extra;     /* their shared arrays, in the kernel's struct */
    PtrVec dsh_members;      /* device functions with a krt_dsh_NAME member
                                in it (see dsh_funcs) */
    /* CPU kernels with a grid sync: resumable at each one */
    bool coop;
    int nresume;
    /* Kernels whose CPU code has a `struct NAME__shared` */
    PtrVec shared_structs;

    /* Expression temporaries of the function: krt_tmpN */
    Type **tmp_types;
    int ntmp, tmp_cap;

    /* Tuple types used anywhere, each emitted once as a struct */
    PtrVec tuples;
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
/* The name of an inlined call's result variable (compared by address). */
extern const char emit_inline_result[];
EmitApi ea_of(const ApiEntry *a);
void outf(Emitter *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_lineno(Emitter *E, Loc loc);
void cpu_unsupported(Emitter *E, Loc loc, const char *msg);
const char *t_c(const Type *t);
const char *tuple_cname(const Type *t);
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
const char *array_value(Emitter *E, Node *n);
const char *ex(Emitter *E, Node *n);
void emit_stmts(Emitter *E, NodeList *l);
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
void func_end_cpu(Emitter *E);
StrBuf *swap_out(Emitter *E, StrBuf *b);
const char *param_decl(const Var *v);
const char *param_list(const Func *f, const char *lead);
void func_close(Emitter *E, Func *f, StrBuf *body);
void func_body(Emitter *E, Func *f, StrBuf *body);
bool func_returns_value(const Func *f);

/* emit_cuda.c */
void emit_cuda_func(Emitter *E, Func *f);

/* emit_cpu.c */
void emit_cpu_devfunc(Emitter *E, Func *f);
void emit_warpop_cpu(Emitter *E, Node *s);
const char *inline_call(Emitter *E, Node *c);
bool emit_split_calls(Emitter *E, Node *s);
void emit_cpu_kernel(Emitter *E, Func *f);

/* emit_host.c */
const char *path_base(const char *path);

#endif /* KERNC_EMIT_H */
