/*
 * ffi.c - foreign CUDA C device functions (issue 9), numba-cuda 0.30's
 * cuda.declare_device at module level:
 *
 *     times2 = cuda.declare_device('times2', 'int32(int32)', link=['times2.cu'])
 *     hyp = cuda.declare_device('hyp', float32(float32, float32), abi='c')
 *
 * binds the name to a Foreign: the C symbol, numba's signature (a return
 * type is required, as numba requires it), the ABI and the files to link.
 * numba's ABI is `extern "C" __device__ int name(RET *ret, ARGS...)`, the
 * int a status (nonzero: an exception, which the caller propagates); the C
 * ABI is `extern "C" __device__ RET name(ARGS...)`.  type_call.c types the
 * calls (E_FFICALL), emit_host.c prints the declarations and a wrapper per
 * backend (emit_ffi_decls), kernc -MD and --print-link-files list the link
 * files, kernc run compiles them.  Link files are CUDA C sources (.cu):
 * nvcc compiles them for the GPU (-rdc=true), and for the CPU backend a C++
 * compiler compiles the same file with -include kernrt_cuda_compat.h.  A
 * relative link path is relative to the .kern file's directory.
 */
#include "kernc.h"

#include <ctype.h>
#include <string.h>
#include <unistd.h>

static bool ident_ok(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static PtrVec foreigns;     /* Foreign*, in file order */
static PtrVec links;        /* const char*: resolved paths, each once */
static const char *kern_dir;

/* dev (issue 9): the exceptions a kernel can raise (numba-cuda: any
 * exception class; its instance is made on the host from the constant
 * arguments). */
static const char *const builtin_exceptions[] = {
    "Exception", "ArithmeticError", "AssertionError", "AttributeError", "BufferError",
    "EOFError", "FloatingPointError", "IndexError", "KeyError", "LookupError",
    "MemoryError", "NameError", "NotImplementedError", "OSError", "OverflowError",
    "RecursionError", "ReferenceError", "RuntimeError", "StopIteration", "SystemError",
    "TypeError", "UnboundLocalError", "UnicodeError", "ValueError", "ZeroDivisionError",
    NULL};

const char *exception_class(const char *name)
{
    const Global *g = sema_global(name);
    if (g)
        return g->kind == GLOBAL_EXC ? g->name : NULL;
    for (int i = 0; builtin_exceptions[i]; i++)
        if (strcmp(builtin_exceptions[i], name) == 0)
            return builtin_exceptions[i];
    return NULL;
}

/* class NAME(BASE): pass at module level, BASE an exception class: true
 * and bound; false (nothing reported) for any other class. */
bool exception_class_def(const Node *s)
{
    if (s->args.len != 1 || s->kwargs.len || s->decorators.len)
        return false;
    const Node *b = s->args.items[0];
    if (b->kind != E_NAME || !exception_class(b->name))
        return false;
    for (int i = 0; i < s->body.len; i++) {
        const Node *t = s->body.items[i];
        if (t->kind != S_PASS && t->kind != S_NOP && !(t->kind == S_EXPR && t->lhs->kind == E_STR))
            return false;
    }
    sema_bind(GLOBAL_EXC, s->name)->path = exception_class(b->name);
    return true;
}

void ffi_reset(const char *input)
{
    foreigns = (PtrVec){0};
    links = (PtrVec){0};
    kern_dir = NULL;
    if (input && strrchr(input, '/'))
        kern_dir = arena_strndup(input, (size_t)(strrchr(input, '/') - input));
}

int ffi_count(void) { return foreigns.len; }
const Foreign *ffi_get(int i) { return foreigns.items[i]; }
int ffi_nlinks(void) { return links.len; }
const char *ffi_link(int i) { return links.items[i]; }

static bool add_link(Node *e)
{
    if (e->kind != E_STR || !e->text || !*e->text) {
        sema_error(e->loc, "cuda.declare_device: link= takes file names (strings)");
        return false;
    }
    const char *p = e->text;
    size_t n = strlen(p);
    if (n < 3 || strcmp(p + n - 3, ".cu") != 0) {
        sema_error(e->loc, "cuda.declare_device: only CUDA C sources (.cu) can be linked "
                   "(the CPU backend compiles the same file as C++; PTX, cubin, fatbin, "
                   "LTO-IR and archives run on the GPU only)");
        return false;
    }
    const char *full = p[0] == '/' || !kern_dir ? p : arena_printf("%s/%s", kern_dir, p);
    if (access(full, R_OK) != 0) {
        sema_error(e->loc, "cuda.declare_device: cannot read linked file '%s'", full);
        return false;
    }
    for (int i = 0; i < links.len; i++)
        if (strcmp(links.items[i], full) == 0)
            return true;
    vec_push(&links, (void *)full);
    return true;
}

static bool ffi_type_ok(Type *t, Loc loc, const char *what)
{
    if (t == ty_void && strcmp(what, "return") == 0)
        return true;
    if (ty_is_int(t) || t == ty_bool || t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64)
        return true;
    if (t->kind == TY_ARRAY)
        sema_error(loc, "cuda.declare_device: array %s types are not supported (numba's "
                   "ABI passes its whole array structure); pass elements or indices",
                   what);
    else
        sema_error(loc, "cuda.declare_device: %s type %s is not supported (booleans, integers, float32 and float64 only)",
                   what, ty_name(t));
    return false;
}

void ffi_declare(const char *pyname, Node *call)
{
    Node *arg[5] = {0};   /* name, sig, link, use_cooperative, abi */
    static const char *const kw[] = {"name", "sig", "link", "use_cooperative", "abi"};
    if (call->args.len > 5) {
        sema_error(((Node *)call->args.items[5])->loc,
                   "cuda.declare_device() takes at most 5 arguments");
        return;
    }
    for (int i = 0; i < call->args.len; i++)
        arg[i] = call->args.items[i];
    for (int i = 0; i < call->kwargs.len; i++) {
        Node *k = call->kwargs.items[i];
        int j = 0;
        while (j < 5 && strcmp(kw[j], k->name) != 0)
            j++;
        if (j == 5) {
            sema_error(k->loc, "cuda.declare_device() got an unexpected keyword argument '%s'",
                       k->name);
            return;
        }
        if (arg[j]) {
            sema_error(k->loc, "cuda.declare_device() got multiple values for argument '%s'",
                       k->name);
            return;
        }
        arg[j] = k->lhs;
    }
    if (!arg[0] || !arg[1]) {
        sema_error(call->loc, "cuda.declare_device() needs the function's name and signature");
        return;
    }
    if (arg[0]->kind != E_STR || !arg[0]->text || !ident_ok(arg[0]->text)) {
        sema_error(arg[0]->loc, "cuda.declare_device: the name must be a string naming a C "
                   "function");
        return;
    }
    Foreign *f = arena_alloc(sizeof *f);
    f->name = arg[0]->text;
    f->loc = call->loc;
    if (arg[4]) {
        if (arg[4]->kind != E_STR) {
            sema_error(arg[4]->loc, "cuda.declare_device: abi must be 'numba' or 'c'");
            return;
        }
        if (strcmp(arg[4]->text, "c") == 0)
            f->c_abi = true;
        else if (strcmp(arg[4]->text, "numba") != 0) {
            sema_error(arg[4]->loc, "Unsupported ABI: %s", arg[4]->text);
            return;
        }
    }
    if (arg[3]) {
        Node *k = sema_fold(arg[3], false, NULL, NULL);
        if (!k || (k->type != ty_bool && !ty_is_int(k->type))) {
            sema_error(arg[3]->loc, "cuda.declare_device: use_cooperative must be True or "
                       "False");
            return;
        }
        f->cooperative = k->ival != 0;
    }
    /* numba: "Return type must be provided for device declarations" */
    Node *s = arg[1];
    bool has_ret = s->kind == E_CALL ||
                   (s->kind == E_STR && s->text && s->text[0] != '(' && strchr(s->text, '('));
    if (!has_ret) {
        sema_error(s->loc, "Return type must be provided for device declarations");
        return;
    }
    if (!sema_signature(s, &f->sig))
        return;
    bool ok = ffi_type_ok(f->sig.ret, s->loc, "return");
    for (int i = 0; i < f->sig.nparams; i++)
        ok &= ffi_type_ok(f->sig.params[i], s->loc, "parameter");
    if (!ok)
        return;
    if (arg[2]) {
        Node *l = arg[2];
        if (l->kind == E_LIST || l->kind == E_TUPLE ||
            (l->kind == E_DICT && l->text && strcmp(l->text, "set") == 0)) {
            for (int i = 0; i < l->args.len; i++)
                if (!add_link(l->args.items[i]))
                    return;
        } else if (l->kind != E_NONE && !add_link(l)) {
            return;
        }
    }
    f->cname = arena_printf("krt_ffi_%s", f->name);
    for (int i = 0; i < foreigns.len; i++) {
        Foreign *o = foreigns.items[i];
        if (strcmp(o->name, f->name) != 0)
            continue;
        bool same = o->c_abi == f->c_abi && o->sig.ret == f->sig.ret &&
                    o->sig.nparams == f->sig.nparams;
        for (int k = 0; same && k < f->sig.nparams; k++)
            same = o->sig.params[k] == f->sig.params[k];
        if (!same) {
            diag_attach_note(o->loc, "'%s' was first declared here", f->name);
            sema_error(call->loc, "foreign function '%s' declared again with another "
                       "signature or ABI", f->name);
            return;
        }
        o->cooperative |= f->cooperative;
        sema_bind(GLOBAL_FOREIGN, pyname)->foreign = o;
        return;
    }
    vec_push(&foreigns, f);
    sema_bind(GLOBAL_FOREIGN, pyname)->foreign = f;
}
