/*
 * types.c - the type representation and numba's casting graph.
 *
 * Scalar, void and marker types are singletons made by types_init; arrays
 * and tuples are interned, so types compare by pointer.  What the
 * translator knows of each scalar type (ty_scalar_info) is its row of
 * kernrt_types.h; what depends on the kind of number asks the row's class,
 * never the kind's position.  np.promote_types works from the table's
 * promotion ranks and NumPy's safe-cast rule per class.  The casting graph
 * is numba's (numba/core/typeconv/rules.py, closed transitively as its
 * TypeGraph does), and ty_resolve_case is numba's overload resolution over
 * a list of candidate signatures: type.c types every operator and builtin
 * with it.
 */
#include "kernc.h"
#include "kernrt.h"   /* KRT_XOROSHIRO128P, the dtype of ty_rngstate */
#include "kernrt_vector.h"   /* the vector types' table */

#include <string.h>

/* ------------------------------------------------------------------ */
/* Types                                                               */
/* ------------------------------------------------------------------ */

#define NSCALAR TY_NSCALAR

Type *ty_scalar[NSCALAR];
Type *ty_void, *ty_none, *ty_range, *ty_module, *ty_function, *ty_error;
Type *ty_rngstate, *ty_gridgroup;

const ScalarInfo ty_scalar_info[NSCALAR] = {
#define X_(a, e, code, numba, numpy, aliases, letters, descr, sfx, ctype, stype, size,   \
           class, rank, fsfx, digits, pfmt, parg)                                        \
    [TY_##e] = {numba, aliases, letters, #sfx, #ctype, #stype, "KRT_" #e, code, size,      \
                SC_##class, rank, #fsfx, digits, pfmt, parg},
    KRT_SCALAR_TABLE(X_, _)
#undef X_
};

/* The scalar kinds in NumPy's promotion order (rank). */
static TypeKind by_rank[NSCALAR];

static PtrVec interned;   /* arrays and tuples */

static Type *new_type(TypeKind kind)
{
    Type *t = arena_alloc(sizeof *t);
    t->kind = kind;
    return t;
}

static void conv_init(void);

void types_init(void)
{
    for (int k = 0; k < NSCALAR; k++) {
        ty_scalar[k] = new_type((TypeKind)k);
        int at = k;
        while (at > 0 && ty_scalar_info[by_rank[at - 1]].rank > ty_scalar_info[k].rank) {
            by_rank[at] = by_rank[at - 1];
            at--;
        }
        by_rank[at] = (TypeKind)k;
    }
    ty_void = new_type(TY_VOID);
    ty_none = new_type(TY_NONE);
    ty_range = new_type(TY_RANGE);
    ty_module = new_type(TY_MODULE);
    ty_function = new_type(TY_FUNCTION);
    ty_error = new_type(TY_ERROR);
    ty_rngstate = new_type(TY_RNGSTATE);
    ty_gridgroup = new_type(TY_GRIDGROUP);
    interned = (PtrVec){0};
    conv_init();
}

Type *ty_array(Type *elem, int ndim, bool contiguous, MemSpace space)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind == TY_ARRAY && t->elem == elem && t->ndim == ndim &&
            t->contiguous == contiguous && t->space == space && !t->fortran)
            return t;
    }
    Type *t = new_type(TY_ARRAY);
    t->elem = elem;
    t->ndim = ndim;
    t->contiguous = contiguous;
    t->space = space;
    vec_push(&interned, t);
    return t;
}

/* issue 9: the F layout */
Type *ty_array_f(Type *elem, int ndim, MemSpace space)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind == TY_ARRAY && t->elem == elem && t->ndim == ndim && t->fortran &&
            t->space == space)
            return t;
    }
    Type *t = new_type(TY_ARRAY);
    t->elem = elem;
    t->ndim = ndim;
    t->fortran = true;
    t->space = space;
    vec_push(&interned, t);
    return t;
}

Type *ty_tuple(Type **elems, int n)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind != TY_TUPLE || t->nelems != n || t->tname)   /* arr: not named */
            continue;
        int j = 0;
        while (j < n && t->elems[j] == elems[j])
            j++;
        if (j == n)
            return t;
    }
    Type *t = new_type(TY_TUPLE);
    t->elems = arena_alloc(sizeof *t->elems * (size_t)(n ? n : 1));
    memcpy(t->elems, elems, sizeof *elems * (size_t)n);
    t->nelems = n;
    vec_push(&interned, t);
    return t;
}

/* arr (issue 9): a named tuple, interned by its name, fields and types */
Type *ty_ntuple(Type **elems, int n, const char *tname, const char *const *fnames)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind != TY_TUPLE || t->nelems != n || !t->tname || strcmp(t->tname, tname) != 0)
            continue;
        int j = 0;
        while (j < n && t->elems[j] == elems[j] && strcmp(t->fnames[j], fnames[j]) == 0)
            j++;
        if (j == n)
            return t;
    }
    Type *t = ty_tuple(elems, n);
    Type *nt = new_type(TY_TUPLE);
    nt->elems = t->elems;
    nt->nelems = n;
    nt->tname = tname;
    nt->fnames = fnames;
    vec_push(&interned, nt);
    return nt;
}

/* py (issue 9): compile-time arguments, interned */
Type *ty_funcref(FuncDef *fd)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind == TY_FUNCTION && t->fd == fd)
            return t;
    }
    Type *t = new_type(TY_FUNCTION);
    t->fd = fd;
    vec_push(&interned, t);
    return t;
}

Type *ty_apiref(const ApiEntry *api)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind == TY_FUNCTION && t->api == api)
            return t;
    }
    Type *t = new_type(TY_FUNCTION);
    t->api = api;
    vec_push(&interned, t);
    return t;
}

Type *ty_typeref(Type *ref)
{
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind == TY_TYPEREF && t->ref == ref)
            return t;
    }
    Type *t = new_type(TY_TYPEREF);
    t->ref = ref;
    vec_push(&interned, t);
    return t;
}

bool ty_is_ct(const Type *t)
{
    return t && ((t->kind == TY_FUNCTION && (t->fd || t->api)) || t->kind == TY_TYPEREF);
}

/* ty_is_scalar, ty_info, ty_is_int, ty_is_signed, ty_is_float and
 * ty_is_complex are inline in kernc.h (speed, issue 7) */
Type *ty_complex_part(const Type *t) { return t->kind == TY_COMPLEX64 ? ty_float32 : ty_float64; }
/* str: the char sequences (src/charseq.c has the rest): interned by unit
 * and count, reset with the records. */
static PtrVec seqs;   /* interned; reset with the records */

void charseq_reset(void)
{
    seqs = (PtrVec){0};
}

Type *ty_charseq(bool unicode, int64_t count)
{
    Type *unit = unicode ? ty_scalar[TY_UINT32] : ty_scalar[TY_UINT8];
    for (int i = 0; i < seqs.len; i++) {
        Type *t = seqs.items[i];
        if (t->elem == unit && t->nelems == count)
            return t;
    }
    Type *t = arena_alloc(sizeof *t);
    t->kind = TY_CHARSEQ;
    t->elem = unit;
    t->nelems = (int)count;
    vec_push(&seqs, t);
    return t;
}

bool ty_is_charseq(const Type *t)
{
    return t && t->kind == TY_CHARSEQ;
}

bool charseq_unicode(const Type *t)
{
    return t->elem->kind == TY_UINT32;
}

/* numba's names: [char x 12], [unichr x 12] */
const char *charseq_name(const Type *t)
{
    return arena_printf("[%s x %d]", charseq_unicode(t) ? "unichr" : "char", t->nelems);
}

const char *charseq_cname(const Type *t)
{
    return arena_printf("krt_%c%d", charseq_unicode(t) ? 'U' : 'S', t->nelems);
}

int charseq_size(const Type *t)
{
    return t->nelems * (charseq_unicode(t) ? 4 : 1);
}

int charseq_dtype(const Type *t)
{
    return (int)(charseq_unicode(t) ? KRT_STR_DTYPE(t->nelems) : KRT_BYTES_DTYPE(t->nelems));
}


int ty_size(const Type *t)
{
    if (t && t->kind == TY_RECORD)   /* rec: NumPy's itemsize */
        return (int)t->rec->size;
    if (ty_is_charseq(t))   /* str */
        return charseq_size(t);
    return ty_is_scalar(t) ? ty_info(t)->size : 0;
}
const char *ty_cname(const Type *t) { return ty_is_scalar(t) ? ty_info(t)->cname : "void"; }
int ty_dtype(const Type *t)
{
    if (t && t->kind == TY_RNGSTATE)
        return KRT_XOROSHIRO128P;
    if (ty_is_charseq(t))   /* str: KRT_BYTES_DTYPE(n), KRT_STR_DTYPE(n) */
        return charseq_dtype(t);
    return ty_is_scalar(t) ? ty_info(t)->code : -1;
}

const ScalarInfo *ty_info_of_dtype(int dtype)
{
    for (int k = 0; k < NSCALAR; k++)
        if (ty_scalar_info[k].code == dtype)
            return &ty_scalar_info[k];
    return NULL;
}

Type *ty_scalar_named(const char *name)
{
    for (int k = 0; k < NSCALAR; k++)
        if (strcmp(ty_scalar_info[k].name, name) == 0)
            return ty_scalar[k];
    return NULL;
}

/* rec: numba's str() of a record (src/record.c): Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True) */
static const char *record_name(const Type *t)
{
    StrBuf b = {0};
    sb_puts(&b, "Record(");
    for (int i = 0; i < t->rec->nfields; i++) {
        const RecField *f = &t->rec->fields[i];
        sb_printf(&b, "%s%s[type=", i ? "," : "", f->name);
        if (f->ndim) {
            sb_printf(&b, "nestedarray(%s, (", ty_name(f->type));
            for (int k = 0; k < f->ndim; k++)
                sb_printf(&b, "%s%lld", k ? ", " : "", (long long)f->shape[k]);
            sb_puts(&b, f->ndim == 1 ? ",))" : "))");
        } else {
            sb_puts(&b, ty_name(f->type));
        }
        sb_printf(&b, ";offset=%lld]", (long long)f->offset);
    }
    sb_printf(&b, ";%lld;%s)", (long long)t->rec->size, t->rec->aligned ? "True" : "False");
    return sb_take(&b);
}

const char *ty_name(const Type *t)
{
    if (!t)
        return "<unknown>";
    if (ty_is_scalar(t))
        return ty_info(t)->name;
    switch (t->kind) {
    case TY_VOID: return "void";
    case TY_NONE: return "none";
    case TY_RANGE: return "range";
    case TY_MODULE: return "module";
    case TY_FUNCTION:   /* py: numba's Dispatcher / Function */
        return t->fd ? arena_printf("function %s", t->fd->name) :
               t->api ? arena_printf("Function(%s)", t->api->path) : "function";
    case TY_TYPEREF: return arena_printf("class(%s)", ty_name(t->ref));   /* numba's NumberClass */
    case TY_ERROR: return "<error>";
    case TY_RNGSTATE: return "xoroshiro128p_type";
    case TY_GRIDGROUP: return "GridGroup";
    case TY_VECTOR: return arena_printf("%sx%d", ty_name(t->elem), t->nelems);
    case TY_RECORD: return record_name(t);   /* rec */
    case TY_CHARSEQ: return charseq_name(t);   /* str */
    case TY_ARRAY: {
        StrBuf b = {0};
        sb_printf(&b, "%s[", ty_name(t->elem));
        for (int i = 0; i < t->ndim; i++)
            sb_puts(&b, t->fortran ? (i == 0 ? "::1" : ", :") :
                        i + 1 < t->ndim ? ":, " : (t->contiguous ? "::1" : ":"));
        sb_putc(&b, ']');
        return sb_take(&b);
    }
    case TY_TUPLE: {
        StrBuf b = {0};
        bool uni = true;
        if (t->is_enum)   /* arr: numba's EnumMember */
            return arena_printf("Enum<%s>(%s)", ty_name(t->elems[0]), t->tname);
        if (t->tname) {   /* arr: numba's NamedTuple / NamedUniTuple */
            sb_printf(&b, "%s(", t->tname);
            for (int i = 0; i < t->nelems; i++)
                sb_printf(&b, "%s%s=%s", i ? ", " : "", t->fnames[i], ty_name(t->elems[i]));
            sb_putc(&b, ')');
            return sb_take(&b);
        }
        for (int i = 1; i < t->nelems; i++)
            uni = uni && t->elems[i] == t->elems[0];
        if (uni && t->nelems > 0)
            sb_printf(&b, "UniTuple(%s, %d)", ty_name(t->elems[0]), t->nelems);
        else {
            sb_puts(&b, "Tuple(");
            for (int i = 0; i < t->nelems; i++)
                sb_printf(&b, "%s%s", i ? ", " : "", ty_name(t->elems[i]));
            sb_putc(&b, ')');
        }
        return sb_take(&b);
    }
    default: return "?";
    }
}

/* Short code of a type for specialisation names: i4, u8, f4, b1; arrays
 * a<ndim><elem>[c][s|l]; tuples t<n><elem>. */
const char *ty_code(const Type *t)
{
    if (ty_is_scalar(t))
        return ty_info(t)->letters;
    if (t->kind == TY_RNGSTATE)
        return "xr";
    if (t->kind == TY_ARRAY)
        return arena_printf("a%d%s%s%s", t->ndim, ty_code(t->elem),
                            t->contiguous ? "c" : t->fortran ? "f" : "",
                            t->space == SPACE_SHARED ? "s" :
                            t->space == SPACE_LOCAL ? "l" :
                            t->space == SPACE_CONST ? "k" : "");
    if (t->kind == TY_TUPLE && t->nelems > 0)
        return arena_printf("t%d%s", t->nelems, ty_code(t->elems[0]));
    if (t->kind == TY_VECTOR)
        return arena_printf("v%d%s", t->nelems, ty_code(t->elem));
    /* py: compile-time arguments (a C name's part: dots become _) */
    if (t->kind == TY_FUNCTION && (t->fd || t->api)) {
        char *s = arena_printf("F%s", t->fd ? t->fd->name : t->api->path);
        for (char *q = s; *q; q++)
            if (*q == '.')
                *q = '_';
        return s;
    }
    if (t->kind == TY_TYPEREF)
        return arena_printf("T%s", ty_code(t->ref));
    if (t->kind == TY_RECORD)   /* rec: r<struct name> */
        return arena_printf("r%s", t->rec->cname + 8);
    if (t->kind == TY_CHARSEQ)   /* str: S12, U12 */
        return charseq_cname(t) + 4;
    return "x";
}

/* ------------------------------------------------------------------ */
/* numba's casting graph and overload resolution                       */
/* ------------------------------------------------------------------ */

enum { CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE, CONV_NONE };
static unsigned char conv[NSCALAR][NSCALAR];

/* numba/core/typeconv/rules.py, _init_casting_rules: X(kind, from, to);
 * each rule also gives the reverse direction as unsafe. */
#define CASTING_RULES(X)                                                     \
    X(CONV_SAFE, BOOL, INT8) X(CONV_SAFE, BOOL, UINT8)                       \
    X(CONV_PROMOTE, INT8, INT16) X(CONV_PROMOTE, UINT8, UINT16)              \
    X(CONV_PROMOTE, INT16, INT32) X(CONV_PROMOTE, UINT16, UINT32)            \
    X(CONV_PROMOTE, INT32, INT64) X(CONV_PROMOTE, UINT32, UINT64)            \
    X(CONV_SAFE, UINT8, INT16) X(CONV_SAFE, UINT16, INT32)                   \
    X(CONV_SAFE, UINT32, INT64)                                              \
    X(CONV_SAFE, INT16, FLOAT32) X(CONV_SAFE, INT32, FLOAT64)                \
    X(CONV_UNSAFE, INT32, FLOAT32)                                           \
    X(CONV_SAFE, INT64, FLOAT64) X(CONV_SAFE, UINT64, FLOAT64)               \
    X(CONV_PROMOTE, FLOAT32, FLOAT64)
/* numba-cuda 0.30's rules.py for float16 */
#define HALF_CASTING_RULES(X)                                                \
    X(CONV_SAFE, INT8, FLOAT16) X(CONV_UNSAFE, INT16, FLOAT16)               \
    X(CONV_PROMOTE, FLOAT16, FLOAT32)

/* bfloat16 (src/bf16.c): not in numba's TypeGraph but Bfloat16's own
 * can_convert_from/to, which numba asks of the pair directly (no paths
 * through it): from a float unsafe, from an 8-bit integer safe, from
 * another integer unsafe; to float32/float64 safe, to float16 and to the
 * integers unsafe; nothing with bool or complex. */
static void bf16_casting_rules(void)
{
    for (int k = 0; k < NSCALAR; k++) {
        const ScalarInfo *f = &ty_scalar_info[k];
        if (k == TY_BFLOAT16)
            continue;
        conv[k][TY_BFLOAT16] = f->cls == SC_FLOAT || f->cls == SC_HALF ? CONV_UNSAFE
                             : (f->cls == SC_SINT || f->cls == SC_UINT) ? (f->size == 1 ? CONV_SAFE : CONV_UNSAFE)
                             : CONV_NONE;
        conv[TY_BFLOAT16][k] = f->cls == SC_FLOAT ? CONV_SAFE
                             : f->cls == SC_HALF || f->cls == SC_SINT || f->cls == SC_UINT ? CONV_UNSAFE
                             : CONV_NONE;
    }
}

static void conv_init(void)
{
    for (int a = 0; a < NSCALAR; a++)
        for (int b = 0; b < NSCALAR; b++)
            conv[a][b] = a == b ? CONV_EXACT : CONV_NONE;
#define X_(k, from, to)                                                      \
    conv[TY_##from][TY_##to] = k;                                            \
    conv[TY_##to][TY_##from] = CONV_UNSAFE;
    CASTING_RULES(X_)
    HALF_CASTING_RULES(X_)
#undef X_
    /* complex: float32 -> complex64 and float64 -> complex128 are safe with
     * no way back (tcr.safe); complex64 -> complex128 a promotion */
    conv[TY_FLOAT32][TY_COMPLEX64] = CONV_SAFE;
    conv[TY_FLOAT64][TY_COMPLEX128] = CONV_SAFE;
    conv[TY_COMPLEX64][TY_COMPLEX128] = CONV_PROMOTE;
    conv[TY_COMPLEX128][TY_COMPLEX64] = CONV_UNSAFE;
    /* numba's TypeGraph propagates: a path costs its worst edge, and the
     * cheapest path wins. */
    for (bool changed = true; changed;) {
        changed = false;
        for (int a = 0; a < NSCALAR; a++)
            for (int b = 0; b < NSCALAR; b++) {
                if (conv[a][b] == CONV_NONE)
                    continue;
                for (int c = 0; c < NSCALAR; c++) {
                    if (a == c || conv[b][c] == CONV_NONE)
                        continue;
                    int r = conv[a][b] > conv[b][c] ? conv[a][b] : conv[b][c];
                    if (r < conv[a][c]) {
                        conv[a][c] = (unsigned char)r;
                        changed = true;
                    }
                }
            }
    }
    bf16_casting_rules();
}

/* numba's BaseContext._resolve_overload: rate every candidate of the right
 * arity by its (unsafe, safe, promote) conversion counts; the lowest wins,
 * the first on a tie.  -1 if none applies. */
/* speed (issue 7): the choice depends only on the candidate list (static
 * tables) and the arguments' scalar kinds, and typing asks the same few
 * questions thousands of times: answers are kept in a small cache. */
enum { RESOLVE_CACHE = 256 };
static struct {
    const Case *cases;
    int ncases, result;
    signed char kinds[3], nargs;
    bool unsafe, used;
} resolve_cache[RESOLVE_CACHE];

static int resolve_case(const Case *cases, int ncases, Type **args, int nargs, bool allow_unsafe);

int ty_resolve_case(const Case *cases, int ncases, Type **args, int nargs,
                        bool allow_unsafe)
{
    bool cacheable = nargs >= 0 && nargs <= 3;
    uint64_t h = (uint64_t)(uintptr_t)cases * 31u + (uint64_t)ncases * 7u + (uint64_t)nargs * 3u + allow_unsafe;
    for (int j = 0; j < nargs && cacheable; j++) {
        cacheable = ty_is_scalar(args[j]);
        if (cacheable)
            h = h * 0x100000001b3ull + (uint64_t)args[j]->kind + 1u;
    }
    if (!cacheable)
        return resolve_case(cases, ncases, args, nargs, allow_unsafe);
    h ^= h >> 29;
    size_t at = (size_t)(h & (RESOLVE_CACHE - 1));
    bool hit = resolve_cache[at].used && resolve_cache[at].cases == cases &&
               resolve_cache[at].ncases == ncases && resolve_cache[at].nargs == nargs &&
               resolve_cache[at].unsafe == allow_unsafe;
    for (int j = 0; j < nargs && hit; j++)
        hit = resolve_cache[at].kinds[j] == (signed char)args[j]->kind;
    if (hit)
        return resolve_cache[at].result;
    int r = resolve_case(cases, ncases, args, nargs, allow_unsafe);
    resolve_cache[at].cases = cases;
    resolve_cache[at].ncases = ncases;
    resolve_cache[at].nargs = (signed char)nargs;
    resolve_cache[at].unsafe = allow_unsafe;
    resolve_cache[at].used = true;
    for (int j = 0; j < nargs; j++)
        resolve_cache[at].kinds[j] = (signed char)args[j]->kind;
    resolve_cache[at].result = r;
    return r;
}

static int resolve_case(const Case *cases, int ncases, Type **args, int nargs, bool allow_unsafe)
{
    int best = -1, best_rate[3] = {0, 0, 0};
    for (int i = 0; i < ncases; i++) {
        int arity = 0;
        while (arity < 3 && cases[i].a[arity] >= 0)
            arity++;
        if (arity != nargs)
            continue;
        int rate[3] = {0, 0, 0};   /* unsafe, safe, promote */
        bool ok = true;
        for (int j = 0; j < nargs && ok; j++) {
            if (!ty_is_scalar(args[j])) {
                ok = false;
                break;
            }
            int k = conv[args[j]->kind][cases[i].a[j]];
            if (k == CONV_NONE || (k == CONV_UNSAFE && !allow_unsafe))
                ok = false;
            else if (k == CONV_UNSAFE)
                rate[0]++;
            else if (k == CONV_SAFE)
                rate[1]++;
            else if (k == CONV_PROMOTE)
                rate[2]++;
        }
        if (!ok)
            continue;
        bool better = best < 0;
        for (int j = 0; j < 3 && !better; j++) {
            if (rate[j] != best_rate[j]) {
                better = rate[j] < best_rate[j];
                break;
            }
        }
        if (better) {
            best = i;
            memcpy(best_rate, rate, sizeof rate);
        }
    }
    return best;
}

/* numba's can_convert(from, to) is exact, promote or safe (not unsafe):
 * the float16 operators' test (numba-cuda's cuda_fp16.py). */
bool ty_converts_safely(const Type *from, const Type *to)
{
    return ty_is_scalar(from) && ty_is_scalar(to) && conv[from->kind][to->kind] <= CONV_SAFE;
}

/* bfloat16 (src/bf16.c): numba can convert at all (unsafely included). */
bool ty_converts_unsafely(const Type *from, const Type *to)
{
    return ty_is_scalar(from) && ty_is_scalar(to) && conv[from->kind][to->kind] != CONV_NONE;
}

/* A float value rounded to the precision of float type t (float16 to
 * nearest even, as NumPy and the GPU round). */
double ty_round_float(const Type *t, double v)
{
    if (t && t->kind == TY_FLOAT32)
        return (double)(float)v;
    if (t && t->kind == TY_FLOAT16)
        return (double)krt_half_bits_to_float(krt_half_bits_from_double(v));
    if (t && t->kind == TY_BFLOAT16)   /* bfloat16 (src/bf16.c) */
        return (double)krt_bfloat16_bits_to_float(krt_bfloat16_bits_from_double(v));
    return v;
}

/* np.can_cast(from, to, 'safe') between two numbers (NumPy's
 * _npy_can_cast_safely_table): an integer fits a wider one of the same
 * signedness, or a wider signed one; a float holds an integer narrower
 * than itself (64-bit integers: float64 as well); floats widen. */
static bool np_safe_cast(const Type *from, const Type *to)
{
    const ScalarInfo *f = ty_info(from), *t = ty_info(to);
    if (from == to || f->cls == SC_BOOL)
        return true;
    if (f->cls == SC_COMPLEX && t->cls != SC_COMPLEX)
        return false;   /* complex */
    if (f->cls == SC_BF16)   /* bfloat16 (ml_dtypes): into float32 and wider */
        return (t->cls == SC_FLOAT && t->size >= 4) || t->cls == SC_COMPLEX;
    if (t->cls == SC_BF16)
        return f->cls == SC_BOOL || ((f->cls == SC_SINT || f->cls == SC_UINT) && f->size == 1);
    switch (t->cls) {
    case SC_SINT:
        return f->cls == SC_SINT ? t->size >= f->size : f->cls == SC_UINT && t->size > f->size;
    case SC_UINT:
        return f->cls == SC_UINT && t->size >= f->size;
    case SC_FLOAT: case SC_HALF:
        if (f->cls == SC_FLOAT || f->cls == SC_HALF)
            return t->size >= f->size;
        return t->size > f->size || (f->size == 8 && t->size == 8);
    case SC_COMPLEX:   /* a complex holds what its part's float holds */
        if (f->cls == SC_COMPLEX)
            return t->size >= f->size;
        return np_safe_cast(from, ty_complex_part(to));
    default:
        return false;
    }
}

/* np.promote_types for two numbers: the first type in NumPy's order that
 * both cast to safely. */
Type *ty_promote_numbers(Type *a, Type *b)
{
    if (a == b)
        return a;
    for (int i = 0; i < NSCALAR; i++) {
        Type *t = ty_scalar[by_rank[i]];
        if (np_safe_cast(a, t) && np_safe_cast(b, t))
            return t;
    }
    die("ty_promote_numbers: no common type of %s and %s", ty_name(a), ty_name(b));
}

/* np.promote_types for two numbers. */
/* numba's unify_pairs for the types a variable can hold; NULL if none. */
Type *ty_unify(Type *a, Type *b)
{
    if (!a)
        return b;
    if (!b || a == b)
        return a;
    if (ty_is_scalar(a) && ty_is_scalar(b)) {
        if (a->kind == TY_BOOL)
            return b;
        if (b->kind == TY_BOOL)
            return a;
        return ty_promote_numbers(a, b);
    }
    /* numba unifies tuples of one length element by element (arr: named
     * tuples only with the same named tuple class) */
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && (a->tname || b->tname) &&
        (!a->tname || !b->tname || strcmp(a->tname, b->tname) != 0))
        return NULL;
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->nelems == b->nelems) {
        Type **el = arena_alloc(sizeof *el * (size_t)(a->nelems ? a->nelems : 1));
        for (int i = 0; i < a->nelems; i++) {
            el[i] = ty_unify(a->elems[i], b->elems[i]);
            if (!el[i])
                return NULL;
        }
        return a->tname ? ty_ntuple(el, a->nelems, a->tname, a->fnames) : ty_tuple(el, a->nelems);
    }
    /* issue 9: numba's Array.unify: one dtype and ndim, layout A unless
     * both are C; views of different memory spaces are plain (global)
     * views, but a constant one stays apart (it is read-only) */
    if (a->kind == TY_ARRAY && b->kind == TY_ARRAY && a->elem == b->elem && a->ndim == b->ndim) {
        if (a->space != b->space && (a->space == SPACE_CONST || b->space == SPACE_CONST))
            return NULL;
        MemSpace sp = a->space == b->space ? a->space : SPACE_GLOBAL;
        if (a->fortran && b->fortran)
            return ty_array_f(a->elem, a->ndim, sp);
        return ty_array(a->elem, a->ndim, a->contiguous && b->contiguous, sp);
    }
    return NULL;
}


/* ------------------------------------------------------------------ */
/* Vector types (vecrec): kernrt_vector.h's table                      */
/* ------------------------------------------------------------------ */

static const struct VecBase {
    TypeKind elem;
    const char *numba, *cuda;
} vec_bases[] = {
#define X_(e, numba, cuda, ctype, size) {TY_##e, #numba, #cuda},
    KRT_VECTOR_BASES(X_)
#undef X_
};
#define NVEC_BASES ((int)(sizeof vec_bases / sizeof vec_bases[0]))

static const struct VecAlias {
    const char *alias, *numba;
} vec_aliases[] = {
#define X_(alias, numba) {#alias, #numba},
    KRT_VECTOR_ALIASES(X_)
#undef X_
};

static const struct VecBase *vec_base_of(const Type *elem)
{
    for (int i = 0; i < NVEC_BASES; i++)
        if (ty_scalar[vec_bases[i].elem] == elem)
            return &vec_bases[i];
    return NULL;
}

bool ty_is_vector(const Type *t) { return t && t->kind == TY_VECTOR; }

Type *ty_vector(Type *elem, int n)
{
    if (n < 1 || n > 4 || !vec_base_of(elem))
        return NULL;
    for (int i = 0; i < interned.len; i++) {
        Type *t = interned.items[i];
        if (t->kind == TY_VECTOR && t->elem == elem && t->nelems == n)
            return t;
    }
    Type *t = new_type(TY_VECTOR);
    t->elem = elem;
    t->nelems = n;
    vec_push(&interned, t);
    return t;
}

/* "float32x4" (numba-cuda's name) or "float4" (an alias: stubs.py) */
Type *ty_vector_named(const char *name)
{
    size_t len = strlen(name);
    if (len < 2 || name[len - 1] < '1' || name[len - 1] > '4')
        return NULL;
    int n = name[len - 1] - '0';
    size_t plen = len - 1;
    if (plen > 1 && name[plen - 1] == 'x') {
        for (int i = 0; i < NVEC_BASES; i++)
            if (strlen(vec_bases[i].numba) == plen - 1 &&
                strncmp(vec_bases[i].numba, name, plen - 1) == 0)
                return ty_vector(ty_scalar[vec_bases[i].elem], n);
    }
    for (size_t i = 0; i < sizeof vec_aliases / sizeof vec_aliases[0]; i++)
        if (strlen(vec_aliases[i].alias) == plen && strncmp(vec_aliases[i].alias, name, plen) == 0)
            return ty_vector_named(arena_printf("%sx%d", vec_aliases[i].numba, n));
    return NULL;
}

const char *ty_vector_cname(const Type *t)
{
    return arena_printf("krt_%s%d", vec_base_of(t->elem)->cuda, t->nelems);
}

const char *ty_vector_make(const Type *t)
{
    return arena_printf("krt_make_%s%d", vec_base_of(t->elem)->cuda, t->nelems);
}

/* suite (issues 8/9): the kind of numba conversion from -> to for overload
 * resolution of device functions with several explicit signatures:
 * 0 exact, 1 promote, 2 safe, 3 unsafe, 4 none (scalars only). */
int ty_conversion_kind(const Type *from, const Type *to)
{
    if (from == to)
        return CONV_EXACT;
    if (!ty_is_scalar(from) || !ty_is_scalar(to))
        return CONV_NONE;
    return ty_conversion_kind_of(from->kind, to->kind);
}

/* The same by scalar TypeKinds (kernc run rates overloads with it after
 * the translation's types are gone). */
int ty_conversion_kind_of(int from, int to)
{
    return from == to ? CONV_EXACT : conv[from][to];
}
