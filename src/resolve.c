/*
 * resolve.c - the module level of a .kern file: imports, constants, the
 * decorated functions and their signatures; then analyze() drives type.c.
 *
 * A .kern file runs top to bottom under Python, so its module-level names
 * are bound in order: imports bind API paths ("np" -> numpy, "f4" ->
 * float32), assignments bind constants folded here with Python's semantics
 * (int literal -> int64, float -> float64, bool; np.float32(x) keeps
 * float32), defs bind functions.  Kernel bodies see the final bindings, as
 * numba does when it compiles at the first launch.  Signatures come as
 * numba's strings ("void(float32[:], int32)", parsed by a small recursive
 * descent parser below, with errors pointing inside the string), as
 * expressions (void(float32[::1])), or as lists of either; --signature
 * overrides them.
 */
#include "kernc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static PtrVec fdefs;        /* FuncDef*, in file order */

/* ------------------------------------------------------------------ */
/* Signatures                                                          */
/* ------------------------------------------------------------------ */

/* sig   := [type] '(' [type {',' type}] ')'
 * type  := name {'.' name} ['[' dim {',' dim} ']']
 * dim   := ':' | '::1'          ('::1' on the last dimension: C layout) */
typedef struct SigParser {
    const char *s;
    size_t pos;
    Loc base;          /* the string literal; no location for --signature */
    bool has_loc;
    const char *who;   /* "--signature k" */
    bool failed;
} SigParser;

static void sig_error(SigParser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sig_error(SigParser *P, const char *fmt, ...)
{
    if (P->failed)
        return;
    P->failed = true;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (P->has_loc) {
        Loc l = P->base;
        /* the column inside a one-line literal: after its opening quote */
        l.first_column = P->base.first_column + 1 + (int)P->pos;
        l.last_line = l.first_line;
        l.last_column = l.first_column;
        sema_error(l, "bad signature: %s", buf);
    } else {
        sema_error((Loc){0}, "%s: bad signature '%s': %s (at offset %zu)", P->who, P->s, buf,
                   P->pos);
    }
}

static void sig_space(SigParser *P)
{
    while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t')
        P->pos++;
}

static bool sig_accept(SigParser *P, char ch)
{
    sig_space(P);
    if (P->s[P->pos] == ch) {
        P->pos++;
        return true;
    }
    return false;
}

/* numba.cuda.random's states: xoroshiro128p_type only as the element type
 * of a 1-D array (the kernel indexes states[index] with one integer). */
#define RNG_SCALAR_MSG "xoroshiro128p_type is only allowed as the element type of an " \
    "array of states (xoroshiro128p_type[:])"
#define RNG_NDIM_MSG "an array of xoroshiro128p states must be 1-D (xoroshiro128p_type[:])"

static Type *sig_type(SigParser *P, bool allow_void)
{
    sig_space(P);
    size_t start = P->pos;
    while (P->s[P->pos] && (P->s[P->pos] == '_' || P->s[P->pos] == '.' ||
                            (P->s[P->pos] >= 'a' && P->s[P->pos] <= 'z') ||
                            (P->s[P->pos] >= 'A' && P->s[P->pos] <= 'Z') ||
                            (P->s[P->pos] >= '0' && P->s[P->pos] <= '9')))
        P->pos++;
    if (P->pos == start) {
        sig_error(P, "expected a type name");
        return NULL;
    }
    const char *name = arena_strndup(P->s + start, P->pos - start);
    const char *base = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    Type *t = strcmp(base, "xoroshiro128p_type") == 0 ? ty_rngstate
                                                      : sema_scalar_named(sema_type_alias(base));
    if (!t) {
        size_t save = P->pos;
        P->pos = start;
        sig_error(P, "unknown type '%s'", name);
        P->pos = save;
        return NULL;
    }
    if (t == ty_void && !allow_void) {
        P->pos = start;
        sig_error(P, "'void' is only allowed as the return type");
        return NULL;
    }
    if (!sig_accept(P, '[')) {
        if (t == ty_rngstate) {
            P->pos = start;
            sig_error(P, "%s", RNG_SCALAR_MSG);
            return NULL;
        }
        return t;
    }
    if (t == ty_void) {
        sig_error(P, "an array of void");
        return NULL;
    }
    int ndim = 0;
    bool contig = false;
    do {
        if (!sig_accept(P, ':')) {
            sig_error(P, "expected ':' or '::1' in an array type");
            return NULL;
        }
        ndim++;
        if (sig_accept(P, ':')) {
            sig_space(P);
            if (P->s[P->pos] != '1') {
                sig_error(P, "expected '1' after '::'");
                return NULL;
            }
            P->pos++;
            contig = true;
            sig_space(P);
            if (P->s[P->pos] == ',') {
                sig_error(P, "'::1' on a dimension other than the last (Fortran layout) "
                          "is not supported");
                return NULL;
            }
        }
    } while (sig_accept(P, ','));
    if (!sig_accept(P, ']')) {
        sig_error(P, "expected ']'");
        return NULL;
    }
    if (ndim > 3) {
        sig_error(P, "arrays of more than 3 dimensions are not supported");
        return NULL;
    }
    if (t == ty_rngstate && ndim != 1) {
        P->pos = start;
        sig_error(P, "%s", RNG_NDIM_MSG);
        return NULL;
    }
    return ty_array(t, ndim, contig, SPACE_GLOBAL);
}

static bool sig_parse_string(SigParser *P, Signature *out)
{
    sig_space(P);
    Type *ret = ty_void;
    if (P->s[P->pos] != '(') {
        ret = sig_type(P, true);
        if (!ret)
            return false;
        if (ret->kind == TY_ARRAY) {
            sig_error(P, "returning an array is not supported");
            return false;
        }
    }
    if (!sig_accept(P, '(')) {
        sig_error(P, "expected '(' after the return type");
        return false;
    }
    PtrVec params = {0};
    if (!sig_accept(P, ')')) {
        do {
            Type *t = sig_type(P, false);
            if (!t)
                return false;
            vec_push(&params, t);
        } while (sig_accept(P, ','));
        if (!sig_accept(P, ')')) {
            sig_error(P, "expected ',' or ')'");
            return false;
        }
    }
    sig_space(P);
    if (P->s[P->pos]) {
        sig_error(P, "unexpected text after the signature");
        return false;
    }
    out->ret = ret;
    out->params = (Type **)params.items;
    out->nparams = params.len;
    return true;
}

/* float32, np.float32, float32[:], float32[:, ::1] written as an expression */
static Type *sig_type_expr(Node *e, bool allow_void)
{
    Node *base = e->kind == E_SUBSCRIPT ? e->lhs : e;
    const char *p = sema_path_of(base, NULL, NULL);
    Type *t = p && strcmp(p, "cuda.random.xoroshiro128p_type") == 0 ? ty_rngstate
            : p ? sema_scalar_named(p) : NULL;
    if (t == ty_rngstate && e->kind != E_SUBSCRIPT) {
        sema_error(base->loc, RNG_SCALAR_MSG);
        return NULL;
    }
    if (!t) {
        sema_error(base->loc, "expected a type such as float32 or float32[:]");
        return NULL;
    }
    if (t == ty_void && (!allow_void || e->kind == E_SUBSCRIPT)) {
        sema_error(base->loc, "'void' is only allowed as the return type");
        return NULL;
    }
    if (e->kind != E_SUBSCRIPT)
        return t;
    Node *idx = e->rhs;
    int ndim = idx->kind == E_TUPLE ? idx->args.len : 1;
    Node **dims = idx->kind == E_TUPLE ? idx->args.items : &e->rhs;
    bool contig = false;
    for (int i = 0; i < ndim; i++) {
        Node *d = dims[i];
        if (d->kind != E_SLICE || d->lhs || d->rhs ||
            (d->cond && !(d->cond->kind == E_INT && d->cond->ival == 1))) {
            sema_error(d->loc, "expected ':' or '::1' in an array type");
            return NULL;
        }
        if (d->cond) {
            if (i != ndim - 1) {
                sema_error(d->loc, "'::1' on a dimension other than the last (Fortran "
                           "layout) is not supported");
                return NULL;
            }
            contig = true;
        }
    }
    if (ndim > 3) {
        sema_error(idx->loc, "arrays of more than 3 dimensions are not supported");
        return NULL;
    }
    if (t == ty_rngstate && ndim != 1) {
        sema_error(idx->loc, RNG_NDIM_MSG);
        return NULL;
    }
    return ty_array(t, ndim, contig, SPACE_GLOBAL);
}

/* A signature's parameter types from type expressions, and ret. */
static bool sig_param_exprs(const NodeList *args, Type *ret, Signature *out)
{
    PtrVec params = {0};
    for (int i = 0; i < args->len; i++) {
        Type *t = sig_type_expr(args->items[i], false);
        if (!t)
            return false;
        vec_push(&params, t);
    }
    out->ret = ret;
    out->params = (Type **)params.items;
    out->nparams = params.len;
    return true;
}

/* One signature written as a string or an expression. */
static bool sig_from_node(Node *e, Signature *out)
{
    if (e->kind == E_STR) {
        SigParser P = {.s = e->text, .base = e->loc, .has_loc = true};
        return sig_parse_string(&P, out);
    }
    if (e->kind == E_CALL) {
        Type *ret = sig_type_expr(e->lhs, true);
        if (!ret)
            return false;
        if (e->kwargs.len) {
            sema_error(((Node *)e->kwargs.items[0])->loc, "keyword arguments in a signature");
            return false;
        }
        return sig_param_exprs(&e->args, ret, out);
    }
    if (e->kind == E_TUPLE)   /* argument types only: (float32[:], int32) */
        return sig_param_exprs(&e->args, ty_void, out);
    sema_error(e->loc, "expected a signature such as \"void(float32[:], int32)\"");
    return false;
}

/* ufunc.c: the signatures of @vectorize/@guvectorize. */
bool sema_signature(Node *e, Signature *out)
{
    return sig_from_node(e, out);
}

/* ------------------------------------------------------------------ */
/* Module level                                                        */
/* ------------------------------------------------------------------ */

static void add_sig(FuncDef *fd, const Signature *s)
{
    Signature *sigs = arena_alloc(sizeof *sigs * (size_t)(fd->nsigs + 1));
    if (fd->nsigs)
        memcpy(sigs, fd->sigs, sizeof *sigs * (size_t)fd->nsigs);
    sigs[fd->nsigs++] = *s;
    fd->sigs = sigs;
}


static void resolve_import(Node *s)
{
    for (int i = 0; i < s->names.len; i++) {
        Node *a = s->names.items[i];
        const char *mod = a->name, *as = a->text;
        const char *path = NULL;
        if (strcmp(mod, "math") == 0) path = "math";
        else if (strcmp(mod, "numpy") == 0) path = "np";
        else if (strcmp(mod, "numba") == 0) path = "numba";
        else if (strcmp(mod, "numba.cuda") == 0) path = as ? "cuda" : "numba";
        else if (strcmp(mod, "numba.cuda.random") == 0) path = as ? "cuda.random" : "numba";
        else {
            sema_error(a->loc, "import of module '%s' is not supported", mod);
            continue;
        }
        /* `import numba.cuda` binds "numba", as Python does */
        sema_bind_path(as ? as : strncmp(mod, "numba.", 6) == 0 ? "numba" : mod, path);
    }
}

static void resolve_fromimport(Node *s)
{
    const char *mod = s->text;
    for (int i = 0; i < s->names.len; i++) {
        Node *a = s->names.items[i];
        const char *name = a->name, *as = a->text ? a->text : a->name;
        const char *path = NULL;
        if (strcmp(name, "*") == 0) {
            sema_error(a->loc, "'from %s import *' is not supported", mod);
            continue;
        }
        if (strcmp(mod, "numba") == 0 || strcmp(mod, "numba.types") == 0 ||
            strcmp(mod, "numpy") == 0) {
            if (sema_type_alias(name))
                path = sema_type_alias(name);
            else if (strcmp(mod, "numba") == 0 && strcmp(name, "cuda") == 0)
                path = "cuda";
            else if (strcmp(mod, "numba") == 0 &&
                     (strcmp(name, "vectorize") == 0 || strcmp(name, "guvectorize") == 0))
                path = name;
        } else if (strcmp(mod, "numba.cuda") == 0) {
            const char *p = arena_printf("cuda.%s", name);
            if (api_lookup(p) || strcmp(name, "jit") == 0)
                path = p;
        } else if (strcmp(mod, "numba.cuda.random") == 0) {
            const char *p = arena_printf("cuda.random.%s", name);
            if (api_lookup(p))
                path = p;

        } else if (strcmp(mod, "math") == 0) {
            const char *p = arena_printf("math.%s", name);
            if (api_lookup(p))
                path = p;
        } else {
            sema_error(s->loc, "import from module '%s' is not supported", mod);
            return;
        }
        if (!path) {
            sema_error(a->loc, "importing '%s' from %s is not supported", name, mod);
            continue;
        }
        sema_bind_path(as, path);
    }
}

static void resolve_array_constant(const char *name, Node *call)
{
    Node *data = call->args.len > 0 ? call->args.items[0] : NULL;
    Node *dtype = call->args.len > 1 ? call->args.items[1] : NULL;
    if (call->args.len > 2) {
        sema_error(((Node *)call->args.items[2])->loc, "np.array() takes the data and a dtype");
        return;
    }
    for (int i = 0; i < call->kwargs.len; i++) {
        Node *kw = call->kwargs.items[i];
        if (strcmp(kw->name, "dtype") == 0 && !dtype) {
            dtype = kw->lhs;
        } else {
            sema_error(kw->loc, "unsupported keyword argument '%s' in np.array()", kw->name);
            return;
        }
    }
    if (!data) {
        sema_error(call->loc, "np.array() needs the data");
        return;
    }
    Type *elem = NULL;
    if (dtype) {
        const char *p = dtype->kind == E_STR ? sema_type_alias(dtype->text)
                                             : sema_path_of(dtype, NULL, NULL);
        if (p && strcmp(p, "float") == 0)
            p = "float64";
        else if (p && strcmp(p, "int") == 0)
            p = "int64";
        else if (p && strcmp(p, "bool") == 0)
            p = "boolean";
        elem = p ? sema_scalar_named(p) : NULL;
        if (!elem || elem == ty_void) {
            sema_error(dtype->loc, "the dtype of an array constant must be a scalar type "
                       "such as np.float32");
            return;
        }
    }
    Node *flat;
    int64_t shape[3];
    if (!sema_const_array(data, elem, &flat, shape))
        return;
    Global *g = sema_bind(GLOBAL_ARRAY, name);
    g->value = flat;
    memcpy(g->shape, shape, sizeof shape);
}

/* A module-level function (a def, or a cuda.reduce lambda made one):
 * listed in file order and bound to its name. */
static void add_funcdef(Node *def)
{
    FuncDef *fd = arena_alloc(sizeof *fd);
    fd->name = def->name;
    fd->def = def;
    vec_push(&fdefs, fd);
    sema_bind(GLOBAL_FUNC, def->name)->fn = fd;
}

static void resolve_constant(Node *s)
{
    Node *t = s->args.items[0];
    if (s->rhs->kind == E_CALL) {
        const char *p = sema_path_of(s->rhs->lhs, NULL, NULL);
        if (p && strcmp(p, "cuda.reduce") == 0) {   /* ufunc.c: a lambda becomes a def */
            Node *def = ufunc_reduce_lambda(t->name, s->rhs);
            if (def)
                add_funcdef(def);
            return;
        }
        if (p && (strcmp(p, "np.array") == 0 || strcmp(p, "np.asarray") == 0)) {
            resolve_array_constant(t->name, s->rhs);
            return;
        }
    }
    const char *why;
    Loc why_loc;
    Node *k = sema_fold_why(s->rhs, &why, &why_loc);
    if (!k) {
        /* say why, at the part that is not constant */
        sema_error(why_loc, "module-level name '%s' must be a compile-time constant: %s",
                   t->name, why);
        return;
    }
    sema_bind(GLOBAL_CONST, t->name)->value = k;
}

static bool opt_bool(Node *kw, bool *out)
{
    Node *k = sema_fold(kw->lhs, false, NULL, NULL);
    if (!k || (k->type != ty_bool && !ty_is_int(k->type))) {
        sema_error(kw->lhs->loc, "option '%s' must be True or False", kw->name);
        return false;
    }
    *out = k->ival != 0;
    return true;
}

static void resolve_decorator(FuncDef *fd)
{
    Node *def = fd->def;
    if (def->decorators.len == 0) {
        sema_error(def->loc, "function '%s' has no @cuda.jit decorator (plain Python "
                   "functions are not supported)", def->name);
        return;
    }
    if (def->decorators.len > 1) {
        sema_error(((Node *)def->decorators.items[1])->loc,
                   "only one decorator per function is supported");
        return;
    }
    Node *d = def->decorators.items[0];
    Node *call = d->kind == E_CALL ? d : NULL;
    const char *p = sema_path_of(call ? d->lhs : d, NULL, NULL);
    if (p && (strcmp(p, "vectorize") == 0 || strcmp(p, "guvectorize") == 0 ||
              strcmp(p, "cuda.reduce") == 0)) {
        ufunc_decorator(fd, d);   /* ufunc.c */
        return;
    }
    if (!p || strcmp(p, "cuda.jit") != 0) {
        sema_error(d->loc, "unsupported decorator; kernels and device functions use "
                   "@cuda.jit");
        return;
    }
    fd->is_kernel = true;
    Node *sigs = NULL;
    if (call) {
        if (call->args.len > 1) {
            sema_error(((Node *)call->args.items[1])->loc,
                       "@cuda.jit takes at most one positional argument (the signatures)");
            return;
        }
        if (call->args.len == 1)
            sigs = call->args.items[0];
        for (int i = 0; i < call->kwargs.len; i++) {
            Node *kw = call->kwargs.items[i];
            bool b;
            if (strcmp(kw->name, "device") == 0) {
                if (opt_bool(kw, &b))
                    fd->opt.device = b, fd->is_kernel = !b;
            } else if (strcmp(kw->name, "fastmath") == 0) {
                if (opt_bool(kw, &b)) fd->opt.fastmath = b;
            } else if (strcmp(kw->name, "lineinfo") == 0) {
                if (opt_bool(kw, &b)) fd->opt.lineinfo = b;
            } else if (strcmp(kw->name, "debug") == 0) {
                if (opt_bool(kw, &b)) fd->opt.debug = b;
            } else if (strcmp(kw->name, "cache") == 0) {
                if (opt_bool(kw, &b)) fd->opt.cache = b;
            } else if (strcmp(kw->name, "opt") == 0) {
                if (opt_bool(kw, &b)) fd->opt.opt = b, fd->opt.opt_set = true;
            } else if (strcmp(kw->name, "inline") == 0) {
                if (kw->lhs->kind == E_STR) {   /* numba: 'always' / 'never' */
                    if (strcmp(kw->lhs->text, "always") == 0) fd->opt.inline_ = true;
                    else if (strcmp(kw->lhs->text, "never") != 0)
                        sema_error(kw->lhs->loc, "inline must be 'always', 'never' or a bool");
                } else if (opt_bool(kw, &b)) {
                    fd->opt.inline_ = b;
                }
            } else if (strcmp(kw->name, "max_registers") == 0) {
                Node *k = sema_fold(kw->lhs, false, NULL, NULL);
                if (!k || !ty_is_int(k->type) || (int64_t)k->ival <= 0 ||
                    (int64_t)k->ival > 255)
                    sema_error(kw->lhs->loc, "max_registers must be an integer from 1 to 255");
                else
                    fd->opt.max_registers = (int)k->ival;
            } else if (strcmp(kw->name, "link") == 0) {
                sema_error(kw->loc, "@cuda.jit option 'link' (linking external PTX or CUDA "
                           "code) is not supported");
            } else if (strcmp(kw->name, "boundscheck") == 0) {
                sema_error(kw->loc, "@cuda.jit option 'boundscheck' is not supported (numba "
                           "refuses it on CUDA); use debug=True or kernc -g");
            } else {
                sema_error(kw->loc, "unknown @cuda.jit option '%s'", kw->name);
            }
        }
    }
    if (sigs) {
        if (sigs->kind == E_LIST) {
            for (int i = 0; i < sigs->args.len; i++) {
                Signature s;
                if (sig_from_node(sigs->args.items[i], &s))
                    add_sig(fd, &s);
                else
                    fd->sig_failed = true;
            }
        } else {
            Signature s;
            if (sig_from_node(sigs, &s))
                add_sig(fd, &s);
            else
                fd->sig_failed = true;
        }
    }
}

/* PEP 3107: `def k(a: float32[:], n: int32)` under a bare @cuda.jit is the
 * kernel's signature.  A signature in the decorator or on the command line
 * wins, and device functions are typed at each call as numba does, so their
 * annotations are documentation only. */
static void sig_from_annotations(FuncDef *fd)
{
    Node *def = fd->def;
    int n = def->params.len, given = 0;
    for (int i = 0; i < n; i++)
        given += ((Node *)def->params.items[i])->lhs != NULL;
    if ((!given && !def->rhs) || !fd->is_kernel || fd->nsigs || fd->sig_failed)
        return;
    PtrVec params = {0};
    for (int i = 0; i < n; i++) {
        Node *p = def->params.items[i];
        Type *t = NULL;
        if (!p->lhs) {
            sema_error(p->loc, "parameter '%s' has no annotation; annotate every parameter "
                       "of kernel '%s' or give a signature in @cuda.jit(...)", p->name,
                       fd->name);
        } else if (p->lhs->kind == E_STR) {   /* a: "float32[:]" */
            SigParser P = {.s = p->lhs->text, .base = p->lhs->loc, .has_loc = true};
            t = sig_type(&P, false);
            sig_space(&P);
            if (t && P.s[P.pos]) {
                sig_error(&P, "unexpected text after the type");
                t = NULL;
            }
        } else {
            t = sig_type_expr(p->lhs, false);
        }
        if (!t) {
            fd->sig_failed = true;
            return;
        }
        vec_push(&params, t);
    }
    if (def->rhs && def->rhs->kind != E_NONE) {
        Type *r = def->rhs->kind == E_STR ? NULL : sig_type_expr(def->rhs, true);
        if (r != ty_void) {
            if (r || def->rhs->kind == E_STR)
                sema_error(def->rhs->loc, "a kernel returns None; its return annotation "
                           "can only be None or void");
            fd->sig_failed = true;
            return;
        }
    }
    Signature sg = {.ret = ty_void, .params = (Type **)params.items, .nparams = params.len};
    add_sig(fd, &sg);
}

static bool check_params(FuncDef *fd)
{
    bool ok = true;
    for (int i = 0; i < fd->def->params.len; i++) {
        Node *p = fd->def->params.items[i];
        if (p->rhs) {
            sema_error(p->rhs->loc, "default parameter values are not supported");
            ok = false;
        }
    }
    return ok;
}

Program *analyze(Node *module, const Options *opt)
{
    int errors_before = error_count();
    types_init();
    type_reset();
    ufunc_reset();   /* ufunc.c */
    sema_names_reset();
    fdefs = (PtrVec){0};

    /* Pass 1: bind names in file order. */
    for (int i = 0; i < module->body.len; i++) {
        Node *s = module->body.items[i];
        switch (s->kind) {
        case S_IMPORT:
            resolve_import(s);
            break;
        case S_FROMIMPORT:
            resolve_fromimport(s);
            break;
        case S_FUNCDEF: {
            const Global *old = sema_global(s->name);
            if (old && old->kind == GLOBAL_FUNC) {
                sema_error(s->loc, "redefinition of function '%s'", s->name);
                break;
            }
            add_funcdef(s);
            break;
        }
        case S_ASSIGN:
            if (s->args.len == 1 && ((Node *)s->args.items[0])->kind == E_NAME)
                resolve_constant(s);
            else
                sema_error(s->loc, "only assignments of constants to single names are "
                           "supported at module level");
            break;
        case S_EXPR:
            if (s->lhs->kind != E_STR)   /* docstrings are fine */
                sema_error(s->loc, "module-level expressions are not supported "
                           "(a .kern file holds kernels, device functions and constants)");
            break;
        case S_PASS: case S_NOP:
            break;
        case S_CLASS:
            sema_error(s->loc, "classes are not supported");
            break;
        default:
            sema_error(s->loc, "module-level %s statements are not supported "
                       "(a .kern file holds kernels, device functions and constants)",
                       node_kind_desc[s->kind]);
            break;
        }
    }

    /* Pass 2: decorators, signatures, --signature. */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        resolve_decorator(fd);
        for (int j = 0; opt && j < opt->nsigs; j++) {
            if (strcmp(opt->sigs[j].kernel, fd->name) != 0)
                continue;
            SigParser P = {.s = opt->sigs[j].sig,
                           .who = arena_printf("--signature %s", fd->name)};
            Signature s;
            fd->nsigs = 0;   /* the command line replaces the decorator's */
            fd->sig_failed = !sig_parse_string(&P, &s);
            if (!fd->sig_failed)
                add_sig(fd, &s);
        }
        sig_from_annotations(fd);
        if (opt && opt->debug)   /* -g: every function as with debug=True */
            fd->opt.debug = true;
    }
    for (int j = 0; opt && j < opt->nsigs; j++) {
        const Global *g = sema_global(opt->sigs[j].kernel);
        if (!g || g->kind != GLOBAL_FUNC)
            sema_error((Loc){0}, "--signature: no function named '%s' in this file",
                       opt->sigs[j].kernel);
    }

    /* Pass 3: type every kernel signature and eager device function; their
     * calls type the device-function specialisations they need. */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        if (!check_params(fd))
            continue;
        if (fd->def->decorators.len != 1)
            continue;
        if (fd->sig_failed)
            continue;
        if (fd->is_kernel && fd->nsigs == 0) {
            sema_error(fd->def->loc, "kernel '%s' has no signature; give one in "
                       "@cuda.jit(...), as parameter annotations, or with --signature "
                       "%s=void(...)", fd->name, fd->name);
            continue;
        }
        for (int j = 0; j < fd->nsigs; j++) {
            Signature *s = &fd->sigs[j];
            if (fd->is_kernel && s->ret != ty_void) {
                sema_error(fd->def->loc, "the signature of kernel '%s' must return void, "
                           "not %s", fd->name, ty_name(s->ret));
                continue;
            }
            if (s->nparams != fd->def->params.len) {
                sema_error(fd->def->loc, "the signature of '%s' has %d parameter%s but the "
                           "function takes %d", fd->name, s->nparams,
                           s->nparams == 1 ? "" : "s", fd->def->params.len);
                continue;
            }
            type_kernel(fd, s, fd->def->loc);
        }
    }
    ufunc_type_all();   /* ufunc.c: the kernels of @vectorize, @guvectorize, cuda.reduce */

    if (error_count() > errors_before)
        return NULL;
    Program *p = arena_alloc(sizeof *p);
    type_finish(p);
    return p;
}
