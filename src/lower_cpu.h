/*
 * lower_cpu.h - the block-level form of a kernel's CPU version: what
 * src/lower_cpu.c builds from the typed tree and src/emit_cpu.c prints
 * (they alone include this file).
 *
 * A kernel's CPU function runs every thread of one block.  lower_cpu cuts
 * its body at barriers and warp operations into a tree of CpuBlocks:
 * regions (each one loop over the block's threads, holding per-thread
 * statements of the typed tree and the emitter's own pieces as CpuItems),
 * and between them block-level control flow (predicated ifs, loops that
 * run while any thread stays), barrier reductions, warp-operation cuts,
 * grid-sync resume points and inlined calls of device functions that
 * synchronise.  It also decides where every variable lives (CpuHome), the
 * frame's and the shared struct's extra members, and which block-level
 * helpers the function needs.  The typed tree is only read: a call that is
 * inlined is replaced in what follows by its result through a binding
 * (CpuBind), which the expression printer consults.
 *
 * The numbers in the form (block-if depths, loop depths, krt_brN, warp and
 * result slots, resume points, region labels) are assigned in print order
 * so that the printer only spells them.
 */
#ifndef KERNC_LOWER_CPU_H
#define KERNC_LOWER_CPU_H

#include "emit.h"

/* Where a variable lives in the kernel's CPU function. */
typedef enum CpuHome {
    CPU_HOME_C,          /* a C local (or parameter) of the thread loop; a
                            dynamic shared array's local pointer */
    CPU_HOME_FRAME,      /* a field of the per-thread frame: krt_f->NAME */
    CPU_HOME_BLOCK,      /* once per block, a C local of the function
                            declared before the first region: a
                            block-uniform variable (lower_cpu's uniformity
                            analysis; never in a cooperative kernel, where
                            such a value would not survive a grid sync) */
    CPU_HOME_SHARED,     /* a member of the block's shared struct: krt_s->NAME */
    CPU_HOME_DYNSHARED,  /* an inlined callee's dynamic shared array: the
                            block's dynamic region, cast */
    CPU_HOME_CONST,      /* a file-scope static const array */
    CPU_HOME_REMAT,      /* recomputed: a C local of each region that uses
                            it, set from its one definition (CpuFunc.remat),
                            a pure function of the thread and block indices
                            (i = cuda.grid(1)); never in the frame */
} CpuHome;

/* The variables of one function in the kernel's CPU code: the kernel
 * itself, or a callee inlined into it (whose names get the prefix
 * "CALLEE__", its C name, so that they are unique in the kernel). */
typedef struct CpuFunc {
    Func *fn;
    bool inlined;
    bool debug;              /* debug=True or -g: checked accesses */
    CpuHome *param_home;     /* by Var.index */
    CpuHome *local_home;
    int *param_refs, *local_refs;  /* how many regions (or warp results)
                                      use each frame variable */
    bool *local_nonneg;      /* integer locals never negative (NULL: none) */
    const Node **remat;      /* by local index: CPU_HOME_REMAT's value (NULL:
                                none) */
} CpuFunc;

/* An inlined call's result, standing for the call in the rest of its
 * statement: the frame field `field`.  A list, innermost first. */
typedef struct CpuBind {
    const Node *call;
    const char *field;
    const char *text;        /* barrier (emit_cpu.c): the value itself */
    const struct CpuBind *next;
} CpuBind;

/* barrier (issue 10): a condition of a fused barrier loop's regions (see
 * CpuBlock.bar_split), `X op u` with X threadIdx.x (+ blockIdx.x *
 * blockDim.x when base) + a constant and u block-uniform: it holds for
 * the threads below the point krt_clamp_below(u, B + c, blockDim.x) (B
 * the block's base or 0) when below, for the others when not. */
enum { SPLIT_MAX = 2 };   /* conditions split on per loop */

typedef struct CpuSplit {
    const Node *u;
    bool base, below;
    int64_t c;
    PtrVec conds;            /* the E_COMPARE nodes it decides */
} CpuSplit;

/* How a thread leaves a region early (the state it is marked with). */
typedef enum CpuState {
    CPU_RUNNING,
    CPU_RETURNED,        /* KRT_RETURNED: returned from the kernel */
    CPU_BREAK,           /* KRT_BREAK(depth): left block-level loop (or
                            inlined callee) number depth */
    CPU_CONTINUE,        /* KRT_CONTINUE(depth) */
    CPU_MASKED,          /* KRT_MASKED(depth): waits out a block-level if's
                            branch */
} CpuState;

/* A statement of a region that ends the thread's run of the region
 * (return, break or continue of a block-level loop, a zero range step). */
typedef struct CpuExit {
    const Node *stmt;
    CpuState state;
    int depth;
} CpuExit;

typedef enum CpuItemKind {
    CI_STMT,         /* stmt: a per-thread statement of the typed tree */
    CI_SKIP,         /* skip a thread that is not running */
    CI_RESET,        /* a thread in state (state, depth) runs again */
    CI_IF_TEST,      /* stmt (S_IF): its condition; true: go = 1, false:
                        masked (depth) and other = 1 */
    CI_ELSE_SWAP,    /* the else branch of block-level if `depth`: the
                        running and the masked threads swap */
    CI_LOOP_TEST,    /* stmt (S_WHILE or S_FORRANGE): the loop's test; true:
                        the loop variable is set, krt_go = 1; false:
                        KRT_BREAK(depth) */
    CI_RANGE_INIT,   /* stmt (S_FORRANGE): the range's bounds into its
                        hidden variables, the zero-step check */
    CI_RANGE_NEXT,   /* stmt (S_FORRANGE): it += step */
    CI_RED_ADD,      /* stmt (S_BARRIER): its predicate into krt_red */
    CI_RED_RESULT,   /* stmt (S_BARRIER): the block's result to its target */
    CI_WARP_STORE,   /* stmt (S_WARPOP): its operands into warp slots `slot` */
    CI_INLINE_ARGS,  /* stmt (E_CALLFN): the arguments into the callee's
                        parameter fields, its result field zeroed */
} CpuItemKind;

typedef struct CpuItem {
    CpuItemKind kind;
    const Node *stmt;
    CpuState state;          /* CI_RESET */
    int depth;               /* CI_RESET, CI_IF_TEST, CI_ELSE_SWAP, CI_LOOP_TEST */
    const char *go, *other;  /* CI_IF_TEST: the block-level flags */
    int slot;                /* CI_WARP_STORE: the warp cut's number */
    const struct CpuBlock *inl;  /* CI_INLINE_ARGS: its CB_INLINE */
    const struct CpuBlock *warp; /* CI_WARP_STORE: its CB_WARP */
} CpuItem;

typedef enum CpuBlockKind {
    CB_REGION,       /* items, run by each thread of the block in turn */
    CB_IF,           /* block-level if: test region, then, orelse */
    CB_LOOP,         /* block-level loop: head region, body, next region */
    CB_BARRIER,      /* a plain barrier: nothing to run (sync names which) */
    CB_REDUCE,       /* syncthreads_count/and/or: add region, result region */
    CB_WARP,         /* warp operation: store region, then per warp the
                        results over its active lanes */
    CB_GRIDSYNC,     /* grid sync: return, resume point `slot` */
    CB_INLINE,       /* inlined call of a device function that synchronises */
    CB_FAIL,         /* what the CPU backend cannot run: loc, msg */
    CB_UNIFORM,      /* stmt: an assignment of a block-uniform variable,
                        run once by the block */
} CpuBlockKind;

typedef enum CpuSync {
    CPU_SYNC_THREADS,    /* syncthreads() */
    CPU_SYNC_WARP_ALL,   /* syncwarp() as a statement of its own */
    CPU_SYNC_WARP_LANES, /* syncwarp() as an expression statement or op */
} CpuSync;

typedef struct CpuList {
    struct CpuBlock **items;
    int len, cap;
} CpuList;

typedef struct CpuBlock {
    CpuBlockKind kind;
    Loc line;                /* #line printed before it (0: none) */
    const CpuBind *binds;    /* inlined results its expressions see */
    const CpuFunc *ctx;      /* the function its statements belong to */
    const struct CpuBlock *inl;  /* the CB_INLINE whose body it is in (NULL:
                                    the kernel's own) */
    const Node *stmt;        /* the statement it comes from */

    /* CB_REGION */
    CpuItem *items;
    int nitems, items_cap;
    int label;               /* krt_skipN: where its exits jump (0: the
                                one region of a kernel that is not cut,
                                whose exits jump to krt_next) */
    CpuExit *exits;          /* threads leaving it early */
    int nexits, exits_cap;

    /* CB_IF: test, then, orelse (the orelse starts with the swap region);
     * CB_LOOP: head (test), body, next (range: it += step; NULL for while);
     * in their list, both are followed by the region that lets the
     * threads they held back run again (CI_RESET);
     * CB_REDUCE: head (add), next (result; NULL when unused);
     * CB_WARP, CB_INLINE: head (the stores); CB_INLINE: body (the
     * callee's, ending with the region that resets KRT_BREAK(depth)) */
    struct CpuBlock *head, *next;
    CpuList body, orelse;
    const char *go, *other;  /* CB_IF: its flags (other NULL without else) */
    int depth;               /* CB_LOOP, CB_INLINE: KRT_BREAK depth;
                                CB_IF: KRT_MASKED depth */
    ApiId ea;              /* CB_REDUCE, CB_WARP: which operation */
    CpuSync sync;            /* CB_BARRIER */
    int slot;                /* CB_WARP: warp cut number; CB_GRIDSYNC:
                                resume point; CB_INLINE: result number */

    /* CB_INLINE */
    Func *callee;
    const char *ret;         /* its result's frame field (NULL: none) */
    const CpuFunc *callee_ctx;

    /* CB_FAIL */
    Loc fail_loc;
    const char *fail_msg;

    /* CB_REGION: the frame variables its items use, cached in C locals of
     * the thread loop: loaded at the top, stored back at the end when the
     * region writes them (cache_store) */
    const Var **cache;
    bool *cache_store;
    bool *cache_load;        /* false: no other region uses it, no loop
                                repeats this one: a plain C local from 0 */
    int ncache, cache_cap;
    bool in_loop;            /* inside a block-level loop */
    /* block-uniform variables the region assigns per thread: each thread
     * starts from the value they had on entry (PtrVec of Var) */
    PtrVec uvars;
    /* CB_IF, CB_LOOP: the condition (range bounds) is block-uniform and
     * the body has no exit: the block runs it as plain C, no thread state */
    bool uniform;
    /* CB_WARP: a shuffle with the full constant mask that every lane
     * reaches (uniform): any lane of the warp is a valid source */
    bool full_shfl;
    /* CB_WARP: operands read where they are instead of stored per thread
     * into the warp slots: a block-uniform mask and lane argument (C
     * locals computed once), a shuffled frame variable the operation does
     * not assign (read from the source lane's frame); head is NULL when
     * nothing is left to store */
    bool mask_direct, arg_direct;
    const Var *val_direct;
    /* CB_WARP: a full shfl_down with a uniform delta whose result only the
     * region after it reads, that region needing no thread index: it runs
     * inside the warp's lane loops (lane l reads lane l + d before that
     * lane runs it), the result a C local of it; fuse_store: the result's
     * frame field is read elsewhere too.  CB_REGION: fused, printed by the
     * warp before it */
    const struct CpuBlock *fuse;
    bool fuse_store, fused;
    /* CB_BARRIER (issue 10, cpu): a syncthreads() between two regions
     * whose threads may run both in one loop (lower_cpu's bar_fuse), when
     * the block is 1-D and the guard holds -- bar_nonneg (NULL: none) >= 0
     * and the parameter arrays bar_disj[2k], bar_disj[2k + 1] disjoint --
     * in descending (bar_desc) or ascending thread order: no thread then
     * touches an element in an order other than the barrier's.  bar_local:
     * frame variables only these two regions use, the first setting them
     * before it reads them: plain C locals of that loop.  Otherwise (and
     * always in the else branch) the two regions as they are. */
    /* CB_REGION (issue 10, cpu): its one item is `if X < xclamp: ...`
     * (no else, xclamp block-uniform), X threadIdx.x (+ blockIdx.x *
     * blockDim.x when xclamp_base) + xclamp_c: the loop visits only the
     * threads that pass and runs the body */
    const Node *xclamp;
    bool xclamp_base;
    int64_t xclamp_c;
    bool bar_fuse, bar_desc;
    const Node *bar_nonneg;
    PtrVec bar_disj;         /* Var, in pairs */
    PtrVec bar_local;        /* Var */
    /* barrier: conditions on the thread index the fused loop need not
     * test: its threads in ranges, each range's loop with the conditions'
     * values in (CpuSplit, at most 2) */
    PtrVec bar_split;
    /* barrier: the fused loop's regions touch shared arrays only: it runs
     * in chunks of threads (emit_cpu.c's print_fused_chunks) */
    bool bar_chunk;
    /* barrier: bar_local's int64 variables whose every value fits in 32
     * bits: a chunk holds them in an int32_t array */
    PtrVec bar_narrow;
    /* CB_REGION (issue 10, cpu) alone in its 1-D loop in ranges
     * (print_region): a region whose threads may run in lock step -- no
     * call, atomic, warp or collective operation, print or exit (lower_cpu's
     * bar_scan), no frame variable loaded or stored, and an element of a
     * 1-D array indexed by the thread -- runs in chunks of KRT_CHUNK
     * threads that the C compiler vectorises (KRT_IVDEP, emit_cpu.c's
     * print_bar_range) where the parameter arrays lanes_unit (Var) have
     * their elements next to each other along the last dimension; the
     * threads left, or all otherwise, one by one */
    bool lanes;
    PtrVec lanes_unit;
    /* warp (issue 10): CB_LOOP: a shuffle-reduction tree, a uniform while
     * loop whose body is one fused full shfl_down of a float frame
     * variable v followed by `v = v + w` (its result w read nowhere else)
     * and assignments of block-uniform variables only: each warp runs the
     * whole loop on an array of its lanes' v (emit_cpu.c's
     * print_warp_tree), which warps without a barrier may (tree: the
     * CB_WARP; NULL: not a tree) */
    const struct CpuBlock *tree;
} CpuBlock;

/* An extra member of the frame or of the shared struct. */
typedef struct CpuSlot {
    const char *name;
    const Type *type;        /* a scalar or tuple; arrays: the element type */
    const Var *array;        /* a C array: its dimensions (NULL: a scalar) */
    const Func *dshared;     /* `struct NAME__dshared krt_dsh_NAME` */
} CpuSlot;

typedef struct CpuSlots {
    CpuSlot *items;
    int len, cap;
} CpuSlots;

/* A barrier-free kernel whose body is a grid-stride loop (lower_cpu's
 * find_grid_stride): pure assignments, then `for i in range(cuda.grid(1),
 * stop, step)` or `i = cuda.grid(1) ... while i < stop: ...; i += step`,
 * stop and step block-uniform, no thread state carried from one iteration
 * to the next.  With a 1-D block and step > 0 it runs with the loop
 * outermost and the threads inside, each iteration walking the block's
 * consecutive elements (any interleaving of the threads is one CUDA
 * allows without a barrier). */
typedef struct CpuGridStride {
    const Node *loop;        /* the S_FORRANGE or S_WHILE, last in the body */
    const Var *var;          /* set to the thread's element: the range's loop
                                variable or the while's induction variable */
    const Node *stop, *step; /* block-uniform, int64 */
    int nbody;               /* loop statements run per iteration (a while's
                                last, the increment, is not) */
    int nprefix;             /* statements before the loop */
    bool *prefix_uniform;    /* by statement: run once per block */
    bool var_nonneg;         /* nothing else assigns var: in the loop it is
                                the thread's element, never negative (no
                                krt_wrap_index) */
    bool multi;              /* the body names no thread or block index, no
                                per-thread prefix variable, no shared array,
                                no device function: the C target runs the
                                runtime's next blocks along x in the same
                                loop (krt_cpu_block.nbx) */
} CpuGridStride;

/* issue 10 (cpu): a barrier-free kernel whose body is assignments of
 * locals, then `if X < U [and ...]:`, X threadIdx.c (+ blockIdx.c *
 * blockDim.c when base) + c, U block-uniform: the thread loop's component
 * comp runs only below U - base - c, and the if's test is not printed. */
typedef struct CpuClamp {
    int comp;                /* 0 x, 1 y, 2 z */
    bool base;
    int64_t c;
    const Node *u;
} CpuClamp;

/* issue 10 (cpu): a parameter array (1-D) that a split kernel's threads
 * index at cuda.grid(1) + c, lo <= c <= hi, and write when write: on
 * entry the function asks the cache for the next block's elements
 * (krt_prefetch_next) -- a block's loads and stores come in bursts
 * between its barriers, which the hardware's prefetcher sees too late
 * (scan: a third of its time waiting for the stores' lines). */
typedef struct CpuPrefetch {
    const Var *arr;
    int64_t lo, hi;
    bool write;
} CpuPrefetch;
enum { PREFETCH_MAX = 4 };

/* One kernel's CPU version. */
typedef struct CpuKernel {
    Func *fn;
    bool split;              /* cut at barriers: regions and frames */
    bool coop;               /* has a grid sync: resumable */
    CpuFunc *vars;           /* the kernel's own variables */
    bool *param_copied;      /* assigned parameters: per-thread copies */
    CpuList body;            /* split: the blocks; otherwise one region */
    CpuSlots frame_extra;    /* frame members after the variables */
    CpuSlots shared_extra;   /* shared members after the kernel's arrays */
    int nbvars;              /* block-level flags krt_brN */
    int nresume;             /* grid syncs: resume points 1..nresume */
    bool uses_go, uses_red, uses_warp, uses_bal, uses_src;
    bool uses_state;         /* some item reads a thread's krt_state */
    bool uses_act;           /* some warp operation needs krt_act */
    bool uses_lanes;         /* warp: some warp operation outside the
                                shuffle-reduction trees (krt_l) */
    bool has_exit;           /* a thread can leave early (return, break...) */
    bool y_inner;            /* not split: run the threads y innermost */
    bool *uni;               /* by local index: block-uniform (NULL: none) */
    const CpuGridStride *gs; /* not split: a grid-stride loop (NULL: not) */
    const Node *clamp_if;    /* not split: the if of the clamps (NULL: none) */
    CpuClamp *clamps;
    int nclamps;
    /* not split, no exit, not under debug: the parameter arrays the body
     * indexes (an atomic's too) whose type leaves their last stride open
     * (Var, at most 4); the thread loop (or the grid-stride loop) is
     * printed twice, one copy for where their elements lie next to each
     * other along the last dimension (the C compiler then folds that
     * stride into the addresses) */
    PtrVec unit;
    bool copies;   /* the loop may be printed twice (no exit label in it):
                      for unit strides, or privatised atomics in a known
                      range (emit_cpu.c, print_unit_copies) */
    CpuPrefetch pf[PREFETCH_MAX];   /* split: the arrays to prefetch */
    int npf;
} CpuKernel;

/* lower_nonneg.c: is integer expression n never negative (so an index
 * needs no wrapping)?  Constants, thread and block indices and sizes, and
 * the locals of cf that only ever hold such values (cf->local_nonneg, set
 * by cpu_find_nonneg). */
bool cpu_nonneg(const CpuFunc *cf, const Node *n);
void cpu_find_nonneg(CpuFunc *cf);

/* lower_cpu.c: the block-level form of kernel f (never NULL). */
CpuKernel *lower_cpu_kernel(Func *f, const Options *opt);

#endif /* KERNC_LOWER_CPU_H */
