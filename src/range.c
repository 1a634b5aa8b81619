/*
 * range.c - value ranges of the integer expressions of the typed tree, one
 * pass per function after check.c, for the printers (emit_expr.c).
 *
 * An abstract interpretation over intervals: each statement is taken in
 * order with an environment (an interval per scalar integer variable),
 * `if` and `while` conditions narrow it on each side (`if i < n:`, `if i >=
 * n: return`, `while step > 0:`), loops iterate to a fixpoint (widened to
 * the type's bounds after a few rounds), `range()` loops give their
 * variable the interval between start and stop, and the sources of values
 * have CUDA's limits (threadIdx.x in [0, 1023], blockIdx.x in [0, 2^31 - 2],
 * blockDim.z in [1, 64], ...: the runtime refuses larger launches on both
 * backends), array lengths are in [0, INT64_MAX] (krt_array_size refuses an
 * element count that overflows int64), constants are exact.  Arithmetic is
 * exact while it stays inside the node's type; a result that could wrap
 * gets the whole range of its type, so every interval holds whatever value
 * numba's int64 (or narrower) semantics gives.
 *
 * The result is Node.rknown/rlo/rhi on every integer or bool expression
 * that is reached (unreached code keeps rknown false), or for a kernel's
 * 32-bit variant a table beside the tree (range_func_i32 until
 * range_i32_end; the printers read either through range_of).  They use
 * it to drop negative-index wraparound where an index is >= 0, to print
 * floor division and modulo as C's where both operands are >= 0, and to
 * do index arithmetic in 32 bits where every intermediate value fits; the
 * values never change, only how they are computed.
 */
#include "kernc.h"

#include <stdlib.h>
#include <string.h>

/* An interval of values; ok false: nothing known (any value of the type). */
typedef struct Iv {
    int64_t lo, hi;
    bool ok;
} Iv;

#define MAX_FACTS 8
typedef struct Env {
    Iv *v;          /* by slot: parameters, then locals */
    bool dead;      /* unreachable */
    /* relations a >= b between two variables (slots), from conditions
     * such as `if tx >= offset:`, so that tx - offset is >= 0 */
    int ge[MAX_FACTS][2];
    int nge;
} Env;

typedef struct Loop {
    Env brk, cont;
    struct Loop *up;
} Loop;

typedef struct RA {
    Func *f;
    int nslots;
    int gen;
    Loop *loop;
    long steps;     /* statements taken, against RANGE_BUDGET */
    bool gave_up;
} RA;

/* Loops nested deeply take several rounds each, multiplied: past this many
 * statements a function's analysis stops and all its intervals are
 * forgotten (the printers then print the general code), so that the pass
 * stays linear in practice whatever the input. */
#define RANGE_BUDGET 20000L

static int range_gen;

/* speed (issue 7): the 32-bit variant's intervals (range_func_i32) are
 * kept aside, by node, until range_i32_end: the tree keeps the general
 * ones, so printing the variant writes no node (nor a page of the tree
 * that a fork()ed printer shares, emit_host.c), and the general intervals
 * need no saving and restoring.  A node the variant's analysis did not
 * reach reads as unknown, with the bounds the tree holds (as a node the
 * analysis forgot).  Open addressing by the node's address; emptied for
 * each kernel. */
typedef struct AsideFact {
    const Node *n;         /* the entry's node, if gen is the table's */
    int64_t lo, hi;
    unsigned gen;
    bool known;
} AsideFact;

static struct {
    AsideFact *v;
    size_t cap, len;
    unsigned gen;          /* emptied: a new generation, not a memset */
} aside = {.gen = 1};

#define ASIDE_USED(i) (aside.v[i].gen == aside.gen)

bool range_aside;

static size_t aside_hash(const Node *n)
{
    uint64_t h = (uint64_t)(uintptr_t)n * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(h >> 32) & (aside.cap - 1);
}

static void aside_grow(void)
{
    AsideFact *old = aside.v;
    size_t oldcap = aside.cap;
    aside.cap = oldcap ? 2 * oldcap : 1024;
    aside.v = calloc(aside.cap, sizeof *aside.v);
    if (!aside.v)
        die("out of memory (%zu range facts)", aside.cap);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].gen == aside.gen) {
            size_t h = aside_hash(old[i].n);
            while (ASIDE_USED(h))
                h = (h + 1) & (aside.cap - 1);
            aside.v[h] = old[i];
        }
    free(old);
}

/* n's entry; a new one (its gen the table's, n set) if it had none:
 * *fresh says which */
static AsideFact *aside_slot(const Node *n, bool *fresh)
{
    if (2 * (aside.len + 1) > aside.cap)
        aside_grow();
    size_t h = aside_hash(n);
    while (ASIDE_USED(h) && aside.v[h].n != n)
        h = (h + 1) & (aside.cap - 1);
    *fresh = !ASIDE_USED(h);
    if (*fresh) {
        aside.v[h] = (AsideFact){.n = n, .gen = aside.gen};
        aside.len++;
    }
    return &aside.v[h];
}

RangeIv range_aside_get(const Node *n)
{
    if (aside.cap) {
        size_t h = aside_hash(n);
        for (; ASIDE_USED(h); h = (h + 1) & (aside.cap - 1))
            if (aside.v[h].n == n)
                return (RangeIv){aside.v[h].lo, aside.v[h].hi, aside.v[h].known};
    }
    return (RangeIv){n->rlo, n->rhi, false};
}

static void aside_clear(void)
{
    if (aside.len && ++aside.gen == 0) {   /* wrapped: clear for real */
        memset(aside.v, 0, sizeof *aside.v * aside.cap);
        aside.gen = 1;
    }
    aside.len = 0;
}

/* issue 11: the 32-bit variant of a kernel (range_func_i32).  Its launch
 * is checked by krt_launch_fits32 (runtime/krt.c): gridDim.x * blockDim.x
 * <= 2^30 and gridDim.x <= 2^24, and for every array parameter that the
 * kernel never rebinds, each extent < 2^30 and each stride in int32.  So
 * cuda.grid(1) < 2^30 and i < a.size < 2^30: a sum of two such values
 * still fits in int32.  NULL outside range_func_i32. */
static Func *i32_func;
#define I32_EXTENT (INT64_C(1) << 30)
#define I32_BLOCKS (INT64_C(1) << 24)

static const Iv TOP = {0, 0, false};

/* The values of an integer (or bool) scalar type; false for uint64 (whose
 * values do not all fit the int64 intervals) and other types. */
bool range_type_bounds(const Type *t, int64_t *lo, int64_t *hi)
{
    if (!t || !ty_is_scalar(t))
        return false;
    const ScalarInfo *i = ty_info(t);
    if (i->cls == SC_BOOL) {
        *lo = 0, *hi = 1;
        return true;
    }
    if (i->cls != SC_SINT && i->cls != SC_UINT)   /* floats, float16, complex */
        return false;
    int bits = i->size * 8;
    if (i->cls == SC_SINT) {
        *lo = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
        *hi = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
        return true;
    }
    if (bits == 64)
        return false;
    *lo = 0, *hi = (INT64_C(1) << bits) - 1;
    return true;
}

static Iv iv(int64_t lo, int64_t hi)
{
    Iv r = {lo, hi, true};
    return r;
}

static Iv top_of(const Type *t)
{
    int64_t lo, hi;
    return range_type_bounds(t, &lo, &hi) ? iv(lo, hi) : TOP;
}

/* r as a value of type t: itself when it fits, else all of t. */
static Iv fit(Iv r, const Type *t)
{
    int64_t lo, hi;
    if (!range_type_bounds(t, &lo, &hi))
        return TOP;
    if (r.ok && r.lo >= lo && r.hi <= hi && r.lo <= r.hi)
        return r;
    return iv(lo, hi);
}

static Iv join(Iv a, Iv b)
{
    if (!a.ok || !b.ok)
        return TOP;
    return iv(a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
}

/* ------------------------------------------------------------------ */
/* Environments                                                        */
/* ------------------------------------------------------------------ */

static int slot_of(const RA *ra, const Var *v)
{
    if (!v)
        return -1;
    if (v->kind == VAR_PARAM && v->index >= 0 && v->index < ra->f->nparams &&
        ra->f->params[v->index] == v)
        return v->index;
    if (v->kind != VAR_PARAM && v->index >= 0 && v->index < ra->f->nlocals &&
        ra->f->locals[v->index] == v)
        return ra->f->nparams + v->index;
    return -1;
}

/* speed (issue 7): the environments of one function's analysis, from a
 * pool that the next function's analysis reuses (range_func starts it
 * over): they are many copies and die with the run, and from the arena
 * they were a tenth of the translator's memory. */
typedef struct PoolBlock {
    struct PoolBlock *next;
    size_t used, size;
    max_align_t data[];
} PoolBlock;

static PoolBlock *pool_first, *pool_cur;

enum { POOL_BLOCK = 1 << 20 };

static void *pool_alloc(size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    while (!pool_cur || pool_cur->size - pool_cur->used < n) {
        if (pool_cur && pool_cur->next) {
            pool_cur = pool_cur->next;
            pool_cur->used = 0;
            continue;
        }
        size_t size = n > POOL_BLOCK ? n : POOL_BLOCK;
        PoolBlock *b = malloc(sizeof *b + size);
        if (!b)
            die("out of memory (%zu bytes)", size);
        b->next = NULL;
        b->used = 0;
        b->size = size;
        if (pool_cur) {
            /* a big block: between the current one and the rest */
            b->next = pool_cur->next;
            pool_cur->next = b;
        } else {
            pool_first = b;
        }
        pool_cur = b;
    }
    void *p = (char *)pool_cur->data + pool_cur->used;
    pool_cur->used += n;
    memset(p, 0, n);
    return p;
}

static void pool_reset(void)
{
    pool_cur = pool_first;
    if (pool_cur)
        pool_cur->used = 0;
}

static Env env_new(const RA *ra)
{
    Env e = {0};
    e.v = pool_alloc(sizeof(Iv) * (size_t)(ra->nslots ? ra->nslots : 1));
    return e;
}

static Env env_copy(const RA *ra, const Env *s)
{
    Env e = env_new(ra);
    memcpy(e.v, s->v, sizeof(Iv) * (size_t)ra->nslots);
    e.dead = s->dead;
    memcpy(e.ge, s->ge, sizeof e.ge);
    e.nge = s->nge;
    return e;
}

static Env env_dead(const RA *ra)
{
    Env e = env_new(ra);
    e.dead = true;
    return e;
}

static bool has_fact(const Env *e, int a, int b)
{
    for (int i = 0; i < e->nge; i++)
        if (e->ge[i][0] == a && e->ge[i][1] == b)
            return true;
    return false;
}

/* a's relations that b has too */
static void facts_meet(Env *a, const Env *b)
{
    int k = 0;
    for (int i = 0; i < a->nge; i++)
        if (has_fact(b, a->ge[i][0], a->ge[i][1])) {
            a->ge[k][0] = a->ge[i][0];
            a->ge[k][1] = a->ge[i][1];
            k++;
        }
    a->nge = k;
}

/* a = a joined with b */
static void env_join(const RA *ra, Env *a, const Env *b)
{
    if (b->dead)
        return;
    if (a->dead) {
        memcpy(a->v, b->v, sizeof(Iv) * (size_t)ra->nslots);
        a->dead = false;
        memcpy(a->ge, b->ge, sizeof a->ge);
        a->nge = b->nge;
        return;
    }
    for (int i = 0; i < ra->nslots; i++)
        a->v[i] = join(a->v[i], b->v[i]);
    facts_meet(a, b);
}

/* Does a hold all of b? */
static bool env_holds(const RA *ra, const Env *a, const Env *b)
{
    if (b->dead)
        return true;
    if (a->dead)
        return false;
    for (int i = 0; i < ra->nslots; i++) {
        Iv x = a->v[i], y = b->v[i];
        if (!x.ok)
            continue;
        if (!y.ok || y.lo < x.lo || y.hi > x.hi)
            return false;
    }
    for (int i = 0; i < a->nge; i++)
        if (!has_fact(b, a->ge[i][0], a->ge[i][1]))
            return false;
    return true;
}

/* a widened by b: a bound that grew goes to the type's bound */
static void env_widen(const RA *ra, Env *a, const Env *b)
{
    if (b->dead)
        return;
    if (a->dead) {
        env_join(ra, a, b);
        return;
    }
    for (int i = 0; i < ra->nslots; i++) {
        Var *v = i < ra->f->nparams ? ra->f->params[i] : ra->f->locals[i - ra->f->nparams];
        Iv x = a->v[i], y = b->v[i];
        Iv t = top_of(v->type);
        if (!x.ok || !y.ok || !t.ok) {
            a->v[i] = TOP;
            continue;
        }
        if (y.lo < x.lo)
            x.lo = t.lo;
        if (y.hi > x.hi)
            x.hi = t.hi;
        a->v[i] = x;
    }
    facts_meet(a, b);
}

static Iv env_get(const RA *ra, const Env *e, const Var *v)
{
    int s = slot_of(ra, v);
    if (s < 0)
        return top_of(v ? v->type : NULL);
    Iv r = e->v[s];
    return r.ok ? r : top_of(v->type);
}

static void env_set(const RA *ra, Env *e, const Var *v, Iv r)
{
    int s = slot_of(ra, v);
    if (s < 0)
        return;
    e->v[s] = fit(r, v->type);
    int k = 0;   /* the relations of the old value go */
    for (int i = 0; i < e->nge; i++)
        if (e->ge[i][0] != s && e->ge[i][1] != s) {
            e->ge[k][0] = e->ge[i][0];
            e->ge[k][1] = e->ge[i][1];
            k++;
        }
    e->nge = k;
}

static Var *cmp_var(Node *n);

/* a >= b holds from now on */
static void add_fact(RA *ra, Env *e, Var *a, Var *b)
{
    int sa = slot_of(ra, a), sb = slot_of(ra, b);
    if (sa < 0 || sb < 0 || sa == sb || has_fact(e, sa, sb) || e->nge == MAX_FACTS)
        return;
    e->ge[e->nge][0] = sa;
    e->ge[e->nge][1] = sb;
    e->nge++;
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

static Iv rx(RA *ra, Env *e, Node *n);
static void refine(RA *ra, Env *e, Node *c, bool truth);

static void annotate(RA *ra, Node *n, Iv r)
{
    if (!r.ok)
        r = top_of(n->type);
    if (range_aside) {
        bool fresh;
        AsideFact *a = aside_slot(n, &fresh);
        if (!fresh && a->known && r.ok)
            r = join(r, iv(a->lo, a->hi));
        else if (!fresh && !a->known)
            r = TOP;
        a->known = r.ok;
        a->lo = r.lo;
        a->hi = r.hi;
        return;
    }
    if (n->rgen == ra->gen && n->rknown && r.ok)
        r = join(r, iv(n->rlo, n->rhi));
    else if (n->rgen == ra->gen && !n->rknown)
        r = TOP;
    n->rgen = ra->gen;
    n->rknown = r.ok;
    n->rlo = r.lo;
    n->rhi = r.hi;
}

static bool add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static bool sub_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }
static bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

static Iv iv_add(Iv a, Iv b)
{
    Iv r = {0, 0, true};
    if (!a.ok || !b.ok || !add_ok(a.lo, b.lo, &r.lo) || !add_ok(a.hi, b.hi, &r.hi))
        return TOP;
    return r;
}

static Iv iv_sub(Iv a, Iv b)
{
    Iv r = {0, 0, true};
    if (!a.ok || !b.ok || !sub_ok(a.lo, b.hi, &r.lo) || !sub_ok(a.hi, b.lo, &r.hi))
        return TOP;
    return r;
}

static Iv iv_mul(Iv a, Iv b)
{
    if (!a.ok || !b.ok)
        return TOP;
    int64_t p[4];
    if (!mul_ok(a.lo, b.lo, &p[0]) || !mul_ok(a.lo, b.hi, &p[1]) ||
        !mul_ok(a.hi, b.lo, &p[2]) || !mul_ok(a.hi, b.hi, &p[3]))
        return TOP;
    Iv r = iv(p[0], p[0]);
    for (int i = 1; i < 4; i++) {
        if (p[i] < r.lo)
            r.lo = p[i];
        if (p[i] > r.hi)
            r.hi = p[i];
    }
    return r;
}

/* Python's floor // and % (numba: x // 0 == x % 0 == 0) */
static Iv iv_floordiv(Iv a, Iv b)
{
    if (!a.ok || !b.ok || a.lo < 0)
        return TOP;
    if (b.lo >= 1)
        return iv(a.lo / b.hi, a.hi / b.lo);
    if (b.lo >= 0)   /* a zero divisor gives 0 */
        return iv(0, a.hi);
    return TOP;
}

static Iv iv_mod(Iv a, Iv b)
{
    if (!a.ok || !b.ok || b.lo < 0)
        return TOP;
    /* b >= 0: the result is in [0, b - 1], or 0 for b == 0; and <= a for
     * a >= 0 */
    int64_t hi = b.hi > 0 ? b.hi - 1 : 0;
    if (a.lo >= 0 && a.hi < hi)
        hi = a.hi;
    return iv(0, hi);
}

static Iv iv_neg(Iv a)
{
    if (!a.ok || a.lo == INT64_MIN)
        return TOP;
    return iv(-a.hi, -a.lo);
}

static int64_t pow2_above(int64_t x)   /* the smallest 2^k - 1 >= x >= 0 */
{
    int64_t m = 0;
    while (m < x && m < INT64_MAX / 2)
        m = m * 2 + 1;
    return m < x ? INT64_MAX : m;
}

static Iv rx_binop(RA *ra, Env *e, Node *n)
{
    Iv a = rx(ra, e, n->lhs), b = rx(ra, e, n->rhs);
    if (!ty_is_int(n->type) && !(n->type && n->type->kind == TY_BOOL))
        return TOP;
    switch (n->op) {
    case OP_ADD: return iv_add(a, b);
    case OP_SUB: {
        Iv r = iv_sub(a, b);
        Var *va = cmp_var(n->lhs), *vb = cmp_var(n->rhs);
        int sa = slot_of(ra, va), sb = slot_of(ra, vb);
        /* a - b with a >= b known */
        if (r.ok && sa >= 0 && sb >= 0 && has_fact(e, sa, sb) && r.lo < 0)
            r.lo = 0;
        return r;
    }
    case OP_MUL: return iv_mul(a, b);
    case OP_FLOORDIV: return iv_floordiv(a, b);
    case OP_MOD: return iv_mod(a, b);
    case OP_BITAND:
        if (a.ok && b.ok && a.lo >= 0 && b.lo >= 0)
            return iv(0, a.hi < b.hi ? a.hi : b.hi);
        if (a.ok && a.lo >= 0)
            return iv(0, a.hi);
        if (b.ok && b.lo >= 0)
            return iv(0, b.hi);
        return TOP;
    case OP_BITOR: case OP_BITXOR:
        if (a.ok && b.ok && a.lo >= 0 && b.lo >= 0)
            return iv(0, pow2_above(a.hi > b.hi ? a.hi : b.hi));
        return TOP;
    case OP_RSHIFT:
        if (a.ok && b.ok && a.lo >= 0 && b.lo >= 0 && b.hi < 64)
            return iv(a.lo >> b.hi, a.hi >> b.lo);
        return TOP;
    default:
        return TOP;
    }
}

/* The Dim3 rows: CUDA's limits, which krt_launch enforces on both backends. */
static Iv dim3_range(ApiId id)
{
    switch (id) {
    case API_TID_X: case API_TID_Y: return iv(0, 1023);
    case API_TID_Z: return iv(0, 63);
    case API_BDIM_X: case API_BDIM_Y: return iv(1, 1024);
    case API_BDIM_Z: return iv(1, 64);
    case API_BID_X: return iv(0, i32_func ? I32_BLOCKS - 1 : INT32_MAX - 1);
    case API_BID_Y: case API_BID_Z: return iv(0, 65534);
    case API_GDIM_X: return iv(1, i32_func ? I32_BLOCKS : INT32_MAX);
    case API_GDIM_Y: case API_GDIM_Z: return iv(1, 65535);
    case API_LANEID: return iv(0, 31);
    case API_WARPSIZE: return iv(32, 32);
    default: return TOP;
    }
}

/* Component c of cuda.grid / cuda.gridsize */
static Iv grid_range(bool size, int c)
{
    Iv bid = dim3_range((ApiId)(API_BID_X + c)), bdim = dim3_range((ApiId)(API_BDIM_X + c));
    Iv tid = dim3_range((ApiId)(API_TID_X + c)), gdim = dim3_range((ApiId)(API_GDIM_X + c));
    if (i32_func && c == 0)   /* the 32-bit variant: gridDim.x * blockDim.x <= 2^30 */
        return size ? iv(1, I32_EXTENT) : iv(0, I32_EXTENT - 1);
    return size ? iv_mul(bdim, gdim) : iv_add(iv_mul(bid, bdim), tid);
}

static void rx_list(RA *ra, Env *e, NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        rx(ra, e, l->items[i]);
}

static Iv rx_api(RA *ra, Env *e, Node *n)
{
    rx_list(ra, e, &n->args);
    ApiId id = api_id(n->api);
    Iv d = dim3_range(id);
    if (d.ok)
        return d;
    if ((id == API_GRID || id == API_GRIDSIZE) && n->type && n->type->kind != TY_TUPLE)
        return grid_range(id == API_GRIDSIZE, 0);
    if ((id == API_B_MIN || id == API_B_MAX) && ty_is_int(n->type) && n->args.len > 0) {
        Iv r = TOP;
        for (int i = 0; i < n->args.len; i++) {
            Node *a = n->args.items[i];
            RangeIv ar = range_of(a);
            Iv x = ar.known ? iv(ar.lo, ar.hi) : TOP;
            if (!x.ok)
                return TOP;
            if (i == 0)
                r = x;
            else if (id == API_B_MIN)
                r = iv(x.lo < r.lo ? x.lo : r.lo, x.hi < r.hi ? x.hi : r.hi);
            else
                r = iv(x.lo > r.lo ? x.lo : r.lo, x.hi > r.hi ? x.hi : r.hi);
        }
        return r;
    }
    if (id == API_B_ABS && ty_is_int(n->type) && n->args.len == 1) {
        RangeIv a = range_of(n->args.items[0]);
        if (!a.known || a.lo == INT64_MIN)
            return TOP;
        if (a.lo >= 0)
            return iv(a.lo, a.hi);
        int64_t m = -a.lo > a.hi ? -a.lo : a.hi;
        return iv(a.hi < 0 ? -a.hi : 0, m);
    }
    return TOP;
}

static Iv rx_kind(RA *ra, Env *e, Node *n)
{
    switch (n->kind) {
    case E_CONST:
        if (n->type && n->type->kind == TY_UINT64 && (int64_t)n->ival < 0)
            return TOP;
        if (ty_is_int(n->type) || (n->type && n->type->kind == TY_BOOL))
            return iv((int64_t)n->ival, (int64_t)n->ival);
        return TOP;
    case E_VAR:
        return env_get(ra, e, n->var);
    case E_CAST: {
        Iv a = rx(ra, e, n->lhs);
        if (n->lhs->type && n->lhs->type->kind == TY_BOOL)
            return iv(0, 1);
        if (ty_is_int(n->lhs->type) || (n->lhs->type && n->lhs->type->kind == TY_BOOL))
            return a;   /* fit() below: the whole target type where it wraps */
        return TOP;
    }
    case E_BINOP:
        return rx_binop(ra, e, n);
    case E_UNARY: {
        Iv a = rx(ra, e, n->lhs);
        if (n->op == OP_NEG && ty_is_int(n->type))
            return iv_neg(a);
        if (n->op == OP_NOT)
            return iv(0, 1);
        return TOP;
    }
    case E_COMPARE:
        rx_list(ra, e, &n->args);
        return iv(0, 1);
    case E_BOOLOP: {
        Iv a = rx(ra, e, n->lhs);
        Env r = env_copy(ra, e);
        refine(ra, &r, n->lhs, n->op == OP_AND);
        Iv b = r.dead ? a : rx(ra, &r, n->rhs);
        return join(a, b);
    }
    case E_IFEXP: {
        rx(ra, e, n->cond);
        Env t = env_copy(ra, e), f = env_copy(ra, e);
        refine(ra, &t, n->cond, true);
        refine(ra, &f, n->cond, false);
        Iv a = TOP, b = TOP;
        bool ta = !t.dead, fb = !f.dead;
        if (ta)
            a = rx(ra, &t, n->lhs);
        if (fb)
            b = rx(ra, &f, n->rhs);
        return ta && fb ? join(a, b) : ta ? a : fb ? b : TOP;
    }
    case E_API:
        return rx_api(ra, e, n);
    case E_TUPLEGET:
        rx(ra, e, n->lhs);
        if (n->lhs->kind == E_API &&
            (api_id(n->lhs->api) == API_GRID || api_id(n->lhs->api) == API_GRIDSIZE) &&
            n->ival < 3)
            return grid_range(api_id(n->lhs->api) == API_GRIDSIZE, (int)n->ival);
        return TOP;
    case E_SHAPE:
        rx(ra, e, n->lhs);
        if (i32_func && n->lhs->kind == E_VAR && range_i32_param(i32_func, n->lhs->var))
            return iv(0, I32_EXTENT - 1);
        return iv(0, INT64_MAX);
    case E_STRIDE:
        rx(ra, e, n->lhs);
        if (i32_func && n->lhs->kind == E_VAR && range_i32_param(i32_func, n->lhs->var))
            return iv(-INT32_MAX, INT32_MAX);
        return TOP;
    case E_LET: {
        Iv a = rx(ra, e, n->lhs);
        env_set(ra, e, n->var, a);
        return rx(ra, e, n->rhs);
    }
    default:
        if (n->lhs)
            rx(ra, e, n->lhs);
        if (n->rhs)
            rx(ra, e, n->rhs);
        if (n->cond)
            rx(ra, e, n->cond);
        rx_list(ra, e, &n->args);
        return TOP;
    }
}

static Iv rx(RA *ra, Env *e, Node *n)
{
    if (!n)
        return TOP;
    Iv r = rx_kind(ra, e, n);
    r = fit(r, n->type);
    if (n->type && (ty_is_int(n->type) || n->type->kind == TY_BOOL))
        annotate(ra, n, r);
    return r;
}

/* ------------------------------------------------------------------ */
/* Conditions                                                          */
/* ------------------------------------------------------------------ */

/* The variable an operand reads unchanged: an E_VAR, or one widened by
 * a value-preserving integer conversion. */
static Var *cmp_var(Node *n)
{
    while (n->kind == E_CAST && ty_is_int(n->type) && ty_is_int(n->lhs->type) &&
           (ty_is_signed(n->type) == ty_is_signed(n->lhs->type)
                ? ty_size(n->type) >= ty_size(n->lhs->type)
                : ty_is_signed(n->type) && ty_size(n->type) > ty_size(n->lhs->type)))
        n = n->lhs;
    return n->kind == E_VAR ? n->var : NULL;
}

static Op flip(Op op)   /* a op b == b flip(op) a */
{
    switch (op) {
    case OP_LT: return OP_GT;
    case OP_LE: return OP_GE;
    case OP_GT: return OP_LT;
    case OP_GE: return OP_LE;
    default: return op;
    }
}

static Op negate(Op op)
{
    switch (op) {
    case OP_LT: return OP_GE;
    case OP_LE: return OP_GT;
    case OP_GT: return OP_LE;
    case OP_GE: return OP_LT;
    case OP_EQ: return OP_NE;
    case OP_NE: return OP_EQ;
    default: return OP_NONE_;
    }
}

/* v op (a value in b) holds: narrow v */
static void narrow(RA *ra, Env *e, Var *v, Op op, Iv b)
{
    int s = slot_of(ra, v);
    if (s < 0 || !b.ok)
        return;
    Iv x = env_get(ra, e, v);
    if (!x.ok)
        return;
    switch (op) {
    case OP_LT: if (b.hi == INT64_MIN) { e->dead = true; return; } if (b.hi - 1 < x.hi) x.hi = b.hi - 1; break;
    case OP_LE: if (b.hi < x.hi) x.hi = b.hi; break;
    case OP_GT: if (b.lo == INT64_MAX) { e->dead = true; return; } if (b.lo + 1 > x.lo) x.lo = b.lo + 1; break;
    case OP_GE: if (b.lo > x.lo) x.lo = b.lo; break;
    case OP_EQ:
        if (b.lo > x.lo) x.lo = b.lo;
        if (b.hi < x.hi) x.hi = b.hi;
        break;
    default: return;
    }
    if (x.lo > x.hi)
        e->dead = true;
    else
        e->v[s] = x;
}

/* (v + c) op b or (v - c) op b, without wrapping: v op (b - c) or
 * v op (b + c) */
static void narrow_offset(RA *ra, Env *e, Node *x, Op op, Iv b)
{
    if (x->kind != E_BINOP || (x->op != OP_ADD && x->op != OP_SUB) || !b.ok)
        return;
    RangeIv xr = range_of(x);
    if (!xr.known)
        return;
    Node *c = x->rhs, *vn = x->lhs;
    Var *v = cmp_var(vn);
    if (!v && x->op == OP_ADD) {
        c = x->lhs, vn = x->rhs;
        v = cmp_var(vn);
    }
    if (!v)
        return;
    RangeIv cr = range_of(c), vr = range_of(vn);
    if (!cr.known || cr.lo != cr.hi || !vr.known)
        return;
    /* x did not wrap: its interval is the exact sum of the operands' */
    int64_t lo, hi, k = cr.lo;
    bool add = x->op == OP_ADD;
    if (!(add ? add_ok(vr.lo, k, &lo) && add_ok(vr.hi, k, &hi)
              : sub_ok(vr.lo, k, &lo) && sub_ok(vr.hi, k, &hi)) ||
        lo != xr.lo || hi != xr.hi)
        return;
    Iv s;
    if (add ? !sub_ok(b.lo, k, &s.lo) || !sub_ok(b.hi, k, &s.hi)
            : !add_ok(b.lo, k, &s.lo) || !add_ok(b.hi, k, &s.hi))
        return;
    s.ok = true;
    narrow(ra, e, v, op, s);
}

/* e narrowed by c being `truth` */
static void refine(RA *ra, Env *e, Node *c, bool truth)
{
    if (!c || e->dead)
        return;
    if (c->kind == E_UNARY && c->op == OP_NOT) {
        refine(ra, e, c->lhs, !truth);
        return;
    }
    if (c->kind == E_BOOLOP && c->type && c->type->kind == TY_BOOL) {
        if ((c->op == OP_AND) == truth) {   /* a and b true; a or b false */
            refine(ra, e, c->lhs, truth);
            refine(ra, e, c->rhs, truth);
        }
        return;
    }
    if (c->kind != E_COMPARE || c->args.len != 2 || !c->ops)
        return;
    Node *l = c->args.items[0], *r = c->args.items[1];
    if (!ty_is_int(l->type) || !ty_is_int(r->type))
        return;
    Op op = truth ? c->ops[0] : negate(c->ops[0]);
    if (op == OP_NONE_)
        return;
    /* the operands' intervals where the condition was evaluated */
    RangeIv lr = range_of(l), rr = range_of(r);
    Iv li = lr.known ? iv(lr.lo, lr.hi) : TOP, ri = rr.known ? iv(rr.lo, rr.hi) : TOP;
    Var *lv = cmp_var(l), *rv = cmp_var(r);
    if (lv && rv && (op == OP_GE || op == OP_GT))
        add_fact(ra, e, lv, rv);
    if (lv && rv && (op == OP_LE || op == OP_LT))
        add_fact(ra, e, rv, lv);
    if (lv)
        narrow(ra, e, lv, op, ri);
    else
        narrow_offset(ra, e, l, op, ri);
    if (rv)
        narrow(ra, e, rv, flip(op), li);
    else
        narrow_offset(ra, e, r, flip(op), li);
}

/* ------------------------------------------------------------------ */
/* Statements                                                          */
/* ------------------------------------------------------------------ */

static void rs_list(RA *ra, Env *e, NodeList *l);

static void rs_loop_body(RA *ra, Env *b, Node *s, Loop *lp)
{
    lp->up = ra->loop;
    lp->brk = env_dead(ra);
    lp->cont = env_dead(ra);
    ra->loop = lp;
    rs_list(ra, b, &s->body);
    ra->loop = lp->up;
    env_join(ra, b, &lp->cont);
}

/* One round of a loop's fixpoint: the head's next state is the entry (e)
 * joined with the end of the body (b); true when the head already holds
 * it, else the head grows to it (widened to the type's bounds after two
 * rounds, so that the rounds end). */
static bool loop_step(RA *ra, Env *e, Env *head, Env *b, int round)
{
    Env next = env_copy(ra, e);
    env_join(ra, &next, b);
    if (env_holds(ra, head, &next))
        return true;
    if (round >= 2)
        env_widen(ra, head, &next);
    else
        env_join(ra, head, &next);
    if (round > 40)   /* widening ends it long before */
        die("range: no fixpoint");
    return false;
}

static void rs_while(RA *ra, Env *e, Node *s)
{
    Env head = env_copy(ra, e);
    Loop lp;
    for (int round = 0;; round++) {
        Env b = env_copy(ra, &head);
        rx(ra, &b, s->cond);
        refine(ra, &b, s->cond, true);
        rs_loop_body(ra, &b, s, &lp);
        if (loop_step(ra, e, &head, &b, round))
            break;
    }
    Env out = env_copy(ra, &head);
    refine(ra, &out, s->cond, false);
    env_join(ra, &out, &lp.brk);
    *e = out;
}

/* for var in range(start, stop, step) */
static void rs_forrange(RA *ra, Env *e, Node *s)
{
    Iv st = rx(ra, e, s->args.items[0]);
    Iv sp = rx(ra, e, s->args.items[1]);
    Iv sc = rx(ra, e, s->args.items[2]);
    Type *rt = s->it ? s->it->type : NULL;
    Iv it = TOP, lim;
    int64_t t;
    Iv tr = top_of(rt);
    /* it stays between start and stop while it += step cannot wrap */
    if (st.ok && sp.ok && sc.ok && tr.ok && sc.lo >= 1 && sp.hi > INT64_MIN &&
        add_ok(sp.hi - 1, sc.hi, &t) && t <= tr.hi)
        it = iv(st.lo, sp.hi - 1);
    else if (st.ok && sp.ok && sc.ok && tr.ok && sc.hi <= -1 && sp.lo < INT64_MAX &&
             add_ok(sp.lo + 1, sc.lo, &t) && t >= tr.lo)
        it = iv(sp.lo + 1, st.hi);
    if (it.ok && it.lo > it.hi)
        it = iv(it.lo, it.lo);   /* an empty range: the body is not run */
    lim = fit(it, rt);
    Env before = env_copy(ra, e);
    Env head = env_copy(ra, e);
    Loop lp;
    for (int round = 0;; round++) {
        Env b = env_copy(ra, &head);
        env_set(ra, &b, s->it, lim);
        env_set(ra, &b, s->var, s->var ? fit(lim, s->var->type) : TOP);
        rs_loop_body(ra, &b, s, &lp);
        if (loop_step(ra, e, &head, &b, round))
            break;
    }
    Env out = env_copy(ra, &head);
    env_join(ra, &out, &lp.brk);
    if (!out.dead) {
        /* the variable: untouched, or a value of the range */
        Iv v = join(env_get(ra, &out, s->var), join(env_get(ra, &before, s->var),
                                                     s->var ? fit(lim, s->var->type) : TOP));
        env_set(ra, &out, s->var, v);
        env_set(ra, &out, s->it, TOP);
    }
    *e = out;
}

static void rs(RA *ra, Env *e, Node *s)
{
    if (e->dead)
        return;
    if (ra->gave_up || ++ra->steps > RANGE_BUDGET) {
        ra->gave_up = true;
        e->dead = true;   /* ends every loop at once */
        return;
    }
    switch (s->kind) {
    case S_EXPR:
        rx(ra, e, s->lhs);
        break;
    case S_ASSIGN: {
        Iv v = rx(ra, e, s->rhs);
        for (int i = 0; i < s->args.len; i++) {
            Node *t = s->args.items[i];
            if (t->kind == E_VAR)
                env_set(ra, e, t->var, v);
            else
                rx(ra, e, t);
        }
        break;
    }
    case S_IF: {
        rx(ra, e, s->cond);
        Env t = env_copy(ra, e), f = env_copy(ra, e);
        refine(ra, &t, s->cond, true);
        refine(ra, &f, s->cond, false);
        rs_list(ra, &t, &s->body);
        rs_list(ra, &f, &s->orelse);
        env_join(ra, &t, &f);
        *e = t;
        break;
    }
    case S_WHILE:
        rs_while(ra, e, s);
        break;
    case S_FORRANGE:
        rs_forrange(ra, e, s);
        break;
    case S_BREAK:
    case S_CONTINUE:
        if (ra->loop)
            env_join(ra, s->kind == S_BREAK ? &ra->loop->brk : &ra->loop->cont, e);
        e->dead = true;
        break;
    case S_RETURN:
        rx(ra, e, s->lhs);
        e->dead = true;
        break;
    case S_BARRIER:
        rx(ra, e, s->lhs);
        if (s->rhs && s->rhs->kind == E_VAR)
            env_set(ra, e, s->rhs->var, TOP);
        break;
    case S_WARPOP:
        rx_list(ra, e, &s->args);
        if (s->lhs && s->lhs->kind == E_VAR)
            env_set(ra, e, s->lhs->var, TOP);
        break;
    case S_PRINT:
        rx_list(ra, e, &s->args);
        break;
    case S_ASSERT:
        rx(ra, e, s->cond);
        break;
    default:
        break;
    }
}

static void rs_list(RA *ra, Env *e, NodeList *l)
{
    for (int i = 0; i < l->len && !e->dead; i++)
        rs(ra, e, l->items[i]);
}

static Visit forget(const Node *n, void *ctx)
{
    (void)ctx;
    ((Node *)n)->rknown = false;
    return VISIT_CHILDREN;
}

/* ---- the 32-bit variant (issue 11) ---- */

/* The parameters of f that its body rebinds, found by one walk and kept
 * for the function last asked about (the printers ask once per array
 * access; the typed tree no longer changes then). */
typedef struct Rebound {
    const Func *f;
    Node **items;      /* f->def->body when it was walked */
    int len;
    bool *hit;         /* by parameter index */
} Rebound;

static Rebound rebound;

static void mark_param(Rebound *r, const Var *v)
{
    if (v && v->kind == VAR_PARAM && v->index >= 0 && v->index < r->f->nparams &&
        r->f->params[v->index] == v)
        r->hit[v->index] = true;
}

/* an assignment target that binds a parameter (an element store a[i] = x
 * does not; a tuple target may) */
static void mark_binds(Rebound *r, const Node *t)
{
    if (t->kind == E_VAR)
        mark_param(r, t->var);
    if (t->kind == E_TUPLE)
        for (int i = 0; i < t->args.len; i++)
            mark_binds(r, t->args.items[i]);
}

static Visit rebind_visit(const Node *n, void *ctx)
{
    Rebound *r = ctx;
    if (n->kind == S_ASSIGN)
        for (int i = 0; i < n->args.len; i++)
            mark_binds(r, n->args.items[i]);
    if (n->kind == S_AUGASSIGN && n->lhs && n->lhs->kind == E_VAR)
        mark_param(r, n->lhs->var);
    if (n->kind == E_LET)
        mark_param(r, n->var);
    return VISIT_CHILDREN;
}

static const bool *rebound_params(const Func *f)
{
    Rebound *r = &rebound;
    if (r->f == f && r->items == f->def->body.items && r->len == f->def->body.len)
        return r->hit;
    free(r->hit);
    r->f = f;
    r->items = f->def->body.items;
    r->len = f->def->body.len;
    r->hit = calloc((size_t)(f->nparams ? f->nparams : 1), sizeof *r->hit);
    if (!r->hit)
        die("out of memory");
    for (int i = 0; i < f->def->body.len; i++)
        node_walk(f->def->body.items[i], rebind_visit, r);
    return r->hit;
}

/* v is an array parameter of kernel f in global memory that f never
 * rebinds: its extents and strides are the ones krt_launch_fits32 checks. */
bool range_i32_param(const Func *f, const Var *v)
{
    if (!f || !f->is_kernel || !v || v->kind != VAR_PARAM || v->index < 0 || v->index >= f->nparams ||
        f->params[v->index] != v)
        return false;
    const Type *t = v->type;
    if (!t || t->kind != TY_ARRAY || t->space != SPACE_GLOBAL)
        return false;
    return !rebound_params(f)[v->index];
}

void range_func(Func *f)
{
    RA ra = {0};
    pool_reset();
    ra.f = f;
    ra.nslots = f->nparams + f->nlocals;
    ra.gen = ++range_gen;
    if (range_aside)
        aside_clear();
    else
        for (int i = 0; i < f->def->body.len; i++)   /* a previous run's */
            node_walk(f->def->body.items[i], forget, NULL);
    Env e = env_new(&ra);
    for (int i = 0; i < f->nparams; i++)
        e.v[i] = top_of(f->params[i]->type);
    /* locals start at 0 (the printers zero them) but are always assigned
     * before they are read in the typed tree; all of the type is safe */
    for (int i = 0; i < f->nlocals; i++)
        e.v[f->nparams + i] = top_of(f->locals[i]->type);
    rs_list(&ra, &e, &f->def->body);
    if (ra.gave_up && range_aside) {
        for (size_t i = 0; i < aside.cap; i++)
            if (ASIDE_USED(i))
                aside.v[i].known = false;
    } else if (ra.gave_up) {
        for (int i = 0; i < f->def->body.len; i++)
            node_walk(f->def->body.items[i], forget, NULL);
    }
}

/* The intervals of kernel f under the launch conditions of its 32-bit
 * variant (i32_func), aside from the tree's until range_i32_end. */
void range_func_i32(Func *f)
{
    range_aside = true;
    i32_func = f;
    range_func(f);
    i32_func = NULL;
}

void range_i32_end(void)
{
    range_aside = false;
    aside_clear();
}

/* ---- the pre-check of the 32-bit variant ----
 * The variant's text differs from the general kernel's only where a node's
 * interval differs, or where a parameter that range_i32_param covers is a
 * strided array (its indexing takes krt_mul_wide): the printers read
 * nothing else of the variant. */
static Visit same_fact(const Node *n, void *ctx)
{
    RangeIv k = range_aside_get(n);
    if (k.known != n->rknown || (k.known && (k.lo != n->rlo || k.hi != n->rhi))) {
        *(bool *)ctx = false;
        return VISIT_STOP;
    }
    return VISIT_CHILDREN;
}

bool range_i32_matters(const Func *f)
{
    for (int i = 0; i < f->nparams; i++)
        if (range_i32_param(f, f->params[i]) && !f->params[i]->type->contiguous)
            return true;
    bool same = true;
    for (int i = 0; i < f->def->body.len && same; i++)
        node_walk(f->def->body.items[i], same_fact, &same);
    return !same;
}

void range_program(Program *p)
{
    free(rebound.hit);   /* of an earlier translation */
    rebound = (Rebound){0};
    range_i32_end();
    for (int i = 0; i < p->nfuncs; i++)
        range_func(p->funcs[i]);
}
