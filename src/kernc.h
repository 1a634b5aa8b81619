/*
 * kernc.h - the translator's one internal header, in sections per file.
 *
 * Pipeline, one file per pass, each reading the previous one's output
 * only, driven by src/translate.c:
 *   lex (grammar/lexer.l) -> layout (src/layout.c: INDENT/DEDENT)
 *   -> parse (grammar/parser.y: AST with locations)
 *   -> resolve (src/resolve.c: module-level names, decorators, signatures;
 *      with names.c, fold.c and sig.c)
 *   -> type (src/type.c: numba's typing, device-function specialisation,
 *      lowering to the typed tree below; with ssa.c, tree.c, typerules.c,
 *      and ufunc.c for the kernels of @vectorize/@guvectorize/cuda.reduce)
 *   -> check (src/check.c: kernel rules: barriers, returns, shared sizes)
 *   -> range (src/range.c: value ranges of integer expressions)
 *   -> lower (src/lower_cpu.c: the CPU block-level form of each kernel)
 *   -> emit (src/emit_*.c: CUDA C, C for the CPU backend, the C header).
 * The files form layers (tests/layers.sh).  The device API lives in one
 * table, src/api.def; the scalar types in another, the runtime's
 * runtime/kernrt_types.h.
 */
#ifndef KERNC_H
#define KERNC_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernrt_types.h"
#include "kernrt_vector.h"   /* the vector types (vecrec) */

/* ------------------------------------------------------------------ */
/* util.c: arena, growable arrays, strings, internal errors            */
/* ------------------------------------------------------------------ */

/* Everything of one translation lives in one arena, freed at once. */
void *arena_alloc(size_t n);              /* zeroed; never NULL (dies on OOM) */
char *arena_strdup(const char *s);
char *arena_strndup(const char *s, size_t n);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_free_all(void);
size_t mapped_bytes(void);                 /* mapped by the arena and big buffers so far */
bool second_core(long size, long min);     /* a second core for this work (KERNC_TEST_SPLIT) */
int test_split(void);                      /* KERNC_TEST_SPLIT: 0, 1, 2; -1 unset */
/* Work of this size on a side thread where second_core says so (false: not
 * started, the caller does it): fn(arg) allocates from chunks of its own,
 * which side_join adds to the arena; its formats skip the main thread's
 * cache.  grammar/parser.y's second half, translate.c's range and header. */
typedef struct SideThread {
    pthread_t thread;
    void (*fn)(void *);
    void *arg;
    struct ArenaChunk *chunks;
} SideThread;
bool side_start(SideThread *t, long size, long min, void (*fn)(void *), void *arg);
void side_join(SideThread *t);

/* Scratch memory for tree nodes that a pass builds and throws away: the
 * quiet passes of type.c's fixed point lower a whole body only to learn
 * the variables' types.  Between scratch_begin and scratch_end, node_alloc
 * (node_new, node_clone, nl_push) takes memory from a stack that
 * scratch_end gives back; everything else still comes from the arena.
 * Marks nest.  A node that must outlive the pass (a constant array's
 * elements, a specialisation's tree) is built between scratch_suspend and
 * scratch_resume.  Under AddressSanitizer the given-back memory is
 * poisoned, so a node kept past its pass is caught by the sanitizer run. */
typedef struct ScratchMark {
    void *chunk;
    size_t used;
    bool active;
} ScratchMark;
ScratchMark scratch_begin(void);
void scratch_end(ScratchMark m);
bool scratch_suspend(void);               /* the previous state, for resume */
bool scratch_holds(const void *p);        /* p is in the scratch chunks in use */
void scratch_resume(bool active);
void *node_alloc(size_t n);               /* zeroed, like arena_alloc */

/* Internal bug (not a user error): prints file:line and aborts. */
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A growable array of pointers; the arena owns its storage. */
typedef struct PtrVec {
    void **items;
    int len, cap;
} PtrVec;
void vec_push(PtrVec *v, void *p);

/* Pointer -> int, open addressing, grows; the arena owns its storage
 * (ssa.c's nodes, emit_host.c's kernel sets, type.c's statement memo) */
typedef struct PtrMap {
    const void **keys;
    int *vals;
    size_t cap, len;
} PtrMap;
int ptrmap_get(const PtrMap *m, const void *k);   /* -1: absent */
void ptrmap_put(PtrMap *m, const void *k, int v);

/* Growable string buffer (malloc'd; used by the emitter). */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
} StrBuf;
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);   /* n bytes of s */
void sb_reserve(StrBuf *b, size_t extra);   /* room for extra bytes more */
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void sb_free(StrBuf *b);
/* b's text copied into the arena ("" if b is empty); b is freed. */
char *sb_take(StrBuf *b);

/* s as the characters of a C string literal (arena): quotes and backslashes
 * escaped, control characters in octal (#line names, descriptor strings). */
const char *c_string(const char *s);
/* The last component of a path ("a/b.kern" -> "b.kern"). */
const char *path_base(const char *path);
/* FNV-1a of the n bytes at s, for the translator's hash tables;
 * str_hash_z: of the string s, str_hash(s, strlen(s)) in one pass. */
uint64_t str_hash(const char *s, size_t n);
uint64_t str_hash_z(const char *s);

/* "Did you mean": the candidate closest to a misspelled word, by edit
 * distance (insertions, deletions, substitutions and transpositions of
 * adjacent characters; a change of case costs half), as CPython's
 * NameError suggestions: a candidate qualifies when its distance is at most
 * a sixth of both lengths plus three (so one-letter names get none), the
 * first of the closest wins.  Use: Suggest s; suggest_init(&s, word); suggest_add(&s, cand)...;
 * then suggest_best(&s) is the word to offer or NULL. */
typedef struct Suggest {
    const char *want;
    const char *best;
    int cost;                   /* twice the edit distance of best */
} Suggest;
void suggest_init(Suggest *s, const char *want);
void suggest_add(Suggest *s, const char *cand);
const char *suggest_best(const Suggest *s);
/* "; did you mean 'x'?" (arena) for the best candidate, else "". */
const char *suggest_hint(const Suggest *s);

/* ---- mangle.c: C names for user names (one scheme for every name) ---- */
/* c_ident: the user's name, or with '_' appended when C/C++/CUDA or the
 * included headers reserve it, or it could meet a name kernc makes (one to
 * one: no two user names get the same C name).  c_name_plain: it is kept. */
const char *c_ident(const char *name);
/* issue 13 (hard): kernc --module-name NAME.  mangle_set_module: the
 * module name of this translation (NULL: none); module_sym: a global
 * symbol of the module (a kernel's C name, a ufunc host function) with
 * "NAME_" in front, or as it is without a module name. */
void mangle_set_module(const char *name);
const char *module_sym(const char *name);
bool c_name_plain(const char *name);
bool c_name_reserved(const char *name);

/* ------------------------------------------------------------------ */
/* diag.c: diagnostics                                                 */
/* ------------------------------------------------------------------ */

/* A source range, 1-based, compatible with bison's YYLTYPE. */
typedef struct Loc {
    int first_line, first_column;
    int last_line, last_column;
} Loc;

/* The file being translated: its name as given and its whole text. */
typedef struct Source {
    const char *path;
    const char *text;
    size_t len;
} Source;

void diag_init(const Source *src);
/* "file.kern:LINE:COL: error: msg", the source line, a caret under the
 * range.  Counted; translation stops after the pass that reported any. */
void error_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The warnings, one row each: W_<ID>, the name of its -W option, what it
 * is about (kernc --help lists them).  Every warning is on by default;
 * -Wno-NAME turns one off, -Werror=NAME makes one an error, and the
 * message ends with its option as gcc's do ("[-Wdivergent-barrier]"). */
#define KERNC_WARNINGS(X)                                                                     \
    X(DIVERGENT_BARRIER, "divergent-barrier",                                                 \
      "a barrier under a thread- or block-dependent condition")                               \
    X(CUDA_ONLY, "cuda-only", "a kernel the CPU backend cannot run (CUDA only)")             \
    X(LAUNCHER_NAME, "launcher-name", "a kernel whose C launcher gets another name")
typedef enum Warn {
#define X_(id, name, what) W_##id,
    KERNC_WARNINGS(X_)
#undef X_
    W__COUNT
} Warn;
void warning_at(Loc loc, Warn w, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void note_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int error_count(void);
/* speed (issue 7; the parser's fast pass): diag_mute(true) until
 * diag_mute(false), errors, warnings and notes are neither printed nor
 * counted; diag_mute(false) returns how many were. */
int diag_mute(bool on);
/* A context for what is reported until it is popped: each error and
 * warning is followed by "note: TEXT" at loc, the innermost context first
 * (the specialisation of a device function an error is in, and its call). */
void diag_push_context(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_pop_context(void);
/* A note for the next error or warning only, printed right after it
 * (before its contexts); dropped with it when sema_error has seen it. */
void diag_attach_note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error reported once per location and text (the semantic passes lower
 * a device function once per specialisation). */
void sema_error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vsema_error(Loc loc, const char *fmt, va_list ap);

/* ------------------------------------------------------------------ */
/* types.c: the types and numba's casting graph                      */
/* ------------------------------------------------------------------ */

/* The scalar types are the rows of the runtime's table (kernrt_types.h):
 * TY_<ENUM> for each, first in TypeKind, in no meaningful order; what code
 * asks of a scalar type is in its ScalarInfo. */
typedef enum TypeKind {
#define X_(e, ...) TY_##e,
    KRT_SCALAR_TYPES(X_)
#undef X_
    TY_VOID,       /* kernels, device functions without a value */
    TY_NONE,       /* the value None */
    TY_ARRAY,      /* elem, ndim, layout, space */
    TY_TUPLE,      /* elems[n] (homogeneous or not) */
    TY_RANGE,      /* range(...) as a for iterable */
    TY_MODULE,     /* cuda, math, np, ...: only as attribute prefixes */
    TY_FUNCTION,   /* a device function name */
    TY_TYPEREF,    /* a type name used as a value: float32, np.int64 */
    TY_RNGSTATE,   /* numba.cuda.random's xoroshiro128p_type: only the element
                      type of a 1-D array parameter (krt_dtype
                      KRT_XOROSHIRO128P); its elements are never values */
    TY_GRIDGROUP,  /* cuda.cg.this_grid(): only a local variable and the
                      receiver of .sync(); never reaches emit_*.c */
    /* vector types (vecrec) */
    TY_VECTOR,     /* cuda.float32x4 ...: elem (the base scalar), nelems 1..4
                      (fields x y z w); a value like a tuple (locals, tuple
                      elements, device-function arguments and results) */
    /* records (rec; src/record.c) */
    TY_RECORD,     /* a NumPy structured dtype (numba.from_dtype): rec, the
                      layout; a value is a reference to one in memory */
    /* char sequences (str; src/charseq.c) */
    TY_CHARSEQ,    /* NumPy 'S<n>' / '<U<n>' (numba's CharSeq, UnicodeCharSeq):
                      elem the code unit (uint8, uint32), nelems the count n;
                      a value is the n units (C: struct krt_S<n> / krt_U<n>) */
    TY_ERROR,      /* poison: an error was reported; suppresses cascades */
} TypeKind;

typedef enum MemSpace {
    SPACE_GLOBAL,  /* kernel parameters */
    SPACE_SHARED,  /* cuda.shared.array (static or dynamic) */
    SPACE_LOCAL,   /* cuda.local.array */
    SPACE_CONST,   /* cuda.const.array_like */
} MemSpace;

typedef struct Type Type;
struct Type {
    TypeKind kind;
    /* TY_ARRAY */
    Type *elem;          /* scalar element type */
    int ndim;
    bool contiguous;     /* layout 'C' ([::1]) vs 'A' (strided) */
    bool fortran;        /* issue 9: layout 'F' (a.T of a C array; contiguous
                            is false, ndim >= 2) */
    MemSpace space;
    /* TY_TUPLE */
    Type **elems;
    int nelems;
    /* TY_TYPEREF: the type named */
    Type *ref;
    /* py (issue 9): a function as a value (TY_FUNCTION, interned): the
       device function, or the callable API row (cuda.atomic.add); with
       TY_TYPEREF, compile-time arguments of device-function
       specialisations (numba's Dispatcher, Function and NumberClass) */
    struct FuncDef *fd;
    const struct ApiEntry *api;
    /* TY_RECORD (rec; src/record.c) */
    struct Record *rec;
    /* arr (issue 9): a named tuple (collections.namedtuple; src/ntuple.c)
       is a TY_TUPLE with its class name and field names (NULL: a plain
       tuple); its C struct is the plain tuple's */
    const char *tname;
    const char *const *fnames;
    bool is_enum;        /* arr: an Enum member: fnames {"value"} (src/ntuple.c) */
};

#define TY_NSCALAR KRT_NSCALAR      /* the scalar kinds: 0..TY_NSCALAR-1 */

/* The kinds of number (kernrt_types.h's class column). */
typedef enum ScalarClass {
    SC_BOOL,
    SC_SINT,       /* signed integers */
    SC_UINT,       /* unsigned integers */
    SC_FLOAT,
    /* float16 (src/half.c) */
    SC_HALF,       /* a 16-bit float: a float to typing, a helper for each operation */
    /* bfloat16 (src/bf16.c) */
    SC_BF16,       /* bfloat16: likewise, with its own conversions (kernrt_bf16.h) */
    /* complex (src/complex.c) */
    SC_COMPLEX,    /* complex64, complex128: two floats (re, im) */
} ScalarClass;

/* A row of kernrt_types.h, as the translator reads it. */
typedef struct ScalarInfo {
    const char *name;     /* numba's: float32 */
    const char *aliases;  /* numba's and NumPy's other spellings, space-separated */
    const char *letters;  /* numba's letter code: "f4" */
    const char *sfx;      /* device helper suffix: "f32" (krt_add_f32) */
    const char *cname;    /* C type in generated code: "float" */
    const char *abi;      /* C type in launchers and arrays: "float" ("uint8_t" for bool) */
    const char *dtype;    /* the krt_dtype enumerator: "KRT_FLOAT32" */
    int code;             /* its value */
    int size;
    ScalarClass cls;
    int rank;             /* NumPy's promotion order */
    const char *fsfx;     /* C's literal and <math.h> suffix: "f" */
    int digits;           /* %.<digits>g reads a float back */
    const char *pfmt;     /* print(): printf conversion */
    const char *parg;     /* print(): the argument, %s the value */
} ScalarInfo;
extern const ScalarInfo ty_scalar_info[TY_NSCALAR];   /* indexed by TypeKind */

extern Type *ty_scalar[TY_NSCALAR];       /* indexed by TypeKind */
extern Type *ty_void, *ty_none, *ty_range, *ty_module, *ty_function;
extern Type *ty_error;                     /* TY_ERROR: never reaches emit_*.c */
extern Type *ty_rngstate, *ty_gridgroup;   /* TY_RNGSTATE, TY_GRIDGROUP singletons */
#define ty_bool (ty_scalar[TY_BOOL])
#define ty_int32 (ty_scalar[TY_INT32])
#define ty_int64 (ty_scalar[TY_INT64])
#define ty_uint32 (ty_scalar[TY_UINT32])
#define ty_uint64 (ty_scalar[TY_UINT64])
#define ty_float32 (ty_scalar[TY_FLOAT32])
#define ty_float64 (ty_scalar[TY_FLOAT64])

void types_init(void);
Type *ty_array(Type *elem, int ndim, bool contiguous, MemSpace space); /* interned */
Type *ty_tuple(Type **elems, int n);                                   /* interned */
/* arr (issue 9): the named tuple `tname` with fields fnames[n]; interned */
Type *ty_ntuple(Type **elems, int n, const char *tname, const char *const *fnames);
/* issue 9: layout F (Fortran-contiguous), ndim >= 2; interned */
Type *ty_array_f(Type *elem, int ndim, MemSpace space);
/* speed (issue 7): the predicates every pass asks most, inline */
static inline bool ty_is_scalar(const Type *t) { return t && (int)t->kind < TY_NSCALAR; }
/* NULL unless a scalar */
static inline const ScalarInfo *ty_info(const Type *t)
{
    return ty_is_scalar(t) ? &ty_scalar_info[t->kind] : NULL;
}
/* signed or unsigned, not bool */
static inline bool ty_is_int(const Type *t)
{
    return ty_is_scalar(t) && (ty_info(t)->cls == SC_SINT || ty_info(t)->cls == SC_UINT);
}
static inline bool ty_is_signed(const Type *t) { return ty_is_scalar(t) && ty_info(t)->cls == SC_SINT; }
static inline bool ty_is_float(const Type *t)
{
    return ty_is_scalar(t) && (ty_info(t)->cls == SC_FLOAT || ty_info(t)->cls == SC_HALF ||
                               ty_info(t)->cls == SC_BF16);
}
/* float16 (src/half.c) */
bool ty_converts_safely(const Type *from, const Type *to);   /* numba: not unsafe */
double ty_round_float(const Type *t, double v);   /* v rounded to float type t */
#define ty_float16 (ty_scalar[TY_FLOAT16])
/* bfloat16 (src/bf16.c) */
#define ty_bfloat16 (ty_scalar[TY_BFLOAT16])
/* float16 or bfloat16: a 16-bit float that every operation is a helper of */
#define ty_is_half16(t) ((t) && ((t)->kind == TY_FLOAT16 || (t)->kind == TY_BFLOAT16))
int ty_size(const Type *t);           /* scalars */
const ScalarInfo *ty_info_of_dtype(int dtype);  /* NULL unless a scalar's krt_dtype */
Type *ty_scalar_named(const char *name);   /* by numba's name; NULL if none */
const char *ty_name(const Type *t);   /* numba spelling: float32[:, ::1] */
const char *ty_cname(const Type *t);  /* scalars: "int64_t", "float", ... */
int ty_dtype(const Type *t);          /* krt_dtype of a scalar or of ty_rngstate
                                         (KRT_XOROSHIRO128P), -1 otherwise */
/* A short code of a type for specialisation names: i4, u8, f4, b1; arrays
 * a<ndim><elem>[c][s|l|k]; tuples t<n><elem>. */
const char *ty_code(const Type *t);
/* py (issue 9): the interned types of compile-time arguments: a device
 * function, a callable API row, a scalar type named as a value. */
Type *ty_funcref(struct FuncDef *fd);
Type *ty_apiref(const struct ApiEntry *api);
Type *ty_typeref(Type *t);
bool ty_is_ct(const Type *t);   /* one of those three */
/* Vector types (vecrec; kernrt_vector.h): the interned vector of n (1..4)
 * elements of the scalar elem, NULL if CUDA has none; the one a name of
 * numba-cuda's names ("float32x4", or an alias "float4", "long2"), NULL if
 * none; its C type "krt_float4" and constructor "krt_make_float4". */
Type *ty_vector(Type *elem, int n);
Type *ty_vector_named(const char *name);
bool ty_is_vector(const Type *t);
const char *ty_vector_cname(const Type *t);
const char *ty_vector_make(const Type *t);
/* Records (rec; src/record.c): NumPy structured dtypes.  A field: its
 * scalar or record type, NumPy's byte offset, and a subarray's shape. */
typedef struct RecField {
    const char *name;
    Type *type;            /* a scalar or a TY_RECORD */
    int64_t offset;
    int ndim;              /* 0, or the subarray's dimensions */
    int64_t shape[4];
    Loc loc;
} RecField;
typedef struct Record {
    const char *pyname;    /* the module-level name it was first bound to */
    const char *cname;     /* the C struct: krt_rec_<pyname> */
    RecField *fields;
    int nfields;
    int64_t size, align;   /* NumPy's itemsize and alignment */
    bool aligned;          /* align=True */
    bool packed;           /* C needs __attribute__((packed)) for it */
    int64_t c_align;       /* the C struct's alignment */
} Record;
void record_reset(void);
struct Node;
bool record_module_assign(const char *name, struct Node *rhs);
Type *record_named(const char *name);
int record_field_index(const Type *t, const char *name);
Type *record_field_type(const Type *t, int i);
int64_t record_field_size(const RecField *f);
const char *record_misaligned(const Type *t, int i);
void record_collect(PtrVec *out, const Type *t);
void record_emit_struct(StrBuf *b, const Type *t, bool abi);

/* Char sequences (str; src/charseq.c): NumPy's fixed-width 'S<n>' and
 * '<U<n>', numba's CharSeq and UnicodeCharSeq.  A constant stored into one
 * is an E_CONST of its type, text the value (bytes, or str as UTF-8) and
 * ival text's length in bytes. */
void charseq_reset(void);
Type *ty_charseq(bool unicode, int64_t count);
bool ty_is_charseq(const Type *t);
bool charseq_unicode(const Type *t);
Type *charseq_of_format(const char *s, Loc loc, bool *bad);
const char *charseq_name(const Type *t);
const char *charseq_cname(const Type *t);
int charseq_size(const Type *t);
int charseq_dtype(const Type *t);
const char *charseq_dtype_c(const Type *t);
const char *charseq_descr(const Type *t);
void charseq_emit_struct(StrBuf *b, const Type *t, bool abi);
const char *charseq_const_c(const struct Node *k);
const char *charseq_lit_c(const struct Node *k, int max, int *count);
int charseq_units(const struct Node *str, bool unicode);
struct Node *charseq_const(Loc loc, const struct Node *str, Type *t);   /* type_charseq.c */

/* One candidate signature of an operator or builtin: the result's and up
 * to three arguments' TypeKinds (-1: no such argument). */
typedef struct Case {
    signed char ret, a[3];
} Case;
/* numba's overload resolution: the candidate of the right arity with the
 * fewest (unsafe, safe, promote) conversions of args, the first on a tie;
 * -1 if none applies (unsafe ones only with allow_unsafe). */
int ty_resolve_case(const Case *cases, int ncases, Type **args, int nargs, bool allow_unsafe);
/* np.promote_types for two numbers. */
Type *ty_promote_numbers(Type *a, Type *b);
/* numba's unify_pairs for the types a variable can hold; NULL if none. */
Type *ty_unify(Type *a, Type *b);

/* ------------------------------------------------------------------ */
/* The API table (api.c from api.def), candidate lists (typerules.c)  */
/* ------------------------------------------------------------------ */

/* One row per cuda.* / math.* / builtin entity.  The X-macro rows live in
 * src/api.def; see that file for the columns.  Passes test a row's class,
 * flags and rule, never its path. */
typedef enum ApiId {
#define API(id, path, kind, nargs_min, nargs_max, cls, flags, rule, emit, cuda, cpu) API_##id,
#include "api.def"
#undef API
    API__COUNT,
    API_NONE = API__COUNT   /* no row: api_id(NULL) */
} ApiId;

typedef enum ApiKind {
    AK_ATTR,       /* a value: cuda.threadIdx.x, math.pi, cuda.warpsize */
    AK_CALL,       /* a function: cuda.grid(1), math.sqrt(x), cuda.atomic.add */
    AK_MODULE,     /* a namespace: cuda, cuda.atomic, math, np */
    AK_TYPE,       /* a type name: float32, np.float64 */
} ApiKind;

/* The family of a row. */
typedef enum ApiClass {
    AC_MODULE,     /* a namespace */
    AC_INDEX,      /* threadIdx.., blockIdx.., grid(), laneid, lanemask_lt, warpsize */
    AC_MEMORY,     /* shared/local array declarations, const.array_like */
    AC_BARRIER,    /* syncthreads[_count/and/or], this_grid() and its sync() */
    AC_FENCE,      /* threadfence[_block/_system] */
    AC_WARP,       /* warp-collective operations: syncwarp, shfl, votes, match */
    AC_INTRINSIC,  /* popc, brev, clz, ffs, fma, cbrt, selp, nanosleep */
    AC_ATOMIC,     /* cuda.atomic.* */
    AC_RNG,        /* cuda.random.* */
    AC_MATH,       /* math.* functions and constants */
    AC_BUILTIN,    /* abs, min, max, int, float, bool, round, pow, range, len, print */
    AC_TYPE,       /* type names: calling one converts */
    AC_VECTOR,     /* vector types (vecrec): cuda.float32x4(...) constructs one */
    AC_NUMPY,      /* npk: NumPy ufuncs and constants (np.sin, np.pi) */
} ApiClass;

/* What a row does beyond its value (bits of ApiEntry.flags). */
typedef enum ApiFlag {
    AF_COLLECTIVE = 1 << 0,   /* the threads of a block or warp run it together:
                                 a statement of its own (S_BARRIER, S_WARPOP),
                                 where kernc cuts a kernel for the CPU */
    AF_SIDE_EFFECTS = 1 << 1, /* changes memory or a random state: never
                                 evaluated twice, nor dropped */
    AF_THREAD_DEP = 1 << 2,   /* its value differs between the threads of a block */
    AF_BLOCK_DEP = 1 << 3,    /* its value differs between the blocks of a grid */
    AF_WARP = 1 << 4,         /* the lanes of a warp exchange values (on the CPU:
                                 emulated over the 32 lanes at a cut) */
    AF_FASTMATH = 1 << 5,     /* CUDA has a fast float32 form, __NAMEf, which
                                 fastmath=True uses */
} ApiFlag;

/* The typing rule of a row (type.c).  The rules marked [cases] pick a
 * candidate signature from a list (type.c: rule_cases, numba's typing
 * templates); the others are written out in type.c's lowering. */
typedef enum ApiRule {
    TR_NONE,            /* not typed as a use (namespaces) */
    TR_DIM3,            /* an int32 attribute (Dim3, laneid, warpsize) */
    TR_MATH_CONST,      /* a float64 constant: math.pi, e, inf, nan */
    TR_GRID,            /* grid(k)/gridsize(k): int64 or a k-tuple of them */
    TR_ARRAY_DECL,      /* x = cuda.shared/local.array(shape, dtype) only */
    TR_CONST_ARRAY,     /* cuda.const.array_like(module-level constant) */
    TR_SYNCTHREADS,     /* a statement: S_BARRIER */
    TR_BARRIER_PRED,    /* S_BARRIER (int32 predicate) -> int32 */
    TR_FENCE,           /* a statement: E_API of type void */
    TR_THIS_GRID,       /* a GridGroup, lowered to nothing */
    TR_GRID_SYNC,       /* GridGroup.sync(): an S_BARRIER */
    TR_SYNCWARP,        /* S_WARPOP (int32 mask = all) -> none */
    TR_WARP_SHFL,       /* S_WARPOP (mask, value, lane) -> value [cases] */
    TR_WARP_VOTE,       /* S_WARPOP (mask, predicate) -> bool */
    TR_WARP_BALLOT,     /* S_WARPOP (mask, predicate) -> int32 */
    TR_WARP_MATCH_ANY,  /* S_WARPOP (mask, value) -> int32 [cases] */
    TR_WARP_MATCH_ALL,  /* S_WARPOP (mask, value) -> (int32, bool) [cases] */
    TR_ACTIVEMASK,      /* S_WARPOP () -> uint32 */
    TR_LANEMASK,        /* () -> uint32 */
    TR_POPC,            /* integer -> same integer [cases] */
    TR_BREV,            /* uint32/uint64 -> same [cases] */
    TR_FFS,             /* 32/64-bit integer -> uint32 [cases] */
    TR_FMA,             /* three floats -> float [cases] */
    TR_FLOAT1,          /* float -> float [cases] */
    TR_SELP,            /* (bool, x, x) -> x, one type, no conversion */
    TR_NANOSLEEP,       /* a statement: (uint32) -> void */
    TR_ATOMIC_ARITH,    /* (ary, idx, val) on 32/64-bit ints and floats */
    TR_ATOMIC_BITS,     /* (ary, idx, val) on 32/64-bit ints */
    TR_ATOMIC_UNSIGNED, /* (ary, idx, val) on uint32/uint64 */
    TR_ATOMIC_CAS,      /* (ary, idx, old, val) on 32/64-bit ints */
    TR_ATOMIC_CAS0,     /* (ary, old, val): element 0 of a 1-D array, as CAS */
    TR_RNG_FLOAT32,     /* (states, index) -> float32 */
    TR_RNG_FLOAT64,     /* (states, index) -> float64 */
    TR_RNG_UINT64,      /* (states, index) -> uint64 */
    TR_RNG_JUMP,        /* a statement: (states, index) -> none */
    TR_RNG_TYPE,        /* only as an element type in signatures */
    TR_HOST,            /* runs on the host only */
    TR_MATH_UNARY,      /* cudamath.py unary: ints -> float64 [cases] */
    TR_MATH_ATAN2,      /* atan2, hypot [cases] */
    TR_MATH_BINARY,     /* copysign, fmod: two floats [cases] */
    TR_MATH_POW,        /* [cases] */
    TR_MATH_LDEXP,      /* (float, int32) [cases] */
    TR_MATH_PRED,       /* isnan, isinf, isfinite -> bool [cases] */
    TR_MATH_FREXP,      /* float -> (float, int32) [cases] */
    TR_MATH_SCALE,      /* radians, degrees: a multiplication [cases] */
    TR_ABS,             /* [cases] */
    TR_MINMAX,          /* two or more numbers, unified */
    TR_INT,             /* int(x) */
    TR_FLOAT,           /* float(x) */
    TR_BOOL,            /* bool(x) */
    TR_ROUND,           /* round(x[, ndigits]) [cases] */
    TR_POW,             /* pow(x, y): the ** operator */
    TR_RANGE,           /* only as a for loop's iterable */
    TR_LEN,             /* len(array or tuple) -> int64 */
    TR_PRINT,           /* a statement: S_PRINT */
    TR_CAST,            /* a type name called: a conversion */
    TR_VOID,            /* void: not callable */
    TR_VECTOR,          /* cuda.float32x4(...) (vecrec): scalars and smaller
                           vectors of the same base, n elements in all */
    /* float16 (src/half.c) */
    TR_FP16,            /* cuda.fp16: every operand to float16 -> float16 */
    TR_FP16_PRED,       /* cuda.fp16 comparisons: two float16 -> bool */
    /* bfloat16 (src/bf16.c) */
    TR_BF16,            /* numba.cuda.bf16: bf16_signature's types */
    /* complex (type.c's complex block) */
    TR_COMPLEX,         /* complex(), the parts of a complex, abs of one */
    TR_CMATH_UNARY,     /* cmathdecl.py: complex -> same complex [cases] */
    TR_CMATH_PRED,      /* cmath.isnan/isinf/isfinite: complex -> bool [cases] */
    TR_CMATH_OVERLOAD,  /* cmathimpl.py's @overloads: a complex argument only */
    TR_CMATH_RECT,      /* cmath.rect(r, phi): two floats -> complex */
    /* issue 9 */
    TR_ITER,            /* enumerate, zip, literal_unroll: for-loop iterables only */
    TR_CACHE_LD,        /* cuda.ldca...(ary, idx) -> element (E_API: ary, indices) */
    TR_CACHE_ST,        /* cuda.stcg...(ary, idx, v): a statement (ary, indices, v) */
    /* ---- npk: NumPy in kernels, the rest of numba-cuda's math ---- */
    TR_NP_UFUNC,        /* np.sin(x), np.maximum(a, b, out): npufunc.c */
    TR_MATH_MODF,       /* math.modf: float -> (frac, int) of that float [cases] */
    TR__COUNT
} ApiRule;

/* How emit_*.c prints an E_API (and the S_BARRIER/S_WARPOP) of a row. */
typedef enum ApiEmit {
    EK_NONE,       /* never printed as such (namespaces, declarations, ...) */
    EK_DIM3,       /* ((T)spelling) */
    EK_EXPR,       /* the spelling, an expression */
    EK_GRID,       /* grid()/gridsize(): from the Dim3 spellings */
    EK_SYNC,       /* CUDA: spelling() or spelling((int)(p)); CPU: a cut */
    EK_WARP,       /* CUDA: spelling(mask, ...) with numba's casts; CPU: emulated */
    EK_ATOMIC,     /* spelling_SUFFIX(&element, operands): the element type's suffix */
    EK_TYPED,      /* spelling_SUFFIX(x): the operand type's suffix (i32, u64) */
    EK_MATH,       /* spelling(...) in the operand's float type, "f" for float32 */
    EK_FLOAT,      /* spelling(...) in the result's float type, "f" for float32 */
    EK_SELECT,     /* (c ? x : y) */
    EK_RNG,        /* spelling(states, index) */
    EK_CALL,       /* spelling((T)arg, ...) */
    EK_CONST,      /* a floating-point literal */
    EK_CAST,       /* a conversion of the one argument */
    EK_BUILTIN,    /* a Python builtin, written out by emit_expr.c */
    EK_VECTOR,     /* krt_make_<cuda type>(elements) (vecrec) */
    /* float16 (src/half.c) */
    EK_FP16,       /* spelling(a, ...), the operands as float16 */
    /* bfloat16 (src/bf16.c) */
    EK_BF16,       /* spelling(a, ...), the operands converted by typing */
    EK_VIEW,       /* scalar x.view(dtype): x's bits as the result type */
    /* complex */
    EK_COMPLEX,    /* spelling_SUFFIX(args) (emit_expr.c; the parts: .re/.im) */
    EK_CACHE,      /* issue 9: CUDA: spelling(&element[, value]); CPU: a plain
                      load or store */
} ApiEmit;

typedef struct ApiEntry {
    ApiId id;
    const char *path;      /* "cuda.atomic.add", "math.sqrt", "abs" */
    ApiKind kind;
    int nargs_min, nargs_max;
    ApiClass cls;
    unsigned flags;        /* ApiFlag bits */
    ApiRule rule;
    ApiEmit emit;
    const char *cuda;      /* CUDA C spelling (printed as emit says) */
    const char *cpu;       /* C spelling for the CPU backend */
} ApiEntry;

extern const ApiEntry api_table[API__COUNT];
/* By hash: the translator stays linear in its input. */
const ApiEntry *api_lookup(const char *path);   /* NULL if unknown */
/* Offers s the last part of each row one dot below `prefix` ("cuda" ->
 * "threadIdx", "atomic", ...); the rows without a dot for prefix "". */
void api_suggest(Suggest *s, const char *prefix);
static inline bool api_has(const ApiEntry *a, unsigned flags) { return a && (a->flags & flags); }
static inline ApiId api_id(const ApiEntry *a) { return a ? a->id : API_NONE; }
static inline bool api_id_has(ApiId id, unsigned flags)
{
    return id < API__COUNT && (api_table[id].flags & flags);
}

/* Candidate signatures (typerules.c): numba's typing templates for the
 * operators and, by typing rule, for the API rows ({NULL, 0} for the rules
 * type.c writes out). */
typedef struct CaseList {
    const Case *cases;
    int n;
} CaseList;
extern const CaseList tr_binop, tr_truediv, tr_power, tr_shift, tr_bitlogic, tr_cmp,
    tr_round1, tr_round2, tr_range;
extern const CaseList tr_rule_cases[TR__COUNT];

/* complex.c: complex64 and complex128 (the class SC_COMPLEX); the first
 * two are types.c's */
static inline bool ty_is_complex(const Type *t) { return ty_is_scalar(t) && ty_info(t)->cls == SC_COMPLEX; }
Type *ty_complex_part(const Type *t);    /* complex64 -> float32, complex128 -> float64 */
/* numba's operator templates with their complex cases, for an operation
 * with a complex operand: + - * / ** (BinOp..., BinOpPower), == !=
 * (UnorderedCmpOp), unary - + (UnaryOp), and cmathdecl.py's unary
 * functions and predicates. */
extern const CaseList tr_cx_arith, tr_cx_cmp, tr_cx_unary, tr_cx_pred;
/* A constant converted to or from a complex type at translate time
 * (tree_const_convert); NULL where numba has no such conversion. */
struct Node *cx_const_convert(struct Node *k, Type *t);
/* An imaginary literal (1j, 2.5J): an E_FLOAT whose text ends in j. */
bool ast_is_imag(const struct Node *e);

/* ------------------------------------------------------------------ */
/* AST (ast.c): built by the parser, lowered in place by type.c        */
/* ------------------------------------------------------------------ */

/* X(KIND, description).  Fields used by each kind are listed beside it;
 * "lowered" kinds are produced by type.c and are all the emitter sees. */
#define NODE_KINDS(X)                                                        \
    /* ---- expressions, as parsed ---- */                                  \
    X(E_INT, "integer literal")        /* text, ival (uint64 bits) */        \
    X(E_FLOAT, "float literal")        /* text, fval */                      \
    X(E_STR, "string literal")         /* text (decoded), ival its length; name "b": bytes */           \
    X(E_BOOL, "boolean literal")       /* ival 0/1 */                        \
    X(E_NONE, "None")                  /* text "..." for Ellipsis */         \
    X(E_NAME, "name")                  /* name */                            \
    X(E_ATTR, "attribute")             /* lhs . name */                      \
    X(E_CALL, "call")                  /* lhs ( args, kwargs ) */            \
    X(E_SUBSCRIPT, "subscript")        /* lhs [ rhs ]; rhs tuple if a,b */   \
    X(E_SLICE, "slice")                /* lhs:rhs:cond = lo:hi:step, NULLable */\
    X(E_BINOP, "binary operation")     /* op, lhs, rhs */                    \
    X(E_UNARY, "unary operation")      /* op, lhs */                         \
    X(E_BOOLOP, "and/or")              /* op (OP_AND/OP_OR), lhs, rhs */     \
    X(E_COMPARE, "comparison")         /* args: operands; ops[]: n-1 ops */  \
    X(E_IFEXP, "conditional expression") /* cond ? lhs : rhs */             \
    X(E_TUPLE, "tuple")                /* args */                            \
    X(E_LIST, "list")                  /* args */                            \
    X(E_DICT, "dict")                  /* refused */                         \
    X(E_LAMBDA, "lambda")              /* params, lhs (body) */              \
    X(E_STARRED, "starred expression") /* refused */                         \
    /* ---- expressions, lowered by type.c ---- */                          \
    X(E_CONST, "constant")      /* type; ival (ints, bool) or fval */        \
    X(E_VAR, "variable")        /* var */                                    \
    X(E_CAST, "conversion")     /* lhs converted to type */                  \
    X(E_API, "device API")      /* api, args (e.g. math.sqrt(x), grid(1)) */ \
    X(E_CALLFN, "device function call") /* callee, args */                   \
    X(E_INDEX, "array element") /* lhs: array expr; args: one int per dim */ \
    X(E_SHAPE, "array shape")   /* lhs: array; ival: the dimension */        \
    X(E_TUPLEGET, "tuple element") /* lhs: tuple-typed expr; ival: index */  \
    X(E_LET, "bound temporary") /* var (hidden) = lhs, then the value of rhs;\
                                   type rhs's type; C: (var = lhs, rhs) */   \
    /* issue 9: views */                                                    \
    X(E_VIEW, "array view")     /* lhs: array expr; args: per dimension from \
                                   the first, an int64 index or an E_SLICE */\
    X(E_STRIDE, "array stride") /* lhs: array; ival: the dimension (bytes) */ \
    X(E_ARRAYOP, "array method") /* lhs: array; ival: AOP_*; args: int64s */ \
    /* dev (issue 9): cuda.declare_device */                                \
    X(E_FFICALL, "foreign function call") /* name: the wrapper (Foreign    \
                                   cname); args: converted to the signature */\
    /* ---- statements ---- */                                              \
    X(S_EXPR, "expression statement")  /* lhs */                             \
    X(S_ASSIGN, "assignment")          /* args: targets (a = b = v); rhs */  \
    X(S_AUGASSIGN, "augmented assignment") /* op, lhs (target), rhs; cond: \
                                          the read of a name target (type.c) */ \
    X(S_ANNASSIGN, "annotated assignment") /* refused; lhs, args[0]: ann, rhs */\
    X(S_IF, "if")                      /* cond, body, orelse (elif nested) */\
    X(S_WHILE, "while")                /* cond, body, orelse */              \
    X(S_FOR, "for")                    /* lhs (target), rhs (iter), body */  \
    X(S_BREAK, "break")                                                      \
    X(S_CONTINUE, "continue")                                                \
    X(S_PASS, "pass")                                                        \
    X(S_RETURN, "return")              /* lhs may be NULL */                 \
    X(S_ASSERT, "assert")              /* cond, lhs (message) */             \
    X(S_IMPORT, "import")              /* names: "numpy as np" pairs */      \
    X(S_FROMIMPORT, "from-import")     /* text: module; names */             \
    X(S_FUNCDEF, "function definition")/* name, params, decorators, body;    \
                                          rhs: the '-> ann' annotation */    \
    X(S_CLASS, "class definition")     /* refused */                         \
    X(S_GLOBAL, "global/nonlocal")     /* refused */                         \
    X(S_DEL, "del")                    /* refused */                         \
    X(S_RAISE, "raise")                /* refused */                         \
    X(S_TRY, "try")                    /* refused */                         \
    X(S_WITH, "with")                  /* refused */                         \
    X(S_YIELD, "yield")                /* refused */                         \
    /* ---- statements, lowered by type.c ---- */                           \
    X(S_FORRANGE, "for over range")    /* var; it/stop/step hidden vars;     \
                                          args: start, stop, step; body */   \
    X(S_ARRAYDECL, "array declaration") /* var: a shared/local array */      \
    X(S_BARRIER, "barrier")            /* api: SYNCTHREADS (lhs, rhs NULL),  \
                                          SYNCTHREADS_COUNT/AND/OR: lhs the  \
                                          int32 predicate, rhs the target    \
                                          E_VAR (int32) or NULL */           \
    X(S_WARPOP, "warp-collective operation") /* api; args: the operands,     \
                                          converted; lhs: the target E_VAR   \
                                          of the op's type, or NULL */       \
    X(S_PRINT, "print")                /* args: E_STR (text) or scalars of   \
                                          type int64, uint64 or float64 */   \
    X(S_NOP, "nothing")                /* e.g. a docstring */                \
    /* ---- other ---- */                                                   \
    X(N_PARAM, "parameter")            /* name, lhs: annotation, rhs: default */ \
    X(N_KWARG, "keyword argument")     /* name, lhs: value */                \
    X(N_ALIAS, "import name")          /* name, text: "as" name or NULL */   \
    X(N_MODULE, "module")              /* body */

typedef enum NodeKind {
#define X_(k, d) k,
    NODE_KINDS(X_)
#undef X_
    NODE__COUNT
} NodeKind;
extern const char *node_kind_desc[NODE__COUNT];

/* Operators, shared by E_BINOP, E_UNARY, E_BOOLOP, E_COMPARE, S_AUGASSIGN. */
#define OPERATORS(X)                                                         \
    X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*") X(OP_DIV, "/")              \
    X(OP_FLOORDIV, "//") X(OP_MOD, "%") X(OP_POW, "**") X(OP_MATMUL, "@")    \
    X(OP_LSHIFT, "<<") X(OP_RSHIFT, ">>")                                    \
    X(OP_BITAND, "&") X(OP_BITOR, "|") X(OP_BITXOR, "^")                     \
    X(OP_NEG, "-") X(OP_POS, "+") X(OP_INVERT, "~") X(OP_NOT, "not")         \
    X(OP_AND, "and") X(OP_OR, "or")                                          \
    X(OP_EQ, "==") X(OP_NE, "!=") X(OP_LT, "<") X(OP_LE, "<=")               \
    X(OP_GT, ">") X(OP_GE, ">=")                                             \
    X(OP_IS, "is") X(OP_ISNOT, "is not") X(OP_IN, "in") X(OP_NOTIN, "not in")

typedef enum Op {
    OP_NONE_,
#define X_(k, s) k,
    OPERATORS(X_)
#undef X_
} Op;
extern const char *op_spelling[];          /* indexed by Op */

/* issue 9: the view-making array methods of an E_ARRAYOP (ival):
 * TRANSPOSE: args the permutation (E_CONSTs; a.T reverses), type the
 * array's with layout C <-> F (A when permuted otherwise); RESHAPE: args
 * the new shape (int64, one may be -1), C arrays only, type C; DTYPE
 * (a.view(t)): args the old and new itemsize (E_CONSTs), the last
 * dimension rescaled, the layout kept. */
enum { AOP_TRANSPOSE, AOP_RESHAPE, AOP_DTYPE,
       AOP_FIELD /* rec: a.x of an array of records; args: offset, the field's
                    extents (up to 2), its element size */ };

typedef struct Node Node;
typedef struct Var Var;
typedef struct Func Func;

/* A list of nodes; the arena owns it. */
typedef struct NodeList {
    Node **items;
    int len, cap;
} NodeList;
void nl_push(NodeList *l, Node *n);

struct Node {
    NodeKind kind;
    Loc loc;
    Op op;
    const char *name;      /* E_NAME, E_ATTR attribute, S_FUNCDEF, N_PARAM, ... */
    const char *text;      /* literal source text, E_STR value, module names */
    uint64_t ival;         /* E_INT / E_CONST integers (two's complement bits) */
    double fval;           /* E_FLOAT / E_CONST floats (complex: the real part) */
    double fimag;          /* E_CONST of a complex type: the imaginary part */
    Node *lhs, *rhs, *cond;
    NodeList args;         /* call arguments, tuple elements, targets, ... */
    NodeList kwargs;       /* E_CALL: N_KWARG */
    NodeList body, orelse; /* statements */
    NodeList params;       /* S_FUNCDEF, E_LAMBDA: N_PARAM */
    NodeList decorators;   /* S_FUNCDEF: decorator expressions */
    NodeList names;        /* S_IMPORT/S_FROMIMPORT: N_ALIAS */
    Op *ops;               /* E_COMPARE: args.len - 1 operators */

    /* Set by resolve/type; read by check and emit. */
    Type *type;            /* every expression's type, after lowering */
    Var *var;              /* E_VAR, S_FORRANGE loop variable, S_ARRAYDECL */
    Var *it, *stop, *step; /* S_FORRANGE hidden variables */
    const ApiEntry *api;   /* E_API, S_BARRIER */
    Func *callee;          /* E_CALLFN: the specialisation called */

    /* Set by range.c: the values an integer or bool expression can have,
     * [rlo, rhi] when rknown (rgen: the pass that set it). */
    bool rknown;
    int rgen;
    int64_t rlo, rhi;
};

Node *node_new(NodeKind kind, Loc loc);
Node *node_clone(const Node *n);        /* deep copy (for specialisation) */

/* The child fields of a Node, in the order the visitor takes them: X for
 * a single child, L for a list. */
#define NODE_CHILDREN(X, L)                                                  \
    X(lhs) X(rhs) X(cond)                                                    \
    L(args) L(kwargs) L(params) L(decorators) L(names) L(body) L(orelse)

/* The tree visitor, for every pass that needs all the nodes below one
 * (searches, relocation, rewriting) rather than a walk of its own kinds.
 * node_walk: fn(n) for n and, pre-order, for every node below it, as fn
 * says: VISIT_CHILDREN goes into n's children, VISIT_SKIP does not,
 * VISIT_STOP ends the walk; true if it was stopped.  node_each_slot:
 * fn(&child) for each direct non-NULL child of n, so that fn may replace
 * it. */
typedef enum Visit { VISIT_CHILDREN, VISIT_SKIP, VISIT_STOP } Visit;
typedef Visit NodeVisitFn(const Node *n, void *ctx);
bool node_walk(const Node *n, NodeVisitFn *fn, void *ctx);
typedef void NodeSlotFn(Node **slot, void *ctx);
void node_each_slot(Node *n, NodeSlotFn *fn, void *ctx);
/* false, with the smallest subtree that is too deep in *where, when the
 * tree is more than `limit` nodes deep (ast.c; the parser's limit) */
bool ast_check_depth(const Node *root, int limit, const Node **where);
/* the same, with fn(n, ctx) for every node on the way where the tree is
 * not too deep (its result is not looked at): speed, one walk for both */
bool ast_check_depth_visit(const Node *root, int limit, const Node **where, NodeVisitFn *fn,
                           void *ctx);
void ast_dump(FILE *out, const Node *n, int indent); /* for tests: --dump-ast */

/* ------------------------------------------------------------------ */
/* tree.c: builders of the typed tree and properties of its nodes      */
/* ------------------------------------------------------------------ */

/* An expression whose type is unknown (a quiet pass) or an error. */
#define BAD(n) (!(n)->type || (n)->type == ty_error)

/* Typed nodes (the lowering contract below): each sets ->type. */
Node *tree_var(Loc loc, Var *v);  /* E_VAR of v->type */
Node *tree_int(Loc loc, Type *t, int64_t v);  /* E_CONST */
Node *tree_float(Loc loc, Type *t, double v);  /* E_CONST */
Node *tree_binop(Loc loc, Op op, Node *a, Node *b, Type *t);
Node *tree_stmt(NodeKind k, Loc loc);
Node *tree_assign(Loc loc, Node *target, Node *value);  /* S_ASSIGN */
Node *tree_cast(Node *e, Type *t);  /* e converted to t (scalars; folds constants) */
Node *tree_tupleget(Node *tuple, int i);
Node *tree_let(Loc loc, Var *v, Node *value, Node *body);  /* E_LET */
/* An integer's bits wrapped to the width and signedness of t. */
uint64_t tree_wrap_int(uint64_t v, const Type *t);
/* A constant converted at translate time; NULL where C would be undefined
 * (a float out of the integer range), which is left to an E_CAST. */
Node *tree_const_convert(Node *k, Type *t);
/* No device-function call, no atomic and no random draw: safe to
 * evaluate twice. */
bool tree_is_pure(const Node *n);
/* A value nothing evaluated later in the expression can change: a
 * constant or a scalar variable (not an array element). */
bool tree_is_stable(const Node *n);
/* Does the value read an array element (which a call could change)? */
bool tree_reads_memory(const Node *n);
/* n without the E_CASTs around it */
const Node *tree_strip_casts(const Node *n);

/*
 * THE TYPED TREE (the lowering contract): what type.c leaves in each
 * Func's body, and all that check.c and emit_*.c see.
 *
 * Every expression has ->type.
 *
 * Expressions
 *   E_CONST   scalar type; ival: two's complement bits of the value
 *             (sign-extended for signed types, 0/1 for bool); fval for
 *             floats (float32 constants already rounded to float).
 *   E_VAR     var: a parameter, local, shared/local array or hidden Var.
 *   E_CAST    lhs converted to type: int->int wraps, float->int truncates,
 *             anything->bool is (x != 0).
 *   E_BINOP   op, lhs, rhs, type = the result:
 *             + - * // %: both operands of the result type (Python floor
 *               semantics for // and %, ints and floats);
 *             /: both operands of the (float) result type;
 *             **: integer result: both operands of that type (numba's
 *               int_power: negative exponent gives 0 unless the base is
 *               +-1); float result: lhs of that type and rhs either the same
 *               float type (pow) or an integer type int32/int64/uint64
 *               (repeated squaring, numba's float ** int);
 *             << >>: lhs of the result type (int64/uint64), rhs int64 or uint64;
 *             & | ^: both operands of the result type (bool or int64/uint64).
 *   E_UNARY   OP_NEG, OP_INVERT: operand of the node's type, which is the
 *             operand's own type for int8..int32 and uint8..uint32 (the
 *             E_UNARY computes at that width, wrapping: -(-2**31) ==
 *             -2**31) and is then wrapped in an E_CAST to numba's int64 /
 *             uint64 result; floats, 64-bit ints: the result type;
 *             OP_INVERT of bool is logical not;
 *             OP_NOT: type bool, operand bool.  OP_POS never reaches emit_*.c
 *             (+x is its E_CAST).
 *   E_BOOLOP  OP_AND/OP_OR, both operands of the result type; Python value
 *             semantics with short circuit: a and b == (a ? b : a),
 *             a or b == (a ? a : b), truth = (x != 0).
 *   E_COMPARE exactly two args of one scalar type, ops[0] in == != < <= > >=;
 *             type bool.  Chains a < b <= c are split into `and`s
 *             (E_BOOLOP of type bool); a pure middle operand appears in
 *             both comparisons (evaluating it twice is harmless); one with
 *             an effect (device call, atomic, random draw), and any operand
 *             such an effect later in the chain could change, is bound once
 *             by an E_LET: `-4 < f(x) <= 4` is
 *               E_LET(t, f(x), E_BOOLOP(and, E_COMPARE(-4, t), E_COMPARE(t, 4)))
 *             (operand casts omitted), Python's order and short circuit.
 *   E_LET     var: a hidden Var (VAR_HIDDEN "krt_cmpN" / "krt_seqN", in
 *             Func.locals) of lhs's scalar type; lhs: its value; rhs: the
 *             body, which reads var; type = rhs's type (a scalar).
 *             Evaluates lhs, stores it in var, then yields rhs: C
 *             `(var = lhs, rhs)` (the comma's sequence point orders them).
 *             Every read of var is inside rhs.  Made by chains (above) and
 *             for Python's left-to-right order: when an operand of an
 *             E_BINOP, a two-operand E_COMPARE, a math E_API, B_MIN/B_MAX
 *             or a value-returning E_CALLFN (callee without barriers) has
 *             an effect, each earlier operand that has one too or reads an
 *             array element is bound first:  draw() - draw()  is
 *               E_LET(t, draw(), E_BINOP(-, t, draw())).
 *             Elsewhere (atomics' operands, tuples, void calls) C's order
 *             is left as is.
 *   E_IFEXP   cond any scalar (test != 0); lhs, rhs of the result type.
 *   E_API     api row; args lowered and converted:
 *             TID_X..GDIM_Z, LANEID, WARPSIZE: no args, int32;
 *             LANEMASK_LT: no args, uint32;
 *             GRID/GRIDSIZE: args[0] the E_CONST ndim (int64); type int64
 *               or UniTuple(int64, ndim);
 *             ATOMIC_ADD SUB MAX MIN NANMAX NANMIN AND OR XOR EXCH INC DEC:
 *               args[0] the array expr (global, shared or local space;
 *               never SPACE_CONST), args[1..ndim] int64 indices (negative
 *               wraps), args[ndim+1] the value of the element type; type =
 *               element type (the old value).  Element types: see above.
 *               Floats (numba's ___numba_atomic_*_[nan]max/min): MAX/MIN
 *               store nothing when val or the stored value is NaN;
 *               NANMAX/NANMIN store nothing when val is NaN and replace a
 *               stored NaN by val.  Integers: plain max/min.
 *               INC: old >= val ? 0 : old + 1; DEC: (old == 0 || old >
 *               val) ? val : old - 1 (CUDA's atomicInc/atomicDec);
 *             ATOMIC_CAS: args[0] array, args[1..ndim] int64 indices,
 *               then old, then val (element type, one of the four integer
 *               types); type = element type, the value found.
 *               cuda.atomic.compare_and_swap(ary, old, val) (1-D only) is
 *               lowered to ATOMIC_CAS with the index the E_CONST 0;
 *             POPC, CLZ, BREV, FFS: one integer arg of the case's type
 *               (see the typing above), type the result;
 *             FMA: three args of the result type (float32/float64);
 *             CBRT: one arg of the result type;
 *             SELP: args[0] bool test, args[1], args[2] of the result type;
 *             THREADFENCE, THREADFENCE_BLOCK, THREADFENCE_SYSTEM: no args,
 *               type void, only as the lhs of an S_EXPR;
 *             NANOSLEEP: args[0] uint32 (nanoseconds), type void, only as
 *               the lhs of an S_EXPR;
 *             M_FREXP: args[0] float32/float64, type Tuple(that float,
 *               int32) (mantissa, exponent); it reaches emit_*.c only as the
 *               rhs of an S_ASSIGN to a tuple-typed hidden Var;
 *             math rows: args of the row's parameter types (float32 or
 *               float64; ldexp's and math.pow's int32 exponent), type the
 *               result; isnan/isinf/isfinite of an int argument are folded
 *               to E_CONST; radians/degrees are lowered to a multiplication;
 *             B_ABS: one arg of the result type (identity for unsigned);
 *             B_MIN/B_MAX: n >= 2 args all of the result type, ival 1 when
 *               an operand was not a float (fmin/fmax otherwise) (NaN: Python's
 *               first-wins comparisons);
 *             B_ROUND: 1 arg float32/float64 -> int64 (half to even), or
 *               args (float, int64) -> that float;
 *             RNG_UNIFORM_F32, RNG_NORMAL_F32 (float32), RNG_UNIFORM_F64,
 *               RNG_NORMAL_F64 (float64), RNG_NEXT (uint64): args[0] the
 *               states array expr (an E_VAR of type xoroshiro128p_type[:]
 *               or [::1], 1-D, SPACE_GLOBAL: a parameter), args[1] the
 *               int64 index (negative counts from the end); they advance
 *               states[index]: C `krt_xoroshiro128p_uniform_float32(states,
 *               index)` etc. (api.def's spelling; kernrt_random.h, the
 *               krt_view of the array and the int64); never evaluated twice;
 *             RNG_JUMP: same args, type void, only as the lhs of an S_EXPR:
 *               `krt_xoroshiro128p_jump(krt_rng_state(states, index))`.
 *   Arrays of xoroshiro128p states: a kernel or device-function parameter
 *   of type ty_array(ty_rngstate, 1, contiguous, SPACE_GLOBAL); its element
 *   type is TY_RNGSTATE (ty_dtype() == KRT_XOROSHIRO128P, 16 bytes; the
 *   krt_param's dtype); it appears only as an E_VAR passed to an RNG_* row
 *   or to a device function, and in E_SHAPE (len, .shape, .size); never in
 *   an E_INDEX.  Specialisation code of the element: "xr" (a1xr, a1xrc).
 *   TY_GRIDGROUP (cuda.cg.this_grid()) never reaches emit_*.c: `g =
 *   cuda.cg.this_grid()` and a bare this_grid() lower to nothing and g is
 *   not in Func.locals.
 *   E_CALLFN  callee: a device-function Func; args of exactly callee's
 *             parameter types; type = callee->ret (never ty_void in a value).
 *   E_INDEX   lhs: array-typed expr (an E_VAR); args: ndim int64 indices,
 *             negative wraps; type the element type.  Bounds: every E_INDEX
 *             of a Func with opt.debug (debug=True, or kernc -g, which sets
 *             opt.debug on every function) is bounds-checked by emit_*.c, as
 *             numba's debug mode raises IndexError; there is no per-node flag.
 *             An E_VAR of a VAR_CONSTARRAY (SPACE_CONST) is only read.
 *   E_SHAPE   lhs: array expr; ival: dimension; type int64.
 *   E_TUPLEGET lhs: tuple-typed expr: an E_API GRID/GRIDSIZE, an E_VAR of a
 *             tuple variable, or an E_CALLFN returning a tuple; ival:
 *             constant index; type the element.
 *   E_TUPLE   a tuple value: args the elements (scalars or tuples), type the
 *             TY_TUPLE of their types.  Made by (a, b) in a value position,
 *             a.shape (args: E_SHAPEs), module-level tuple constants (args:
 *             E_CONSTs), and tuple conversions (element casts).
 *   E_STR     only as an arg of S_PRINT or the lhs of S_ASSERT: text is the
 *             decoded string; no type.
 *   Tuple values are held by Vars of TY_TUPLE type (locals, hidden krt_tup*
 *   and krt_w* temporaries, device-function parameters) and returned by
 *   device functions (Func.ret a TY_TUPLE); S_ASSIGN to a tuple Var takes an
 *   E_TUPLE, E_VAR, E_API (GRID, GRIDSIZE, M_FREXP) or E_CALLFN of exactly
 *   the Var's type.
 *   Casts from int/float/bool to another scalar are explicit everywhere:
 *   no implicit conversion is left for emit_*.c except conditions.
 *
 * Statements
 *   S_EXPR      lhs (value discarded).
 *   S_ASSIGN    args: exactly one target (E_VAR of a scalar/tuple Var, or
 *               E_INDEX); rhs of the target's type.
 *   S_IF        cond (any scalar, test != 0), body, orelse.
 *   S_WHILE     cond, body (orelse always empty).
 *   S_FORRANGE  var: the loop variable; it/stop/step: hidden Vars of the
 *               range type R; args[0..2]: start, stop, step of type R,
 *               evaluated once, in that order.  Python semantics:
 *               for (it = start; step > 0 ? it < stop : it > stop; it += step)
 *               { var = (var->type) it; body }  -- the loop variable keeps
 *               its last value; an empty range leaves it untouched.
 *   S_BREAK, S_CONTINUE, S_PASS, S_NOP.
 *   S_RETURN    lhs NULL, or the value of Func.ret.
 *   S_ARRAYDECL var: VAR_SHARED / VAR_DYNSHARED / VAR_LOCALARRAY with
 *               type ty_array(elem, ndim, true, SPACE_SHARED/LOCAL) and
 *               shape[] (0 for the dynamic one); may appear anywhere in a
 *               body (numba allocates them statically).  VAR_CONSTARRAY:
 *               type ty_array(elem, ndim, true, SPACE_CONST), shape[], init
 *               the flat E_TUPLE of E_CONSTs (C order); made by
 *               x = cuda.const.array_like(C) (C a module-level np.array or
 *               constant tuple: ints -> int64, floats -> float64) and, named
 *               after the global, for a module-level array read directly or
 *               through cuda.const.array_like(C) in an expression (those are
 *               declared at the top of the body).
 *   S_BARRIER   api SYNCTHREADS: lhs, rhs NULL.  api SYNCTHREADS_COUNT/AND/
 *               OR: lhs the predicate (int32, any nonzero is true), rhs the
 *               target E_VAR of type int32 or NULL (value discarded).  A
 *               barrier: every thread of the block waits; the value is the
 *               count of threads with a nonzero predicate / 1 if all are /
 *               1 if any is.  Func.has_barrier is set (also via callees).
 *               api GRID_SYNC (g.sync() on g = cuda.cg.this_grid(), or
 *               cuda.cg.this_grid().sync()): lhs, rhs NULL; every thread of
 *               the grid waits (CUDA: cooperative_groups::this_grid().sync(),
 *               launched cooperatively).  Func.has_grid_sync and
 *               Func.has_barrier are set (also via callees): the kernel's
 *               descriptor must say cooperative.
 *   S_WARPOP    a warp-collective operation; api, args (converted), lhs the
 *               target E_VAR of exactly the result type, or NULL:
 *               SYNCWARP: args[0] uint32 mask (0xffffffff when omitted);
 *               SHFL_SYNC, SHFL_UP_SYNC, SHFL_DOWN_SYNC, SHFL_XOR_SYNC:
 *                 args[0] uint32 mask, args[1] the value T (int32, int64,
 *                 float32 or float64), args[2] int32 src lane / delta / lane
 *                 mask; result T;
 *               ALL_SYNC, ANY_SYNC, EQ_SYNC: args[0] uint32 mask, args[1]
 *                 bool predicate; result bool; BALLOT_SYNC: same args, result
 *                 int32 (numba's type; the bits of the uint32 ballot);
 *               MATCH_ANY_SYNC: args[0] uint32 mask, args[1] value T as for
 *                 shfl; result int32; MATCH_ALL_SYNC: same args; result
 *                 Tuple(int32, bool) (mask, predicate);
 *               ACTIVEMASK: no args; result uint32.
 *               Func.has_warpop is set (also via callees).
 *               These and the syncthreads_* barriers appear only as whole
 *               statements: `x = op(...)` (x a local of the result type;
 *               otherwise a hidden krt_w* Var is the target and S_ASSIGNs
 *               follow), `op(...)` alone, or `x op= op(...)` (into a hidden
 *               Var, then x = x op tmp).  Nested inside a larger expression
 *               of an assignment, expression statement, return or if
 *               condition, they are hoisted into a hidden Var before the
 *               statement (hoist_collectives); in positions evaluated
 *               conditionally or repeatedly they are refused.
 *   S_PRINT     args: E_STR (print as is) or values of type int64 (%lld),
 *               uint64 (%llu), float64 (%f); numba joins the items with
 *               one space and ends with a newline; at most 32 items.
 *   S_ASSERT    cond (any scalar, test != 0), lhs an E_STR message or NULL.
 *               Only in a Func with opt.debug; elsewhere assert statements
 *               are typed and dropped (numba ignores them without debug).
 *               On failure: numba raises AssertionError (kernel aborts with
 *               the message, reported at the launch).
 *   Division by zero (numba's CUDA target): without debug (error model
 *   'numpy') int // 0 == 0 and int % 0 == 0, also MIN // -1 == 0 and
 *   MIN % -1 == 0 (numba avoids the trap); float x / 0.0 and x // 0.0 give
 *   +-inf (nan for 0 / 0), x % 0.0 gives nan.  With opt.debug (error model
 *   'python') a zero divisor, integer or float, raises ZeroDivisionError.
 *   No S_AUGASSIGN, S_FOR, E_NAME, E_ATTR, E_CALL, E_SUBSCRIPT, E_INT...
 *   remain.  Parameters are Func.params (the ABI, their declared types); a
 *   parameter re-assigned with a wider type is shadowed by a VAR_LOCAL of the
 *   same user name, initialised by the body's first S_ASSIGN: emit_*.c must
 *   give the two distinct C names.  Hidden Vars are named krt_*.
 *
 */

/*
 * Views, iteration and tuple parameters (issue 9), in the typed tree:
 *   E_VIEW    lhs: an array expr; args: from dimension 0, one item per
 *             dimension cut (the later ones are taken whole): an int64
 *             index (the dimension is dropped; negative wraps) or an
 *             E_SLICE (type ty_none) whose lhs/rhs/cond are the int64
 *             start/stop/step or NULL (Python's slice rules; a constant
 *             step is never 0); type: the view, ty_array(elem, ndim,
 *             C or A, the base's space) or ty_array_f (F) as numba types
 *             it.  C: krt_view_slice / krt_view_index (kernrt_device.h).
 *             Wherever an array expr is allowed (E_INDEX, E_SHAPE,
 *             E_STRIDE, atomics, device-function arguments, S_ASSIGN).
 *   E_STRIDE  lhs: array expr; ival: dimension; type int64 (bytes).
 *   E_ARRAYOP lhs: array expr; ival: AOP_* (above); args: int64s; type
 *             the view (a.T, a.reshape(...), a.view(dtype)).
 *   E_API of TR_CACHE_LD (cuda.ldca..): args[0] the array, args[1..ndim]
 *             int64 indices; type the element.  TR_CACHE_ST (cuda.stcg..):
 *             then the value of the element type; type void, only as the
 *             lhs of an S_EXPR.  B_RANGE_LEN: (start, stop, step) int64s ->
 *             int64, the length of that range (krt_range_len).
 *   S_ASSIGN  to an E_VAR of an array type (a VAR_LOCAL/VAR_PARAM/
 *             VAR_HIDDEN holding a view, C krt_view): rhs any array expr of
 *             the same element type and ndim (a shared/local/constant C
 *             array is wrapped with krt_view_make).  To an E_VIEW: rhs a
 *             scalar of the element type, stored into every element of
 *             the view (a[lo:hi] = x).
 *   for x in an array/tuple/enumerate()/zip(): an S_FORRANGE over a hidden
 *             int64 index from 0 to the shortest length, whose body starts
 *             with the S_ASSIGNs of the targets; the iterables are
 *             evaluated once before it into hidden Vars.
 *   Kernel parameters of TY_TUPLE type: the launcher takes the krt_tup_*
 *             struct (the header declares it), the descriptor says
 *             KRT_PARAM_TUPLE with the struct's size in ndim.
 */

/* ------------------------------------------------------------------ */
/* Program after typing (resolve.c, type.c)                            */
/* ------------------------------------------------------------------ */

typedef enum VarKind {
    VAR_LOCAL,        /* a local scalar (or tuple) variable */
    VAR_PARAM,        /* a function parameter */
    VAR_SHARED,       /* cuda.shared.array, static: shape[] constant */
    VAR_DYNSHARED,    /* cuda.shared.array(0, ...): aliases the dynamic region */
    VAR_LOCALARRAY,   /* cuda.local.array: per thread */
    VAR_HIDDEN,       /* introduced by lowering (loop bounds, temporaries) */
    VAR_CONSTARRAY,   /* cuda.const.array_like(C) or a module-level array C:
                         shape[] constant, init holds the values */
} VarKind;

struct Var {
    const char *name;      /* the user's name (or krt_* for hidden ones) */
    const char *cname;     /* the C name; set by emit_*.c (mangled on collisions) */
    VarKind kind;
    Type *type;            /* the unified type */
    Loc loc;               /* first definition */
    Loc type_loc;          /* the assignment that gave it its type, for notes
                              (unset: loc) */
    int64_t shape[3];      /* arrays: constant shape (VAR_SHARED, VAR_LOCALARRAY) */
    int index;             /* position in Func.params or Func.locals */
    Node *init;            /* VAR_CONSTARRAY: E_TUPLE of every element, flat in
                              C order, each an E_CONST of the element type */
    int align;             /* py (issue 9): alignment= of a shared or local array
                              in bytes (0: its element type's) */
};

/* Kernel options from @cuda.jit(...). */
typedef struct FuncOptions {
    bool device;
    bool fastmath, debug, lineinfo, inline_, cache, opt_set, opt;
    int max_registers;     /* 0: not set */
} FuncOptions;

/* One kernel (per signature) or one device-function specialisation. */
struct Func {
    const char *name;      /* the user's name */
    const char *cname;     /* C name of this specialisation; set by type.c,
                              unique in the file ("dist" or "dist__f8_f8") */
    Node *def;             /* the S_FUNCDEF, cloned and lowered for this one */
    bool is_kernel;
    FuncOptions opt;
    Type *ret;             /* device functions: return type (ty_void if none) */
    Var **params;
    int nparams;
    Var **locals;          /* every non-parameter variable, hidden ones too */
    int nlocals;
    bool has_barrier;      /* calls syncthreads, directly or via a callee */
    bool has_warpop;       /* has an S_WARPOP, directly or via a callee */
    bool has_grid_sync;    /* has a grid sync (cuda.cg.this_grid().sync(): an
                              S_BARRIER of api GRID_SYNC), directly or via a
                              callee; has_barrier is then set too.  A kernel
                              with it must be launched cooperatively. */
    bool uses_dynshared;
    bool recursive;        /* dev (issue 9): called while it is typed (self or
                              mutual recursion): a real function on both
                              backends, declared before the functions */
    bool ffi_cooperative;  /* dev (issue 9): calls a foreign function declared
                              use_cooperative=True, directly or via a callee */
    bool c_named;          /* FuncDef.c_named: name is not mangled again */
    bool type_failed;      /* its typing reported errors: the check pass
                              skips it (translate.c), nothing is emitted */
    bool *param_read, *local_read; /* emit (func_begin): the parameters and
                              locals its body reads, once found */
};

typedef struct Program {
    const Source *src;
    Func **funcs;          /* callees before callers; kernels after their callees */
    int nfuncs;
    struct UFunc **ufuncs; /* @vectorize, @guvectorize, cuda.reduce, in file order */
    int nufuncs;
    bool named;            /* emit: the variables have their C names */
    uint64_t src_hash;     /* str_hash of src's text (emit_module_symbol) */
    PtrVec tuples;         /* program_tuples: the tuple types in declaration order */
    bool tuples_done;
} Program;

/* ------------------------------------------------------------------ */
/* Passes                                                              */
/* ------------------------------------------------------------------ */

/* layout.c + parser.y: parse a whole file; NULL when errors were reported.
 * The text is decoded as Python does (BOM dropped, universal newlines) and
 * replaced in *src, so that the diagnostics show the lines the parser saw. */
Node *parse_source(Source *src);
/* the same; fn(n, ctx) for every node of the module it returns (with the
 * check of its depth: one walk).  A big file parsed in two halves at once
 * (grammar/parser.y, parse_halves) calls fn(n, ctx2) on the second half's
 * nodes, on the second thread, where ctx2 is not NULL; fn may see a node
 * of a half again when that half's partner fails to parse (a collector
 * into a set does not mind). */
Node *parse_source_visit(Source *src, NodeVisitFn *fn, void *ctx, void *ctx2);

/* Command-line signatures: --signature NAME=void(...) */
typedef struct SigOverride {
    const char *kernel;
    const char *sig;
} SigOverride;

typedef struct Options {
    const char *input;
    const char *output;          /* -o */
    const char *header;          /* --header */
    bool target_c;               /* --target c */
    bool debug;                  /* -g */
    bool assume_noalias;         /* --assume-noalias (issue 11): kernel array
                                    arguments never overlap */
    bool time_report;            /* -ftime-report: each pass's time on stderr */
    SigOverride *sigs;
    int nsigs;
    /* issue 13 (hard) */
    bool racecheck;              /* --racecheck (implies -g): the CPU code
                                    reports shared-memory races */
    const char *module_name;     /* --module-name: prefix of every global
                                    symbol and launcher (NULL: none) */
    bool may_fork;               /* speed (issue 7): a big file's printing
                                    may fork a helper process (kernc; not
                                    kernc run, whose backend holds threads) */
} Options;

/* translate.c: the passes.  translate: diagnostics set up for src, then
 * parse, resolve, type and check it; the Program, or NULL when errors were
 * reported (all of them).  translate_emit: the code for opt's target into
 * *code and the launcher header into *header (either may be NULL); false
 * if the emitter reported an error. */
Program *translate(Source *src, const Options *opt);
bool translate_emit(Program *p, const Options *opt, StrBuf *code, StrBuf *header);
/* -ftime-report: the time since the previous call is charged to pass
 * (translate and translate_emit call it; main.c for writing); with pass
 * NULL, the table is printed to stderr.  Nothing without the option. */
void time_pass(const Options *opt, const char *pass);

/* Between resolve.c and type.c (nothing else uses these). */
typedef struct Signature {
    Type *ret;                   /* ty_void for kernels */
    /* suite (issues 8/9): written without a return type, '(int64, int64)':
     * a device function's is inferred (ret is ty_void) */
    bool ret_inferred;
    Type **params;
    int nparams;
    /* issue 13 (hard): where it is written (sig.c; has_loc false for
     * --signature and annotations): the string or expression, and its
     * return type */
    bool has_loc;
    Loc loc, ret_loc;
} Signature;

/* One decorated def of the file; type.c makes its Funcs from it. */
typedef struct FuncDef {
    const char *name;
    Node *def;                   /* the parsed S_FUNCDEF, never lowered */
    FuncOptions opt;
    bool is_kernel;
    Signature *sigs;             /* eager signatures (none: typed per call) */
    int nsigs;
    bool sig_failed;             /* a signature was given but had errors */
    Func **specs;                /* type.c: specialisations made so far */
    int nspecs;
    int nfinal;                  /* type.c: how many of them are finalised */
    struct UFunc *ufunc;         /* ufunc.c: @vectorize, @guvectorize, cuda.reduce */
    bool c_named;                /* name is already a C name kernc made (ufunc
                                    kernels: c_ident(NAME)__vec_f8) */
    bool share_def;              /* speed (issue 7; translate.c): a kernel typed
                                    once (one signature, its name read nowhere
                                    in the module): its one Func lowers this
                                    def's body instead of a copy */
} FuncDef;

/* What a module-level name is bound to. */
typedef enum GlobalKind {
    GLOBAL_PATH,                 /* an import: path "cuda", "math", "np", float32 */
    GLOBAL_CONST,                /* a folded constant: value is an E_CONST, or
                                    an E_TUPLE of them (nested for tuples of
                                    tuples; type TY_TUPLE) */
    GLOBAL_FUNC,                 /* a @cuda.jit function */
    GLOBAL_ARRAY,                /* C = np.array(...): value is the flat E_TUPLE of
                                    E_CONSTs, value->type the SPACE_CONST array
                                    type; shape[] its shape */
    /* records (rec; src/record.c) */
    GLOBAL_DTYPE,                /* d = np.dtype([...]): type, a TY_RECORD */
    GLOBAL_RECORD,               /* r = from_dtype(d): type, a TY_RECORD */
    GLOBAL_FOREIGN,              /* dev (issue 9): f = cuda.declare_device(...);
                                    foreign */
    GLOBAL_EXC,                  /* dev (issue 9): class E(Exception): pass, for
                                    raise E(...); path: its base's name */
    GLOBAL_NTUPLE,               /* arr (issue 9): P = namedtuple("P", "x y"):
                                    path the class name, value an E_TUPLE of
                                    the fields' E_STRs (src/ntuple.c) */
    GLOBAL_ENUM,                 /* arr (issue 9): class C(Enum/IntEnum): path the
                                    name, value an E_TUPLE of (E_STR, E_CONST)
                                    pairs, type int64 (IntEnum) or the members'
                                    enum type (src/ntuple.c) */
} GlobalKind;

typedef struct Global {
    GlobalKind kind;
    const char *name;
    const char *path;
    Node *value;
    FuncDef *fn;
    int64_t shape[3];            /* GLOBAL_ARRAY */
    Type *type;                  /* GLOBAL_DTYPE, GLOBAL_RECORD (rec) */
    struct Foreign *foreign;     /* GLOBAL_FOREIGN (dev, issue 9) */
} Global;

/* names.c: the module-level names.  sema_global: the latest binding of a
 * name, NULL if unbound; sema_bind: a new binding (it replaces the old). */
void sema_names_reset(void);
const Global *sema_global(const char *name);
Global *sema_bind(GlobalKind kind, const char *name);
/* Offers s every module-level name, and the scalar type names. */
void sema_suggest_globals(Suggest *s);
void sema_suggest_types(Suggest *s);
/* The canonical API path of a name or attribute chain ("np.float32" ->
 * float32), skipping names that is_local says are the function's own;
 * NULL if it names no API entry or module. */
const char *sema_path_of(const Node *e, bool (*is_local)(void *, const char *), void *ctx);
/* The scalar type (or void) of a canonical type name, else NULL. */
Type *sema_scalar_named(const char *canon);
/* Bind a module-level name to an API path (imports; ufunc.c's generated
 * kernels' own names for cuda and the types). */
void sema_bind_path(const char *name, const char *path);
/* arr (issue 9), ntuple.c: NAME = namedtuple(...) at module level (true:
 * it was one, bound or reported). */
bool ntuple_module_assign(const char *name, Node *rhs);
/* class NAME(Enum or IntEnum) at module level: true when it is one (bound
 * or reported) */
bool enum_class_def(const Node *s);
/* fold.c: constant folding (Python semantics). */
/* Fold a constant expression to an E_CONST, or an E_TUPLE of them for a
 * constant tuple (NULL if it is not one; then, with `report`, an error says
 * why).  is_local tells names that are local
 * to the function being typed (they are never constants). */
Node *sema_fold(Node *e, bool report, bool (*is_local)(void *, const char *), void *ctx);
/* py (issue 9): sema_fold where a local for which local_value gives an
 * E_CONST (a literal argument of a specialisation) is that constant. */
Node *sema_fold_local(Node *e, bool report, bool (*is_local)(void *, const char *),
                      Node *(*local_value)(void *, const char *), void *ctx);
/* An expression with only number literals at its leaves, folded as
 * CPython's compiler folds it before numba sees it (exact integers, so
 * 9223372036854775807 + 1 is the uint64 2**63): the E_CONST (int64, uint64,
 * float64 or bool), or NULL with *runtime set where CPython leaves it to
 * run time (1 // 0, 1 << -1, 2 ** 100), or NULL after an error (an int
 * that fits no 64-bit type, as numba refuses it; reported if `report`). */
Node *sema_fold_literal(Node *e, bool report, bool *runtime);
/* sema_fold without reporting; when e is not a constant, *why says why at
 * *why_loc (the part that is not). */
Node *sema_fold_why(Node *e, const char **why, Loc *why_loc);
/* The values of a constant array from nested tuples/lists of constants
 * (np.array's data): *flat an E_TUPLE of E_CONSTs of elem, in C order, typed
 * ty_array(elem, ndim, true, SPACE_CONST); elem NULL: NumPy's rule (ints ->
 * int64, any float -> float64, all bools -> bool).  False after an error. */
bool sema_const_array(Node *data, Type *elem, Node **flat, int64_t shape[3]);
/* A path naming a vector type by an alias, canonical (vecrec): cuda.float4
 * -> cuda.float32x4; any other path as it is. */
const char *sema_vector_canon(const char *path);
/* Canonical spelling of a numba/NumPy type name (f4 -> float32); NULL if none. */
const char *sema_type_alias(const char *name);
/* py (issue 9): numba's own C-style type names (numba.bool, numba.uint,
 * numba.byte = uint8, numba.size_t ...; not NumPy's, where np.byte is
 * int8): the canonical type name, else sema_type_alias's answer. */
const char *sema_numba_type_alias(const char *name);
/* Python's float, int and bool named as a dtype (NumPy's float64, int64,
 * bool); any other name as it is. */
const char *sema_python_dtype(const char *name);
/* type.c: type one kernel signature / the eagerly-typed device functions;
 * type_finish lists every Func reached, callees first. */
void type_reset(void);
void type_kernel(FuncDef *fd, const Signature *sig, Loc loc);
void type_finish(Program *p);
/* How many functions are finalised so far; type_mark_failed: those
 * finalised since `from` had errors (Func.type_failed). */
int type_nfinal(void);
void type_mark_failed(int from);
/* ssa.c: rename the definitions of each name of def's body into webs
 * (numba's SSA): every web but a name's first becomes "name.N".  Names
 * bound by an S_ASSIGN for which is_pinned(ctx, assign) is true (arrays,
 * groups) keep one variable. */
typedef bool SsaPinned(void *ctx, const Node *assign);
void ssa_split(Node *def, SsaPinned *is_pinned, void *ctx);
/* sig.c: a signature from a string or expression (false after an error,
 * reported at the string or inside it), from --signature's text (`who`
 * names it in errors), appended to fd, and fd's parameter annotations
 * made its signature (a kernel with a bare @cuda.jit). */
bool sema_signature(Node *e, Signature *out);
bool sema_signature_string(const char *s, const char *who, Signature *out);
void sema_add_signature(FuncDef *fd, const Signature *s);
void sema_signature_annotations(FuncDef *fd);
/* ---- ffi.c (dev, issue 9): cuda.declare_device ----
 * ffi_reset: forget the previous file's (input: the .kern path, for the
 * link files' directory); ffi_declare: NAME = cuda.declare_device(...) at
 * module level (binds NAME, reports errors); the declared functions and
 * the link files (resolved paths, each once), in file order. */
typedef struct Foreign {
    const char *name;            /* the C symbol */
    const char *cname;           /* kernc's wrapper of it: krt_ffi_NAME */
    Signature sig;
    bool c_abi;                  /* abi='c': RET name(ARGS); else numba's
                                    int name(RET *, ARGS) */
    bool cooperative;            /* use_cooperative=True */
    Loc loc;
} Foreign;
/* The name a raise reports for the class called name: a built-in
 * exception or a module-level class derived from one; NULL otherwise. */
const char *exception_class(const char *name);
bool exception_class_def(const Node *s);
void ffi_reset(const char *input);
void ffi_declare(const char *pyname, Node *call);
int ffi_count(void);
const Foreign *ffi_get(int i);
int ffi_nlinks(void);
const char *ffi_link(int i);

/* resolve.c: bind the module-level names of a parsed module in file order
 * (imports, constants, functions), then resolve each function's decorator
 * and signatures (opt's --signature ones replace them); the FuncDefs in
 * file order.  resolve_check_params: refuse what numba does not take in a
 * parameter list (reported; false then). */
PtrVec resolve_module(Node *module, const Options *opt);
bool resolve_check_params(FuncDef *fd);
/* check.c: kernel rules; reports errors and warnings. */
void check_program(Program *p, const Options *opt);
/* range.c: the value ranges of every function's integer expressions
 * (Node.rknown, rlo, rhi; read through range_of), for the printers. */
void range_program(Program *p);
/* issue 11 (sass): range_func: one function again (the general intervals);
 * range_func_i32: kernel f's intervals under its 32-bit variant's launch
 * conditions (krt_launch_fits32); range_i32_param: v is one of the array
 * parameters those conditions cover. */
void range_func(Func *f);
void range_func_i32(Func *f);
bool range_i32_param(const Func *f, const Var *v);
/* speed (issue 7): range_func_i32's intervals are kept aside, by node,
 * until range_i32_end (the tree keeps the general ones); range_of reads
 * the ones in force.  range_i32_matters, after range_func_i32: false when
 * the variant's text would be the general one's. */
typedef struct RangeIv {
    int64_t lo, hi;
    bool known;
} RangeIv;
extern bool range_aside;
RangeIv range_aside_get(const struct Node *n);
static inline RangeIv range_of(const struct Node *n)
{
    return range_aside ? range_aside_get(n) : (RangeIv){n->rlo, n->rhi, n->rknown};
}
/* a known interval of values >= 0 */
static inline bool range_nonneg(const struct Node *n)
{
    RangeIv r = range_of(n);
    return r.known && r.lo >= 0;
}
/* The values of an integer (or bool) scalar type; false for uint64 and
 * other types */
bool range_type_bounds(const Type *t, int64_t *lo, int64_t *hi);
bool range_i32_matters(const Func *f);
void range_i32_end(void);

/* emit_*.c: the CUDA C file (kernels, CPU code, launchers), the C file for the
 * CPU backend (--target c), and the header with the launcher prototypes. */
void emit_cuda(StrBuf *out, Program *p, const Options *opt);
void emit_c(StrBuf *out, Program *p, const Options *opt);
void emit_header(StrBuf *out, Program *p, const Options *opt);
/* The tuple types the code declares, in its order, into p->tuples (a walk
 * of every body: translate.c runs it beside the range pass) */
void program_tuples(Program *p);
/* emit_cuda.c (issue 11): the nvcc flags the kernels' options ask for
 * ("-lineinfo" for lineinfo=True), "" if none; a static string.  `kernc
 * --print-nvcc-flags` prints them and `kernc run --backend cuda` adds them. */
const char *emit_nvcc_flags(const Program *p);
/* emit_*.c, for ufunc.c too: the .kern file's path as the generated code
 * names it (the source's, else opt->input, else "input.kern"). */
const char *emit_source_path(const Program *p, const Options *opt);
/* issue 13 (hard): the identifier of the module's tables
 * (krt_module_<ident>): the --module-name, or emit_module_ident and 8 hex
 * digits of a hash of the file's name and text, so that a/kernels.kern and
 * b/kernels.kern differ. */
const char *emit_module_symbol(const Program *p, const Options *opt);

/* ------------------------------------------------------------------ */
/* ufunc.c: @vectorize, @guvectorize and cuda.reduce                   */
/* ------------------------------------------------------------------ */

/* What ufunc.c makes of each decorated function (FuncDef.ufunc) and the
 * Program lists for emit_host.c, which writes their host functions. */
/* The loop dimensions a kernel view can have: krt_view holds KRT_MAX_NDIM
 * (kernrt.h) dimensions in all, core ones included. */
#define UF_MAX_NDIM 4
/* Operands (inputs and outputs) of one function: NumPy's NPY_MAXARGS, and
 * what runtime/ufunc.c's krt_ufunc_call accepts (KRT_UFUNC_MAX_OPS). */
#define UF_MAX_OPS 32

/* X(kind, decorator as written, kernel-name tag, krt_ufunc_kind) */
#define UFUNC_KINDS(X)                                                       \
    X(UF_VECTORIZE, "@vectorize", "vec", "KRT_UFUNC_VECTORIZE")              \
    X(UF_GUVECTORIZE, "@guvectorize", "guv", "KRT_UFUNC_GUVECTORIZE")        \
    X(UF_REDUCE, "cuda.reduce", "red", "KRT_UFUNC_REDUCE")

typedef enum UfKind {
#define X_(k, deco, tag, krt) k,
    UFUNC_KINDS(X_)
#undef X_
} UfKind;
extern const char *const ufunc_kind_name[];   /* "@vectorize", ... */

/* One operand of one signature. */
typedef struct UfOp {
    const char *name;        /* the .kern parameter ("out" for vectorize's result) */
    Type *type;              /* the signature's type: scalar or array */
    Type *elem;
    bool is_output;
    bool scalar_ok;          /* the kernel takes a host scalar in its place */
    int core_ndim;           /* dimensions in the layout */
    int view_ndim;           /* the kernel's core dimensions (1 for a `()` array) */
    int core_dims[UF_MAX_NDIM];
} UfOp;

/* One signature: one kernel and one host function. */
typedef struct UfSig {
    const char *host;        /* the host function */
    const char *kname;       /* the kernel */
    const char *text;        /* the signature, for messages and comments */
    UfOp *ops;
    int nops;
    int nloop;               /* loop dimensions of the kernel's views */
    FuncDef *kfd;            /* the kernel, once made */
} UfSig;

/* One decorated function: its signatures, each a kernel and a host function. */
typedef struct UFunc {
    UfKind kind;
    const char *name;
    FuncDef *fd;             /* the user's function */
    Loc loc;                 /* the decorator */
    int nin, nout;
    const char **symbols;    /* guvectorize: the layout's dimension names */
    int nsymbols;
    UfSig *sigs;
    int nsigs;
} UFunc;

/* resolve.c calls ufunc_decorator when a def carries @vectorize,
 * @guvectorize or @cuda.reduce (d: the decorator expression; fd becomes a
 * device function and fd->ufunc its descriptor), and ufunc_reduce_lambda
 * for `NAME = cuda.reduce(lambda a, b: ...)`, which returns the S_FUNCDEF
 * to bind as NAME (decorated with the call's `cuda.reduce`), NULL after an
 * error.  translate.c calls ufunc_type_all after the user's functions are
 * typed: it makes and types the generated kernels of every fdef's ufunc
 * (errors_before: error_count() before resolution began). */
void ufunc_decorator(FuncDef *fd, Node *d);
Node *ufunc_reduce_lambda(const char *name, Node *call);
void ufunc_type_all(const PtrVec *fdefs, int errors_before);

/* ---- npk: NumPy ufuncs inside kernels (npufunc.c) ----
 * npu_find: the ufunc of an "np.NAME" path (aliases included), or NULL.
 * npu_missing_message: the error for a NumPy ufunc numba-cuda has no CUDA
 * loops for (np.add, np.sqrt), or NULL.  npu_resolve: numba's loop choice
 * for scalar input types in[nin] and the element types of the explicit
 * output arrays out[nout] (nout 0 or 1): the loop's input types and output
 * type; false when no loop fits.  npu_element: the loop's element
 * operation on x[nin] (pure operands, which it may read more than once,
 * converted here to loop_in), of type res (the loop's output type). */
typedef struct NpUfunc NpUfunc;
const NpUfunc *npu_find(const char *path);
int npu_nin(const NpUfunc *u);
const char *npu_missing_message(const char *path);
bool npu_resolve(const NpUfunc *u, Type *const *in, Type *const *out, int nout,
                 Type **loop_in, Type **loop_out);
Node *npu_element(const NpUfunc *u, Loc loc, Node **x, Type *const *loop_in, Type *res);
/* Whether npu_element reads an operand more than once for this loop
 * (maximum and its kind, int64-uint64 comparisons): type.c then reads
 * each operand into a hidden variable first, for readable code. */
bool npu_rereads(const NpUfunc *u, Type *const *loop_in);
/* The float64 value of a constant row of the npk blocks (np.pi, np.nan,
 * math.tau, ...); false for the other rows. */
bool npu_const_value(ApiId id, double *v);

/* run.c: `kernc run ...`; returns the process exit status. */
int run_main(int argc, char **argv);
/* run_complex.c: a complex literal as Python's complex() reads a string
 * (false if it is none); its repr is npy.h's run_complex_repr. */
bool run_complex_parse(const char *text, double *re, double *im);

/* ------------------------------------------------------------------ */
/* half.c: float16                                                     */
/* ------------------------------------------------------------------ */

/* half.c: numba-cuda's float16 operator templates (+ - * / and the
 * comparisons: both float16, or one float16 and the other converting to it
 * safely) and fp16.py's math overloads (the helper's name, or NULL). */
bool half_operator(Op op, const Type *a, const Type *b);
const char *half_math_name(int api_id);
/* bfloat16 (src/bf16.c) */
Type *bf16_operator(Op op, const Type *a, const Type *b);
const char *bf16_math_name(int api_id);
bool bf16_signature(int api_id, Type **ret, Type **param);
bool ty_converts_unsafely(const Type *from, const Type *to);   /* any conversion */
/* suite: numba's conversion kind from -> to: 0 exact, 1 promote, 2 safe,
 * 3 unsafe, 4 none (types.c) */
int ty_conversion_kind(const Type *from, const Type *to);
int ty_conversion_kind_of(int from_kind, int to_kind);   /* scalar TypeKinds */
const char *bf16_import_path(const char *name);

#endif /* KERNC_H */
