/*
 * type.c - numba's typing, device-function specialisation, and lowering of
 * each function body to the small typed tree that emit_*.c reads.
 *
 * resolve.c has bound the module-level names (imports, constants, decorated
 * functions) and parsed the signatures; type_kernel() types one kernel per
 * signature and, through its calls, every device-function specialisation.
 * A body is typed by a fixed point (quiet passes that only widen variable
 * types by numba's unification), then lowered once more with diagnostics on.
 *
 * Typing follows numba-cuda's compiled target, not its simulator.  The
 * operator rules are numba's own: each operator is a list of candidate
 * signatures (numba/core/typing/builtins.py, numba/cuda/cudamath.py; the
 * lists are in typerules.c, and an API row names its rule in api.def) and the
 * candidate chosen is the one with the fewest (unsafe, safe, promote)
 * conversions, ties to the first, under numba's casting graph
 * (numba/core/typeconv/rules.py, closed transitively).  As numba's SSA,
 * each web of a name's assignments is its own variable (ssa_split), and
 * constant conditions are pruned (const_truth).  Variables assigned
 * several types get numba's unification (Number.unify is
 * np.promote_types; bool unifies with any number to that number).
 * Verified against numba 0.56's CUDA typing context
 * (cuda_target.typing_context.resolve_function_type) and njit:
 *
 *   int32 + int32 -> int64          uint32 + uint32 -> uint64
 *   int32 + uint32 -> int64         int64 + uint64 -> int64 (not float64!)
 *   int16 + float32 -> float32      int32/int64/uint32 + float32 -> float64
 *   float32 + float32 -> float32    float32 + float64 -> float64
 *   bool + bool -> int64            bool + float32 -> float32
 *   int / int -> float64            float32 / int16 -> float32
 *   int // int, int % int -> int64 (uint64 if both unsigned)
 *   int ** int -> int64             float32 ** int -> float32 (powi)
 *   int64 ** float32 -> float64     << >>: int64 (uint64 if lhs unsigned)
 *   & | ^: bool&bool -> bool, ints -> int64/uint64, floats refused
 *   comparisons -> boolean, operands in the candidate's type
 *     (int64 vs uint64 compare as float64, int32 vs uint32 as int64)
 *   -x, +x: int8..int64 -> int64, uint* -> uint64, bool -> int64
 *   ~x: bool -> bool (numba follows NumPy), ints -> int64/uint64
 *     (-x and ~x of an int8..int32/uint8..uint32 are computed at its own
 *     width, then widened: -int32(-2**31) == -2**31, ~uint32(0) ==
 *     4294967295, -uint8(1) == 255; checked with njit for every width)
 *   abs: same type (bool -> int8)   min/max: unify (int32,uint32 -> int64)
 *   int(x): ints keep their type, floats/bool -> int64
 *   float(x): ints -> float64, floats keep theirs, bool refused
 *   round(x) -> int64; round(x, n) -> float of x
 *   math.*(float32) -> float32, math.*(ints) -> float64 (int64 argument),
 *     math.floor/ceil/trunc(float32) -> float32 on CUDA (int64 only on CPU),
 *     isnan/isinf/isfinite -> boolean, math.pow(float32, int32) -> float32,
 *     math.log(x, base) refused (CUDA has one argument only)
 *   range(int32...) -> int32 loop, range(int64) -> int64, range(uint64) ->
 *     uint64, mixed by the same candidate rule (range(uint64, int32) -> int32)
 *   math.frexp(x) -> Tuple(float32|float64, int32) (float32 for float32 and
 *     ints up to 16 bits), math.ldexp(x, e): e converted to int32
 *   cuda.popc/clz(x) -> x's type (int8..uint64; bool and floats -> int8),
 *     brev -> uint32 (uint64 only for uint64), ffs -> uint32 (32/64-bit ints
 *     only: numba has no lowering for narrower ones), fma/cbrt: float32 or
 *     float64 by the candidate rule (int32 -> float64, int16 -> float32),
 *     selp(test, a, b): a and b of one type, no conversion; lanemask_lt(),
 *     activemask() -> uint32; laneid, warpsize -> int32
 *   syncthreads_count/and/or(p) -> int32 (p converted to int32, so 0.5 is
 *     false as in numba); syncwarp, threadfence*, nanosleep -> none
 *   shfl_*sync(mask, v, lane): v's type by the candidates int32, int64,
 *     float32, float64 (uint32 -> int64, uint64 -> float64, bool -> int32:
 *     numba's own, checked); all/any/eq_sync -> bool, ballot_sync -> int32,
 *     match_any_sync -> int32, match_all_sync -> Tuple(int32, bool)
 *   atomics (numba-cuda cudadecl.py): add sub max min nanmax nanmin on
 *     int32 uint32 int64 uint64 float32 float64; and_ or_ xor exch cas on
 *     the four integer types; inc dec on uint32 uint64; the result is the
 *     element type, the value(s) converted to it
 *   a.shape -> UniTuple(int64, ndim); module-level tuples are typed element
 *     by element (ints int64, floats float64); np.array constants: NumPy's
 *     dtype rule unless dtype= is given
 *   numba.cuda.random: xoroshiro128p_uniform_float32/normal_float32(states,
 *     i) -> float32, uniform_float64/normal_float64 -> float64,
 *     xoroshiro128p_next -> uint64, xoroshiro128p_jump -> none; i any number
 *     (random.py does index = int64(index)); states a xoroshiro128p_type[:]
 *   cuda.cg.this_grid() -> GridGroup; GridGroup.sync() (numba: int32, here a
 *     statement only)
 *   unify: int32|int64 -> int64, int64|uint64 -> float64, int8|uint8 -> int16,
 *     int32|float32 -> float64, int16|float32 -> float32, bool|int32 -> int32
 *
 * Typing was checked against numba 0.56 (Debian's /usr/bin/python3):
 * numba.cuda.compiler.compile_cuda(pyfunc, None, argtypes) types a device
 * function, intrinsic wrappers included, with CUDA_HOME pointing at a
 * directory whose nvvm/lib64 holds libnvvm.so; typing needs no GPU.
 *
 * Thread indexing: cuda.threadIdx/blockIdx/blockDim/gridDim .x/.y/.z are
 * int32 (numba-cuda cudadecl.py, Dim3_attrs); cuda.grid(1) and
 * cuda.gridsize(1) are int64, grid(2|3) UniTuple(int64, n) (numba-cuda
 * intrinsics.py _type_grid_function; numba 0.56 still said int32).
 *
 * The typed tree this pass produces, the lowering contract, is described
 * in kernc.h beside the node kinds.
 *
 * C names of specialisations (Func.cname): the first Func made from a def
 * keeps the user's name; later ones append "_" and one "_CODE" per
 * parameter (i4, u8, f4, b1; arrays a<ndim><elem>[c][s|l|k]; tuples
 * t<n><elem>).  So a kernel with signatures [void(float32[:]),
 * void(float64[:])] gives the Funcs "k" and "k__a1f8", and the launchers
 * named after them.  Kernels are typed in signature order, before the
 * device functions they reach are finalised.
 */
#include "kernc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "; add 'from numba import float32'" for a numba or module name the file
 * forgot to import, "" otherwise: the commonest slip when porting kernels. */
static const char *import_hint(const char *name)
{
    if (strcmp(name, "cuda") == 0)
        return " (add 'from numba import cuda')";
    if (strcmp(name, "math") == 0)
        return " (add 'import math')";
    if (strcmp(name, "np") == 0)
        return " (add 'import numpy as np')";
    if (sema_type_alias(name) && strlen(name) > 2 && strcmp(name, "double") != 0 &&
        strcmp(name, "single") != 0 && strcmp(name, "none") != 0)
        return arena_printf(" (add 'from numba import %s')", name);
    return "";
}

/* ------------------------------------------------------------------ */
/* Typing contexts and specialisations                                 */
/* ------------------------------------------------------------------ */

/* The typing state of one Func: its names, and what the fixed point has
 * learnt so far.  `quiet` passes report nothing and only widen types. */
typedef struct Ctx {
    Func *fn;
    FuncDef *fd;
    bool quiet, changed;
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
} Ctx;

typedef struct Spec {
    FuncDef *fd;
    Func *f;
    Type **args;
    int nargs;
    Ctx *ctx;
    bool inferring, finalizing, final_done;
    bool failed;            /* its final pass reported errors */
} Spec;

static PtrVec all_specs;    /* Spec* */
static PtrVec order;        /* Func*: finalised, callees first */
static int spec_depth;

void type_reset(void)
{
    all_specs = (PtrVec){0};
    order = (PtrVec){0};
    spec_depth = 0;
}

static Node *lx(Ctx *c, Node *e);
static Node *array_transpose(Loc loc, Node *base);
static Node *lx_call(Ctx *c, Node *e, bool stmt);
static void lblock(Ctx *c, NodeList *in, NodeList *out);
static Spec *spec_get(Ctx *c, FuncDef *fd, Type **args, int nargs, Loc loc);

static Node *bad_node(Loc loc, Type *t)
{
    Node *n = node_new(E_CONST, loc);
    n->type = t;
    return n;
}

/* Report (outside quiet passes) and return a poison node. */
static Node *fail(Ctx *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Node *fail(Ctx *c, Loc loc, const char *fmt, ...)
{
    if (!c->quiet) {
        va_list ap;
        va_start(ap, fmt);
        vsema_error(loc, fmt, ap);
        va_end(ap);
    }
    return bad_node(loc, ty_error);
}

/* The poison of bad operands: an error if one was reported, else unknown. */
static Node *poison(Loc loc, Node *a, Node *b)
{
    bool err = (a && a->type == ty_error) || (b && b->type == ty_error);
    return bad_node(loc, err ? ty_error : NULL);
}

static int var_index(const Ctx *c, const char *name)
{
    if (!c->vcap)
        return -1;
    for (size_t h = str_hash(name, strlen(name)) & (c->vcap - 1); c->vtab[h]; h = (h + 1) & (c->vcap - 1))
        if (strcmp(c->vtab[h], name) == 0)
            return c->vidx[h];
    return -1;
}

/* By hash: a body of 16,000 assignments has 16,000 SSA versions. */
static Var *lookup_var(Ctx *c, const char *name)
{
    int i = var_index(c, name);
    return i < 0 ? NULL : c->vars.items[i];
}

static void ctx_add_var(Ctx *c, Var *v)
{
    if (2 * ((size_t)c->vars.len + 1) > c->vcap) {
        size_t cap = c->vcap ? 2 * c->vcap : 64;
        c->vtab = arena_alloc(sizeof *c->vtab * cap);
        c->vidx = arena_alloc(sizeof *c->vidx * cap);
        c->vcap = cap;
        for (int i = 0; i < c->vars.len; i++) {
            const char *n = ((Var *)c->vars.items[i])->name;
            size_t h = str_hash(n, strlen(n)) & (cap - 1);
            while (c->vtab[h])
                h = (h + 1) & (cap - 1);
            c->vtab[h] = n;
            c->vidx[h] = i;
        }
    }
    size_t h = str_hash(v->name, strlen(v->name)) & (c->vcap - 1);
    while (c->vtab[h])
        h = (h + 1) & (c->vcap - 1);
    c->vtab[h] = v->name;
    c->vidx[h] = c->vars.len;
    vec_push(&c->vars, v);
}

/* What to add to "name 'x' is not defined": the import it lacks, else the
 * closest local, module-level or built-in name. */
static const char *name_hint(Ctx *c, const char *name)
{
    const char *hint = import_hint(name);
    if (*hint)
        return hint;
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; i < c->vars.len; i++)
        suggest_add(&sg, ((Var *)c->vars.items[i])->name);
    sema_suggest_globals(&sg);
    api_suggest(&sg, "");
    return suggest_hint(&sg);
}

static bool ctx_is_local(void *ctx, const char *name)
{
    return lookup_var(ctx, name) != NULL;
}

static bool is_array_var(const Var *v)
{
    return v->kind == VAR_SHARED || v->kind == VAR_DYNSHARED || v->kind == VAR_LOCALARRAY ||
           v->kind == VAR_CONSTARRAY;
}

static Var *hidden_var(Ctx *c, const char *what, Type *t, Loc loc)
{
    Var *v = arena_alloc(sizeof *v);
    v->name = arena_printf("krt_%s%d", what, ++c->ntemps);
    v->kind = VAR_HIDDEN;
    v->type = t;
    v->loc = loc;
    if (!c->quiet)
        vec_push(&c->hidden, v);
    return v;
}

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

static void seq_operands(Ctx *c, Node **v, int n, Seq *q)
{
    int last = -1;
    q->n = 0;
    for (int i = 0; i < n; i++)
        if (!BAD(v[i]) && !tree_is_pure(v[i]))
            last = i;
    for (int i = 0; i < last && q->n < 8; i++) {
        if (BAD(v[i]) || tree_is_stable(v[i]) || !ty_is_scalar(v[i]->type) ||
            (tree_is_pure(v[i]) && !tree_reads_memory(v[i])))
            continue;
        Var *t = hidden_var(c, "seq", v[i]->type, v[i]->loc);
        q->vars[q->n] = t;
        q->vals[q->n++] = v[i];
        v[i] = tree_var(v[i]->loc, t);
    }
}

static Node *seq_wrap(Node *n, const Seq *q)
{
    if (BAD(n))
        return n;
    for (int i = q->n - 1; i >= 0; i--)
        n = tree_let(n->loc, q->vars[i], q->vals[i], n);
    return n;
}

/* Record that variable v holds a value of type t (fixed-point step). */
static void bind(Ctx *c, Var *v, Type *t, Loc loc)
{
    if (!t || t == ty_error || v->type == ty_error)
        return;
    if (!v->type) {
        v->type = t;
        v->type_loc = loc;
        c->changed = true;
        return;
    }
    Type *u = ty_unify(v->type, t);
    if (!u) {
        if (!c->quiet) {
            diag_attach_note(v->type_loc.first_line ? v->type_loc : v->loc,
                             "'%s' is %s from here", v->name, ty_name(v->type));
            sema_error(loc, "cannot unify %s and %s for '%s'", ty_name(v->type),
                       ty_name(t), v->name);
        }
        return;
    }
    if (u != v->type) {
        v->type = u;
        v->type_loc = loc;
        c->changed = true;
    }
}

/* ------------------------------------------------------------------ */
/* Names and paths                                                     */
/* ------------------------------------------------------------------ */

/* The canonical API path of a name or attribute chain rooted in an
 * import ("numba.cuda.grid" -> "cuda.grid", np.float32 -> float32),
 * or NULL for anything else (locals shadow imports). */
static const char *expr_path(Ctx *c, const Node *e)
{
    if (e->kind == E_NAME) {
        if (lookup_var(c, e->name))
            return NULL;
        const Global *g = sema_global(e->name);
        if (g)
            return g->kind == GLOBAL_PATH ? sema_vector_canon(g->path) : NULL;
        const ApiEntry *a = api_lookup(e->name);
        if (a && a->kind == AK_CALL && !strchr(e->name, '.'))
            return e->name;   /* a Python builtin: abs, min, range, ... */
        return NULL;
    }
    if (e->kind == E_ATTR) {
        const char *p = expr_path(c, e->lhs);
        if (!p)
            return NULL;
        const char *full = arena_printf("%s.%s", p, e->name);
        if (strncmp(full, "numba.", 6) == 0)
            full += 6;
        if (strncmp(full, "np.", 3) == 0) {
            const char *t = sema_type_alias(full + 3);
            if (t)
                return t;
        }
        if (!strchr(full, '.')) {
            const char *t = sema_type_alias(full);
            if (t)
                return t;
        }
        return sema_vector_canon(full);
    }
    return NULL;
}

/* Parts of numba's API that later issues add: named so that the error says
 * "not supported yet" rather than "no such attribute". */
static const char *const later_api[] = {
    "cuda.fp16", "cuda.reduce", "cuda.mapped_array",
    "cuda.device_array", "cuda.to_device", "cuda.pinned_array",
    "math.isclose", "math.factorial",
    "math.gcd", "math.comb", "math.perm", NULL};

static Node *unknown_path(Ctx *c, Loc loc, const char *path)
{
    for (int i = 0; later_api[i]; i++) {
        size_t n = strlen(later_api[i]);
        if (strncmp(path, later_api[i], n) == 0 && (path[n] == 0 || path[n] == '.'))
            return fail(c, loc, "'%s' is not supported yet", path);
    }
    const char *npmsg = npu_missing_message(path);   /* npk: np.add, np.sqrt */
    if (npmsg)
        return fail(c, loc, "%s", npmsg);
    if (strncmp(path, "np.", 3) == 0)   /* np.zeros, np.sum, ...: not numba.cuda */
        return fail(c, loc, "'%s' is not supported in kernels (NumPy functions that allocate "
                    "or reduce are not available on the device; use cuda.local.array, "
                    "math.* or a loop)", path);
    /* name the longest known prefix and the first unknown attribute */
    const char *dot = strchr(path, '.'), *known = NULL;
    while (dot) {
        const char *prefix = arena_strndup(path, (size_t)(dot - path));
        if (!api_lookup(prefix) && strcmp(prefix, "numba") != 0)
            break;
        known = dot;
        dot = strchr(dot + 1, '.');
    }
    if (known) {
        const char *end = strchr(known + 1, '.');
        int len = end ? (int)(end - known - 1) : (int)strlen(known + 1);
        const char *attr = arena_strndup(known + 1, (size_t)len);
        Suggest sg;
        suggest_init(&sg, attr);
        api_suggest(&sg, arena_strndup(path, (size_t)(known - path)));
        return fail(c, loc, "'%.*s' has no attribute '%s'%s", (int)(known - path), path, attr,
                    suggest_hint(&sg));
    }
    return fail(c, loc, "'%s' is not supported", path);
}

static Type *api_type(const ApiEntry *a)
{
    switch (a->id) {
#define X_(a, e, ...) case API_T_##e: return ty_scalar[TY_##e];
    KRT_SCALAR_TABLE(X_, _)
#undef X_
    case API_T_BOOL_: return ty_bool;
    case API_T_VOID: return ty_void;
    default: return NULL;
    }
}

/* A path used as a value: thread indices, math constants. */
static Node *lower_path_value(Ctx *c, Loc loc, const char *path)
{
    const ApiEntry *a = api_lookup(path);
    if (!a)
        return unknown_path(c, loc, path);
    if (a->kind != AK_ATTR)
        return fail(c, loc, "'%s' cannot be used as a value", path);
    switch (a->id) {
    case API_M_PI: return tree_float(loc, ty_float64, 3.141592653589793);
    case API_M_E: return tree_float(loc, ty_float64, 2.718281828459045);
    case API_M_INF: return tree_float(loc, ty_float64, INFINITY);
    case API_M_NAN: return tree_float(loc, ty_float64, NAN);
    /* cmath's float constants */
    case API_CM_PI: return tree_float(loc, ty_float64, 3.141592653589793);
    case API_CM_E: return tree_float(loc, ty_float64, 2.718281828459045);
    case API_CM_INF: return tree_float(loc, ty_float64, INFINITY);
    case API_CM_NAN: return tree_float(loc, ty_float64, NAN);
    default: {
        double v;   /* npk: np.pi, np.nan, math.tau, ... */
        if (npu_const_value(a->id, &v))
            return tree_float(loc, ty_float64, v);
        break;
    }
    }
    Node *n = node_new(E_API, loc);
    n->api = a;
    n->type = ty_int32;    /* Dim3 attributes (numba-cuda cudadecl.py) */
    return n;
}

/* The Var through which this body reads a module-level array (or a
 * constant tuple made an array by cuda.const.array_like): one per name,
 * declared by an S_ARRAYDECL at the top of the body. */
static Var *const_array_var(Ctx *c, const char *name, Node *flat, const int64_t *shape,
                            Loc loc)
{
    for (int i = 0; i < c->constarrays.len; i++) {
        Var *v = c->constarrays.items[i];
        if (strcmp(v->name, name) == 0)
            return v;
    }
    Var *v = arena_alloc(sizeof *v);
    v->name = name;
    v->kind = VAR_CONSTARRAY;
    v->type = flat->type;
    memcpy(v->shape, shape, sizeof v->shape);
    v->init = flat;
    v->loc = loc;
    vec_push(&c->constarrays, v);
    return v;
}

static Node *lower_name(Ctx *c, Node *e)
{
    Var *v = lookup_var(c, e->name);
    if (v) {
        if (v->type == ty_error)
            return bad_node(e->loc, ty_error);
        if (!v->type) {
            if (c->quiet)
                return bad_node(e->loc, NULL);
            return fail(c, e->loc, "local variable '%s' is referenced before assignment",
                        e->name);
        }
        return tree_var(e->loc, v);
    }
    const Global *g = sema_global(e->name);
    if (g) {
        switch (g->kind) {
        case GLOBAL_CONST: {
            Node *k = node_clone(g->value);
            k->loc = e->loc;
            return k;
        }
        case GLOBAL_ARRAY:
            return tree_var(e->loc, const_array_var(c, g->name, g->value, g->shape, e->loc));
        case GLOBAL_FUNC:
            return fail(c, e->loc, "function '%s' cannot be used as a value", e->name);
        case GLOBAL_PATH:
            return lower_path_value(c, e->loc, g->path);
        }
    }
    if (api_lookup(e->name) && !strchr(e->name, '.') && !*import_hint(e->name))
        return fail(c, e->loc, "'%s' cannot be used as a value", e->name);
    return fail(c, e->loc, "name '%s' is not defined%s", e->name, name_hint(c, e->name));
}

/* ------------------------------------------------------------------ */
/* Operators                                                           */
/* ------------------------------------------------------------------ */

static bool check_scalar(Ctx *c, Node *v, const char *what, Node **err)
{
    if (ty_is_scalar(v->type))
        return true;
    *err = fail(c, v->loc, "%s %s is not supported", what, ty_name(v->type));
    return false;
}

static Node *lower_binop(Ctx *c, Loc loc, Op op, Node *a, Node *b)
{
    if (BAD(a) || BAD(b))
        return poison(loc, a, b);
    if (!ty_is_scalar(a->type) || !ty_is_scalar(b->type))
        return fail(c, loc, "unsupported operand types for %s: %s and %s", op_spelling[op],
                    ty_name(a->type), ty_name(b->type));
    if (half_operator(op, a->type, b->type)) {
        /* float16 (src/half.c): numba-cuda's operator template first */
        Node *hops[2] = {a, b};
        Seq hq;
        seq_operands(c, hops, 2, &hq);
        return seq_wrap(tree_binop(loc, op, tree_cast(hops[0], ty_float16),
                                   tree_cast(hops[1], ty_float16), ty_float16), &hq);
    }
    Type *args[2] = {a->type, b->type};
    const Case *cases;
    int n;
    bool unsafe = true;
    if (ty_is_complex(a->type) || ty_is_complex(b->type)) {
        /* complex: numba's templates have complex cases for + - * / ** only */
        if (op != OP_ADD && op != OP_SUB && op != OP_MUL && op != OP_DIV && op != OP_POW)
            return fail(c, loc, "unsupported operand types for %s: %s and %s", op_spelling[op],
                        ty_name(a->type), ty_name(b->type));
        cases = tr_cx_arith.cases, n = tr_cx_arith.n;
    } else switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_FLOORDIV: case OP_MOD:
        cases = tr_binop.cases, n = tr_binop.n;
        break;
    case OP_DIV: cases = tr_truediv.cases, n = tr_truediv.n; break;
    case OP_POW: cases = tr_power.cases, n = tr_power.n; break;
    case OP_LSHIFT: case OP_RSHIFT:
        cases = tr_shift.cases, n = tr_shift.n, unsafe = false;
        break;
    case OP_BITAND: case OP_BITOR: case OP_BITXOR:
        cases = tr_bitlogic.cases, n = tr_bitlogic.n, unsafe = false;
        break;
    default:
        return fail(c, loc, "operator %s is not supported", op_spelling[op]);
    }
    int k = ty_resolve_case(cases, n, args, 2, unsafe);
    if (k < 0)
        return fail(c, loc, "unsupported operand types for %s: %s and %s", op_spelling[op],
                    ty_name(a->type), ty_name(b->type));
    Type *ret = ty_scalar[cases[k].ret];
    Type *ta = ty_scalar[cases[k].a[0]], *tb = ty_scalar[cases[k].a[1]];
    Node *ops[2] = {a, b};
    Seq q;
    seq_operands(c, ops, 2, &q);
    a = ops[0];
    b = ops[1];
    switch (op) {
    case OP_DIV:            /* int / int: both to float64 first, as numba */
        ta = tb = ret;
        break;
    case OP_POW:            /* float ** int keeps the integer exponent */
        if (!ty_is_float(ret))
            ta = tb = ret;
        break;
    case OP_LSHIFT: case OP_RSHIFT:
        ta = ret;
        break;
    default:
        ta = tb = ret;
        break;
    }
    return seq_wrap(tree_binop(loc, op, tree_cast(a, ta), tree_cast(b, tb), ret), &q);
}

static Node *lower_unary(Ctx *c, Node *e)
{
    Node *v = lx(c, e->lhs);
    if (BAD(v))
        return poison(e->loc, v, NULL);
    Node *err;
    if (!check_scalar(c, v, arena_printf("unary %s on", op_spelling[e->op]), &err))
        return err;
    Type *t = v->type, *ret;
    if (e->op == OP_NOT) {
        ret = ty_bool;
        v = tree_cast(v, ty_bool);
    } else if (e->op == OP_INVERT) {
        if (ty_is_float(t) || ty_is_complex(t))
            return fail(c, e->loc, "bad operand type for unary ~: %s", ty_name(t));
        ret = t->kind == TY_BOOL ? ty_bool : ty_is_signed(t) ? ty_int64 : ty_uint64;
    } else {   /* OP_NEG, OP_POS: UnaryOp's exact cases */
        ret = ty_is_float(t) || ty_is_complex(t) ? t
            : (ty_is_int(t) && !ty_is_signed(t)) ? ty_uint64 : ty_int64;
    }
    /* UnaryOp's cases take the operand as it is and return the 64-bit
     * type: numba negates and inverts an int8..int32 or uint8..uint32 at
     * its own width, then widens (int_negate_impl, int_invert_impl), so
     * -int32(-2**31) is -2**31 and -uint32(1) is 4294967295. */
    Type *op_t = ret;
    if ((e->op == OP_NEG || e->op == OP_INVERT) && ty_is_int(t) && ty_size(t) < 8)
        op_t = t;
    v = tree_cast(v, op_t);
    /* -1 and -2.5 stay constants */
    if (v->kind == E_CONST && (e->op == OP_POS || (e->op == OP_NEG && v->type != ty_uint64))) {
        if (e->op == OP_NEG) {
            if (ty_is_complex(op_t))
                v->fimag = -v->fimag;
            if (ty_is_float(op_t) || ty_is_complex(op_t))
                v->fval = -v->fval;
            else
                v->ival = tree_wrap_int((uint64_t)0 - v->ival, op_t);
        }
        v->loc = e->loc;
        return tree_cast(v, ret);
    }
    if (e->op == OP_POS)
        return tree_cast(v, ret);
    Node *n = node_new(E_UNARY, e->loc);
    n->op = e->op;
    n->lhs = v;
    n->type = op_t;
    return tree_cast(n, ret);
}

static Node *mk_and(Loc loc, Node *a, Node *b);

static Node *lower_cmp2(Ctx *c, Loc loc, Op op, Node *a, Node *b)
{
    if (op == OP_IS || op == OP_ISNOT || op == OP_IN || op == OP_NOTIN)
        return fail(c, loc, "the '%s' operator is not supported", op_spelling[op]);
    if ((op == OP_EQ || op == OP_NE) && a->type->kind == TY_TUPLE &&
        b->type->kind == TY_TUPLE && tree_is_pure(a) && tree_is_pure(b)) {
        /* issue 9: tuples compare element by element (different lengths:
         * not equal) */
        Node *r = tree_int(loc, ty_bool, a->type->nelems == b->type->nelems);
        for (int i = 0; a->type->nelems == b->type->nelems && i < a->type->nelems; i++) {
            Node *x = lower_cmp2(c, loc, OP_EQ, tree_tupleget(node_clone(a), i),
                                 tree_tupleget(node_clone(b), i));
            if (BAD(x))
                return x;
            r = i ? mk_and(loc, r, x) : x;
        }
        if (op == OP_NE) {
            Node *n = node_new(E_UNARY, loc);
            n->op = OP_NOT;
            n->lhs = r;
            n->type = ty_bool;
            r = n;
        }
        return r;
    }
    if (!ty_is_scalar(a->type) || !ty_is_scalar(b->type))
        return fail(c, loc, "'%s' is not supported between %s and %s", op_spelling[op],
                    ty_name(a->type), ty_name(b->type));
    Type *args[2] = {a->type, b->type};
    const CaseList *cl = &tr_cmp;
    if (ty_is_complex(a->type) || ty_is_complex(b->type)) {
        /* UnorderedCmpOp has complex cases, OrderedCmpOp none */
        if (op != OP_EQ && op != OP_NE)
            return fail(c, loc, "'%s' is not supported between %s and %s", op_spelling[op],
                        ty_name(a->type), ty_name(b->type));
        cl = &tr_cx_cmp;
    }
    int k = ty_resolve_case(cl->cases, cl->n, args, 2, true);
    Type *t = ty_scalar[cl->cases[k].a[0]];
    if (half_operator(op, a->type, b->type))   /* float16 (src/half.c) */
        t = ty_float16;
    Node *ops[2] = {a, b};
    Seq q;
    seq_operands(c, ops, 2, &q);
    Node *n = node_new(E_COMPARE, loc);
    nl_push(&n->args, tree_cast(ops[0], t));
    nl_push(&n->args, tree_cast(ops[1], t));
    n->ops = arena_alloc(sizeof *n->ops);
    n->ops[0] = op;
    n->type = ty_bool;
    return seq_wrap(n, &q);
}

static Node *mk_and(Loc loc, Node *a, Node *b)
{
    Node *n = node_new(E_BOOLOP, loc);
    n->op = OP_AND;
    n->lhs = a;
    n->rhs = b;
    n->type = ty_bool;
    return n;
}

/* The rest of a chain from comparison i on, its left operand `left`
 * already evaluated (v[0] itself, or stable).  bind[j]: operand j is read
 * once, through a hidden variable bound by an E_LET whose body holds every
 * later use, so Python's left-to-right, evaluate-once order holds:
 *   a < f(x) <= c  ->  let t = f(x) in ((a < t) and (t <= c)). */
static Node *lower_chain(Ctx *c, Node *e, Node **v, const bool *bind, int i, Node *left)
{
    int n = e->args.len;
    Node *right = v[i + 1];
    Var *t = NULL;
    if (bind[i + 1]) {
        t = hidden_var(c, "cmp", right->type, right->loc);
        right = tree_var(right->loc, t);
    }
    bool last = i + 2 == n;
    Node *cmp = lower_cmp2(c, e->loc, e->ops[i], left,
                           last || t ? right : node_clone(right));
    if (BAD(cmp))
        return cmp;
    Node *r = cmp;
    if (!last) {
        Node *rest = lower_chain(c, e, v, bind, i + 1, t ? tree_var(right->loc, t) : right);
        if (BAD(rest))
            return rest;
        r = mk_and(e->loc, cmp, rest);
    }
    return t ? tree_let(e->loc, t, v[i + 1], r) : r;
}

/* a < b <= c: (a < b) and (b <= c), b evaluated once and only if needed.
 * Pure operands are simply read twice; an operand with a side effect (a
 * call, an atomic, a random draw) is bound to a hidden variable by an
 * E_LET, and so is every operand before it that such an effect could
 * change. */
/* issue 9: `x is None`, `x is not None`: kernc's values are never None
 * (no Optional types), so the answer is known from the operands' shape:
 * 1/0, or -1 when this is no such comparison.  numba prunes the branch
 * of such a test on an argument too. */
static int is_none_truth(const Node *e)
{
    if (e->kind != E_COMPARE || e->args.len != 2 ||
        (e->ops[0] != OP_IS && e->ops[0] != OP_ISNOT))
        return -1;
    const Node *a = e->args.items[0], *b = e->args.items[1];
    bool an = a->kind == E_NONE && !a->text, bn = b->kind == E_NONE && !b->text;
    if (!an && !bn)
        return -1;
    bool same = an && bn;
    return e->ops[0] == OP_IS ? same : !same;
}

static Node *lower_compare(Ctx *c, Node *e)
{
    int n = e->args.len;
    int none = is_none_truth(e);
    if (none >= 0) {
        Node *x = e->args.items[((Node *)e->args.items[0])->kind == E_NONE ? 1 : 0];
        if (!(x->kind == E_NONE && !x->text)) {
            Node *v = lx(c, x);
            if (BAD(v))
                return poison(e->loc, v, NULL);
            if (!tree_is_pure(v))
                return fail(c, x->loc, "'is None' of a call or an atomic is not supported; "
                            "assign its value to a variable first");
        }
        return tree_int(e->loc, ty_bool, none);
    }
    Node **v = arena_alloc(sizeof *v * (size_t)n);
    bool *bind = arena_alloc(sizeof *bind * (size_t)n);
    Node *bad = NULL;
    for (int i = 0; i < n; i++) {
        v[i] = lx(c, e->args.items[i]);
        if (BAD(v[i]) && (!bad || v[i]->type == ty_error))
            bad = v[i];
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    for (int i = 0; i < n; i++)
        if (!ty_is_scalar(v[i]->type))
            return lower_cmp2(c, e->loc, e->ops[i ? i - 1 : 0], v[i ? i - 1 : 0],
                              v[i ? i : 1]);   /* its error */
    /* a middle operand read twice needs a variable when it has an effect,
     * or when a later operand has one that could change it; the first
     * operand when the second one's effect could */
    bool later_impure = false;
    for (int i = n - 1; i >= 0; i--) {
        bool middle = i > 0 && i + 1 < n;
        bind[i] = middle && !tree_is_stable(v[i]) && (!tree_is_pure(v[i]) || later_impure);
        if (i == 0)
            bind[0] = n > 2 && !tree_is_stable(v[0]) && bind[1] && !tree_is_pure(v[1]);
        later_impure |= !tree_is_pure(v[i]);
    }
    if (!bind[0])
        return lower_chain(c, e, v, bind, 0, v[0]);
    Var *t = hidden_var(c, "cmp", v[0]->type, v[0]->loc);
    Node *r = lower_chain(c, e, v, bind, 0, tree_var(v[0]->loc, t));
    return BAD(r) ? r : tree_let(e->loc, t, v[0], r);
}

/* numba prunes the branches of a constant condition before typing
 * (dead_branch_prune): `x if 2.5 else y`, `if DEBUG:`, `0.1 or y` type only
 * the branch taken, so the other neither widens a type nor is checked.  A
 * constant here is what CPython folds to one (literals, unary and binary
 * arithmetic on them; not comparisons or boolean operators) or a module
 * constant.  Its truth (0/1), or -1 when the condition is not constant. */
static bool const_shape(const Node *e)
{
    switch (e->kind) {
    case E_INT: case E_FLOAT: case E_BOOL: case E_NAME:
        return true;
    case E_UNARY:
        return e->op != OP_NOT && const_shape(e->lhs);
    case E_BINOP:
        return const_shape(e->lhs) && const_shape(e->rhs);
    default:
        return false;
    }
}

static int const_truth(Ctx *c, Node *e)
{
    /* pruning repeats until nothing changes: a condition that is itself a
     * pruned `C or y` / `x if C else y` is as constant as what remains */
    if (e->kind == E_BOOLOP) {
        int k = const_truth(c, e->lhs);
        return k < 0 ? -1 : (k == 1) == (e->op == OP_AND) ? const_truth(c, e->rhs) : k;
    }
    if (e->kind == E_IFEXP) {
        int k = const_truth(c, e->cond);
        return k < 0 ? -1 : const_truth(c, k ? e->lhs : e->rhs);
    }
    if (e->kind == E_COMPARE && is_none_truth(e) >= 0) {   /* issue 9: x is None */
        const Node *x = e->args.items[((Node *)e->args.items[0])->kind == E_NONE ? 1 : 0];
        if (x->kind == E_NAME || x->kind == E_NONE || x->kind == E_INT ||
            x->kind == E_FLOAT || x->kind == E_BOOL)
            return is_none_truth(e);
    }
    if (!const_shape(e))
        return -1;
    Node *k = sema_fold(e, false, ctx_is_local, c);
    if (!k || k->kind != E_CONST || !k->type || !ty_is_scalar(k->type))
        return -1;
    return ty_is_float(k->type) ? k->fval != 0 : k->ival != 0;
}

static Node *lower_boolop(Ctx *c, Node *e)
{
    int k = const_truth(c, e->lhs);
    if (k >= 0)   /* a and b: b when a is true; a or b: b when a is false */
        return lx(c, (k == 1) == (e->op == OP_AND) ? e->rhs : e->lhs);
    Node *a = lx(c, e->lhs), *b = lx(c, e->rhs);
    if (BAD(a) || BAD(b))
        return poison(e->loc, a, b);
    Type *t = ty_is_scalar(a->type) && ty_is_scalar(b->type) ? ty_unify(a->type, b->type) : NULL;
    if (t && ty_is_complex(t))
        return fail(c, e->loc, "'%s' on complex values is not supported yet; compare with 0 "
                    "first", op_spelling[e->op]);
    if (!t)
        return fail(c, e->loc, "'%s' is not supported between %s and %s", op_spelling[e->op],
                    ty_name(a->type), ty_name(b->type));
    Node *n = node_new(E_BOOLOP, e->loc);
    n->op = e->op;
    n->lhs = tree_cast(a, t);
    n->rhs = tree_cast(b, t);
    n->type = t;
    return n;
}

static Node *lower_ifexp(Ctx *c, Node *e)
{
    int k = const_truth(c, e->cond);
    if (k >= 0)
        return lx(c, k ? e->lhs : e->rhs);
    Node *cond = lx(c, e->cond), *a = lx(c, e->lhs), *b = lx(c, e->rhs);
    if (BAD(cond) || BAD(a) || BAD(b))
        return poison(e->loc, BAD(cond) ? cond : a, BAD(b) ? b : NULL);
    Node *err;
    if (!check_scalar(c, cond, "a condition of type", &err))
        return err;
    if (ty_is_complex(cond->type))   /* complex_as_bool */
        cond = tree_cast(cond, ty_bool);
    Type *t = ty_unify(a->type, b->type);
    if (t && t->kind == TY_GRIDGROUP)
        return fail(c, e->loc, "a conditional expression cannot choose a GridGroup; use "
                    "cuda.cg.this_grid() directly");
    if (!t || (!ty_is_scalar(t) && a->type != b->type))
        return fail(c, e->loc, "the branches of a conditional expression have "
                    "incompatible types %s and %s", ty_name(a->type), ty_name(b->type));
    Node *n = node_new(E_IFEXP, e->loc);
    n->cond = cond;
    n->lhs = tree_cast(a, t);
    n->rhs = tree_cast(b, t);
    n->type = t;
    return n;
}

/* ------------------------------------------------------------------ */
/* Arrays and tuples                                                   */
/* ------------------------------------------------------------------ */

/* An integer constant (module constants and literals), for shape indices
 * and grid(n); false (reported unless quiet) otherwise. */
static bool const_int(Ctx *c, Node *e, int64_t *out)
{
    Node *k = sema_fold(e, false, ctx_is_local, c);
    if (!k || !ty_is_int(k->type))
        return false;
    *out = (int64_t)k->ival;
    return true;
}

/* The indices of one element: a[i], a[i, j], or a[t] with t a tuple value
 * (cuda.grid(2), a tuple variable, a.shape), lowered to ndim int64s in
 * `out`.  `atomic` names the atomic whose index this is (its own message).
 * NULL on success, else the poison node. */
static Node *lower_indices(Ctx *c, Node *idx, int ndim, Loc whole, const char *atomic,
                           NodeList *out, Node *pre)
{
    Node **items = NULL, **low = NULL;
    int nidx;
    if (idx->kind == E_TUPLE || idx->kind == E_SLICE) {
        items = idx->kind == E_TUPLE ? idx->args.items : &idx;
        nidx = idx->kind == E_TUPLE ? idx->args.len : 1;
        for (int i = 0; i < nidx; i++)
            if (items[i]->kind == E_SLICE)
                return fail(c, items[i]->loc, "array slicing is not supported yet");
    } else {
        Node *v = pre ? pre : lx(c, idx);
        if (BAD(v))
            return poison(idx->loc, v, NULL);
        if (v->type->kind == TY_TUPLE) {
            nidx = v->type->nelems;
            if (!tree_is_pure(v))
                return fail(c, idx->loc, "an index tuple returned by a call is not supported; "
                            "assign it to a variable first");
            low = arena_alloc(sizeof *low * (size_t)(nidx ? nidx : 1));
            for (int i = 0; i < nidx; i++)
                low[i] = tree_tupleget(i ? node_clone(v) : v, i);
        } else {
            nidx = 1;
            low = arena_alloc(sizeof *low);
            low[0] = v;
        }
    }
    if (nidx != ndim) {
        if (atomic)
            return fail(c, idx->loc, "the index of a %d-D array in %s must have %d "
                        "integer%s, not %d", ndim, atomic, ndim, ndim > 1 ? "s" : "", nidx);
        if (nidx > ndim)
            return fail(c, idx->loc, "too many indices for a %d-D array (%d given)", ndim,
                        nidx);
        return fail(c, whole, "array slicing is not supported yet (a %d-D array needs "
                    "%d indices, %d given)", ndim, ndim, nidx);
    }
    Node *bad = NULL;
    for (int i = 0; i < nidx; i++) {
        Node *v = items ? lx(c, items[i]) : low[i];
        Loc l = items ? items[i]->loc : idx->loc;
        if (BAD(v)) {
            bad = !bad || v->type == ty_error ? v : bad;
            continue;
        }
        if (!ty_is_int(v->type)) {
            bad = fail(c, l, "array index must be an integer, not %s", ty_name(v->type));
            continue;
        }
        nl_push(out, tree_cast(v, ty_int64));
    }
    return bad ? poison(whole, bad, NULL) : NULL;
}

/* ---- Slicing and views (issue 9) ----
 * a[lo:hi:step], a[i, :], a[:, j], a[1:3, ::2], a[..., 0] and a[i] of an
 * n-D array (n > 1) are views: an E_VIEW over the array, of numba's type
 * (arraydecl.py get_array_index_type): integer indices drop their
 * dimension; a C array stays C only when every index before the last one
 * given is an integer and the last is an integer or a slice without a
 * step (a[1:] and b[i, :] are C, a[::2], a[1:3:1], b[:, j], b[0:2, :] are
 * A); an ellipsis stands for the full slices it covers; an A array stays
 * A.  The view keeps the memory space of its array. */

/* One index of a subscript, lowered: an int64 (is_int), a slice whose
 * lowered E_SLICE has int64 bounds or NULL (step: cond), or an ellipsis. */
typedef struct ViewItem {
    Node *n;
    bool is_int, is_slice, is_ellipsis, has_step;
} ViewItem;

static bool view_bound(Ctx *c, Node *x, Node **out, Node **bad)
{
    *out = NULL;
    if (!x || (x->kind == E_NONE && !x->text))
        return true;
    Node *v = lx(c, x);
    if (BAD(v)) {
        *bad = !*bad || v->type == ty_error ? v : *bad;
        return false;
    }
    if (!ty_is_int(v->type) && v->type->kind != TY_BOOL) {
        *bad = fail(c, x->loc, "slice indices must be integers, not %s", ty_name(v->type));
        return false;
    }
    *out = tree_cast(v, ty_int64);
    return true;
}

/* The view base[items] (nitems syntactic items, or the lowered values pre[]
 * when pre is not NULL); an E_INDEX when every dimension gets an integer. */
static Node *lower_view(Ctx *c, Node *e, Node *base, Node **items, Node **pre, int nitems)
{
    Type *at = base->type;
    ViewItem *it = arena_alloc(sizeof *it * (size_t)(nitems ? nitems : 1));
    Node *bad = NULL;
    int nidx = 0, nint = 0, ellipsis = -1;
    for (int i = 0; i < nitems; i++) {
        Node *x = pre ? pre[i] : items[i];
        if (!pre && x->kind == E_NONE && x->text && strcmp(x->text, "...") == 0) {
            if (ellipsis >= 0)
                return fail(c, x->loc, "only one ellipsis is allowed in array indices");
            ellipsis = i;
            it[i].is_ellipsis = true;
            continue;
        }
        nidx++;
        if (!pre && x->kind == E_NONE)
            return fail(c, x->loc, "None (np.newaxis) in an array index is not supported");
        if (!pre && x->kind == E_SLICE) {
            Node *s = node_new(E_SLICE, x->loc);
            bool ok = view_bound(c, x->lhs, &s->lhs, &bad);
            ok &= view_bound(c, x->rhs, &s->rhs, &bad);
            ok &= view_bound(c, x->cond, &s->cond, &bad);
            if (ok && s->cond && s->cond->kind == E_CONST && s->cond->ival == 0)
                bad = fail(c, x->cond->loc, "slice step cannot be zero");
            s->type = ty_none;
            it[i].n = s;
            it[i].is_slice = true;
            it[i].has_step = x->cond != NULL;
            continue;
        }
        Node *v = pre ? x : lx(c, x);
        if (BAD(v)) {
            bad = !bad || v->type == ty_error ? v : bad;
            continue;
        }
        if (!ty_is_int(v->type)) {
            bad = fail(c, x->loc, "array index must be an integer or a slice, not %s",
                       ty_name(v->type));
            continue;
        }
        it[i].n = tree_cast(v, ty_int64);
        it[i].is_int = true;
        nint++;
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    if (nidx > at->ndim)
        return fail(c, e->rhs->loc, "too many indices for a %d-D array (%d given)", at->ndim,
                    nidx);
    int ndim = at->ndim - nint;
    /* numba's layout: the indices before the ellipsis are the left ones */
    bool contiguous = at->contiguous;
    if (contiguous) {
        int nleft = ellipsis >= 0 && nidx != at->ndim ? ellipsis : nitems;
        bool right = false;
        for (int i = nleft; i < nitems; i++)
            right |= !it[i].is_ellipsis;
        if (right)
            contiguous = false;
        int last = -1;
        for (int i = 0; i < nleft; i++)
            if (!it[i].is_ellipsis)
                last = i;
        for (int i = 0; i < nleft && contiguous; i++) {
            if (it[i].is_ellipsis || it[i].is_int)
                continue;
            if (i != last || it[i].has_step)   /* a slice: innermost, no step */
                contiguous = false;
        }
    }
    /* the items per dimension, the ellipsis expanded to full slices */
    Node *n = node_new(ndim == 0 ? E_INDEX : E_VIEW, e->loc);
    n->lhs = base;
    for (int i = 0; i < nitems; i++) {
        if (!it[i].is_ellipsis) {
            nl_push(&n->args, it[i].n);
            continue;
        }
        for (int k = 0; k < at->ndim - nidx; k++) {
            Node *s = node_new(E_SLICE, it[i].n ? it[i].n->loc : e->loc);
            s->type = ty_none;
            nl_push(&n->args, s);
        }
    }
    if (ndim == 0) {   /* a[..., i] of a 1-D array: the element */
        n->type = at->elem;
        return n;
    }
    if (at->fortran) {
        /* F: integers on the right keep it; the indices after the
         * ellipsis (all of them when every dimension is indexed), read
         * from the last, must be integers but for the first one read,
         * which may also be a slice without a step */
        int nright;
        bool fortran;
        if (nidx == at->ndim) {
            nright = nidx;
            fortran = true;
        } else if (ellipsis >= 0) {
            nright = nitems - ellipsis - 1;
            fortran = ellipsis == 0;
        } else {
            nright = 0;
            fortran = nidx == 0;
        }
        int seen = 0;
        for (int i = nitems - 1; i >= 0 && fortran && seen < nright; i--) {
            if (it[i].is_ellipsis)
                continue;
            seen++;
            if (it[i].is_int)
                continue;
            if (seen != nright || it[i].has_step)
                fortran = false;
        }
        n->type = fortran ? ty_array_f(at->elem, ndim, at->space)
                          : ty_array(at->elem, ndim, false, at->space);
        return n;
    }
    n->type = ty_array(at->elem, ndim, contiguous, at->space);
    return n;
}

/* Does subscript idx of an ndim-D array make a view (syntactically)? */
static bool is_view_subscript(const Node *idx, int ndim)
{
    if (idx->kind == E_SLICE || (idx->kind == E_NONE && idx->text))
        return true;
    if (idx->kind != E_TUPLE)
        return false;
    for (int i = 0; i < idx->args.len; i++) {
        const Node *x = idx->args.items[i];
        if (x->kind == E_SLICE || x->kind == E_NONE)
            return true;
    }
    return idx->args.len < ndim;
}

static Node *lower_index(Ctx *c, Node *e)
{
    /* a.shape[k] */
    if (e->lhs->kind == E_ATTR && strcmp(e->lhs->name, "shape") == 0 &&
        !expr_path(c, e->lhs)) {
        Node *arr = lx(c, e->lhs->lhs);
        if (BAD(arr))
            return poison(e->loc, arr, NULL);
        if (arr->type->kind == TY_ARRAY) {
            int64_t k;
            if (e->rhs->kind == E_SLICE || !const_int(c, e->rhs, &k))
                return fail(c, e->rhs->loc, "the index of %s.shape must be an integer "
                            "constant", "an array");
            if (k < 0)
                k += arr->type->ndim;
            if (k < 0 || k >= arr->type->ndim)
                return fail(c, e->rhs->loc, "shape index out of range for a %d-D array",
                            arr->type->ndim);
            Node *n = node_new(E_SHAPE, e->loc);
            n->lhs = arr;
            n->ival = (uint64_t)k;
            n->type = ty_int64;
            return n;
        }
    }
    const char *p = expr_path(c, e->lhs);
    if (p) {
        const ApiEntry *a = api_lookup(p);
        if (a && a->kind == AK_TYPE)
            return fail(c, e->loc, "array types such as %s[:] are only allowed in "
                        "signatures", p);
    }
    Node *base = lx(c, e->lhs);
    if (BAD(base))
        return poison(e->loc, base, NULL);
    Node *idx = e->rhs;
    if (base->type->kind == TY_TUPLE) {
        int64_t k;
        if (idx->kind == E_TUPLE || idx->kind == E_SLICE || !const_int(c, idx, &k))
            return fail(c, idx->loc, "a tuple index must be an integer constant");
        if (k < 0)
            k += base->type->nelems;
        if (k < 0 || k >= base->type->nelems)
            return fail(c, idx->loc, "tuple index out of range");
        if (base->kind == E_TUPLE) {   /* (a, b)[1], a.shape[...], T[0] of a constant T */
            bool pure = true;
            for (int i = 0; i < base->args.len; i++)
                pure &= i == k || tree_is_pure(base->args.items[i]);
            if (pure) {
                Node *x = base->args.items[k];
                if (x->kind == E_CONST) {   /* of a module-level tuple: located here */
                    x = node_clone(x);
                    x->loc = e->loc;
                }
                return x;
            }
        }
        Node *n = node_new(E_TUPLEGET, e->loc);
        n->lhs = base;
        n->ival = (uint64_t)k;
        n->type = base->type->elems[k];
        return n;
    }
    if (base->type->kind != TY_ARRAY)
        return fail(c, e->lhs->loc, "a value of type %s cannot be indexed",
                    ty_name(base->type));
    if (base->type->elem == ty_rngstate)
        return fail(c, e->loc, "xoroshiro128p states can only be passed to xoroshiro128p_* "
                    "functions");
    int ndim = base->type->ndim;
    if (is_view_subscript(idx, ndim))
        return lower_view(c, e, base, idx->kind == E_TUPLE ? idx->args.items : &idx, NULL,
                          idx->kind == E_TUPLE ? idx->args.len : 1);
    Node *pre = NULL;
    if (idx->kind != E_TUPLE && ndim > 1) {
        /* b[i] of a 2-D array is a row; b[t] with t a shorter tuple a view */
        pre = lx(c, idx);
        if (BAD(pre))
            return poison(e->loc, pre, NULL);
        if (pre->type->kind != TY_TUPLE)
            return lower_view(c, e, base, NULL, &pre, 1);
        if (pre->type->nelems < ndim) {
            int k = pre->type->nelems;
            if (!tree_is_pure(pre))
                return fail(c, idx->loc, "an index tuple returned by a call is not supported; "
                            "assign it to a variable first");
            Node **v = arena_alloc(sizeof *v * (size_t)(k ? k : 1));
            for (int i = 0; i < k; i++)
                v[i] = tree_tupleget(i ? node_clone(pre) : pre, i);
            return lower_view(c, e, base, NULL, v, k);
        }
    }
    Node *n = node_new(E_INDEX, e->loc);
    n->lhs = base;
    n->type = base->type->elem;
    Node *err = lower_indices(c, idx, ndim, e->loc, NULL, &n->args, pre);
    return err ? err : n;
}

/* The closest of numba's array attributes to a misspelled one. */
static const char *array_attr_hint(const char *name)
{
    static const char *const attrs[] = {"ndim", "size", "shape", "strides", "itemsize",
                                        "nbytes", "dtype", "T", "real", "imag", NULL};
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; attrs[i]; i++)
        suggest_add(&sg, attrs[i]);
    return suggest_hint(&sg);
}

/* ------------------------------------------------------------------ */
/* complex64 / complex128 (numba's Complex; complex.c has the cases)    */
/* ------------------------------------------------------------------ */

/* An E_API of one of the complex rows. */
static Node *cx_api(Loc loc, ApiId id, Type *t, Node **args, int nargs)
{
    Node *r = node_new(E_API, loc);
    r->api = &api_table[id];
    r->type = t;
    for (int i = 0; i < nargs; i++)
        nl_push(&r->args, args[i]);
    return r;
}

/* z.real, z.imag (NumberAttribute: the part's float; an int or float is its
 * own real part, and its imaginary part is a zero of its type). */
static Node *lower_complex_part(Ctx *c, Node *e, Node *base)
{
    bool real = strcmp(e->name, "real") == 0;
    Type *t = base->type;
    if (ty_is_complex(t))
        return cx_api(e->loc, real ? API_CX_REAL : API_CX_IMAG, ty_complex_part(t), &base, 1);
    if (t->kind == TY_BOOL)
        return fail(c, e->loc, "a value of type boolean has no attribute '%s'", e->name);
    if (real)
        return base;
    if (!tree_is_pure(base))
        return fail(c, e->loc, "'.imag' of a real expression with effects is not supported; "
                    "assign it to a variable first");
    return ty_is_float(t) ? tree_float(e->loc, t, 0) : tree_int(e->loc, t, 0);
}

/* z.conjugate() (complex_conjugate_impl; a real number is its own). */
static Node *lower_conjugate(Ctx *c, Node *e, Node *base)
{
    if (e->args.len || e->kwargs.len)
        return fail(c, e->loc, "conjugate() takes no arguments");
    if (base->type->kind == TY_BOOL)
        return fail(c, e->lhs->loc, "method 'conjugate' of boolean is not supported");
    if (!ty_is_complex(base->type))
        return base;
    return cx_api(e->loc, API_CX_CONJ, base->type, &base, 1);
}

/* A call of a complex row (complex(), cmath.*), or of any row with a
 * complex argument: typed as numba-cuda types it, NULL when the ordinary
 * rules apply. */
static Node *lower_complex_call(Ctx *c, Node *e, const ApiEntry *a, Node **v, int nargs)
{
    bool any = false;
    for (int i = 0; i < nargs; i++)
        any = any || ty_is_complex(v[i]->type);
    bool row = a->rule == TR_COMPLEX || a->rule == TR_CMATH_UNARY || a->rule == TR_CMATH_PRED ||
               a->rule == TR_CMATH_OVERLOAD || a->rule == TR_CMATH_RECT;
    if (!any && !row)
        return NULL;
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    Type *c64 = ty_scalar[TY_COMPLEX64], *c128 = ty_scalar[TY_COMPLEX128];
    Seq q;
    switch (a->rule) {
    case TR_COMPLEX: {   /* builtins.py Complex: complex64 only from float32 parts */
        for (int i = 0; i < nargs; i++)
            if (v[i]->type->kind == TY_BOOL)
                return fail(c, v[i]->loc, "complex() only supports numbers, not boolean");
        if (nargs == 1)
            return tree_cast(v[0], v[0]->type == ty_float32 ? c64 : c128);
        for (int i = 0; i < nargs; i++)
            if (ty_is_complex(v[i]->type))
                return fail(c, v[i]->loc, "complex(real, imag) takes real parts, not %s",
                            ty_name(v[i]->type));
        Type *t = v[0]->type == ty_float32 && v[1]->type == ty_float32 ? c64 : c128;
        seq_operands(c, v, 2, &q);
        for (int i = 0; i < 2; i++)
            v[i] = tree_cast(v[i], ty_complex_part(t));
        return seq_wrap(cx_api(e->loc, API_B_COMPLEX, t, v, 2), &q);
    }
    case TR_CMATH_UNARY: case TR_CMATH_PRED: {   /* cmathdecl.py */
        const CaseList *cl = a->rule == TR_CMATH_PRED ? &tr_cx_pred
                           : nargs == 2 ? &tr_cx_arith : &tr_cx_unary;
        Type *args[2] = {v[0]->type, nargs > 1 ? v[1]->type : NULL};
        int k = ty_resolve_case(cl->cases, cl->n, args, nargs, true);
        if (k < 0 || v[0]->type->kind == TY_BOOL || (nargs > 1 && v[1]->type->kind == TY_BOOL))
            return fail(c, e->loc, "%s() does not accept these argument types", a->path);
        Type *t = ty_scalar[cl->cases[k].a[0]];
        seq_operands(c, v, nargs, &q);
        for (int i = 0; i < nargs; i++)
            v[i] = tree_cast(v[i], t);
        if (nargs == 2)   /* cmath.log(z, base) = log(z) / log(base) (log_base_impl) */
            return seq_wrap(tree_binop(e->loc, OP_DIV, cx_api(e->loc, API_CM_LOG, t, &v[0], 1),
                                       cx_api(e->loc, API_CM_LOG, t, &v[1], 1), t), &q);
        return seq_wrap(cx_api(e->loc, a->id, ty_scalar[cl->cases[k].ret], v, 1), &q);
    }
    case TR_CMATH_OVERLOAD: {   /* cmathimpl.py's @overload: a complex only */
        Type *t = v[0]->type;
        if (!ty_is_complex(t))
            return fail(c, v[0]->loc, "%s() does not accept %s (numba-cuda takes a complex "
                        "argument only; convert with complex(x))", a->path, ty_name(t));
        Type *ret = t, *part = ty_complex_part(t);
        switch (a->id) {
        case API_CM_LOG10: case API_CM_TANH: case API_CM_ACOSH:
            ret = c128;   /* their float64 constants widen the result */
            break;
        case API_CM_PHASE:
            ret = part;
            break;
        case API_CM_POLAR: {   /* (hypot(re, im), atan2(im, re)): a tuple of two rows */
            Type *el[2] = {part, part};
            if (!tree_is_pure(v[0]))
                return fail(c, v[0]->loc, "cmath.polar() of an expression with effects is not "
                            "supported; assign it to a variable first");
            Node *tup = node_new(E_TUPLE, e->loc), *z2 = node_clone(v[0]);
            nl_push(&tup->args, cx_api(e->loc, API_CX_ABS, part, &v[0], 1));
            nl_push(&tup->args, cx_api(e->loc, API_CM_PHASE, part, &z2, 1));
            tup->type = ty_tuple(el, 2);
            return tup;
        }
        default:
            break;
        }
        return cx_api(e->loc, a->id, ret, v, 1);
    }
    case TR_CMATH_RECT: {   /* impl_cmath_rect: two floats */
        for (int i = 0; i < 2; i++)
            if (!ty_is_float(v[i]->type))
                return fail(c, v[i]->loc, "cmath.rect() takes floats, not %s",
                            ty_name(v[i]->type));
        Type *t = v[0]->type == ty_float32 && v[1]->type == ty_float32 ? c64 : c128;
        seq_operands(c, v, 2, &q);
        for (int i = 0; i < 2; i++)
            v[i] = tree_cast(v[i], ty_complex_part(t));
        return seq_wrap(cx_api(e->loc, a->id, t, v, 2), &q);
    }
    default:
        break;
    }
    /* the other rows, with a complex argument */
    switch (a->id) {
    case API_B_ABS:   /* Abs: the part's float, hypot(re, im) */
        return cx_api(e->loc, API_CX_ABS, ty_complex_part(v[0]->type), v, 1);
    case API_B_BOOL: case API_B_POW:
        return NULL;
    case API_B_INT: case API_B_FLOAT:
        return fail(c, e->loc, "%s() does not support complex (%s)", a->path,
                    ty_name(v[0]->type));
    case API_B_MIN: case API_B_MAX:
        return fail(c, e->loc, "%s() of complex numbers is not supported (numba has no "
                    "ordering of complex numbers)", a->path);
    default:
        break;
    }
    if (a->rule == TR_CAST) {
        Type *to = api_type(a);
        if (!ty_is_complex(to) && to->kind != TY_BOOL)
            return fail(c, e->loc, "cannot convert %s to %s (numba has no conversion from "
                        "complex to a real type; take .real or abs())", ty_name(v[0]->type),
                        ty_name(to));
        return NULL;
    }
    if (a->cls == AC_MATH)
        return fail(c, e->loc, "%s() does not accept %s; the cmath module has the complex "
                    "functions", a->path, ty_name(v[0]->type));
    for (int i = 0; i < nargs; i++)
        if (ty_is_complex(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    return NULL;
}

static Node *lower_attr(Ctx *c, Node *e)
{
    const char *p = expr_path(c, e);
    if (p)
        return lower_path_value(c, e->loc, p);
    Node *base = lx(c, e->lhs);
    if (BAD(base))
        return poison(e->loc, base, NULL);
    Type *t = base->type;
    if (t->kind == TY_ARRAY) {
        if (strcmp(e->name, "ndim") == 0)
            return tree_int(e->loc, ty_int64, t->ndim);
        if (strcmp(e->name, "size") == 0) {
            Node *r = NULL;
            for (int i = 0; i < t->ndim; i++) {
                Node *s = node_new(E_SHAPE, e->loc);
                s->lhs = i ? node_clone(base) : base;
                s->ival = (uint64_t)i;
                s->type = ty_int64;
                r = r ? tree_binop(e->loc, OP_MUL, r, s, ty_int64) : s;
            }
            return r;
        }
        if (strcmp(e->name, "shape") == 0) {   /* UniTuple(int64, ndim) */
            Node *tup = node_new(E_TUPLE, e->loc);
            Type *el[3] = {ty_int64, ty_int64, ty_int64};
            for (int i = 0; i < t->ndim; i++) {
                Node *s = node_new(E_SHAPE, e->loc);
                s->lhs = i ? node_clone(base) : base;
                s->ival = (uint64_t)i;
                s->type = ty_int64;
                nl_push(&tup->args, s);
            }
            tup->type = ty_tuple(el, t->ndim);
            return tup;
        }
        /* issue 9: strides, itemsize, nbytes, T */
        if (strcmp(e->name, "T") == 0)
            return array_transpose(e->loc, base);
        if (strcmp(e->name, "strides") == 0) {   /* UniTuple(int64, ndim), bytes */
            Node *tup = node_new(E_TUPLE, e->loc);
            Type *el[3] = {ty_int64, ty_int64, ty_int64};
            for (int i = 0; i < t->ndim; i++) {
                Node *s = node_new(E_STRIDE, e->loc);
                s->lhs = i ? node_clone(base) : base;
                s->ival = (uint64_t)i;
                s->type = ty_int64;
                nl_push(&tup->args, s);
            }
            tup->type = ty_tuple(el, t->ndim);
            return tup;
        }
        if (t->elem == ty_rngstate && (strcmp(e->name, "itemsize") == 0 ||
                                       strcmp(e->name, "nbytes") == 0))
            return fail(c, e->loc, "xoroshiro128p states have no '%s' here", e->name);
        if (strcmp(e->name, "itemsize") == 0)
            return tree_int(e->loc, ty_int64, ty_size(t->elem));
        if (strcmp(e->name, "nbytes") == 0) {
            Node *r = tree_int(e->loc, ty_int64, ty_size(t->elem));
            for (int i = 0; i < t->ndim; i++) {
                Node *s = node_new(E_SHAPE, e->loc);
                s->lhs = i ? node_clone(base) : base;
                s->ival = (uint64_t)i;
                s->type = ty_int64;
                r = tree_binop(e->loc, OP_MUL, s, r, ty_int64);
            }
            return r;
        }
        if (strcmp(e->name, "copy") == 0 || strcmp(e->name, "flatten") == 0 ||
            strcmp(e->name, "ravel") == 0 || strcmp(e->name, "imag") == 0)
            return fail(c, e->loc, "array.%s allocates a new array, which numba-cuda cannot do "
                        "on the device (NRT)", e->name);
        return fail(c, e->loc, "array attribute '%s' is not supported%s", e->name,
                    array_attr_hint(e->name));
    }
    if (t->kind == TY_VECTOR) {   /* v.x .. v.w (vecrec) */
        static const char fields[] = "xyzw";
        const char *f = e->name[0] && !e->name[1] ? strchr(fields, e->name[0]) : NULL;
        if (!f || f - fields >= t->nelems)
            return fail(c, e->loc, "%s has no attribute '%s' (its fields are %.*s)", ty_name(t),
                        e->name, t->nelems * 2 - 1, &"x y z w"[0]);
        Node *n = node_new(E_TUPLEGET, e->loc);
        n->lhs = base;
        n->ival = (uint64_t)(f - fields);
        n->type = t->elem;
        return n;
    }
    if (ty_is_scalar(t) && (strcmp(e->name, "real") == 0 || strcmp(e->name, "imag") == 0))
        return lower_complex_part(c, e, base);
    return fail(c, e->loc, "a value of type %s has no attribute '%s'", ty_name(t), e->name);
}

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

static const char *api_short(const ApiEntry *a)
{
    const char *dot = strrchr(a->path, '.');
    return dot ? dot + 1 : a->path;
}

/* Lower every argument; false if one is bad (*bad set). */
static bool lower_args(Ctx *c, Node *call, Node **v, Node **bad)
{
    *bad = NULL;
    for (int i = 0; i < call->args.len; i++) {
        v[i] = lx(c, call->args.items[i]);
        if (BAD(v[i]) && (!*bad || v[i]->type == ty_error))
            *bad = v[i];
    }
    return *bad == NULL;
}

/* The element types each atomic rule accepts (numba-cuda cudadecl.py:
 * all_numba_types, integer_numba_types, unsigned_int_numba_types). */
static bool atomic_accepts(ApiRule rule, const Type *el)
{
    bool i32_64 = el == ty_int32 || el == ty_int64 || el == ty_uint32 || el == ty_uint64;
    switch (rule) {
    case TR_ATOMIC_ARITH:
        return i32_64 || el == ty_float32 || el == ty_float64;
    case TR_ATOMIC_UNSIGNED:
        return el == ty_uint32 || el == ty_uint64;
    default:   /* and_ or_ xor exch cas */
        return i32_64;
    }
}

/* cuda.atomic.OP(ary, idx, val), cas(ary, idx, old, val) and
 * compare_and_swap(ary, old, val) (element 0 of a 1-D array). */
static Node *lower_atomic(Ctx *c, Node *e, const ApiEntry *a)
{
    bool cas = a->rule == TR_ATOMIC_CAS, cas0 = a->rule == TR_ATOMIC_CAS0;
    int nvals = cas || cas0 ? 2 : 1, first_val = cas0 ? 1 : 2;
    Node *ary = lx(c, e->args.items[0]);
    Node *vals[2];
    for (int i = 0; i < nvals; i++)
        vals[i] = lx(c, e->args.items[first_val + i]);
    if (BAD(ary))
        return poison(e->loc, ary, NULL);
    for (int i = 0; i < nvals; i++)
        if (BAD(vals[i]))
            return poison(e->loc, vals[i], NULL);
    if (ary->type->kind != TY_ARRAY)
        return fail(c, ary->loc, "the first argument of %s must be an array, not %s", a->path,
                    ty_name(ary->type));
    Type *el = ary->type->elem;
    if (!atomic_accepts(a->rule, el))
        return fail(c, ary->loc, "atomic %s on '%s' arrays is not supported", api_short(a),
                    ty_name(el));
    if (ary->type->space == SPACE_CONST)
        return fail(c, ary->loc, "%s on a constant array: constant memory is read-only",
                    a->path);
    if (cas0 && ary->type->ndim != 1)
        return fail(c, ary->loc, "cuda.atomic.compare_and_swap() needs a 1-D array; use "
                    "cuda.atomic.cas(ary, idx, old, val)");
    Node *n = node_new(E_API, e->loc);
    n->api = cas0 ? &api_table[API_ATOMIC_CAS] : a;
    n->type = el;
    nl_push(&n->args, ary);
    if (cas0) {
        nl_push(&n->args, tree_int(e->loc, ty_int64, 0));
    } else {
        Node *err = lower_indices(c, e->args.items[1], ary->type->ndim, e->loc, a->path,
                                  &n->args, NULL);
        if (err)
            return err;
    }
    for (int i = 0; i < nvals; i++) {
        if (!ty_is_scalar(vals[i]->type))
            return fail(c, vals[i]->loc, "the value of %s must be a scalar, not %s", a->path,
                        ty_name(vals[i]->type));
        nl_push(&n->args, tree_cast(vals[i], el));
    }
    return n;
}

static Node *lower_math(Ctx *c, Node *e, const ApiEntry *a, Node **v)
{
    if (e->args.len == 1 && v[0]->type == ty_float16 && half_math_name(a->id)) {
        /* float16 (src/half.c): numba-cuda's fp16.py overloads */
        Node *r = node_new(E_API, e->loc);
        r->api = a;
        r->type = ty_float16;
        nl_push(&r->args, v[0]);
        return r;
    }
    const Case *cases = tr_rule_cases[a->rule].cases;
    int n = tr_rule_cases[a->rule].n;
    int nargs = e->args.len;
    Type *args[3];
    for (int i = 0; i < nargs; i++) {
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
        args[i] = v[i]->type;
    }
    int k = ty_resolve_case(cases, n, args, nargs, true);
    if (k < 0)
        return fail(c, e->loc, "%s() does not accept these argument types", a->path);
    Type *ret = ty_scalar[cases[k].ret];
    if (a->rule == TR_MATH_FREXP) {   /* (mantissa, exponent): Tuple(float, int32) */
        Type *el[2] = {ret, ty_int32};
        ret = ty_tuple(el, 2);
    }
    if (a->rule == TR_MATH_MODF) {   /* npk: (fractional, integral): UniTuple(float, 2) */
        Type *el[2] = {ret, ret};
        ret = ty_tuple(el, 2);
    }
    if (a->rule == TR_MATH_SCALE) {
        /* numba: x * (pi / 180) in the result's precision (mathimpl.py) */
        double f = a->id == API_M_RADIANS ? 3.141592653589793 / 180.0 : 180.0 / 3.141592653589793;
        return tree_binop(e->loc, OP_MUL, tree_cast(v[0], ret), tree_float(e->loc, ret, f), ret);
    }
    if (a->rule == TR_MATH_PRED && ty_is_int(ty_scalar[cases[k].a[0]])) {
        /* an integer is never NaN nor infinite (numba's isnan_int_impl) */
        if (tree_is_pure(v[0]))
            return tree_int(e->loc, ty_bool, a->id == API_M_ISFINITE);
        v[0] = tree_cast(v[0], ty_float64);
    } else {
        for (int i = 0; i < nargs; i++)
            v[i] = tree_cast(v[i], ty_scalar[cases[k].a[i]]);
    }
    Seq q;
    seq_operands(c, v, nargs, &q);
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    r->type = ret;
    for (int i = 0; i < nargs; i++)
        nl_push(&r->args, v[i]);
    return seq_wrap(r, &q);
}

/* Keyword arguments and the argument count of an API call; false (and
 * *err) when they do not fit. */
static bool check_arity(Ctx *c, Node *e, const ApiEntry *a, Node **err)
{
    int nargs = e->args.len;
    /* numba.cuda.random's functions are imported by their own names */
    const char *name = a->cls == AC_RNG ? api_short(a) : a->path;
    *err = NULL;
    if (e->kwargs.len)
        *err = fail(c, ((Node *)e->kwargs.items[0])->loc, "%s() takes no keyword arguments",
                    name);
    else if (nargs < a->nargs_min || nargs > a->nargs_max) {
        if (a->nargs_min == a->nargs_max)
            *err = fail(c, e->loc, "%s() takes %d argument%s (%d given)", name,
                        a->nargs_min, a->nargs_min == 1 ? "" : "s", nargs);
        else
            *err = fail(c, e->loc, "%s() takes %d to %d arguments (%d given)", name,
                        a->nargs_min, a->nargs_max, nargs);
    }
    return *err == NULL;
}

/* The data of cuda.const.array_like(X): X a module-level np.array or a
 * constant (nested) tuple.  Its name (for the Var) in *name. */
static bool const_array_data(Ctx *c, Node *e, Node **flat, int64_t shape[3],
                             const char **name)
{
    Node *x = e->args.items[0];
    const Global *g = x->kind == E_NAME && !lookup_var(c, x->name) ? sema_global(x->name) : NULL;
    *name = g ? g->name : arena_printf("krt_const_%d_%d", x->loc.first_line,
                                       x->loc.first_column);
    if (g && g->kind == GLOBAL_ARRAY) {
        *flat = g->value;
        memcpy(shape, g->shape, sizeof g->shape);
        return true;
    }
    Node *k = sema_fold(x, false, ctx_is_local, c);
    if (!k || k->kind != E_TUPLE) {
        fail(c, x->loc, "cuda.const.array_like() takes a module-level array or tuple "
             "constant (C = np.array(...) or C = (1.0, 2.0))");
        return false;
    }
    return sema_const_array(k, NULL, flat, shape);   /* its errors: once per place */
}

static Node *lower_const_array_like(Ctx *c, Node *e)
{
    Node *flat;
    int64_t shape[3];
    const char *name;
    if (!const_array_data(c, e, &flat, shape, &name))
        return bad_node(e->loc, ty_error);
    return tree_var(e->loc, const_array_var(c, name, flat, shape, e->loc));
}

/* cuda.popc/brev/clz/ffs/fma/cbrt/selp, cuda.lanemask_lt(): E_API. */
static Node *lower_intrinsic(Ctx *c, Node *e, const ApiEntry *a, Node **v)
{
    int nargs = e->args.len;
    const Case *cases = NULL;
    int ncases = 0;
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    switch (a->rule) {
    case TR_LANEMASK:
        r->type = ty_uint32;
        return r;
    case TR_SELP: {
        /* numba: both values of one type, no conversion (Cuda_selp) */
        Type *t = v[1]->type;
        if (v[1]->type != v[2]->type || t->kind == TY_BOOL || t->kind == TY_INT8 ||
            t->kind == TY_UINT8 || t->kind == TY_FLOAT16)
            return fail(c, e->loc, "cuda.selp() needs two values of one type among int16, "
                        "int32, int64, uint16, uint32, uint64, float32 and float64 (%s and "
                        "%s given)", ty_name(v[1]->type), ty_name(v[2]->type));
        r->type = t;
        nl_push(&r->args, tree_cast(v[0], ty_bool));
        nl_push(&r->args, v[1]);
        nl_push(&r->args, v[2]);
        return r;
    }
    default:
        cases = tr_rule_cases[a->rule].cases, ncases = tr_rule_cases[a->rule].n;
        break;
    }
    if (!cases)
        return fail(c, e->loc, "'%s' is not supported yet", a->path);
    Type *types[3];
    for (int i = 0; i < nargs; i++)
        types[i] = v[i]->type;
    int k = ty_resolve_case(cases, ncases, types, nargs, true);
    if (k < 0)
        return fail(c, e->loc, "%s() does not accept these argument types", a->path);
    if (a->rule == TR_FFS && ty_size(ty_scalar[cases[k].a[0]]) < 4)
        return fail(c, v[0]->loc, "cuda.ffs() of %s is not supported (numba implements it "
                    "for 32- and 64-bit integers)", ty_name(v[0]->type));
    r->type = ty_scalar[cases[k].ret];
    for (int i = 0; i < nargs; i++)
        nl_push(&r->args, tree_cast(v[i], ty_scalar[cases[k].a[i]]));
    return r;
}

/* xoroshiro128p_uniform_float32(states, index) and the other draws
 * (numba/cuda/random.py): index = int64(index), then states[index] is
 * advanced; uniform_float32/normal_float32 -> float32, uniform_float64/
 * normal_float64 -> float64, next -> uint64, jump -> none (a statement). */
static Node *lower_rng(Ctx *c, Node *e, const ApiEntry *a, bool stmt)
{
    Node *states = lx(c, e->args.items[0]), *index = lx(c, e->args.items[1]);
    if (BAD(states) || BAD(index))
        return poison(e->loc, BAD(states) ? states : index, BAD(index) ? index : NULL);
    if (states->type->kind != TY_ARRAY || states->type->elem != ty_rngstate)
        return fail(c, states->loc, "the first argument of %s() must be an array of "
                    "xoroshiro128p states (a xoroshiro128p_type[:] parameter), not %s",
                    api_short(a), ty_name(states->type));
    if (!ty_is_scalar(index->type))
        return fail(c, index->loc, "the index of %s() must be a number, not %s", api_short(a),
                    ty_name(index->type));
    Node *n = node_new(E_API, e->loc);
    n->api = a;
    switch (a->rule) {
    case TR_RNG_FLOAT32: n->type = ty_float32; break;
    case TR_RNG_FLOAT64: n->type = ty_float64; break;
    case TR_RNG_UINT64: n->type = ty_uint64; break;
    default:   /* jump */
        if (!stmt)
            return fail(c, e->loc, "%s() returns no value", api_short(a));
        n->type = ty_void;
        break;
    }
    nl_push(&n->args, states);
    nl_push(&n->args, tree_cast(index, ty_int64));
    return n;
}

/* issue 9: cuda.ldca(ary, i) .. ldcv, cuda.stcg(ary, i, v) .. stwt: on
 * arrays of integers or floats, i an integer (1-D) or a tuple of ndim. */
static Node *lower_cache_hint(Ctx *c, Node *e, const ApiEntry *a, bool stmt)
{
    bool st = a->rule == TR_CACHE_ST;
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc, "%s() takes no keyword arguments",
                    a->path);
    if (st && !stmt)
        return fail(c, e->loc, "%s() returns no value", a->path);
    Node *ary = lx(c, e->args.items[0]);
    Node *val = st ? lx(c, e->args.items[2]) : NULL;
    if (BAD(ary) || (val && BAD(val)))
        return poison(e->loc, ary, val);
    if (ary->type->kind != TY_ARRAY)
        return fail(c, ary->loc, "%s operates on arrays, not %s", a->path, ty_name(ary->type));
    Type *el = ary->type->elem;
    if (!ty_is_int(el) && !ty_is_float(el))
        return fail(c, ary->loc, "%s requires an array of integers or floats, not %s", a->path,
                    ty_name(el));
    if (st && ary->type->space == SPACE_CONST)
        return fail(c, ary->loc, "a constant array is read-only");
    Node *n = node_new(E_API, e->loc);
    n->api = a;
    n->type = st ? ty_void : el;
    nl_push(&n->args, ary);
    Node *err = lower_indices(c, e->args.items[1], ary->type->ndim, e->loc, a->path, &n->args,
                              NULL);
    if (err)
        return err;
    if (st) {
        if (!ty_is_scalar(val->type))
            return fail(c, val->loc, "the value of %s must be a scalar, not %s", a->path,
                        ty_name(val->type));
        nl_push(&n->args, tree_cast(val, el));
    }
    return n;
}

/* A call of an API row, typed by the row's rule (api.def). */
/* cuda.float32x4(...) (vecrec; numba-cuda vector_types.py): the candidates
 * are every sequence of scalars (converted to the base type, unsafely if
 * need be) and vectors of the same base (exactly) with n elements in all; so
 * the arguments' own kinds pick the one candidate.  Lowered to an E_API of
 * the vector type whose args are its n elements: a vector argument gives
 * its fields (E_TUPLEGETs of a hidden variable unless it is a variable; a
 * constructor its own elements), evaluated left to right (E_LETs, as
 * seq_operands). */
static Node *lower_vector(Ctx *c, Node *e, const ApiEntry *a, Node **v)
{
    Type *vt = ty_vector_named(a->path + 5);
    int nargs = e->args.len, total = 0, last = -1;
    for (int i = 0; i < nargs; i++) {
        Type *t = v[i]->type;
        if (t->kind == TY_VECTOR && t->elem == vt->elem)
            total += t->nelems;
        else if (ty_is_scalar(t))
            total++;
        else if (t->kind == TY_VECTOR)
            return fail(c, v[i]->loc, "%s() does not accept %s: its vector arguments must be "
                        "%sx1..%sx%d", a->path, ty_name(t), ty_name(vt->elem),
                        ty_name(vt->elem), vt->nelems);
        else
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(t));
        if (!tree_is_pure(v[i]))
            last = i;
    }
    if (total != vt->nelems)
        return fail(c, e->loc, "%s() takes %d element%s (scalars or %s vectors), not %d",
                    a->path, vt->nelems, vt->nelems == 1 ? "" : "s", ty_name(vt->elem), total);
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    r->type = vt;
    Var *lets[4];
    Node *vals[4];
    int nlets = 0;
    for (int i = 0; i < nargs; i++) {
        Node *x = v[i];
        if (x->type->kind == TY_VECTOR && x->kind == E_API && x->api->rule == TR_VECTOR) {
            for (int k = 0; k < x->args.len; k++)   /* float4(float2(a, b), c, d) */
                nl_push(&r->args, x->args.items[k]);
            continue;
        }
        if (x->type->kind == TY_VECTOR) {
            if (x->kind != E_VAR && x->type->nelems > 1) {
                Var *t = hidden_var(c, "vec", x->type, x->loc);
                lets[nlets] = t;
                vals[nlets++] = x;
                x = tree_var(x->loc, t);
            }
            for (int k = 0; k < x->type->nelems; k++) {
                Node *g = node_new(E_TUPLEGET, x->loc);
                g->lhs = k ? node_clone(x) : x;
                g->ival = (uint64_t)k;
                g->type = vt->elem;
                nl_push(&r->args, g);
            }
            continue;
        }
        if (i < last && !tree_is_stable(x) && (!tree_is_pure(x) || tree_reads_memory(x))) {
            Var *t = hidden_var(c, "seq", x->type, x->loc);
            lets[nlets] = t;
            vals[nlets++] = x;
            x = tree_var(x->loc, t);
        }
        nl_push(&r->args, tree_cast(x, vt->elem));
    }
    for (int i = nlets - 1; i >= 0; i--)
        r = tree_let(r->loc, lets[i], vals[i], r);
    return r;
}

/* ---- npk: NumPy ufuncs (npufunc.c: the loops and element operations) ---- */

static const char *np_type_list(Type *const *t, int n)
{
    StrBuf b = {0};
    for (int i = 0; i < n; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", ty_name(t[i]));
    return sb_take(&b);
}

/* Each operand the element operation may read twice is made safe to: one
 * with an effect (and, when there is one, every operand not stable) is
 * evaluated once, in order, into a hidden variable bound by an E_LET
 * around the result; so is every one not stable where the operation reads
 * its operands more than once (np.maximum(a[i], b[i])). */
static Node *np_element(Ctx *c, const NpUfunc *u, Loc loc, Node **v, Type *const *li,
                        Type *lo)
{
    int nin = npu_nin(u);
    bool any_impure = npu_rereads(u, li);
    for (int i = 0; i < nin; i++)
        any_impure |= !tree_is_pure(v[i]);
    Var *lets[2] = {NULL, NULL};
    Node *vals[2] = {NULL, NULL}, *x[2];
    for (int i = 0; i < nin; i++) {
        x[i] = v[i];
        if (!tree_is_pure(v[i]) || (any_impure && !tree_is_stable(v[i]))) {
            lets[i] = hidden_var(c, "np", v[i]->type, v[i]->loc);
            vals[i] = v[i];
            x[i] = tree_var(v[i]->loc, lets[i]);
        }
    }
    Node *r = npu_element(u, loc, x, li, lo);
    for (int i = nin - 1; i >= 0; i--)
        if (lets[i])
            r = tree_let(loc, lets[i], vals[i], r);
    return r;
}

/* np.sin(x), np.maximum(x, y) on scalars: the value of the loop numba
 * chooses for their types. */
static Node *lower_np_ufunc(Ctx *c, Node *e, const ApiEntry *a)
{
    const NpUfunc *u = npu_find(a->path);
    int nin = npu_nin(u);
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc,
                    "keyword arguments of %s() are not supported", a->path);
    if (e->args.len > nin)
        return fail(c, e->loc, "%s() with an output array writes the array and returns it; "
                    "call it as a statement: %s(..., out)", a->path, a->path);
    Node *v[2], *bad;
    if (!lower_args(c, e, v, &bad))
        return poison(e->loc, bad, NULL);
    Type *in[2], *li[2], *lo;
    for (int i = 0; i < nin; i++) {
        if (v[i]->type->kind == TY_ARRAY)
            return fail(c, v[i]->loc, "%s() of an array makes a new array, which kernels "
                        "cannot allocate; pass the output array: %s(..., out)", a->path,
                        a->path);
        if (!ty_is_scalar(v[i]->type))
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
        in[i] = v[i]->type;
    }
    if (!npu_resolve(u, in, NULL, 0, li, &lo))
        return fail(c, e->loc, "%s() does not accept (%s)", a->path, np_type_list(in, nin));
    return np_element(c, u, e->loc, v, li, lo);
}

static Node *np_shape(Node *arr, int d)
{
    Node *n = node_new(E_SHAPE, arr->loc);
    n->lhs = node_clone(arr);
    n->ival = (uint64_t)d;
    n->type = ty_int64;
    return n;
}

/* np.sin(a, out), np.add-like np.maximum(a, 2.0, out): numba's
 * numpy_ufunc_kernel.  A loop nest over out's shape (C order); an input
 * array is aligned with out's trailing dimensions and read at the loop's
 * index along each dimension of its own longer than 1, at 0 along the
 * others (numba does not check the shapes further: debug=True's bounds
 * checks do); a scalar input is evaluated once, before the loop; each
 * element is converted to out's type as it is stored. */
static void lower_np_ufunc_out(Ctx *c, Node *e, const ApiEntry *a, NodeList *out)
{
    const NpUfunc *u = npu_find(a->path);
    int nin = npu_nin(u);
    Node *err;
    if (!check_arity(c, e, a, &err))
        return;
    if (e->kwargs.len) {
        fail(c, ((Node *)e->kwargs.items[0])->loc, "keyword arguments of %s() are not "
             "supported", a->path);
        return;
    }
    Node *v[3], *bad;
    if (!lower_args(c, e, v, &bad))
        return;
    Node *o = v[nin];
    if (o->type->kind != TY_ARRAY) {
        fail(c, o->loc, "the output of %s() must be an array, not %s", a->path,
             ty_name(o->type));
        return;
    }
    if (o->type->space == SPACE_CONST) {
        fail(c, o->loc, "the output of %s() cannot be a constant array", a->path);
        return;
    }
    int nd = o->type->ndim;
    Type *in[2], *li[2], *lo, *oe = o->type->elem;
    for (int i = 0; i <= nin; i++) {
        Type *t = v[i]->type;
        if (t->kind == TY_ARRAY && (t->elem == ty_rngstate || v[i]->kind != E_VAR)) {
            fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(t));
            return;
        }
        if (i == nin)
            break;
        if (t->kind == TY_ARRAY && t->ndim > nd) {
            fail(c, v[i]->loc, "%s(): a %d-D input cannot be broadcast onto a %d-D output",
                 a->path, t->ndim, nd);
            return;
        }
        if (t->kind != TY_ARRAY && !ty_is_scalar(t)) {
            fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(t));
            return;
        }
        in[i] = t->kind == TY_ARRAY ? t->elem : t;
    }
    if (!npu_resolve(u, in, &oe, 1, li, &lo)) {
        fail(c, e->loc, "%s() has no loop for inputs (%s) and an output of %s", a->path,
             np_type_list(in, nin), ty_name(oe));
        return;
    }
    if (c->quiet)
        return;
    Loc loc = e->loc;
    for (int i = 0; i < nin; i++) {
        if (v[i]->type->kind == TY_ARRAY || tree_is_stable(v[i]))
            continue;
        Var *t = hidden_var(c, "np", v[i]->type, v[i]->loc);
        nl_push(out, tree_assign(loc, tree_var(loc, t), v[i]));
        v[i] = tree_var(loc, t);
    }
    Var *iv[8];
    NodeList *body = out;
    for (int d = 0; d < nd; d++) {
        Node *f = tree_stmt(S_FORRANGE, loc);
        iv[d] = hidden_var(c, "i", ty_int64, loc);
        f->var = iv[d];
        f->it = hidden_var(c, "it", ty_int64, loc);
        f->stop = hidden_var(c, "stop", ty_int64, loc);
        f->step = hidden_var(c, "step", ty_int64, loc);
        nl_push(&f->args, tree_int(loc, ty_int64, 0));
        nl_push(&f->args, np_shape(o, d));
        nl_push(&f->args, tree_int(loc, ty_int64, 1));
        nl_push(body, f);
        body = &f->body;
    }
    Node *x[2];
    for (int i = 0; i < nin; i++) {
        Type *t = v[i]->type;
        if (t->kind != TY_ARRAY) {
            x[i] = v[i];
            continue;
        }
        Node *ix = node_new(E_INDEX, loc);
        ix->lhs = node_clone(v[i]);
        ix->type = t->elem;
        for (int j = 0; j < t->ndim; j++) {
            Node *id = tree_var(loc, iv[nd - t->ndim + j]);
            Node *gt = node_new(E_COMPARE, loc);
            nl_push(&gt->args, np_shape(v[i], j));
            nl_push(&gt->args, tree_int(loc, ty_int64, 1));
            gt->ops = arena_alloc(sizeof *gt->ops);
            gt->ops[0] = OP_GT;
            gt->type = ty_bool;
            Node *sel = node_new(E_IFEXP, loc);
            sel->cond = gt;
            sel->lhs = id;
            sel->rhs = tree_int(loc, ty_int64, 0);
            sel->type = ty_int64;
            nl_push(&ix->args, sel);
        }
        x[i] = ix;
    }
    Node *target = node_new(E_INDEX, loc);
    target->lhs = node_clone(o);
    target->type = oe;
    for (int d = 0; d < nd; d++)
        nl_push(&target->args, tree_var(loc, iv[d]));
    nl_push(body, tree_assign(loc, target, tree_cast(np_element(c, u, loc, x, li, lo), oe)));
}

static Node *lower_api_call(Ctx *c, Node *e, const ApiEntry *a, bool stmt)
{
    int nargs = e->args.len;
    switch (a->rule) {   /* uses refused whatever the arguments */
    case TR_VOID:
        return fail(c, e->loc, "'void' cannot be called");
    case TR_ARRAY_DECL:
        return fail(c, e->loc, "%s() must be assigned directly to a name: "
                    "x = %s(shape, dtype)", a->path, a->path);
    case TR_RANGE:
        return fail(c, e->loc, "range() is only supported as the iterable of a for loop");
    case TR_ITER:
        return fail(c, e->loc, "%s() is only supported as the iterable of a for loop", a->path);
    case TR_CACHE_LD:
    case TR_CACHE_ST:
        return lower_cache_hint(c, e, a, stmt);
    case TR_PRINT:
        return fail(c, e->loc, "print() returns no value; call it as a statement");
    case TR_HOST:
        return fail(c, e->loc, "%s() runs on the host, not in a kernel: make the states "
                    "there (krt_create_xoroshiro128p_states() in C) and pass them as a "
                    "xoroshiro128p_type[:] parameter", api_short(a));
    case TR_RNG_TYPE:
        return fail(c, e->loc, "xoroshiro128p_type is only allowed in signatures, as the "
                    "element type of an array of states (xoroshiro128p_type[:])");
    default:
        break;
    }
    if (api_has(a, AF_COLLECTIVE)) {
        bool barrier = a->cls == AC_BARRIER;
        return fail(c, e->loc, "%s() cannot be evaluated conditionally or repeatedly here "
                    "(and/or, x if c else y, a comparison chain, a while condition): assign it "
                    "to a variable first; kernc splits the kernel at %s so that the CPU "
                    "backend can run %s in step", a->path,
                    barrier ? "barriers" : "warp-collective operations",
                    barrier ? "the threads of a block" : "the 32 threads of a warp");
    }
    Node *err;
    if (!check_arity(c, e, a, &err))
        return err;
    switch (a->rule) {   /* rules that lower their own arguments */
    case TR_CONST_ARRAY:
        return lower_const_array_like(c, e);
    case TR_NP_UFUNC:   /* npk */
        return lower_np_ufunc(c, e, a);
    case TR_FENCE: case TR_NANOSLEEP: {
        if (!stmt)
            return fail(c, e->loc, "%s() returns no value", a->path);
        Node *n = node_new(E_API, e->loc);
        n->api = a;
        n->type = ty_void;
        if (a->rule == TR_NANOSLEEP) {   /* Cuda_nanosleep: (uint32) -> void */
            Node *ns = lx(c, e->args.items[0]);
            if (BAD(ns))
                return poison(e->loc, ns, NULL);
            if (!ty_is_scalar(ns->type))
                return fail(c, ns->loc, "cuda.nanosleep() does not accept %s", ty_name(ns->type));
            nl_push(&n->args, tree_cast(ns, ty_uint32));
        }
        return n;
    }
    case TR_SYNCTHREADS:
        if (!stmt)
            return fail(c, e->loc, "cuda.syncthreads() returns no value");
        return bad_node(e->loc, ty_void);   /* the caller makes the S_BARRIER */
    case TR_GRID: {
        int64_t k;
        if (!const_int(c, e->args.items[0], &k) || k < 1 || k > 3)
            return fail(c, ((Node *)e->args.items[0])->loc,
                        "the argument of %s() must be the constant 1, 2 or 3", a->path);
        Node *n = node_new(E_API, e->loc);
        n->api = a;
        nl_push(&n->args, tree_int(((Node *)e->args.items[0])->loc, ty_int64, k));
        if (k == 1) {
            n->type = ty_int64;
        } else {
            Type *el[3] = {ty_int64, ty_int64, ty_int64};
            n->type = ty_tuple(el, (int)k);
        }
        return n;
    }
    case TR_ATOMIC_ARITH: case TR_ATOMIC_BITS: case TR_ATOMIC_UNSIGNED: case TR_ATOMIC_CAS:
    case TR_ATOMIC_CAS0:
        return lower_atomic(c, e, a);
    case TR_RNG_FLOAT32: case TR_RNG_FLOAT64: case TR_RNG_UINT64: case TR_RNG_JUMP:
        return lower_rng(c, e, a, stmt);
    case TR_THIS_GRID: {   /* a GridGroup: lowered to nothing */
        Node *n = node_new(E_API, e->loc);
        n->api = a;
        n->type = ty_gridgroup;
        return n;
    }
    default:
        break;
    }

    Node **v = arena_alloc(sizeof *v * (size_t)(nargs ? nargs : 1));
    Node *bad;
    if (!lower_args(c, e, v, &bad))
        return poison(e->loc, bad, NULL);
    if (a->rule == TR_VECTOR)
        return lower_vector(c, e, a, v);
    Node *cx = lower_complex_call(c, e, a, v, nargs);
    if (cx)
        return cx;
    switch (a->rule) {   /* rules of lowered arguments */
    case TR_FP16: case TR_FP16_PRED: {   /* float16 (src/half.c): cuda.fp16 */
        Seq q;
        for (int i = 0; i < nargs; i++)
            if (!ty_is_scalar(v[i]->type))
                return fail(c, v[i]->loc, "%s() does not accept %s", a->path,
                            ty_name(v[i]->type));
        seq_operands(c, v, nargs, &q);
        Node *r = node_new(E_API, e->loc);
        r->api = a;
        r->type = a->rule == TR_FP16 ? ty_float16 : ty_bool;
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], ty_float16));
        return seq_wrap(r, &q);
    }
    case TR_CAST: {   /* float32(x): a conversion */
        if (!ty_is_scalar(v[0]->type))
            return fail(c, v[0]->loc, "cannot convert %s to %s", ty_name(v[0]->type), a->path);
        return tree_cast(v[0], api_type(a));
    }
    case TR_MATH_UNARY: case TR_MATH_ATAN2: case TR_MATH_BINARY: case TR_MATH_POW:
    case TR_MATH_LDEXP: case TR_MATH_PRED: case TR_MATH_FREXP: case TR_MATH_SCALE:
    case TR_MATH_MODF:
        return lower_math(c, e, a, v);
    case TR_LANEMASK: case TR_SELP: case TR_POPC: case TR_BREV: case TR_FFS: case TR_FMA:
    case TR_FLOAT1:
        return lower_intrinsic(c, e, a, v);
    default:
        break;
    }
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type) && a->rule != TR_LEN)
            return fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
    Node *r = node_new(E_API, e->loc);
    r->api = a;
    switch (a->rule) {   /* the Python builtins */
    case TR_ABS: {
        if (v[0]->type == ty_float16) {   /* float16 (src/half.c): __habs */
            r->type = ty_float16;
            nl_push(&r->args, v[0]);
            return r;
        }
        const CaseList *rc = &tr_rule_cases[TR_ABS];
        int k = ty_resolve_case(rc->cases, rc->n, &v[0]->type, 1, true);
        r->type = ty_scalar[rc->cases[k].ret];
        nl_push(&r->args, tree_cast(v[0], r->type));
        return r;
    }
    case TR_MINMAX: {
        Type *t = NULL;
        for (int i = 0; i < nargs; i++) {
            if (v[i]->type->kind == TY_BOOL)
                return fail(c, v[i]->loc, "%s() arguments must be numbers, not boolean",
                            a->path);
            t = t ? ty_unify(t, v[i]->type) : v[i]->type;
        }
        r->type = t;
        /* numba-cuda's fmin/fmax lowering is registered for two floats only;
         * with an integer operand (even a constant, which mk_cast folds) it
         * is the generic lowering, Python's comparisons */
        if (nargs == 2 && !(ty_is_float(v[0]->type) && ty_is_float(v[1]->type)))
            r->ival = 1;
        Seq q;
        seq_operands(c, v, nargs, &q);
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], t));
        return seq_wrap(r, &q);
    }
    case TR_INT:
        return ty_is_int(v[0]->type) ? v[0] : tree_cast(v[0], ty_int64);
    case TR_FLOAT:
        if (v[0]->type->kind == TY_BOOL)
            return fail(c, v[0]->loc, "float() does not accept a boolean");
        return ty_is_float(v[0]->type) ? v[0] : tree_cast(v[0], ty_float64);
    case TR_BOOL:
        return tree_cast(v[0], ty_bool);
    case TR_ROUND: {
        const Case *cs = nargs == 1 ? tr_round1.cases : tr_round2.cases;
        int k = ty_resolve_case(cs, 2, (Type *[]){v[0]->type, nargs > 1 ? v[1]->type : NULL},
                             nargs, true);
        if (k < 0)
            return fail(c, e->loc, "round() does not accept these argument types");
        r->type = ty_scalar[cs[k].ret];
        for (int i = 0; i < nargs; i++)
            nl_push(&r->args, tree_cast(v[i], ty_scalar[cs[k].a[i]]));
        return r;
    }
    case TR_POW:
        return lower_binop(c, e->loc, OP_POW, v[0], v[1]);
    case TR_LEN:
        if (v[0]->type->kind == TY_ARRAY) {
            Node *s = node_new(E_SHAPE, e->loc);
            s->lhs = v[0];
            s->type = ty_int64;
            return s;
        }
        if (v[0]->type->kind == TY_TUPLE)
            return tree_int(e->loc, ty_int64, v[0]->type->nelems);
        return fail(c, v[0]->loc, "len() of %s is not supported", ty_name(v[0]->type));
    default:
        break;
    }
    return fail(c, e->loc, "'%s' is not supported yet", a->path);
}

static Node *lower_device_call(Ctx *c, Node *e, FuncDef *fd, bool stmt)
{
    if (fd->is_kernel)
        return fail(c, e->loc, "kernel '%s' cannot be called from device code", fd->name);
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc,
                    "keyword arguments in device function calls are not supported yet");
    int nargs = e->args.len, nparams = fd->def->params.len;
    if (nargs != nparams)
        return fail(c, e->loc, "%s() takes %d argument%s (%d given)", fd->name, nparams,
                    nparams == 1 ? "" : "s", nargs);
    Node **v = arena_alloc(sizeof *v * (size_t)(nargs ? nargs : 1));
    Type **types = arena_alloc(sizeof *types * (size_t)(nargs ? nargs : 1));
    Node *bad;
    if (!lower_args(c, e, v, &bad))
        return poison(e->loc, bad, NULL);
    for (int i = 0; i < nargs; i++) {
        Type *t = v[i]->type;
        if (t == ty_gridgroup)
            return fail(c, v[i]->loc, "cannot pass a GridGroup to a device function; call "
                        "cuda.cg.this_grid() in the device function instead");
        if (!ty_is_scalar(t) && t->kind != TY_ARRAY && t->kind != TY_TUPLE &&
            t->kind != TY_VECTOR)
            return fail(c, v[i]->loc, "cannot pass %s to a device function", ty_name(t));
        types[i] = t;
    }
    if (fd->nsigs > 0) {
        /* eager signature: arguments are converted to it; ufunc.c: of
         * several (@vectorize), the one the arguments match exactly */
        const Signature *sg = &fd->sigs[0];
        for (int j = 0; j < fd->nsigs; j++) {
            int i = 0;
            while (i < nargs && i < fd->sigs[j].nparams && fd->sigs[j].params[i] == types[i])
                i++;
            if (i == nargs && fd->sigs[j].nparams == nargs) {
                sg = &fd->sigs[j];
                break;
            }
        }
        for (int i = 0; i < nargs; i++) {
            Type *want = sg->params[i];
            if (ty_is_scalar(want) && ty_is_scalar(types[i]))
                types[i] = want;
            else if (want != types[i])
                return fail(c, v[i]->loc, "%s() expects %s here, not %s", fd->name,
                            ty_name(want), ty_name(types[i]));
        }
    }
    Spec *s = spec_get(c, fd, types, nargs, e->loc);
    if (!s)
        return bad_node(e->loc, c->quiet ? NULL : ty_error);
    if (!s->f->ret)
        return bad_node(e->loc, NULL);
    if (s->failed)   /* its errors are reported: no cascade at the call */
        return bad_node(e->loc, c->quiet ? NULL : ty_error);
    if (s->f->ret == ty_void && !stmt)
        return fail(c, e->loc, "device function '%s' returns no value", fd->name);
    /* a call statement, or one to a function with barriers (the emitter
     * splits the caller there), keeps the plain form */
    Seq q = {.n = 0};
    if (s->f->ret != ty_void && !s->f->has_barrier && !s->f->has_warpop)
        seq_operands(c, v, nargs, &q);
    Node *n = node_new(E_CALLFN, e->loc);
    n->callee = s->f;
    n->type = s->f->ret;
    for (int i = 0; i < nargs; i++)
        nl_push(&n->args, tree_cast(v[i], types[i]));
    if (!c->quiet) {
        c->fn->has_barrier |= s->f->has_barrier;
        c->fn->has_warpop |= s->f->has_warpop;
        c->fn->has_grid_sync |= s->f->has_grid_sync;
        c->fn->uses_dynshared |= s->f->uses_dynshared;
    }
    return seq_wrap(n, &q);
}

/* g.sync() on g = cuda.cg.this_grid() (numba: GridGroup.sync): the
 * caller makes the S_BARRIER of a statement; numba's int32 result (always
 * 0) is not available, as kernc splits the kernel there. */
static Node *lower_grid_method(Ctx *c, Node *e, bool stmt)
{
    const ApiEntry *a = &api_table[API_GRID_SYNC];
    if (strcmp(e->lhs->name, "sync") != 0)
        return fail(c, e->lhs->loc, "a GridGroup has no method '%s' (only sync())",
                    e->lhs->name);
    if (e->kwargs.len || e->args.len)
        return fail(c, e->loc, "GridGroup.sync() takes no arguments");
    if (!stmt)
        return fail(c, e->loc, "GridGroup.sync() must be a statement of its own: kernc "
                    "splits the kernel at grid syncs, and their int32 result (always 0) is "
                    "not available");
    Node *n = node_new(E_API, e->loc);
    n->api = a;
    n->type = ty_void;
    return n;
}

/* ---- Array methods (issue 9): a.T, a.transpose(), a.reshape(),
 * a.view(dtype), as numba-cuda 0.30 types them (arraydecl.py) ---- */
static Node *array_op(Loc loc, int op, Node *base, Type *t)
{
    Node *n = node_new(E_ARRAYOP, loc);
    n->ival = (uint64_t)op;
    n->lhs = base;
    n->type = t;
    return n;
}

/* a.T and a.transpose(): the axes reversed (C <-> F); 1-D: a itself */
static Node *array_transpose(Loc loc, Node *base)
{
    Type *t = base->type;
    if (t->ndim <= 1)
        return base;
    Type *r = t->contiguous ? ty_array_f(t->elem, t->ndim, t->space)
              : t->fortran ? ty_array(t->elem, t->ndim, true, t->space)
              : t;
    Node *n = array_op(loc, AOP_TRANSPOSE, base, r);
    for (int i = 0; i < t->ndim; i++)
        nl_push(&n->args, tree_int(loc, ty_int64, t->ndim - 1 - i));
    return n;
}

static Node *lower_array_method(Ctx *c, Node *e, Node *base)
{
    const char *m = e->lhs->name;
    Type *t = base->type;
    if (e->kwargs.len)
        return fail(c, ((Node *)e->kwargs.items[0])->loc, "array.%s() takes no keyword "
                    "arguments here", m);
    if (t->elem == ty_rngstate)
        return fail(c, e->loc, "xoroshiro128p states have no method '%s'", m);
    int nargs = e->args.len;
    Node **items = e->args.items;
    if (nargs == 1 && ((Node *)items[0])->kind == E_TUPLE &&
        (strcmp(m, "transpose") == 0 || strcmp(m, "reshape") == 0)) {
        nargs = ((Node *)items[0])->args.len;   /* a.reshape((2, 3)) */
        items = ((Node *)items[0])->args.items;
    }
    if (strcmp(m, "transpose") == 0) {
        if (nargs == 0)
            return array_transpose(e->loc, base);
        /* numba-cuda 0.30 types transpose(axes) but cannot lower it
         * (arrayobj.py permute_arrays builds a Python set) */
        return fail(c, e->loc, "transpose() with axes cannot be compiled for the CUDA "
                    "target (numba-cuda lowers only a.T and a.transpose())");
    }
    if (strcmp(m, "reshape") == 0) {
        if (!t->contiguous)
            return fail(c, e->loc, "reshape() supports contiguous (C) arrays only, not %s",
                        ty_name(t));
        if (nargs < 1 || nargs > 3)
            return fail(c, e->loc, "reshape() to %d dimensions is not supported (1 to 3)",
                        nargs);
        Node *n = array_op(e->loc, AOP_RESHAPE, base, ty_array(t->elem, nargs, true, t->space));
        for (int i = 0; i < nargs; i++) {
            Node *v = lx(c, items[i]);
            if (BAD(v))
                return poison(e->loc, v, NULL);
            if (!ty_is_int(v->type))
                return fail(c, items[i]->loc, "the shape of reshape() must be integers, not %s",
                            ty_name(v->type));
            nl_push(&n->args, tree_cast(v, ty_int64));
        }
        return n;
    }
    if (strcmp(m, "view") == 0) {
        if (nargs != 1)
            return fail(c, e->loc, "array.view() takes one dtype");
        const char *dp = expr_path(c, items[0]);
        const ApiEntry *da = dp ? api_lookup(dp) : NULL;
        Type *el = da && da->kind == AK_TYPE ? api_type(da) : NULL;
        if (!el || !ty_is_scalar(el))
            return fail(c, items[0]->loc, "the argument of array.view() must be a scalar type "
                        "such as np.int32");
        if (el == t->elem)
            return base;
        if (t->fortran && ty_size(el) != ty_size(t->elem))
            return fail(c, e->loc, "view() with another itemsize of an F-layout array is not "
                        "supported yet");
        Type *r = t->fortran ? ty_array_f(el, t->ndim, t->space)
                             : ty_array(el, t->ndim, t->contiguous, t->space);
        Node *n = array_op(e->loc, AOP_DTYPE, base, r);
        nl_push(&n->args, tree_int(e->loc, ty_int64, ty_size(t->elem)));
        nl_push(&n->args, tree_int(e->loc, ty_int64, ty_size(el)));
        return n;
    }
    if (strcmp(m, "copy") == 0 || strcmp(m, "flatten") == 0 || strcmp(m, "ravel") == 0 ||
        strcmp(m, "astype") == 0)
        return fail(c, e->loc, "array.%s() allocates a new array, which numba-cuda cannot do "
                    "on the device (NRT)", m);
    return fail(c, e->lhs->loc, "method '%s' of %s is not supported", m, ty_name(t));
}

/* npk: x.bit_count() of an integer: numba-cuda's overload (intrinsics.py)
 * is cuda.popc(x), of x's own type. */
static Node *lower_bit_count(Ctx *c, Node *e, Node *x)
{
    if (e->args.len || e->kwargs.len)
        return fail(c, e->loc, "bit_count() takes no arguments");
    Node *r = node_new(E_API, e->loc);
    r->api = &api_table[API_POPC];
    r->type = x->type;
    nl_push(&r->args, x);
    return r;
}

static Node *lx_call(Ctx *c, Node *e, bool stmt)
{
    const char *p = expr_path(c, e->lhs);
    if (p) {
        const ApiEntry *a = api_lookup(p);
        if (!a)
            return unknown_path(c, e->lhs->loc, p);
        if (a->kind == AK_CALL || a->kind == AK_TYPE)
            return lower_api_call(c, e, a, stmt);
        return fail(c, e->lhs->loc, "'%s' is not callable", p);
    }
    if (e->lhs->kind == E_NAME) {
        const char *name = e->lhs->name;
        if (lookup_var(c, name))
            return fail(c, e->lhs->loc, "'%s' is not callable", name);
        const Global *g = sema_global(name);
        if (g && g->kind == GLOBAL_FUNC)
            return lower_device_call(c, e, g->fn, stmt);
        if (g && g->kind == GLOBAL_CONST)
            return fail(c, e->lhs->loc, "'%s' is not callable", name);
        if (strcmp(name, "print") == 0)
            return fail(c, e->loc, "print() is not supported yet");
        return fail(c, e->lhs->loc, "name '%s' is not defined%s", name, name_hint(c, name));
    }
    if (e->lhs->kind == E_ATTR) {
        Node *base = lx(c, e->lhs->lhs);
        if (BAD(base))
            return poison(e->loc, base, NULL);
        if (base->type == ty_gridgroup)
            return lower_grid_method(c, e, stmt);
        if (ty_is_scalar(base->type) && strcmp(e->lhs->name, "conjugate") == 0)
            return lower_conjugate(c, e, base);
        if (base->type->kind == TY_ARRAY)
            return lower_array_method(c, e, base);
        if (ty_is_int(base->type) && strcmp(e->lhs->name, "bit_count") == 0)
            return lower_bit_count(c, e, base);   /* npk */
        return fail(c, e->lhs->loc, "method '%s' of %s is not supported", e->lhs->name,
                    ty_name(base->type));
    }
    return fail(c, e->loc, "this call is not supported");
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

/* Only literals at the leaves: CPython's compiler folds such an
 * expression before numba sees it (2 ** -1 is the float 0.5 there). */
static bool literal_only(const Node *e)
{
    switch (e->kind) {
    case E_INT: case E_FLOAT: case E_BOOL:
        return !ast_is_imag(e);   /* complex constants are typed as written */
    case E_UNARY:
        return literal_only(e->lhs);
    case E_BINOP:
        return literal_only(e->lhs) && literal_only(e->rhs);
    default:
        return false;
    }
}

/* (a, b): a tuple value of scalars or tuples (a lowered E_TUPLE). */
static Node *lower_tuple(Ctx *c, Node *e)
{
    int n = e->args.len;
    Node *t = node_new(E_TUPLE, e->loc);
    Type **el = arena_alloc(sizeof *el * (size_t)(n ? n : 1));
    Node *bad = NULL;
    for (int i = 0; i < n; i++) {
        Node *v = lx(c, e->args.items[i]);
        if (BAD(v)) {
            bad = !bad || v->type == ty_error ? v : bad;
            continue;
        }
        if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR)
            return fail(c, v->loc, "tuples of %s are not supported", ty_name(v->type));
        nl_push(&t->args, v);
        el[i] = v->type;
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    t->type = ty_tuple(el, n);
    return t;
}

static Node *lx(Ctx *c, Node *e)
{
    if ((e->kind == E_BINOP || e->kind == E_UNARY) && literal_only(e)) {
        bool runtime;
        Node *k = sema_fold_literal(e, !c->quiet, &runtime);
        if (k)
            return k;
        if (!runtime)
            return bad_node(e->loc, ty_error);
    }
    switch (e->kind) {
    case E_INT:
        return tree_int(e->loc, e->ival > (uint64_t)INT64_MAX ? ty_uint64 : ty_int64,
                      (int64_t)e->ival);
    case E_FLOAT:
        if (ast_is_imag(e)) {   /* 1j: a complex128 constant */
            Node *k = tree_float(e->loc, ty_scalar[TY_COMPLEX128], 0);
            k->fimag = e->fval;
            return k;
        }
        return tree_float(e->loc, ty_float64, e->fval);
    case E_BOOL:
        return tree_int(e->loc, ty_bool, e->ival != 0);
    case E_NONE:
        return fail(c, e->loc, "None is not supported here");
    case E_STR:
        return fail(c, e->loc, "strings are not supported in kernels (only as print() "
                    "arguments and assert messages)");
    case E_NAME:
        return lower_name(c, e);
    case E_VAR:   /* the value of a collective hoisted by hoist_collectives(), */
    case E_CONST: /* or the poison left where that failed */
        return e;
    case E_ATTR:
        return lower_attr(c, e);
    case E_CALL:
        return lx_call(c, e, false);
    case E_SUBSCRIPT:
        return lower_index(c, e);
    case E_BINOP: {
        Node *a = lx(c, e->lhs), *b = lx(c, e->rhs);
        return lower_binop(c, e->loc, e->op, a, b);
    }
    case E_UNARY:
        return lower_unary(c, e);
    case E_BOOLOP:
        return lower_boolop(c, e);
    case E_COMPARE:
        return lower_compare(c, e);
    case E_IFEXP:
        return lower_ifexp(c, e);
    case E_TUPLE:
        return lower_tuple(c, e);
    case E_LIST:
        return fail(c, e->loc, "lists are not supported in kernels");
    case E_DICT:
        return fail(c, e->loc, "dicts are not supported in kernels");
    case E_LAMBDA:
        return fail(c, e->loc, "lambda is not supported in kernels (closures)");
    case E_SLICE:
        return fail(c, e->loc, "array slicing is not supported yet");
    default:
        return fail(c, e->loc, "%s is not supported here", node_kind_desc[e->kind]);
    }
}

/* ------------------------------------------------------------------ */
/* Statements                                                          */
/* ------------------------------------------------------------------ */

static void assign_value(Ctx *c, Node *target, Node *v, NodeList *out);

/* The Var that `target = <array>` in stmt declares as an array of type t,
 * or NULL after an error (a parameter, a second declaration, a scalar use
 * elsewhere); *first when stmt is its declaration and the caller is to set
 * its kind and shape (the type and location are set here). */
static Var *array_decl_var(Ctx *c, Node *stmt, Node *target, Type *t, bool *first)
{
    Var *v = lookup_var(c, target->name);
    int vi = var_index(c, target->name);
    *first = false;
    if (v->kind == VAR_PARAM) {
        fail(c, target->loc, "'%s' is a parameter; it cannot be redeclared as an array",
             v->name);
        return NULL;
    }
    if (c->decls.items[vi] && c->decls.items[vi] != stmt) {
        fail(c, target->loc, "'%s' is already declared as an array", v->name);
        return NULL;
    }
    if (c->decls.items[vi])
        return v;
    if (v->type && v->type != t) {
        fail(c, target->loc, "'%s' is assigned a %s elsewhere; it cannot also be an array",
             v->name, ty_name(v->type));
        return NULL;
    }
    c->decls.items[vi] = stmt;
    v->type = t;
    v->loc = target->loc;
    c->changed = true;
    *first = true;
    return v;
}
/* name = cuda.shared.array(shape, dtype) / cuda.local.array(shape, dtype) */
static void lower_arraydecl(Ctx *c, Node *stmt, Node *target, Node *call,
                            const ApiEntry *a, NodeList *out)
{
    bool shared = a->id == API_SHARED_ARRAY;
    const char *what = shared ? "shared" : "local";
    if (stmt->args.len != 1 || target->kind != E_NAME) {
        fail(c, call->loc, "%s() must be assigned directly to a single name", a->path);
        return;
    }
    Node *shape = call->args.len > 0 ? call->args.items[0] : NULL;
    Node *dtype = call->args.len > 1 ? call->args.items[1] : NULL;
    if (call->args.len > 2) {
        fail(c, ((Node *)call->args.items[2])->loc, "%s() takes 2 arguments (%d given)",
             a->path, call->args.len);
        return;
    }
    for (int i = 0; i < call->kwargs.len; i++) {
        Node *kw = call->kwargs.items[i];
        if (strcmp(kw->name, "shape") == 0 && !shape)
            shape = kw->lhs;
        else if (strcmp(kw->name, "dtype") == 0 && !dtype)
            dtype = kw->lhs;
        else {
            fail(c, kw->loc, "unexpected keyword argument '%s' in %s()", kw->name, a->path);
            return;
        }
    }
    if (!shape || !dtype) {
        fail(c, call->loc, "%s() needs a shape and a dtype", a->path);
        return;
    }
    int64_t dims[3];
    if (shape->kind != E_TUPLE) {   /* a module-level tuple: SHAPE = (16, 16) */
        Node *k = sema_fold(shape, false, ctx_is_local, c);
        if (k && k->kind == E_TUPLE)
            shape = k;
    }
    int ndim = shape->kind == E_TUPLE ? shape->args.len : 1;
    Node **items = shape->kind == E_TUPLE ? shape->args.items : &shape;
    if (ndim < 1 || ndim > 3) {
        fail(c, shape->loc, "%s arrays of %d dimensions are not supported (1 to 3)", what, ndim);
        return;
    }
    for (int i = 0; i < ndim; i++) {
        if (!const_int(c, items[i], &dims[i])) {
            fail(c, items[i]->loc, "%s array shape must be a compile-time constant", what);
            return;
        }
        if (dims[i] < 0 || (dims[i] == 0 && !shared)) {
            fail(c, items[i]->loc, "%s array shape must be positive", what);
            return;
        }
    }
    bool dynamic = false;
    for (int i = 0; i < ndim; i++)
        dynamic |= dims[i] == 0;
    if (dynamic && ndim != 1) {
        fail(c, shape->loc, "a dynamic shared array (shape 0) must be 1-D");
        return;
    }
    const char *dp = expr_path(c, dtype);
    const ApiEntry *da = dp ? api_lookup(dp) : NULL;
    Type *elem = da && da->kind == AK_TYPE ? api_type(da) : NULL;
    if (!elem && dtype->kind == E_NAME &&
        (*import_hint(dtype->name) ||
         (!lookup_var(c, dtype->name) && !sema_global(dtype->name) && !da))) {
        fail(c, dtype->loc, "name '%s' is not defined%s", dtype->name, name_hint(c, dtype->name));
        return;
    }
    if (!elem || !ty_is_scalar(elem)) {
        fail(c, dtype->loc, "the dtype of %s() must be a scalar type such as float32", a->path);
        return;
    }
    Type *t = ty_array(elem, ndim, true, shared ? SPACE_SHARED : SPACE_LOCAL);
    bool first;
    Var *v = array_decl_var(c, stmt, target, t, &first);
    if (!v)
        return;
    if (first) {
        v->kind = !shared ? VAR_LOCALARRAY : dynamic ? VAR_DYNSHARED : VAR_SHARED;
        for (int i = 0; i < ndim; i++)
            v->shape[i] = dims[i];
    }
    if (c->quiet)
        return;
    if (dynamic)
        c->fn->uses_dynshared = true;
    Node *d = tree_stmt(S_ARRAYDECL, stmt->loc);
    d->var = v;
    nl_push(out, d);
}

/* x = cuda.const.array_like(C): x is a VAR_CONSTARRAY holding C's values. */
static void lower_constdecl(Ctx *c, Node *stmt, Node *target, Node *call, NodeList *out)
{
    Node *err;
    const ApiEntry *a = &api_table[API_CONST_ARRAY_LIKE];
    if (!check_arity(c, call, a, &err))
        return;
    Node *flat;
    int64_t shape[3];
    const char *name;
    if (!const_array_data(c, call, &flat, shape, &name))
        return;
    bool first;
    Var *v = array_decl_var(c, stmt, target, flat->type, &first);
    if (!v)
        return;
    if (first) {
        v->kind = VAR_CONSTARRAY;
        memcpy(v->shape, shape, sizeof v->shape);
        v->init = flat;
    }
    if (c->quiet)
        return;
    Node *d = tree_stmt(S_ARRAYDECL, stmt->loc);
    d->var = v;
    nl_push(out, d);
}

/* The value of a collective as its statement's target: a variable of
 * exactly the op's type when the target is such a local, else a hidden one
 * that is then assigned to the real target(s). */
static void collective_target(Ctx *c, Node *st, Node **slot, Type *t, Node **targets,
                              int ntargets, NodeList *out)
{
    if (ntargets == 1 && targets[0]->kind == E_NAME) {
        Var *v = lookup_var(c, targets[0]->name);
        if (v && v->kind == VAR_LOCAL && v->type != ty_error) {
            bind(c, v, t, targets[0]->loc);
            if (v->type == t) {
                if (!c->quiet) {
                    *slot = tree_var(targets[0]->loc, v);
                    nl_push(out, st);
                }
                return;
            }
        }
    }
    Var *tmp = hidden_var(c, "w", t, st->loc);
    if (!c->quiet) {
        *slot = tree_var(st->loc, tmp);
        nl_push(out, st);
    }
    for (int i = 0; i < ntargets; i++)
        assign_value(c, targets[i], tree_var(st->loc, tmp), out);
}

/* [targets =] cuda.syncthreads_count(p) / cuda.shfl_sync(...) / ...: an
 * S_BARRIER or S_WARPOP (ntargets 0: an expression statement).  Types are
 * numba's (cudadecl.py, intrinsic_wrapper.py), checked with numba 0.56. */
static bool lower_collective1(Ctx *c, Node *call, const ApiEntry *a, Node **targets,
                              int ntargets, Node **value, NodeList *out)
{
    Node *err;
    if (!check_arity(c, call, a, &err))
        return false;
    int nargs = call->args.len;
    Node *v[3];
    Node *bad;
    if (!lower_args(c, call, v, &bad))
        return false;
    for (int i = 0; i < nargs; i++)
        if (!ty_is_scalar(v[i]->type)) {
            fail(c, v[i]->loc, "%s() does not accept %s", a->path, ty_name(v[i]->type));
            return false;
        }
    Type *t = ty_void;
    Node *st;
    if (a->cls == AC_BARRIER) {   /* Cuda_syncthreads_count etc.: (int32) -> int32 */
        st = tree_stmt(S_BARRIER, call->loc);
        st->api = a;
        st->lhs = tree_cast(v[0], ty_int32);
        t = ty_int32;
        if (!c->quiet)
            c->fn->has_barrier = true;
    } else {
        st = tree_stmt(S_WARPOP, call->loc);
        st->api = a;
        if (!c->quiet)
            c->fn->has_warpop = true;
        /* the mask: numba's int32 parameter, passed as the uint32 of its bits */
        if (a->rule == TR_SYNCWARP && nargs == 0)
            nl_push(&st->args, tree_int(call->loc, ty_uint32, 0xffffffff));
        else if (a->rule != TR_ACTIVEMASK)
            nl_push(&st->args, tree_cast(v[0], ty_uint32));
        switch (a->rule) {
        case TR_WARP_SHFL: case TR_WARP_MATCH_ANY: case TR_WARP_MATCH_ALL: {
            const CaseList *rc = &tr_rule_cases[a->rule];
            int k = ty_resolve_case(rc->cases, rc->n, &v[1]->type, 1, true);
            if (k < 0) {
                fail(c, v[1]->loc, "%s() does not accept %s", a->path, ty_name(v[1]->type));
                return false;
            }
            Type *vt = ty_scalar[rc->cases[k].ret];
            nl_push(&st->args, tree_cast(v[1], vt));
            if (a->rule == TR_WARP_MATCH_ANY) {
                t = ty_int32;
            } else if (a->rule == TR_WARP_MATCH_ALL) {
                Type *el[2] = {ty_int32, ty_bool};
                t = ty_tuple(el, 2);
            } else {
                nl_push(&st->args, tree_cast(v[2], ty_int32));   /* lane, delta, lane mask */
                t = vt;
            }
            break;
        }
        case TR_WARP_VOTE: case TR_WARP_BALLOT:
            nl_push(&st->args, tree_cast(v[1], ty_bool));
            t = a->rule == TR_WARP_BALLOT ? ty_int32 : ty_bool;
            break;
        case TR_ACTIVEMASK:
            t = ty_uint32;
            break;
        default:   /* syncwarp */
            break;
        }
    }
    if (value && t != ty_void) {   /* its value, in a hidden variable */
        Var *tmp = hidden_var(c, "w", t, call->loc);
        *(a->cls == AC_BARRIER ? &st->rhs : &st->lhs) = tree_var(call->loc, tmp);
        *value = tree_var(call->loc, tmp);
    }
    if (ntargets == 0 && (!value || t != ty_void)) {
        if (!c->quiet)
            nl_push(out, st);
        return true;
    }
    if (t == ty_void) {
        fail(c, call->loc, "%s() returns no value", a->path);
        return false;
    }
    collective_target(c, st, a->cls == AC_BARRIER ? &st->rhs : &st->lhs, t, targets, ntargets,
                      out);
    return true;
}

static void lower_collective(Ctx *c, Node *call, const ApiEntry *a, Node **targets,
                             int ntargets, NodeList *out)
{
    if (!lower_collective1(c, call, a, targets, ntargets, NULL, out))
        for (int i = 0; i < ntargets; i++)   /* poisoned, not unassigned */
            assign_value(c, targets[i], bad_node(call->loc, c->quiet ? NULL : ty_error), out);
}



/* The API row of a call, or NULL. */
static const ApiEntry *call_api(Ctx *c, const Node *e)
{
    if (e->kind != E_CALL)
        return NULL;
    const char *p = expr_path(c, e->lhs);
    return p ? api_lookup(p) : NULL;
}

/* print(a, "text", b): numba's CUDA print (printimpl.py) prints integers
 * as %lld / %llu, floats as %f of a double, string literals as %s,
 * separated by spaces, then a newline. */
static void lower_print(Ctx *c, Node *call, NodeList *out)
{
    Node *err;
    const ApiEntry *a = &api_table[API_B_PRINT];
    if (call->kwargs.len) {
        fail(c, ((Node *)call->kwargs.items[0])->loc, "print() keyword arguments (sep, end, "
             "file, flush) are not supported in kernels");
        return;
    }
    if (!check_arity(c, call, a, &err))
        return;
    Node *p = tree_stmt(S_PRINT, call->loc);
    bool ok = true;
    for (int i = 0; i < call->args.len; i++) {
        Node *x = call->args.items[i];
        if (x->kind == E_STR) {
            Node *s = node_new(E_STR, x->loc);
            s->text = x->text;
            nl_push(&p->args, s);
            continue;
        }
        Node *v = lx(c, x);
        if (BAD(v)) {
            ok = false;
            continue;
        }
        if (v->type->kind == TY_BOOL) {
            fail(c, v->loc, "print() of a boolean is not supported (numba's CUDA print has "
                 "no format for it); print int(x)");
            ok = false;
        } else if (!ty_is_scalar(v->type)) {
            fail(c, v->loc, "print() of %s is not supported; print numbers and string literals",
                 ty_name(v->type));
            ok = false;
        } else if (ty_is_complex(v->type)) {
            fail(c, v->loc, "print() of %s is not supported (numba-cuda has no print for "
                 "complex numbers); print z.real and z.imag", ty_name(v->type));
            ok = false;
        } else {
            nl_push(&p->args, tree_cast(v, ty_is_float(v->type) ? ty_float64
                                         : ty_is_signed(v->type) ? ty_int64 : ty_uint64));
        }
    }
    if (ok && !c->quiet)
        nl_push(out, p);
}

/* target = <lowered value v> */
static void assign_value(Ctx *c, Node *target, Node *v, NodeList *out)
{
    switch (target->kind) {
    case E_NAME: {
        Var *var = lookup_var(c, target->name);
        if (!var) {   /* cannot happen: every target name was collected */
            fail(c, target->loc, "internal: '%s' was not collected", target->name);
            return;
        }
        if (BAD(v)) {
            /* an erroneous value: the variable is poisoned, not unassigned */
            if (v->type == ty_error && !var->type)
                var->type = ty_error;
            return;
        }
        if (is_array_var(var)) {
            fail(c, target->loc, "'%s' is a %s array; it cannot be reassigned", var->name,
                 var->kind == VAR_LOCALARRAY ? "local" :
                 var->kind == VAR_CONSTARRAY ? "constant" : "shared");
            return;
        }
        if (v->type->kind == TY_ARRAY || (var->type && var->type->kind == TY_ARRAY)) {
            /* issue 9: a variable holding a view (a slice, another array) */
            if (v->type->kind != TY_ARRAY || v->type->elem == ty_rngstate) {
                fail(c, target->loc, v->type->kind == TY_ARRAY ? "xoroshiro128p states cannot be "
                     "stored in a variable" : "cannot unify %s and %s for '%s'",
                     ty_name(var->type), ty_name(v->type), var->name);
                return;
            }
            bind(c, var, v->type, target->loc);
            if (!c->quiet && var->type && ty_unify(var->type, v->type) == var->type)
                nl_push(out, tree_assign(target->loc, tree_var(target->loc, var), v));
            return;
        }
        if (v->type == ty_gridgroup) {   /* g = cuda.cg.this_grid(): typed, not stored */
            bind(c, var, v->type, target->loc);
            return;
        }
        if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR) {
            fail(c, v->loc, "a value of type %s cannot be stored in a variable",
                 ty_name(v->type));
            return;
        }
        bind(c, var, v->type, target->loc);
        if (!c->quiet && var->type && ty_unify(var->type, v->type)) {
            if (v->type != var->type && v->type->kind == TY_TUPLE && v->kind != E_TUPLE &&
                v->kind != E_VAR) {
                /* a tuple made by a call, converted element by element */
                Var *tmp = hidden_var(c, "tup", v->type, v->loc);
                nl_push(out, tree_assign(v->loc, tree_var(v->loc, tmp), v));
                v = tree_var(v->loc, tmp);
            }
            nl_push(out, tree_assign(target->loc, tree_var(target->loc, var), tree_cast(v, var->type)));
        }
        return;
    }
    case E_SUBSCRIPT: {
        Node *t = lower_index(c, target);
        if (BAD(t) || BAD(v))
            return;
        if (t->kind == E_VIEW) {   /* issue 9: a[lo:hi] = x fills the view */
            if (t->type->space == SPACE_CONST) {
                fail(c, target->loc, "a constant array is read-only");
                return;
            }
            if (!ty_is_scalar(v->type)) {
                fail(c, v->loc, v->type->kind == TY_ARRAY ?
                     "assigning an array to a slice needs a temporary copy, which numba-cuda "
                     "cannot make on the device (NRT); copy the elements in a loop" :
                     "cannot store %s into an array slice", ty_name(v->type));
                return;
            }
            if (!c->quiet)
                nl_push(out, tree_assign(target->loc, t, tree_cast(v, t->type->elem)));
            return;
        }
        if (t->kind != E_INDEX) {
            fail(c, target->loc, "tuples are immutable");
            return;
        }
        if (t->lhs->type->space == SPACE_CONST) {
            fail(c, target->loc, "a constant array is read-only");
            return;
        }
        if (!ty_is_scalar(v->type)) {
            fail(c, v->loc, "cannot store %s into an array element", ty_name(v->type));
            return;
        }
        if (!c->quiet)
            nl_push(out, tree_assign(target->loc, t, tree_cast(v, t->type)));
        return;
    }
    case E_TUPLE: case E_LIST: {
        int n = target->args.len;
        if (BAD(v))
            goto bind_unknown;
        if (v->type->kind != TY_TUPLE || v->type->nelems != n) {
            fail(c, v->loc, "cannot unpack %s into %d variable%s", ty_name(v->type), n,
                 n == 1 ? "" : "s");
            return;
        }
        Node *src = v;
        /* read the value once: a variable, cuda.grid(n), or a tuple of
         * constants and shapes (a.shape, a constant tuple) are read in place */
        bool direct = v->kind == E_VAR ||
                      (v->kind == E_API && v->api->rule == TR_GRID);
        if (v->kind == E_TUPLE) {
            direct = true;
            for (int i = 0; i < n; i++) {
                NodeKind k = ((Node *)v->args.items[i])->kind;
                direct &= k == E_CONST || k == E_SHAPE;
            }
        }
        if (!direct) {
            Var *tmp = hidden_var(c, "tup", v->type, v->loc);
            if (!c->quiet)
                nl_push(out, tree_assign(v->loc, tree_var(v->loc, tmp), v));
            src = tree_var(v->loc, tmp);
        }
        for (int i = 0; i < n; i++)
            assign_value(c, target->args.items[i], tree_tupleget(i ? node_clone(src) : src, i), out);
        return;
    bind_unknown:
        for (int i = 0; i < n; i++)
            assign_value(c, target->args.items[i], v, out);
        return;
    }
    case E_ATTR: {
        Node *base = expr_path(c, target->lhs) ? NULL : lx(c, target->lhs);
        if (base && !BAD(base) && base->type->kind == TY_VECTOR)   /* vecrec */
            fail(c, target->loc, "the fields of %s are read-only (numba-cuda has no "
                 "lowering for setting them): build a new vector", ty_name(base->type));
        else if (!base || !BAD(base))
            fail(c, target->loc, "assigning to an attribute is not supported");
        return;
    }
    default:
        fail(c, target->loc, "cannot assign to %s", node_kind_desc[target->kind]);
        return;
    }
}

/* target = rhs (rhs not lowered yet) */
static void assign_expr(Ctx *c, Node *target, Node *rhs, NodeList *out)
{
    if ((target->kind == E_TUPLE || target->kind == E_LIST) &&
        (rhs->kind == E_TUPLE || rhs->kind == E_LIST)) {
        int n = target->args.len;
        if (rhs->args.len != n) {
            fail(c, rhs->loc, "cannot unpack %d values into %d variables", rhs->args.len, n);
            return;
        }
        /* Python evaluates the whole right side before assigning. */
        Node **v = arena_alloc(sizeof *v * (size_t)(n ? n : 1));
        bool all_const = true;
        for (int i = 0; i < n; i++) {
            v[i] = lx(c, rhs->args.items[i]);
            all_const &= v[i]->kind == E_CONST;
        }
        for (int i = 0; i < n && !all_const && n > 1; i++) {
            if (BAD(v[i]) || !ty_is_scalar(v[i]->type))
                continue;
            Var *tmp = hidden_var(c, "t", v[i]->type, v[i]->loc);
            if (!c->quiet)
                nl_push(out, tree_assign(v[i]->loc, tree_var(v[i]->loc, tmp), v[i]));
            v[i] = tree_var(v[i]->loc, tmp);
        }
        for (int i = 0; i < n; i++)
            assign_value(c, target->args.items[i], v[i], out);
        return;
    }
    assign_value(c, target, lx(c, rhs), out);
}

static void lower_assign(Ctx *c, Node *s, NodeList *out)
{
    Node *rhs = s->rhs;
    const ApiEntry *a = call_api(c, rhs);
    Node *t0 = s->args.items[0];
    if (a && (a->rule == TR_ARRAY_DECL ||
              (a->rule == TR_CONST_ARRAY && s->args.len == 1 && t0->kind == E_NAME))) {
        if (a->rule == TR_CONST_ARRAY)
            lower_constdecl(c, s, t0, rhs, out);
        else
            lower_arraydecl(c, s, t0, rhs, a, out);
        Var *v = t0->kind == E_NAME ? lookup_var(c, t0->name) : NULL;
        if (v && !v->type && !c->quiet)   /* reported: no "referenced before assignment" */
            v->type = ty_error;
        return;
    }
    if (api_has(a, AF_COLLECTIVE)) {
        lower_collective(c, rhs, a, (Node **)s->args.items, s->args.len, out);
        return;
    }
    if (s->args.len == 1) {
        assign_expr(c, s->args.items[0], rhs, out);
        return;
    }
    /* a = b = v: v once, then each target from left to right */
    Node *v = lx(c, rhs);
    if (!BAD(v) && (ty_is_scalar(v->type) || v->type->kind == TY_TUPLE) && v->kind != E_CONST) {
        Var *tmp = hidden_var(c, "t", v->type, v->loc);
        if (!c->quiet)
            nl_push(out, tree_assign(v->loc, tree_var(v->loc, tmp), v));
        v = tree_var(v->loc, tmp);
    }
    for (int i = 0; i < s->args.len; i++)
        assign_value(c, s->args.items[i], i ? node_clone(v) : v, out);
}

static void lower_augassign(Ctx *c, Node *s, NodeList *out)
{
    Node *t = s->lhs;
    if (t->kind != E_NAME && t->kind != E_SUBSCRIPT) {
        fail(c, t->loc, "augmented assignment to %s is not supported", node_kind_desc[t->kind]);
        return;
    }
    const ApiEntry *a = call_api(c, s->rhs);
    if (api_has(a, AF_COLLECTIVE)) {
        /* x += cuda.shfl_down_sync(m, x, d): the collective first, into a
         * hidden variable (it cannot change x, so the order is Python's) */
        Node *cur = lx(c, t->kind == E_NAME && s->cond ? s->cond : t), *val = NULL;
        if (!lower_collective1(c, s->rhs, a, NULL, 0, &val, out))
            val = bad_node(s->rhs->loc, c->quiet ? NULL : ty_error);
        assign_value(c, t, lower_binop(c, s->loc, s->op, cur, val), out);
        return;
    }
    if (t->kind == E_SUBSCRIPT) {
        /* a[f()] op= v: an index with an effect (a call, an atomic, a random
         * draw) is evaluated once, into a hidden variable, as Python does */
        Node *x = lower_index(c, t);
        bool pure = true;
        for (int i = 0; !BAD(x) && x->kind == E_INDEX && i < x->args.len; i++)
            pure &= tree_is_pure(x->args.items[i]);
        if (!pure) {
            if (x->lhs->type->space == SPACE_CONST) {
                fail(c, t->loc, "a constant array is read-only");
                return;
            }
            for (int i = 0; i < x->args.len; i++) {
                Node *ix = x->args.items[i];
                if (tree_is_pure(ix))
                    continue;
                Var *tmp = hidden_var(c, "ix", ix->type, ix->loc);
                if (!c->quiet)
                    nl_push(out, tree_assign(ix->loc, tree_var(ix->loc, tmp), ix));
                x->args.items[i] = tree_var(ix->loc, tmp);
            }
            Node *v = lower_binop(c, s->loc, s->op, node_clone(x), lx(c, s->rhs));
            if (!BAD(v) && !c->quiet)
                nl_push(out, tree_assign(t->loc, x, tree_cast(v, x->type)));
            return;
        }
    }
    /* x op= v is x = x op v for numbers; a pure index is evaluated twice.
     * For a name, cond is the read (ssa_split's copy: its version may be
     * another variable than the one assigned). */
    Node *bin = node_new(E_BINOP, s->loc);
    bin->op = s->op;
    bin->lhs = t->kind == E_NAME && s->cond ? s->cond : t;
    bin->rhs = s->rhs;
    assign_value(c, t, lx(c, bin), out);
}

static Node *lower_cond(Ctx *c, Node *e)
{
    Node *v = lx(c, e);
    if (!BAD(v) && !ty_is_scalar(v->type))
        return fail(c, e->loc, "a condition must be a scalar, not %s", ty_name(v->type));
    if (!BAD(v) && ty_is_complex(v->type))   /* complex_as_bool */
        return tree_cast(v, ty_bool);
    return v;
}

/* ---- Iteration (issue 9) ----
 * for x in a (an array: its elements, or the rows of an n-D one), for x in
 * t (a homogeneous tuple), enumerate(it[, start]), zip(it, ...),
 * literal_unroll(t) of a homogeneous tuple, nested as in
 * `for i, (u, v) in enumerate(zip(x, y))`, and range() inside them: each
 * iterable is evaluated once before the loop (arrays into hidden view
 * variables, tuples into hidden tuple variables), then an S_FORRANGE runs
 * a hidden int64 index over the shortest length and assigns the targets
 * from it at the top of the body, so that break, continue and the last
 * values are Python's. */
typedef enum IterKind { IT_ARRAY, IT_TUPLE, IT_RANGE, IT_ENUM, IT_ZIP } IterKind;

typedef struct Iter {
    IterKind kind;
    Loc loc;
    Node *src;              /* IT_ARRAY / IT_TUPLE: the value, read-only (E_VAR) */
    Node *start, *step;     /* IT_RANGE: stable int64 values; IT_ENUM: start */
    Type *rtype;            /* IT_RANGE: the range's type */
    Node *len;              /* int64 length */
    struct Iter *kids[8];
    int nkids;
} Iter;

/* a OP b of two int64s (a typed E_COMPARE) */
static Node *iter_cmp(Loc loc, Op op, Node *a, Node *b)
{
    Node *cmp = node_new(E_COMPARE, loc);
    cmp->ops = arena_alloc(sizeof *cmp->ops);
    cmp->ops[0] = op;
    cmp->type = ty_bool;
    nl_push(&cmp->args, a);
    nl_push(&cmp->args, b);
    return cmp;
}

/* A value evaluated once before the loop: a stable node, or a hidden
 * variable assigned in out. */
static Node *iter_once(Ctx *c, Node *v, const char *what, NodeList *out)
{
    if (v->kind == E_CONST || (v->kind == E_VAR && v->var->kind != VAR_LOCAL &&
                               v->var->kind != VAR_PARAM && v->var->kind != VAR_HIDDEN))
        return v;
    Var *t = hidden_var(c, what, v->type, v->loc);
    if (!c->quiet)
        nl_push(out, tree_assign(v->loc, tree_var(v->loc, t), v));
    return tree_var(v->loc, t);
}

static Iter *lower_iterable(Ctx *c, Node *e, NodeList *out)
{
    Iter *r = arena_alloc(sizeof *r);
    r->loc = e->loc;
    const char *p = e->kind == E_CALL ? expr_path(c, e->lhs) : NULL;
    if (p && (strcmp(p, "range") == 0 || strcmp(p, "enumerate") == 0 ||
              strcmp(p, "zip") == 0 || strcmp(p, "literal_unroll") == 0)) {
        int n = e->args.len;
        if (e->kwargs.len) {
            fail(c, ((Node *)e->kwargs.items[0])->loc, "%s() takes no keyword arguments here", p);
            return NULL;
        }
        if (strcmp(p, "literal_unroll") == 0) {
            if (n != 1) {
                fail(c, e->loc, "literal_unroll() takes one argument");
                return NULL;
            }
            Iter *k = lower_iterable(c, e->args.items[0], out);
            if (k && k->kind != IT_TUPLE && k->kind != IT_ARRAY) {
                fail(c, e->loc, "literal_unroll() takes a tuple or an array");
                return NULL;
            }
            return k;
        }
        if (strcmp(p, "range") == 0) {
            if (n < 1 || n > 3) {
                fail(c, e->loc, "range() takes 1 to 3 positional arguments");
                return NULL;
            }
            Node *v[3];
            Type *types[3];
            for (int i = 0; i < n; i++) {
                v[i] = lx(c, e->args.items[i]);
                if (BAD(v[i]))
                    return NULL;
                if (!ty_is_scalar(v[i]->type)) {
                    fail(c, v[i]->loc, "range() arguments must be numbers, not %s",
                         ty_name(v[i]->type));
                    return NULL;
                }
                types[i] = v[i]->type;
            }
            int k = ty_resolve_case(tr_range.cases, tr_range.n, types, n, true);
            r->kind = IT_RANGE;
            r->rtype = ty_scalar[tr_range.cases[k].ret];
            Node *start = n == 1 ? tree_int(e->loc, ty_int64, 0)
                                 : tree_cast(tree_cast(v[0], r->rtype), ty_int64);
            Node *stop = tree_cast(tree_cast(v[n == 1 ? 0 : 1], r->rtype), ty_int64);
            Node *step = n == 3 ? tree_cast(tree_cast(v[2], r->rtype), ty_int64)
                                : tree_int(e->loc, ty_int64, 1);
            if (step->kind == E_CONST && step->ival == 0) {
                fail(c, step->loc, "range() step must not be zero");
                return NULL;
            }
            r->start = iter_once(c, start, "rstart", out);
            Node *stopv = iter_once(c, stop, "rstop", out);
            r->step = iter_once(c, step, "rstep", out);
            /* len = max(0, ceil((stop - start) / step)): krt_range_len */
            Node *len = node_new(E_API, e->loc);
            len->api = &api_table[API_B_RANGE_LEN];
            len->type = ty_int64;
            nl_push(&len->args, node_clone(r->start));
            nl_push(&len->args, stopv);
            nl_push(&len->args, node_clone(r->step));
            r->len = len;
            return r;
        }
        bool en = strcmp(p, "enumerate") == 0;
        if (en ? n < 1 || n > 2 : n < 1 || n > 8) {
            fail(c, e->loc, en ? "enumerate() takes 1 or 2 arguments" :
                 "zip() takes 1 to 8 iterables here");
            return NULL;
        }
        r->kind = en ? IT_ENUM : IT_ZIP;
        for (int i = 0; i < (en ? 1 : n); i++) {
            r->kids[i] = lower_iterable(c, e->args.items[i], out);
            if (!r->kids[i])
                return NULL;
        }
        r->nkids = en ? 1 : n;
        if (en) {
            Node *st = n == 2 ? lx(c, e->args.items[1]) : tree_int(e->loc, ty_int64, 0);
            if (BAD(st))
                return NULL;
            if (!ty_is_int(st->type)) {
                fail(c, st->loc, "the start of enumerate() must be an integer, not %s",
                     ty_name(st->type));
                return NULL;
            }
            r->start = iter_once(c, tree_cast(st, ty_int64), "estart", out);
            r->len = r->kids[0]->len;
            return r;
        }
        r->len = r->kids[0]->len;
        for (int i = 1; i < n; i++) {   /* the shortest */
            Node *a = r->len, *b = r->kids[i]->len;
            Node *m = node_new(E_IFEXP, e->loc);
            m->cond = iter_cmp(e->loc, OP_LT, a, b);
            m->lhs = node_clone(a);
            m->rhs = node_clone(b);
            m->type = ty_int64;
            r->len = m;
        }
        Node *len = iter_once(c, r->len, "zlen", out);
        r->len = len;
        return r;
    }
    if (p && strcmp(p, "range") != 0 && api_lookup(p) && api_lookup(p)->kind == AK_CALL &&
        !strchr(p, '.') && api_lookup(p)->cls == AC_BUILTIN) {
        fail(c, e->loc, "%s() cannot be iterated over", p);
        return NULL;
    }
    Node *v = lx(c, e);
    if (BAD(v))
        return NULL;
    if (v->type->kind == TY_ARRAY) {
        if (v->type->elem == ty_rngstate) {
            fail(c, e->loc, "xoroshiro128p states cannot be iterated over");
            return NULL;
        }
        r->kind = IT_ARRAY;
        r->src = iter_once(c, v, "iter", out);
        Node *len = node_new(E_SHAPE, e->loc);
        len->lhs = node_clone(r->src);
        len->type = ty_int64;
        r->len = len;
        return r;
    }
    if (v->type->kind == TY_TUPLE) {
        Type *el = v->type->nelems ? v->type->elems[0] : NULL;
        for (int i = 0; i < v->type->nelems; i++)
            if (v->type->elems[i] != el) {
                fail(c, e->loc, "cannot iterate over the heterogeneous tuple %s (numba-cuda "
                     "iterates over tuples of one type only; literal_unroll() of such a tuple "
                     "is not supported yet)", ty_name(v->type));
                return NULL;
            }
        if (el && !ty_is_scalar(el)) {
            fail(c, e->loc, "iterating over a tuple of %s is not supported", ty_name(el));
            return NULL;
        }
        r->kind = IT_TUPLE;
        r->src = iter_once(c, v, "titer", out);
        r->len = tree_int(e->loc, ty_int64, v->type->nelems);
        return r;
    }
    fail(c, e->loc, "a value of type %s cannot be iterated over", ty_name(v->type));
    return NULL;
}

/* The value the iterable gives at index k (an E_VAR of int64): a node, or
 * for enumerate/zip the list of the parts (*parts, *nparts). */
static Node *iter_value(Iter *r, Node *k)
{
    switch (r->kind) {
    case IT_ARRAY: {
        Type *at = r->src->type;
        if (at->ndim == 1) {
            Node *n = node_new(E_INDEX, r->loc);
            n->lhs = node_clone(r->src);
            n->type = at->elem;
            nl_push(&n->args, k);
            return n;
        }
        Node *n = node_new(E_VIEW, r->loc);
        n->lhs = node_clone(r->src);
        nl_push(&n->args, k);
        n->type = ty_array(at->elem, at->ndim - 1, at->contiguous, at->space);
        return n;
    }
    case IT_TUPLE: {
        int n = r->src->type->nelems;
        Node *v = tree_tupleget(node_clone(r->src), n - 1);
        for (int i = n - 2; i >= 0; i--) {
            Node *m = node_new(E_IFEXP, r->loc);
            m->cond = iter_cmp(r->loc, OP_EQ, node_clone(k), tree_int(r->loc, ty_int64, i));
            m->lhs = tree_tupleget(node_clone(r->src), i);
            m->rhs = v;
            m->type = v->type;
            v = m;
        }
        return v;
    }
    case IT_RANGE: {
        Node *off = tree_binop(r->loc, OP_MUL, node_clone(k), node_clone(r->step), ty_int64);
        Node *val = tree_binop(r->loc, OP_ADD, node_clone(r->start), off, ty_int64);
        return tree_cast(val, r->rtype);
    }
    default:
        return NULL;
    }
}

/* Assign the targets of a for loop from the iterable's value at k. */
static void iter_assign(Ctx *c, Node *target, Iter *r, Node *k, NodeList *out)
{
    if (r->kind == IT_ENUM || r->kind == IT_ZIP) {
        int n = r->kind == IT_ENUM ? 2 : r->nkids;
        if (target->kind != E_TUPLE && target->kind != E_LIST) {
            fail(c, target->loc, "the target of a loop over %s must unpack its %d items here",
                 r->kind == IT_ENUM ? "enumerate()" : "zip()", n);
            return;
        }
        if (target->args.len != n) {
            fail(c, target->loc, "cannot unpack %d values into %d variables", n,
                 target->args.len);
            return;
        }
        if (r->kind == IT_ENUM) {
            Node *i = tree_binop(r->loc, OP_ADD, node_clone(r->start), node_clone(k), ty_int64);
            assign_value(c, target->args.items[0], i, out);
            iter_assign(c, target->args.items[1], r->kids[0], k, out);
            return;
        }
        for (int i = 0; i < n; i++)
            iter_assign(c, target->args.items[i], r->kids[i], k, out);
        return;
    }
    assign_value(c, target, iter_value(r, node_clone(k)), out);
}

static void lower_for_iter(Ctx *c, Node *s, NodeList *out)
{
    Iter *r = lower_iterable(c, s->rhs, out);
    Node *f = tree_stmt(S_FORRANGE, s->loc);
    Var *k = hidden_var(c, "k", ty_int64, s->loc);
    if (r)
        iter_assign(c, s->lhs, r, tree_var(s->loc, k), &f->body);
    c->loops++;
    lblock(c, &s->body, &f->body);
    c->loops--;
    if (!r || c->quiet)
        return;
    f->var = k;
    f->it = hidden_var(c, "it", ty_int64, s->loc);
    f->stop = hidden_var(c, "stop", ty_int64, s->loc);
    f->step = hidden_var(c, "step", ty_int64, s->loc);
    nl_push(&f->args, tree_int(s->loc, ty_int64, 0));
    nl_push(&f->args, node_clone(r->len));
    nl_push(&f->args, tree_int(s->loc, ty_int64, 1));
    nl_push(out, f);
}

static void lower_for(Ctx *c, Node *s, NodeList *out)
{
    if (s->orelse.len) {
        fail(c, s->loc, "for ... else is not supported yet");
        return;
    }
    Node *it = s->rhs;
    const char *p = it->kind == E_CALL ? expr_path(c, it->lhs) : NULL;
    if (!p || strcmp(p, "range") != 0 || s->lhs->kind != E_NAME) {
        lower_for_iter(c, s, out);
        return;
    }
    if (s->lhs->kind != E_NAME) {
        fail(c, s->lhs->loc, "the target of a for loop must be a single name");
        return;
    }
    if (it->kwargs.len || it->args.len < 1 || it->args.len > 3) {
        fail(c, it->loc, "range() takes 1 to 3 positional arguments");
        return;
    }
    int n = it->args.len;
    Node *v[3];
    Type *types[3];
    bool bad = false;
    for (int i = 0; i < n; i++) {
        v[i] = lx(c, it->args.items[i]);
        if (BAD(v[i])) {
            bad = true;
            continue;
        }
        /* floats are accepted, as numba's Range template converts them
         * (unsafely, truncating) to the chosen case: range(float32) is an
         * int32 range, range(uint8, float64) a uint64 one */
        if (!ty_is_scalar(v[i]->type)) {
            fail(c, v[i]->loc, "range() arguments must be numbers, not %s", ty_name(v[i]->type));
            bad = true;
        }
        types[i] = v[i]->type;
    }
    Var *var = lookup_var(c, s->lhs->name);
    Type *r = NULL;
    if (!bad) {
        int k = ty_resolve_case(tr_range.cases, tr_range.n, types, n, true);
        r = ty_scalar[tr_range.cases[k].ret];
        if (is_array_var(var))
            fail(c, s->lhs->loc, "'%s' is an array; it cannot be a loop variable", var->name);
        else
            bind(c, var, r, s->lhs->loc);
    }
    Node *f = tree_stmt(S_FORRANGE, s->loc);
    c->loops++;
    lblock(c, &s->body, &f->body);
    c->loops--;
    if (bad || c->quiet || !var->type)
        return;
    Node *start = n == 1 ? tree_int(it->loc, r, 0) : tree_cast(v[0], r);
    Node *stop = tree_cast(v[n == 1 ? 0 : 1], r);
    Node *step = n == 3 ? tree_cast(v[2], r) : tree_int(it->loc, r, 1);
    if (step->kind == E_CONST && step->ival == 0) {
        fail(c, step->loc, "range() step must not be zero");
        return;
    }
    f->var = var;
    f->it = hidden_var(c, "it", r, s->loc);
    f->stop = hidden_var(c, "stop", r, s->loc);
    f->step = hidden_var(c, "step", r, s->loc);
    nl_push(&f->args, start);
    nl_push(&f->args, stop);
    nl_push(&f->args, step);
    nl_push(out, f);
}

static void lower_return(Ctx *c, Node *s, NodeList *out)
{
    Node *r = tree_stmt(S_RETURN, s->loc);
    bool none = !s->lhs || s->lhs->kind == E_NONE;
    if (c->fn->is_kernel) {
        if (!none) {
            fail(c, s->lhs->loc, "a kernel cannot return a value");
            return;
        }
        if (!c->quiet)
            nl_push(out, r);
        return;
    }
    if (none) {
        c->ret_none = true;
        if (!c->quiet)
            nl_push(out, r);
        return;
    }
    Node *v = lx(c, s->lhs);
    if (BAD(v))
        return;
    if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR) {
        fail(c, v->loc, "returning %s from a device function is not supported yet",
             ty_name(v->type));
        return;
    }
    c->ret_value = true;
    Type *u = c->declared_ret ? c->declared_ret : ty_unify(c->ret, v->type);
    if (!u) {
        fail(c, v->loc, "cannot unify return types %s and %s", ty_name(c->ret),
             ty_name(v->type));
        return;
    }
    if (!c->declared_ret && u != c->ret) {
        c->ret = u;
        c->changed = true;
    }
    if (c->quiet)
        return;
    if (v->type != c->fn->ret && v->type->kind == TY_TUPLE && v->kind != E_TUPLE &&
        v->kind != E_VAR) {   /* a tuple made by a call, converted element by element */
        Var *tmp = hidden_var(c, "tup", v->type, v->loc);
        nl_push(out, tree_assign(v->loc, tree_var(v->loc, tmp), v));
        v = tree_var(v->loc, tmp);
    }
    if (c->fn->ret->kind == TY_TUPLE && v->type->kind == TY_TUPLE &&
        !ty_unify(c->fn->ret, v->type)) {
        fail(c, v->loc, "cannot return %s from a function declared to return %s",
             ty_name(v->type), ty_name(c->fn->ret));
        return;
    }
    r->lhs = tree_cast(v, c->fn->ret);
    nl_push(out, r);
}

/*
 * A warp or block collective nested inside a larger expression
 * (`m = max(m, cuda.shfl_xor_sync(FULL, m, k))`) is evaluated first, as a
 * statement of its own into a hidden variable, and the expression reads
 * that variable: the CPU backend splits kernels at collectives, so each must
 * stand alone.  Only positions that every thread evaluates unconditionally
 * are hoisted (not the right operand of and/or, the branches of x if c else
 * y, or later links of a comparison chain); a collective there stays
 * refused.  The statement is copied first: lowering runs several times over
 * the same parsed tree.
 */
static bool has_nested_collective(Ctx *c, const Node *e, bool top)
{
    if (!e)
        return false;
    const ApiEntry *a = e->kind == E_CALL ? call_api(c, e) : NULL;
    if (api_has(a, AF_COLLECTIVE) && !top)
        return true;
    switch (e->kind) {
    case E_BOOLOP:
        return has_nested_collective(c, e->lhs, false);
    case E_IFEXP:
        return has_nested_collective(c, e->cond, false);
    case E_COMPARE:
        return e->args.len > 0 && has_nested_collective(c, e->args.items[0], false);
    case E_LAMBDA:
        return false;
    default:
        break;
    }
    if (has_nested_collective(c, e->lhs, false) || has_nested_collective(c, e->rhs, false))
        return true;
    for (int i = 0; i < e->args.len; i++)
        if (has_nested_collective(c, e->args.items[i], false))
            return true;
    for (int i = 0; i < e->kwargs.len; i++)
        if (has_nested_collective(c, e->kwargs.items[i]->lhs, false))
            return true;
    return false;
}

static void hoist_in(Ctx *c, Node **slot, bool top, NodeList *out)
{
    Node *e = *slot;
    if (!e)
        return;
    switch (e->kind) {
    case E_BOOLOP:
        hoist_in(c, &e->lhs, false, out);
        return;
    case E_IFEXP:
        hoist_in(c, &e->cond, false, out);
        return;
    case E_COMPARE:
        if (e->args.len > 0)
            hoist_in(c, &e->args.items[0], false, out);
        return;
    case E_LAMBDA:
        return;
    default:
        break;
    }
    hoist_in(c, &e->lhs, false, out);
    hoist_in(c, &e->rhs, false, out);
    for (int i = 0; i < e->args.len; i++)
        hoist_in(c, &e->args.items[i], false, out);
    for (int i = 0; i < e->kwargs.len; i++)
        hoist_in(c, &e->kwargs.items[i]->lhs, false, out);
    const ApiEntry *a = e->kind == E_CALL ? call_api(c, e) : NULL;
    if (!api_has(a, AF_COLLECTIVE) || top)
        return;
    Node *val = NULL;
    if (!lower_collective1(c, e, a, NULL, 0, &val, out) || !val)
        val = bad_node(e->loc, c->quiet ? NULL : ty_error);
    *slot = val;
}

/* The copy of statement s with its nested collectives hoisted into out, or
 * s itself when it has none. */
static Node *hoist_collectives(Ctx *c, Node *s, NodeList *out)
{
    Node **top = NULL;
    bool top_ok = true;   /* the whole value may be a collective */
    switch (s->kind) {
    case S_ASSIGN: case S_AUGASSIGN: case S_EXPR: top = s->kind == S_ASSIGN ? &s->rhs : &s->lhs; break;
    case S_RETURN: top = &s->lhs; top_ok = false; break;
    case S_IF: top = &s->cond; top_ok = false; break;
    default: return s;
    }
    bool any = has_nested_collective(c, *top, top_ok);
    if (s->kind == S_ASSIGN)
        for (int i = 0; i < s->args.len; i++)
            any |= has_nested_collective(c, s->args.items[i], false);
    if (s->kind == S_AUGASSIGN)
        any |= has_nested_collective(c, s->rhs, true);
    if (!any)
        return s;
    Node *copy = node_new(s->kind, s->loc);
    *copy = *s;   /* shallow: only the expression slots below are replaced */
    switch (s->kind) {
    case S_ASSIGN:
        copy->rhs = node_clone(s->rhs);
        copy->args = (NodeList){0};
        for (int i = 0; i < s->args.len; i++) {
            Node *t = node_clone(s->args.items[i]);
            nl_push(&copy->args, t);
        }
        hoist_in(c, &copy->rhs, true, out);
        for (int i = 0; i < copy->args.len; i++)
            hoist_in(c, &copy->args.items[i], true, out);
        break;
    case S_AUGASSIGN:
        copy->lhs = node_clone(s->lhs);
        copy->rhs = node_clone(s->rhs);
        hoist_in(c, &copy->rhs, true, out);
        hoist_in(c, &copy->lhs, true, out);
        break;
    case S_EXPR:
    case S_RETURN:
        copy->lhs = node_clone(s->lhs);
        hoist_in(c, &copy->lhs, top_ok, out);
        break;
    default:   /* S_IF */
        copy->cond = node_clone(s->cond);
        hoist_in(c, &copy->cond, false, out);
        break;
    }
    return copy;
}

static void lower_stmt(Ctx *c, Node *s, NodeList *out)
{
    s = hoist_collectives(c, s, out);
    switch (s->kind) {
    case S_EXPR: {
        Node *e = s->lhs;
        if (e->kind == E_STR) {   /* a docstring */
            if (!c->quiet)
                nl_push(out, tree_stmt(S_NOP, s->loc));
            return;
        }
        const ApiEntry *a = call_api(c, e);
        if (api_has(a, AF_COLLECTIVE)) {
            lower_collective(c, e, a, NULL, 0, out);
            return;
        }
        if (a && a->rule == TR_PRINT) {
            lower_print(c, e, out);
            return;
        }
        if (a && a->rule == TR_NP_UFUNC && e->args.len > npu_nin(npu_find(a->path))) {
            lower_np_ufunc_out(c, e, a, out);   /* npk: np.sin(a, out) */
            return;
        }
        Node *v = e->kind == E_CALL ? lx_call(c, e, true) : lx(c, e);
        if (v->type == ty_void && v->kind == E_CONST) {   /* cuda.syncthreads() */
            if (!c->quiet) {
                Node *b = tree_stmt(S_BARRIER, s->loc);
                b->api = &api_table[API_SYNCTHREADS];
                c->fn->has_barrier = true;
                nl_push(out, b);
            }
            return;
        }
        if (!BAD(v) && v->kind == E_API && v->api->rule == TR_GRID_SYNC) {
            if (!c->quiet) {   /* a grid barrier is a block barrier too */
                Node *b = tree_stmt(S_BARRIER, s->loc);
                b->api = v->api;
                c->fn->has_barrier = c->fn->has_grid_sync = true;
                nl_push(out, b);
            }
            return;
        }
        if (BAD(v) || c->quiet || v->type == ty_gridgroup)   /* this_grid(): no effect */
            return;
        Node *x = tree_stmt(S_EXPR, s->loc);
        x->lhs = v;
        nl_push(out, x);
        return;
    }
    case S_ASSIGN:
        lower_assign(c, s, out);
        return;
    case S_AUGASSIGN:
        lower_augassign(c, s, out);
        return;
    case S_IF: {
        int k = const_truth(c, s->cond);
        if (k >= 0) {   /* numba's dead_branch_prune: see const_truth */
            lblock(c, k ? &s->body : &s->orelse, out);
            return;
        }
        Node *n = tree_stmt(S_IF, s->loc);
        n->cond = lower_cond(c, s->cond);
        lblock(c, &s->body, &n->body);
        lblock(c, &s->orelse, &n->orelse);
        if (!c->quiet && !BAD(n->cond))
            nl_push(out, n);
        return;
    }
    case S_WHILE: {
        if (s->orelse.len) {
            fail(c, s->loc, "while ... else is not supported yet");
            return;
        }
        Node *n = tree_stmt(S_WHILE, s->loc);
        n->cond = lower_cond(c, s->cond);
        c->loops++;
        lblock(c, &s->body, &n->body);
        c->loops--;
        if (!c->quiet && !BAD(n->cond))
            nl_push(out, n);
        return;
    }
    case S_FOR:
        lower_for(c, s, out);
        return;
    case S_BREAK: case S_CONTINUE:
        if (!c->loops) {
            fail(c, s->loc, "'%s' outside a loop", s->kind == S_BREAK ? "break" : "continue");
            return;
        }
        if (!c->quiet)
            nl_push(out, tree_stmt(s->kind, s->loc));
        return;
    case S_PASS:
        if (!c->quiet)
            nl_push(out, tree_stmt(S_PASS, s->loc));
        return;
    case S_RETURN:
        lower_return(c, s, out);
        return;
    case S_ASSERT: {
        /* checked only with debug=True (or -g); otherwise typed, then
         * dropped, as numba ignores what a kernel raises without debug */
        Node *cond = lower_cond(c, s->cond);
        if (s->lhs && s->lhs->kind != E_STR) {
            fail(c, s->lhs->loc, "the message of an assert must be a string literal");
            return;
        }
        if (BAD(cond) || c->quiet || !c->fn->opt.debug)
            return;
        Node *n = tree_stmt(S_ASSERT, s->loc);
        n->cond = cond;
        if (s->lhs) {
            n->lhs = node_new(E_STR, s->lhs->loc);
            n->lhs->text = s->lhs->text;
        }
        nl_push(out, n);
        return;
    }
    case S_RAISE:
        fail(c, s->loc, "exceptions are not supported in kernels (raise)");
        return;
    case S_TRY:
        fail(c, s->loc, "exceptions are not supported in kernels (try)");
        return;
    case S_WITH:
        fail(c, s->loc, "'with' is not supported in kernels (context managers are Python "
             "objects)");
        return;
    case S_DEL:
        fail(c, s->loc, "'del' is not supported in kernels");
        return;
    case S_YIELD:
        fail(c, s->loc, "generators (yield) are not supported in kernels");
        return;
    case S_ANNASSIGN:
        fail(c, s->loc, "annotated assignments are not supported yet");
        return;
    case S_IMPORT: case S_FROMIMPORT:
        fail(c, s->loc, "imports inside a function are not supported");
        return;
    case S_FUNCDEF:
        fail(c, s->loc, "nested functions (closures) are not supported");
        return;
    case S_CLASS:
        fail(c, s->loc, "classes are not supported");
        return;
    case S_GLOBAL:
        fail(c, s->loc, "'global' and 'nonlocal' are not supported");
        return;
    default:
        fail(c, s->loc, "%s statements are not supported", node_kind_desc[s->kind]);
        return;
    }
}

static void lblock(Ctx *c, NodeList *in, NodeList *out)
{
    for (int i = 0; i < in->len; i++)
        lower_stmt(c, in->items[i], out);
}

/* ------------------------------------------------------------------ */
/* Functions                                                           */
/* ------------------------------------------------------------------ */

static void add_local(Ctx *c, Node *target)
{
    if (target->kind == E_NAME) {
        if (!lookup_var(c, target->name)) {
            Var *v = arena_alloc(sizeof *v);
            v->name = target->name;
            v->kind = VAR_LOCAL;
            v->loc = target->loc;
            ctx_add_var(c, v);
            vec_push(&c->decls, NULL);
        }
    } else if (target->kind == E_TUPLE || target->kind == E_LIST) {
        for (int i = 0; i < target->args.len; i++)
            add_local(c, target->args.items[i]);
    }
}

/* For ssa.c: does this S_ASSIGN bind an array or group (cuda.shared/local
 * .array, const.array_like, cg.this_grid)?  Such names stay one variable. */
static bool ssa_pinned_decl(void *ctx, const Node *assign)
{
    const ApiEntry *a = call_api(ctx, assign->rhs);
    return a && (a->cls == AC_MEMORY || a->rule == TR_THIS_GRID);
}

/* Python: a name assigned anywhere in a function is local to all of it. */
static void collect_locals(Ctx *c, NodeList *body)
{
    for (int i = 0; i < body->len; i++) {
        Node *s = body->items[i];
        switch (s->kind) {
        case S_ASSIGN:
            for (int j = 0; j < s->args.len; j++)
                add_local(c, s->args.items[j]);
            break;
        case S_AUGASSIGN: case S_ANNASSIGN: case S_FOR:
            add_local(c, s->lhs);
            break;
        default:
            break;
        }
        collect_locals(c, &s->body);
        collect_locals(c, &s->orelse);
    }
}

/* Can control reach the end of this block? (for device functions that
 * return a value on some paths: numba would make the result Optional) */
static bool falls_through(NodeList *body)
{
    if (!body->len)
        return true;
    Node *last = body->items[body->len - 1];
    if (last->kind == S_RETURN)
        return false;
    if (last->kind == S_IF && last->orelse.len)
        return falls_through(&last->body) || falls_through(&last->orelse);
    return true;
}

static Func *func_new(FuncDef *fd, Type **ptypes, int n)
{
    Func *f = arena_alloc(sizeof *f);
    f->name = fd->name;
    f->c_named = fd->c_named;
    f->def = node_clone(fd->def);
    f->is_kernel = fd->is_kernel;
    f->opt = fd->opt;
    f->nparams = n;
    f->params = arena_alloc(sizeof *f->params * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        Node *p = f->def->params.items[i];
        Var *v = arena_alloc(sizeof *v);
        v->name = p->name;
        v->kind = VAR_PARAM;
        v->type = ptypes[i];
        v->loc = p->loc;
        v->index = i;
        f->params[i] = v;
    }
    return f;
}

/* The fixed point: quiet passes until no variable's type widens. */
static void spec_infer(Spec *s, Type *declared_ret)
{
    Func *f = s->f;
    Ctx *c = arena_alloc(sizeof *c);
    s->ctx = c;
    c->fn = f;
    c->fd = s->fd;
    c->declared_ret = declared_ret;
    c->declared = arena_alloc(sizeof *c->declared * (size_t)(f->nparams ? f->nparams : 1));
    for (int i = 0; i < f->nparams; i++) {
        ctx_add_var(c, f->params[i]);
        vec_push(&c->decls, NULL);
        c->declared[i] = f->params[i]->type;
    }
    ssa_split(f->def, ssa_pinned_decl, c);
    collect_locals(c, &f->def->body);
    s->inferring = true;
    for (int iter = 0; iter < 100; iter++) {
        c->quiet = true;
        c->changed = false;
        c->ntemps = 0;
        NodeList scratch = {0};
        lblock(c, &f->def->body, &scratch);
        if (!c->changed)
            break;
    }
    s->inferring = false;
    f->ret = declared_ret ? declared_ret : c->ret_value ? c->ret : ty_void;
}

static void spec_finalize(Spec *s)
{
    Func *f = s->f;
    Ctx *c = s->ctx;
    s->finalizing = true;
    NodeList body = {0};
    /* A parameter widened by its assignments: a local of the wider type,
     * initialised from the parameter, takes its name. */
    for (int i = 0; i < f->nparams; i++) {
        Var *p = f->params[i];
        if (p->type == c->declared[i])
            continue;
        Var *sh = arena_alloc(sizeof *sh);
        *sh = *p;
        sh->kind = VAR_LOCAL;
        p->type = c->declared[i];
        c->vars.items[i] = sh;
        nl_push(&body, tree_assign(p->loc, tree_var(p->loc, sh), tree_cast(tree_var(p->loc, p), sh->type)));
    }
    c->quiet = false;
    c->ntemps = 0;
    lblock(c, &f->def->body, &body);
    s->finalizing = false;
    s->final_done = true;

    if (!f->is_kernel && c->ret_value && c->ret_none)
        sema_error(f->def->loc, "device function '%s' returns a value on some paths and "
                   "None on others (Optional results are not supported yet)", f->name);
    else if (!f->is_kernel && c->ret_value && !c->declared_ret && falls_through(&f->def->body))
        sema_error(f->def->loc, "device function '%s' can reach its end without returning "
                   "a value (Optional results are not supported yet)", f->name);
    /* module-level arrays read by the body: declared first */
    NodeList full = {0};
    for (int i = 0; i < c->constarrays.len; i++) {
        Node *d = tree_stmt(S_ARRAYDECL, f->def->loc);
        d->var = c->constarrays.items[i];
        nl_push(&full, d);
    }
    for (int i = 0; i < body.len; i++)
        nl_push(&full, body.items[i]);
    f->def->body = full;

    PtrVec locals = {0};
    for (int i = f->nparams; i < c->vars.len; i++) {
        Var *v = c->vars.items[i];
        if (v->type && v->type != ty_gridgroup)   /* a GridGroup is never stored */
            vec_push(&locals, v);
    }
    for (int i = 0; i < f->nparams; i++)
        if (c->vars.items[i] != f->params[i])
            vec_push(&locals, c->vars.items[i]);
    for (int i = 0; i < c->hidden.len; i++)
        vec_push(&locals, c->hidden.items[i]);
    for (int i = 0; i < c->constarrays.len; i++)
        vec_push(&locals, c->constarrays.items[i]);
    f->nlocals = locals.len;
    f->locals = (Var **)locals.items;
    for (int i = 0; i < f->nlocals; i++)
        f->locals[i]->index = i;

    /* C names: the first finalised specialisation of a def keeps the
     * user's name, later ones add their argument codes. */
    int seen = s->fd->nfinal++;
    if (!seen) {
        f->cname = f->name;
    } else {
        StrBuf b = {0};
        sb_printf(&b, "%s_", f->name);
        for (int i = 0; i < f->nparams; i++)
            sb_printf(&b, "_%s", ty_code(f->params[i]->type));
        if (!f->nparams)
            sb_printf(&b, "_%d", seen);
        f->cname = sb_take(&b);
    }
    vec_push(&order, f);
}

static Spec *spec_new(FuncDef *fd, Type **args, int nargs)
{
    Spec *s = arena_alloc(sizeof *s);
    s->fd = fd;
    s->args = arena_alloc(sizeof *args * (size_t)(nargs ? nargs : 1));
    memcpy(s->args, args, sizeof *args * (size_t)nargs);
    s->nargs = nargs;
    s->f = func_new(fd, args, nargs);
    vec_push(&all_specs, s);
    Func **specs = arena_alloc(sizeof *specs * (size_t)(fd->nspecs + 1));
    if (fd->nspecs)
        memcpy(specs, fd->specs, sizeof *specs * (size_t)fd->nspecs);
    specs[fd->nspecs++] = s->f;
    fd->specs = specs;
    return s;
}

/* The specialisation of a device function for these argument types: typed
 * (fixed point) on first use, lowered when a final pass first calls it. */
static Spec *spec_get(Ctx *c, FuncDef *fd, Type **args, int nargs, Loc loc)
{
    Spec *s = NULL;
    for (int i = 0; i < all_specs.len && !s; i++) {
        Spec *t = all_specs.items[i];
        if (t->fd != fd || t->nargs != nargs)
            continue;
        int j = 0;
        while (j < nargs && t->args[j] == args[j])
            j++;
        if (j == nargs)
            s = t;
    }
    if (s && (s->inferring || s->finalizing)) {
        if (!c->quiet)
            sema_error(loc, "recursion is not supported ('%s' calls itself)", fd->name);
        return NULL;
    }
    if (spec_depth > 64) {
        if (!c->quiet)
            sema_error(loc, "device function calls nested too deeply");
        return NULL;
    }
    spec_depth++;
    if (!s) {
        s = spec_new(fd, args, nargs);
        spec_infer(s, fd->nsigs ? fd->sigs[0].ret : NULL);
    }
    if (!c->quiet && !s->final_done) {
        StrBuf b = {0};
        for (int i = 0; i < nargs; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", ty_name(args[i]));
        if (nargs)
            diag_push_context(loc, "in '%s' typed for (%s), called here", fd->name, sb_take(&b));
        else
            diag_push_context(loc, "in '%s', called here", fd->name);
        int before = error_count();
        spec_finalize(s);
        s->failed = error_count() > before;
        diag_pop_context();
    }
    spec_depth--;
    return s;
}

/* A kernel for one signature, or an eagerly typed device function. */
void type_kernel(FuncDef *fd, const Signature *sig, Loc loc)
{
    Spec *s = spec_new(fd, sig->params, sig->nparams);
    spec_infer(s, fd->is_kernel ? ty_void : sig->ret);
    /* Of several signatures, say which one an error is in. */
    if (fd->nsigs > 1) {
        StrBuf b = {0};
        for (int i = 0; i < sig->nparams; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", ty_name(sig->params[i]));
        diag_push_context(loc, "in '%s' typed for its signature (%s)", fd->name, sb_take(&b));
    }
    spec_finalize(s);
    if (fd->nsigs > 1)
        diag_pop_context();
}

int type_nfinal(void)
{
    return order.len;
}

void type_mark_failed(int from)
{
    for (int i = from; i < order.len; i++)
        ((Func *)order.items[i])->type_failed = true;
}

void type_finish(Program *p)
{
    p->nfuncs = order.len;
    p->funcs = (Func **)order.items;
}
