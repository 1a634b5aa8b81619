/*
 * type_impl.h - private to the typing files (type.c, type_array.c,
 * type_call.c, reduce_array.c, ntuple.c): the typing context they share, and the
 * helpers each of them calls in another.  Nothing outside them includes it;
 * the rest of the translator sees typing through kernc.h only.
 */
#ifndef KERNC_TYPE_IMPL_H
#define KERNC_TYPE_IMPL_H

#include "kernc.h"

/* The typing state of one Func: its names, and what the fixed point has
 * learnt so far.  `quiet` passes report nothing and only widen types. */
typedef struct Ctx {
    Func *fn;
    FuncDef *fd;
    bool quiet, changed;
    bool widened;           /* this pass widened a type (spec_infer) */
    PtrVec vars;            /* Var*: parameters first, then user locals */
    const char **vtab;      /* hash of vars' names (ctx_add_var): slot -> name */
    int *vidx;              /*   slot -> index in vars */
    size_t vcap;
    PtrVec decls;           /* Node*: the S_ASSIGN that declared vars[i] as an array */
    Type **declared;        /* parameters' declared types */
    Type *ret;              /* unified return type (device functions) */
    Type *declared_ret;     /* eager device signature; NULL otherwise */
    bool ret_value, ret_none;
    PtrVec hidden;          /* Var*: made by the final pass */
    PtrVec constarrays;     /* Var*: module-level arrays this body reads */
    int loops;
    int ntemps;
    /* py (issue 9): literal arguments (numba's Literal[int], Literal[bool])
     * of this specialisation, per parameter (NULL: none, or the parameter
     * is assigned), and which of them the typing used as constants
     * (dead-branch pruning, array shapes): only those key the spec. */
    Node **lits;
    bool *lit_used;
    PtrVec unroll;          /* py: literal_unroll's per-element loop variables
                               (Node *stmt, Var * per element, in pairs) */
    /* speed (issue 7): hoist_collectives' answer for each statement of the
     * body, kept across the passes (0 none, 1 some) */
    PtrMap hoisted;
    bool hoist_local;       /* a call's callee named a local: not kept */
} Ctx;

typedef struct Spec {
    FuncDef *fd;
    Func *f;
    Type **args;
    int nargs;
    Ctx *ctx;
    bool inferring, finalizing, final_done;
    bool failed;            /* its final pass reported errors */
    Node **lits;            /* py: the literal arguments (see Ctx.lits) */
    struct Spec *same_next; /* the next made with the same argument types */
    bool *lit_used;
} Spec;

/* Python evaluates operands left to right; C leaves the order of an
 * operator's operands and a function's arguments unspecified.  So when an
 * operand has an effect (a call, an atomic, a random draw), every scalar
 * operand before it that has one too, or reads an array element the
 * effect could change, is evaluated first into a hidden variable: v[i] is
 * replaced by the variable and the E_LETs are made by seq_wrap around the
 * node built from v. */
typedef struct Seq {
    Var *vars[8];
    Node *vals[8];
    int n;
} Seq;

/* type_charseq.c (str) */
bool charseq_check_store(Ctx *c, const Type *t, Node *v);
bool charseq_assign_const(Ctx *c, Node *target, Node *rhs, NodeList *out);
Node *charseq_len(Loc loc, Node *x);
Node *charseq_truth(Loc loc, Node *x);
Node *charseq_compare(Ctx *c, Loc loc, Op op, Node *a, Node *b);
Node *charseq_compare_literal(Ctx *c, Node *e);

/* type.c */
Node *bad_node(Loc loc, Type *t);
Node *fail(Ctx *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Node *poison(Loc loc, Node *a, Node *b);
Var *lookup_var(Ctx *c, const char *name);
const char *name_hint(Ctx *c, const char *name);
bool ctx_is_local(void *ctx, const char *name);
Node *ctx_literal(void *ctx, const char *name);   /* py: a literal argument's E_CONST */
const char *reduction_message(const char *path);   /* py: np.sum / a.max() refusals */
Var *hidden_var(Ctx *c, const char *what, Type *t, Loc loc);
void seq_operands(Ctx *c, Node **v, int n, Seq *q);
Node *seq_wrap(Node *n, const Seq *q);
const char *expr_path(Ctx *c, const Node *e);
Node *unknown_path(Ctx *c, Loc loc, const char *path);
Type *api_type(const ApiEntry *a);
Node *lower_path_value(Ctx *c, Loc loc, const char *path);
Var *const_array_var(Ctx *c, const char *name, Node *flat, const int64_t *shape,
                     Loc loc);
Node *lower_binop(Ctx *c, Loc loc, Op op, Node *a, Node *b);
Node *lx(Ctx *c, Node *e);
Spec *spec_get(Ctx *c, FuncDef *fd, Type **args, int nargs, Loc loc);
/* py (issue 9): with the literal arguments lits[i] (E_CONST int64/bool or
 * NULL; lits NULL: none); a spec matches when its used literals agree. */
Spec *spec_get_lits(Ctx *c, FuncDef *fd, Type **args, Node **lits, int nargs, Loc loc);
bool is_array_var(const Var *v);
void bind_var(Ctx *c, Var *v, Type *t, Loc loc);
void assign_value(Ctx *c, Node *target, Node *v, NodeList *out);
void lblock(Ctx *c, NodeList *in, NodeList *out);

/* type_array.c */
bool const_int(Ctx *c, Node *e, int64_t *out);
bool const_int_local(Ctx *c, Node *e, int64_t *out);   /* N = 100, bound once */
Node *lower_indices(Ctx *c, Node *idx, int ndim, Loc whole, const char *atomic,
                    NodeList *out, Node *pre);
Node *lower_index(Ctx *c, Node *e);
Node *lower_attr(Ctx *c, Node *e);
Node *record_attr(Ctx *c, Node *e, Node *base);   /* rec */
void lower_for(Ctx *c, Node *s, NodeList *out);

/* type_call.c */
Node *lower_complex_part(Ctx *c, Node *e, Node *base);
bool lower_args(Ctx *c, Node *call, Node **v, Node **bad);
bool check_arity(Ctx *c, Node *e, const ApiEntry *a, Node **err);
bool const_array_data(Ctx *c, Node *e, Node **flat, int64_t shape[3],
                      const char **name);
void lower_np_ufunc_out(Ctx *c, Node *e, const ApiEntry *a, NodeList *out);
Node *array_transpose(Loc loc, Node *base);
Node *lx_call(Ctx *c, Node *e, bool stmt);
/* arr: a device-function call whose first argument is lowered already */
Node *lower_device_call_pre(Ctx *c, Node *e, FuncDef *fd, bool stmt, Node *pre0);

/* reduce_array.c (arr): a.sum(), np.nanmean(a), ... */
bool reduce_is_method(const char *name);     /* a.NAME(): sum prod ... argmax */
bool reduce_is_function(const char *name);   /* np.NAME(a): those and nansum ... */
Node *lower_reduction(Ctx *c, Node *e, const char *name, Node *base, bool stmt);
void reduce_reset(void);

/* ntuple.c (arr): named tuples */
Node *ntuple_construct(Ctx *c, Node *e, const Global *g);
Node *ntuple_attr(Ctx *c, Node *e, Node *base);
Node *enum_lower(Ctx *c, Node *e);   /* Color.red, Color["red"]; NULL if not */
Node *enum_attr(Ctx *c, Node *e, Node *base);   /* m.value */

#endif
