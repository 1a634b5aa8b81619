/*
 * emit_expr.c - the printer both targets share: C names for user names,
 * C types, expressions, and the statements of one thread.
 *
 * Python's meaning is kept exactly by spelling every operation whose C
 * meaning differs (wrapping integer arithmetic, floor division, `**`,
 * shifts, float-to-int conversion, atomics) through the inline helpers of
 * runtime/kernrt_device.h, which work in CUDA and in C alike.  What only
 * one target needs lives in emit_cuda.c and emit_cpu.c (emit.h lists the
 * files).
 */
#include "emit.h"
#include "kernrt_half.h"   /* float16 literals: krt_half_bits_from_double */
#include "kernrt_bfloat16.h"   /* bfloat16 literals (src/bf16.c) */

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

/* The emitter's own per-function names, which user and hidden variables
 * must not take. */
static const char *const emit_internal_names[] = {
    "krt_b", "krt_args", "krt_tid", "krt_t", "krt_f", "krt_fr", "krt_s",
    "krt_go", "krt_c", "krt_next", "krt_dynshared", "krt_sinkv", "krt_nt", "krt_w",
    "krt_l", "krt_wn", "krt_act", "krt_bal", "krt_red", "krt_nred", "krt_src",
    "krt_rp",
};

/* ------------------------------------------------------------------ */

/* One line at the current indentation. */
void outf(Emitter *E, const char *fmt, ...)
{
    static const char spaces[] = "                                                                ";
    va_list ap;
    for (int left = 4 * E->indent; left > 0; left -= (int)sizeof spaces - 1)
        sb_putn(E->out, spaces, left < (int)sizeof spaces - 1 ? (size_t)left : sizeof spaces - 1);
    va_start(ap, fmt);
    sb_vprintf(E->out, fmt, ap);
    va_end(ap);
    sb_putc(E->out, '\n');
}

void emit_lineno(Emitter *E, Loc loc)
{
    if (loc.first_line <= 0)
        return;
    /* "#line %d \"%s\"\n" without the formatter: one per statement */
    char num[16];
    int i = (int)sizeof num;
    for (unsigned v = (unsigned)loc.first_line; v; v /= 10)
        num[--i] = (char)('0' + v % 10);
    sb_putn(E->out, "#line ", 6);
    sb_putn(E->out, num + i, sizeof num - (size_t)i);
    sb_putn(E->out, E->line_tail, E->line_tail_len);
}

/* A construct the CPU backend cannot run: an error for --target c, else a
 * warning and a CUDA-only kernel (its descriptor's .cpu is NULL). */
void cpu_unsupported(Emitter *E, Loc loc, const char *msg)
{
    if (E->mode != MODE_CPU)
        return;
    if (!E->cpu_failed) {
        E->cpu_failed = true;
        E->cpu_fail_loc = loc;
        E->cpu_fail_msg = msg;
    }
}

/* ------------------------------------------------------------------ */
/* Types                                                               */
/* ------------------------------------------------------------------ */


static int t_bits(const Type *t)
{
    return t_scalar(t) ? ty_info(t)->size * 8 : 0;
}

/* Helper suffix: krt_add_i64, krt_floordiv_f32, ... */
const char *t_suffix(const Type *t)
{
    return t_scalar(t) ? ty_info(t)->sfx : "?";
}

/* C's suffix of a floating type's <math.h> functions: sqrtf. */
const char *t_libm(const Type *t)
{
    return ty_info(t)->fsfx;
}

/* Vector types (vecrec): CUDA code spells them as CUDA does (float4,
 * make_float4); the CPU code, and the 64-bit four-element types whose CUDA
 * names CUDA 13 deprecates, by kernrt_vector.h's krt_float4 (CUDA's own type
 * under nvcc, so that the two meet in one .cu file).  func_begin sets the
 * mode. */
static bool vec_cuda_names;

static const char *vec_spell(const Type *t, bool make)
{
    const char *k = make ? ty_vector_make(t) : ty_vector_cname(t);
    bool deprecated = t->nelems == 4 && ty_size(t->elem) == 8;
    return vec_cuda_names && !deprecated ? k + 4 : k;
}

const char *t_c(const Type *t)
{
    if (!t)
        return "void";
    if (t_scalar(t))
        return ty_info(t)->cname;
    switch (t->kind) {
    case TY_ARRAY: return "krt_view";
    case TY_TUPLE: return tuple_cname(t);
    case TY_VECTOR: return vec_spell(t, false);   /* vecrec: float4 */
    case TY_RECORD: return arena_printf("krt_recp_%s", t->rec->cname + 8);   /* rec: a pointer */
    case TY_CHARSEQ: return charseq_cname(t);   /* str: the units, by value */
    default: return "void";
    }
}

/* rec: the C type of an array element or a struct member (a record's
 * struct itself; t_c otherwise). */
const char *t_elem(const Type *t)
{
    return t && t->kind == TY_RECORD ? t->rec->cname : t_c(t);
}

/* arr (issue 9): the member of element k of a tuple's struct: f<k>, or a
 * named tuple's field name (f<k> where C would not take it) */
const char *tuple_member(const Type *t, int k)
{
    if (t->tname && !c_name_reserved(t->fnames[k]) && strncmp(t->fnames[k], "krt_", 4) != 0)
        return t->fnames[k];
    return arena_printf("f%d", k);
}

const char *tuple_cname(const Type *t)
{
    StrBuf b = {0};
    if (t->tname)   /* arr: a named tuple, krt_nt_Point_i64_f64 */
        sb_printf(&b, "krt_nt_%s", c_ident(t->tname));
    else
        sb_puts(&b, "krt_tup");
    for (int i = 0; i < t->nelems; i++) {
        sb_putc(&b, '_');
        sb_puts(&b, t->elems[i]->kind == TY_TUPLE    ? tuple_cname(t->elems[i])
                    : t->elems[i]->kind == TY_VECTOR ? ty_code(t->elems[i])
                    : t->elems[i]->kind == TY_RECORD ? ty_code(t->elems[i])   /* arr */
                                                     : t_suffix(t->elems[i]));
    }
    return sb_take(&b);
}

/* krt_dtype enumerator of a scalar type or of the RNG state. */
const char *t_dtype(const Type *t)
{
    if (t && t->kind == TY_RNGSTATE)
        return "KRT_XOROSHIRO128P";
    if (t && t->kind == TY_RECORD)   /* rec: code 20 and the itemsize */
        return arena_printf("KRT_RECORD_DTYPE(%lld)", (long long)t->rec->size);
    if (ty_is_charseq(t))   /* str */
        return charseq_dtype_c(t);
    return t_scalar(t) ? ty_info(t)->dtype : "KRT_INT64";
}

static bool same_type(const Type *a, const Type *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    if (a->kind == TY_TUPLE) {
        if (a->nelems != b->nelems || !a->tname != !b->tname ||
            (a->tname && (strcmp(a->tname, b->tname) != 0 ||
                          strcmp(tuple_cname(a), tuple_cname(b)) != 0)))   /* arr */
            return false;
        for (int i = 0; a->tname && i < a->nelems; i++)
            if (strcmp(a->fnames[i], b->fnames[i]) != 0)
                return false;
        for (int i = 0; i < a->nelems; i++)
            if (!same_type(a->elems[i], b->elems[i]))
                return false;
        return true;
    }
    if (a->kind == TY_ARRAY)
        return a->ndim == b->ndim && a->contiguous == b->contiguous &&
               same_type(a->elem, b->elem);
    if (a->kind == TY_VECTOR)   /* interned */
        return false;
    return true;
}

/* ------------------------------------------------------------------ */
/* Pre-passes: tuple types, variable use, barriers                     */
/* ------------------------------------------------------------------ */

void note_tuple(Emitter *E, Type *t)
{
    if (!t || t->kind != TY_TUPLE)
        return;
    for (int i = 0; i < t->nelems; i++)
        note_tuple(E, t->elems[i]);     /* inner structs first */
    for (int i = 0; i < E->tuples.len; i++)
        if (same_type(E->tuples.items[i], t))
            return;
    vec_push(&E->tuples, t);
}

static Visit tuple_use(const Node *n, void *E)
{
    note_tuple(E, n->type);
    return VISIT_CHILDREN;
}

void walk_tuples(Emitter *E, Node *n)
{
    node_walk(n, tuple_use, E);
}

void program_tuples(Program *p)
{
    Emitter E = {0};
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        for (int k = 0; k < f->nparams; k++)
            note_tuple(&E, f->params[k]->type);
        for (int k = 0; k < f->nlocals; k++)
            note_tuple(&E, f->locals[k]->type);
        note_tuple(&E, f->ret);
        for (int k = 0; k < f->def->body.len; k++)
            walk_tuples(&E, f->def->body.items[k]);
    }
    p->tuples = E.tuples;
    p->tuples_done = true;
}

static void mark_read(Emitter *E, Var *v)
{
    if (v->kind == VAR_PARAM) {
        if (v->index >= 0 && v->index < E->fn->nparams)
            E->param_read[v->index] = true;
    } else if (v->index >= 0 && v->index < E->fn->nlocals) {
        E->local_read[v->index] = true;
    }
}

/* Which variables are read: unread locals get a (void) so
 * -Wunused-but-set-variable stays quiet.  (Assigned kernel parameters,
 * per-thread copies on the CPU, are lower_cpu's.) */
static Visit var_use(const Node *n, void *ctx);

/* The targets of an assignment: a name assigned is not read; an element
 * store reads its array and indices. */
static Visit var_target(const Node *n, void *ctx)
{
    if (n->kind == E_VAR && n->var)
        return VISIT_SKIP;
    node_walk(n, var_use, ctx);
    return VISIT_SKIP;
}

static bool compare_pure(const Node *n);
static int compare_pair_known(const Node *n, int i);

static Visit var_use(const Node *n, void *ctx)
{
    Emitter *E = ctx;
    if (n->kind == E_VAR && n->var) {
        mark_read(E, n->var);
        return VISIT_SKIP;
    }
    if (n->kind == E_COMPARE && compare_pure(n)) {
        /* the pairs compare_chain_known prints (none if one is false) */
        int decided = 0;
        for (int i = 0; i + 1 < n->args.len; i++) {
            int k = compare_pair_known(n, i);
            if (k == 0)
                return VISIT_SKIP;
            decided += k == 1;
        }
        if (!decided)
            return VISIT_CHILDREN;
        for (int i = 0; i + 1 < n->args.len; i++)
            if (compare_pair_known(n, i) < 0) {
                node_walk(n->args.items[i], var_use, E);
                node_walk(n->args.items[i + 1], var_use, E);
            }
        return VISIT_SKIP;
    }
    if (n->kind == S_ASSIGN) {
        for (int i = 0; i < n->args.len; i++)
            node_walk(n->args.items[i], var_target, E);
        node_walk(n->rhs, var_use, E);
        return VISIT_SKIP;
    }
    if (n->kind == S_FORRANGE) {
        Var *hidden[3] = {n->it, n->stop, n->step};
        for (int i = 0; i < 3; i++)
            if (hidden[i])
                mark_read(E, hidden[i]);
    }
    return VISIT_CHILDREN;
}

static void walk_uses(Emitter *E, Node *n, bool target)
{
    node_walk(n, target ? var_target : var_use, E);
}

/* Does this statement (or an expression in it) reach a barrier or a
 * warp-collective operation?  On the CPU those are where a kernel is cut
 * into regions (see the opening comment). */
static Visit barrier_or_warp(const Node *n, void *ctx)
{
    (void)ctx;
    if (n->kind == S_BARRIER || n->kind == S_WARPOP)
        return VISIT_STOP;
    if (n->kind == E_API && (api_has(n->api, AF_COLLECTIVE) || api_id(n->api) == API_SYNCTHREADS))
        return VISIT_STOP;
    if (n->kind == E_CALLFN && n->callee && (n->callee->has_barrier || n->callee->has_warpop))
        return VISIT_STOP;
    return VISIT_CHILDREN;
}

bool has_barrier(const Node *n)
{
    return node_walk(n, barrier_or_warp, NULL);
}

bool func_has_split(const Func *f)
{
    if (f->has_barrier || f->has_warpop)
        return true;
    for (int i = 0; i < f->def->body.len; i++)
        if (has_barrier(f->def->body.items[i]))
            return true;
    return false;
}

/* An emitter temporary or label: krt_tmpN, krt_skipN (a hidden variable or
 * a renamed user name never has that form: c_ident's names end with '_'). */
static bool is_emitter_numbered(const char *c)
{
    const char *d = strncmp(c, "krt_tmp", 7) == 0 ? c + 7 : strncmp(c, "krt_skip", 8) == 0 ? c + 8 : NULL;
    if (!d || !*d)
        return false;
    while (*d >= '0' && *d <= '9')
        d++;
    return *d == '\0';
}

/* C names for a function's variables: the user's names through c_ident
 * (mangle.c), unique in the function and apart from the emitter's own krt_
 * names. */
/* The C names taken in one function, by hash (a body of 16,000
 * assignments names 16,000 SSA versions). */
typedef struct NameSet {
    const char **tab;
    size_t cap, len;
} NameSet;

static bool nameset_has(const NameSet *s, const char *c)
{
    for (size_t h = str_hash_z(c) & (s->cap - 1); s->tab[h]; h = (h + 1) & (s->cap - 1))
        if (strcmp(s->tab[h], c) == 0)
            return true;
    return false;
}

static void nameset_add(NameSet *s, const char *c)
{
    size_t h = str_hash_z(c) & (s->cap - 1);
    while (s->tab[h])
        h = (h + 1) & (s->cap - 1);
    s->tab[h] = c;
    s->len++;
}

void name_vars(Func *f)
{
    size_t nint = sizeof emit_internal_names / sizeof emit_internal_names[0];
    NameSet used = {0};
    used.cap = 64;
    while (used.cap < 2 * ((size_t)f->nparams + (size_t)f->nlocals + nint) + 2)
        used.cap *= 2;
    used.tab = arena_alloc(sizeof *used.tab * used.cap);
    for (size_t i = 0; i < nint; i++)
        nameset_add(&used, emit_internal_names[i]);
    for (int pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? f->nparams : f->nlocals;
        Var **vs = pass == 0 ? f->params : f->locals;
        for (int i = 0; i < n; i++) {
            Var *v = vs[i];
            const char *base = v->kind == VAR_HIDDEN ? v->name : c_ident(v->name);
            if (strchr(base, '.')) {   /* type.c's SSA versions: "t.2" -> t_2 */
                char *b = arena_strdup(base);
                for (char *q = b; *q; q++)
                    if (*q == '.')
                        *q = '_';
                base = b;
            }
            /* "t.2" gave t_2, which may be a user's t_2 (or a hidden name
             * an emitter one): number on until it is free */
            const char *c = base;
            for (int k = 2; is_emitter_numbered(c) || nameset_has(&used, c); k++)
                c = arena_printf("%s_%d", base, k);
            v->cname = c;
            v->index = i;   /* as type.c numbers them; the emitter's arrays use it */
            nameset_add(&used, c);
        }
    }
}

/* A function's C name: c_ident of the user's name, with type.c's
 * "__codes" of later specialisations after it (f, f__f8); names that kernc
 * made (ufunc kernels) as they are. */
const char *fn_cname(const Func *f)
{
    const char *c = f->cname ? f->cname : f->name;
    if (f->c_named)
        return f->is_kernel ? module_sym(c) : c;   /* issue 13: --module-name */
    size_t n = strlen(f->name);
    const char *suffix = strncmp(c, f->name, n) == 0 ? c + n : "";
    const char *base = c_ident(f->name);
    if (f->is_kernel)
        base = module_sym(base);   /* issue 13: --module-name */
    return *suffix ? arena_printf("%s%s", base, suffix) : base;
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */


/* "(a < b)" -> "a < b" where the context brackets it anyway. */
const char *unparen(const char *s)
{
    if (s[0] != '(')
        return s;
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ')')
        return s;
    /* (speed: only these characters change what follows) */
    static const bool special[256] = {['('] = true, [')'] = true, ['"'] = true, [','] = true};
    int depth = 0;
    bool quoted = false;
    for (size_t i = 0; i < n; i++) {
        if (!special[(unsigned char)s[i]])
            continue;
        if (s[i] == '"' && (i == 0 || s[i - 1] != '\\'))
            quoted = !quoted;
        if (quoted)
            continue;
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0 && i < n - 1)
            return s;     /* "(a) + (b)": the first ')' closes early */
        if (depth == 1 && s[i] == ',')
            return s;     /* "(t = x, f(t))": the comma needs them */
    }
    return arena_strndup(s + 1, n - 2);
}

/* A condition, as the inside of if (...) / while (...). */
const char *ex_cond(Emitter *E, Node *n)
{
    if (ty_is_half16(n->type))   /* float16's (bfloat16's) truth: a helper */
        return unparen(ex_as(E, n, ty_bool));
    return unparen(ex(E, n));
}

static const char *new_tmp(Emitter *E, Type *t)
{
    if (E->ntmp == E->tmp_cap) {
        E->tmp_cap = E->tmp_cap ? 2 * E->tmp_cap : 8;
        Type **nt = arena_alloc(sizeof(Type *) * (size_t)E->tmp_cap);
        if (E->ntmp)
            memcpy(nt, E->tmp_types, sizeof(Type *) * (size_t)E->ntmp);
        E->tmp_types = nt;
    }
    E->tmp_types[E->ntmp] = t;
    return arena_printf("krt_tmp%d", E->ntmp++);
}

/* ---- Shared arrays of device functions on the CPU ----
 * CUDA gives a __shared__ array declared in a device function one instance
 * per block, the same for every call of the function from anywhere in the
 * kernel.  A device function that synchronises is inlined and its arrays
 * become members of the kernel's shared struct (lower_cpu.c); one that does
 * not is a C function run by one thread, so its arrays are gathered in a
 * `struct NAME__dshared`, the kernel's shared struct holds one member
 * krt_dsh_NAME of that type for each such function the kernel can reach,
 * and the C function receives a pointer to it as a hidden argument (after
 * krt_b and krt_tid), one per such function it reaches itself or through
 * its callees, so that it can pass them on.  dsh_funcs lists them in a
 * fixed order, which the parameter list and every call follow. */


bool func_has_shared(const Func *f)
{
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i]->kind == VAR_SHARED)
            return true;
    return false;
}

static bool vec_has(const PtrVec *v, const void *p)
{
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == p)
            return true;
    return false;
}

static void dsh_walk_list(const NodeList *l, PtrVec *out, PtrVec *seen);

static void dsh_walk_func(Func *g, PtrVec *out, PtrVec *seen)
{
    if (vec_has(seen, g))
        return;
    vec_push(seen, g);
    if (!g->is_kernel && !func_has_split(g) && func_has_shared(g))
        vec_push(out, g);
    dsh_walk_list(&g->def->body, out, seen);
}

static void dsh_walk(const Node *n, PtrVec *out, PtrVec *seen)
{
    if (!n)
        return;
    if (n->kind == E_CALLFN && n->callee)
        dsh_walk_func(n->callee, out, seen);
    dsh_walk(n->lhs, out, seen);
    dsh_walk(n->rhs, out, seen);
    dsh_walk(n->cond, out, seen);
    dsh_walk_list(&n->args, out, seen);
    dsh_walk_list(&n->body, out, seen);
    dsh_walk_list(&n->orelse, out, seen);
}

static void dsh_walk_list(const NodeList *l, PtrVec *out, PtrVec *seen)
{
    for (int i = 0; i < l->len; i++)
        dsh_walk(l->items[i], out, seen);
}

/* The non-synchronising device functions with shared arrays that a call of
 * g reaches: g itself first, then its callees, depth first. */
PtrVec dsh_funcs(Func *g)
{
    PtrVec out = {0}, seen = {0};
    dsh_walk_func(g, &out, &seen);
    return out;
}

/* A variable as an lvalue/rvalue in the current context; in a CPU
 * kernel where lower_cpu put it. */
const char *var_ref(Emitter *E, Var *v)
{
    if (E->cpu_vars)
        return E->cpu_hooks->var_ref(E, v);
    const char *c = v->cname ? v->cname : v->name;
    switch (v->kind) {
    case VAR_PARAM:
        return c;
    case VAR_SHARED:
        if (E->mode == MODE_CPU && E->fn->is_kernel)
            die("a CPU kernel's variable '%s' outside its form", v->name);
        if (E->mode == MODE_CPU)
            return arena_printf("krt_dsh_%s->%s", fn_cname(E->fn), c);
        return c;
    case VAR_DYNSHARED:
        return c;
    case VAR_CONSTARRAY:
        /* file-scope arrays: __constant__ for CUDA, static const for the CPU */
        return arena_printf(E->mode == MODE_CUDA ? "%s__%s" : "%s__%s_cpu", fn_cname(E->fn), c);
    case VAR_LOCAL:
    case VAR_LOCALARRAY:
    case VAR_HIDDEN:
        return c;
    }
    return c;
}

const char *fmt_int(const Type *t, uint64_t bits)
{
    int w = t_bits(t);
    if (t->kind == TY_BOOL)
        return bits ? "true" : "false";
    if (t_unsigned(t)) {
        if (w < 64)
            bits &= (UINT64_C(1) << w) - 1;
        if (w == 64)
            return bits > 0xffffffffu ? arena_printf("UINT64_C(%llu)", (unsigned long long)bits)
                                      : arena_printf("%lluu", (unsigned long long)bits);
        return arena_printf("%lluu", (unsigned long long)bits);
    }
    int64_t v = (int64_t)bits;
    if (w < 64)   /* sign-extend from the type's width */
        v = (int64_t)(bits << (64 - w)) >> (64 - w);
    if (v == INT64_MIN)
        return "INT64_MIN";
    if (v == INT32_MIN)
        return w == 64 ? "INT64_C(-2147483648)" : "INT32_MIN";
    if (v > INT32_MAX || v < INT32_MIN)
        return arena_printf("INT64_C(%lld)", (long long)v);
    return v < 0 ? arena_printf("(%lld)", (long long)v) : arena_printf("%lld", (long long)v);
}

/* A float constant of type t in C: the value rounded to t, printed with
 * enough digits to read back, with C's suffix of the type (kernrt_types.h's
 * digits and fsfx); C's NAN is a float, HUGE_VAL<SUFFIX> an infinity of
 * each type. */
/* speed: "%.*g" of v without stdio for the literals programs mostly have:
 * a multiple of 2^-k (k <= 16) in [1e-4, 1e15) with at most `digits`
 * significant digits, or +0.0, is printed by %g as its exact decimal;
 * false for any other value. */
static bool fmt_exact(char *buf, double v, int digits)
{
    if (signbit(v))
        return false;
    if (v == 0) {
        strcpy(buf, "0");
        return true;
    }
    if (!(v >= 1e-4 && v < 1e15))
        return false;
    int k = 0;
    double m = v;
    while (m != (double)(uint64_t)m) {
        if (++k > 16)
            return false;
        m *= 2;
    }
    uint64_t n = (uint64_t)m;      /* v = n / 2^k = n * 5^k / 10^k */
    for (int i = 0; i < k; i++) {
        if (n > UINT64_MAX / 5)
            return false;
        n *= 5;
    }
    char d[24];                    /* the digits of n, least significant first */
    int nd = 0;
    do
        d[nd++] = (char)('0' + n % 10);
    while ((n /= 10));
    int trail = 0;                 /* zeros at the end of the fraction */
    while (trail < k && d[trail] == '0')
        trail++;
    if (nd - trail > digits)       /* %g would round it */
        return false;
    char *p = buf;
    if (nd <= k) {                 /* 0.00ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < k - nd; i++)
            *p++ = '0';
    } else {
        for (int i = nd - 1; i >= k; i--)
            *p++ = d[i];
        if (trail < k)
            *p++ = '.';
    }
    for (int i = (nd <= k ? nd : k) - 1; i >= trail; i--)
        *p++ = d[i];
    *p = '\0';
    return true;
}

const char *fmt_float(const Type *t, double d)
{
    const ScalarInfo *info = ty_info(t);
    if (t->kind == TY_FLOAT16) {
        /* float16 (kernrt_fp16.h): the value as a float literal (exact) and
         * its bits */
        uint16_t bits = krt_half_bits_from_double(d);
        double v = (double)krt_half_bits_to_float(bits);
        return arena_printf("KRT_F16(%s, 0x%04x)", fmt_float(ty_float32, v), (unsigned)bits);
    }
    if (t->kind == TY_BFLOAT16) {   /* bfloat16 (kernrt_bf16.h): likewise */
        uint16_t bits = krt_bfloat16_bits_from_double(d);
        double v = (double)krt_bfloat16_bits_to_float(bits);
        return arena_printf("KRT_BF16(%s, 0x%04x)", fmt_float(ty_float32, v), (unsigned)bits);
    }
    bool is_float = strcmp(info->fsfx, "f") == 0;
    if (d != d)
        return is_float ? "NAN" : arena_printf("((%s)NAN)", info->cname);
    if (d > 1.79769313486231570815e308 || d < -1.79769313486231570815e308) {
        char inf[16] = "HUGE_VAL";
        for (size_t i = 0; info->fsfx[i] && i < 4; i++)
            inf[8 + i] = (char)toupper((unsigned char)info->fsfx[i]);
        return d > 0 ? arena_printf("%s", inf) : arena_printf("(-%s)", inf);
    }
    char buf[64];
    double v = is_float ? (double)(float)d : d;
    if (!fmt_exact(buf, v, info->digits))
        snprintf(buf, sizeof buf, "%.*g", info->digits, v);
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    return arena_printf(d < 0 || (d == 0 && buf[0] == '-') ? "(%s%s)" : "%s%s", buf, info->fsfx);
}

static const char *conv_complex(const char *s, const Type *from, const Type *to);
static const char *ex_complex(Emitter *E, Node *n);

/* Conversion of C expression s from type `from` to type `to`. */
const char *conv(const char *s, const Type *from, const Type *to)
{
    if (!to || !from || same_type(from, to) || !t_scalar(to) || !t_scalar(from))
        return s;
    /* suite: float16 to complex through float32 (exact, as numba-cuda's
     * cvt.f32.f16; typing refuses complex to a real type) */
    if (ty_is_half16(from) && ty_is_complex(to))
        return conv(conv(s, from, ty_float32), ty_float32, to);
    if (ty_is_half16(from) || ty_is_half16(to)) {
        /* float16 (kernrt_fp16.h), bfloat16 (kernrt_bf16.h): every
         * conversion is a helper */
        if (to->kind == TY_BOOL)
            return arena_printf("(krt_%s_to_f32(%s) != 0.0f)", t_suffix(from), s);
        if (ty_is_half16(to))
            return arena_printf("krt_%s_from_%s(%s)", t_suffix(to), t_suffix(from), s);
        if (t_int(to))
            return arena_printf("krt_cvt_%s_%s(%s)", t_suffix(to), t_suffix(from), s);
        return arena_printf("krt_%s_to_%s(%s)", t_suffix(from), t_suffix(to), s);
    }
    if (ty_is_complex(from) || ty_is_complex(to))
        return conv_complex(s, from, to);
    if (to->kind == TY_BOOL)
        return arena_printf("(%s != 0)", s);
    if (t_float(from) && t_int(to))
        return arena_printf("krt_cvt_%s_%s(%s)", t_suffix(to), t_suffix(from), s);
    return arena_printf("((%s)%s)", t_c(to), s);
}

const char *ex_as(Emitter *E, Node *n, const Type *to)
{
    if (to && to->kind == TY_RECORD)   /* rec: into a pointer slot, its address */
        return arena_printf("&(%s)", unparen(ex(E, n)));
    return conv(ex(E, n), n->type, to);
}

/* Is n printed as a plain name (a variable, or an inlined call's result
 * in a CPU kernel)?  Such need no brackets before `.` */
static bool is_name(const Emitter *E, const Node *n)
{
    return n->kind == E_VAR || (E->cpu_binds && E->cpu_hooks->bound(E, n));
}

/* The value of an integer constant expression: a constant, possibly
 * negated or converted (type.c does not fold `-1`). */
static bool const_int(const Node *n, int64_t *v)
{
    if (!n)
        return false;
    if (n->kind == E_CONST && t_int(n->type)) {
        *v = (int64_t)n->ival;
        return !(t_unsigned(n->type) && *v < 0);
    }
    if (n->kind == E_CAST && t_int(n->type) && t_int(n->lhs->type))
        return const_int(n->lhs, v) && t_bits(n->type) == 64;
    if (n->kind == E_UNARY && n->op == OP_NEG && t_signed(n->type) && const_int(n->lhs, v) &&
        *v != INT64_MIN) {
        *v = -*v;
        return true;
    }
    return false;
}

/* ---- --assume-noalias (the flags are emit_cuda.c's) ---- */
static bool noalias_param(const Emitter *E, const Var *v)
{
    return E->noalias_ptr && v && v->kind == VAR_PARAM && v->index >= 0 &&
           v->index < E->fn->nparams && E->fn->params[v->index] == v;
}

const char *noalias_data(const Emitter *E, const Var *v)
{
    if (!noalias_param(E, v) || !E->noalias_ptr[v->index])
        return NULL;
    return arena_printf("krt_rp_%s", v->cname ? v->cname : v->name);
}

bool noalias_readonly(const Emitter *E, const Var *v)
{
    return noalias_param(E, v) && E->noalias_ro[v->index];
}

/* ---- value ranges (range.c) ----
 * Where range.c proved an integer expression's interval, the printer
 * computes the same value more cheaply: no wraparound for an index >= 0,
 * C's division for non-negative operands, 32-bit arithmetic where every
 * intermediate value fits in int32 (so that C's int cannot overflow). */
static bool r_nonneg(const Node *n)
{
    return n && range_nonneg(n);
}

static bool r_fits32(const Node *n)
{
    if (!n)
        return false;
    RangeIv r = range_of(n);
    return r.known && r.lo >= INT32_MIN && r.hi <= INT32_MAX && t_int(n->type);
}

/* n's least value where it is known, else the tree's stale bound (as the
 * printers have always read it) */
static int64_t r_lo(const Node *n)
{
    return range_of(n).lo;
}

/* k where n is the integer constant 2^k > 0, else -1 */
static int pow2_exp(const Node *n)
{
    int64_t c;
    if (!const_int(n, &c) || c <= 0 || (c & (c - 1)) != 0)
        return -1;
    int k = 0;
    while ((INT64_C(1) << k) < c)
        k++;
    return k;
}

/* n (r_fits32) as a C int expression of the same value. */
static const char *ex_i32(Emitter *E, Node *n)
{
    bool bound = E->cpu_binds && E->cpu_hooks->bound(E, n);
    if (!bound && n->kind == E_CONST)
        return fmt_int(ty_int32, n->ival);
    if (!bound && n->kind == E_CAST && r_fits32(n->lhs))
        return ex_i32(E, n->lhs);
    if (!bound && n->kind == E_BINOP && r_fits32(n->lhs) && r_fits32(n->rhs)) {
        const char *op = n->op == OP_ADD ? "+" : n->op == OP_SUB ? "-" : n->op == OP_MUL ? "*" : NULL;
        int64_t c;
        int k = pow2_exp(n->rhs);
        if ((n->op == OP_FLOORDIV || n->op == OP_MOD) && k >= 0 && const_int(n->rhs, &c))
            return n->op == OP_MOD ? arena_printf("(%s & %lld)", ex_i32(E, n->lhs), (long long)(c - 1))
                                   : arena_printf("(%s >> %d)", ex_i32(E, n->lhs), k);
        /* non-negative operands: unsigned division, C's and Python's */
        if ((n->op == OP_FLOORDIV || n->op == OP_MOD) && r_nonneg(n->lhs) && r_lo(n->rhs) >= 1)
            return arena_printf("(int32_t)((uint32_t)%s %s (uint32_t)%s)", ex_i32(E, n->lhs),
                                n->op == OP_MOD ? "%" : "/", ex_i32(E, n->rhs));
        if (op)
            return arena_printf("(%s %s %s)", ex_i32(E, n->lhs), op, ex_i32(E, n->rhs));
    }
    const char *s = ex(E, n);
    if (t_signed(n->type) && t_bits(n->type) <= 32)
        return s;
    return arena_printf("(int32_t)%s", s);
}

/* An index expression, as int64, wrapped when it may be negative; under
 * debug (debug=True, -g) checked against the axis length (see
 * krt_ck_cpu in kernrt_device.h). */
static const char *index_expr(Emitter *E, Node *i, const char *len)
{
    int64_t v;
    if (E->debug) {
        const char *s = ex(E, i);
        bool u = t_unsigned(i->type);
        if (E->mode == MODE_CUDA)
            return arena_printf("krt_ck_dev%s(%s, %s, %d, \"%s\", %d)", u ? "_u" : "", s, len,
                                E->axis, E->base_file, E->line);
        return arena_printf("krt_ck_cpu%s(%s, %s, %d, \"%s\", %d, krt_b, krt_tid)", u ? "_u" : "",
                            s, len, E->axis, E->base_file, E->line);
    }
    if (const_int(i, &v)) {
        if (v >= 0)
            return arena_printf("%lld", (long long)v);
        return arena_printf("krt_wrap_index(%lld, %s)", (long long)v, len);
    }
    /* an index range.c proved >= 0 needs no wraparound; on the GPU 32-bit
     * arithmetic where it fits, on the CPU (issue 10, cpu) the index stays
     * int64, which x86-64 addressing takes as is and the C compiler's
     * induction variables can step (no sign extension per access) */
    if (r_nonneg(i) && r_fits32(i) && E->mode != MODE_CPU)
        return ex_i32(E, i);
    if (r_nonneg(i))
        return t_signed(i->type) ? ex(E, i) : arena_printf("(int64_t)%s", ex(E, i));
    const char *s = ex(E, i);
    if (t_signed(i->type) && !(E->mode == MODE_CPU && E->cpu_hooks && E->cpu_hooks->nonneg(E, i)))
        return arena_printf("krt_wrap_index(%s, %s)", s, len);
    return arena_printf("(int64_t)%s", s);
}

/* The number of elements of a dynamic shared array of element type t. */
static const char *dyn_len(Emitter *E, const Type *elem)
{
    if (E->mode == MODE_CUDA)
        return arena_printf("(int64_t)(krt_dynamic_smem_bytes() / sizeof(%s))", t_elem(elem));
    return arena_printf("(int64_t)(krt_b->dyn_shared_bytes / sizeof(%s))", t_elem(elem));
}

/* Arrays with a constant shape that are C arrays in the generated code. */
static bool is_c_array(const Var *v)
{
    return v && (v->kind == VAR_SHARED || v->kind == VAR_LOCALARRAY || v->kind == VAR_CONSTARRAY);
}

static const char *elem_ref_plain(Emitter *E, Node *arr, Node **idx, int nidx);

/* rec: the member of field n->ival of record n->lhs, `(lv).name` */
static const char *record_member(Emitter *E, Node *n)
{
    const RecField *f = &n->lhs->type->rec->fields[n->ival];
    if (n->lhs->kind == E_VAR)   /* a record variable: a pointer */
        return arena_printf("%s->%s", var_ref(E, n->lhs->var), c_ident(f->name));
    const char *lv = ex(E, n->lhs);
    return arena_printf(is_name(E, n->lhs) ? "%s.%s" : "(%s).%s", lv, c_ident(f->name));
}

/* rec: a field as a value: the member; a subarray field as a view of it */
static const char *record_field(Emitter *E, Node *n)
{
    const RecField *f = &n->lhs->type->rec->fields[n->ival];
    const char *m = record_member(E, n);
    if (f->ndim == 0)
        return m;
    if (f->ndim > 3) {
        error_at(n->loc, "a record subarray field of more than 3 dimensions can only be indexed");
        return "krt_view_make(NULL, 1, 0, 0, 0, 1)";
    }
    const char *len[3] = {"0", "0", "0"};
    for (int k = 0; k < f->ndim; k++)
        len[k] = arena_printf("%lld", (long long)f->shape[k]);
    return arena_printf("krt_view_make((void *)%s, %d, %s, %s, %s, (int64_t)sizeof(%s))", m,
                        f->ndim, len[0], len[1], len[2], t_elem(f->type));
}

/* The element of array expression `arr` at the given indices (an lvalue).
 * Checked accesses on the CPU go through krt_cpu_pick, which sends them to
 * a scratch sink once the launch has failed. */
static const char *elem_ref(Emitter *E, Node *arr, Node **idx, int nidx)
{
    int saved = E->line;
    int rc_kind = E->rc_kind;  /* the indices are reads (issue 13, --racecheck) */
    E->rc_kind = 0;
    if (E->debug)
        E->line = arr->loc.first_line;
    const char *s = elem_ref_plain(E, arr, idx, nidx);
    E->line = saved;
    E->rc_kind = rc_kind;
    if (E->debug && E->mode == MODE_CPU && arr->type && arr->type->kind == TY_ARRAY) {
        E->used_sink = true;
        const char *T = t_elem(arr->type->elem);
        if (E->opt && E->opt->racecheck) {
            /* issue 13 (hard): the race detector sees every checked access
             * (runtime/cpucheck.c keeps those to shared memory) */
            static const char *const kinds[] = {"KRT_RC_READ", "KRT_RC_WRITE", "KRT_RC_ATOMIC"};
            const char *name = arr->kind == E_VAR && arr->var
                                   ? arena_printf("\"%s\"", c_string(arr->var->name)) : "NULL";
            return arena_printf("(*(%s *)krt_rc_pick(krt_b, (void *)&%s, &krt_sinkv, sizeof(%s), "
                                "%s, krt_tid, %s, \"%s\", %d))", T, s, T, kinds[rc_kind], name,
                                E->base_file, arr->loc.first_line);
        }
        return arena_printf("(*(%s *)krt_cpu_pick(krt_b, (void *)&%s, &krt_sinkv))", T, s);
    }
    return s;
}

static const char *elem_ref_plain(Emitter *E, Node *arr, Node **idx, int nidx)
{
    Type *at = arr->type;
    if (!at || at->kind != TY_ARRAY) {
        error_at(arr->loc, "cannot index a value of this type");
        return "0";
    }
    const char *T = t_elem(at->elem);
    if (nidx != at->ndim) {
        error_at(arr->loc, "%d indices for a %d-dimensional array", nidx, at->ndim);
        return "0";
    }
    if (arr->kind == E_TUPLEGET && arr->lhs->type && arr->lhs->type->kind == TY_RECORD) {
        /* rec: a subarray field, indexed in place */
        const RecField *f = &arr->lhs->type->rec->fields[arr->ival];
        StrBuf b = {0};
        sb_puts(&b, record_member(E, arr));
        for (int k = 0; k < nidx; k++) {
            E->axis = k;
            sb_printf(&b, "[%s]", unparen(index_expr(E, idx[k], arena_printf("%lld", (long long)f->shape[k]))));
        }
        return sb_take(&b);
    }
    Var *v = arr->kind == E_VAR ? arr->var : NULL;
    if (is_c_array(v)) {
        StrBuf b = {0};
        sb_puts(&b, var_ref(E, v));
        for (int k = 0; k < nidx; k++) {
            E->axis = k;
            sb_printf(&b, "[%s]", unparen(index_expr(E, idx[k], arena_printf("%lld", (long long)v->shape[k]))));
        }
        return sb_take(&b);
    }
    E->axis = 0;
    if (v && v->kind == VAR_DYNSHARED)
        return arena_printf("%s[%s]", var_ref(E, v), index_expr(E, idx[0], dyn_len(E, at->elem)));
    /* a view: a parameter, or an array variable holding one */
    const char *a = ex(E, arr);
    if (!is_name(E, arr))
        a = arena_printf("(%s)", a);
    const char *data = noalias_data(E, v);
    if (!data)
        data = arena_printf("%s.data", a);
    StrBuf b = {0};
    if (at->contiguous) {
        /* ((i * shape1) + j) * shape2 + k */
        const char *lin = index_expr(E, idx[0], arena_printf("%s.shape[0]", a));
        for (int k = 1; k < nidx; k++) {
            E->axis = k;
            lin = arena_printf("%s * %s.shape[%d] + %s", k > 1 ? arena_printf("(%s)", lin) : lin,
                               a, k, index_expr(E, idx[k], arena_printf("%s.shape[%d]", a, k)));
        }
        sb_printf(&b, "((%s *)%s)[%s]", T, data, lin);
    } else {
        sb_printf(&b, "*(%s *)(%s", T, data);
        /* the 32-bit variant of a kernel (issue 11): a parameter's
         * strides fit in int32, an index that does too makes a 32 x 32
         * -> 64-bit product, which is exact (krt_mul_wide) */
        bool s32 = E->i32 && !E->debug && range_i32_param(E->fn, v);
        for (int k = 0; k < nidx; k++) {
            E->axis = k;
            int64_t c;
            const char *ix = index_expr(E, idx[k], arena_printf("%s.shape[%d]", a, k));
            if (s32 && (const_int(idx[k], &c) ? c >= 0 && c <= INT32_MAX : r_nonneg(idx[k]) && r_fits32(idx[k])))
                sb_printf(&b, " + krt_mul_wide(%s, (int32_t)%s.strides[%d])", unparen(ix), a, k);
            else
                sb_printf(&b, " + %s * %s.strides[%d]", ix, a, k);
        }
        sb_putc(&b, ')');
    }
    return sb_take(&b);
}

/* An array expression passed as a value (a device-function argument): a
 * view; shared, local and constant arrays get one made around them. */
const char *array_value(Emitter *E, Node *n)
{
    Var *v = n->kind == E_VAR ? n->var : NULL;
    if (!is_c_array(v) && !(v && v->kind == VAR_DYNSHARED))
        return ex(E, n);
    const Type *t = n->type;
    const char *len[3] = {"0", "0", "0"};
    for (int k = 0; k < t->ndim && k < 3; k++)
        len[k] = v->kind == VAR_DYNSHARED ? dyn_len(E, t->elem)
                                          : arena_printf("%lld", (long long)v->shape[k]);
    return arena_printf("krt_view_make((void *)%s, %d, %s, %s, %s, (int64_t)sizeof(%s))",
                        var_ref(E, v), t->ndim, len[0], len[1], len[2], t_elem(t->elem));
}

/* issue 9: a view, base[items]: a krt_view_slice / krt_view_index call per
 * dimension given (kernrt_device.h), the last dimension innermost, so that
 * the dimensions an integer drops are always after the one being cut. */
static const char *ex_view(Emitter *E, Node *n)
{
    const char *s = array_value(E, n->lhs);
    for (int k = n->args.len - 1; k >= 0; k--) {
        Node *x = n->args.items[k];
        if (x->kind != E_SLICE) {
            s = arena_printf("krt_view_index(%s, %d, %s)", s, k, unparen(ex(E, x)));
            continue;
        }
        if (!x->lhs && !x->rhs && !x->cond)
            continue;   /* ':' */
        s = arena_printf("krt_view_slice(%s, %d, %s, %s, %s, %d)", s, k,
                         x->lhs ? unparen(ex(E, x->lhs)) : "0",
                         x->rhs ? unparen(ex(E, x->rhs)) : "0",
                         x->cond ? unparen(ex(E, x->cond)) : "1",
                         (x->lhs ? 1 : 0) | (x->rhs ? 2 : 0));
    }
    return s;
}

/* issue 9: a.T / transpose, reshape, view(dtype) (kernrt_device.h) */
static const char *ex_arrayop(Emitter *E, Node *n)
{
    const char *a = array_value(E, n->lhs);
    const char *v[4] = {"0", "1", "2", "3"};   /* transpose: unused dimensions stay */
    for (int i = 0; i < n->args.len && i < 4; i++)
        v[i] = unparen(ex(E, n->args.items[i]));
    switch ((int)n->ival) {
    case AOP_TRANSPOSE:
        return arena_printf("krt_view_transpose(%s, %s, %s, %s, %s)", a, v[0], v[1], v[2], v[3]);
    case AOP_RESHAPE:
        return arena_printf("krt_view_reshape(%s, %d, %d, %s, %s, %s, (int64_t)sizeof(%s))", a,
                            n->lhs->type->ndim, n->args.len, v[0], v[1], v[2],
                            t_c(n->type->elem));
    case AOP_FIELD: {   /* rec */
        return arena_printf("krt_view_field(%s, %d, %d, %s, %s, %s, %s)", a, n->lhs->type->ndim,
                            n->type->ndim - n->lhs->type->ndim, v[0], v[1], v[2], v[3]);
    }
    default:
        return arena_printf("krt_view_dtype(%s, %d, %s, %s)", a, n->type->ndim, v[0], v[1]);
    }
}

const char *ex_shape(Emitter *E, Node *arr, int k)
{
    Var *v = arr->kind == E_VAR ? arr->var : NULL;
    if (is_c_array(v))
        return arena_printf("((int64_t)%lld)", (long long)v->shape[k]);
    if (v && v->kind == VAR_DYNSHARED)
        return dyn_len(E, arr->type->elem);
    const char *a = ex(E, arr);
    return arena_printf(is_name(E, arr) ? "%s.shape[%d]" : "(%s).shape[%d]", a, k);
}

/* issue 9: a.strides[k] in bytes; C-contiguous strides for the arrays
 * with a constant shape. */
static const char *ex_stride(Emitter *E, Node *arr, int k)
{
    Var *v = arr->kind == E_VAR ? arr->var : NULL;
    const Type *t = arr->type;
    if (is_c_array(v) || (v && v->kind == VAR_DYNSHARED)) {
        int64_t s = ty_size(t->elem);
        for (int d = k + 1; d < t->ndim; d++)
            s *= v->shape[d];
        return arena_printf("((int64_t)%lld)", (long long)s);
    }
    const char *a = ex(E, arr);
    return arena_printf(is_name(E, arr) ? "%s.strides[%d]" : "(%s).strides[%d]", a, k);
}

/* The type numba compares two different operand types in. */
static const Type *compare_type(const Type *a, const Type *b)
{
    if (same_type(a, b))
        return a;
    if (t_float(a) || t_float(b))
        return (a->kind == TY_FLOAT64 || b->kind == TY_FLOAT64 || t_int(a) || t_int(b))
                   ? ty_scalar[TY_FLOAT64] : ty_scalar[TY_FLOAT32];
    if (t_signed(a) == t_signed(b) || a->kind == TY_BOOL || b->kind == TY_BOOL)
        return t_bits(a) >= t_bits(b) ? a : b;
    /* mixed signedness: int64 holds both unless one is 64-bit unsigned */
    if ((t_unsigned(a) && t_bits(a) == 64) || (t_unsigned(b) && t_bits(b) == 64))
        return ty_scalar[TY_FLOAT64];
    return ty_scalar[TY_INT64];
}

static const char *cmp_op(Op op)
{
    switch (op) {
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    default: return NULL;
    }
}

/* `i == i`, `(i, 3) == (i, 3)`: the same pure integer operand on both
 * sides, which C compilers reject under -Werror=tautological-compare;
 * its value is known (floats are left alone: NaN != NaN). */
static bool self_compare(const Node *l, const Node *r, const Type *ct, const char *ls,
                         const char *rs)
{
    return (t_int(ct) || ct->kind == TY_BOOL) && strcmp(ls, rs) == 0 && tree_is_pure(l) &&
           tree_is_pure(r);
}

static const char *self_compare_value(int op)
{
    return op == OP_EQ || op == OP_LE || op == OP_GE ? "(1)" : "(0)";
}

/* The values integer operand n can take: its range, else its type's */
static bool operand_bounds(const Node *n, int64_t *lo, int64_t *hi)
{
    RangeIv r = range_of(n);
    if (r.known) {
        *lo = r.lo, *hi = r.hi;
        return true;
    }
    return range_type_bounds(n->type, lo, hi);
}

/* `u >= 0` for an unsigned u, `x % 4 == 7`, `b == 200` for an int8 b: an
 * integer comparison with a constant that the other operand's values
 * decide, which C compilers warn about (-Wtype-limits,
 * -Wtautological-compare).  1 or 0 when the other operand is pure and
 * both sides convert to the comparison's type ct unchanged; -1 otherwise. */
static int compare_known(const Node *l, int op, const Node *r, const Type *ct)
{
    int64_t c, lo, hi, tlo, thi;
    const Node *x = l;
    if (const_int(l, &c)) {   /* c op x: x op' c */
        x = r;
        op = op == OP_LT ? OP_GT : op == OP_GT ? OP_LT : op == OP_LE ? OP_GE : op == OP_GE ? OP_LE : op;
    } else if (!const_int(r, &c)) {
        return -1;
    }
    if (!range_type_bounds(ct, &tlo, &thi) || !t_int(x->type) || !operand_bounds(x, &lo, &hi) || lo < tlo || hi > thi || c < tlo || c > thi)
        return -1;
    switch (op) {
    case OP_EQ: return c < lo || c > hi ? 0 : lo == hi ? 1 : -1;
    case OP_NE: return c < lo || c > hi ? 1 : lo == hi ? 0 : -1;
    case OP_LT: return hi < c ? 1 : lo >= c ? 0 : -1;
    case OP_LE: return hi <= c ? 1 : lo > c ? 0 : -1;
    case OP_GT: return lo > c ? 1 : hi <= c ? 0 : -1;
    case OP_GE: return lo >= c ? 1 : hi < c ? 0 : -1;
    default: return -1;
    }
}

/* Are all operands of comparison n pure (so that a decided pair can go)? */
static bool compare_pure(const Node *n)
{
    for (int k = 0; k < n->args.len; k++)
        if (!tree_is_pure(n->args.items[k]))
            return false;
    return true;
}

/* Pair i of comparison n (chain or not), its operands all pure
 * (compare_pure): compare_known's answer */
static int compare_pair_known(const Node *n, int i)
{
    const Node *l = n->args.items[i], *r = n->args.items[i + 1];
    const Type *ct = compare_type(l->type, r->type);
    return cmp_op(n->ops[i]) && !ty_is_half16(ct) ? compare_known(l, n->ops[i], r, ct) : -1;
}

/* A comparison chain of pure operands with a pair compare_known decides:
 * the other pairs, each operand printed where it is used (no temporary
 * needed); NULL when no pair is decided.  (var_use marks as read only the
 * operands printed.) */
static const char *compare_chain_known(Emitter *E, Node *n)
{
    int nops = n->args.len - 1, decided = 0;
    if (!compare_pure(n))
        return NULL;
    StrBuf b = {0};
    sb_putc(&b, '(');
    for (int i = 0; i < nops; i++) {
        Node *l = n->args.items[i], *r = n->args.items[i + 1];
        const Type *ct = compare_type(l->type, r->type);
        int k = compare_pair_known(n, i);
        if (k == 0) {
            sb_free(&b);
            return "(0)";
        }
        if (k == 1) {
            decided++;
            continue;
        }
        sb_printf(&b, "%s%s %s %s", b.len > 1 ? " && " : "", conv(ex(E, l), l->type, ct), cmp_op(n->ops[i]),
                  conv(ex(E, r), r->type, ct));
    }
    if (!decided || b.len == 1) {
        sb_free(&b);
        return decided ? "(1)" : NULL;
    }
    sb_putc(&b, ')');
    return sb_take(&b);
}

static const char *ex_compare(Emitter *E, Node *n)
{
    int nops = n->args.len - 1;
    if (nops < 1) {
        error_at(n->loc, "malformed comparison");
        return "false";
    }
    const char *known = compare_chain_known(E, n);
    if (known)
        return known;
    StrBuf b = {0};
    const char *prev = NULL;
    sb_putc(&b, '(');
    for (int i = 0; i < nops; i++) {
        Node *l = n->args.items[i], *r = n->args.items[i + 1];
        const char *op = cmp_op(n->ops[i]);
        if (!op) {
            error_at(n->loc, "operator '%s' is not supported here", op_spelling[n->ops[i]]);
            op = "==";
        }
        const Type *ct = compare_type(l->type, r->type);
        /* both operands in int32: a 32-bit comparison */
        if (nops == 1 && t_int(ct) && r_fits32(l) && r_fits32(r)) {
            const char *ls32 = ex_i32(E, l), *rs32 = ex_i32(E, r);
            if (self_compare(l, r, ct, ls32, rs32)) {
                sb_free(&b);
                return self_compare_value(n->ops[i]);
            }
            sb_printf(&b, "%s %s %s)", ls32, op, rs32);
            return sb_take(&b);
        }
        const char *ls = prev ? prev : ex(E, l);
        const char *rs;
        if (i + 1 < nops) {
            /* a middle operand: evaluated once, kept in a temporary */
            const char *t = new_tmp(E, r->type);
            rs = arena_printf("(%s = %s)", t, ex(E, r));
            prev = t;
        } else {
            rs = ex(E, r);
        }
        if (i > 0)
            sb_puts(&b, " && ");
        if (ty_is_half16(ct)) {   /* float16, bfloat16: kernrt_fp16.h's comparisons */
            static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
            static const char *const syms[] = {"==", "!=", "<", "<=", ">", ">="};
            const char *name = "eq";
            for (int j = 0; j < 6; j++)
                if (strcmp(op, syms[j]) == 0)
                    name = names[j];
            sb_printf(&b, "krt_%s_%s(%s, %s)", name, t_suffix(ct), conv(ls, l->type, ct),
                      conv(rs, r->type, ct));
            continue;
        }
        const char *lc = conv(ls, l->type, ct), *rc = conv(rs, r->type, ct);
        if (nops == 1 && self_compare(l, r, ct, lc, rc)) {
            sb_free(&b);
            return self_compare_value(n->ops[i]);
        }
        sb_printf(&b, "%s %s %s", lc, op, rc);
    }
    sb_putc(&b, ')');
    return sb_take(&b);
}

/* suite: a divisor known not to be zero (a constant, or an integer range
 * without 0), for debug=True's ZeroDivisionError check */
static void c_text(StrBuf *b, const char *s, bool fmt);

static bool divisor_nonzero(const Node *r)
{
    const Node *k = r->kind == E_CAST ? r->lhs : r;
    if (k->kind == E_CONST)
        return t_float(k->type) ? k->fval != 0 : k->ival != 0;
    RangeIv ri = range_of(r);
    return t_int(r->type) && ri.known && (ri.lo >= 1 || ri.hi <= -1);
}

const char *ex_binop(Emitter *E, Node *n)
{
    const Type *t = n->type;
    Node *l = n->lhs, *r = n->rhs;
    const char *sfx = t_suffix(t);
    if (ty_is_half16(t)) {   /* float16, bfloat16: type.c makes only these */
        const char *name = n->op == OP_ADD ? "add" : n->op == OP_SUB ? "sub"
                         : n->op == OP_MUL ? "mul" : n->op == OP_DIV ? "div" : NULL;
        if (name)
            return arena_printf("krt_%s_%s(%s, %s)", name, sfx, ex_as(E, l, t), ex_as(E, r, t));
    }
    if (E->debug && (n->op == OP_DIV || n->op == OP_FLOORDIV || n->op == OP_MOD) &&
        (t_int(t) || t_float(t)) && !divisor_nonzero(r)) {
        /* suite (issue 8): debug=True raises ZeroDivisionError, as numba's
         * Python error model does (kernrt_device.h krt_zdiv_*) */
        int op = n->op == OP_DIV ? 0 : n->op == OP_FLOORDIV ? 1 : 2;
        const char *msg = t_int(t) ? (op == 2 ? "integer modulo by zero" : "integer division by zero")
                                   : (op == 2 ? "modulo by zero" : "division by zero");
        StrBuf fn = {0};
        c_text(&fn, E->fn->name, false);
        const char *call;
        if (E->mode == MODE_CUDA)
            call = arena_printf("krt_zdiv_dev_%s(%s, %s, %d, &krt_exception_%s, \"%s\", \"%s\", %d, "
                                "\"%s\")", sfx, unparen(ex_as(E, l, t)), unparen(ex_as(E, r, t)), op,
                                E->modsym, fn.s, E->base_file,
                                n->loc.first_line, msg);
        else
            call = arena_printf("krt_zdiv_cpu_%s(%s, %s, %d, krt_b, krt_tid, \"%s\", \"%s\", %d, \"%s\")",
                            sfx, unparen(ex_as(E, l, t)), unparen(ex_as(E, r, t)), op, fn.s,
                            E->base_file, n->loc.first_line, msg);
        sb_free(&fn);
        return call;
    }
    switch (n->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: {
        const char *name = n->op == OP_ADD ? "add" : n->op == OP_SUB ? "sub" : "mul";
        const char *sym = n->op == OP_ADD ? "+" : n->op == OP_SUB ? "-" : "*";
        /* every value in int32: C's int arithmetic cannot overflow (on
         * the CPU, issue 10 (cpu): nor int64's, which needs no widening
         * where the value indexes memory) */
        if (t_int(t) && t_bits(t) == 64 && r_fits32(n) && r_fits32(l) && r_fits32(r))
            return E->mode == MODE_CPU ? arena_printf("(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t))
                                       : arena_printf("((%s)%s)", t_c(t), ex_i32(E, n));
        if (t_float(t) || (t_unsigned(t) && t_bits(t) >= 32))
            return arena_printf("(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t));
        if (t_int(t))
            return arena_printf("krt_%s_%s(%s, %s)", name, sfx, ex_as(E, l, t), ex_as(E, r, t));
        break;
    }
    case OP_DIV:
        /* fastmath: numba's approximate division (NVVM prec-div=0) */
        if (t && t->kind == TY_FLOAT32 && E->mode == MODE_CUDA && E->fn && E->nvvm_fast)
            return arena_printf("__fdividef(%s, %s)", ex_as(E, l, t), ex_as(E, r, t));
        if (t_float(t))
            return arena_printf("(%s / %s)", ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_FLOORDIV: case OP_MOD: {
        bool mod = n->op == OP_MOD;
        int64_t c;
        int k = pow2_exp(r);
        if (t_int(t) && t_bits(t) == 64 && r_fits32(n) && r_fits32(l) && r_fits32(r) &&
            (k >= 0 || (r_nonneg(l) && r_lo(r) >= 1)))
            return arena_printf("((%s)%s)", t_c(t), ex_i32(E, n));
        /* a power of two: floor division is the arithmetic shift, the
         * floor modulo the low bits (two's complement), for any sign */
        if (t_signed(t) && t_bits(t) >= 32 && k >= 0 && const_int(r, &c) && r->type == t) {
            if (mod)
                return arena_printf("(%s & %s)", ex_as(E, l, t), fmt_int(t, (uint64_t)(c - 1)));
            return arena_printf("(%s >> %d)", ex_as(E, l, t), k);
        }
        /* both operands >= 0, the divisor >= 1: C's division is Python's
         * (unsigned: no sign fix-up) */
        if (t_int(t) && r_nonneg(l) && range_of(r).known && r_lo(r) >= 1) {
            if (t_signed(t))
                return arena_printf("(%s)((uint%d_t)%s %s (uint%d_t)%s)", t_c(t), t_bits(t) < 32 ? 32 : t_bits(t),
                                    ex_as(E, l, t), mod ? "%" : "/", t_bits(t) < 32 ? 32 : t_bits(t), ex_as(E, r, t));
            return arena_printf("(%s %s %s)", ex_as(E, l, t), mod ? "%" : "/", ex_as(E, r, t));
        }
    }
        if (t_int(t) || t_float(t))
            return arena_printf("krt_%s_%s(%s, %s)", n->op == OP_MOD ? "mod" : "floordiv", sfx,
                                ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_POW:
        if (t_int(t)) {
            /* numba 0.56: every exponent, constant or not, goes through
             * int_power (see krt_powr): its static_power_impl is never
             * reached, as the typed IR has lost the constant (checked with
             * njit and the CUDA typing: (int64, int64) -> int64) */
            return arena_printf("krt_powr_%s(%s, %s)", sfx, ex_as(E, l, t), ex_as(E, r, t));
        }
        if (t_float(t) && t_int(r->type))
            return arena_printf("krt_powi_%s(%s, %s)", sfx, ex_as(E, l, t),
                                ex_as(E, r, ty_scalar[TY_INT64]));
        if (t_float(t))
            return arena_printf("pow%s(%s, %s)", t_libm(t), ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_LSHIFT: case OP_RSHIFT:
        if (t_int(t))
            return arena_printf("krt_%s_%s(%s, %s)", n->op == OP_LSHIFT ? "shl" : "shr", sfx,
                                ex_as(E, l, t), ex_as(E, r, t));
        break;
    case OP_BITAND: case OP_BITOR: case OP_BITXOR: {
        const char *sym = n->op == OP_BITAND ? "&" : n->op == OP_BITOR ? "|" : "^";
        if (t->kind == TY_BOOL)
            return arena_printf("(bool)(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t));
        if (t_int(t) && t_bits(t) >= 32)
            return arena_printf("(%s %s %s)", ex_as(E, l, t), sym, ex_as(E, r, t));
        if (t_int(t))
            return arena_printf("(%s)(%s %s %s)", t_c(t), ex_as(E, l, t), sym, ex_as(E, r, t));
        break;
    }
    default:
        break;
    }
    error_at(n->loc, "operator '%s' is not supported on %s", op_spelling[n->op],
             t_scalar(t) ? t_c(t) : "this type");
    return "0";
}

static const char *ex_unary(Emitter *E, Node *n)
{
    const Type *t = n->type;
    switch (n->op) {
    case OP_NEG: {
        int64_t v;
        if (t_signed(t) && t_bits(t) == 64 && const_int(n->lhs, &v) && v != INT64_MIN)
            return fmt_int(t, (uint64_t)-v);
        if (n->lhs->kind == E_CONST && t_float(t) && same_type(n->lhs->type, t))
            return fmt_float(t, -n->lhs->fval);
        if (ty_is_half16(t))
            return arena_printf("krt_neg_%s(%s)", t_suffix(t), ex_as(E, n->lhs, t));
    }
        if (t_float(t))
            return arena_printf("(-%s)", ex_as(E, n->lhs, t));
        /* numba's narrow negation (-int32(-2**31) is -2**31) is type.c's:
         * the E_UNARY has the operand's own type, widened by an E_CAST
         * around it; an E_CAST inside is the program's, as in -int64(y) */
        if (t_int(t))
            return arena_printf("krt_neg_%s(%s)", t_suffix(t), ex_as(E, n->lhs, t));
        break;
    case OP_POS:
        return ex_as(E, n->lhs, t);
    case OP_INVERT:
        if (t && t->kind == TY_BOOL)    /* numba follows NumPy: logical not */
            return arena_printf("(!%s)", ex_as(E, n->lhs, t));
        /* as for -x: ~uint64(y) of a uint32 y inverts 64 bits */
        if (t_int(t) && t_bits(t) >= 32)
            return arena_printf("~%s", ex_as(E, n->lhs, t));
        if (t_int(t))
            return arena_printf("(%s)~%s", t_c(t), ex_as(E, n->lhs, t));
        break;
    case OP_NOT:
        return arena_printf("(!%s)", ex(E, n->lhs));
    default:
        break;
    }
    error_at(n->loc, "unary '%s' is not supported on this type", op_spelling[n->op]);
    return "0";
}

/* `a and b` / `a or b`: Python returns an operand, not a bool. */
static const char *ex_boolop(Emitter *E, Node *n)
{
    const Type *t = n->type;
    bool is_and = n->op == OP_AND;
    if (t && t->kind == TY_BOOL && n->lhs->type->kind == TY_BOOL && n->rhs->type->kind == TY_BOOL) {
        /* an operand folded to the identity (a self-comparison,
         * self_compare_value): the other alone, which Clang would
         * otherwise flag as a constant operand of && or || */
        const char *l = ex(E, n->lhs), *r = ex(E, n->rhs), *id = is_and ? "(1)" : "(0)";
        if (strcmp(l, id) == 0)
            return r;
        if (strcmp(r, id) == 0)
            return l;
        return arena_printf("(%s %s %s)", l, is_and ? "&&" : "||", r);
    }
    const char *tmp = new_tmp(E, n->lhs->type);
    const char *l = conv(tmp, n->lhs->type, t);
    const char *r = ex_as(E, n->rhs, t);
    if (ty_is_half16(n->lhs->type))   /* float16, bfloat16: its truth through a helper */
        return arena_printf("(krt_%s_to_f32(%s = %s) != 0.0f ? %s : %s)", t_suffix(n->lhs->type), tmp,
                            ex(E, n->lhs), is_and ? r : l, is_and ? l : r);
    if (ty_is_complex(n->lhs->type))   /* complex_as_bool: either part nonzero */
        return arena_printf("(%s ? %s : %s)",
                            conv(arena_printf("(%s = %s)", tmp, ex(E, n->lhs)), n->lhs->type,
                                 ty_bool), is_and ? r : l, is_and ? l : r);
    return arena_printf("((%s = %s) ? %s : %s)", tmp, ex(E, n->lhs), is_and ? r : l,
                        is_and ? l : r);
}

/* The row's spelling for the target being emitted. */
static const char *api_spelling(const Emitter *E, const ApiEntry *a)
{
    return E->mode == MODE_CUDA ? a->cuda : a->cpu;
}

/* cuda.grid(k) / cuda.gridsize(k), component c, from the Dim3 rows'
 * spellings (x, y and z are consecutive rows). */
static const char *grid_comp(Emitter *E, bool size, int c)
{
    const char *tid = api_spelling(E, &api_table[API_TID_X + c]);
    const char *bid = api_spelling(E, &api_table[API_BID_X + c]);
    const char *bdim = api_spelling(E, &api_table[API_BDIM_X + c]);
    const char *gdim = api_spelling(E, &api_table[API_GDIM_X + c]);
    return size ? arena_printf("((int64_t)%s * %s)", bdim, gdim)
                : arena_printf("((int64_t)%s * %s + %s)", bid, bdim, tid);
}

/* cuda.atomic.OP(ary, idx, val): type.c passes args[0] the array,
 * args[1..ndim] the indices, args[ndim+1] the value; cas(ary, idx, old,
 * val) one operand more; numba 0.56's compare_and_swap(ary, old, val)
 * (1-D, element 0) none of the indices.  The row's spelling with the
 * element type's suffix: krt_atomic_add_f32(&element, value). */
/* issue 10 (cpu): the slot of the privatised array parameter that arr
 * names in the CPU kernel being printed, or -1.  PRIV_BYTES: the largest
 * copy (kernrt_device.h's KRT_PRIV_BYTES). */
#define PRIV_BYTES 1024
static int cpu_priv_slot(const Emitter *E, const Node *arr)
{
    if (!E->cpu_priv || E->inlined || arr->kind != E_VAR || !arr->var)
        return -1;
    for (int i = 0; i < E->fn->nparams; i++)
        if (E->fn->params[i] == arr->var)
            return E->cpu_priv[i];
    return -1;
}

/* A cuda.atomic.add/sub n on a privatised array (priv_params: only such
 * atomics, results dropped, name it) whose 1-D index lies in [0, k) by its
 * value range: the bytes of the private copy it needs (k elements; 0: not
 * so), *slot its copy. */
int64_t cpu_priv_need(const Emitter *E, const Node *n, int *slot)
{
    if (n->kind != E_API || !E->cpu_priv || (api_id(n->api) != API_ATOMIC_ADD && api_id(n->api) != API_ATOMIC_SUB) ||
        n->args.len != 3 || !n->args.items[0]->type || n->args.items[0]->type->kind != TY_ARRAY)
        return 0;
    int pk = cpu_priv_slot(E, n->args.items[0]);
    RangeIv r = pk >= 0 ? range_of(n->args.items[1]) : (RangeIv){0, 0, false};
    int64_t isz = ty_size(n->args.items[0]->type->elem);
    if (!r.known || r.lo < 0 || r.hi >= PRIV_BYTES || (r.hi + 1) * isz > PRIV_BYTES)
        return 0;
    if (slot)
        *slot = pk;
    return (r.hi + 1) * isz;
}

static const char *ex_atomic(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    bool cas = a->rule == TR_ATOMIC_CAS || a->rule == TR_ATOMIC_CAS0;
    int nval = cas ? 2 : 1;
    Node *arr = n->args.len > 0 ? n->args.items[0] : NULL;
    if (!arr || !arr->type || arr->type->kind != TY_ARRAY) {
        error_at(n->loc, "%s takes an array first", a->path);
        return "0";
    }
    int nix = n->args.len - 1 - nval;
    if (nix != arr->type->ndim && !(nix == 0 && a->rule == TR_ATOMIC_CAS0)) {
        error_at(n->loc, "%s: %d indices for a %d-dimensional array", a->path, nix,
                 arr->type->ndim);
        return "0";
    }
    const Type *et = arr->type->elem;
    bool is32 = et->kind == TY_INT32 || et->kind == TY_UINT32;
    bool is64 = et->kind == TY_INT64 || et->kind == TY_UINT64;
    bool ok = is32 || is64;
    if (a->rule == TR_ATOMIC_ARITH)
        ok |= t_float(et);
    if (a->rule == TR_ATOMIC_UNSIGNED)
        ok = et->kind == TY_UINT32 || et->kind == TY_UINT64;
    if (!ok) {
        error_at(n->loc, "%s is not supported on %s arrays", a->path, ty_name(et));
        return "0";
    }
    int pk = cpu_priv_slot(E, arr);
    int64_t need = cpu_priv_need(E, n, NULL);
    if (need > 0) {
        /* an index in [0, n): krt_priv_addn, without the address test
         * where the copy holds n (print_unit_copies tests that once) */
        const char *av = ex(E, arr);
        return arena_printf("krt_priv_%sn_%s(&krt_pv%d, %s, %lld, %s.data, %s.strides[0], %s)",
                            a->id == API_ATOMIC_SUB ? "sub" : "add", t_suffix(et), pk,
                            ex_as(E, n->args.items[1], ty_scalar[TY_INT64]),
                            (long long)(need / ty_size(et)), av, av, ex_as(E, n->args.items[nix + 1], et));
    }
    const char *p;
    E->rc_kind = 2;  /* KRT_RC_ATOMIC: atomics are not races (issue 13) */
    if (nix == 0) {
        Node zero = {0};
        zero.kind = E_CONST;
        zero.type = ty_scalar[TY_INT64];
        zero.loc = n->loc;
        Node *zp = &zero;
        p = elem_ref(E, arr, &zp, 1);
    } else {
        p = elem_ref(E, arr, &n->args.items[1], nix);
    }
    E->rc_kind = 0;
    if (pk >= 0)   /* issue 10 (cpu): emit_cpu.c's priv_params */
        return arena_printf("krt_priv_%s_%s(&krt_pv%d, &%s, %s)", a->id == API_ATOMIC_SUB ? "sub" : "add",
                            t_suffix(et), pk, p, ex_as(E, n->args.items[nix + 1], et));
    const char *spell = api_spelling(E, a);
    if (cas)
        return arena_printf("%s_%s(&%s, %s, %s)", spell, t_suffix(et), p,
                            ex_as(E, n->args.items[nix + 1], et),
                            ex_as(E, n->args.items[nix + 2], et));
    return arena_printf("%s_%s(&%s, %s)", spell, t_suffix(et), p,
                        ex_as(E, n->args.items[nix + 1], et));
}

/* The math.* rows (EK_MATH): the row's spelling, with "f" for float32. */
static const char *ex_math(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    const char *spell = api_spelling(E, a);
    Node *x = n->args.len > 0 ? n->args.items[0] : NULL;
    if (n->type && n->type->kind == TY_FLOAT16 && x && x->type == n->type &&
        half_math_name(a->id))   /* float16: fp16.py's intrinsic (half.c) */
        return arena_printf("krt_%s_f16(%s)", half_math_name(a->id), ex(E, x));
    if (n->type && n->type->kind == TY_BFLOAT16 && x && x->type == n->type &&
        bf16_math_name(a->id))   /* bfloat16: bf16.py's overload (bf16.c) */
        return arena_printf("krt_%s_bf16(%s)", bf16_math_name(a->id), ex(E, x));
    const Type *ft = x && t_float(x->type) ? x->type : ty_scalar[TY_FLOAT64];
    const char *f = t_libm(ft);
    switch (a->rule) {
    case TR_MATH_PRED:
        if (x && t_int(x->type))     /* numba: integers are finite numbers */
            return a->id == API_M_ISFINITE ? "true" : "false";
        return arena_printf("(%s(%s) != 0)", spell, ex_as(E, x, ft));
    case TR_MATH_LDEXP:
        return arena_printf("%s%s(%s, (int)%s)", spell, f, ex_as(E, x, ft),
                            ex_as(E, n->args.items[1], ty_scalar[TY_INT32]));
    case TR_MATH_SCALE:
        return arena_printf("(%s * %s)", ex_as(E, x, ft),
                            fmt_float(ft, a->id == API_M_RADIANS ? 3.14159265358979323846 / 180.0
                                                                 : 180.0 / 3.14159265358979323846));
    case TR_MATH_FREXP: {
        /* (mantissa, exponent): numba types it (float, int32) */
        const Type *tt = n->type;
        if (!tt || tt->kind != TY_TUPLE || tt->nelems != 2) {
            error_at(n->loc, "math.frexp: expected a (float, int) result");
            return "0";
        }
        const char *m = new_tmp(E, (Type *)ft), *e = new_tmp(E, ty_scalar[TY_INT32]);
        return arena_printf("(%s = %s%s(%s, (int *)&%s), %s_make(%s, %s))", m, spell, f,
                            ex_as(E, x, ft), e, tuple_cname(tt), conv(m, ft, tt->elems[0]),
                            conv(e, ty_scalar[TY_INT32], tt->elems[1]));
    }
    case TR_MATH_MODF: {
        /* npk: (fractional part, integral part), both of the float type */
        const Type *tt = n->type;
        if (!tt || tt->kind != TY_TUPLE || tt->nelems != 2) {
            error_at(n->loc, "math.modf: expected a (float, float) result");
            return "0";
        }
        const char *fr = new_tmp(E, (Type *)ft), *ip = new_tmp(E, (Type *)ft);
        return arena_printf("(%s = %s%s(%s, &%s), %s_make(%s, %s))", fr, spell, f,
                            ex_as(E, x, ft), ip, tuple_cname(tt), conv(fr, ft, tt->elems[0]),
                            conv(ip, ft, tt->elems[1]));
    }
    default:
        if (a->id == API_M_LOG && n->args.len == 2)
            return arena_printf("(%s%s(%s) / %s%s(%s))", spell, f, ex_as(E, x, ft), spell, f,
                                ex_as(E, n->args.items[1], ft));
        break;
    }
    if (!spell) {
        error_at(n->loc, "%s is not supported yet", a->path);
        return "0";
    }
    /* fastmath=True on CUDA: numba compiles with NVVM's fast-math options
     * (approximate division and sqrt, flush to zero, fast intrinsics); the
     * float32 math with a fast CUDA intrinsic (AF_FASTMATH: __NAMEf) gets
     * it here, `/` becomes __fdividef, sqrt the approximate
     * krt_fast_sqrtf (kernrt_device.h). */
    bool fm32 = E->mode == MODE_CUDA && E->fn && E->fn->opt.fastmath && ft->kind == TY_FLOAT32;
    bool fast = fm32 && api_has(a, AF_FASTMATH);
    StrBuf b = {0};
    /* NVVM's prec-sqrt=0, ftz: also in a device function that only
     * fastmath kernels call (E->nvvm_fast), as numba-cuda's module-wide
     * NVVM options give it; the fast intrinsics are per function */
    if (E->mode == MODE_CUDA && E->fn && E->nvvm_fast && ft->kind == TY_FLOAT32 && a->id == API_M_SQRT)
        sb_puts(&b, "krt_fast_sqrtf(");
    else
        sb_printf(&b, fast ? "__%s%s(" : "%s%s(", spell, f);
    for (int i = 0; i < n->args.len; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], ft));
    sb_putc(&b, ')');
    /* math.floor/ceil/trunc return int64 in numba: convert if typed so */
    return conv(sb_take(&b), ft, n->type);
}

/* A warp-collective operation in CUDA C (EK_WARP): CUDA's own intrinsics,
 * the row's spelling.  numba's masks are int32 (CUDA's unsigned); 64-bit
 * values go through the long long overloads; match_all_sync's predicate
 * comes back through a temporary to make numba's (int32, bool) tuple. */
static const char *ex_warp_cuda(Emitter *E, Node *n, const ApiEntry *a, Node **args, int nargs)
{
    const char *m = nargs > 0 ? arena_printf("(unsigned)%s", ex(E, args[0])) : "0xffffffffu";
    Node *v = nargs > 1 ? args[1] : NULL;
    const Type *vt = v ? v->type : NULL;
    const char *vs = NULL;
    if (v) {
        vs = ex(E, v);
        if (vt->kind == TY_INT64)
            vs = arena_printf("(long long)%s", vs);
        else if (vt->kind == TY_UINT64)
            vs = arena_printf("(unsigned long long)%s", vs);
        else if (vt->kind == TY_BOOL)
            vs = arena_printf("(int)%s", vs);
    }
    const char *a2 = nargs > 2 ? ex(E, args[2]) : "0";
    switch (a ? a->rule : TR_NONE) {
    case TR_WARP_SHFL: {
        /* a lane (int) for idx and xor, a delta (unsigned) for up and down */
        bool delta = a->id == API_SHFL_UP_SYNC || a->id == API_SHFL_DOWN_SYNC;
        return arena_printf("((%s)%s(%s, %s, (%s)%s))", t_c(vt), a->cuda, m, vs,
                            delta ? "unsigned" : "int", a2);
    }
    case TR_WARP_VOTE:
        return arena_printf("(%s(%s, %s) != 0)", a->cuda, m, vs);
    case TR_WARP_BALLOT: case TR_WARP_MATCH_ANY:
        return conv(arena_printf("%s(%s, %s)", a->cuda, m, vs), ty_uint32,
                    n->type ? n->type : ty_int32);
    case TR_WARP_MATCH_ALL: {
        const Type *tt = n->type;
        if (!tt || tt->kind != TY_TUPLE || tt->nelems != 2) {
            error_at(n->loc, "match_all_sync: expected a (mask, bool) result");
            return "0";
        }
        const char *r = new_tmp(E, ty_uint32), *pr = new_tmp(E, ty_int32);
        return arena_printf("(%s = %s(%s, %s, (int *)&%s), %s_make(%s, %s))", r, a->cuda, m,
                            vs, pr, tuple_cname(tt), conv(r, ty_uint32, tt->elems[0]),
                            conv(pr, ty_int32, tt->elems[1]));
    }
    case TR_ACTIVEMASK:
        return conv(arena_printf("%s()", a->cuda), ty_uint32, n->type ? n->type : ty_uint32);
    case TR_SYNCWARP:
        return arena_printf("%s(%s)", a->cuda, m);
    default:
        break;
    }
    error_at(n->loc, "%s is not supported here", n->api->path);
    return "0";
}

/* numba.cuda.random's draws: kernrt_random.h's functions on the kernel's
 * view of the states and the int64 index (negative counts from the end);
 * debug=True checks the index as an array access. */
static const char *ex_rng(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    Node *st = n->args.len == 2 ? n->args.items[0] : NULL;
    Node *ix = n->args.len == 2 ? n->args.items[1] : NULL;
    if (!st || !st->type || st->type->kind != TY_ARRAY || st->type->elem->kind != TY_RNGSTATE) {
        error_at(n->loc, "%s takes an array of xoroshiro128p states and an index", a->path);
        return "0";
    }
    const char *states = ex(E, st), *idx;
    if (E->debug) {
        int saved = E->line;
        E->line = n->loc.first_line;
        E->axis = 0;
        idx = index_expr(E, ix, arena_printf("%s.shape[0]", states));
        E->line = saved;
    } else {
        idx = ex_as(E, ix, ty_int64);
    }
    const char *spell = api_spelling(E, a);
    if (!spell) {
        error_at(n->loc, "%s is not supported in a kernel", a->path);
        return "0";
    }
    if (a->rule == TR_RNG_JUMP)   /* on the state itself */
        return arena_printf("%s(krt_rng_state(%s, %s))", spell, states, idx);
    return arena_printf("%s(%s, %s)", spell, states, idx);
}

/* An E_API, by the row's emission kind. */
static const char *ex_api(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    const Type *t = n->type;
    Node *x = n->args.len > 0 ? n->args.items[0] : NULL;
    bool cuda = E->mode == MODE_CUDA;
    const char *spell = api_spelling(E, a);
    switch (a->emit) {
    case EK_DIM3:
        return arena_printf("((%s)%s)", t_c(t), spell);
    case EK_EXPR:
        return spell;
    case EK_GRID: {
        bool size = a->id == API_GRIDSIZE;
        if (!t || t->kind != TY_TUPLE)
            return grid_comp(E, size, 0);
        StrBuf b = {0};
        sb_printf(&b, "%s_make(", tuple_cname(t));
        for (int c = 0; c < t->nelems && c < 3; c++)
            sb_printf(&b, "%s%s", c ? ", " : "", grid_comp(E, size, c));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case EK_SYNC:
        if (a->rule != TR_SYNCTHREADS && a->rule != TR_BARRIER_PRED)
            break;
        if (cuda) {
            if (a->rule == TR_SYNCTHREADS)
                return arena_printf("%s()", spell);
            return conv(arena_printf("%s((int)(%s))", spell, ex(E, x)), ty_int32, t);
        }
        cpu_unsupported(E, n->loc, arena_printf("%s() inside an expression is not supported on "
                                                "the CPU backend", a->path));
        return "0";
    case EK_WARP:
        if (cuda)
            return ex_warp_cuda(E, n, a, n->args.items, n->args.len);
        cpu_unsupported(E, n->loc, arena_printf("%s() must be a whole statement or the whole "
                                                "right-hand side of an assignment on the "
                                                "CPU backend", a->path));
        return "0";
    case EK_ATOMIC:
        return ex_atomic(E, n);
    case EK_CACHE: {   /* issue 9: cache-hint load / store */
        Node *arr = n->args.len > 0 ? n->args.items[0] : NULL;
        bool st = a->rule == TR_CACHE_ST;
        int nix = n->args.len - 1 - (st ? 1 : 0);
        if (!arr || !arr->type || arr->type->kind != TY_ARRAY || nix != arr->type->ndim)
            break;
        E->rc_kind = st ? 1 : 0;  /* issue 13: a store is a write */
        const char *p = elem_ref(E, arr, &n->args.items[1], nix);
        E->rc_kind = 0;
        const Type *et = arr->type->elem;
        const char *spell = api_spelling(E, a);
        if (!st)
            return E->mode == MODE_CUDA ? arena_printf("%s(&%s)", spell, p) : p;
        const char *v = ex_as(E, n->args.items[nix + 1], et);
        if (E->mode == MODE_CUDA)
            return arena_printf("%s(&%s, %s)", spell, p, unparen(v));
        return arena_printf("(%s = %s)", p, unparen(v));
    }
    case EK_TYPED:
        /* popc, clz, ffs: by the operand's type, an int32 result; brev by
         * its width */
        if (!x || !t_int(x->type))
            break;
        if (a->rule == TR_BREV) {
            if (t_bits(x->type) == 64)
                return conv(arena_printf("%s_u64((uint64_t)%s)", spell, ex(E, x)), ty_uint64, t);
            return conv(arena_printf("%s_u32((uint32_t)%s)", spell, ex(E, x)), ty_uint32, t);
        }
        return conv(arena_printf("%s_%s(%s)", spell, t_suffix(x->type), ex(E, x)), ty_int32, t);
    case EK_FLOAT:
        if (!t_float(t))
            break;
        {
            StrBuf b = {0};
            sb_printf(&b, "%s%s(", spell, t_libm(t));
            for (int i = 0; i < n->args.len; i++)
                sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], t));
            sb_putc(&b, ')');
            return sb_take(&b);
        }
    case EK_SELECT:
        if (n->args.len != 3)
            break;
        return arena_printf("(%s ? %s : %s)", ex(E, x), ex_as(E, n->args.items[1], t),
                            ex_as(E, n->args.items[2], t));
    case EK_CALL: {
        StrBuf b = {0};
        sb_printf(&b, "%s(", spell);
        for (int i = 0; i < n->args.len; i++) {
            Node *y = n->args.items[i];
            sb_printf(&b, "%s(%s)%s", i ? ", " : "", t_c(y->type), ex(E, y));
        }
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case EK_RNG:
        return ex_rng(E, n);
    case EK_FP16: {   /* float16 (half.c): cuda.fp16's intrinsics */
        StrBuf b = {0};
        sb_printf(&b, "%s(", spell);
        for (int i = 0; i < n->args.len; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], ty_float16));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case EK_BF16: {   /* bfloat16 (bf16.c): numba.cuda.bf16, operands converted */
        StrBuf b = {0};
        sb_printf(&b, "%s(", spell);
        for (int i = 0; i < n->args.len; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", unparen(ex(E, n->args.items[i])));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case EK_VIEW: {   /* scalar x.view(dtype): the bits of x as n->type */
        Node *x = n->args.items[0];
        const Type *f = x->type, *t = n->type;
        int bits = ty_size(f) * 8;
        const char *u = ty_is_half16(f) || ty_is_float(f)
                            ? arena_printf("krt_%s_bits(%s)", t_suffix(f), unparen(ex(E, x)))
                            : arena_printf("((uint%d_t)%s)", bits, ex(E, x));
        if (t->kind == TY_FLOAT16)
            return arena_printf("krt_f16_from_bits(%s)", unparen(u));
        if (ty_is_float(t))
            return arena_printf("krt_bits_%s(%s)", t_suffix(t), unparen(u));
        return arena_printf("((%s)%s)", ty_info(t)->cname, u);
    }
    case EK_MATH:
        return ex_math(E, n);
    case EK_CONST:
        switch (a->id) {
        case API_M_PI: return fmt_float(t, 3.14159265358979323846);
        case API_M_E: return fmt_float(t, 2.71828182845904523536);
        case API_M_INF: return fmt_float(t, HUGE_VAL);
        case API_M_NAN: return fmt_float(t, NAN);
        default: {
            double v;   /* npk: np.pi, np.nan, math.tau, ... */
            if (npu_const_value(a->id, &v))
                return fmt_float(t, v);
            break;
        }
        }
        break;
    case EK_VECTOR: {   /* vecrec: krt_make_float4(x, y, z, w) */
        StrBuf b = {0};
        sb_printf(&b, "%s(", vec_spell(t, true));
        for (int i = 0; i < n->args.len; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], t->elem));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case EK_CAST:
        if (x)
            return ex_as(E, x, t);
        break;
    case EK_BUILTIN:
        return ex_builtin(E, n);
    case EK_COMPLEX:   /* ex_complex printed those it knows */
    case EK_NONE:
        break;
    }
    error_at(n->loc, "%s is not supported here", a->path);
    return "0";
}

static const char *ex_call(Emitter *E, Node *n)
{
    Func *f = n->callee;
    StrBuf b = {0};
    if (E->mode == MODE_CPU && func_has_split(f)) {
        /* inlined by lower_cpu where it can be: a call in an operand the
         * lowering does not hoist (the target of a warp operation or a
         * barrier reduction) cannot be */
        cpu_unsupported(E, n->loc, arena_printf("device function '%s' synchronises (a barrier or a warp "
                                                "operation): on the CPU backend a call of it must be "
                                                "evaluated once, unconditionally, at the start of a "
                                                "statement (assign its result to a variable first)",
                                                f->name));
        return "0";
    }
    if (E->mode == MODE_CPU) {
        for (int i = 0; i < E->cpu_failed_funcs.len; i++)
            if (E->cpu_failed_funcs.items[i] == f)
                cpu_unsupported(E, n->loc, arena_printf("device function '%s' has no CPU version", f->name));
        sb_printf(&b, "%s__cpu(krt_b, krt_tid", fn_cname(f));
        /* the shared arrays it reaches: the kernel's, or the caller's own
         * hidden arguments (which include them) */
        PtrVec d = dsh_funcs(f);
        for (int i = 0; i < d.len; i++) {
            Func *h = d.items[i];
            const char *hn = fn_cname(h);
            if (E->fn->is_kernel || E->inlined) {
                E->used_s = true;
                E->cpu_hooks->dsh_member(E, h);
                sb_printf(&b, ", &krt_s->krt_dsh_%s", hn);
            } else {
                sb_printf(&b, ", krt_dsh_%s", hn);
            }
        }
    } else {
        sb_printf(&b, "%s(", fn_cname(f));
    }
    for (int i = 0; i < n->args.len; i++) {
        Node *a = n->args.items[i];
        const Type *pt = i < f->nparams ? f->params[i]->type : a->type;
        const char *s = a->type && a->type->kind == TY_ARRAY ? array_value(E, a) : ex_as(E, a, pt);
        sb_printf(&b, "%s%s", (i || E->mode == MODE_CPU) ? ", " : "", s);
    }
    sb_putc(&b, ')');
    return sb_take(&b);
}

/* ------------------------------------------------------------------ */
/* complex64 / complex128: constants, conversions, operators and the     */
/* complex rows of api.def, each through a helper of                      */
/* runtime/kernrt_cmath.h (krt_cmul_c64(a, b), ...) or a part of the      */
/* struct of kernrt_complex.h (z.re, z.im); ex() asks ex_complex first,   */
/* conv() asks conv_complex for a conversion with a complex side.         */
/* ------------------------------------------------------------------ */

static void c_text(StrBuf *b, const char *s, bool fmt);
static void cx_c_text(StrBuf *b, const char *s) { c_text(b, s, false); }

static const char *cx_sfx(const Type *t) { return ty_info(t)->sfx; }

/* A conversion from or to a complex type. */
static const char *conv_complex(const char *s, const Type *from, const Type *to)
{
    if (from == to)
        return s;
    if (to->kind == TY_BOOL)
        return arena_printf("krt_ctrue_%s(%s)", cx_sfx(from), s);
    if (ty_is_complex(to) && ty_is_complex(from))
        return arena_printf("krt_%s_of_%s(%s)", cx_sfx(to), cx_sfx(from), s);
    if (ty_is_complex(to)) {
        Type *part = ty_complex_part(to);
        return arena_printf("krt_cmake_%s(%s, %s)", cx_sfx(to), unparen(conv(s, from, part)),
                            fmt_float(part, 0));
    }
    return s;   /* complex -> real: type.c refuses it */
}

static const char *binop_name(Op op)
{
    switch (op) {
    case OP_ADD: return "add";
    case OP_SUB: return "sub";
    case OP_MUL: return "mul";
    case OP_DIV: return "div";
    case OP_POW: return "pow";
    default: return NULL;
    }
}

static const char *ex_complex_api(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    Node *x = n->args.len ? n->args.items[0] : NULL;
    if (!x)
        return NULL;
    switch (a->id) {
    case API_CX_REAL:
        return arena_printf("(%s).re", ex(E, x));
    case API_CX_IMAG:
        return arena_printf("(%s).im", ex(E, x));
    case API_B_COMPLEX: case API_CM_RECT: {
        Type *part = ty_complex_part(n->type);
        return arena_printf("%s_%s(%s, %s)", a->cuda, cx_sfx(n->type), unparen(ex_as(E, x, part)),
                            unparen(ex_as(E, n->args.items[1], part)));
    }
    case API_CM_POLAR:
        return NULL;   /* lowered to a tuple by type.c */
    default:
        break;
    }
    if (!a->cuda || !ty_is_complex(x->type))
        return NULL;
    if (n->args.len == 2)   /* cx: NumPy's binary complex loops (krt_npmaximum_c64(a, b)) */
        return arena_printf("%s_%s(%s, %s)", E->mode == MODE_CUDA ? a->cuda : a->cpu,
                            cx_sfx(x->type), unparen(ex(E, x)),
                            unparen(ex(E, n->args.items[1])));
    return arena_printf("%s_%s(%s)", E->mode == MODE_CUDA ? a->cuda : a->cpu, cx_sfx(x->type),
                        unparen(ex(E, x)));
}

static const char *ex_complex(Emitter *E, Node *n)
{
    switch (n->kind) {
    case E_CONST:
        if (!ty_is_complex(n->type))
            return NULL;
        return arena_printf("krt_cmake_%s(%s, %s)", cx_sfx(n->type),
                            fmt_float(ty_complex_part(n->type), n->fval),
                            fmt_float(ty_complex_part(n->type), n->fimag));
    case E_BINOP: {
        const char *name = binop_name(n->op);
        if (!ty_is_complex(n->type))
            return NULL;
        if (!name) {
            error_at(n->loc, "operator '%s' is not supported on %s", op_spelling[n->op],
                     ty_name(n->type));
            return "0";
        }
        const char *l = unparen(ex_as(E, n->lhs, n->type)), *r = unparen(ex_as(E, n->rhs, n->type));
        Node *k = n->rhs->kind == E_CAST ? n->rhs->lhs : n->rhs;
        if (n->op == OP_DIV && !(k->kind == E_CONST && (k->fval != 0 || k->fimag != 0 ||
                                                        (!t_float(k->type) && !ty_is_complex(k->type) &&
                                                         k->ival != 0)))) {
            /* a divisor that may be zero: numba raises ZeroDivisionError */
            StrBuf m = {0};
            cx_c_text(&m, path_base(E->path));
            sb_printf(&m, ":%d: ZeroDivisionError: complex division by zero", n->loc.first_line);
            const char *msg = sb_take(&m);
            if (E->mode == MODE_CPU)
                return arena_printf("krt_cdivz_cpu_%s(%s, %s, krt_b, \"%s%s\")", cx_sfx(n->type), l,
                                    r, msg, E->debug ? "" : " (numba-cuda ends the thread; the CPU "
                                    "backend cannot end it inside an expression, so the launch fails)");
            if (E->debug)
                return arena_printf("krt_cdivz_dbg_%s(%s, %s, \"%s\")", cx_sfx(n->type), l, r, msg);
            return arena_printf("krt_cdivz_dev_%s(%s, %s)", cx_sfx(n->type), l, r);
        }
        return arena_printf("krt_c%s_%s(%s, %s)", name, cx_sfx(n->type), l, r);
    }
    case E_UNARY:
        if (!ty_is_complex(n->type))
            return NULL;
        if (n->op == OP_NEG)
            return arena_printf("krt_cneg_%s(%s)", cx_sfx(n->type), unparen(ex_as(E, n->lhs, n->type)));
        if (n->op == OP_POS)
            return ex_as(E, n->lhs, n->type);
        error_at(n->loc, "unary '%s' is not supported on %s", op_spelling[n->op],
                 ty_name(n->type));
        return "0";
    case E_COMPARE: {
        if (n->args.len != 2)
            return NULL;
        Node *l = n->args.items[0], *r = n->args.items[1];
        if (!ty_is_complex(l->type))
            return NULL;
        if (n->ops[0] != OP_EQ && n->ops[0] != OP_NE) {
            error_at(n->loc, "'%s' is not supported on %s", op_spelling[n->ops[0]],
                     ty_name(l->type));
            return "false";
        }
        return arena_printf("krt_c%s_%s(%s, %s)", n->ops[0] == OP_EQ ? "eq" : "ne", cx_sfx(l->type),
                            unparen(ex_as(E, l, l->type)), unparen(ex_as(E, r, l->type)));
    }
    case E_API:
        if (n->api && n->api->emit == EK_COMPLEX)
            return ex_complex_api(E, n);
        return NULL;
    default:
        return NULL;
    }
}

const char *ex(Emitter *E, Node *n)
{
    if (!n)
        return "0";
    if (E->cpu_binds) {
        const char *r = E->cpu_hooks->bound(E, n);
        if (r)
            return r;
    }
    const char *cx = ex_complex(E, n);   /* complex64/complex128 */
    if (cx)
        return cx;
    switch (n->kind) {
    case E_CONST:
        if (ty_is_charseq(n->type))   /* str: a constant stored into one */
            return charseq_const_c(n);
        if (t_float(n->type))
            return fmt_float(n->type, n->fval);
        return fmt_int(n->type, n->ival);
    case E_VAR:
        if (n->type && n->type->kind == TY_RECORD)   /* rec: a pointer */
            return arena_printf("(*%s)", var_ref(E, n->var));
        return var_ref(E, n->var);
    case E_CAST:
        return ex_as(E, n->lhs, n->type);
    case E_API:
        return ex_api(E, n);
    case E_CALLFN:
        if (n->type && n->type->kind == TY_RECORD)   /* rec: returns a pointer */
            return arena_printf("(*%s)", ex_call(E, n));
        return ex_call(E, n);
    case E_FFICALL: {   /* dev (issue 9): the wrapper emit_host.c prints (ffi.c) */
        StrBuf b = {0};
        sb_printf(&b, "%s%s(%s", n->name, E->mode == MODE_CPU ? "__cpu" : "",
                  E->mode == MODE_CPU ? "krt_b, krt_tid" : "");
        for (int i = 0; i < n->args.len; i++)
            sb_printf(&b, "%s%s", i || E->mode == MODE_CPU ? ", " : "", ex(E, n->args.items[i]));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case E_INDEX:
        /* --assume-noalias: an array the kernel never writes is read
         * through the read-only data cache */
        if (n->lhs->kind == E_VAR && noalias_readonly(E, n->lhs->var))
            return arena_printf("__ldg(&%s)", elem_ref(E, n->lhs, n->args.items, n->args.len));
        return elem_ref(E, n->lhs, n->args.items, n->args.len);
    case E_SHAPE:
        return ex_shape(E, n->lhs, (int)n->ival);
    case E_VIEW:
        return ex_view(E, n);
    case E_STRIDE:
        return ex_stride(E, n->lhs, (int)n->ival);
    case E_ARRAYOP:
        return ex_arrayop(E, n);
    case E_TUPLEGET: {
        Node *t = n->lhs;
        if (t->kind == E_API && t->api && t->api->rule == TR_GRID)
            return grid_comp(E, t->api->id == API_GRIDSIZE, (int)n->ival);
        if (t->kind == E_TUPLE && (int)n->ival < t->args.len)
            return ex(E, t->args.items[n->ival]);
        if (t->type && t->type->kind == TY_RECORD)   /* rec: r.a */
            return record_field(E, n);
        if (t->type && t->type->kind == TY_VECTOR)   /* vecrec: v.x */
            return arena_printf(is_name(E, t) ? "%s.%c" : "(%s).%c", ex(E, t),
                                "xyzw"[n->ival & 3]);
        if (n->type && n->type->kind == TY_RECORD)   /* arr: a record in a tuple: a pointer */
            return arena_printf(is_name(E, t) ? "(*%s.%s)" : "(*(%s).%s)", ex(E, t),
                                tuple_member(t->type, (int)n->ival));
        return arena_printf(is_name(E, t) ? "%s.%s" : "(%s).%s", ex(E, t),
                            tuple_member(t->type, (int)n->ival));   /* arr: named tuples */
    }
    case E_TUPLE: {
        if (!n->type || n->type->kind != TY_TUPLE)
            break;
        StrBuf b = {0};
        sb_printf(&b, "%s_make(", tuple_cname(n->type));
        for (int i = 0; i < n->args.len; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", ex_as(E, n->args.items[i], n->type->elems[i]));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    case E_BINOP:
        return ex_binop(E, n);
    case E_UNARY:
        return ex_unary(E, n);
    case E_BOOLOP:
        return ex_boolop(E, n);
    case E_COMPARE:
        return ex_compare(E, n);
    case E_IFEXP:
        return arena_printf("(%s ? %s : %s)",
                            ty_is_half16(n->cond->type)
                                ? ex_as(E, n->cond, ty_bool) : ex(E, n->cond),
                            ex_as(E, n->lhs, n->type),
                            ex_as(E, n->rhs, n->type));
    case E_LET:
        /* the comma's sequence point: the value is bound before the body */
        if (!n->var)
            break;
        return arena_printf("(%s = %s, %s)", var_ref(E, n->var), unparen(ex_as(E, n->lhs, n->var->type)),
                            unparen(ex(E, n->rhs)));
    default:
        break;
    }
    error_at(n->loc, "%s cannot be translated here", node_kind_desc[n->kind]);
    return "0";
}

/* ------------------------------------------------------------------ */
/* Statements, inside one thread                                       */
/* ------------------------------------------------------------------ */


void emit_stmts(Emitter *E, NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        emit_stmt(E, l->items[i]);
}

/* Leave the thread loop of a CPU kernel by statement s (return, a zero
 * range step, break/continue of a block-level loop): in a kernel cut at
 * barriers with the state lower_cpu gave it. */
static void emit_thread_exit(Emitter *E, const Node *s)
{
    if (E->frame)
        outf(E, "krt_f->krt_state = %s;", E->cpu_hooks->exit_state(E, s));
    outf(E, E->frame ? "goto krt_skip%d;" : "goto krt_next;", E->exit_label);
    E->exit_used = true;
}

/* Is the step of range loop s a constant?  *v gets it (1 for an unsigned
 * constant, which can only count up). */
bool range_step_known(const Node *s, int64_t *v)
{
    Node *stepe = s->args.len > 2 ? s->args.items[2] : NULL;
    *v = 1;
    return !stepe || const_int(stepe, v) ||
           (stepe->kind == E_CONST && t_unsigned(stepe->type) && (*v = 1));
}

/* issue 10 (cpu): range loop s runs a number of iterations known here
 * (constant start, stop and step, integer arguments) */
static bool small_const(const Node *n, int64_t *v)
{
    int64_t a, b;
    const int64_t lim = INT64_C(1) << 30;
    if (const_int(n, v))
        return *v > -lim && *v < lim;
    if (!n || n->kind != E_BINOP || !t_signed(n->type) ||
        (n->op != OP_ADD && n->op != OP_SUB && n->op != OP_MUL) || !small_const(n->lhs, &a) ||
        !small_const(n->rhs, &b))
        return false;
    *v = n->op == OP_ADD ? a + b : n->op == OP_SUB ? a - b : a * b;
    return *v > -lim && *v < lim;
}

static bool range_const_trip(const Node *s, int64_t *trip)
{
    int64_t a = 0, b = 0, st = 1;
    int n = s->args.len;
    if (n < 1 || n > 3)
        return false;
    for (int i = 0; i < n; i++)
        if (!s->args.items[i]->type || !t_signed(s->args.items[i]->type))
            return false;
    if (n == 1 ? !small_const(s->args.items[0], &b)
               : !small_const(s->args.items[0], &a) || !small_const(s->args.items[1], &b) ||
                     (n == 3 && !small_const(s->args.items[2], &st)))
        return false;
    if (st == 0)
        return false;
    *trip = st > 0 ? (b > a ? (b - a + st - 1) / st : 0) : (a > b ? (a - b - st - 1) / -st : 0);
    return true;
}

/* The loop condition of a range with iterator it, bound stop, step step.
 * A step known only at run time is not 0 here: emit_range_step_check has
 * ended the thread before. */
const char *range_cond(Node *s, const char *it, const char *stop, const char *step,
                              const Type *st)
{
    int64_t v;
    bool known = range_step_known(s, &v);
    if (known && v > 0)
        return arena_printf("%s < %s", it, stop);
    if (known && v < 0)
        return arena_printf("%s > %s", it, stop);
    if (known)    /* step 0: sema refuses it already; run nothing */
        return "false";
    if (t_unsigned(st))
        return arena_printf("%s < %s", it, stop);
    return arena_printf("(%s > 0 ? %s < %s : %s > %s)", step, it, stop, it, stop);
}

static void c_text(StrBuf *b, const char *s, bool fmt);

/* range(a, b, step) with a step that is 0 at run time: numba's CUDA target
 * raises ValueError("range() arg 3 must not be zero").  Without debug an
 * exception ends the thread (the kernel returns; in a device function the
 * error status propagates to the kernel, which returns); with debug the
 * launch reports it.  Emitted after the step is evaluated, before the loop:
 *   CUDA kernel        return (debug: print the message and trap)
 *   CUDA device fn     PTX exit: the thread ends, as the propagated status
 *                      would end it (debug: print and trap)
 *   CPU kernel, or a callee inlined into one
 *                      the thread leaves the thread loop, marked returned
 *                      in a kernel split at barriers (debug: krt_cpu_fail
 *                      with KRT_EKERNEL, and the block stops)
 *   CPU device fn      a C function cannot end its caller's thread, so the
 *                      launch fails with KRT_EKERNEL even without debug
 *                      (loudly, never a silent difference from CUDA). */
static void emit_range_step_check(Emitter *E, Node *s, const char *step)
{
    int64_t v;
    if (range_step_known(s, &v))
        return;
    bool kernel = E->fn->is_kernel || E->inlined;
    bool nonvoid = E->fn->ret && E->fn->ret->kind != TY_VOID && E->fn->ret->kind != TY_NONE;
    const char *ret = nonvoid && !kernel ? arena_printf("return %s;", zero_of(E->fn->ret)) : "return;";
    StrBuf m = {0};
    c_text(&m, path_base(E->path), false);
    sb_printf(&m, ":%d: range() arg 3 must not be zero", s->loc.first_line);
    outf(E, "if (%s == 0) {", step);
    E->indent++;
    if (E->mode == MODE_CUDA) {
        if (E->debug)
            outf(E, "krt_assert_fail_dev(\"%s\");", m.s);
        else if (!kernel)
            outf(E, "krt_exit_thread_dev();");
        outf(E, "%s", ret);
    } else if (E->debug || !kernel) {
        outf(E, "krt_cpu_fail(krt_b, KRT_EKERNEL, \"%s%s\");", m.s,
             E->debug ? "" : " (in a device function: the CPU backend cannot end the "
                             "calling thread, so the launch fails)");
        outf(E, "%s", ret);
    } else if (E->thread_loop) {
        emit_thread_exit(E, s);
    } else {
        die("a CPU kernel's range loop outside a thread loop");
    }
    E->indent--;
    outf(E, "}");
    sb_free(&m);
}

/* range()'s arguments into the loop's variables it, stop and step (start
 * 0 and step 1 when not given), then the check of a zero step. */
void emit_range_init(Emitter *E, Node *s, const char *it, const char *stop,
                            const char *step, Type *it_t)
{
    Node *a0 = s->args.len > 0 ? s->args.items[0] : NULL;
    Node *a1 = s->args.len > 1 ? s->args.items[1] : NULL;
    Node *a2 = s->args.len > 2 ? s->args.items[2] : NULL;
    outf(E, "%s = %s;", it, a0 ? ex_as(E, a0, it_t) : "0");
    outf(E, "%s = %s;", stop, a1 ? ex_as(E, a1, it_t) : "0");
    outf(E, "%s = %s;", step, a2 ? ex_as(E, a2, it_t) : "1");
    emit_range_step_check(E, s, step);
}

static void emit_for_range(Emitter *E, Node *s)
{
    Type *vt = s->var ? s->var->type : ty_scalar[TY_INT64];
    Type *it_t = s->it ? s->it->type : vt;
    const char *it = s->it ? var_ref(E, s->it) : new_tmp(E, it_t);
    const char *stop = s->stop ? var_ref(E, s->stop) : new_tmp(E, it_t);
    const char *step = s->step ? var_ref(E, s->step) : new_tmp(E, it_t);
    emit_range_init(E, s, it, stop, step, it_t);
    /* issue 10 (cpu): a short loop of constant bounds (a stencil's taps)
     * unrolled on the CPU, as gcc -O2 does not by itself */
    int64_t trip;
    if (E->mode == MODE_CPU && range_const_trip(s, &trip) && trip > 1 && trip <= 16)
        outf(E, "KRT_UNROLL");
    outf(E, "for (; %s; %s += %s) {", range_cond(s, it, stop, step, it_t), it, step);
    E->indent++;
    if (s->var)
        outf(E, "%s = %s;", var_ref(E, s->var), conv(it, it_t, vt));
    E->cloops++;
    emit_stmts(E, &s->body);
    E->cloops--;
    E->indent--;
    outf(E, "}");
}

/* A function's "zero" of type t, for a return the flow cannot reach. */
const char *zero_of(const Type *t)
{
    if (t && t->kind == TY_TUPLE) {
        StrBuf b = {0};
        sb_printf(&b, "%s_make(", tuple_cname(t));
        for (int i = 0; i < t->nelems; i++)
            sb_printf(&b, "%s%s", i ? ", " : "", zero_of(t->elems[i]));
        sb_putc(&b, ')');
        return sb_take(&b);
    }
    if (t && t->kind == TY_ARRAY)
        return "krt_view_make(NULL, 1, 0, 0, 0, 1)";
    if (t && t->kind == TY_RECORD)   /* rec: no record yet */
        return "NULL";
    if (ty_is_charseq(t))   /* str: all zeros, an empty one */
        return arena_printf("%s_from(%s\"\", 0)", charseq_cname(t),
                            charseq_unicode(t) ? "(const uint32_t *)U" : "");
    if (t && t->kind == TY_VECTOR)   /* vecrec */
        return arena_printf("%s(%s)", vec_spell(t, true),
                            &"0, 0, 0, 0"[(4 - t->nelems) * 3]);
    if (t && t->kind == TY_FLOAT16)
        return "KRT_F16_ZERO";
    if (t && t->kind == TY_BFLOAT16)
        return "KRT_BF16_ZERO";
    if (ty_is_complex(t))
        return arena_printf("krt_cmake_%s(0, 0)", ty_info(t)->sfx);
    return t && t->kind == TY_BOOL ? "false" : "0";
}


/* Text as the inside of a C string literal; `fmt`: also doubles '%' for
 * printf.  '?' is escaped against trigraphs. */
static void c_text(StrBuf *b, const char *s, bool fmt)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '?': sb_puts(b, "\\?"); break;
        case '%': sb_puts(b, fmt ? "%%" : "%"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                sb_printf(b, "\\%03o", c);
            else
                sb_putc(b, (char)c);
        }
    }
}

/* print(a, b, ...) as numba's CUDA print: each scalar by its printf
 * conversion of kernrt_types.h ("%lld" for signed integers, "%llu" for
 * unsigned, "%f" for floats), strings as they are, separated by spaces, a
 * newline at the end; device printf on CUDA, stdio's printf
 * (line-buffered or not, as stdout is) on the CPU. */
static void emit_print(Emitter *E, Node *s)
{
    StrBuf fmt = {0}, args = {0};
    sb_puts(&fmt, "");
    for (int i = 0; i < s->args.len; i++) {
        Node *a = s->args.items[i];
        if (i)
            sb_putc(&fmt, ' ');
        if (a->kind == E_STR) {
            c_text(&fmt, a->text, true);
            continue;
        }
        const Type *t = a->type;
        const ScalarInfo *info = ty_info(t);
        if (info && info->pfmt) {
            sb_puts(&fmt, info->pfmt);
            sb_puts(&args, ", ");
            sb_printf(&args, info->parg, ex(E, a));
        } else {
            error_at(a->loc, "print() cannot print a value of type %s", ty_name(t));
        }
    }
    outf(E, "printf(\"%s\\n\"%s);", fmt.s ? fmt.s : "", args.s ? args.s : "");
    sb_free(&fmt);
    sb_free(&args);
}

/* dev (issue 9): raise CLS("msg") and assert cond, "msg" (numba-cuda: `if
 * not cond: raise AssertionError(msg)`).  With debug=True (s->ival) the
 * exception is reported as numba-cuda reports it: the launch fails with
 * KRT_EEXCEPTION (the GPU's raising thread records it in the file's
 * krt_exception and ends; the CPU stops the block).
 * Without, the raising thread ends, as numba's kernel returns: see
 * emit_range_step_check for the four cases (a CPU device function that is
 * not inlined cannot end its caller's thread: the launch fails, loudly). */
static void emit_raise(Emitter *E, Node *s, const char *cls, Node *msg)
{
    bool kernel = E->fn->is_kernel || E->inlined;
    bool nonvoid = E->fn->ret && E->fn->ret->kind != TY_VOID && E->fn->ret->kind != TY_NONE;
    const char *ret = nonvoid && !kernel ? arena_printf("return %s;", zero_of(E->fn->ret)) : "return;";
    StrBuf m = {0};
    if (msg && msg->kind == E_STR && msg->text)
        c_text(&m, msg->text, false);
    const char *text = msg ? arena_printf("\"%s\"", m.s ? m.s : "") : "NULL";
    StrBuf fn = {0};
    c_text(&fn, E->fn->name, false);
    if (s->ival) {
        if (E->mode == MODE_CUDA)
            outf(E, "krt_raise_dev(&krt_exception_%s, \"%s\", \"%s\", \"%s\", %d, %s);",
                 E->modsym, cls, fn.s, E->base_file,
                 s->loc.first_line, text);
        else
            outf(E, "krt_raise_cpu(krt_b, krt_tid, \"%s\", \"%s\", \"%s\", %d, %s);", cls, fn.s,
                 E->base_file, s->loc.first_line, text);
        outf(E, "%s", ret);
    } else if (E->mode == MODE_CUDA) {
        if (!kernel)
            outf(E, "krt_exit_thread_dev();");
        outf(E, "%s", ret);
    } else if (!kernel) {
        outf(E, "krt_cpu_fail(krt_b, KRT_EKERNEL, \"%s:%d: %s raised in device function '%s' "
             "without debug=True (the CPU backend cannot end the calling thread, so the "
             "launch fails)\");", E->base_file, s->loc.first_line, cls, fn.s);
        outf(E, "%s", ret);
    } else if (E->thread_loop) {
        emit_thread_exit(E, s);
    } else {
        die("a CPU kernel's raise outside a thread loop");
    }
    sb_free(&m);
    sb_free(&fn);
}

static void emit_assert(Emitter *E, Node *s)
{
    outf(E, "if (!(%s)) {", ex_cond(E, s->cond));
    E->indent++;
    emit_raise(E, s, "AssertionError", s->lhs);
    E->indent--;
    outf(E, "}");
}

/* The type an S_WARPOP's result is converted from. */
static Node warp_node(Node *s)
{
    Node n = *s;
    n.kind = E_API;
    n.type = s->lhs ? s->lhs->type : NULL;
    return n;
}

/* S_BARRIER and S_WARPOP inside a CUDA function (and S_BARRIER with no
 * value inside a CPU kernel's region never happens: it is a cut). */
static void emit_sync_cuda(Emitter *E, Node *s)
{
    const ApiEntry *a = s->api ? s->api : &api_table[API_SYNCTHREADS];
    if (s->kind == S_BARRIER && a->rule == TR_GRID_SYNC) {
        /* needs a cooperative launch: the descriptor says so */
        outf(E, "%s;", a->cuda);
        return;
    }
    if (s->kind == S_BARRIER) {
        if (a->rule == TR_SYNCTHREADS) {
            outf(E, "%s();", a->cuda);
            return;
        }
        if (a->rule == TR_SYNCWARP) {
            outf(E, "%s(%s);", a->cuda, s->lhs ? arena_printf("(unsigned)%s", ex(E, s->lhs)) : "0xffffffffu");
            return;
        }
        const char *call = arena_printf("%s((int)(%s))", a->cuda, s->lhs ? ex(E, s->lhs) : "1");
        if (s->rhs)
            outf(E, "%s = %s;", ex(E, s->rhs), conv(call, ty_int32, s->rhs->type));
        else
            outf(E, "(void)%s;", call);
        return;
    }
    Node n = warp_node(s);
    const char *x = ex_warp_cuda(E, &n, s->api, s->args.items, s->args.len);
    if (s->lhs)
        outf(E, "%s = %s;", ex(E, s->lhs), unparen(x));
    else if (a->rule == TR_SYNCWARP)
        outf(E, "%s;", x);
    else
        outf(E, "(void)%s;", x);
}

/* An assignment's target: an element access there is a write (issue 13,
 * --racecheck). */
static const char *ex_target(Emitter *E, Node *t)
{
    E->rc_kind = 1;  /* KRT_RC_WRITE */
    const char *s = ex(E, t);
    E->rc_kind = 0;
    return s;
}

void emit_stmt(Emitter *E, Node *s)
{
    switch (s->kind) {
    case S_NOP: case S_PASS: case S_ARRAYDECL:
        return;
    default:
        break;
    }
    emit_lineno(E, s->loc);
    switch (s->kind) {
    case S_EXPR: {
        Node *e = s->lhs;
        const char *x = ex(E, e);
        if (!e->type || e->type->kind == TY_VOID || e->type->kind == TY_NONE)
            outf(E, "%s;", x);
        else
            outf(E, "(void)%s;", x);
        return;
    }
    case S_ASSIGN: {
        if (s->args.len == 1) {
            Node *t = s->args.items[0];
            if (t->kind == E_VIEW) {   /* issue 9: a[lo:hi] = x, the value first */
                const Type *el = t->type->elem;
                int nd = t->type->ndim;
                outf(E, "{");
                E->indent++;
                outf(E, "%s krt_fill_x = %s;", t_c(el), unparen(ex_as(E, s->rhs, el)));
                outf(E, "krt_view krt_fill_v = %s;", ex_view(E, t));
                StrBuf at = {0};
                for (int k = 0; k < nd; k++) {
                    outf(E, "for (int64_t krt_fill_i%d = 0; krt_fill_i%d < krt_fill_v.shape[%d]; "
                         "krt_fill_i%d++)", k, k, k, k);
                    sb_printf(&at, " + krt_fill_i%d * krt_fill_v.strides[%d]", k, k);
                    E->indent++;
                }
                outf(E, "*(%s *)(krt_fill_v.data%s) = krt_fill_x;", t_c(el), sb_take(&at));
                E->indent -= nd + 1;
                outf(E, "}");
                return;
            }
            if (t->kind == E_TUPLEGET && t->type && t->type->kind == TY_ARRAY &&
                t->lhs->type && t->lhs->type->kind == TY_RECORD) {
                /* rec: a subarray field from an array: its elements copied from
                 * the array's data in memory order, as numba's memcpy */
                const RecField *f = &t->lhs->type->rec->fields[t->ival];
                int64_t n = 1;
                for (int k = 0; k < f->ndim; k++)
                    n *= f->shape[k];
                const char *T = t_elem(f->type);
                outf(E, "{");
                E->indent++;
                outf(E, "const krt_view krt_cp_v = %s;", unparen(array_value(E, s->rhs)));
                outf(E, "%s *krt_cp_d = (%s *)&%s;", T, T, record_member(E, t));
                outf(E, "for (int64_t krt_cp_i = 0; krt_cp_i < %lld; krt_cp_i++)", (long long)n);
                outf(E, "    krt_cp_d[krt_cp_i] = ((const %s *)krt_cp_v.data)[krt_cp_i];", T);
                E->indent--;
                outf(E, "}");
                return;
            }
            if (t->type && t->type->kind == TY_RECORD) {   /* rec */
                if (t->kind == E_VAR)   /* the variable refers to it */
                    outf(E, "%s = %s;", var_ref(E, t->var), ex_as(E, s->rhs, t->type));
                else   /* a copy of the whole record */
                    outf(E, "%s = %s;", ex(E, t), unparen(ex(E, s->rhs)));
                return;
            }
            if (t->type && t->type->kind == TY_ARRAY) {   /* a view variable */
                outf(E, "%s = %s;", ex(E, t), unparen(array_value(E, s->rhs)));
                return;
            }
            const char *rhs = unparen(ex_as(E, s->rhs, t->type));
            outf(E, "%s = %s;", ex_target(E, t), rhs);
            return;
        }
        const char *tmp = new_tmp(E, s->rhs->type);
        outf(E, "%s = %s;", tmp, ex(E, s->rhs));
        for (int i = 0; i < s->args.len; i++) {
            Node *t = s->args.items[i];
            outf(E, "%s = %s;", ex_target(E, t), conv(tmp, s->rhs->type, t->type));
        }
        return;
    }
    case S_IF: {
        outf(E, "if (%s) {", ex_cond(E, s->cond));
        for (;;) {
            E->indent++;
            emit_stmts(E, &s->body);
            E->indent--;
            /* elif: an else holding one if */
            if (s->orelse.len == 1 && s->orelse.items[0]->kind == S_IF) {
                s = s->orelse.items[0];
                emit_lineno(E, s->loc);
                outf(E, "} else if (%s) {", ex_cond(E, s->cond));
                continue;
            }
            if (s->orelse.len > 0) {
                outf(E, "} else {");
                E->indent++;
                emit_stmts(E, &s->orelse);
                E->indent--;
            }
            break;
        }
        outf(E, "}");
        return;
    }
    case S_WHILE:
        if (s->orelse.len > 0) {
            error_at(s->loc, "while/else is not supported");
            return;
        }
        outf(E, "while (%s) {", ex_cond(E, s->cond));
        E->indent++;
        E->cloops++;
        emit_stmts(E, &s->body);
        E->cloops--;
        E->indent--;
        outf(E, "}");
        return;
    case S_FORRANGE:
        emit_for_range(E, s);
        return;
    case S_BREAK: case S_CONTINUE: {
        bool brk = s->kind == S_BREAK;
        if (E->cloops > 0)
            outf(E, brk ? "break;" : "continue;");
        else if (E->thread_loop && E->frame)
            emit_thread_exit(E, s);   /* of a block-level loop */
        else
            die("'%s' outside a loop", brk ? "break" : "continue");
        return;
    }
    case S_RETURN:
        if (E->inlined) {
            /* the inlined callee's result, then the thread leaves it */
            if (E->inl_ret && s->lhs)
                outf(E, "krt_f->%s = %s;", E->inl_ret, unparen(ex_as(E, s->lhs, E->fn->ret)));
            if (!E->thread_loop)
                die("an inlined return outside a thread loop");
            emit_thread_exit(E, s);
            return;
        }
        if (E->fn->is_kernel) {
            if (s->lhs && s->lhs->kind != E_NONE && s->lhs->type && s->lhs->type->kind != TY_NONE)
                error_at(s->loc, "a kernel cannot return a value");
            if (E->thread_loop)
                emit_thread_exit(E, s);
            else
                outf(E, "return;");
        } else if (!E->fn->ret || E->fn->ret->kind == TY_VOID || E->fn->ret->kind == TY_NONE) {
            outf(E, "return;");
        } else if (!s->lhs) {
            outf(E, "return %s;", zero_of(E->fn->ret));
        } else {
            outf(E, "return %s;", unparen(ex_as(E, s->lhs, E->fn->ret)));
        }
        return;
    case S_BARRIER: case S_WARPOP:
        /* on the CPU they are cuts (lower_cpu.c), never a thread's
         * statement: a device function holding one is inlined */
        if (E->mode != MODE_CUDA)
            die("%s in a CPU thread's statement", s->api ? s->api->path : "a barrier");
        emit_sync_cuda(E, s);
        return;
    case S_PRINT:
        emit_print(E, s);
        return;
    case S_ASSERT:
        emit_assert(E, s);
        return;
    case S_RAISE:   /* dev */
        emit_raise(E, s, s->text, s->lhs);
        return;
    default:
        error_at(s->loc, "%s cannot be translated here", node_kind_desc[s->kind]);
        return;
    }
}

/* Can control reach the end of this statement list? (To add a return the
 * compiler can see at the end of a device function that needs one.) */
bool falls_through(const NodeList *l)
{
    if (l->len == 0)
        return true;
    const Node *s = l->items[l->len - 1];
    if (s->kind == S_RETURN)
        return false;
    if (s->kind == S_IF)
        return s->orelse.len == 0 || falls_through(&s->body) || falls_through(&s->orelse);
    return true;
}

/* ------------------------------------------------------------------ */
/* Declarations                                                        */
/* ------------------------------------------------------------------ */

const char *array_dims(const Var *v)
{
    const Type *t = v->type;
    StrBuf b = {0};
    for (int k = 0; k < t->ndim && k < 3; k++)
        sb_printf(&b, "[%lld]", (long long)v->shape[k]);
    if (v->align > 0)   /* py: alignment= (CUDA's __align__ is this attribute) */
        sb_printf(&b, " __attribute__((aligned(%d)))", v->align);
    return sb_take(&b);
}

/* issue 13 (hard): is array v only ever the target of element stores
 * (`s[i] = x`), never read, passed or viewed?  nvcc reports such an array
 * as set but never used (#550-D). */
typedef struct StoreOnly {
    const Var *v;
    bool used;
} StoreOnly;

static Visit store_only_use(const Node *n, void *ctx)
{
    StoreOnly *so = ctx;
    if (so->used)   /* the answer is known: no more of the walk */
        return VISIT_STOP;
    if (n->kind == E_VAR && n->var == so->v) {
        so->used = true;
        return VISIT_STOP;
    }
    if (n->kind == S_ASSIGN) {
        for (int i = 0; i < n->args.len; i++) {
            const Node *t = n->args.items[i];
            if (t->kind == E_INDEX && t->lhs && t->lhs->kind == E_VAR && t->lhs->var == so->v) {
                for (int k = 0; k < t->args.len; k++)
                    node_walk(t->args.items[k], store_only_use, so);
            } else {
                node_walk(t, store_only_use, so);
            }
        }
        node_walk(n->rhs, store_only_use, so);
        return VISIT_SKIP;
    }
    return VISIT_CHILDREN;
}

static bool array_store_only(Emitter *E, const Var *v)
{
    StoreOnly so = {v, false};
    for (int i = 0; i < E->fn->def->body.len && !so.used; i++)
        node_walk(E->fn->def->body.items[i], store_only_use, &so);
    return !so.used;
}

/* Declare local variable v as a C local (not in a frame). */
void decl_local(Emitter *E, Var *v)
{
    const Type *t = v->type;
    switch (v->kind) {
    case VAR_SHARED:   /* issue 13: written, never read: no #550-D */
        if (E->mode == MODE_CUDA)
            outf(E, "__shared__ %s %s%s%s;", t_elem(t->elem), v->cname, array_dims(v),
                 array_store_only(E, v) ? " KRT_MAYBE_UNUSED" : "");
        return;
    case VAR_DYNSHARED:
        if (E->mode == MODE_CUDA)
            outf(E, "%s *%s = (%s *)krt_dynshared;", t_elem(t->elem), v->cname, t_elem(t->elem));
        else
            outf(E, "%s *%s = (%s *)krt_b->dyn_shared;", t_elem(t->elem), v->cname, t_elem(t->elem));
        return;
    case VAR_LOCALARRAY:
        outf(E, "%s %s%s%s;", t_elem(t->elem), v->cname, array_dims(v),
             array_store_only(E, v) ? " KRT_MAYBE_UNUSED" : "");
        return;
    case VAR_CONSTARRAY:
        return;
    default:
        break;
    }
    /* nvcc reports a variable that is set but never read (#550-D, e.g. an
     * unused loop variable) even after a (void) cast; the attribute
     * silences it, as it does gcc's -Wunused-but-set-variable */
    bool unread = v->index >= 0 && v->index < E->fn->nlocals && E->fn->locals[v->index] == v &&
                  !E->local_read[v->index];
    const char *attr = unread ? " KRT_MAYBE_UNUSED" : "";
    if (t->kind == TY_ARRAY)
        outf(E, "krt_view %s%s;", v->cname, attr);
    else if (t_scalar(t) || t->kind == TY_TUPLE || t->kind == TY_VECTOR || t->kind == TY_RECORD ||
             t->kind == TY_CHARSEQ)
        outf(E, "%s %s%s = %s;", t_c(t), v->cname, attr, zero_of(t));
    else
        error_at(v->loc, "variable '%s' has a type kernc cannot translate (%s)", v->name,
                 ty_name(t));
}

void decl_tmps(Emitter *E)
{
    /* zeroed: a failed launch's reads of it must not read garbage (and
     * gcc sees that they could) */
    if (E->used_sink)
        outf(E, "krt_sink krt_sinkv = {0};");
    for (int i = 0; i < E->ntmp; i++)
        outf(E, "%s krt_tmp%d;", t_c(E->tmp_types[i]), i);
}

void void_unread(Emitter *E, bool params, bool locals)
{
    Func *f = E->fn;
    if (params)
        for (int i = 0; i < f->nparams; i++)
            if (!E->param_read[i])
                outf(E, "(void)%s;", f->params[i]->cname);
    if (locals)
        for (int i = 0; i < f->nlocals; i++) {
            Var *v = f->locals[i];
            if (!E->local_read[i] && v->kind != VAR_SHARED && v->kind != VAR_CONSTARRAY)
                outf(E, "(void)%s;", v->cname);
        }
}

/* Does kernel-or-function `from` call `to`, directly or not? */
typedef struct Reach {
    const Func *to;
    PtrVec seen;
    bool hit;
} Reach;

static Visit reach_visit(const Node *n, void *ctx)
{
    Reach *r = ctx;
    if (n->kind != E_CALLFN || !n->callee)
        return VISIT_CHILDREN;
    if (n->callee == r->to) {
        r->hit = true;
        return VISIT_STOP;
    }
    for (int i = 0; i < r->seen.len; i++)
        if (r->seen.items[i] == n->callee)
            return VISIT_CHILDREN;
    vec_push(&r->seen, n->callee);
    for (int i = 0; i < n->callee->def->body.len && !r->hit; i++)
        node_walk(n->callee->def->body.items[i], reach_visit, r);
    return r->hit ? VISIT_STOP : VISIT_CHILDREN;
}

static bool reaches(const Func *from, const Func *to)
{
    Reach r = {to, {0}, false};
    for (int i = 0; i < from->def->body.len && !r.hit; i++)
        node_walk(from->def->body.items[i], reach_visit, &r);
    return r.hit;
}

/* fastmath's NVVM options for device function f: every kernel that calls
 * it is a fastmath one (and one does). */
static bool devfunc_nvvm_fast(const Program *p, const Func *f)
{
    bool any = false;
    for (int i = 0; i < p->nfuncs; i++) {
        const Func *k = p->funcs[i];
        if (!k->is_kernel || !reaches(k, f))
            continue;
        if (!k->opt.fastmath)
            return false;
        any = true;
    }
    return any;
}

void func_begin(Emitter *E, Func *f, Mode mode)
{
    E->fn = f;
    E->mode = mode;
    vec_cuda_names = mode == MODE_CUDA;
    E->frame = false;
    E->thread_loop = false;
    E->cloops = 0;
    E->ntmp = 0;
    E->used_s = false;
    E->cpu_failed = false;
    E->debug = f->opt.debug || (E->opt && E->opt->debug);
    E->nvvm_fast = mode == MODE_CUDA &&
                   (f->opt.fastmath || (!f->is_kernel && E->prog && devfunc_nvvm_fast(E->prog, f)));
    E->used_sink = false;
    E->cpu = NULL;
    E->cpu_vars = NULL;
    E->cpu_binds = NULL;
    E->cpu_region = NULL;
    E->cpu_chunked = false;
    E->inlined = false;
    E->inl_ret = NULL;
    if (f->param_read) {   /* speed: a kernel is printed up to three times */
        E->param_read = f->param_read;
        E->local_read = f->local_read;
        return;
    }
    E->param_read = arena_alloc(sizeof(bool) * (size_t)(f->nparams + 1));
    E->local_read = arena_alloc(sizeof(bool) * (size_t)(f->nlocals + 1));
    for (int i = 0; i < f->def->body.len; i++)
        walk_uses(E, f->def->body.items[i], false);
    f->param_read = E->param_read;
    f->local_read = E->local_read;
}

/* Swap the output buffer: bodies are printed first (so that the
 * declarations know what the body used), then assembled. */
StrBuf *swap_out(Emitter *E, StrBuf *b)
{
    StrBuf *old = E->out;
    E->out = b;
    return old;
}

const char *param_decl(const Var *v)
{
    return arena_printf("%s %s", t_c(v->type), v->cname);
}

const char *param_list(const Func *f, const char *lead)
{
    StrBuf b = {0};
    sb_puts(&b, lead);
    for (int i = 0; i < f->nparams; i++)
        sb_printf(&b, "%s%s", (i || *lead) ? ", " : "", param_decl(f->params[i]));
    if (!b.s || !*b.s)
        sb_puts(&b, "void");
    return sb_take(&b);
}

/* ------------------------------------------------------------------ */

/* Device functions, on both targets, and CUDA kernels are emitted in two
 * steps: the statements first, into a buffer of their own (func_body),
 * since the locals and temporaries they use are only known afterwards;
 * then, after the signature and its opening brace, those declarations and
 * the buffer (func_close). */

/* A device function that returns something (a kernel returns nothing). */
bool func_returns_value(const Func *f)
{
    return !f->is_kernel && f->ret && f->ret->kind != TY_VOID && f->ret->kind != TY_NONE;
}

/* f's statements into *body; one that returns a value and may fall off
 * its end gets a return of its type's zero there.  Leaves the indent at
 * the body's. */
void func_body(Emitter *E, Func *f, StrBuf *body)
{
    StrBuf *out = swap_out(E, body);
    E->indent = 1;
    emit_stmts(E, &f->def->body);
    if (func_returns_value(f) && falls_through(&f->def->body))
        outf(E, "return %s;", zero_of(f->ret));
    swap_out(E, out);
}

/* The rest of f after its opening brace (and what the caller wrote there):
 * locals and temporaries, the statements func_body kept, the closing
 * brace. */
void func_close(Emitter *E, Func *f, StrBuf *body)
{
    for (int i = 0; i < f->nlocals; i++)
        decl_local(E, f->locals[i]);
    decl_tmps(E);
    void_unread(E, true, true);
    if (body->s)
        sb_puts(E->out, body->s);
    sb_free(body);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}
