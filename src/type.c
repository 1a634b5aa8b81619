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
 * The pass is split over three files for size: this one (contexts, names,
 * operators, expressions, statements, functions and specialisation),
 * type_array.c (indices, views, attributes, for-loop iteration) and
 * type_call.c (calls, the complex rows, NumPy ufuncs); they share the
 * private header type_impl.h.
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
#include "type_impl.h"

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

/* Every specialisation, by (function, argument types): open addressing. */
static Spec **spec_tab;
static size_t spec_cap, spec_len;
static PtrVec order;        /* Func*: finalised, callees first */
static int spec_depth;

/* attr_path's answers (speed, issue 7) */
typedef struct AttrPath {
    const char *p, *attr, *path;
    uint64_t h;
} AttrPath;
static AttrPath *attr_tab;
static size_t attr_cap, attr_len;

void type_reset(void)
{
    spec_tab = NULL;
    spec_cap = spec_len = 0;
    order = (PtrVec){0};
    spec_depth = 0;
    reduce_reset();   /* arr */
    free(attr_tab);   /* its strings were the last translation's */
    attr_tab = NULL;
    attr_cap = attr_len = 0;
}


/* Bad nodes made so far: a quiet pass that made one may not be the last
 * (spec_infer). */
static unsigned long bad_made;

Node *bad_node(Loc loc, Type *t)
{
    if (!t || t == ty_error)   /* (a void "constant" is a statement's value) */
        bad_made++;
    Node *n = node_new(E_CONST, loc);
    n->type = t;
    return n;
}

/* Report (outside quiet passes) and return a poison node. */
Node *fail(Ctx *c, Loc loc, const char *fmt, ...)
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
Node *poison(Loc loc, Node *a, Node *b)
{
    bool err = (a && a->type == ty_error) || (b && b->type == ty_error);
    return bad_node(loc, err ? ty_error : NULL);
}

static int var_index(const Ctx *c, const char *name)
{
    if (!c->vcap)
        return -1;
    for (size_t h = str_hash_z(name) & (c->vcap - 1); c->vtab[h]; h = (h + 1) & (c->vcap - 1))
        if (c->vtab[h] == name || (c->vtab[h][0] == name[0] && strcmp(c->vtab[h], name) == 0))
            return c->vidx[h];
    return -1;
}

/* By hash: a body of 16,000 assignments has 16,000 SSA versions. */
Var *lookup_var(Ctx *c, const char *name)
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
            size_t h = str_hash_z(n) & (cap - 1);
            while (c->vtab[h])
                h = (h + 1) & (cap - 1);
            c->vtab[h] = n;
            c->vidx[h] = i;
        }
    }
    size_t h = str_hash_z(v->name) & (c->vcap - 1);
    while (c->vtab[h])
        h = (h + 1) & (c->vcap - 1);
    c->vtab[h] = v->name;
    c->vidx[h] = c->vars.len;
    vec_push(&c->vars, v);
}

/* What to add to "name 'x' is not defined": the import it lacks, else the
 * closest local, module-level or built-in name. */
const char *name_hint(Ctx *c, const char *name)
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

bool ctx_is_local(void *ctx, const char *name)
{
    return lookup_var(ctx, name) != NULL;
}

/* py (issue 9): a literal argument of this specialisation, read as a
 * constant (numba's dead_branch_prune of literal arguments, shapes): the
 * E_CONST, and the spec is keyed by its value from now on. */
Node *ctx_literal(void *ctx, const char *name)
{
    Ctx *c = ctx;
    int i = var_index(c, name);
    if (i < 0 || !c->lits || i >= c->fn->nparams || !c->lits[i])
        return NULL;
    c->lit_used[i] = true;
    return c->lits[i];
}

bool is_array_var(const Var *v)
{
    return v->kind == VAR_SHARED || v->kind == VAR_DYNSHARED || v->kind == VAR_LOCALARRAY ||
           v->kind == VAR_CONSTARRAY;
}

Var *hidden_var(Ctx *c, const char *what, Type *t, Loc loc)
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

/* Sequencing of operands: see Seq in type_impl.h. */
void seq_operands(Ctx *c, Node **v, int n, Seq *q)
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

Node *seq_wrap(Node *n, const Seq *q)
{
    if (BAD(n))
        return n;
    for (int i = q->n - 1; i >= 0; i--)
        n = tree_let(n->loc, q->vars[i], q->vals[i], n);
    return n;
}

/* Record that variable v holds a value of type t (fixed-point step). */
void bind_var(Ctx *c, Var *v, Type *t, Loc loc)
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
        c->widened = true;
    }
}

/* ------------------------------------------------------------------ */
/* Names and paths                                                     */
/* ------------------------------------------------------------------ */

/* The path of attribute `attr` of path p (numba.X, np.X and types.X
 * aliases resolved, vector types canonical). */
static const char *attr_path_of(const char *p, const char *attr)
{
    const char *full = arena_printf("%s.%s", p, attr);
    if (strncmp(full, "numba.", 6) == 0)
        full += 6;
    if (strncmp(full, "np.", 3) == 0) {
        const char *t = sema_type_alias(full + 3);
        if (t)
            return t;
    }
    if (!strchr(full, '.')) {   /* numba.X (py: numba's own aliases too) */
        const char *t = sema_numba_type_alias(full);
        if (t)
            return t;
    }
    if (strncmp(full, "types.", 6) == 0 && sema_numba_type_alias(full + 6))
        return sema_numba_type_alias(full + 6);   /* py: from numba import types */
    return sema_vector_canon(full);
}

/* speed (issue 7): attr_path_of depends on the two strings only, and the
 * same few chains (cuda.threadIdx.x, math.sqrt) come back at every use in
 * every typing pass: its answers by their text, until type_reset (attr_tab,
 * above). */
static const char *attr_path(const char *p, const char *attr)
{
    uint64_t h = str_hash_z(p) * 31 ^ str_hash_z(attr);
    for (size_t i = attr_cap ? h & (attr_cap - 1) : 0; attr_cap && attr_tab[i].p; i = (i + 1) & (attr_cap - 1))
        if (attr_tab[i].h == h && strcmp(attr_tab[i].p, p) == 0 && strcmp(attr_tab[i].attr, attr) == 0)
            return attr_tab[i].path;
    const char *path = attr_path_of(p, attr);
    if (2 * (attr_len + 1) > attr_cap) {
        size_t cap = attr_cap ? 2 * attr_cap : 64;
        AttrPath *t = calloc(cap, sizeof *t);
        if (!t)
            die("out of memory (%zu paths)", cap);
        for (size_t i = 0; i < attr_cap; i++)
            if (attr_tab[i].p) {
                size_t j = attr_tab[i].h & (cap - 1);
                while (t[j].p)
                    j = (j + 1) & (cap - 1);
                t[j] = attr_tab[i];
            }
        free(attr_tab);
        attr_tab = t;
        attr_cap = cap;
    }
    size_t i = h & (attr_cap - 1);
    while (attr_tab[i].p)
        i = (i + 1) & (attr_cap - 1);
    attr_tab[i] = (AttrPath){arena_strdup(p), arena_strdup(attr), path, h};
    attr_len++;
    return path;
}

/* The canonical API path of a name or attribute chain rooted in an
 * import ("numba.cuda.grid" -> "cuda.grid", np.float32 -> float32),
 * or NULL for anything else (locals shadow imports). */
const char *expr_path(Ctx *c, const Node *e)
{
    if (e->kind == E_NAME) {
        Var *lv = lookup_var(c, e->name);
        if (lv)   /* py: a parameter holding cuda.atomic.add or a dtype */
            return lv->type && ty_is_ct(lv->type) && lv->type->api ? lv->type->api->path : NULL;
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
        return p ? attr_path(p, e->name) : NULL;
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

/* py (issue 9): the array reductions numba-cuda 0.30 does not compile
 * without NRT (checked with compile_ptx): max min amax amin nanmax nanmin
 * median cumsum cumprod ptp (np.take of a 0-d array, or a new array); the
 * ones it compiles are reduce_array.c's (arr).  The message for np.NAME
 * or a.NAME(), NULL for anything else. */
const char *reduction_message(const char *path)
{
    static const char *const refused[] = {"max", "min", "amax", "amin", "nanmax", "nanmin",
                                          "median", "cumsum", "cumprod", "ptp", NULL};
    const char *name = strncmp(path, "np.", 3) == 0 ? path + 3 : path;
    for (int i = 0; refused[i]; i++)
        if (strcmp(name, refused[i]) == 0)
            return arena_printf("numba-cuda 0.30 cannot compile the array reduction %s() in "
                                "kernels without NRT (its typing fails); write the loop", name);
    return NULL;
}

Node *unknown_path(Ctx *c, Loc loc, const char *path)
{
    for (int i = 0; later_api[i]; i++) {
        size_t n = strlen(later_api[i]);
        if (strncmp(path, later_api[i], n) == 0 && (path[n] == 0 || path[n] == '.'))
            return fail(c, loc, "'%s' is not supported yet", path);
    }
    const char *npmsg = npu_missing_message(path);   /* npk: np.add, np.sqrt */
    if (npmsg)
        return fail(c, loc, "%s", npmsg);
    const char *red = reduction_message(path);   /* py: np.sum, np.max, ... */
    if (red)
        return fail(c, loc, "%s", red);
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

Type *api_type(const ApiEntry *a)
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
Node *lower_path_value(Ctx *c, Loc loc, const char *path)
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
Var *const_array_var(Ctx *c, const char *name, Node *flat, const int64_t *shape,
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
        if (ty_is_ct(v->type))   /* py: a function or dtype argument */
            return fail(c, e->loc, "'%s' holds %s: it can only be called%s or passed on to a "
                        "device function", e->name, ty_name(v->type),
                        v->type->kind == TY_TYPEREF ? ", used as a dtype" : "");
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
        case GLOBAL_FOREIGN:   /* dev */
            return fail(c, e->loc, "foreign function '%s' cannot be used as a value", e->name);
        case GLOBAL_EXC:   /* dev */
            return fail(c, e->loc, "exception class '%s' can only be raised", e->name);
        case GLOBAL_PATH:
            return lower_path_value(c, e->loc, g->path);
        case GLOBAL_DTYPE: case GLOBAL_RECORD:   /* rec */
            return fail(c, e->loc, "the record type '%s' cannot be used as a value here",
                        e->name);
        case GLOBAL_NTUPLE:   /* arr */
            return fail(c, e->loc, "the named tuple class '%s' can only be called here",
                        e->name);
        case GLOBAL_ENUM:   /* arr */
            return fail(c, e->loc, "the enum class '%s' cannot be used as a value here; use "
                        "its members (%s.member)", e->name, e->name);
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

Node *lower_binop(Ctx *c, Loc loc, Op op, Node *a, Node *b)
{
    if (BAD(a) || BAD(b))
        return poison(loc, a, b);
    if (!ty_is_scalar(a->type) || !ty_is_scalar(b->type))
        return fail(c, loc, "unsupported operand types for %s: %s and %s", op_spelling[op],
                    ty_name(a->type), ty_name(b->type));
    Type *ht = half_operator(op, a->type, b->type) ? ty_float16
             : bf16_operator(op, a->type, b->type);   /* bfloat16 (src/bf16.c) */
    if (ht) {
        /* float16 (src/half.c): numba-cuda's operator template first */
        Node *hops[2] = {a, b};
        Seq hq;
        seq_operands(c, hops, 2, &hq);
        return seq_wrap(tree_binop(loc, op, tree_cast(hops[0], ht),
                                   tree_cast(hops[1], ht), ht), &hq);
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
    if (e->op == OP_NOT && ty_is_charseq(v->type)) {   /* str: numba's charseq_not */
        Node *n = node_new(E_UNARY, e->loc);
        n->op = OP_NOT;
        n->lhs = charseq_truth(e->loc, v);
        n->type = ty_bool;
        return n;
    }
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
    Node *cs = charseq_compare(c, loc, op, a, b);   /* str */
    if (cs)
        return cs;
    if ((op == OP_IS || op == OP_ISNOT) &&
        (ty_is_scalar(a->type) || a->type->kind == TY_TUPLE) &&
        (ty_is_scalar(b->type) || b->type->kind == TY_TUPLE)) {
        /* arr, suite (issue 9): numba's generic_is (cpython/builtins.py):
         * values of one immutable type are compared with == (booleans,
         * literal or not: bool_is_impl), of two types are never the same
         * object.  A literal number has a Literal type of its own where
         * numba types it: refused below rather than guessed. */
        bool lit = a->type != ty_bool && (a->kind == E_CONST || b->kind == E_CONST);
        if (a->type == b->type && !lit && !ty_is_complex(a->type) && !ty_is_half16(a->type))
            return lower_cmp2(c, loc, op == OP_IS ? OP_EQ : OP_NE, a, b);
        if (a->type != b->type) {
            if (!tree_is_pure(a) || !tree_is_pure(b))
                return fail(c, loc, "'%s' of a call or an atomic is not supported here; assign "
                            "its value to a variable first", op_spelling[op]);
            return tree_int(loc, ty_bool, op == OP_ISNOT);
        }
    }
    if (op == OP_IS || op == OP_ISNOT || op == OP_IN || op == OP_NOTIN)
        return fail(c, loc, "the '%s' operator is not supported", op_spelling[op]);
    if ((a->type->is_enum || b->type->is_enum) &&
        (a->type != b->type || (op != OP_EQ && op != OP_NE)))   /* arr: numba's EnumCompare */
        return fail(c, loc, "numba-cuda 0.30 has no '%s' of %s and %s (enum members compare "
                    "with == and != within their class)", op_spelling[op], ty_name(a->type),
                    ty_name(b->type));
    if (a->type->is_enum)   /* arr: numba's enum_eq: the values compared */
        return lower_cmp2(c, loc, op, tree_tupleget(a, 0), tree_tupleget(b, 0));
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
    if (bf16_operator(op, a->type, b->type))   /* bfloat16 (src/bf16.c) */
        t = ty_bfloat16;
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
    if (n == 2 && (((Node *)e->args.items[0])->kind == E_STR ||
                   ((Node *)e->args.items[1])->kind == E_STR)) {   /* str: a[i] == 'abc' */
        Node *cs = charseq_compare_literal(c, e);
        if (cs)
            return cs;
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
        if (n > 2 && ty_is_charseq(v[i]->type))   /* str */
            return fail(c, e->loc, "chained comparisons of char sequences are not supported");
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
    Node *k = sema_fold_local(e, false, ctx_is_local, ctx_literal, c);
    if (!k || k->kind != E_CONST || !k->type || !ty_is_scalar(k->type))
        return -1;
    if (ty_is_complex(k->type))   /* cx: either part nonzero */
        return k->fval != 0 || k->fimag != 0;
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
        if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR &&
            v->type->kind != TY_RECORD)
            return fail(c, v->loc, "tuples of %s are not supported", ty_name(v->type));
        nl_push(&t->args, v);
        el[i] = v->type;
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    t->type = ty_tuple(el, n);
    return t;
}

Node *lx(Ctx *c, Node *e)
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
    Node *align = call->args.len > 2 ? call->args.items[2] : NULL;   /* py */
    if (call->args.len > 3) {
        fail(c, ((Node *)call->args.items[3])->loc, "%s() takes 3 arguments (%d given)",
             a->path, call->args.len);
        return;
    }
    for (int i = 0; i < call->kwargs.len; i++) {
        Node *kw = call->kwargs.items[i];
        if (strcmp(kw->name, "shape") == 0 && !shape)
            shape = kw->lhs;
        else if (strcmp(kw->name, "dtype") == 0 && !dtype)
            dtype = kw->lhs;
        else if (strcmp(kw->name, "alignment") == 0 && !align)
            align = kw->lhs;
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
        Node *k = sema_fold_local(shape, false, ctx_is_local, ctx_literal, c);
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
        if (!const_int(c, items[i], &dims[i]) && !const_int_local(c, items[i], &dims[i])) {
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
    if (!elem && dtype->kind == E_NAME && !lookup_var(c, dtype->name))
        elem = record_named(dtype->name);   /* rec: arrays of records */
    if (!elem && dtype->kind == E_NAME &&
        (*import_hint(dtype->name) ||
         (!lookup_var(c, dtype->name) && !sema_global(dtype->name) && !da))) {
        fail(c, dtype->loc, "name '%s' is not defined%s", dtype->name, name_hint(c, dtype->name));
        return;
    }
    if (!elem || (!ty_is_scalar(elem) && elem->kind != TY_RECORD)) {
        fail(c, dtype->loc, "the dtype of %s() must be a scalar type such as float32", a->path);
        return;
    }
    /* py (issue 9): alignment=, numba-cuda 0.30's rules (cudadecl.py: a
     * constant integer or None; cudaimpl.py _validate_alignment) */
    int64_t alignment = 0;
    if (align && align->kind != E_NONE) {
        if (!const_int(c, align, &alignment)) {
            fail(c, align->loc, "alignment must be a constant integer");
            return;
        }
        const char *bad = alignment <= 0 ? "positive" :
                          (alignment & (alignment - 1)) != 0 ? "a power of 2" :
                          alignment % 8 != 0 ? "a multiple of 8" : NULL;
        if (bad) {
            fail(c, align->loc, "Alignment must be %s (%lld given)", bad, (long long)alignment);
            return;
        }
        if (dynamic && alignment > 16) {
            fail(c, align->loc, "alignment= above 16 of a dynamic shared array is not "
                 "supported (kernc's dynamic shared memory is 16-byte aligned)");
            return;
        }
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
        v->align = (int)alignment;
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
            bind_var(c, v, t, targets[0]->loc);
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

/* rec: a store into a record field (t an E_TUPLEGET of a record) or of a
 * whole record (t of TY_RECORD: an array element or a field): scalars
 * converted as numba does, records copied when of the same type. */
static void record_store(Ctx *c, Node *target, Node *t, Node *v, NodeList *out)
{
    if (t->type->kind == TY_RECORD) {
        if (v->type != t->type) {
            fail(c, v->loc, "cannot store %s into a record of type %s", ty_name(v->type),
                 t->type->rec->pyname);
            return;
        }
    } else if (t->type->kind == TY_ARRAY) {
        /* numba: the field's elements are copied from the array's data, in
         * memory order (a memcpy of the field's size) */
        if (v->type->kind != TY_ARRAY || v->type->elem != t->type->elem) {
            fail(c, v->loc, "cannot store %s into a subarray field of %s (numba-cuda copies "
                 "an array of the same dtype)", ty_name(v->type), ty_name(t->type->elem));
            return;
        }
    } else if (ty_is_charseq(t->type)) {   /* str: r['y'] = a[i] copies the units */
        if (!charseq_check_store(c, t->type, v))
            return;
    } else if (!ty_is_scalar(v->type)) {
        fail(c, v->loc, "cannot store %s into a record field of type %s", ty_name(v->type),
             ty_name(t->type));
        return;
    } else {
        v = tree_cast(v, t->type);
    }
    if (!c->quiet)
        nl_push(out, tree_assign(target->loc, t, v));
}

/* target = <lowered value v> */
void assign_value(Ctx *c, Node *target, Node *v, NodeList *out)
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
            bind_var(c, var, v->type, target->loc);
            if (!c->quiet && var->type && ty_unify(var->type, v->type) == var->type)
                nl_push(out, tree_assign(target->loc, tree_var(target->loc, var), v));
            return;
        }
        if (v->type == ty_gridgroup) {   /* g = cuda.cg.this_grid(): typed, not stored */
            bind_var(c, var, v->type, target->loc);
            return;
        }
        if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR &&
            v->type->kind != TY_RECORD && v->type->kind != TY_CHARSEQ) {
            fail(c, v->loc, "a value of type %s cannot be stored in a variable",
                 ty_name(v->type));
            return;
        }
        bind_var(c, var, v->type, target->loc);
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
            if (ty_is_complex(v->type) && !ty_is_complex(t->type->elem)) {   /* cx */
                fail(c, v->loc, "cannot store %s into an array of %s (numba has no conversion "
                     "from complex to a real type; take .real or abs())", ty_name(v->type),
                     ty_name(t->type->elem));
                return;
            }
            if (!c->quiet)
                nl_push(out, tree_assign(target->loc, t, tree_cast(v, t->type->elem)));
            return;
        }
        if (t->kind == E_TUPLEGET && t->lhs->type->kind == TY_RECORD) {   /* rec: r['a'] = v */
            record_store(c, target, t, v, out);
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
        if (t->type->kind == TY_RECORD) {   /* rec: a[i] = r copies the record */
            record_store(c, target, t, v, out);
            return;
        }
        if (ty_is_charseq(t->type)) {   /* str: a[i] = b[j] copies the units */
            if (charseq_check_store(c, t->type, v) && !c->quiet)
                nl_push(out, tree_assign(target->loc, t, v));
            return;
        }
        if (!ty_is_scalar(v->type)) {
            fail(c, v->loc, "cannot store %s into an array element", ty_name(v->type));
            return;
        }
        if (ty_is_complex(v->type) && !ty_is_complex(t->type)) {   /* cx: numba's setitem */
            fail(c, v->loc, "cannot store %s into an array of %s (numba has no conversion from "
                 "complex to a real type; take .real or abs())", ty_name(v->type),
                 ty_name(t->type));
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
        if (base && !BAD(base) && base->type->kind == TY_RECORD) {   /* rec: r.a = v */
            Node *t = record_attr(c, target, base);
            if (!BAD(t) && !BAD(v))
                record_store(c, target, t, v, out);
            return;
        }
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
    if (rhs->kind == E_STR && charseq_assign_const(c, target, rhs, out))   /* str */
        return;
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
    if (!BAD(v) && ty_is_charseq(v->type))   /* str: its length, as numba's truth */
        return charseq_truth(e->loc, v);
    if (!BAD(v) && !ty_is_scalar(v->type))
        return fail(c, e->loc, "a condition must be a scalar, not %s", ty_name(v->type));
    if (!BAD(v) && ty_is_complex(v->type))   /* complex_as_bool */
        return tree_cast(v, ty_bool);
    return v;
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
    if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR &&
            v->type->kind != TY_RECORD && v->type->kind != TY_CHARSEQ) {   /* str: by value */
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
        if (c->ret)
            c->widened = true;
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
    if (e->kind == E_CALL) {
        /* a callee through a local (a parameter holding cuda.atomic.add):
         * its type, so the answer, may change between passes */
        const Node *base = e->lhs;
        while (base && base->kind == E_ATTR)
            base = base->lhs;
        if (base && base->kind == E_NAME && lookup_var(c, base->name))
            c->hoist_local = true;
    }
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
    /* speed (issue 7): the answer of an earlier pass over the same body;
     * only the body's own statements are kept (a scratch node's address
     * comes back in the next pass as another node) */
    int known = ptrmap_get(&c->hoisted, s);
    bool any = known > 0;
    if (known < 0) {
        c->hoist_local = false;
        any = has_nested_collective(c, *top, top_ok);
        if (s->kind == S_ASSIGN)
            for (int i = 0; i < s->args.len; i++)
                any |= has_nested_collective(c, s->args.items[i], false);
        if (s->kind == S_AUGASSIGN)
            any |= has_nested_collective(c, s->rhs, true);
        if (!c->hoist_local && !scratch_holds(s))
            ptrmap_put(&c->hoisted, s, any);
    }
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
        while (!BAD(v) && v->kind == E_LET && v->ival == 1) {   /* py: f(*t) */
            if (!c->quiet)
                nl_push(out, tree_assign(v->loc, tree_var(v->loc, v->var), v->lhs));
            v = v->rhs;
        }
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
        /* dev (issue 9): as numba-cuda compiles it, `if not cond: raise
         * AssertionError(msg)`: reported with debug=True (or -g); without,
         * the thread ends there (numba's kernel returns); ival: debug */
        Node *cond = lower_cond(c, s->cond);
        if (s->lhs && s->lhs->kind != E_STR) {
            fail(c, s->lhs->loc, "the message of an assert must be a string literal");
            return;
        }
        if (BAD(cond) || c->quiet)
            return;
        Node *n = tree_stmt(S_ASSERT, s->loc);
        n->cond = cond;
        n->ival = c->fn->opt.debug;
        if (s->lhs) {
            n->lhs = node_new(E_STR, s->lhs->loc);
            n->lhs->text = s->lhs->text;
        }
        nl_push(out, n);
        return;
    }
    case S_RAISE: {
        /* dev (issue 9): raise CLS, raise CLS(), raise CLS("msg"): text the
         * class, lhs the message (E_STR) or NULL, ival debug (see S_ASSERT) */
        Node *x = s->lhs, *msg = NULL;
        if (!x) {
            fail(c, s->loc, "a bare 'raise' re-raises the exception being handled, and "
                 "kernels handle none");
            return;
        }
        if (s->rhs) {
            fail(c, s->rhs->loc, "'raise ... from ...' is not supported in kernels");
            return;
        }
        if (x->kind == E_CALL) {
            if (x->kwargs.len) {
                fail(c, ((Node *)x->kwargs.items[0])->loc,
                     "keyword arguments of a raised exception are not supported");
                return;
            }
            if (x->args.len > 1 ||
                (x->args.len == 1 && ((Node *)x->args.items[0])->kind != E_STR)) {
                fail(c, ((Node *)x->args.items[0])->loc,
                     "a raised exception takes one string literal, its message");
                return;
            }
            msg = x->args.len ? x->args.items[0] : NULL;
            x = x->lhs;
        }
        const char *cls = x->kind == E_NAME ? exception_class(x->name) : NULL;
        if (!cls) {
            fail(c, x->loc, "kernels can raise the built-in exceptions (ValueError, "
                 "IndexError, ...) and classes derived from Exception, not this");
            return;
        }
        if (c->quiet)
            return;
        Node *n = tree_stmt(S_RAISE, s->loc);
        n->text = cls;
        n->ival = c->fn->opt.debug;
        if (msg) {
            n->lhs = node_new(E_STR, msg->loc);
            n->lhs->text = msg->text;
        }
        nl_push(out, n);
        return;
    }
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

void lblock(Ctx *c, NodeList *in, NodeList *out)
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
    if (last->kind == S_RETURN || last->kind == S_RAISE)   /* dev: raise ends it too */
        return false;
    if (last->kind == S_IF && last->orelse.len)
        return falls_through(&last->body) || falls_through(&last->orelse);
    return true;
}

/* py (issue 9): literal arguments (Spec.lits) compared and named */
static bool lit_equal(const Node *a, const Node *b)
{
    if (a->type != b->type || a->kind != b->kind)
        return false;
    if (a->kind == E_CONST)
        return a->ival == b->ival;
    for (int i = 0; i < a->args.len; i++)
        if (!lit_equal(a->args.items[i], b->args.items[i]))
            return false;
    return true;
}

/* numba's spelling of a literal argument; a C name's part of it */
static const char *lit_name(const Node *l, bool code)
{
    if (l->kind == E_TUPLE) {
        StrBuf b = {0};
        sb_puts(&b, code ? "t" : "Tuple(");
        for (int i = 0; i < l->args.len; i++)
            sb_printf(&b, "%s%s", i && !code ? ", " : "", lit_name(l->args.items[i], code));
        if (!code)
            sb_putc(&b, ')');
        return sb_take(&b);
    }
    int64_t v = (int64_t)l->ival;
    if (l->type == ty_bool)
        return code ? (v ? "LT" : "LF") : v ? "Literal[bool](True)" : "Literal[bool](False)";
    if (code)
        return arena_printf("L%s%llu", v < 0 ? "m" : "",
                            (unsigned long long)(v < 0 ? 0 - (uint64_t)v : (uint64_t)v));
    return arena_printf("Literal[int](%lld)", (long long)v);
}

/* py (issue 9): is name a target anywhere in body (after ssa_split: the
 * parameter's own web)? */
static bool target_named(const Node *t, const char *name)
{
    if (t->kind == E_NAME)
        return strcmp(t->name, name) == 0;
    if (t->kind == E_TUPLE || t->kind == E_LIST)
        for (int i = 0; i < t->args.len; i++)
            if (target_named(t->args.items[i], name))
                return true;
    return false;
}

static bool name_assigned(const NodeList *body, const char *name)
{
    for (int i = 0; i < body->len; i++) {
        const Node *s = body->items[i];
        switch (s->kind) {
        case S_ASSIGN:
            for (int j = 0; j < s->args.len; j++)
                if (target_named(s->args.items[j], name))
                    return true;
            break;
        case S_AUGASSIGN: case S_ANNASSIGN: case S_FOR:
            if (s->lhs && target_named(s->lhs, name))
                return true;
            break;
        default:
            break;
        }
        if (name_assigned(&s->body, name) || name_assigned(&s->orelse, name))
            return true;
    }
    return false;
}

static Func *func_new(FuncDef *fd, Type **ptypes, int n)
{
    Func *f = arena_alloc(sizeof *f);
    f->name = fd->name;
    f->c_named = fd->c_named;
    if (fd->share_def && fd->nspecs == 0) {
        /* speed (issue 7): no other specialisation will need the parsed
         * body, so only the S_FUNCDEF node is copied */
        f->def = node_alloc(sizeof *f->def);
        *f->def = *fd->def;
    } else {
        f->def = node_clone(fd->def);
    }
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
    if (s->lits) {   /* py: a parameter assigned in its body is no literal */
        c->lits = arena_alloc(sizeof *c->lits * (size_t)f->nparams);
        c->lit_used = s->lit_used;
        for (int i = 0; i < f->nparams; i++)
            if (s->lits[i] && !name_assigned(&f->def->body, f->params[i]->name))
                c->lits[i] = s->lits[i];
    }
    s->inferring = true;
    /* dev (issue 9): a recursive call's type while the body is typed: the
     * declared result, else the one its other returns give so far (as
     * numba types fib(n - 1) from `return n`) */
    f->ret = declared_ret;
    for (int iter = 0; iter < 100; iter++) {
        c->quiet = true;
        c->changed = false;
        c->widened = false;
        c->ntemps = 0;
        unsigned long bad_before = bad_made;
        /* the pass's tree is thrown away: its nodes are scratch */
        ScratchMark m = scratch_begin();
        NodeList thrown = {0};
        lblock(c, &f->def->body, &thrown);
        scratch_end(m);
        if (!declared_ret && c->ret_value && f->ret != c->ret) {
            f->ret = c->ret;
            c->changed |= f->recursive;
        }
        if (!c->changed)
            break;
        /* Types were only given, none widened, and nothing went bad (no
         * read of an untyped variable, no error): every read saw the type
         * it will have, so another pass would learn nothing. */
        if (!c->widened && bad_made == bad_before)
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
    if (f->recursive && (f->has_barrier || f->has_warpop))   /* dev (issue 9) */
        sema_error(f->def->loc, "recursive device function '%s' synchronises (a barrier or "
                   "a warp operation): the CPU backend runs recursion as a C function, one "
                   "thread at a time", f->name);

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
    int seen = s->fd->is_kernel && !f->is_kernel ? 1 : s->fd->nfinal++;   /* dev: kernels
        keep their names; one called from device code is NAME__dev_<codes> */
    if (s->fd->is_kernel && !f->is_kernel) {
        StrBuf b = {0};
        sb_printf(&b, "%s__dev", f->name);
        for (int i = 0; i < f->nparams; i++)
            sb_printf(&b, "_%s", ty_code(f->params[i]->type));
        f->cname = sb_take(&b);
    } else if (!seen) {
        f->cname = f->name;
    } else {
        StrBuf b = {0};
        sb_printf(&b, "%s_", f->name);
        for (int i = 0; i < f->nparams; i++) {
            Node *l = s->lit_used && s->lit_used[i] ? s->lits[i] : NULL;
            if (l)   /* py: a literal argument the typing used */
                sb_printf(&b, "_%s", lit_name(l, true));
            else
                sb_printf(&b, "_%s", ty_code(f->params[i]->type));
        }
        if (!f->nparams)
            sb_printf(&b, "_%d", seen);
        f->cname = sb_take(&b);
    }
    /* py (issue 9): function and dtype arguments are compile-time only: the
     * C function has no parameter for them (the calls pass none) */
    int np = 0;
    for (int i = 0; i < f->nparams; i++)
        if (!ty_is_ct(f->params[i]->type)) {
            f->params[np] = f->params[i];
            f->params[np]->index = np;
            np++;
        }
    f->nparams = np;
    vec_push(&order, f);
}

static size_t spec_hash(const FuncDef *fd, Type **args, int nargs)
{
    size_t h = (size_t)(uintptr_t)fd * 31u + (size_t)nargs;
    for (int i = 0; i < nargs; i++)
        h = h * 1000003u ^ (size_t)(uintptr_t)args[i];
    return h ^ (h >> 17);
}

static Spec **spec_slot(const FuncDef *fd, Type **args, int nargs)
{
    size_t i = spec_hash(fd, args, nargs) & (spec_cap - 1);
    for (;; i = (i + 1) & (spec_cap - 1)) {
        Spec *t = spec_tab[i];
        if (!t)
            return &spec_tab[i];
        if (t->fd == fd && t->nargs == nargs &&
            (nargs == 0 || memcmp(t->args, args, sizeof *args * (size_t)nargs) == 0))
            return &spec_tab[i];
    }
}

static void spec_add(Spec *s)
{
    if (2 * (spec_len + 1) > spec_cap) {
        Spec **old = spec_tab;
        size_t n = spec_cap;
        spec_cap = spec_cap ? 2 * spec_cap : 64;
        spec_tab = arena_alloc(sizeof *spec_tab * spec_cap);
        for (size_t i = 0; i < n; i++)
            if (old[i])
                *spec_slot(old[i]->fd, old[i]->args, old[i]->nargs) = old[i];
    }
    Spec **slot = spec_slot(s->fd, s->args, s->nargs);
    if (!*slot) {
        *slot = s;
        spec_len++;
        return;
    }
    Spec *t = *slot;        /* same types (other literals): made later, found later */
    while (t->same_next)
        t = t->same_next;
    t->same_next = s;
}

static Spec *spec_new(FuncDef *fd, Type **args, int nargs)
{
    Spec *s = arena_alloc(sizeof *s);
    s->fd = fd;
    s->args = arena_alloc(sizeof *args * (size_t)(nargs ? nargs : 1));
    memcpy(s->args, args, sizeof *args * (size_t)nargs);
    s->nargs = nargs;
    s->f = func_new(fd, args, nargs);
    spec_add(s);
    Func **specs = arena_alloc(sizeof *specs * (size_t)(fd->nspecs + 1));
    if (fd->nspecs)
        memcpy(specs, fd->specs, sizeof *specs * (size_t)fd->nspecs);
    specs[fd->nspecs++] = s->f;
    fd->specs = specs;
    return s;
}

/* The specialisation of a device function for these argument types: typed
 * (fixed point) on first use, lowered when a final pass first calls it. */
Spec *spec_get(Ctx *c, FuncDef *fd, Type **args, int nargs, Loc loc)
{
    return spec_get_lits(c, fd, args, NULL, nargs, loc);
}

/* py (issue 9): does a literal argument agree with what a spec used? */
static bool lit_matches(const Spec *t, Node **lits, int j)
{
    if (!t->lit_used || !t->lit_used[j])
        return true;
    Node *a = lits ? lits[j] : NULL, *b = t->lits[j];
    return a && b && lit_equal(a, b);
}

Spec *spec_get_lits(Ctx *c, FuncDef *fd, Type **args, Node **lits, int nargs, Loc loc)
{
    /* the first made of those with these types whose used literals agree */
    Spec *s = spec_cap ? *spec_slot(fd, args, nargs) : NULL;
    for (; s; s = s->same_next) {
        if (s->f->is_kernel)   /* dev: a kernel called from device code is not its kernel */
            continue;
        int j = 0;
        while (j < nargs && lit_matches(s, lits, j))
            j++;
        if (j == nargs)
            break;
    }
    if (s && (s->inferring || s->finalizing)) {
        /* dev (issue 9): recursion, typed as numba types it (above) */
        s->f->recursive = true;
        if (!s->f->ret) {
            if (!c->quiet)
                sema_error(loc, "cannot type the recursion of '%s': give it a signature, "
                           "or a return that does not recurse", fd->name);
            return NULL;
        }
        return s;
    }
    if (spec_depth > 64) {
        if (!c->quiet)
            sema_error(loc, "device function calls nested too deeply");
        return NULL;
    }
    spec_depth++;
    /* a specialisation outlives the caller's quiet pass that made it */
    bool scratch = scratch_suspend();
    if (!s) {
        s = spec_new(fd, args, nargs);
        if (lits && !fd->nsigs) {
            s->lits = arena_alloc(sizeof *s->lits * (size_t)nargs);
            for (int i = 0; i < nargs; i++)   /* the caller's pass may be scratch */
                s->lits[i] = lits[i] ? node_clone(lits[i]) : NULL;
            s->lit_used = arena_alloc(sizeof *s->lit_used * (size_t)nargs);
        }
        if (fd->is_kernel)   /* dev: compiled as a device function (type_call.c) */
            s->f->is_kernel = false;
        spec_infer(s, fd->is_kernel ? ty_void : fd->nsigs && !fd->sigs[0].ret_inferred ? fd->sigs[0].ret : NULL);
    }
    if (!c->quiet && !s->final_done) {
        StrBuf b = {0};
        for (int i = 0; i < nargs; i++) {
            Node *l = s->lit_used && s->lit_used[i] ? s->lits[i] : NULL;
            if (l)   /* py: numba's spelling of a literal argument */
                sb_printf(&b, "%s%s", i ? ", " : "", lit_name(l, false));
            else
                sb_printf(&b, "%s%s", i ? ", " : "", ty_name(args[i]));
        }
        if (nargs)
            diag_push_context(loc, "in '%s' typed for (%s), called here", fd->name, sb_take(&b));
        else
            diag_push_context(loc, "in '%s', called here", fd->name);
        int before = error_count();
        spec_finalize(s);
        s->failed = error_count() > before;
        diag_pop_context();
    }
    scratch_resume(scratch);
    spec_depth--;
    return s;
}

/* A kernel for one signature, or an eagerly typed device function. */
void type_kernel(FuncDef *fd, const Signature *sig, Loc loc)
{
    Spec *s = spec_new(fd, sig->params, sig->nparams);
    spec_infer(s, fd->is_kernel ? ty_void : sig->ret_inferred ? NULL : sig->ret);
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
