/*
 * emit_host.c - what the host side links against: each kernel's
 * descriptor and typed launcher, the module table, the ufunc host
 * functions (ufunc.c), the launcher header, and the entry points:
 *   emit_cuda    FILE.cu: __device__ functions and __global__ kernels, the CPU
 *                version of every kernel, the kernel descriptors, the typed
 *                launchers and the module table (nvcc compiles it as C++);
 *   emit_c       FILE.c for --target c: the same without the CUDA half (C11);
 *   emit_header  FILE.kern.h: the launcher prototypes.
 */
#include "emit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Descriptors, launchers, files                                       */
/* ------------------------------------------------------------------ */

const char *emit_source_path(const Program *p, const Options *opt)
{
    return p->src && p->src->path ? p->src->path : opt && opt->input ? opt->input : "input.kern";
}

/* Is the base name (without ".kern") an identifier already? */
static bool module_name_simple(const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z') ||
              (b[i] >= '0' && b[i] <= '9') || b[i] == '_'))
            return false;
    return n > 0;
}

static size_t module_base(const char *path, const char **b)
{
    *b = path_base(path);
    size_t n = strlen(*b);
    if (n > 5 && strcmp(*b + n - 5, ".kern") == 0)
        n -= 5;
    return n;
}

/* issue 13 (hard): krt_module_<ident> is the --module-name, or the base
 * name as an identifier and 8 hex digits of a hash of the base name and
 * the file's text: a/kernels.kern and b/kernels.kern link into one
 * program, and so do my-kern.kern and my_kern.kern. */
const char *emit_module_symbol(const Program *p, const Options *opt)
{
    if (opt && opt->module_name)
        return opt->module_name;
    const char *path = emit_source_path(p, opt);
    const char *b;
    size_t n = module_base(path, &b);
    char *s = arena_strndup(b, n);
    for (char *q = s; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_'))
            *q = '_';
    uint64_t h = str_hash(b, n);
    if (p->src && p->src->text)
        h = h * 0x100000001b3ull ^ p->src_hash;
    return arena_printf("%s_%08x", s, (unsigned)((h ^ (h >> 32)) & 0xffffffffu));
}

/* The header guard: the module's identifier in capitals and _KERN_H_
 * (KRT_ in front where it starts with a digit): different for every file
 * (Foo.kern and foo.kern, a/kernels.kern and b/kernels.kern). */
static const char *header_guard(const Program *p, const Options *opt)
{
    const char *m = emit_module_symbol(p, opt);
    char *guard = arena_printf("%s%s_KERN_H_", m[0] >= '0' && m[0] <= '9' ? "KRT_" : "", m);
    for (char *g = guard; *g; g++)
        if (*g >= 'a' && *g <= 'z')
            *g = (char)(*g - 'a' + 'A');
    return guard;
}

/* The name the header gives the module table besides its own (issue 13):
 * krt_module_<base> where the base name is an identifier and no
 * --module-name is given (NULL otherwise). */
static const char *module_alias(const Program *p, const Options *opt)
{
    if (opt && opt->module_name)
        return NULL;
    const char *b;
    size_t n = module_base(emit_source_path(p, opt), &b);
    return module_name_simple(b, n) ? arena_strndup(b, n) : NULL;
}

/* The launcher's C type of a parameter (bool travels as uint8_t). */
static const char *abi_type(const Type *t)
{
    if (t->kind == TY_ARRAY || t->kind == TY_RECORD)   /* rec: a record in device memory */
        return "krt_array";
    if (ty_is_scalar(t))
        return ty_info(t)->abi;
    return t_c(t);
}

/* The launcher's symbol is NAME__launch: NAME is the CUDA kernel's (extern
 * "C", as profilers show it); the header defines NAME, an inline call of it. */
static const char *launcher_proto(const Func *f, const char *suffix)
{
    StrBuf b = {0};
    sb_printf(&b, "int %s%s(krt_launch_cfg cfg", fn_cname(f), suffix);
    for (int i = 0; i < f->nparams; i++)
        sb_printf(&b, ", %s %s", abi_type(f->params[i]->type), f->params[i]->cname);
    sb_putc(&b, ')');
    return sb_take(&b);
}

/* The kernels with a shared-memory struct and with a 32-bit variant, as
 * sets: emit_descriptor asks once per kernel (speed: a scan of the lists
 * was quadratic, 11 million compares each at 3,300 kernels) */
typedef struct DescSets {
    PtrMap shared, i32;
} DescSets;

static PtrMap set_of(const PtrVec *v)
{
    PtrMap m = {0};
    for (int i = 0; i < v->len; i++)
        ptrmap_put(&m, v->items[i], 1);
    return m;
}

static void emit_descriptor(Emitter *E, const DescSets *sets, Func *f, bool with_cuda, bool with_cpu)
{
    const char *name = fn_cname(f);
    E->indent = 0;
    if (f->nparams > 0) {
        outf(E, "static const krt_param %s__params[] = {", name);
        for (int i = 0; i < f->nparams; i++) {
            const Type *t = f->params[i]->type;
            bool arr = t->kind == TY_ARRAY;
            if (t->kind == TY_RECORD) {   /* rec: an array of one record, by reference */
                outf(E, "    {\"%s\", KRT_PARAM_RECORD, %s, 0, 1},", c_string(f->params[i]->name),
                     t_dtype(t));
                continue;
            }
            if (t->kind == TY_TUPLE) {   /* issue 9: ndim holds the struct's size */
                outf(E, "    {\"%s\", KRT_PARAM_TUPLE, KRT_INT64, (int)sizeof(%s), 0},",
                     c_string(f->params[i]->name), t_c(t));
                continue;
            }
            outf(E, "    {\"%s\", %s, %s, %d, %d},", c_string(f->params[i]->name),
                 arr ? "KRT_PARAM_ARRAY" : "KRT_PARAM_SCALAR", t_dtype(arr ? t->elem : t),
                 arr ? t->ndim : 0, arr && t->contiguous ? 1 : arr && t->fortran ? 2 : 0);
        }
        outf(E, "};");
    }
    bool frame = func_has_split(f);
    outf(E, "KRT_EXTERN_C const krt_kernel %s__kernel = {", name);
    outf(E, "    \"%s\", \"%s\", %d, %s,", c_string(f->name), c_string(path_base(E->path)),
         f->nparams, f->nparams > 0 ? arena_printf("%s__params", name) : "NULL");
    outf(E, "    %s, %s,", with_cpu ? arena_printf("%s__cpu", name) : "NULL",
         with_cuda ? arena_printf("(const void *)%s", name) : "NULL");
    bool shared = ptrmap_get(&sets->shared, f) > 0;
    outf(E, "    %s, %s,",
         with_cpu && shared ? arena_printf("sizeof(struct %s__shared)", name) : "0",
         with_cpu && frame ? arena_printf("sizeof(struct %s__frame)", name) : "0");
    /* the 32-bit variant (issue 11; emit_cuda.c), when there is one */
    bool v32 = with_cuda && ptrmap_get(&sets->i32, f) > 0;
    /* debug=True: the runtime reads the file's krt_exception after a launch */
    const char *exc = with_cuda && (f->opt.debug || (E->opt && E->opt->debug))
                          ? arena_printf("(void *)&krt_exception_%s", E->modsym)
                          : "NULL";
    outf(E, "    %d, %s", f->has_grid_sync || f->ffi_cooperative ? 1 : 0, exc);
    outf(E, "};");
    if (v32) {
        /* the 32-bit variant's: the same but for the CUDA function */
        outf(E, "static const krt_kernel %s__kernel_i32 = {", name);
        outf(E, "    \"%s\", \"%s\", %d, %s,", c_string(f->name), c_string(path_base(E->path)),
             f->nparams, f->nparams > 0 ? arena_printf("%s__params", name) : "NULL");
        outf(E, "    %s, (const void *)%s__i32,", with_cpu ? arena_printf("%s__cpu", name) : "NULL", name);
        outf(E, "    %s, %s,",
             with_cpu && shared ? arena_printf("sizeof(struct %s__shared)", name) : "0",
             with_cpu && frame ? arena_printf("sizeof(struct %s__frame)", name) : "0");
        outf(E, "    %d, %s", f->has_grid_sync || f->ffi_cooperative ? 1 : 0, exc);
        outf(E, "};");
    }
    outf(E, "%s", "");

    outf(E, "KRT_EXTERN_C %s", launcher_proto(f, "__launch"));
    outf(E, "{");
    E->indent = 1;
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i]->type->kind == TY_ARRAY || f->params[i]->type->kind == TY_RECORD)
            outf(E, "krt_view krt_v%d;", i);
    if (f->nparams > 0)
        outf(E, "void *krt_argv[%d];", f->nparams);
    for (int i = 0; i < f->nparams; i++) {
        Var *v = f->params[i];
        if (v->type->kind == TY_ARRAY) {
            outf(E, "KRT_TRY(krt_check_array(&%s__kernel, %d, &%s, &krt_v%d));", name, i,
                 v->cname, i);
            outf(E, "krt_argv[%d] = &krt_v%d;", i, i);
        } else if (v->type->kind == TY_RECORD) {   /* rec: the record's device address */
            outf(E, "KRT_TRY(krt_check_array(&%s__kernel, %d, &%s, &krt_v%d));", name, i,
                 v->cname, i);
            outf(E, "krt_argv[%d] = &krt_v%d.data;", i, i);
        } else {
            if (v->type->kind == TY_BOOL)
                outf(E, "%s = (%s)(%s != 0);", v->cname, abi_type(v->type), v->cname);
            outf(E, "krt_argv[%d] = &%s;", i, v->cname);
        }
    }
    const char *argv = f->nparams > 0 ? "krt_argv" : "NULL";
    if (v32) {
        /* issue 11: NAME__i32 where the launch meets its conditions */
        outf(E, "if (krt_launch_fits32(&%s__kernel, &cfg, %s))", name, argv);
        outf(E, "    return krt_launch(&%s__kernel_i32, cfg, %s);", name, argv);
    }
    outf(E, "return krt_launch(&%s__kernel, cfg, %s);", name, argv);
    E->indent = 0;
    outf(E, "}");
    outf(E, "%s", "");
}

/* A file name inside a comment: escaped (a newline would end it; a base
 * name cannot hold the '/' of a closing comment). */
static const char *comment_name(const char *path)
{
    return c_string(path_base(path));
}

static void emit_prologue(Emitter *E, const char *what)
{
    const char *base = comment_name(E->path);
    outf(E, "/*");
    outf(E, " * Generated by kernc from %s: do not edit.", base);
    outf(E, " * %s", what);
    outf(E, " */");
    outf(E, "#include <kernrt.h>");
    outf(E, "#include <kernrt_device.h>");
    outf(E, "%s", "");
}

static void emit_tuples(Emitter *E)
{
    /* rec: the structs of the records, nested ones first (record.c) */
    for (int i = 0; i < E->records.len; i++) {
        StrBuf b = {0};
        record_emit_struct(&b, E->records.items[i], false);
        sb_puts(E->out, b.s);
        sb_free(&b);
        outf(E, "%s", "");
    }
    for (int i = 0; i < E->tuples.len; i++) {
        Type *t = E->tuples.items[i];
        const char *n = tuple_cname(t);
        outf(E, "typedef struct %s {", n);
        for (int k = 0; k < t->nelems; k++)
            outf(E, "    %s %s;", t_c(t->elems[k]), tuple_member(t, k));
        outf(E, "} %s;", n);
        StrBuf b = {0};
        for (int k = 0; k < t->nelems; k++)
            sb_printf(&b, "%s%s f%d", k ? ", " : "", t_c(t->elems[k]), k);
        outf(E, "KRT_FN KRT_MAYBE_UNUSED %s %s_make(%s)", n, n, b.s ? b.s : "void");
        sb_free(&b);
        outf(E, "{");
        outf(E, "    %s r;", n);
        for (int k = 0; k < t->nelems; k++)
            outf(E, "    r.%s = f%d;", tuple_member(t, k), k);
        outf(E, "    return r;");
        outf(E, "}");
    }
    if (E->tuples.len)
        outf(E, "%s", "");
}

/* The initialiser of constant array v, nested by its shape. */
static void const_init(StrBuf *b, const Var *v, int dim, int *next)
{
    const Node *init = v->init;
    int ndim = v->type->ndim;
    sb_putc(b, '{');
    for (int64_t i = 0; i < v->shape[dim]; i++) {
        if (i)
            sb_puts(b, ", ");
        if (dim + 1 < ndim) {
            const_init(b, v, dim + 1, next);
            continue;
        }
        const Node *c = init && *next < init->args.len ? init->args.items[*next] : NULL;
        (*next)++;
        const Type *et = v->type->elem;
        if (!c || c->kind != E_CONST)
            sb_puts(b, "0");
        else if (ty_is_complex(et)) {   /* suite: {re, im} of a complex or real value */
            const Type *pt = ty_complex_part(et);
            double re = ty_is_complex(c->type) || t_float(c->type) ? c->fval : (double)(int64_t)c->ival;
            double im = ty_is_complex(c->type) ? c->fimag : 0.0;
            sb_printf(b, "{%s, %s}", fmt_float(pt, re), fmt_float(pt, im));
        } else if (t_float(et))
            sb_puts(b, fmt_float(et, t_float(c->type) ? c->fval : (double)(int64_t)c->ival));
        else
            sb_puts(b, fmt_int(et, c->ival));
    }
    sb_putc(b, '}');
}

/* cuda.const.array_like(C): file-scope arrays, `__constant__` for the
 * CUDA kernels, `static const` for the CPU versions (the CPU cannot read
 * __constant__ memory), named FUNC__VAR and FUNC__VAR_cpu. */
static void emit_const_arrays(Emitter *E, bool cuda)
{
    Program *p = E->prog;
    bool any = false;
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        for (int k = 0; k < f->nlocals; k++) {
            Var *v = f->locals[k];
            if (v->kind != VAR_CONSTARRAY)
                continue;
            if (!v->type || v->type->kind != TY_ARRAY || v->type->ndim < 1 || v->type->ndim > 3) {
                error_at(v->loc, "constant array '%s' has a shape kernc cannot translate", v->name);
                continue;
            }
            int64_t n = 1;
            for (int d = 0; d < v->type->ndim; d++)
                n *= v->shape[d];
            if (!v->init || v->init->args.len != n) {
                error_at(v->loc, "constant array '%s': %lld values expected", v->name, (long long)n);
                continue;
            }
            StrBuf b = {0};
            int next = 0;
            if (n > 0)
                const_init(&b, v, 0, &next);
            /* np.array([]): C has no empty arrays; one element nobody reads */
            outf(E, "static %s KRT_MAYBE_UNUSED %s %s__%s%s%s = %s;", cuda ? "__constant__" : "const",
                 t_c(v->type->elem), fn_cname(f), v->cname, cuda ? "" : "_cpu",
                 n > 0 ? array_dims(v) : "[1]", n > 0 ? b.s : "{0}");
            sb_free(&b);
            any = true;
        }
    }
    if (any)
        outf(E, "%s", "");
}

static const char *const uf_kind_enum[] = {
#define X_(k, deco, tag, krt) krt,
    UFUNC_KINDS(X_)
#undef X_
};

/* ------------------------------------------------------------------ */
/* ufunc host functions (ufunc.c made the descriptors)                 */
/* ------------------------------------------------------------------ */

/* A parameter name of a host function: the .kern name unless C or C++
 * would read it otherwise, or another parameter of ours has it. */
static const char *uf_cparam(const char *name)
{
    static const char *const taken[] = {
        "auto", "bool", "break", "case", "char", "class", "const", "continue",
        "default", "delete", "do", "double", "else", "enum", "explicit", "extern",
        "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
        "mutable", "namespace", "new", "operator", "private", "protected",
        "public", "register", "restrict", "return", "short", "signed", "sizeof",
        "static", "struct", "switch", "template", "this", "throw", "true", "try",
        "typedef", "typename", "union", "unsigned", "using", "virtual", "void",
        "volatile", "while", "stream", "result", "device_result", "init",
    };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        if (strcmp(name, taken[i]) == 0)
            return arena_printf("%s_", name);
    if (strncmp(name, "krt_", 4) == 0)
        return arena_printf("%s_", name);
    return name;
}

static const char *uf_proto(const UFunc *u, const UfSig *s)
{
    StrBuf b = {0};
    sb_printf(&b, "int %s(", module_sym(s->host));   /* issue 13: --module-name */
    if (u->kind == UF_REDUCE) {
        const char *ct = ty_info(s->ops[0].elem)->abi;   /* float16: krt_half */
        sb_printf(&b, "krt_array in, %s init, %s *result, krt_array *device_result, "
                  "krt_stream *stream)", ct, ct);
    } else {
        for (int k = 0; k < s->nops; k++)
            sb_printf(&b, "krt_array %s, ", uf_cparam(s->ops[k].name));
        sb_puts(&b, "krt_stream *stream)");
    }
    return sb_take(&b);
}

static bool uf_emitted(const UfSig *s)
{
    return s->kfd && s->kfd->nspecs > 0;
}

static void ufunc_emit_code(StrBuf *out, Program *p, const Options *opt)
{
    if (p->nufuncs == 0)
        return;
    const char *path = emit_source_path(p, opt);
    sb_puts(out, "/* ---- @vectorize, @guvectorize, cuda.reduce: host functions ---- */\n\n");
    PtrVec table = {0};
    for (int i = 0; i < p->nufuncs; i++) {
        UFunc *u = p->ufuncs[i];
        for (int j = 0; j < u->nsigs; j++) {
            UfSig *s = &u->sigs[j];
            if (!uf_emitted(s))
                continue;
            const char *h = module_sym(s->host);   /* issue 13: --module-name */
            sb_printf(out, "/* %s %s: %s */\n", ufunc_kind_name[u->kind], u->name, s->text);
            sb_printf(out, "static const krt_ufunc_operand %s__operands[] = {\n", h);
            for (int k = 0; k < s->nops; k++) {
                UfOp *o = &s->ops[k];
                sb_printf(out, "    {\"%s\", %s, %d, %d, %d, %d, {", o->name,
                          t_dtype(o->elem), o->is_output, o->scalar_ok, o->core_ndim,
                          o->view_ndim);
                for (int d = 0; d < UF_MAX_NDIM; d++)
                    sb_printf(out, "%s%d", d ? ", " : "", d < o->core_ndim ? o->core_dims[d] : 0);
                sb_puts(out, "}},\n");
            }
            sb_puts(out, "};\n");
            if (u->nsymbols > 0) {
                sb_printf(out, "static const char *const %s__symbols[] = {", h);
                for (int k = 0; k < u->nsymbols; k++)
                    sb_printf(out, "%s\"%s\"", k ? ", " : "", u->symbols[k]);
                sb_puts(out, "};\n");
            }
            sb_printf(out, "static const krt_ufunc %s__ufunc = {\n", h);
            sb_printf(out, "    \"%s\", \"%s\", \"%s\", %s,\n", u->name, h, s->text,
                      uf_kind_enum[u->kind]);
            sb_printf(out, "    &%s__kernel, %d, %d, %d, %s__operands,\n", module_sym(s->kfd->specs[0]->cname),
                      s->nloop, u->nin, u->nout, h);
            if (u->nsymbols > 0)
                sb_printf(out, "    %d, %s__symbols\n", u->nsymbols, h);
            else
                sb_puts(out, "    0, NULL\n");
            sb_puts(out, "};\n\n");
            sb_printf(out, "KRT_EXTERN_C %s\n{\n", uf_proto(u, s));
            if (u->kind == UF_REDUCE) {
                sb_printf(out, "    return krt_reduce_call(&%s__ufunc, in, &init, result, "
                          "device_result, stream);\n", h);
            } else {
                sb_printf(out, "    const krt_array *krt_arrays[%d];\n", s->nops);
                for (int k = 0; k < s->nops; k++)
                    sb_printf(out, "    krt_arrays[%d] = &%s;\n", k, uf_cparam(s->ops[k].name));
                sb_printf(out, "    return krt_ufunc_call(&%s__ufunc, krt_arrays, stream);\n", h);
            }
            sb_puts(out, "}\n\n");
            vec_push(&table, (void *)h);
        }
    }
    const char *mod = emit_module_symbol(p, opt);
    if (table.len > 0) {
        sb_printf(out, "static const krt_ufunc *const krt_ufunc_list_%s[] = {\n", mod);
        for (int i = 0; i < table.len; i++)
            sb_printf(out, "    &%s__ufunc,\n", (const char *)table.items[i]);
        sb_puts(out, "};\n");
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    sb_printf(out, "KRT_EXTERN_C const krt_ufunc_module krt_ufuncs_%s = {\n", mod);
    sb_printf(out, "    \"%s\", %d, %s\n};\n", c_string(base), table.len,
              table.len ? arena_printf("krt_ufunc_list_%s", mod) : "NULL");
}

static void ufunc_emit_header(StrBuf *out, Program *p, const Options *opt)
{
    if (p->nufuncs == 0)
        return;
    for (int i = 0; i < p->nufuncs; i++) {
        UFunc *u = p->ufuncs[i];
        for (int j = 0; j < u->nsigs; j++) {
            UfSig *s = &u->sigs[j];
            if (!uf_emitted(s))
                continue;
            sb_printf(out, "/* %s %s: %s.\n", ufunc_kind_name[u->kind], u->name, s->text);
            switch (u->kind) {
            case UF_VECTORIZE:
                sb_puts(out, " * Inputs: arrays, broadcast against each other and out by "
                             "NumPy's rules,\n * or host scalars (krt_host_scalar); out: "
                             "the result, of the broadcast shape. */\n");
                break;
            case UF_GUVECTORIZE:
                sb_puts(out, " * Arrays of the loop dimensions followed by the layout's core "
                             "dimensions;\n * inputs broadcast over the loop dimensions "
                             "(a `()` input may be a host scalar). */\n");
                break;
            case UF_REDUCE:
                sb_puts(out, " * Reduces the 1-D array in, starting from init, in numba's "
                             "order; the result goes\n * to *result and/or to element 0 of "
                             "*device_result (either may be NULL). */\n");
                break;
            }
            sb_printf(out, "%s;\n\n", uf_proto(u, s));
        }
    }
    sb_printf(out, "extern const krt_ufunc_module krt_ufuncs_%s;\n", emit_module_symbol(p, opt));
    const char *alias = module_alias(p, opt);
    if (alias)
        sb_printf(out, "#ifndef krt_ufuncs_%s\n#define krt_ufuncs_%s krt_ufuncs_%s\n#endif\n",
                  alias, alias, emit_module_symbol(p, opt));
    sb_puts(out, "\n");
}

/* code: the emitter prints code (the tuple types it uses are collected),
 * not only the header.  The C names of variables are given once. */
static void emitter_init(Emitter *E, StrBuf *out, Program *p, const Options *opt, bool code)
{
    memset(E, 0, sizeof *E);
    E->cpu_hooks = &emit_cpu_hooks;
    E->out = out;
    E->prog = p;
    E->opt = opt;
    E->path = emit_source_path(p, opt);
    E->line_file = c_string(E->path);
    E->line_tail = arena_printf(" \"%s\"\n", E->line_file);
    E->line_tail_len = strlen(E->line_tail);
    E->base_file = c_string(path_base(E->path));
    E->modsym = emit_module_symbol(p, opt);
    mangle_set_module(opt ? opt->module_name : NULL);   /* issue 13 */
    for (int i = 0; i < p->nfuncs && !p->named; i++)
        name_vars(p->funcs[i]);
    p->named = true;
    if (code && !p->tuples_done)
        program_tuples(p);
    for (int i = 0; code && i < p->tuples.len; i++)
        vec_push(&E->tuples, p->tuples.items[i]);   /* a copy: printing may add */
    for (int i = 0; i < p->nfuncs && code; i++) {
        Func *f = p->funcs[i];
        for (int k = 0; k < f->nparams; k++)   /* rec */
            record_collect(&E->records, f->params[k]->type);
        for (int k = 0; k < f->nlocals; k++)
            record_collect(&E->records, f->locals[k]->type);
        record_collect(&E->records, f->ret);
    }
}

/* The CPU half (device functions, kernels, descriptors, launchers) and the
 * module table; `cuda`: the CUDA kernels exist too. */
/* ---- dev (issue 9): foreign functions (cuda.declare_device, ffi.c) ----
 * The declaration of each (the GPU's NAME, a __device__ function; the CPU
 * backend's NAME__krt_cpu, the same source compiled by a host compiler
 * with -DNAME=NAME__krt_cpu: nvcc gives every __device__ function a host
 * stub of its own name, which calls exit), and a wrapper
 * per backend that kernc's calls go through: numba's ABI passes the result
 * by pointer and returns a status (nonzero: the exception numba
 * propagates; on the GPU the thread ends as numba's kernel returns, on the
 * CPU the launch fails), the C ABI returns the value.  The CPU wrapper
 * first tells kernrt_cuda_compat.h's threadIdx & co the calling thread. */
static void ffi_params(StrBuf *b, const Foreign *f, bool named)
{
    for (int i = 0; i < f->sig.nparams; i++) {
        sb_printf(b, "%s%s", i ? ", " : "", t_c(f->sig.params[i]));
        if (named)
            sb_printf(b, " a%d", i);
    }
}

static void ffi_wrapper(Emitter *E, const Foreign *f, bool cpu)
{
    bool ret = f->sig.ret != ty_void;
    StrBuf p = {0}, a = {0};
    if (cpu)
        sb_puts(&p, "const krt_cpu_block *krt_b, krt_dim3 krt_tid");
    if (f->sig.nparams && cpu)
        sb_puts(&p, ", ");
    ffi_params(&p, f, true);
    if (!cpu && !f->sig.nparams)
        sb_puts(&p, "void");
    if (!f->c_abi)
        sb_puts(&a, "&krt_r");
    for (int i = 0; i < f->sig.nparams; i++)
        sb_printf(&a, "%sa%d", i || !f->c_abi ? ", " : "", i);
    const char *rt = ret ? t_c(f->sig.ret) : "void";
    outf(E, "static %sinline KRT_MAYBE_UNUSED %s %s%s(%s)", cpu ? "" : "__device__ ", rt,
         f->cname, cpu ? "__cpu" : "", p.s ? p.s : "");
    outf(E, "{");
    if (cpu)
        outf(E, "    krt_ffi_enter(krt_b, krt_tid);");
    if (f->c_abi) {
        outf(E, "    %s%s%s(%s);", ret ? "return " : "", f->name, cpu ? "__krt_cpu" : "",
             a.s ? a.s : "");
    } else {
        outf(E, "    %s krt_r = 0;", ret ? rt : "char");
        outf(E, "    int krt_st = %s%s(%s);", f->name, cpu ? "__krt_cpu" : "", a.s);
        outf(E, "    if (krt_st != 0)");
        if (cpu)
            outf(E, "        krt_ffi_fail(krt_b, krt_tid, \"%s\", krt_st);", f->name);
        else
            outf(E, "        krt_exit_thread_dev();");
        if (ret)
            outf(E, "    return krt_r;");
    }
    outf(E, "}");
    sb_free(&p);
    sb_free(&a);
}

static void emit_ffi_decls(Emitter *E, bool cuda)
{
    if (!ffi_count())
        return;
    outf(E, "/* ---- foreign device functions (cuda.declare_device) ---- */");
    outf(E, "%s", "");
    if (!cuda)
        outf(E, "#include <kernrt_ffi.h>");
    for (int i = 0; i < ffi_count(); i++) {
        const Foreign *f = ffi_get(i);
        StrBuf p = {0};
        if (!f->c_abi)
            sb_printf(&p, "%s *%s", f->sig.ret == ty_void ? "void" : t_c(f->sig.ret),
                      f->sig.nparams ? ", " : "");
        ffi_params(&p, f, false);
        outf(E, "KRT_EXTERN_C %s%s %s%s(%s);", cuda ? "__device__ " : "",
             f->c_abi ? (f->sig.ret == ty_void ? "void" : t_c(f->sig.ret)) : "int", f->name,
             cuda ? "" : "__krt_cpu", p.s ? p.s : "void");
        sb_free(&p);
    }
    for (int i = 0; cuda && i < ffi_count(); i++)
        ffi_wrapper(E, ffi_get(i), false);
    outf(E, "%s", "");
}

/* ---- speed (issue 7): printing in two processes ----
 * A big file's printing runs in two processes, on the machine's second
 * core: a fork()ed child prints a range of the functions' CPU versions
 * into its own buffer, with diagnostics muted, while this process prints
 * the rest: for --target c the functions before the range (the first
 * half, by .kern lines), for --target cuda the CUDA functions (the child
 * takes all the CPU versions).  The child sends its text and what it added
 * to the Emitter's lists (shared_structs, cpu_failed_funcs: Func pointers
 * from before the fork, the same in both) and its cpu_ok flags, and this
 * process puts them where the one-process order has them.  The output is
 * the sequential one: a CPU function's text depends on what was printed
 * before it only through cpu_failed_funcs (a call of a device function
 * without a CPU version), so where this process added to it meanwhile, or
 * the child saw a diagnostic, failed or died, this process prints the
 * child's range itself, as without the child.  Nothing the child prints
 * writes a node of the tree (the 32-bit variants' intervals are kept
 * aside, range.c), so neither process pays a copy-on-write fault for the
 * tree's pages.  Small files (the fork costs more) stay in one process,
 * and so does kernc run (Options.may_fork: its backend may hold threads),
 * and so does a machine without a core to spare (second_core).  The
 * child prints into a mapping it shares with this process, or where that
 * fails sends its text down the pipe.  Tests: KERNC_TEST_SPLIT=1 splits at
 * every size and load (=2 too, through the pipe), =0 never. */
enum { SPLIT_MIN_LINES = 4000 };   /* the .kern lines of the functions */

/* All n bytes of buf written to fd, or read from it (retried on EINTR) */
static bool fd_all(int fd, char *buf, size_t n, bool writing)
{
    while (n > 0) {
        ssize_t k = writing ? write(fd, buf, n) : read(fd, buf, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        buf += k;
        n -= (size_t)k;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
    return fd_all(fd, (char *)buf, n, true);   /* (write does not change it) */
}

static bool read_all(int fd, void *buf, size_t n)
{
    return fd_all(fd, buf, n, false);
}

/* The def's lines, to the end of its last statement */
static int func_lines(const Func *f)
{
    const NodeList *body = f->def ? &f->def->body : NULL;
    if (!body || body->len == 0 || !body->items[body->len - 1])
        return 1;
    int lines = body->items[body->len - 1]->loc.last_line - f->def->loc.first_line + 1;
    return lines > 1 ? lines : 1;
}

/* The lists the child adds to, in the order it sends them */
enum { SPLIT_LISTS = 2 };
static PtrVec *split_list(Emitter *E, int k)
{
    return k == 0 ? &E->shared_structs : &E->cpu_failed_funcs;
}

/* A split in progress: the CPU versions of functions [mid, n) by `child`
 * (-1: none, this process prints them) */
typedef struct Split {
    pid_t child;
    int fd;
    int mid, n;
    int failed_before;     /* cpu_failed_funcs at the fork */
    char *shm;             /* shared with the child, which prints into it
                              (NULL: its text comes down the pipe) */
} Split;

/* The shared text's room: address space only (MAP_NORESERVE); a child
 * whose text outgrows it sends the text down the pipe */
#define SPLIT_SHM ((size_t)1 << 30)

/* emit_cpu_half's state: cpu_ok[i], a kernel's CPU version exists */
typedef struct CpuHalf {
    bool *cpu_ok;
    bool test_cpu_i32;
    Split split;        /* --target cuda: the CPU functions' split, started
                           before the CUDA ones are printed */
} CpuHalf;

static void cpu_func(Emitter *E, CpuHalf *h, int i);

/* The child: functions [mid, n) into a buffer of its own, then down the
 * pipe; the header: status (0: use it), text length, each list's count */
_Noreturn static void split_child(Emitter *E, CpuHalf *h, int fd)
{
    const Split *S = &h->split;
    /* speed (issue 7): printed into the shared mapping, the text needs no
     * pipe (13.8 MB of a 100K-line file took 14 ms through one) */
    StrBuf text = {S->shm, 0, S->shm ? SPLIT_SHM : 0};
    int before[SPLIT_LISTS];
    for (int k = 0; k < SPLIT_LISTS; k++)
        before[k] = split_list(E, k)->len;
    E->out = &text;
    diag_mute(true);
    for (int i = S->mid; i < S->n; i++)
        cpu_func(E, h, i);
    bool shared = S->shm && text.s == S->shm;
    size_t head[3 + SPLIT_LISTS] = {diag_mute(false) != 0, text.len, shared};
    for (int k = 0; k < SPLIT_LISTS; k++)
        head[3 + k] = (size_t)(split_list(E, k)->len - before[k]);
    bool ok = write_all(fd, head, sizeof head);
    for (int k = 0; k < SPLIT_LISTS && ok && !head[0]; k++)
        ok = write_all(fd, split_list(E, k)->items + before[k], head[3 + k] * sizeof(void *));
    if (ok && !head[0])
        ok = write_all(fd, h->cpu_ok + S->mid, (size_t)(S->n - S->mid));
    if (ok && !head[0] && !shared)
        ok = write_all(fd, text.s ? text.s : "", text.len);
    _exit(ok ? 0 : 1);
}

/* Reads the child's part into E; false: this process prints it instead */
static bool split_join(Emitter *E, CpuHalf *h)
{
    const Split *S = &h->split;
    size_t head[3 + SPLIT_LISTS];
    if (!read_all(S->fd, head, sizeof head) || head[0] || (head[2] && !S->shm))
        return false;
    void **got[SPLIT_LISTS];
    bool ok = true;
    for (int k = 0; k < SPLIT_LISTS && ok; k++) {
        got[k] = arena_alloc(sizeof *got[k] * (head[3 + k] + 1));
        ok = read_all(S->fd, got[k], sizeof *got[k] * head[3 + k]);
    }
    int count = S->n - S->mid;
    bool *child_ok = arena_alloc((size_t)count + 1);
    if (ok)
        ok = read_all(S->fd, child_ok, (size_t)count);
    size_t len = E->out->len;
    if (ok && head[1] && head[2]) {
        sb_putn(E->out, S->shm, head[1]);
    } else if (ok && head[1]) {
        sb_reserve(E->out, head[1]);
        ok = read_all(S->fd, E->out->s + len, head[1]);
        if (ok) {
            E->out->len = len + head[1];
            E->out->s[E->out->len] = '\0';
        }
    }
    if (ok) {
        for (int k = 0; k < SPLIT_LISTS; k++)
            for (size_t j = 0; j < head[3 + k]; j++)
                vec_push(split_list(E, k), got[k][j]);
        memcpy(h->cpu_ok + S->mid, child_ok, (size_t)count);
    }
    return ok;
}

/* Starts h->split's functions [mid, n) in a child where that pays
 * (`lines`: the .kern lines of all the functions printed); else its child
 * is -1 */
static void split_start(Emitter *E, CpuHalf *h, int lines)
{
    Split *S = &h->split;
    bool wanted = second_core(lines, SPLIT_MIN_LINES);
    int fds[2] = {-1, -1};
    S->child = -1;
    S->fd = -1;
    S->failed_before = E->cpu_failed_funcs.len;
    S->shm = NULL;
    if (!wanted || !E->opt || !E->opt->may_fork || S->mid >= S->n || pipe(fds) != 0)
        return;
    if (test_split() != 2)   /* KERNC_TEST_SPLIT=2: the pipe, as without the mapping */
        S->shm = mmap(NULL, SPLIT_SHM, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (S->shm == MAP_FAILED)
        S->shm = NULL;
    fflush(NULL);
    S->child = fork();
    if (S->child == 0) {
        /* quiet: an internal error here is this process's to report, when
         * it prints the child's range itself */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        close(fds[0]);
        split_child(E, h, fds[1]);
    }
    close(fds[1]);
    if (S->child < 0) {
        close(fds[0]);
        if (S->shm)
            munmap(S->shm, SPLIT_SHM);
        S->shm = NULL;
    } else {
        S->fd = fds[0];
    }
}

/* The child's functions into E, in their place: its text if it holds,
 * else printed here */
static void split_finish(Emitter *E, CpuHalf *h)
{
    Split *S = &h->split;
    bool joined = false;
    if (S->child > 0) {
        /* the child's part holds only while cpu_failed_funcs is as it saw it */
        joined = E->cpu_failed_funcs.len == S->failed_before && split_join(E, h);
        close(S->fd);
        while (waitpid(S->child, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (S->shm)
        munmap(S->shm, SPLIT_SHM);
    S->shm = NULL;
    for (int i = S->mid; i < S->n && !joined; i++)
        cpu_func(E, h, i);
}

/* emit_cpu_half's function i */
static void cpu_func(Emitter *E, CpuHalf *h, int i)
{
    Func *f = E->prog->funcs[i];
    if (f->is_kernel && h->test_cpu_i32) {
        /* tests only (KERNC_TEST_CPU_I32=1, tests/i32.sh): the CPU
         * kernel printed as the CUDA NAME__i32 is, to check those
         * printing decisions against numba on the CPU backend; valid
         * only for launches that krt_launch_fits32 accepts */
        range_func_i32(f);
        E->i32 = true;
        emit_cpu_kernel(E, f);
        E->i32 = false;
        range_i32_end();
        h->cpu_ok[i] = !E->cpu_failed;
    } else if (f->is_kernel) {
        emit_cpu_kernel(E, f);
        h->cpu_ok[i] = !E->cpu_failed;
    } else if (!func_has_split(f)) {
        /* one that synchronises is inlined into each kernel instead */
        emit_cpu_devfunc(E, f);
    }
}

static void cpu_half_init(Emitter *E, CpuHalf *h)
{
    const char *env = getenv("KERNC_TEST_CPU_I32");
    h->cpu_ok = arena_alloc(sizeof(bool) * (size_t)(E->prog->nfuncs + 1));
    h->test_cpu_i32 = env && strcmp(env, "1") == 0;
    h->split = (Split){.child = -1, .fd = -1};
}

/* the .kern lines of all the functions */
static int funcs_lines(const Program *p)
{
    int lines = 0;
    for (int i = 0; i < p->nfuncs; i++)
        lines += func_lines(p->funcs[i]);
    return lines;
}

/* --target cuda: the CPU functions started in a child (all of them),
 * before the CUDA ones are printed here */
static void cpu_half_fork(Emitter *E, CpuHalf *h)
{
    h->split = (Split){.mid = 0, .n = E->prog->nfuncs};
    split_start(E, h, funcs_lines(E->prog));
}

/* The CPU half: forked (cpu_half_fork: the child's functions joined) or
 * not (--target c: the second half by lines in a child where that pays) */
static void emit_cpu_half(Emitter *E, CpuHalf *h, bool cuda)
{
    Program *p = E->prog;
    bool *cpu_ok = h->cpu_ok;
    outf(E, "/* ---- CPU backend: each kernel runs all threads of one block ---- */");
    outf(E, "%s", "");
    emit_const_arrays(E, false);
    if (cuda)   /* dev: the CPU declarations (C output: emit_ffi_decls) */
        emit_ffi_decls(E, false);
    for (int i = 0; i < ffi_count(); i++)   /* dev */
        ffi_wrapper(E, ffi_get(i), true);
    bool protos = false;   /* dev: recursive device functions */
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->recursive && !p->funcs[i]->is_kernel && !func_has_split(p->funcs[i])) {
            emit_cpu_devfunc_proto(E, p->funcs[i]);
            protos = true;
        }
    if (protos)
        outf(E, "%s", "");
    Split *S = &h->split;
    if (S->child < 0) {
        int lines = funcs_lines(p), half = 0, mid = 0;
        for (; mid < p->nfuncs && half < lines / 2; mid++)
            half += func_lines(p->funcs[mid]);
        *S = (Split){.mid = mid, .n = p->nfuncs};
        split_start(E, h, lines);
        if (S->child < 0)
            S->mid = 0;
        for (int i = 0; i < S->mid; i++)
            cpu_func(E, h, i);
    }
    split_finish(E, h);
    outf(E, "/* ---- kernel descriptors and launchers ---- */");
    outf(E, "%s", "");
    int nk = 0;
    DescSets sets = {set_of(&E->shared_structs), set_of(&E->i32_kernels)};
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->is_kernel) {
            emit_descriptor(E, &sets, p->funcs[i], cuda, cpu_ok[i]);
            nk++;
        }
    const char *mod = emit_module_symbol(p, E->opt);
    if (nk > 0) {
        outf(E, "static const krt_kernel *const krt_kernels_%s[] = {", mod);
        for (int i = 0; i < p->nfuncs; i++)
            if (p->funcs[i]->is_kernel)
                outf(E, "    &%s__kernel,", fn_cname(p->funcs[i]));
        outf(E, "};");
    }
    /* issue 11: the 32-bit variants' descriptors by the index in
     * krt_kernels_MOD (NULL: none), for `kernc run` (src/run.c) */
    if (cuda && E->i32_kernels.len > 0) {
        outf(E, "KRT_EXTERN_C const krt_kernel *const krt_i32_%s[] = {", mod);
        for (int i = 0; i < p->nfuncs; i++) {
            Func *f = p->funcs[i];
            bool v32 = f->is_kernel && ptrmap_get(&sets.i32, f) > 0;
            if (f->is_kernel)
                outf(E, v32 ? "    &%s__kernel_i32," : "    NULL,", fn_cname(f));
        }
        outf(E, "};");
    }
    outf(E, "KRT_EXTERN_C const krt_module krt_module_%s = {", mod);
    outf(E, "    \"%s\", %d, %s", c_string(path_base(E->path)), nk,
         nk ? arena_printf("krt_kernels_%s", mod) : "NULL");
    outf(E, "};");
}

void emit_cuda(StrBuf *out, Program *p, const Options *opt)
{
    Emitter E;
    emitter_init(&E, out, p, opt, true);
    emit_prologue(&E, "CUDA kernels, their CPU versions, and the typed launchers.");
    /* Options that are nvcc flags rather than source: say which. */
    bool lineinfo = false, debug = opt && opt->debug;
    for (int i = 0; i < p->nfuncs; i++) {
        lineinfo |= p->funcs[i]->opt.lineinfo;
        debug |= p->funcs[i]->opt.debug;
    }
    if (lineinfo)
        outf(&E, "/* lineinfo=True: compile with nvcc -lineinfo (the #line directives map to the .kern) */");
    if (debug)
        outf(&E, "/* debug=True: compile with nvcc -G for device debugging; bounds checks are in the code */");
    if (lineinfo || debug)
        outf(&E, "%s", "");
    emit_tuples(&E);
    bool dyn = false;
    for (int i = 0; i < p->nfuncs; i++)
        for (int k = 0; k < p->funcs[i]->nlocals; k++)
            dyn |= p->funcs[i]->locals[k]->kind == VAR_DYNSHARED;
    outf(&E, "/* ---- CUDA ---- */");
    outf(&E, "%s", "");
    if (dyn) {
        outf(&E, "extern __shared__ __align__(16) unsigned char krt_dynshared[];");
        outf(&E, "%s", "");
    }
    if (debug) {
        outf(&E, "/* debug=True: the first exception of a launch, read by the runtime after it */");
        outf(&E, "__device__ krt_exception krt_exception_%s;", emit_module_symbol(p, opt));
        outf(&E, "%s", "");
    }
    bool grid_sync = false;
    for (int i = 0; i < p->nfuncs; i++)
        grid_sync |= p->funcs[i]->has_grid_sync;
    if (grid_sync) {
        /* this_grid().sync(); the launch is cooperative (krt_kernel.cooperative) */
        outf(&E, "#include <cooperative_groups.h>");
        outf(&E, "%s", "");
    }
    emit_ffi_decls(&E, true);   /* dev */
    emit_const_arrays(&E, true);
    bool protos = false;   /* dev: recursive device functions */
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->recursive && !p->funcs[i]->is_kernel) {
            emit_cuda_func_proto(&E, p->funcs[i]);
            protos = true;
        }
    if (protos)
        outf(&E, "%s", "");
    CpuHalf h;
    cpu_half_init(&E, &h);
    cpu_half_fork(&E, &h);
    for (int i = 0; i < p->nfuncs; i++)
        emit_cuda_func(&E, p->funcs[i]);
    emit_cpu_half(&E, &h, true);
    ufunc_emit_code(out, p, opt);
}

void emit_c(StrBuf *out, Program *p, const Options *opt)
{
    Emitter E;
    emitter_init(&E, out, p, opt, true);
    E.c_target = true;
    emit_prologue(&E, "C for kernc's CPU backend (kernc --target c), and the typed launchers.");
    emit_tuples(&E);
    emit_ffi_decls(&E, false);   /* dev */
    CpuHalf h;
    cpu_half_init(&E, &h);
    emit_cpu_half(&E, &h, false);
    ufunc_emit_code(out, p, opt);
}

void emit_header(StrBuf *out, Program *p, const Options *opt)
{
    Emitter E;
    emitter_init(&E, out, p, opt, false);
    const char *mod = emit_module_symbol(p, opt);
    const char *guard = header_guard(p, opt);
    outf(&E, "/*");
    outf(&E, " * Generated by kernc from %s: do not edit.", comment_name(E.path));
    outf(&E, " * One launcher per kernel: it checks the arguments against the kernel's");
    outf(&E, " * signature and launches it on the current backend (KRT_BACKEND).");
    outf(&E, " */");
    outf(&E, "#ifndef %s", guard);
    outf(&E, "#define %s", guard);
    outf(&E, "%s", "");
    outf(&E, "#include <kernrt.h>");
    outf(&E, "%s", "");
    outf(&E, "#ifdef __cplusplus");
    outf(&E, "extern \"C\" {");
    outf(&E, "#endif");
    outf(&E, "%s", "");
    /* rec: the structs of the records of kernel parameters, with NumPy's
     * layout; guarded, as the tuples below */
    PtrVec recs = {0};
    for (int i = 0; i < p->nfuncs; i++)
        for (int k = 0; p->funcs[i]->is_kernel && k < p->funcs[i]->nparams; k++)
            record_collect(&recs, p->funcs[i]->params[k]->type);
    if (recs.len)
        outf(&E, "#include <stddef.h>");
    for (int i = 0; i < recs.len; i++) {
        const Type *t = recs.items[i];
        StrBuf b = {0};
        record_emit_struct(&b, t, true);
        outf(&E, "/* %s */", ty_name(t));
        if (t->kind == TY_CHARSEQ) {   /* str: guarded by charseq.c */
            sb_puts(E.out, b.s);
            outf(&E, "%s", "");
            sb_free(&b);
            continue;
        }
        outf(&E, "#ifndef KRT_DEFINED_%s", t->rec->cname);
        outf(&E, "#define KRT_DEFINED_%s", t->rec->cname);
        sb_puts(E.out, b.s);
        outf(&E, "#endif");
        outf(&E, "%s", "");
        sb_free(&b);
    }
    /* issue 9: the structs of tuple parameters, as the generated code has
     * them; guarded, since the headers of two .kern files may both have one */
    for (int i = 0; i < p->nfuncs; i++)
        for (int k = 0; p->funcs[i]->is_kernel && k < p->funcs[i]->nparams; k++)
            note_tuple(&E, p->funcs[i]->params[k]->type);
    bool has_bool = false;
    for (int i = 0; i < E.tuples.len; i++) {
        Type *t = E.tuples.items[i];
        for (int k = 0; k < t->nelems; k++)
            has_bool |= t->elems[k]->kind == TY_BOOL;
    }
    if (has_bool) {
        outf(&E, "#ifndef __cplusplus");
        outf(&E, "#include <stdbool.h>");
        outf(&E, "#endif");
    }
    for (int i = 0; i < E.tuples.len; i++) {
        Type *t = E.tuples.items[i];
        const char *n = tuple_cname(t);
        outf(&E, "#ifndef KRT_DEFINED_%s", n);
        outf(&E, "#define KRT_DEFINED_%s", n);
        outf(&E, "typedef struct %s {", n);
        for (int k = 0; k < t->nelems; k++)
            outf(&E, "    %s %s;", t_c(t->elems[k]), tuple_member(t, k));
        outf(&E, "} %s;", n);
        outf(&E, "#endif");
        outf(&E, "%s", "");
    }
    for (int i = 0; i < p->nfuncs; i++) {
        Func *f = p->funcs[i];
        if (!f->is_kernel)
            continue;
        StrBuf sig = {0};
        for (int k = 0; k < f->nparams; k++)
            sb_printf(&sig, "%s%s", k ? ", " : "", ty_name(f->params[k]->type));
        outf(&E, "/* kernel %s: void(%s) */", f->name, sig.s ? sig.s : "");
        sb_free(&sig);
        if (strcmp(fn_cname(f), module_sym(f->name)) != 0 && !f->c_named)
            outf(&E, "/* (launched as %s: the name %s is taken in C or by kernc) */", fn_cname(f), f->name);
        outf(&E, "%s;", launcher_proto(f, "__launch"));
        outf(&E, "static inline %s", launcher_proto(f, ""));
        StrBuf call = {0};
        sb_printf(&call, "%s__launch(cfg", fn_cname(f));
        for (int k = 0; k < f->nparams; k++)
            sb_printf(&call, ", %s", f->params[k]->cname);
        outf(&E, "{");
        outf(&E, "    return %s);", call.s);
        outf(&E, "}");
        sb_free(&call);
        outf(&E, "extern const krt_kernel %s__kernel;", fn_cname(f));
        outf(&E, "%s", "");
    }
    outf(&E, "extern const krt_module krt_module_%s;", mod);
    const char *alias = module_alias(p, opt);
    if (alias) {   /* issue 13: the name of the file's base, where it is free */
        outf(&E, "#ifndef krt_module_%s", alias);
        outf(&E, "#define krt_module_%s krt_module_%s", alias, mod);
        outf(&E, "#endif");
    }
    outf(&E, "%s", "");
    ufunc_emit_header(out, p, opt);
    outf(&E, "#ifdef __cplusplus");
    outf(&E, "}");
    outf(&E, "#endif");
    outf(&E, "#endif /* %s */", guard);
}

