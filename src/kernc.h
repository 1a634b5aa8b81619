/*
 * kernc.h - the translator's one internal header, in sections per file.
 *
 * Pipeline, one file per pass, each reading the previous one's output only:
 *   lex (grammar/lexer.l) -> layout (src/layout.c: INDENT/DEDENT)
 *   -> parse (grammar/parser.y: AST with locations)
 *   -> resolve (src/resolve.c: names, constants, imports, signatures)
 *   -> type (src/type.c: numba's typing, device-function specialisation,
 *            lowering to the typed node kinds below)
 *   -> check (src/check.c: kernel rules: barriers, returns, shared sizes)
 *   -> emit (src/emit.c: CUDA C, C for the CPU backend, the C header).
 * The cuda.* API and math.* live in one table, src/api.def.
 */
#ifndef KERNC_H
#define KERNC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* util.c: arena, growable arrays, strings, internal errors            */
/* ------------------------------------------------------------------ */

/* Everything of one translation lives in one arena, freed at once. */
void *arena_alloc(size_t n);              /* zeroed; never NULL (dies on OOM) */
char *arena_strdup(const char *s);
char *arena_strndup(const char *s, size_t n);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_free_all(void);

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

/* Growable string buffer (malloc'd; used by the emitter). */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
} StrBuf;
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(StrBuf *b);
/* b's text copied into the arena ("" if b is empty); b is freed. */
char *sb_take(StrBuf *b);

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
void warning_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int error_count(void);
extern bool diag_werror;                   /* -Werror: warnings count as errors */

/* ------------------------------------------------------------------ */
/* Types (type.c owns the singletons)                                  */
/* ------------------------------------------------------------------ */

/* X(KIND, numba name, C name, size, krt_dtype or -1) */
#define SCALAR_TYPES(X)                                      \
    X(BOOL, "boolean", "bool", 1, 0)                         \
    X(INT8, "int8", "int8_t", 1, 1)                          \
    X(INT16, "int16", "int16_t", 2, 2)                       \
    X(INT32, "int32", "int32_t", 4, 3)                       \
    X(INT64, "int64", "int64_t", 8, 4)                       \
    X(UINT8, "uint8", "uint8_t", 1, 5)                       \
    X(UINT16, "uint16", "uint16_t", 2, 6)                    \
    X(UINT32, "uint32", "uint32_t", 4, 7)                    \
    X(UINT64, "uint64", "uint64_t", 8, 8)                    \
    X(FLOAT32, "float32", "float", 4, 9)                     \
    X(FLOAT64, "float64", "double", 8, 10)

typedef enum TypeKind {
#define X_(k, nm, c, sz, dt) TY_##k,
    SCALAR_TYPES(X_)
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
                      receiver of .sync(); never reaches emit.c */
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
    MemSpace space;
    /* TY_TUPLE */
    Type **elems;
    int nelems;
    /* TY_TYPEREF: the type named */
    Type *ref;
};

extern Type *ty_scalar[TY_FLOAT64 + 1];   /* indexed by TypeKind */
extern Type *ty_void, *ty_none, *ty_range, *ty_module, *ty_function;
extern Type *ty_error;                     /* TY_ERROR: never reaches emit.c */
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
bool ty_is_scalar(const Type *t);
bool ty_is_int(const Type *t);        /* signed or unsigned, not bool */
bool ty_is_signed(const Type *t);
bool ty_is_float(const Type *t);
int ty_size(const Type *t);           /* scalars */
const char *ty_name(const Type *t);   /* numba spelling: "float32[:, ::1]" */
const char *ty_cname(const Type *t);  /* scalars: "int64_t", "float", ... */
int ty_dtype(const Type *t);          /* krt_dtype of a scalar or of ty_rngstate
                                         (KRT_XOROSHIRO128P), -1 otherwise */

/* ------------------------------------------------------------------ */
/* The API table (api.c from api.def)                                  */
/* ------------------------------------------------------------------ */

/* One row per cuda.* / math.* / builtin entity.  The X-macro rows live in
 * src/api.def; see that file for the columns. */
typedef enum ApiId {
#define API(id, path, kind, nargs_min, nargs_max, cuda, cpu) API_##id,
#include "api.def"
#undef API
    API__COUNT
} ApiId;

typedef enum ApiKind {
    AK_ATTR,       /* a value: cuda.threadIdx.x, math.pi, cuda.warpsize */
    AK_CALL,       /* a function: cuda.grid(1), math.sqrt(x), cuda.atomic.add */
    AK_MODULE,     /* a namespace: cuda, cuda.atomic, math, np */
    AK_TYPE,       /* a type name: float32, np.float64 */
} ApiKind;

typedef struct ApiEntry {
    ApiId id;
    const char *path;      /* "cuda.atomic.add", "math.sqrt", "abs" */
    ApiKind kind;
    int nargs_min, nargs_max;
    const char *cuda;      /* CUDA C spelling (format used by emit.c) */
    const char *cpu;       /* C spelling for the CPU backend */
} ApiEntry;

extern const ApiEntry api_table[API__COUNT];
const ApiEntry *api_lookup(const char *path);   /* NULL if unknown */

/* ------------------------------------------------------------------ */
/* AST (ast.c): built by the parser, lowered in place by type.c        */
/* ------------------------------------------------------------------ */

/* X(KIND, description).  Fields used by each kind are listed beside it;
 * "lowered" kinds are produced by type.c and are all the emitter sees. */
#define NODE_KINDS(X)                                                        \
    /* ---- expressions, as parsed ---- */                                  \
    X(E_INT, "integer literal")        /* text, ival (uint64 bits) */        \
    X(E_FLOAT, "float literal")        /* text, fval */                      \
    X(E_STR, "string literal")         /* text (decoded) */                  \
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
    double fval;           /* E_FLOAT / E_CONST floats */
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
};

Node *node_new(NodeKind kind, Loc loc);
Node *node_clone(const Node *n);        /* deep copy (for specialisation) */
/* false, with the smallest subtree that is too deep in *where, when the
 * tree is more than `limit` nodes deep (ast.c; the parser's limit) */
bool ast_check_depth(const Node *root, int limit, const Node **where);
void ast_dump(FILE *out, const Node *n, int indent); /* for tests: --dump-ast */

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
    const char *cname;     /* the C name; set by emit.c (mangled on collisions) */
    VarKind kind;
    Type *type;            /* the unified type */
    Loc loc;               /* first definition */
    int64_t shape[3];      /* arrays: constant shape (VAR_SHARED, VAR_LOCALARRAY) */
    int index;             /* position in Func.params or Func.locals */
    Node *init;            /* VAR_CONSTARRAY: E_TUPLE of every element, flat in
                              C order, each an E_CONST of the element type */
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
};

typedef struct Program {
    const Source *src;
    Func **funcs;          /* callees before callers; kernels after their callees */
    int nfuncs;
} Program;

/* ------------------------------------------------------------------ */
/* Passes                                                              */
/* ------------------------------------------------------------------ */

/* layout.c + parser.y: parse a whole file; NULL when errors were reported.
 * The text is decoded as Python does (BOM dropped, universal newlines) and
 * replaced in *src, so that the diagnostics show the lines the parser saw. */
Node *parse_source(Source *src);

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
    SigOverride *sigs;
    int nsigs;
} Options;

/* resolve.c + type.c: NULL when errors were reported. */
Program *analyze(Node *module, const Options *opt);

/* Between resolve.c and type.c (nothing else uses these). */
typedef struct Signature {
    Type *ret;                   /* ty_void for kernels */
    Type **params;
    int nparams;
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
} FuncDef;

/* What a module-level name is bound to. */
typedef enum GlobalKind {
    GLOBAL_PATH,                 /* an import: path "cuda", "math", "np", "float32" */
    GLOBAL_CONST,                /* a folded constant: value is an E_CONST, or
                                    an E_TUPLE of them (nested for tuples of
                                    tuples; type TY_TUPLE) */
    GLOBAL_FUNC,                 /* a @cuda.jit function */
    GLOBAL_ARRAY,                /* C = np.array(...): value is the flat E_TUPLE of
                                    E_CONSTs, value->type the SPACE_CONST array
                                    type; shape[] its shape */
} GlobalKind;

typedef struct Global {
    GlobalKind kind;
    const char *name;
    const char *path;
    Node *value;
    FuncDef *fn;
    int64_t shape[3];            /* GLOBAL_ARRAY */
} Global;

const Global *sema_global(const char *name);         /* resolve.c; NULL if unbound */
/* Fold a constant expression to an E_CONST, or an E_TUPLE of them for a
 * constant tuple (NULL if it is not one; then, with `report`, an error says
 * why).  is_local tells names that are local
 * to the function being typed (they are never constants). */
Node *sema_fold(Node *e, bool report, bool (*is_local)(void *, const char *), void *ctx);
/* An expression with only number literals at its leaves, folded as
 * CPython's compiler folds it before numba sees it (exact integers, so
 * 9223372036854775807 + 1 is the uint64 2**63): the E_CONST (int64, uint64,
 * float64 or bool), or NULL with *runtime set where CPython leaves it to
 * run time (1 // 0, 1 << -1, 2 ** 100), or NULL after an error (an int
 * that fits no 64-bit type, as numba refuses it; reported if `report`). */
Node *sema_fold_literal(Node *e, bool report, bool *runtime);
/* The values of a constant array from nested tuples/lists of constants
 * (np.array's data): *flat an E_TUPLE of E_CONSTs of elem, in C order, typed
 * ty_array(elem, ndim, true, SPACE_CONST); elem NULL: NumPy's rule (ints ->
 * int64, any float -> float64, all bools -> bool).  False after an error. */
bool sema_const_array(Node *data, Type *elem, Node **flat, int64_t shape[3]);
/* Canonical spelling of a numba/NumPy type name ("f4" -> "float32"); NULL if none. */
const char *sema_type_alias(const char *name);
/* type.c: type one kernel signature / the eagerly-typed device functions;
 * type_finish lists every Func reached, callees first. */
void type_reset(void);
void type_kernel(FuncDef *fd, const Signature *sig, Loc loc);
void type_finish(Program *p);
/* type.c: a diagnostic reported once per location and text (device
 * functions are lowered once per specialisation). */
void sema_error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* check.c: kernel rules; reports errors and warnings. */
void check_program(Program *p, const Options *opt);

/* emit.c: the CUDA C file (kernels, CPU code, launchers), the C file for the
 * CPU backend (--target c), and the header with the launcher prototypes. */
void emit_cuda(StrBuf *out, Program *p, const Options *opt);
void emit_c(StrBuf *out, Program *p, const Options *opt);
void emit_header(StrBuf *out, Program *p, const Options *opt);
/* emit.c, for ufunc.c too: the .kern file's path as the generated code
 * names it (the source's, else opt->input, else "input.kern"), and the
 * identifier its base name makes, without ".kern" (krt_module_<ident>). */
const char *emit_source_path(const Program *p, const Options *opt);
const char *emit_module_ident(const char *path);

/* ------------------------------------------------------------------ */
/* ufunc.c: @vectorize, @guvectorize and cuda.reduce                   */
/* ------------------------------------------------------------------ */

/* resolve.c calls these: ufunc_reset at the start of analyze();
 * ufunc_decorator when a def carries @vectorize/@guvectorize/@cuda.reduce
 * (d: the decorator expression; fd becomes a device function);
 * ufunc_reduce_lambda for `NAME = cuda.reduce(lambda a, b: ...)`, which
 * returns the S_FUNCDEF to bind as NAME (decorated with the call's
 * `cuda.reduce`), NULL after an error; ufunc_type_all after the user's
 * functions are typed: it makes and types the generated kernels. */
void ufunc_reset(void);
void ufunc_decorator(FuncDef *fd, Node *d);
Node *ufunc_reduce_lambda(const char *name, Node *call);
void ufunc_type_all(void);
/* Is NAME a @vectorize/@guvectorize/cuda.reduce function of the file? */
bool ufunc_exists(const char *name);
/* emit.c calls these at the end of emit_cuda/emit_c (the host functions
 * and their tables) and of emit_header (their prototypes). */
void ufunc_emit_code(StrBuf *out, Program *p, const Options *opt);
void ufunc_emit_header(StrBuf *out, Program *p, const Options *opt);
/* resolve.c, for ufunc.c: bind a module-level name to an API path (the
 * generated kernels' own names for cuda and the types), and parse one
 * signature expression (a string or numba's call form). */
void sema_bind_path(const char *name, const char *path);
bool sema_signature(Node *e, Signature *out);

/* run.c: `kernc run ...`; returns the process exit status. */
int run_main(int argc, char **argv);

#endif /* KERNC_H */
