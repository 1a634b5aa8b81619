/*
 * resolve.c - the module level of a .kern file: imports, constants, the
 * decorated functions and their signatures (resolve_module); translate.c
 * then types what it found.
 *
 * A .kern file runs top to bottom under Python, so its module-level names
 * are bound in order (names.c): imports bind API paths ("np" -> numpy, f4
 * -> float32), assignments bind constants folded with Python's semantics
 * (fold.c: int literal -> int64, float -> float64, bool; np.float32(x)
 * keeps float32), defs bind functions.  Kernel bodies see the final
 * bindings, as numba does when it compiles at the first launch.
 * Signatures (sig.c) come as numba's strings, as expressions, or as lists
 * of either; --signature overrides them.
 */
#include "kernc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static PtrVec fdefs;        /* FuncDef*, in file order */

/* ------------------------------------------------------------------ */
/* Module level                                                        */
/* ------------------------------------------------------------------ */

static void resolve_import(Node *s)
{
    for (int i = 0; i < s->names.len; i++) {
        Node *a = s->names.items[i];
        const char *mod = a->name, *as = a->text;
        const char *path = NULL;
        if (strcmp(mod, "math") == 0) path = "math";
        else if (strcmp(mod, "cmath") == 0) path = "cmath";
        else if (strcmp(mod, "numpy") == 0) path = "np";
        else if (strcmp(mod, "numba") == 0) path = "numba";
        else if (strcmp(mod, "collections") == 0) path = "collections";   /* arr */
        else if (strcmp(mod, "enum") == 0) path = "enum";   /* arr */
        else if (strcmp(mod, "numba.cuda") == 0) path = as ? "cuda" : "numba";
        else if (strcmp(mod, "numba.cuda.random") == 0) path = as ? "cuda.random" : "numba";
        else if (strcmp(mod, "numba.cuda.fp16") == 0) path = as ? "cuda.fp16" : "numba";
        else if (strcmp(mod, "operator") == 0) path = "operator";   /* suite */
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
        /* rec: numba.from_dtype and numba-cuda's numpy_support.from_dtype */
        if (strcmp(name, "from_dtype") == 0 &&
            (strcmp(mod, "numba") == 0 || strcmp(mod, "numba.cuda.np.numpy_support") == 0 ||
             strcmp(mod, "numba.np.numpy_support") == 0)) {
            sema_bind_path(as, "from_dtype");
            continue;
        }
        if (strcmp(mod, "numba") == 0 || strcmp(mod, "numba.types") == 0 ||
            strcmp(mod, "numba.core.types") == 0 || strcmp(mod, "numpy") == 0) {
            if (strcmp(mod, "numpy") != 0 && sema_numba_type_alias(name))
                path = sema_numba_type_alias(name);   /* py: numba.bool, numba.uint ... */
            else if (sema_type_alias(name))
                path = sema_type_alias(name);
            else if (strcmp(mod, "numba") == 0 && strcmp(name, "types") == 0)
                path = "types";   /* py: types.int32 */
            else if (strcmp(mod, "numba") == 0 && strcmp(name, "prange") == 0) {
                sema_error(a->loc, "numba-cuda has no prange in kernels (numba refuses it "
                           "there); use range");
                continue;
            }
            else if (strcmp(mod, "numba") == 0 && strcmp(name, "cuda") == 0)
                path = "cuda";
            else if (strcmp(mod, "numba") == 0 &&
                     (strcmp(name, "vectorize") == 0 || strcmp(name, "guvectorize") == 0))
                path = name;
            else if (strcmp(mod, "numba") == 0 && strcmp(name, "literal_unroll") == 0)
                path = name;   /* issue 9 */
            else if (strcmp(mod, "numpy") == 0 && api_lookup(arena_printf("np.%s", name)))
                path = arena_printf("np.%s", name);   /* npk: from numpy import sin, pi */
        } else if (strcmp(mod, "numba.cuda") == 0) {
            const char *p = sema_vector_canon(arena_printf("cuda.%s", name));   /* vecrec */
            if (api_lookup(p) || strcmp(name, "jit") == 0)
                path = p;
            else if (sema_type_alias(name))   /* npk: numba-cuda 0.30's numba.cuda.types */
                path = sema_type_alias(name);
        } else if (strcmp(mod, "numba.core") == 0 && strcmp(name, "types") == 0) {
            path = "types";   /* py */
        } else if (strcmp(mod, "numba.cuda.random") == 0) {
            const char *p = arena_printf("cuda.random.%s", name);
            if (api_lookup(p))
                path = p;

        } else if (strcmp(mod, "numba.cuda.misc.special") == 0 ||
                   strcmp(mod, "numba.misc.special") == 0) {
            if (strcmp(name, "literal_unroll") == 0)   /* issue 9: numba-cuda 0.30's home */
                path = name;
        } else if (strcmp(mod, "numba.cuda.fp16") == 0) {   /* float16 (half.c) */
            const char *p = arena_printf("cuda.fp16.%s", name);
            if (api_lookup(p))
                path = p;
        } else if (strcmp(mod, "numba.cuda.bf16") == 0 ||
                   strcmp(mod, "numba.cuda._internal.cuda_bf16") == 0) {   /* bfloat16 (bf16.c) */
            path = bf16_import_path(name);
        } else if (strcmp(mod, "numba.cuda.types") == 0 && sema_type_alias(name)) {
            path = sema_type_alias(name);   /* bfloat16: numba-cuda 0.30's types module */
        } else if (strcmp(mod, "collections") == 0) {   /* arr: named tuples */
            if (strcmp(name, "namedtuple") == 0)
                path = "collections.namedtuple";
        } else if (strcmp(mod, "enum") == 0) {   /* arr: enums */
            if (strcmp(name, "Enum") == 0 || strcmp(name, "IntEnum") == 0)
                path = arena_printf("enum.%s", name);
        } else if (strcmp(mod, "operator") == 0) {   /* suite: type_call.c */
            path = arena_printf("operator.%s", name);
        } else if (strcmp(mod, "math") == 0 || strcmp(mod, "cmath") == 0) {
            const char *p = arena_printf("%s.%s", mod, name);
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
        elem = p ? sema_scalar_named(sema_python_dtype(p)) : NULL;
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
    if (record_module_assign(t->name, s->rhs))   /* rec: np.dtype, from_dtype */
        return;
    if (ntuple_module_assign(t->name, s->rhs))   /* arr: namedtuple() */
        return;
    if (s->rhs->kind == E_CALL) {
        const char *p = sema_path_of(s->rhs->lhs, NULL, NULL);
        if (p && strcmp(p, "cuda.reduce") == 0) {   /* ufunc.c: a lambda becomes a def */
            const Global *old = sema_global(t->name);
            if (old && old->kind == GLOBAL_FUNC) {
                /* as a def of the name twice: two functions of one name
                 * (the second's C definitions redefined the first's) */
                diag_attach_note(old->fn->def->loc, "'%s' was first defined here", t->name);
                sema_error(t->loc, "redefinition of function '%s'", t->name);
                return;
            }
            Node *def = ufunc_reduce_lambda(t->name, s->rhs);
            if (def)
                add_funcdef(def);
            return;
        }
        if (p && (strcmp(p, "np.array") == 0 || strcmp(p, "np.asarray") == 0)) {
            resolve_array_constant(t->name, s->rhs);
            return;
        }
        if (p && strcmp(p, "cuda.declare_device") == 0) {   /* dev: ffi.c */
            ffi_declare(t->name, s->rhs);
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
            } else if (strcmp(kw->name, "forceinline") == 0) {   /* issue 9 */
                if (opt_bool(kw, &b)) fd->opt.inline_ = fd->opt.inline_ || b;
            } else if (strcmp(kw->name, "lto") == 0) {
                /* issue 9: accepted; each .kern file is one C translation
                 * unit, which nvcc and cc optimise whole already */
                (void)opt_bool(kw, &b);
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
                static const char *const options[] = {
                    "device", "fastmath", "lineinfo", "debug", "cache", "opt", "inline",
                    "max_registers", "link", "boundscheck", NULL};
                Suggest sg;
                suggest_init(&sg, kw->name);
                for (int k = 0; options[k]; k++)
                    suggest_add(&sg, options[k]);
                sema_error(kw->loc, "unknown @cuda.jit option '%s'%s", kw->name, suggest_hint(&sg));
            }
        }
    }
    if (sigs) {
        if (sigs->kind == E_LIST) {
            for (int i = 0; i < sigs->args.len; i++) {
                Signature s = {0};
                if (sema_signature(sigs->args.items[i], &s))
                    sema_add_signature(fd, &s);
                else
                    fd->sig_failed = true;
            }
        } else {
            Signature s = {0};
            if (sema_signature(sigs, &s))
                sema_add_signature(fd, &s);
            else
                fd->sig_failed = true;
        }
    }
}

bool resolve_check_params(FuncDef *fd)
{
    bool ok = true;
    for (int i = 0; i < fd->def->params.len; i++) {
        Node *p = fd->def->params.items[i];
        if (p->rhs) {
            sema_error(p->rhs->loc, "default parameter values are not supported");
            ok = false;
        }
        if (p->ival == 1 && i + 1 < fd->def->params.len) {   /* py: *args */
            sema_error(((Node *)fd->def->params.items[i + 1])->loc, "keyword-only parameters "
                       "(after '*%s') are not supported", p->name);
            ok = false;
        } else if (p->ival == 1 && (fd->is_kernel || fd->nsigs || fd->ufunc)) {
            sema_error(p->loc, "'*%s' parameters are supported in device functions typed "
                       "at their calls only (no signature, not a kernel)", p->name);
            ok = false;
        }
    }
    return ok;
}

PtrVec resolve_module(Node *module, const Options *opt)
{
    sema_names_reset();
    record_reset();   /* rec: the records of the last translation are gone */
    fdefs = (PtrVec){0};
    ffi_reset(opt ? opt->input : NULL);   /* dev: ffi.c */

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
                diag_attach_note(old->fn->def->loc, "'%s' was first defined here", s->name);
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
            if (!exception_class_def(s) && !enum_class_def(s))   /* dev; arr: enums */
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
            Signature s = {0};
            fd->nsigs = 0;   /* the command line replaces the decorator's */
            fd->sig_failed = !sema_signature_string(opt->sigs[j].sig,
                                                    arena_printf("--signature %s", fd->name), &s);
            if (!fd->sig_failed)
                sema_add_signature(fd, &s);
        }
        sema_signature_annotations(fd);
        if (opt && opt->debug)   /* -g: every function as with debug=True */
            fd->opt.debug = true;
    }
    for (int j = 0; opt && j < opt->nsigs; j++) {
        const Global *g = sema_global(opt->sigs[j].kernel);
        if (!g || g->kind != GLOBAL_FUNC)
            sema_error((Loc){0}, "--signature: no function named '%s' in this file",
                       opt->sigs[j].kernel);
    }
    return fdefs;
}
