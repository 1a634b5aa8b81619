/*
 * run.c - `kernc run FILE.kern KERNEL [options] ARG...`: translate, build
 * and launch one kernel once, from the command line (SPEC section 4).
 *
 * The steps, each of which stops the whole run with a message on failure:
 *   1. translate FILE.kern in-process (parse_source .. emit_c / emit_cuda),
 *      for the backend that will run it (cpu: C, cuda: CUDA C);
 *   2. compile it into a shared object in a private temporary directory
 *      ($CC or nvcc), dlopen() it and remove the directory at once (the
 *      mapping outlives the files), so nothing is left behind, whatever
 *      happens later;
 *   3. bind the ARGs to the kernel's parameters through the krt_param table
 *      of its descriptor: .npy files for arrays (dtype and ndim checked),
 *      literals for scalars (range-checked) - all of them before anything
 *      touches the device, so a bad argument launches nothing;
 *   4. krt_launch() with --grid/--block/--shared, and with --outdir write
 *      every array parameter back as DIR/argI.npy.
 * The shared object resolves its krt_* calls against the libkernrt that
 * kernc itself links, so the generated code and this driver share one
 * runtime (one backend choice, one CUDA context).
 *
 * KERNEL may also be a @vectorize/@guvectorize function (its inputs, then
 * its outputs; the signature chosen by the .npy dtypes, a literal allowed
 * where the signature takes a scalar, passed as krt_host_scalar) or a
 * cuda.reduce function (the array and an optional init; the result is
 * printed as Python's repr prints it): they are called through their host
 * side (krt_ufunc_call, krt_reduce_call) found in the krt_ufuncs_<base>
 * table of the compiled code, instead of being launched.
 *
 * Exit status: 0 success; 1 an error in the inputs, translation, build or
 * launch; 2 a usage error (bad option, wrong argument count, bad literal).
 */
#include "kernc.h"
#include "diag.h"
#include "kernrt.h"
#include "npy.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Configure-time defaults, from a header that make regenerates whenever
 * they change (a new --prefix, `make prefix=...`): the installed headers,
 * the build tree, and the compilers that built kernc; $KERNC_INCLUDEDIR,
 * $CC and $NVCC override them.  Where <kernrt.h> is, is decided at run time
 * (run_include_dir): the build tree's runtime/ for the kernc of that tree,
 * else ../include next to the executable (an installed kernc, even one
 * copied or staged under another prefix), else the configured includedir. */
#include "kernc-paths.h"
#ifndef KERNC_INCLUDEDIR
#define KERNC_INCLUDEDIR "/usr/local/include"
#endif
#ifndef KERNC_CC
#define KERNC_CC "cc"
#endif
#ifndef KERNC_NVCC
#define KERNC_NVCC "nvcc"
#endif
#ifndef KERNC_CXX
#define KERNC_CXX "c++"
#endif
/* Where the CUDA toolkit usually is when nvcc is not on PATH. */
#define RUN_NVCC_FALLBACK "/usr/local/cuda/bin/nvcc"

extern char **environ;

enum { RUN_OK = 0, RUN_FAIL = 1, RUN_USAGE = 2 };

#define RUN_MAX_SIGS 64
#define RUN_MAX_CMD 64

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

static int run_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "kernc run: error: ..." and return status, so that callers can
 * write `return run_error(RUN_FAIL, ...)`. */
/* Set while trying overloads in turn: a misfit is not an error yet. */
static bool run_quiet;

static int run_error(int status, const char *fmt, ...)
{
    va_list ap;
    if (run_quiet)
        return status;
    diag_cli_prefix(stderr, "kernc run");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

/* X(ID, spelling, takes a value, value name, help) */
#define RUN_OPTIONS(X)                                                       \
    X(GRID, "--grid", 1, "X[,Y[,Z]]", "blocks in the grid (default 1)")     \
    X(BLOCK, "--block", 1, "X[,Y[,Z]]", "threads per block (default 1)")    \
    X(SHARED, "--shared", 1, "BYTES", "dynamic shared memory per block (default 0)") \
    X(BACKEND, "--backend", 1, "cpu|cuda|auto",                             \
      "where to run it (default: $KRT_BACKEND, else auto)")                 \
    X(OUTDIR, "--outdir", 1, "DIR",                                         \
      "after the launch, write array parameter I to DIR/argI.npy")          \
    X(PRINT, "--print", 0, NULL, "print whole arrays (default: elided as NumPy)") \
    X(QUIET, "--quiet", 0, NULL, "print no arrays")                         \
    X(TIME, "--time", 0, NULL, "print the kernel's time (min and median)")  \
    X(REPEAT, "--repeat", 1, "N",                                           \
      "launch N times, each on the original inputs (implies --time)")       \
    X(SIGNATURE, "--signature", 1, "NAME=SIG",                              \
      "signature of a kernel that has none in the file (repeatable)")      \
    X(DEBUG, "-g", 0, NULL, "bounds checks in the kernel (as debug=True)")  \
    X(RACECHECK, "--racecheck", 0, NULL,                                    \
      "-g, and report shared-memory races (CPU backend)")                  \
    X(HELP, "--help", 0, NULL, "print this help and exit")

typedef enum RunOptId {
#define X_(id, sp, val, meta, help) ROPT_##id,
    RUN_OPTIONS(X_)
#undef X_
    ROPT__COUNT
} RunOptId;

static const struct {
    const char *spelling;
    int takes_value;
    const char *meta, *help;
} run_opts[ROPT__COUNT] = {
#define X_(id, sp, val, meta, help) {sp, val, meta, help},
    RUN_OPTIONS(X_)
#undef X_
};

typedef struct RunConfig {
    const char *file;
    const char *kernel;
    krt_dim3 grid, block;
    size_t shared;
    const char *backend;           /* NULL: leave it to KRT_BACKEND */
    const char *outdir;
    bool debug;
    bool racecheck;                /* --racecheck (issue 13) */
    bool print_whole, quiet, time;
    int repeat;                    /* launches (1 unless --repeat) */
    SigOverride sigs[RUN_MAX_SIGS];
    int nsigs;
    char **args;                   /* the ARGs, in order */
    int nargs;
} RunConfig;

static void run_usage(FILE *out)
{
    fputs("usage: kernc run FILE.kern KERNEL [options] ARG...\n"
          "Translate FILE.kern, build it and launch KERNEL once.  Each ARG fills the\n"
          "next kernel parameter: for an array parameter a NumPy .npy file, or one of\n"
          "  zeros(SHAPE), arange(N), full(SHAPE, VALUE), rand(SHAPE, SEED)\n"
          "with an optional last DTYPE (float32, np.int64, 'f4', dtype=...; default:\n"
          "the parameter's), SHAPE being N or (N, M, ...); for a scalar parameter a\n"
          "literal (2.5, -3, 0x10, true, false), or a typed one as numba types a NumPy\n"
          "scalar (float32(2.5), np.int16(3)).  Of several signatures, the one numba's\n"
          "dispatcher would choose runs.  After the launch each array the\n"
          "kernel changed is printed as NumPy prints it (the others on one line).\n"
          "KERNEL may also name a @vectorize or @guvectorize function (ARGs: its\n"
          "inputs, .npy files or literals where a scalar fits, then its output\n"
          "arrays; the signature is chosen by the files' dtypes) or a cuda.reduce\n"
          "function (ARGs: a 1-D .npy file and an optional init; the result is\n"
          "printed as Python prints it).  --grid/--block do not apply to them.\n\n"
          "Options:\n", out);
    for (int i = 0; i < ROPT__COUNT; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", run_opts[i].spelling,
                 run_opts[i].meta ? " " : "", run_opts[i].meta ? run_opts[i].meta : "");
        fprintf(out, "  %-26s %s\n", left, run_opts[i].help);
    }
    fputs("\nEnvironment: CC and CFLAGS (the C compiler for the cpu backend, default\n"
          KERNC_CC "), NVCC and NVCCFLAGS (cuda backend, default " KERNC_NVCC "),\n"
          "KERNC_INCLUDEDIR (where kernrt.h is; default: the build tree's runtime/\n"
          "for the kernc of a build tree, else ../include next to kernc, else\n"
          KERNC_INCLUDEDIR "),\n"
          "KRT_BACKEND, TMPDIR.\n"
          "Exit status: 0 success, 1 error, 2 usage error.\n", out);
}

/* "X[,Y[,Z]]", each a positive or zero integer (zero is refused by the
 * runtime's launch check, with its own message). */
static int run_parse_dim3(const char *opt, const char *s, krt_dim3 *out)
{
    unsigned v[3] = {1, 1, 1};
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        if (*p < '0' || *p > '9')
            goto bad;
        char *end;
        errno = 0;
        unsigned long x = strtoul(p, &end, 10);
        if (errno != 0 || x > UINT_MAX)
            return run_error(RUN_USAGE, "%s %s: %.*s is too large", opt, s,
                             (int)(end - p), p);
        v[i] = (unsigned)x;
        p = end;
        if (*p == '\0') {
            out->x = v[0];
            out->y = v[1];
            out->z = v[2];
            return RUN_OK;
        }
        if (*p != ',')
            goto bad;
        p++;
    }
bad:
    return run_error(RUN_USAGE, "%s: expected X[,Y[,Z]] (1 to 3 integers), got '%s'", opt, s);
}

/* Is arg an option?  Single-dash words other than our own are values:
 * "-3", "-2.5", "-inf" are negative literals. */
static int run_option_of(const char *arg, const char **value)
{
    *value = NULL;
    for (int i = 0; i < ROPT__COUNT; i++) {
        size_t n = strlen(run_opts[i].spelling);
        if (strncmp(arg, run_opts[i].spelling, n) != 0)
            continue;
        if (arg[n] == '\0')
            return i;
        if (arg[n] == '=' && run_opts[i].takes_value) {
            *value = arg + n + 1;
            return i;
        }
    }
    if (strcmp(arg, "-h") == 0)
        return ROPT_HELP;
    return -1;
}

static bool run_looks_like_option(const char *arg)
{
    if (arg[0] != '-' || arg[1] == '\0')
        return false;
    if (arg[1] == '-')
        return true;
    char c = arg[1];
    return !((c >= '0' && c <= '9') || c == '.' || c == 'i' || c == 'I' || c == 'n' ||
             c == 'N');
}

/* Returns RUN_OK, RUN_USAGE, or -1 when --help was given (exit 0). */
static int run_parse_args(int argc, char **argv, RunConfig *cfg)
{
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    if (pos == NULL)
        return run_error(RUN_FAIL, "out of memory");
    int npos = 0;
    bool only_positional = false;

    cfg->grid = (krt_dim3){1, 1, 1};
    cfg->block = (krt_dim3){1, 1, 1};
    cfg->repeat = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_positional || !run_looks_like_option(arg)) {
            pos[npos++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = true;
            continue;
        }
        const char *value;
        int id = run_option_of(arg, &value);
        if (id < 0) {
            free(pos);
            Suggest sg;
            const char *eq = strchr(arg, '=');
            suggest_init(&sg, eq ? arena_strndup(arg, (size_t)(eq - arg)) : arg);
            for (int k = 0; k < ROPT__COUNT; k++)
                suggest_add(&sg, run_opts[k].spelling);
            if (sg.best)
                return run_error(RUN_USAGE, "unknown option '%s'; did you mean '%s'? (see kernc "
                                 "run --help)", arg, sg.best);
            return run_error(RUN_USAGE, "unknown option '%s' (see kernc run --help)", arg);
        }
        if (run_opts[id].takes_value && value == NULL) {
            if (i + 1 >= argc) {
                free(pos);
                return run_error(RUN_USAGE, "%s needs a value: %s %s", run_opts[id].spelling,
                                 run_opts[id].spelling, run_opts[id].meta);
            }
            value = argv[++i];
        }
        int rc = RUN_OK;
        switch ((RunOptId)id) {
        case ROPT_GRID:
            rc = run_parse_dim3("--grid", value, &cfg->grid);
            break;
        case ROPT_BLOCK:
            rc = run_parse_dim3("--block", value, &cfg->block);
            break;
        case ROPT_SHARED: {
            char *end;
            errno = 0;
            unsigned long long b = strtoull(value, &end, 0);
            if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 ||
                b > SIZE_MAX)
                rc = run_error(RUN_USAGE, "--shared: expected a number of bytes, got '%s'",
                               value);
            cfg->shared = (size_t)b;
            break;
        }
        case ROPT_BACKEND:
            if (strcmp(value, "cpu") != 0 && strcmp(value, "cuda") != 0 &&
                strcmp(value, "auto") != 0)
                rc = run_error(RUN_USAGE, "--backend: expected cpu, cuda or auto, got '%s'",
                               value);
            cfg->backend = value;
            break;
        case ROPT_OUTDIR:
            if (value[0] == '\0')
                rc = run_error(RUN_USAGE, "--outdir: empty directory name");
            cfg->outdir = value;
            break;
        case ROPT_SIGNATURE: {
            const char *eq = strchr(value, '=');
            if (eq == NULL || eq == value || eq[1] == '\0')
                rc = run_error(RUN_USAGE, "--signature: expected NAME=SIGNATURE, got '%s'",
                               value);
            else if (cfg->nsigs == RUN_MAX_SIGS)
                rc = run_error(RUN_USAGE, "too many --signature options (at most %d)",
                               RUN_MAX_SIGS);
            else {
                cfg->sigs[cfg->nsigs].kernel = arena_strndup(value, (size_t)(eq - value));
                cfg->sigs[cfg->nsigs].sig = eq + 1;
                cfg->nsigs++;
            }
            break;
        }
        case ROPT_DEBUG:
            cfg->debug = true;
            break;
        case ROPT_RACECHECK:   /* issue 13 */
            cfg->debug = true;
            cfg->racecheck = true;
            break;
        case ROPT_PRINT:
            cfg->print_whole = true;
            break;
        case ROPT_QUIET:
            cfg->quiet = true;
            break;
        case ROPT_TIME:
            cfg->time = true;
            break;
        case ROPT_REPEAT: {
            char *end;
            errno = 0;
            long v = strtol(value, &end, 10);
            if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || v < 1 ||
                v > 1000000)
                rc = run_error(RUN_USAGE, "--repeat: expected a count from 1 to 1000000, got '%s'",
                               value);
            cfg->repeat = (int)v;
            cfg->time = true;
            break;
        }
        case ROPT_HELP:
            free(pos);
            run_usage(stdout);
            return -1;
        case ROPT__COUNT:
            break;
        }
        if (rc != RUN_OK) {
            free(pos);
            return rc;
        }
    }
    if (npos < 2) {
        free(pos);
        run_error(RUN_USAGE, npos == 0 ? "no input file" : "no kernel name");
        run_usage(stderr);
        return RUN_USAGE;
    }
    cfg->file = pos[0];
    cfg->kernel = pos[1];
    cfg->args = pos + 2;
    cfg->nargs = npos - 2;
    return RUN_OK;
}

/* ------------------------------------------------------------------ */
/* The run: every resource in one place, released by run_cleanup        */
/* ------------------------------------------------------------------ */

/* A scalar argument or result: a member per scalar type, named by its
 * helper suffix (kernrt_types.h), of its storage type. */
typedef union RunScalar {
#define X_(a, e, code, numba, numpy, aliases, letters, descr, sfx, ctype, stype, ...) stype sfx;
    KRT_SCALAR_TABLE(X_, _)
#undef X_
} RunScalar;

typedef struct RunArg {
    NpyArray host;                 /* array arguments: the file's contents */
    bool loaded;
    bool gen_default_dtype;        /* a generator without a dtype: the parameter's */
    void *orig;                    /* the input as uploaded (repeats, "unchanged") */
    char load_err[NPY_ERR_MAX];    /* why the file could not be loaded */
    bool load_failed;
    krt_array dev;
    bool on_device;
    bool fortran;                  /* a [::1, :] parameter: dev holds the F
                                      order (its shape reversed), fview is
                                      the array the kernel gets */
    krt_array fview;
    krt_view view;
    RunScalar scalar;
    unsigned char *tuple;          /* issue 9: a tuple argument, as its C struct */
} RunArg;

typedef struct Run {
    RunConfig cfg;
    char *source_text;
    char tmpdir[4096];
    bool have_tmpdir;
    void *dl;
    const krt_module *module;
    const krt_kernel *kernel;
    RunArg *args;
    bool is_ufunc;                 /* KERNEL names a (gu)vectorize or reduce function */
    const krt_ufunc_module *ufuncs;
    const krt_ufunc *ufunc;        /* the signature chosen */
    const char *nvcc_flags;        /* what the kernels' options ask of nvcc */
    char *modsym;                  /* emit_module_symbol (issue 13) */
} Run;

/* issue 9: the type of a tuple parameter (a descriptor knows only its
 * size), copied out of the translator's arena before it is freed. */
typedef struct RunTup {
    char *name;                    /* numba's spelling, for messages */
    int n;
    int dtype[16];                 /* element j: a scalar dtype, or -1: sub[j] */
    int size[16];
    struct RunTup *sub[16];
    char *tname;                   /* arr: a named tuple's class, NULL if none */
    char *fname[16];               /*   and its fields */
} RunTup;

static const krt_module *run_mod;

static RunTup *run_tup_copy(const Type *t)
{
    RunTup *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->name = strdup(ty_name(t));
    r->n = t->nelems < 16 ? t->nelems : 16;
    r->tname = t->tname ? strdup(t->tname) : NULL;   /* arr: named tuples */
    for (int j = 0; t->tname && j < r->n; j++)
        r->fname[j] = strdup(t->fnames[j]);
    for (int j = 0; j < r->n; j++) {
        const Type *e = t->elems[j];
        r->dtype[j] = e->kind == TY_TUPLE ? -1 : ty_dtype(e);
        r->size[j] = e->kind == TY_TUPLE ? 0 : ty_size(e);
        r->sub[j] = e->kind == TY_TUPLE ? run_tup_copy(e) : NULL;
    }
    return r;
}

/* rec: a record's descr as NumPy writes it (dtype.descr: the fields in
 * order, ('', '|Vn') for the padding, nested lists, subarray shapes) */
static void run_record_descr_to(StrBuf *b, const Type *t)
{
    const Record *r = t->rec;
    int64_t at = 0;
    int n = 0;
    sb_putc(b, '[');
    for (int i = 0; i < r->nfields; i++) {
        const RecField *f = &r->fields[i];
        if (f->offset > at)
            sb_printf(b, "%s('', '|V%lld')", n++ ? ", " : "", (long long)(f->offset - at));
        sb_printf(b, "%s('%s', ", n++ ? ", " : "", f->name);
        if (f->type->kind == TY_RECORD)
            run_record_descr_to(b, f->type);
        else
            sb_printf(b, "'%s'", npy_descr((krt_dtype)ty_dtype(f->type)));
        if (f->ndim) {
            sb_puts(b, ", (");
            for (int k = 0; k < f->ndim; k++)
                sb_printf(b, "%s%lld", k ? ", " : "", (long long)f->shape[k]);
            sb_puts(b, f->ndim == 1 ? ",)" : ")");
        }
        sb_putc(b, ')');
        at = f->offset + record_field_size(f);
    }
    if (r->size > at)
        sb_printf(b, "%s('', '|V%lld')", n ? ", " : "", (long long)(r->size - at));
    sb_putc(b, ']');
}

/* rec: the records of the parameters (record scalars and arrays of
 * records), as RunRec (copied out of the arena): for literals, the fields
 * with their dtypes and offsets */
typedef struct RunRec {
    char *descr;
    int64_t size;
    int n;
    char **names;
    int *dtype;                    /* a scalar dtype, or -1: sub */
    int64_t *offset, *count;       /* count: the elements of a subarray */
    struct RunRec **sub;
} RunRec;

static RunRec *run_rec_copy(const Type *t)
{
    RunRec *r = calloc(1, sizeof *r);
    StrBuf b = {0};
    run_record_descr_to(&b, t);
    r->descr = strdup(b.s);
    sb_free(&b);
    r->size = t->rec->size;
    r->n = t->rec->nfields;
    r->names = calloc((size_t)r->n, sizeof *r->names);
    r->dtype = calloc((size_t)r->n, sizeof *r->dtype);
    r->offset = calloc((size_t)r->n, sizeof *r->offset);
    r->count = calloc((size_t)r->n, sizeof *r->count);
    r->sub = calloc((size_t)r->n, sizeof *r->sub);
    for (int j = 0; j < r->n; j++) {
        const RecField *f = &t->rec->fields[j];
        r->names[j] = strdup(f->name);
        r->dtype[j] = f->type->kind == TY_RECORD ? -1 : ty_dtype(f->type);
        r->sub[j] = f->type->kind == TY_RECORD ? run_rec_copy(f->type) : NULL;
        r->offset[j] = f->offset;
        r->count[j] = 1;
        for (int k = 0; k < f->ndim; k++)
            r->count[j] *= f->shape[k];
    }
    return r;
}

/* What kernc run needs to know of a kernel parameter beyond its
 * descriptor: its tuple type or its record (scalar or array element). */
typedef struct RunParam {
    RunTup *tup;
    RunRec *rec;
} RunParam;

static RunParam **run_params;      /* [kernel][param] */
static int run_nkernels;

/* Copy the tuple and record types of every kernel's parameters out of the
 * translator's arena; kernel K is the K-th kernel Func of the program (the
 * module's descriptors are its kernel Funcs in program order). */
static void run_note_params(const Program *prog)
{
    int nk = 0;
    for (int j = 0; j < prog->nfuncs; j++)
        nk += prog->funcs[j]->is_kernel;
    run_params = calloc((size_t)nk + 1, sizeof *run_params);
    if (run_params == NULL)
        return;
    run_nkernels = nk;
    nk = 0;
    for (int j = 0; j < prog->nfuncs; j++) {
        Func *f = prog->funcs[j];
        if (!f->is_kernel)
            continue;
        RunParam *ps = calloc((size_t)f->nparams + 1, sizeof *ps);
        for (int i = 0; ps && i < f->nparams; i++) {
            const Type *t = f->params[i]->type;
            if (t->kind == TY_TUPLE)
                ps[i].tup = run_tup_copy(t);
            if (t->kind == TY_ARRAY)
                t = t->elem;
            if (t->kind == TY_RECORD)
                ps[i].rec = run_rec_copy(t);
        }
        run_params[nk++] = ps;
    }
}

static const RunParam *run_param(const krt_kernel *k, int i)
{
    for (int j = 0; run_mod && run_params && j < run_mod->nkernels && j < run_nkernels; j++)
        if (run_mod->kernels[j] == k)
            return run_params[j] ? &run_params[j][i] : NULL;
    return NULL;
}

static RunRec *run_param_record(const krt_kernel *k, int i)
{
    const RunParam *p = run_param(k, i);
    return p ? p->rec : NULL;
}

static RunTup *run_param_tuple_type(const krt_kernel *k, int i)
{
    const RunParam *p = run_param(k, i);
    return p ? p->tup : NULL;
}

/* The files of the temporary directory, for the signal handler, which can
 * only unlink what it knows by name (opendir is not async-signal-safe). */
static char run_sig_paths[3][4096 + 16];
static volatile sig_atomic_t run_sig_armed;

static void run_on_signal(int sig)
{
    if (run_sig_armed) {
        for (int i = 0; i < 3; i++)
            unlink(run_sig_paths[i]);
        rmdir(run_sig_paths[2]);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Remove the temporary directory and what the compiler left in it. */
static void run_remove_tmpdir(Run *r)
{
    if (!r->have_tmpdir)
        return;
    DIR *d = opendir(r->tmpdir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[4096 + 256];
            snprintf(path, sizeof path, "%s/%s", r->tmpdir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(r->tmpdir);
    r->have_tmpdir = false;
    run_sig_armed = 0;
}

static void run_cleanup(Run *r)
{
    run_remove_tmpdir(r);
    if (r->args != NULL) {
        for (int i = 0; i < r->cfg.nargs; i++) {
            if (r->args[i].on_device)
                krt_free(r->args[i].dev);
            npy_free(&r->args[i].host);
            free(r->args[i].orig);
            free(r->args[i].tuple);
        }
        free(r->args);
    }
    /* The shared object stays loaded: with the CUDA backend, cudart's exit
     * handlers still refer to the kernels it registered. */
    free(r->source_text);
    free(r->modsym);
    free(r->cfg.args - 2);
}

/* ------------------------------------------------------------------ */
/* Step 1: translate                                                   */
/* ------------------------------------------------------------------ */

static char *run_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap + 1);
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL || bad) {
        free(buf);
        if (!bad)
            errno = ENOMEM;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The kernel names of a translated program, for "did you mean" lists. */
static void run_list_kernels(StrBuf *b, const char *const *names, int n)
{
    int shown = 0;
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup = dup || strcmp(names[i], names[j]) == 0;
        if (!dup)
            sb_printf(b, "%s%s", shown++ ? ", " : "", names[i]);
    }
}

static int run_translate(Run *r, bool cuda, StrBuf *code)
{
    static Source src;             /* diagnostics keep a pointer to it */
    size_t len = 0;
    r->source_text = run_read_file(r->cfg.file, &len);
    if (r->source_text == NULL)
        return run_error(RUN_FAIL, "cannot open '%s': %s", r->cfg.file, strerror(errno));
    src.path = r->cfg.file;
    src.text = r->source_text;
    src.len = len;

    Options opt = {0};
    opt.input = r->cfg.file;
    opt.target_c = !cuda;
    opt.debug = r->cfg.debug;
    opt.racecheck = r->cfg.racecheck;
    opt.sigs = r->cfg.sigs;
    opt.nsigs = r->cfg.nsigs;

    Program *prog = translate(&src, &opt);
    if (prog == NULL)
        return RUN_FAIL;
    run_note_params(prog);
    free(r->modsym);
    r->modsym = strdup(emit_module_symbol(prog, &opt));

    /* An unknown kernel is reported before paying for a compilation. */
    const char **names = calloc((size_t)prog->nfuncs + 1, sizeof *names);
    int nkernels = 0;
    bool found = false;
    for (int i = 0; names != NULL && i < prog->nfuncs; i++) {
        if (!prog->funcs[i]->is_kernel)
            continue;
        names[nkernels++] = prog->funcs[i]->name;
        found = found || strcmp(prog->funcs[i]->name, r->cfg.kernel) == 0;
    }
    for (int i = 0; !found && i < prog->nufuncs; i++)
        if (strcmp(prog->ufuncs[i]->name, r->cfg.kernel) == 0)
            found = r->is_ufunc = true;
    if (!found) {
        StrBuf list = {0};
        run_list_kernels(&list, names, nkernels);
        if (nkernels == 0)
            run_error(RUN_FAIL, "%s defines no kernel", r->cfg.file);
        else
            run_error(RUN_FAIL, "%s has no kernel '%s'; its kernels: %s", r->cfg.file,
                      r->cfg.kernel, list.s);
        sb_free(&list);
        free(names);
        return RUN_FAIL;
    }
    free(names);

    r->nvcc_flags = cuda ? emit_nvcc_flags(prog) : "";
    return translate_emit(prog, &opt, code, NULL) ? RUN_OK : RUN_FAIL;
}

/* ------------------------------------------------------------------ */
/* Step 2: compile and load                                            */
/* ------------------------------------------------------------------ */

/* Split a command from the environment ("ccache gcc") at blanks. */
static int run_split(char *cmd, char **argv, int max)
{
    int n = 0;
    for (char *tok = strtok(cmd, " \t"); tok != NULL && n < max; tok = strtok(NULL, " \t"))
        argv[n++] = tok;
    return n;
}

/* Is there an executable cmd (a bare name) on $PATH, or at cmd itself? */
static bool run_on_path(const char *cmd)
{
    if (strchr(cmd, '/') != NULL)
        return access(cmd, X_OK) == 0;
    const char *path = getenv("PATH");
    if (path == NULL)
        return false;
    while (*path) {
        size_t len = strcspn(path, ":");
        char full[4096];
        snprintf(full, sizeof full, "%.*s/%s", (int)len, len ? path : ".", cmd);
        if (access(full, X_OK) == 0)
            return true;
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

/* Run argv[] with the compiler's output on our stderr; RUN_OK if it
 * exited with status 0. */
static int run_spawn(char **argv)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    pid_t pid;
    fflush(NULL);
    int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0)
        return run_error(RUN_FAIL, "cannot run '%s': %s", argv[0], strerror(err));
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return run_error(RUN_FAIL, "waiting for '%s': %s", argv[0], strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return RUN_OK;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return run_error(RUN_FAIL, "cannot run '%s'", argv[0]);
    if (WIFSIGNALED(status))
        return run_error(RUN_FAIL, "'%s' was killed by signal %d", argv[0], WTERMSIG(status));
    return run_error(RUN_FAIL, "compilation of the generated code failed ('%s' exited with %d)",
                     argv[0], WEXITSTATUS(status));
}

/* The module's tables: krt_module_<ident>, krt_ufuncs_<ident>. */
static const void *run_find_symbol(Run *r, const char *prefix);

static const krt_module *run_find_module(Run *r)
{
    return run_find_symbol(r, "krt_module_");
}

static const void *run_find_symbol(Run *r, const char *prefix)
{
    /* issue 13: the module's identifier, as the emitter made it */
    char sym[512];
    snprintf(sym, sizeof sym, "%s%s", prefix, r->modsym ? r->modsym : "");
    return dlsym(r->dl, sym);
}

/* Is dir/kernrt.h there? */
static bool run_has_header(const char *dir)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/kernrt.h", dir);
    return access(path, R_OK) == 0;
}

/* Where <kernrt.h> is (see the top of this file); buf holds the answer. */
static const char *run_include_dir(char *buf, size_t n)
{
    const char *env = getenv("KERNC_INCLUDEDIR");
    if (env != NULL && env[0] != '\0')
        return env;
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL)
            *slash = '\0';
#ifdef KERNC_BUILDDIR
        /* The kernc of the build tree (libtool keeps the binary in .libs). */
        size_t bl = strlen(KERNC_BUILDDIR);
        if (strncmp(exe, KERNC_BUILDDIR, bl) == 0 &&
            (exe[bl] == '\0' || strcmp(exe + bl, "/.libs") == 0)) {
            snprintf(buf, n, "%s/runtime", KERNC_SRCDIR);
            if (run_has_header(buf))
                return buf;
        }
#endif
        snprintf(buf, n, "%s/../include", exe);
        if (run_has_header(buf))
            return buf;
    }
    return KERNC_INCLUDEDIR;
}

static int run_build(Run *r, bool cuda, const StrBuf *code)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(r->tmpdir, sizeof r->tmpdir, "%s/kernc-run-XXXXXX", tmp);
    if (mkdtemp(r->tmpdir) == NULL)
        return run_error(RUN_FAIL, "cannot create a temporary directory in %s: %s", tmp,
                         strerror(errno));
    r->have_tmpdir = true;

    char *src = run_sig_paths[0], *so = run_sig_paths[1];
    snprintf(src, sizeof run_sig_paths[0], "%s/%s", r->tmpdir, cuda ? "module.cu" : "module.c");
    snprintf(so, sizeof run_sig_paths[1], "%s/module.so", r->tmpdir);
    snprintf(run_sig_paths[2], sizeof run_sig_paths[2], "%s", r->tmpdir);
    /* An interrupted build (^C while nvcc runs) still removes the directory. */
    run_sig_armed = 1;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (signal(sigs[i], run_on_signal) == SIG_IGN)
            signal(sigs[i], SIG_IGN);
    FILE *f = fopen(src, "w");
    if (f == NULL)
        return run_error(RUN_FAIL, "%s: %s", src, strerror(errno));
    bool ok = fwrite(code->s, 1, code->len, f) == code->len;
    if (fclose(f) != 0 || !ok)
        return run_error(RUN_FAIL, "%s: write failed", src);

    char incbuf[4096 + 32];
    const char *incdir = run_include_dir(incbuf, sizeof incbuf);
    if (!run_has_header(incdir))
        return run_error(RUN_FAIL, "cannot find kernrt.h (looked in %s); set KERNC_INCLUDEDIR "
                         "to the directory that holds it", incdir);
    const char *cc = getenv(cuda ? "NVCC" : "CC");
    if (cc == NULL || cc[0] == '\0') {
        cc = cuda ? KERNC_NVCC : KERNC_CC;
        if (cuda && !run_on_path(cc) && access(RUN_NVCC_FALLBACK, X_OK) == 0)
            cc = RUN_NVCC_FALLBACK;
    }
    const char *flags = getenv(cuda ? "NVCCFLAGS" : "CFLAGS");
    char *ccbuf = strdup(cc);
    char *flagbuf = strdup(flags ? flags : "");
    if (ccbuf == NULL || flagbuf == NULL) {
        free(ccbuf);
        free(flagbuf);
        return run_error(RUN_FAIL, "out of memory");
    }
    char *argv[RUN_MAX_CMD * 2];
    int n = run_split(ccbuf, argv, RUN_MAX_CMD);
    if (n == 0) {
        free(ccbuf);
        free(flagbuf);
        return run_error(RUN_FAIL, "the %s variable names no compiler", cuda ? "NVCC" : "CC");
    }
    char incflag[8192];
    snprintf(incflag, sizeof incflag, "-I%s", incdir);
    /* dev (issue 9): the CUDA C files cuda.declare_device links (ffi.c),
     * built for the CPU half by a C++ compiler with kernrt_cuda_compat.h
     * (CXX, CXXFLAGS), and given to nvcc as well for the GPU (-rdc=true) */
    if (ffi_nlinks() > 16 || ffi_count() > 32) {
        free(ccbuf);
        free(flagbuf);
        return run_error(RUN_FAIL, "kernc run links at most 16 CUDA C files and 32 foreign "
                         "functions");
    }
    const char **ffi_objs = arena_alloc(sizeof *ffi_objs * (size_t)(ffi_nlinks() + 1));
    for (int i = 0; i < ffi_nlinks(); i++) {
        const char *cxx = getenv("CXX");
        const char *cxxflags = getenv("CXXFLAGS");
        char *xv[RUN_MAX_CMD * 2 + 16];
        int xn = run_split(arena_strdup(cxx && *cxx ? cxx : KERNC_CXX), xv, RUN_MAX_CMD);
        if (xn == 0) {
            free(ccbuf);
            free(flagbuf);
            return run_error(RUN_FAIL, "the CXX variable names no compiler");
        }
        xv[xn++] = "-O2";
        xv[xn++] = "-fPIC";
        xv[xn++] = incflag;
        xv[xn++] = "-include";
        xv[xn++] = "kernrt_cuda_compat.h";
        for (int k = 0; k < ffi_count() && xn < RUN_MAX_CMD; k++)
            xv[xn++] = arena_printf("-D%s=%s__krt_cpu", ffi_get(k)->name, ffi_get(k)->name);
        xn += run_split(arena_strdup(cxxflags ? cxxflags : ""), xv + xn, RUN_MAX_CMD - 8);
        ffi_objs[i] = arena_printf("%s/ffi%d.o", r->tmpdir, i);
        xv[xn++] = "-x";
        xv[xn++] = "c++";
        xv[xn++] = "-c";
        xv[xn++] = (char *)ffi_link(i);
        xv[xn++] = "-o";
        xv[xn++] = (char *)ffi_objs[i];
        xv[xn] = NULL;
        int xrc = run_spawn(xv);
        if (xrc != RUN_OK) {
            free(ccbuf);
            free(flagbuf);
            return run_error(RUN_FAIL, "cannot compile %s for the CPU backend", ffi_link(i));
        }
    }
    argv[n++] = "-O2";
    argv[n++] = "-shared";
    if (cuda) {
        /* One cudart for the module and libkernrt: see runtime/cuda.c. */
        argv[n++] = "-Xcompiler";
        argv[n++] = "-fPIC";
        argv[n++] = "-cudart";
        argv[n++] = "shared";
        /* lineinfo=True: -lineinfo; fastmath=True in every kernel: -ftz=true
         * -prec-div=false -prec-sqrt=false; dev: -rdc=true (emit_nvcc_flags) */
        if (r->nvcc_flags && r->nvcc_flags[0])
            n += run_split(arena_strdup(r->nvcc_flags), argv + n, 4);
    } else {
        argv[n++] = "-fPIC";
    }
    argv[n++] = incflag;
    /* The user's flags come after ours, so that they win (-O0, -g, -arch). */
    n += run_split(flagbuf, argv + n, RUN_MAX_CMD - 8);
    argv[n++] = "-o";
    argv[n++] = so;
    argv[n++] = src;
    for (int i = 0; i < ffi_nlinks(); i++) {   /* dev */
        if (cuda)
            argv[n++] = (char *)ffi_link(i);
        argv[n++] = (char *)ffi_objs[i];
    }
    argv[n++] = "-lm";
    argv[n] = NULL;
    int rc = run_spawn(argv);
    free(ccbuf);
    free(flagbuf);
    if (rc != RUN_OK)
        return rc;

    r->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (r->dl == NULL) {
        const char *why = dlerror();
        /* The module's krt_* calls resolve against kernc's own libkernrt:
         * a kernc linked with a static libkernrt must export it. */
        return run_error(RUN_FAIL, "cannot load the compiled kernel: %s%s", why,
                         strstr(why, "undefined symbol: krt_")
                             ? " (kernc must export libkernrt's symbols: link it with "
                               "-export-dynamic)"
                             : "");
    }
    run_remove_tmpdir(r);
    r->module = run_find_module(r);
    run_mod = r->module;
    if (r->module == NULL)
        return run_error(RUN_FAIL, "the compiled code of %s has no kernel table", r->cfg.file);
    r->ufuncs = run_find_symbol(r, "krt_ufuncs_");
    if (r->is_ufunc && r->ufuncs == NULL)
        return run_error(RUN_FAIL, "the compiled code of %s has no ufunc table", r->cfg.file);
    return RUN_OK;
}

/* ------------------------------------------------------------------ */
/* Step 3: bind the arguments                                          */
/* ------------------------------------------------------------------ */

/* str: a dtype's name in messages: kernrt's, but a char sequence as
 * numba names it ([char x 3], [unichr x 5]). */
static const char *run_dtype_name(krt_dtype t)
{
    if (KRT_DTYPE_IS_CHARSEQ(t))
        return arena_printf("[%s x %zu]", ((int)t & 0xff) == KRT_STR ? "unichr" : "char",
                            KRT_CHARSEQ_COUNT(t));
    return krt_dtype_name(t);
}

/* float32[:, ::1], int32, in numba's spelling (which differs from
 * kernrt's dtype names for two types). */
static void run_param_type(StrBuf *b, const krt_param *p)
{
    if (p->kind == KRT_PARAM_TUPLE) {
        sb_puts(b, "tuple");
        return;
    }
    if (p->kind == KRT_PARAM_RECORD) {   /* rec */
        sb_puts(b, "record");
        return;
    }
    const ScalarInfo *info = ty_info_of_dtype(p->dtype);
    sb_puts(b, info                            ? info->name
               : p->dtype == KRT_XOROSHIRO128P ? "xoroshiro128p_type"
                                               : run_dtype_name(p->dtype));
    if (p->kind != KRT_PARAM_ARRAY)
        return;
    sb_putc(b, '[');
    for (int d = 0; d < p->ndim; d++)
        sb_puts(b, d == 0 && p->contiguous == 2 && p->ndim > 1 ? "::1, "
                   : d + 1 < p->ndim                          ? ":, "
                   : p->contiguous == 1                       ? "::1"
                                                              : ":");
    sb_putc(b, ']');
}

static void run_signature(StrBuf *b, const krt_kernel *k)
{
    sb_putc(b, '(');
    for (int i = 0; i < k->nparams; i++) {
        sb_printf(b, "%s%s: ", i ? ", " : "", k->params[i].name);
        run_param_type(b, &k->params[i]);
    }
    sb_putc(b, ')');
}

/* "argument 2 (a: float32)" */
static void run_arg_label(StrBuf *b, const krt_kernel *k, int i)
{
    RunTup *t = k->params[i].kind == KRT_PARAM_TUPLE ? run_param_tuple_type(k, i) : NULL;
    sb_printf(b, "argument %d (%s: ", i, k->params[i].name);
    if (t)
        sb_puts(b, t->name);
    else
        run_param_type(b, &k->params[i]);
    sb_putc(b, ')');
}

/* Integer literal: [+-] then decimal, 0x, 0o or 0b digits, with Python's
 * single underscores between digits.  The magnitude in *mag, sign in *neg. */
static bool run_parse_int(const char *s, uint64_t *mag, bool *neg, bool *overflow)
{
    *neg = false;
    *overflow = false;
    if (*s == '+' || *s == '-')
        *neg = *s++ == '-';
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2;
    else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
        base = 8, s += 2;
    else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, s += 2;
    if (*s == '_' && base != 10)
        s++;
    uint64_t v = 0;
    int digits = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s == '_' && digits > 0 && s[1] != '\0' && s[1] != '_')
            continue;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return false;
        if (d >= base)
            return false;
        if (v > (UINT64_MAX - d) / base)
            *overflow = true;
        v = v * base + d;
        digits++;
    }
    *mag = v;
    return digits > 0;
}

/* The range of an integer dtype, for the range check. */
static void run_int_range(const ScalarInfo *info, int64_t *min, uint64_t *max)
{
    int bits = info->size * 8;
    if (info->cls == SC_SINT) {
        *max = (UINT64_C(1) << (bits - 1)) - 1;
        *min = -(int64_t)*max - 1;
    } else {
        *min = 0;
        *max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    }
}

/* The integer of `size` bytes at p, as its low bits, and back. */
static void run_store_int(void *p, int size, uint64_t v)
{
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    memcpy(p, size == 1 ? (void *)&v8 : size == 2 ? (void *)&v16 : size == 4 ? (void *)&v32 : (void *)&v,
           (size_t)size);
}

static uint64_t run_load_int(const void *p, const ScalarInfo *info)
{
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    bool s = info->cls == SC_SINT;
    switch (info->size) {
    case 1: memcpy(&v8, p, 1); return s ? (uint64_t)(int64_t)(int8_t)v8 : v8;
    case 2: memcpy(&v16, p, 2); return s ? (uint64_t)(int64_t)(int16_t)v16 : v16;
    case 4: memcpy(&v32, p, 4); return s ? (uint64_t)(int64_t)(int32_t)v32 : v32;
    default: memcpy(&v64, p, 8); return v64;
    }
}

static int run_typed_literal(const char *text, char *buf, size_t size);

static int run_parse_scalar(const krt_kernel *k, int i, const char *text, RunScalar *out)
{
    const krt_param *p = &k->params[i];
    char typed_value[128];
    int typed = run_typed_literal(text, typed_value, sizeof typed_value);
    if (typed >= 0)
        text = typed_value;   /* float32(1.5): converted to the parameter as numba does */
    if (typed == TY_BOOL && (strcmp(text, "true") == 0 || strcmp(text, "True") == 0))
        text = "1";           /* a boolean as a number: 1 or 0 */
    else if (typed == TY_BOOL && (strcmp(text, "false") == 0 || strcmp(text, "False") == 0))
        text = "0";
    const ScalarInfo *info = ty_info_of_dtype(p->dtype);
    StrBuf label = {0};
    run_arg_label(&label, k, i);
    int rc = RUN_OK;

    if (!info)
        die("run_parse_scalar: a scalar parameter of dtype %d", (int)p->dtype);
    if (info->cls == SC_BOOL) {
        static const struct { const char *word; uint8_t value; } words[] = {
            {"true", 1}, {"True", 1}, {"1", 1}, {"false", 0}, {"False", 0}, {"0", 0},
        };
        size_t w;
        for (w = 0; w < sizeof words / sizeof words[0]; w++)
            if (strcmp(text, words[w].word) == 0)
                break;
        if (w == sizeof words / sizeof words[0])
            rc = run_error(RUN_USAGE, "%s: expected true or false, got '%s'", label.s, text);
        else
            out->b = words[w].value;
    } else if (info->cls == SC_COMPLEX) {
        /* 1+2j, (1+2j), 3j, 2.5: as Python's complex() reads them */
        double re, im;
        if (!run_complex_parse(text, &re, &im))
            rc = run_error(RUN_USAGE, "%s: expected a complex number such as 1+2j, got '%s'",
                           label.s, text);
        else if (p->dtype == KRT_COMPLEX64 &&
                 ((isfinite(re) && fabs(re) > FLT_MAX) || (isfinite(im) && fabs(im) > FLT_MAX)))
            rc = run_error(RUN_USAGE, "%s: %s is out of range for %s", label.s, text,
                           krt_dtype_name(p->dtype));
        else if (p->dtype == KRT_COMPLEX64) {
            out->c64.re = (float)re;
            out->c64.im = (float)im;
        } else {
            out->c128.re = re;
            out->c128.im = im;
        }
    } else if (info->cls == SC_FLOAT || info->cls == SC_HALF || info->cls == SC_BF16) {
        /* Integer literals (also 0x10) are numbers too, as numba converts
         * an int argument to a float parameter. */
        uint64_t mag;
        bool neg, overflow;
        double v;
        char *end = (char *)"";
        errno = 0;
        if (run_parse_int(text, &mag, &neg, &overflow) && !overflow)
            v = neg ? -(double)mag : (double)mag;
        else
            v = strtod(text, &end);
        if (text[0] == '\0' || *end != '\0')
            rc = run_error(RUN_USAGE, "%s: expected a number, got '%s'", label.s, text);
        else if ((errno == ERANGE && isinf(v)) ||
                 (p->dtype == KRT_FLOAT32 && isfinite(v) && fabs(v) > FLT_MAX))
            rc = run_error(RUN_USAGE, "%s: %s is out of range for %s", label.s, text,
                           krt_dtype_name(p->dtype));
        else if (p->dtype == KRT_FLOAT32)
            out->f32 = (float)v;
        else if (p->dtype == KRT_FLOAT16 && isfinite(v) &&
                 (krt_half_bits_from_double(v) & 0x7fffu) == 0x7c00u)
            rc = run_error(RUN_USAGE, "%s: %s is out of range for float16", label.s, text);
        else if (p->dtype == KRT_FLOAT16)   /* float16: rounded to nearest even */
            out->f16 = krt_half_from_double(v);
        else if (p->dtype == KRT_BFLOAT16 && isfinite(v) &&
                 (krt_bfloat16_bits_from_double(v) & 0x7fffu) == 0x7f80u)
            rc = run_error(RUN_USAGE, "%s: %s is out of range for bfloat16", label.s, text);
        else if (p->dtype == KRT_BFLOAT16)   /* bfloat16: rounded to nearest even */
            out->bf16 = krt_bfloat16_from_double(v);
        else if (p->dtype == KRT_FLOAT64)
            out->f64 = v;
        else
            die("run_parse_scalar: no conversion to %s", info->name);
    } else if (info->cls == SC_SINT || info->cls == SC_UINT) {
        uint64_t mag;
        bool neg, overflow;
        int64_t min;
        uint64_t max;
        run_int_range(info, &min, &max);
        if (!run_parse_int(text, &mag, &neg, &overflow)) {
            char *end;
            strtod(text, &end);
            if (text[0] != '\0' && *end == '\0')
                rc = run_error(RUN_USAGE, "%s: expected an integer, got the float literal '%s'",
                               label.s, text);
            else
                rc = run_error(RUN_USAGE, "%s: expected an integer, got '%s'", label.s, text);
        } else if (overflow || (!neg && mag > max) ||
                   (neg && mag > (uint64_t)0 - (uint64_t)min)) {
            rc = run_error(RUN_USAGE, "%s: %s is out of range for %s [%lld, %llu]", label.s,
                           text, krt_dtype_name(p->dtype), (long long)min,
                           (unsigned long long)max);
        } else {
            /* Two's complement: the low bits of -mag are the value. */
            run_store_int(out, info->size, neg ? (uint64_t)0 - mag : mag);
        }
    } else {
        die("run_parse_scalar: no parser for %s", info->name);
    }
    sb_free(&label);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Arrays without Python: zeros(SHAPE), arange(N), full(SHAPE, V),     */
/* rand(SHAPE, SEED), each with an optional dtype (DTYPE or dtype=DTYPE;  */
/* by default the parameter's)                                         */
/* ------------------------------------------------------------------ */

static const char *run_skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* "zeros(", "np.zeros(": the generator's name, or NULL for anything else
 * (a file name, a literal).  *args points after the '('. */
static const char *run_generator(const char *text, const char **args)
{
    static const char *const names[] = {"zeros", "arange", "full", "rand"};
    const char *p = run_skip_space(text);
    if (strncmp(p, "np.", 3) == 0)
        p += 3;
    else if (strncmp(p, "numpy.", 6) == 0)
        p += 6;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(p, names[i], n) != 0)
            continue;
        const char *q = run_skip_space(p + n);
        size_t len = strlen(q);
        while (len > 0 && (q[len - 1] == ' ' || q[len - 1] == '\t'))
            len--;
        if (*q == '(' && len > 0 && q[len - 1] == ')') {
            *args = q + 1;
            return names[i];
        }
    }
    return NULL;
}

static bool run_is_generator(const char *text)
{
    const char *args;
    return run_generator(text, &args) != NULL;
}

/* A dtype as numba, NumPy or kernrt spell it: float32, np.float32,
 * 'f4', boolean, bool_, ... */
static bool run_parse_dtype(const char *text, krt_dtype *out)
{
    char w[64];
    const char *p = run_skip_space(text);
    if (strncmp(p, "np.", 3) == 0)
        p += 3;
    else if (strncmp(p, "numpy.", 6) == 0)
        p += 6;
    size_t n = 0;
    for (; *p && n + 1 < sizeof w; p++)
        if (*p != '\'' && *p != '"' && *p != ' ')
            w[n++] = *p;
    w[n] = '\0';
    static const struct { const char *name; krt_dtype t; } aliases[] = {
        {"boolean", KRT_BOOL}, {"bool_", KRT_BOOL}, {"bool", KRT_BOOL}, {"b1", KRT_BOOL},
        {"i1", KRT_INT8}, {"i2", KRT_INT16}, {"i4", KRT_INT32}, {"i8", KRT_INT64},
        {"u1", KRT_UINT8}, {"u2", KRT_UINT16}, {"u4", KRT_UINT32}, {"u8", KRT_UINT64},
        {"f4", KRT_FLOAT32}, {"f8", KRT_FLOAT64}, {"float", KRT_FLOAT64},
        {"double", KRT_FLOAT64}, {"single", KRT_FLOAT32}, {"int", KRT_INT64},
        {"f2", KRT_FLOAT16}, {"half", KRT_FLOAT16},   /* float16 */
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(w, aliases[i].name) == 0) {
            *out = aliases[i].t;
            return true;
        }
    for (int t = 0; t < KRT_DTYPE_COUNT; t++)
        if (t != KRT_XOROSHIRO128P && strcmp(w, krt_dtype_name((krt_dtype)t)) == 0) {
            *out = (krt_dtype)t;
            return true;
        }
    return false;
}

/* Split "a, (b, c), d)" at the commas outside brackets, up to the final
 * ')'; the pieces are trimmed copies in part[] (malloc'd in *store). */
static int run_split_args(const char *args, char **part, int max, char **store)
{
    size_t len = strlen(args);
    while (len > 0 && args[len - 1] != ')')
        len--;
    char *buf = malloc(len + 1);
    *store = buf;
    if (buf == NULL)
        return -1;
    memcpy(buf, args, len);
    buf[len > 0 ? len - 1 : 0] = '\0';     /* drop the closing ')' */
    int n = 0, depth = 0;
    char *start = buf;
    for (char *p = buf;; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        if ((*p == ',' && depth == 0) || *p == '\0') {
            bool end = *p == '\0';
            *p = '\0';
            char *a = (char *)run_skip_space(start);
            size_t l = strlen(a);
            while (l > 0 && (a[l - 1] == ' ' || a[l - 1] == '\t'))
                a[--l] = '\0';
            if (n == max)
                return -1;
            part[n++] = a;
            start = p + 1;
            if (end)
                break;
        }
    }
    if (n == 1 && part[0][0] == '\0')
        n = 0;
    return n;
}

/* "10", "(5, 7)", "(4,)": at most KRT_MAX_NDIM sizes. */
static bool run_parse_shape(const char *text, NpyArray *a)
{
    const char *p = run_skip_space(text);
    bool tuple = *p == '(';
    if (tuple)
        p++;
    a->ndim = 0;
    for (;;) {
        p = run_skip_space(p);
        if (tuple && *p == ')' && p[1] == '\0' && a->ndim > 0)
            return true;
        if (*p < '0' || *p > '9' || a->ndim == KRT_MAX_NDIM)
            return false;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno != 0 || v > ((int64_t)1 << 40))
            return false;
        a->shape[a->ndim++] = v;
        p = run_skip_space(end);
        if (!tuple)
            return *p == '\0';
        if (*p == ')')
            return p[1] == '\0';
        if (*p != ',')
            return false;
        p++;
    }
}

/* Element i of a, from the integer v (arange). */
static void run_store_index(NpyArray *a, size_t i, uint64_t v)
{
    const ScalarInfo *info = ty_info_of_dtype(a->dtype);
    void *p = (char *)a->data + i * (size_t)info->size;
    if (info->cls == SC_BOOL) {
        *(uint8_t *)p = v != 0;
    } else if (info->cls == SC_HALF) {
        krt_half h = krt_half_from_double((double)v);
        memcpy(p, &h, sizeof h);
    } else if (info->cls == SC_BF16) {
        krt_bfloat16 h = krt_bfloat16_from_double((double)v);
        memcpy(p, &h, sizeof h);
    } else if (info->cls == SC_COMPLEX) {   /* v + 0j */
        double d[2] = {(double)v, 0};
        float f[2] = {(float)v, 0};
        memcpy(p, info->size == 8 ? (void *)f : (void *)d, (size_t)info->size);
    } else if (info->cls == SC_FLOAT && info->size == 4) {
        float f = (float)v;
        memcpy(p, &f, sizeof f);
    } else if (info->cls == SC_FLOAT) {
        double d = (double)v;
        memcpy(p, &d, sizeof d);
    } else {
        run_store_int(p, info->size, v);
    }
}

/* splitmix64: rand()'s generator, one step per element. */
static uint64_t run_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int run_parse_scalar(const krt_kernel *k, int i, const char *text, RunScalar *out);

/* Set while a ufunc or reduction with several signatures is bound: there
 * the dtype chooses the signature, so a generator without one gets
 * NumPy's default (arange: int64; zeros, rand: float64; full: that of the
 * value) instead of the parameter's. */
static bool run_numpy_defaults;

static krt_dtype run_numpy_default(const char *name, const char *value)
{
    if (name[0] == 'a')
        return KRT_INT64;
    if (name[0] != 'f' || value == NULL)
        return KRT_FLOAT64;
    if (strcmp(value, "true") == 0 || strcmp(value, "True") == 0 ||
        strcmp(value, "false") == 0 || strcmp(value, "False") == 0)
        return KRT_BOOL;
    bool hex = strstr(value, "0x") != NULL || strstr(value, "0X") != NULL;
    if (!hex && strpbrk(value, ".eEnN") != NULL)
        return KRT_FLOAT64;
    return KRT_INT64;
}

/* Make the array that generator text describes, for parameter i of k.
 * Usage errors (status 2) name the argument and what is wrong. */
static int run_generate(const krt_kernel *k, int i, const char *text, NpyArray *out,
                        bool *default_dtype)
{
    const char *args;
    const char *name = run_generator(text, &args);
    char *part[8], *store;
    int n = run_split_args(args, part, 8, &store);
    int rc = RUN_OK;
    StrBuf label = {0};
    run_arg_label(&label, k, i);
    memset(out, 0, sizeof *out);
    out->dtype = k->params[i].dtype;
    *default_dtype = true;
    bool arange = strcmp(name, "arange") == 0;
    int need = strcmp(name, "full") == 0 || strcmp(name, "rand") == 0 ? 2 : 1;
    if (run_numpy_defaults)
        out->dtype = run_numpy_default(name, n > 1 ? part[1] : NULL);
    /* the dtype: a last positional argument beyond those needed, or dtype= */
    if (n > 0 && strncmp(part[n - 1], "dtype", 5) == 0 &&
        *run_skip_space(part[n - 1] + 5) == '=') {
        if (!run_parse_dtype(strchr(part[n - 1], '=') + 1, &out->dtype))
            rc = run_error(RUN_USAGE, "%s: %s: unknown dtype '%s'", label.s, text,
                           run_skip_space(strchr(part[n - 1], '=') + 1));
        *default_dtype = false;
        n--;
    } else if (n == need + 1) {
        if (!run_parse_dtype(part[n - 1], &out->dtype))
            rc = run_error(RUN_USAGE, "%s: %s: unknown dtype '%s'", label.s, text, part[n - 1]);
        *default_dtype = false;
        n--;
    }
    static const char *const forms[] = {"zeros(SHAPE[, DTYPE])", "arange(N[, DTYPE])",
                                        "full(SHAPE, VALUE[, DTYPE])",
                                        "rand(SHAPE, SEED[, DTYPE])"};
    const char *form = name[0] == 'z' ? forms[0] : arange ? forms[1] : name[0] == 'f' ? forms[2]
                                                                                    : forms[3];
    if (rc == RUN_OK && n != need)
        rc = run_error(RUN_USAGE, "%s: expected %s, got '%s'", label.s, form, text);
    if (rc == RUN_OK && (!run_parse_shape(part[0], out) || (arange && out->ndim != 1)))
        rc = run_error(RUN_USAGE, "%s: %s: expected %s, got '%s'", label.s, text,
                       arange ? "a length N" : "a shape N or (N, M, ...)", part[0]);
    if (rc == RUN_OK && KRT_DTYPE_IS_RECORD(out->dtype) && name[0] != 'z')   /* rec */
        rc = run_error(RUN_USAGE, "%s: %s makes numbers; an array of records is a .npy file "
                       "or zeros(SHAPE)", label.s, text);
    if (rc == RUN_OK && KRT_DTYPE_IS_CHARSEQ(out->dtype) && name[0] != 'z')   /* str */
        rc = run_error(RUN_USAGE, "%s: %s makes numbers; an array of %s is a .npy file "
                       "or zeros(SHAPE)", label.s, text, run_dtype_name(out->dtype));
    if (rc == RUN_OK && out->dtype == KRT_XOROSHIRO128P)
        rc = run_error(RUN_USAGE, "%s: %s makes numbers, not xoroshiro128p states", label.s,
                       text);
    if (rc == RUN_OK && name[0] == 'r' && out->dtype != KRT_FLOAT32 &&
        out->dtype != KRT_FLOAT64)
        rc = run_error(RUN_USAGE, "%s: rand() makes float32 or float64 arrays, not %s", label.s,
                       krt_dtype_name(out->dtype));
    if (rc == RUN_OK && arange && out->dtype == KRT_BOOL)
        rc = run_error(RUN_USAGE, "%s: arange() makes numbers, not booleans", label.s);
    RunScalar value;
    memset(&value, 0, sizeof value);
    uint64_t seed = 0;
    if (rc == RUN_OK && name[0] == 'f') {
        /* VALUE: a literal of the array's dtype, checked as a scalar argument */
        krt_param *ps = malloc(sizeof *ps * (size_t)k->nparams);
        if (ps == NULL) {
            rc = run_error(RUN_FAIL, "out of memory");
        } else {
            memcpy(ps, k->params, sizeof *ps * (size_t)k->nparams);
            ps[i].kind = KRT_PARAM_SCALAR;
            ps[i].dtype = out->dtype;
            krt_kernel ks = *k;
            ks.params = ps;
            rc = run_parse_scalar(&ks, i, part[1], &value);
            free(ps);
        }
    } else if (rc == RUN_OK && name[0] == 'r') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(part[1], &end, 0);
        if (part[1][0] < '0' || part[1][0] > '9' || *end != '\0' || errno != 0)
            rc = run_error(RUN_USAGE, "%s: rand(): the seed must be a non-negative integer, "
                           "got '%s'", label.s, part[1]);
        seed = v;
    }
    size_t count = 1, esize = krt_dtype_size(out->dtype);
    for (int d = 0; rc == RUN_OK && d < out->ndim; d++) {
        uint64_t dim = (uint64_t)out->shape[d];
        if (dim != 0 && count > SIZE_MAX / esize / dim)
            rc = run_error(RUN_USAGE, "%s: %s: the array is too large", label.s, text);
        count *= (size_t)dim;
    }
    if (rc == RUN_OK) {
        out->nbytes = count * esize;
        out->data = calloc(count ? count : 1, esize);
        if (out->data == NULL)
            rc = run_error(RUN_FAIL, "%s: %s: out of memory (%zu bytes)", label.s, text,
                           out->nbytes);
    }
    for (size_t e = 0; rc == RUN_OK && e < count && name[0] != 'z'; e++) {
        if (arange) {
            run_store_index(out, e, (uint64_t)e);
        } else if (name[0] == 'f') {
            memcpy((char *)out->data + e * esize, &value, esize);
        } else {
            uint64_t x = run_splitmix64(&seed);
            if (out->dtype == KRT_FLOAT32)
                ((float *)out->data)[e] = (float)(x >> 40) * 0x1p-24f;
            else
                ((double *)out->data)[e] = (double)(x >> 11) * 0x1p-53;
        }
    }
    if (rc != RUN_OK)
        npy_free(out);
    free(store);
    sb_free(&label);
    return rc;
}

/* Load argument i for parameter i of k, once: a .npy file, or a
 * generator (made again when a generator without a dtype meets an
 * overload with another element type).  RUN_OK, the status of a
 * generator's error, or RUN_FAIL with a->load_err set for a file. */
static int run_load(RunArg *a, const krt_kernel *k, int i, const char *text)
{
    if (run_is_generator(text)) {
        if (a->loaded && (!a->gen_default_dtype || run_numpy_defaults ||
                          a->host.dtype == k->params[i].dtype))
            return RUN_OK;
        npy_free(&a->host);
        a->loaded = false;
        int rc = run_generate(k, i, text, &a->host, &a->gen_default_dtype);
        a->loaded = rc == RUN_OK;
        return rc;
    }
    if (!a->loaded && !a->load_failed) {
        if (npy_read(text, &a->host, a->load_err, sizeof a->load_err) == 0)
            a->loaded = true;
        else
            a->load_failed = true;
    }
    return RUN_OK;
}

/* rec: a record array (or the one record of a record parameter) against
 * the parameter's record: NumPy's descr of the file must be the record's */
static int run_check_record(const krt_kernel *k, int i, RunArg *a, const char *path,
                            const char *label)
{
    const krt_param *p = &k->params[i];
    RunRec *rr = run_param_record(k, i);
    if (rr == NULL)
        die("run_check_record: no record for parameter %d of '%s'", i, k->name);
    if (a->host.descr == NULL && a->host.dtype == p->dtype)   /* zeros(): this record */
        a->host.descr = strdup(rr->descr);
    /* suite (issue 8): numba's xoroshiro128p_dtype is the record
     * [('s0', '<u8'), ('s1', '<u8')] (align=True): a file of states is one
     * of those records where the kernel declares it as such */
    if (a->host.dtype == KRT_XOROSHIRO128P &&
        strcmp(rr->descr, "[('s0', '<u8'), ('s1', '<u8')]") == 0) {
        a->host.dtype = p->dtype;
        free(a->host.descr);
        a->host.descr = strdup(rr->descr);
    }
    if (!KRT_DTYPE_IS_RECORD(a->host.dtype) || a->host.descr == NULL ||
        strcmp(a->host.descr, rr->descr) != 0)
        return run_error(RUN_FAIL, "%s: %s holds %s data, expected records of dtype %s", label,
                         path, a->host.descr ? a->host.descr : krt_dtype_name(a->host.dtype),
                         rr->descr);
    if (p->kind == KRT_PARAM_RECORD) {
        int64_t n = 1;
        for (int d = 0; d < a->host.ndim; d++)
            n *= a->host.shape[d];
        if (n != 1 || a->host.ndim > 1)
            return run_error(RUN_FAIL, "%s: %s must hold one record (shape () or (1,))", label,
                             path);
        return RUN_OK;
    }
    if (a->host.ndim != p->ndim)
        return run_error(RUN_FAIL, "%s: %s has %d dimension%s, expected %d", label, path,
                         a->host.ndim, a->host.ndim == 1 ? "" : "s", p->ndim);
    return RUN_OK;
}

/* Check (and load, once) the .npy file of argument i against parameter i
 * of kernel k; the array stays on the host until every argument fits. */
static int run_check_array(Run *r, const krt_kernel *k, int i)
{
    RunArg *a = &r->args[i];
    const krt_param *p = &k->params[i];
    const char *path = r->cfg.args[i];
    int rc = run_load(a, k, i, path);
    if (rc != RUN_OK)
        return rc;
    StrBuf label = {0};
    run_arg_label(&label, k, i);
    struct stat st;
    if (a->load_failed && stat(path, &st) != 0 && errno == ENOENT &&
        strchr(path, '/') == NULL && strstr(path, ".npy") == NULL)
        rc = run_error(RUN_FAIL, "%s is an array: expected a .npy file, got '%s' (%s); "
                       "or one of zeros(SHAPE), arange(N), full(SHAPE, VALUE), "
                       "rand(SHAPE, SEED)", label.s, path, strerror(ENOENT));
    else if (a->load_failed)
        rc = run_error(RUN_FAIL, "%s: %s", label.s, a->load_err);
    else if (KRT_DTYPE_IS_RECORD(p->dtype))   /* rec: the same fields, NumPy's descr */
        rc = run_check_record(k, i, a, path, label.s);
    else if (a->host.dtype != p->dtype)
        rc = run_error(RUN_FAIL, "%s: %s holds %s data, expected %s", label.s, path,
                       run_dtype_name(a->host.dtype), run_dtype_name(p->dtype));
    else if (a->host.ndim != p->ndim)
        rc = run_error(RUN_FAIL, "%s: %s has %d dimension%s, expected %d", label.s, path,
                       a->host.ndim, a->host.ndim == 1 ? "" : "s", p->ndim);
    /* A loaded file is kept in C order (npy.c reorders a fortran_order
     * one); run_upload gives a [::1, :] parameter the F order. */
    sb_free(&label);
    return rc;
}

/* ---- issue 9: tuple arguments, `(1, 2.5)` or nested `(1, (2, 3.5))`,
 * written into the launcher's C struct (krt_tup_*: the elements in order,
 * each at its natural alignment) ---- */
static void run_tuple_layout(const RunTup *t, size_t *size, size_t *align)
{
    size_t off = 0, al = 1;
    for (int j = 0; j < t->n; j++) {
        size_t sz, a;
        if (t->sub[j])
            run_tuple_layout(t->sub[j], &sz, &a);
        else
            sz = a = (size_t)t->size[j];
        off = (off + a - 1) / a * a + sz;
        al = a > al ? a : al;
    }
    *size = (off + al - 1) / al * al;
    *align = al;
}

/* The elements of a tuple literal "(a, b, (c, d))": their texts, split at
 * the top-level commas (a trailing one allowed: "(1,)"); -1 if it is not
 * one. */
static int run_tuple_items(char *text, char **items, int max)
{
    char *p = (char *)run_skip_space(text);
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n < 2 || p[0] != '(' || p[n - 1] != ')')
        return -1;
    p[n - 1] = '\0';
    p++;
    int count = 0, depth = 0;
    char *start = p;
    for (char *q = p;; q++) {
        if (*q == '(')
            depth++;
        else if (*q == ')' && --depth < 0)
            return -1;
        else if ((*q == ',' && depth == 0) || *q == '\0') {
            bool end = *q == '\0';
            *q = '\0';
            char *it = (char *)run_skip_space(start);
            size_t l = strlen(it);
            while (l > 0 && (it[l - 1] == ' ' || it[l - 1] == '\t'))
                it[--l] = '\0';
            if (*it) {
                if (count == max)
                    return -1;
                items[count++] = it;
            } else if (!end || count == 0) {
                if (!(end && count == 0))
                    return -1;   /* "(,)" or "(1,,2)" */
            }
            if (end)
                break;
            start = q + 1;
        }
    }
    return depth == 0 ? count : -1;
}

/* arr (issue 9): a named tuple's literal may be written Point(1, 2.5) or
 * Point(x=1, y=2.5), any order of the keywords: text becomes the plain
 * "(1, 2.5)" form, the fields in order; false if that is not it. */
static bool run_named_literal(const RunTup *t, char *text)
{
    const char *p = run_skip_space(text);
    size_t nl = strlen(t->tname);
    if (strncmp(p, t->tname, nl) != 0 || run_skip_space(p + nl)[0] != '(')
        return false;
    char *copy = strdup(run_skip_space(p + nl));
    char *items[16];
    int n = copy ? run_tuple_items(copy, items, 16) : -1;
    const char *val[16] = {0};
    bool ok = n == t->n;
    for (int j = 0; ok && j < n; j++) {
        char *eq = strchr(items[j], '=');
        if (!eq || (strchr(items[j], '(') && strchr(items[j], '(') < eq)) {
            ok = val[j] == NULL;
            val[j] = items[j];
            continue;
        }
        *eq = '\0';
        char *name = items[j];
        size_t l = strlen(name);
        while (l > 0 && (name[l - 1] == ' ' || name[l - 1] == '\t'))
            name[--l] = '\0';
        int f = 0;
        while (f < t->n && strcmp(t->fname[f], name) != 0)
            f++;
        ok = f < t->n && val[f] == NULL;
        if (ok)
            val[f] = run_skip_space(eq + 1);
    }
    StrBuf b = {0};
    sb_putc(&b, '(');
    for (int j = 0; ok && j < t->n; j++)
        sb_printf(&b, "%s%s", j ? ", " : "", val[j]);
    sb_puts(&b, t->n == 1 ? ",)" : ")");
    if (ok && strlen(b.s) <= strlen(text))
        strcpy(text, b.s);
    else
        ok = false;
    sb_free(&b);
    free(copy);
    return ok;
}

static int run_parse_tuple(const krt_kernel *k, int i, const RunTup *t, char *text,
                           unsigned char *buf, const char *label)
{
    char *items[16];
    char *orig = strdup(text);
    if (t->tname)   /* arr: Point(x=1, y=2.5) */
        run_named_literal(t, text);
    int n = run_tuple_items(text, items, 16);
    if (n != t->n) {
        int rc = run_error(RUN_USAGE, "%s: expected a tuple of %d value%s such as (%s), got '%s'",
                           label, t->n, t->n == 1 ? "" : "s", t->n == 1 ? "1," : "1, 2",
                           orig ? orig : text);
        free(orig);
        return rc;
    }
    free(orig);
    size_t off = 0;
    for (int j = 0; j < n; j++) {
        size_t s, a;
        if (t->sub[j])
            run_tuple_layout(t->sub[j], &s, &a);
        else
            s = a = (size_t)t->size[j];
        off = (off + a - 1) / a * a;
        int rc;
        if (t->sub[j]) {
            rc = run_parse_tuple(k, i, t->sub[j], items[j], buf + off, label);
        } else {
            krt_param *ps = malloc(sizeof *ps * (size_t)k->nparams);
            if (ps == NULL)
                return run_error(RUN_FAIL, "out of memory");
            memcpy(ps, k->params, sizeof *ps * (size_t)k->nparams);
            ps[i].kind = KRT_PARAM_SCALAR;
            ps[i].dtype = (krt_dtype)t->dtype[j];
            krt_kernel ks = *k;
            ks.params = ps;
            RunScalar v;
            memset(&v, 0, sizeof v);
            rc = run_parse_scalar(&ks, i, items[j], &v);
            free(ps);
            memcpy(buf + off, &v, s);
        }
        if (rc != RUN_OK)
            return rc;
        off += s;
    }
    return RUN_OK;
}

static int run_bind_tuple(Run *r, const krt_kernel *k, int i)
{
    RunTup *t = run_param_tuple_type(k, i);
    if (t == NULL)
        die("run_bind_tuple: no type for tuple parameter %d of '%s'", i, k->name);
    size_t size, align;
    run_tuple_layout(t, &size, &align);
    if ((int)size != k->params[i].ndim)
        die("run_bind_tuple: layout of %s: %zu bytes, the struct has %d", t->name, size,
            k->params[i].ndim);
    RunArg *a = &r->args[i];
    free(a->tuple);
    a->tuple = calloc(1, size);
    char *text = a->tuple ? strdup(r->cfg.args[i]) : NULL;
    if (text == NULL)
        return run_error(RUN_FAIL, "out of memory");
    StrBuf label = {0};
    run_arg_label(&label, k, i);
    int rc = run_parse_tuple(k, i, t, text, a->tuple, label.s);
    sb_free(&label);
    free(text);
    return rc;
}

/* ---- rec: record scalar arguments: a .npy file of one record (written
 * back, as numba copies a record argument back to the host), zeros(1), or
 * a tuple literal of the field values in order, `(1.5, 2, (3, 4, 5))`:
 * a subarray field a tuple of its elements (nested by dimension or flat),
 * a nested record a tuple of its fields ---- */

/* The leaves of a nested tuple literal, in order, into items. */
static int run_rec_leaves(char *text, char **items, int max, int n)
{
    const char *p = run_skip_space(text);
    if (*p != '(') {
        if (n == max)
            return -1;
        items[n++] = text;
        return n;
    }
    char *sub[256];
    int m = run_tuple_items(text, sub, 256);
    if (m < 0)
        return -1;
    for (int j = 0; j < m && n >= 0; j++)
        n = run_rec_leaves(sub[j], items, max, n);
    return n;
}

static int run_parse_record(const krt_kernel *k, int i, const RunRec *rr, char *text,
                            unsigned char *buf, const char *label)
{
    char *items[256];
    char *orig = strdup(text);
    int n = run_tuple_items(text, items, 256);
    if (n != rr->n) {
        int rc = run_error(RUN_USAGE, "%s: expected a record literal of %d field value%s in "
                           "order (%s%s), got '%s'", label, rr->n, rr->n == 1 ? "" : "s",
                           rr->names[0], rr->n > 1 ? ", ..." : ",", orig ? orig : text);
        free(orig);
        return rc;
    }
    free(orig);
    for (int j = 0; j < n; j++) {
        unsigned char *at = buf + rr->offset[j];
        if (rr->sub[j] && rr->count[j] == 1) {
            int rc = run_parse_record(k, i, rr->sub[j], items[j], at, label);
            if (rc != RUN_OK)
                return rc;
            continue;
        }
        char *leaves[4096];
        char *item = strdup(items[j]);   /* for the message: the split writes into it */
        if (item == NULL)
            return run_error(RUN_FAIL, "out of memory");
        int m = rr->count[j] == 1 && !rr->sub[j] ? (leaves[0] = items[j], 1)
                                                 : run_rec_leaves(items[j], leaves, 4096, 0);
        if (m != rr->count[j] && !(rr->sub[j] && m >= 0)) {
            int rc = run_error(RUN_USAGE, "%s: field '%s' takes %lld value%s, got '%s'", label,
                               rr->names[j], (long long)rr->count[j],
                               rr->count[j] == 1 ? "" : "s", item);
            free(item);
            return rc;
        }
        free(item);
        if (rr->sub[j])
            return run_error(RUN_USAGE, "%s: field '%s': a subarray of records cannot be "
                             "written as a literal; use a .npy file", label, rr->names[j]);
        if (KRT_DTYPE_IS_CHARSEQ((krt_dtype)rr->dtype[j]))   /* str */
            return run_error(RUN_USAGE, "%s: field '%s': a char sequence (%s) cannot be "
                             "written as a literal; use a .npy file", label, rr->names[j],
                             run_dtype_name((krt_dtype)rr->dtype[j]));
        krt_param *ps = malloc(sizeof *ps * (size_t)k->nparams);
        if (ps == NULL)
            return run_error(RUN_FAIL, "out of memory");
        memcpy(ps, k->params, sizeof *ps * (size_t)k->nparams);
        ps[i].kind = KRT_PARAM_SCALAR;
        ps[i].dtype = (krt_dtype)rr->dtype[j];
        krt_kernel ks = *k;
        ks.params = ps;
        size_t es = krt_dtype_size((krt_dtype)rr->dtype[j]);
        int rc = RUN_OK;
        for (int e = 0; e < m && rc == RUN_OK; e++) {
            RunScalar v;
            memset(&v, 0, sizeof v);
            rc = run_parse_scalar(&ks, i, leaves[e], &v);
            memcpy(at + (size_t)e * es, &v, es);
        }
        free(ps);
        if (rc != RUN_OK)
            return rc;
    }
    return RUN_OK;
}

static int run_bind_record(Run *r, const krt_kernel *k, int i)
{
    const char *text = r->cfg.args[i];
    if (*run_skip_space(text) != '(')
        return run_check_array(r, k, i);
    RunRec *rr = run_param_record(k, i);
    if (rr == NULL)
        die("run_bind_record: no record for parameter %d of '%s'", i, k->name);
    RunArg *a = &r->args[i];
    if (a->loaded)
        return RUN_OK;
    npy_free(&a->host);
    memset(&a->host, 0, sizeof a->host);
    a->host.dtype = k->params[i].dtype;
    a->host.ndim = 0;
    a->host.nbytes = (size_t)rr->size;
    a->host.data = calloc(1, (size_t)rr->size);
    a->host.descr = strdup(rr->descr);
    char *t = strdup(text);
    if (a->host.data == NULL || a->host.descr == NULL || t == NULL)
        return run_error(RUN_FAIL, "out of memory");
    StrBuf label = {0};
    run_arg_label(&label, k, i);
    int rc = run_parse_record(k, i, rr, t, a->host.data, label.s);
    sb_free(&label);
    free(t);
    a->loaded = rc == RUN_OK;
    return rc;
}

/* Bind every ARG to kernel k; RUN_OK or the status of the first misfit. */
static int run_bind(Run *r, const krt_kernel *k)
{
    int rc = RUN_OK;
    for (int i = 0; i < k->nparams && rc == RUN_OK; i++) {
        if (k->params[i].kind == KRT_PARAM_ARRAY)
            rc = run_check_array(r, k, i);
        else if (k->params[i].kind == KRT_PARAM_RECORD)   /* rec: a .npy or a literal */
            rc = run_bind_record(r, k, i);
        else if (k->params[i].kind == KRT_PARAM_TUPLE)
            rc = run_bind_tuple(r, k, i);
        else
            rc = run_parse_scalar(k, i, r->cfg.args[i], &r->args[i].scalar);
    }
    return rc;
}

/* A typed scalar literal, TYPE(VALUE), as numba types a NumPy scalar
 * argument (float32(1.5), np.int16(-3), complex64(1+2j), bool_(true)):
 * the scalar TypeKind of TYPE (sema_type_alias: numba's or NumPy's name, or an alias), and
 * VALUE copied into buf; -1 for any other text. */
static int run_typed_literal(const char *text, char *buf, size_t size)
{
    const char *open = strchr(text, '(');
    size_t len = strlen(text);
    if (open == NULL || len < 3 || text[len - 1] != ')')
        return -1;
    const char *name = strncmp(text, "np.", 3) == 0 ? text + 3 : text;
    if (open <= name)
        return -1;
    size_t nlen = (size_t)(open - name), vlen = len - (size_t)(open - text) - 2;
    if (vlen == 0 || vlen >= size)
        return -1;
    char tname[32];
    if (nlen >= sizeof tname)
        return -1;
    memcpy(tname, name, nlen);
    tname[nlen] = '\0';
    const char *canon = sema_type_alias(sema_python_dtype(tname));
    if (canon != NULL && strcmp(canon, "bool_") == 0)
        canon = ty_scalar_info[TY_BOOL].name;
    for (int k = 0; canon != NULL && k < TY_NSCALAR; k++) {
        if (strcmp(ty_scalar_info[k].name, canon) == 0) {
            memcpy(buf, open + 1, vlen);
            buf[vlen] = '\0';
            return k;
        }
    }
    return -1;
}

/* The type Python gives a scalar ARG's literal: True/False boolean, an
 * integer int64, a complex number complex128, anything else float64; a
 * typed literal (run_typed_literal) the type it names. */
static int run_literal_kind(const char *text)
{
    uint64_t mag;
    bool neg, overflow;
    char value[128];
    int typed = run_typed_literal(text, value, sizeof value);
    if (typed >= 0)
        return typed;
    if (strcmp(text, "True") == 0 || strcmp(text, "False") == 0 || strcmp(text, "true") == 0 ||
        strcmp(text, "false") == 0)
        return TY_BOOL;
    if (strchr(text, 'j') != NULL)
        return TY_COMPLEX128;
    if (run_parse_int(text, &mag, &neg, &overflow))
        return TY_INT64;
    return TY_FLOAT64;
}

/* numba's rating of an overload that fits (its dispatcher's
 * _rate_arguments): the unsafe, safe and promoting conversions its scalar
 * parameters ask of the ARGs' literals. */
static void run_rate(const Run *r, const krt_kernel *k, int rate[3])
{
    rate[0] = rate[1] = rate[2] = 0;
    for (int i = 0; i < k->nparams; i++) {
        const ScalarInfo *info = ty_info_of_dtype(k->params[i].dtype);
        if (k->params[i].kind != KRT_PARAM_SCALAR || info == NULL)
            continue;
        int kind = ty_conversion_kind_of(run_literal_kind(r->cfg.args[i]),
                                         (int)(info - ty_scalar_info));
        rate[kind >= 3 ? 0 : kind == 2 ? 1 : 2] += kind >= 1;
    }
}

/* Find the kernel: of the overloads whose parameters fit the ARGs, the
 * one numba's dispatcher takes (run_rate: the fewest unsafe, then safe,
 * then promoting conversions; the first of equals). */
static int run_select_kernel(Run *r)
{
    const krt_module *m = r->module;
    const krt_kernel *cands[64];
    int ncands = 0;
    for (int i = 0; i < m->nkernels && ncands < 64; i++)
        if (strcmp(m->kernels[i]->name, r->cfg.kernel) == 0)
            cands[ncands++] = m->kernels[i];
    if (ncands == 0) {
        const char **names = calloc((size_t)m->nkernels + 1, sizeof *names);
        StrBuf list = {0};
        for (int i = 0; names != NULL && i < m->nkernels; i++)
            names[i] = m->kernels[i]->name;
        if (names != NULL)
            run_list_kernels(&list, names, m->nkernels);
        run_error(RUN_FAIL, "%s has no kernel '%s'; its kernels: %s", r->cfg.file,
                  r->cfg.kernel, list.s ? list.s : "");
        sb_free(&list);
        free(names);
        return RUN_FAIL;
    }

    r->args = calloc((size_t)r->cfg.nargs + 1, sizeof *r->args);
    if (r->args == NULL)
        return run_error(RUN_FAIL, "out of memory");

    /* Overloads (a list of signatures): the best rated of those whose
     * parameters the ARGs fit wins; only when none fits is each one's
     * misfit shown. */
    int nfit = 0;
    for (int c = 0; c < ncands; c++)
        nfit += cands[c]->nparams == r->cfg.nargs;
    int rc = RUN_USAGE, best = -1, best_rate[3] = {0, 0, 0}, last_ok = -1;
    run_quiet = nfit > 1;
    for (int c = 0; c < ncands; c++) {
        if (cands[c]->nparams != r->cfg.nargs)
            continue;
        int brc = run_bind(r, cands[c]);
        if (brc != RUN_OK) {
            rc = brc;
            continue;
        }
        last_ok = c;
        int rate[3];
        run_rate(r, cands[c], rate);
        if (best < 0 || rate[0] < best_rate[0] ||
            (rate[0] == best_rate[0] &&
             (rate[1] < best_rate[1] || (rate[1] == best_rate[1] && rate[2] < best_rate[2])))) {
            best = c;
            memcpy(best_rate, rate, sizeof rate);
        }
        if (rate[0] == 0 && rate[1] == 0 && rate[2] == 0)
            break;   /* exact: nothing rates better */
    }
    run_quiet = false;
    if (best >= 0) {
        /* the scalars bound last are those of the last fitting overload */
        if (best != last_ok && (rc = run_bind(r, cands[best])) != RUN_OK)
            return rc;
        r->kernel = cands[best];
        return RUN_OK;
    }
    if (nfit == 1)
        return rc;
    if (nfit > 1) {
        run_error(rc, "no signature of kernel '%s' fits the arguments:", r->cfg.kernel);
        for (int c = 0; c < ncands; c++) {
            if (cands[c]->nparams != r->cfg.nargs)
                continue;
            StrBuf sig = {0};
            run_signature(&sig, cands[c]);
            fprintf(stderr, "kernc run: note: with signature %s:\n", sig.s);
            sb_free(&sig);
            run_bind(r, cands[c]);
        }
        return rc;
    }

    /* No signature has that many parameters. */
    StrBuf msg = {0};
    for (int c = 0; c < ncands; c++) {
        int n = cands[c]->nparams;
        if (c == 0 || n != cands[c - 1]->nparams)
            sb_printf(&msg, "%s%d argument%s ", c == 0 ? "" : " or ", n, n == 1 ? "" : "s");
        else
            sb_puts(&msg, " or ");
        run_signature(&msg, cands[c]);
    }
    run_error(RUN_USAGE, "kernel '%s' takes %s, %d given", r->cfg.kernel, msg.s, r->cfg.nargs);
    sb_free(&msg);
    return RUN_USAGE;
}

/* ------------------------------------------------------------------ */
/* Step 4: launch and write back                                       */
/* ------------------------------------------------------------------ */

static int run_krt_error(int status)
{
    return run_error(RUN_FAIL, "%s: %s", krt_strerror(status), krt_last_error());
}

static int run_mkdirs(const char *dir)
{
    char *path = strdup(dir);
    if (path == NULL)
        return run_error(RUN_FAIL, "out of memory");
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            run_error(RUN_FAIL, "cannot create directory '%s': %s", path, strerror(e));
            free(path);
            return RUN_FAIL;
        }
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            run_error(RUN_FAIL, "'%s' is not a directory", path);
            free(path);
            return RUN_FAIL;
        }
        *p = saved;
        if (saved == '\0')
            break;
        while (p[1] == '/')
            p++;
    }
    free(path);
    return RUN_OK;
}

/* The bytes of one element of a host array (1 when it has none). */
static size_t run_itemsize(const NpyArray *h)
{
    int64_t n = 1;
    for (int d = 0; d < h->ndim; d++)
        n *= h->shape[d];
    return n > 0 ? h->nbytes / (size_t)n : 1;
}

/* Upload argument i (loaded on the host) and keep a copy of the input:
 * repeated launches start from it again, and it tells which arrays the
 * run changed. */
static int run_upload(RunArg *a, bool fortran)
{
    /* rec: a record scalar (a 0-d array) travels as one element */
    bool one = a->host.ndim == 0;
    int64_t shape1[1] = {1};
    int st;
    a->fortran = fortran && a->host.ndim > 1;
    if (a->fortran) {
        /* a [::1, :] parameter (numba's layout F, as np.asfortranarray
         * gives it): the elements in F order, which is the C order of the
         * reversed shape; the kernel gets the view with the real shape */
        int nd = a->host.ndim;
        size_t isz = run_itemsize(&a->host);
        int64_t rshape[KRT_MAX_NDIM], fstrides[KRT_MAX_NDIM];
        for (int d = 0; d < nd; d++) {
            rshape[d] = a->host.shape[nd - 1 - d];
            fstrides[d] = d ? fstrides[d - 1] * a->host.shape[d - 1] : (int64_t)isz;
        }
        void *f = malloc(a->host.nbytes ? a->host.nbytes : 1);
        if (f == NULL)
            return run_error(RUN_FAIL, "out of memory");
        npy_reorder(f, a->host.data, nd, a->host.shape, isz, true);
        st = krt_to_device(&a->dev, f, a->host.dtype, nd, rshape, NULL);
        free(f);
        if (st == KRT_OK)
            st = krt_array_view(&a->fview, a->dev, 0, nd, a->host.shape, fstrides);
    } else {
        st = krt_to_device(&a->dev, a->host.data, a->host.dtype, one ? 1 : a->host.ndim,
                           one ? shape1 : a->host.shape, NULL);
    }
    if (st != KRT_OK)
        return run_krt_error(st);
    a->on_device = true;
    a->orig = malloc(a->host.nbytes ? a->host.nbytes : 1);
    if (a->orig == NULL)
        return run_error(RUN_FAIL, "out of memory");
    memcpy(a->orig, a->host.data, a->host.nbytes);
    return RUN_OK;
}

/* One call of what is run: a kernel launch, a ufunc call, a reduction. */
typedef int (*RunCall)(Run *r, void *ctx);

static int run_compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* call() --repeat times (once by default), each time on the original
 * inputs (copied again, untimed), timing the call alone with two events
 * on the default stream under --time: the minimum and the median. */
static int run_timed(Run *r, RunCall call, void *ctx)
{
    int n = r->cfg.repeat;
    float *ms = calloc((size_t)n, sizeof *ms);
    krt_event *e0 = NULL, *e1 = NULL;
    int rc = ms == NULL ? run_error(RUN_FAIL, "out of memory") : RUN_OK;
    if (rc == RUN_OK && r->cfg.time) {
        int st = krt_event_create(&e0);
        if (st == KRT_OK)
            st = krt_event_create(&e1);
        if (st != KRT_OK)
            rc = run_krt_error(st);
    }
    for (int rep = 0; rep < n && rc == RUN_OK; rep++) {
        int st = KRT_OK;
        for (int i = 0; rep > 0 && i < r->cfg.nargs && st == KRT_OK; i++)
            if (r->args[i].on_device)
                st = krt_copy_to_device(r->args[i].dev, r->args[i].orig, NULL);
        if (st == KRT_OK)
            st = krt_synchronize();
        if (st == KRT_OK && e0 != NULL)
            st = krt_event_record(e0, NULL);
        if (st != KRT_OK) {
            rc = run_krt_error(st);
            break;
        }
        rc = call(r, ctx);
        if (rc != RUN_OK)
            break;
        if (e1 != NULL)
            st = krt_event_record(e1, NULL);
        if (st == KRT_OK)
            st = krt_synchronize();
        if (st == KRT_OK && e1 != NULL)
            st = krt_event_elapsed_ms(&ms[rep], e0, e1);
        if (st != KRT_OK)
            rc = run_krt_error(st);
    }
    if (rc == RUN_OK && r->cfg.time) {
        qsort(ms, (size_t)n, sizeof *ms, run_compare_float);
        double median = n % 2 ? ms[n / 2] : 0.5 * ((double)ms[n / 2 - 1] + ms[n / 2]);
        printf("time: min %.3f ms, median %.3f ms (%d launch%s, %s backend)\n", (double)ms[0],
               median, n, n == 1 ? "" : "es", krt_backend_name());
    }
    if (e0 != NULL)
        krt_event_destroy(e0);
    if (e1 != NULL)
        krt_event_destroy(e1);
    free(ms);
    return rc;
}

static int run_launch_once(Run *r, void *argv)
{
    krt_launch_cfg cfg = {r->cfg.grid, r->cfg.block, r->cfg.shared, NULL};
    /* issue 11: the kernel's 32-bit variant where the launch allows it
     * (krt_i32_<base>: by the index in the module's table) */
    const krt_kernel *k = r->kernel;
    const krt_kernel *const *v32 = run_find_symbol(r, "krt_i32_");
    for (int j = 0; v32 && r->module && j < r->module->nkernels; j++)
        if (r->module->kernels[j] == r->kernel && v32[j] && krt_launch_fits32(r->kernel, &cfg, argv))
            k = v32[j];
    int st = krt_launch(k, cfg, argv);
    return st == KRT_OK ? RUN_OK : run_krt_error(st);
}

static int run_launch(Run *r)
{
    const krt_kernel *k = r->kernel;
    void **argv = calloc((size_t)k->nparams + 1, sizeof *argv);
    if (argv == NULL)
        return run_error(RUN_FAIL, "out of memory");
    int rc = RUN_OK;
    for (int i = 0; i < k->nparams && rc == RUN_OK; i++) {
        RunArg *a = &r->args[i];
        if (k->params[i].kind != KRT_PARAM_ARRAY && k->params[i].kind != KRT_PARAM_RECORD) {
            argv[i] = k->params[i].kind == KRT_PARAM_TUPLE ? (void *)a->tuple : (void *)&a->scalar;
            continue;
        }
        rc = run_upload(a, k->params[i].contiguous == 2);
        if (rc == RUN_OK) {
            int st = krt_check_array(k, i, a->fortran ? &a->fview : &a->dev, &a->view);
            if (st != KRT_OK)
                rc = run_krt_error(st);
        }
        /* rec: a record parameter gets the record's device address */
        argv[i] = k->params[i].kind == KRT_PARAM_RECORD ? (void *)&a->view.data : (void *)&a->view;
    }
    if (rc == RUN_OK)
        rc = run_timed(r, run_launch_once, argv);
    free(argv);
    return rc;
}

/* Every argument that went to the device comes back into its host copy. */
static int run_fetch(Run *r)
{
    for (int i = 0; i < r->cfg.nargs; i++) {
        RunArg *a = &r->args[i];
        if (!a->on_device)
            continue;
        if (a->fortran) {   /* back from F order into the host's C order */
            void *f = malloc(a->host.nbytes ? a->host.nbytes : 1);
            if (f == NULL)
                return run_error(RUN_FAIL, "out of memory");
            int st = krt_copy_to_host(f, a->dev, NULL);
            if (st == KRT_OK)
                npy_reorder(a->host.data, f, a->host.ndim, a->host.shape,
                            run_itemsize(&a->host), false);
            free(f);
            if (st != KRT_OK)
                return run_krt_error(st);
            continue;
        }
        int st = krt_copy_to_host(a->host.data, a->dev, NULL);
        if (st != KRT_OK)
            return run_krt_error(st);
    }
    return RUN_OK;
}

/* The arrays, as NumPy prints them: those the run changed in full (or
 * elided), the others on one line. */
static int run_print_arrays(Run *r, const char *const *names)
{
    if (r->cfg.quiet)
        return RUN_OK;
    for (int i = 0; i < r->cfg.nargs; i++) {
        RunArg *a = &r->args[i];
        if (!a->on_device)
            continue;
        printf("arg%d %s: shape (", i, names[i]);
        for (int d = 0; d < a->host.ndim; d++)
            printf("%s%lld", d ? ", " : "", (long long)a->host.shape[d]);
        printf("%s), %s", a->host.ndim == 1 ? "," : "", krt_dtype_name(a->host.dtype));
        if (memcmp(a->orig, a->host.data, a->host.nbytes) == 0) {
            puts(", unchanged");
            continue;
        }
        putchar('\n');
        char *text = npy_str(&a->host, r->cfg.print_whole);
        if (text == NULL)
            return run_error(RUN_FAIL, "out of memory");
        puts(text);
        free(text);
    }
    fflush(stdout);
    return RUN_OK;
}

/* With --outdir, every argument that went to the device (the arrays of a
 * kernel, of a ufunc or of a reduction) comes back as DIR/argI.npy. */
static int run_write_outputs(Run *r)
{
    if (r->cfg.outdir == NULL)
        return RUN_OK;
    int rc = run_mkdirs(r->cfg.outdir);
    for (int i = 0; i < r->cfg.nargs && rc == RUN_OK; i++) {
        RunArg *a = &r->args[i];
        if (!a->on_device)
            continue;
        char path[4096 + 32];
        snprintf(path, sizeof path, "%s/arg%d.npy", r->cfg.outdir, i);
        char err[NPY_ERR_MAX];
        if (npy_write(path, &a->host, err, sizeof err) != 0)
            rc = run_error(RUN_FAIL, "%s", err);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* @vectorize, @guvectorize, cuda.reduce                               */
/* ------------------------------------------------------------------ */

/* A stand-in kernel description of one signature's operands, so that the
 * scalar parser above labels and range-checks them as kernel arguments. */
typedef struct RunUfuncParams {
    krt_kernel k;
    krt_param *p;                  /* malloc'd: one per operand, as many as
                                      the signature has */
} RunUfuncParams;

static int run_ufunc_params(const krt_ufunc *u, RunUfuncParams *out)
{
    memset(out, 0, sizeof *out);
    int n = u->kind == KRT_UFUNC_REDUCE ? 2 : u->nin + u->nout;
    out->p = calloc((size_t)n, sizeof *out->p);
    if (out->p == NULL)
        return run_error(RUN_FAIL, "out of memory");
    out->k.name = u->name;
    out->k.params = out->p;
    out->k.nparams = n;
    if (u->kind == KRT_UFUNC_REDUCE) {
        out->p[0] = (krt_param){"in", KRT_PARAM_ARRAY, u->operands[0].dtype, 1, 0};
        out->p[1] = (krt_param){"init", KRT_PARAM_SCALAR, u->operands[0].dtype, 0, 0};
        return RUN_OK;
    }
    for (int i = 0; i < n; i++) {
        const krt_ufunc_operand *o = &u->operands[i];
        out->p[i] = (krt_param){o->name, o->scalar_ok ? KRT_PARAM_SCALAR : KRT_PARAM_ARRAY,
                                o->dtype, o->view_ndim, 0};
    }
    return RUN_OK;
}

/* Bind the ARGs to one signature: .npy files of the operand's dtype (any
 * number of loop dimensions; the runtime checks the shapes), or, where the
 * signature takes a scalar and ARG is no file, a literal. */
static int run_ufunc_bind(Run *r, const krt_ufunc *u)
{
    RunUfuncParams P;
    int rc = run_ufunc_params(u, &P);
    int nops = u->kind == KRT_UFUNC_REDUCE ? 1 : u->nin + u->nout;
    for (int i = 0; i < r->cfg.nargs && rc == RUN_OK; i++) {
        RunArg *a = &r->args[i];
        const char *path = r->cfg.args[i];
        const krt_param *p = &P.p[i];
        struct stat st;
        if (i >= nops || (p->kind == KRT_PARAM_SCALAR && !run_is_generator(path) &&
                          stat(path, &st) != 0)) {
            rc = run_parse_scalar(&P.k, i, path, &a->scalar);
            a->loaded = false;
            continue;
        }
        /* the inputs choose the signature; the outputs follow it */
        bool numpy_defaults = run_numpy_defaults;
        if (u->kind != KRT_UFUNC_REDUCE && i >= u->nin)
            run_numpy_defaults = false;
        rc = run_load(a, &P.k, i, path);
        run_numpy_defaults = numpy_defaults;
        if (rc != RUN_OK)
            break;
        StrBuf label = {0};
        run_arg_label(&label, &P.k, i);
        if (a->load_failed)
            rc = run_error(RUN_FAIL, "%s: %s", label.s, a->load_err);
        else if (a->host.dtype != p->dtype)
            rc = run_error(RUN_FAIL, "%s: %s holds %s data, expected %s", label.s, path,
                           run_dtype_name(a->host.dtype), run_dtype_name(p->dtype));
        else if (a->host.ndim < 1 || (u->kind == KRT_UFUNC_REDUCE && a->host.ndim != 1))
            rc = run_error(RUN_FAIL, "%s: %s has %d dimensions, expected %s", label.s, path,
                           a->host.ndim, u->kind == KRT_UFUNC_REDUCE ? "1" : "at least 1");
        sb_free(&label);
    }
    free(P.p);
    return rc;
}

/* Choose the signature whose operand dtypes the ARGs have. */
static int run_ufunc_select(Run *r)
{
    const krt_ufunc *cands[256];
    int ncands = 0;
    for (int i = 0; i < r->ufuncs->nufuncs && ncands < 256; i++)
        if (strcmp(r->ufuncs->ufuncs[i]->name, r->cfg.kernel) == 0)
            cands[ncands++] = r->ufuncs->ufuncs[i];
    if (ncands == 0)
        return run_error(RUN_FAIL, "%s has no compiled signature of '%s'", r->cfg.file,
                         r->cfg.kernel);
    r->args = calloc((size_t)r->cfg.nargs + 1, sizeof *r->args);
    if (r->args == NULL)
        return run_error(RUN_FAIL, "out of memory");
    const krt_ufunc *u0 = cands[0];
    bool reduce = u0->kind == KRT_UFUNC_REDUCE;
    int want = reduce ? 1 : u0->nin + u0->nout;
    if (r->cfg.nargs != want && !(reduce && r->cfg.nargs == 2))
        return run_error(RUN_USAGE, "%s '%s' takes %s%d argument%s, %d given",
                         reduce ? "cuda.reduce" : "ufunc", r->cfg.kernel,
                         reduce ? "the array and an optional init: " : "its inputs, then its "
                         "outputs: ", want, want == 1 ? "" : "s", r->cfg.nargs);
    run_quiet = ncands > 1;
    run_numpy_defaults = ncands > 1;
    int rc = RUN_USAGE;
    for (int c = 0; c < ncands; c++) {
        rc = run_ufunc_bind(r, cands[c]);
        if (rc == RUN_OK) {
            run_quiet = false;
            r->ufunc = cands[c];
            return RUN_OK;
        }
    }
    run_quiet = false;
    if (ncands == 1)
        return rc;
    run_error(rc, "no signature of '%s' fits the arguments:", r->cfg.kernel);
    for (int c = 0; c < ncands; c++) {
        fprintf(stderr, "kernc run: note: with signature %s:\n", cands[c]->signature);
        run_ufunc_bind(r, cands[c]);
    }
    return rc;
}

/* A value as Python prints it: the shortest text that reads back. */
static void run_print_scalar(krt_dtype t, const RunScalar *v)
{
    char buf[64];
    const ScalarInfo *info = ty_info_of_dtype(t);
    if (!info)
        die("run_print_scalar: dtype %d", (int)t);
    switch (info->cls) {
    case SC_FLOAT: case SC_HALF: case SC_BF16: {
        double d = t == KRT_FLOAT32 ? (double)v->f32
                 : t == KRT_FLOAT16 ? krt_half_to_double(v->f16)
                 : t == KRT_BFLOAT16 ? krt_bfloat16_to_double(v->bf16) : v->f64;
        if (isnan(d)) {
            puts("nan");
            return;
        }
        if (isinf(d)) {
            puts(d > 0 ? "inf" : "-inf");
            return;
        }
        /* Python's repr: the fewest digits that read back, positional
         * for exponents from -4 to 15, else scientific. */
        int prec = 1;
        for (; prec < 17; prec++) {
            snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
            if (t == KRT_FLOAT16 ? krt_half_bits_from_double(strtod(buf, NULL)) == v->f16.bits
                : t == KRT_BFLOAT16 ? krt_bfloat16_bits_from_double(strtod(buf, NULL)) == v->bf16.bits
                : t == KRT_FLOAT32 ? strtof(buf, NULL) == v->f32 : strtod(buf, NULL) == d)
                break;
        }
        int exp = atoi(strchr(buf, 'e') + 1);
        if (exp >= -4 && exp < 16) {
            int decimals = prec - 1 - exp;
            snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, d);
            if (!strchr(buf, '.'))
                strcat(buf, ".0");
        }
        puts(buf);
        return;
    }
    case SC_SINT: printf("%lld\n", (long long)(int64_t)run_load_int(v, info)); return;
    case SC_UINT: printf("%llu\n", (unsigned long long)run_load_int(v, info)); return;
    case SC_BOOL: printf("%u\n", v->b); return;
    case SC_COMPLEX:
        run_complex_repr(buf, sizeof buf, t == KRT_COMPLEX64 ? v->c64.re : v->c128.re,
                         t == KRT_COMPLEX64 ? v->c64.im : v->c128.im, t == KRT_COMPLEX64);
        puts(buf);
        return;
    }
    die("run_print_scalar: no printer for %s", info->name);
}

typedef struct RunUfuncCall {
    const krt_array **arrays;
    RunScalar init, result;
} RunUfuncCall;

static int run_ufunc_once(Run *r, void *ctx)
{
    RunUfuncCall *c = ctx;
    int st = krt_ufunc_call(r->ufunc, c->arrays, NULL);
    return st == KRT_OK ? RUN_OK : run_krt_error(st);
}

static int run_reduce_once(Run *r, void *ctx)
{
    RunUfuncCall *c = ctx;
    int st = krt_reduce_call(r->ufunc, r->args[0].dev, &c->init, &c->result, NULL, NULL);
    return st == KRT_OK ? RUN_OK : run_krt_error(st);
}

/* Call the host side of the chosen signature; arrays are printed and go
 * back to the outdir as for kernels, a reduction's result to stdout. */
static int run_ufunc(Run *r)
{
    int rc = run_ufunc_select(r);
    if (rc != RUN_OK)
        return rc;
    const krt_ufunc *u = r->ufunc;
    const krt_array **arrays = calloc((size_t)r->cfg.nargs + 1, sizeof *arrays);
    krt_array *scal = calloc((size_t)r->cfg.nargs + 1, sizeof *scal);
    if (arrays == NULL || scal == NULL) {
        free(arrays);
        free(scal);
        return run_error(RUN_FAIL, "out of memory");
    }
    for (int i = 0; i < r->cfg.nargs && rc == RUN_OK; i++) {
        RunArg *a = &r->args[i];
        if (a->loaded) {
            rc = run_upload(a, false);
            arrays[i] = &a->dev;
        } else {
            int st = krt_host_scalar(&scal[i],
                                     u->operands[u->kind == KRT_UFUNC_REDUCE ? 0 : i].dtype,
                                     &a->scalar);
            arrays[i] = &scal[i];
            if (st != KRT_OK)
                rc = run_krt_error(st);
        }
    }
    RunUfuncCall call = {arrays, {0}, {0}};
    if (rc == RUN_OK && u->kind == KRT_UFUNC_REDUCE) {
        if (r->cfg.nargs == 2)
            call.init = r->args[1].scalar;
        rc = run_timed(r, run_reduce_once, &call);
        if (rc == RUN_OK)
            run_print_scalar(u->operands[0].dtype, &call.result);
    } else if (rc == RUN_OK) {
        rc = run_timed(r, run_ufunc_once, &call);
        if (rc == RUN_OK)
            rc = run_fetch(r);
        const char **names = calloc((size_t)r->cfg.nargs + 1, sizeof *names);
        for (int i = 0; names != NULL && i < r->cfg.nargs; i++)
            names[i] = u->operands[i].name;
        if (rc == RUN_OK)
            rc = names == NULL ? run_error(RUN_FAIL, "out of memory")
                               : run_print_arrays(r, names);
        free(names);
    }
    free(arrays);
    free(scal);
    return rc == RUN_OK ? run_write_outputs(r) : rc;
}

/* ------------------------------------------------------------------ */
/* Entry                                                               */
/* ------------------------------------------------------------------ */

static int run_all(Run *r)
{
    /* Choose the backend first: it decides what to generate. */
    if (r->cfg.backend != NULL) {
        int st = krt_set_backend(r->cfg.backend);
        if (st != KRT_OK)
            return run_krt_error(st);
    }
    int st = krt_synchronize();   /* initialises the backend, or says why not */
    if (st != KRT_OK)
        return run_krt_error(st);
    bool cuda = strcmp(krt_backend_name(), "cuda") == 0;

    StrBuf code = {0};
    int rc = run_translate(r, cuda, &code);
    if (rc == RUN_OK)
        rc = run_build(r, cuda, &code);
    sb_free(&code);
    arena_free_all();
    if (rc == RUN_OK && r->is_ufunc)
        return run_ufunc(r);
    if (rc == RUN_OK)
        rc = run_select_kernel(r);
    if (rc == RUN_OK)
        rc = run_launch(r);
    if (rc == RUN_OK)
        rc = run_fetch(r);
    if (rc == RUN_OK) {
        const char **names = calloc((size_t)r->cfg.nargs + 1, sizeof *names);
        for (int i = 0; names != NULL && i < r->kernel->nparams; i++)
            names[i] = r->kernel->params[i].name;
        rc = names == NULL ? run_error(RUN_FAIL, "out of memory") : run_print_arrays(r, names);
        free(names);
    }
    if (rc == RUN_OK)
        rc = run_write_outputs(r);
    return rc;
}

int run_main(int argc, char **argv)
{
    Run r;
    memset(&r, 0, sizeof r);
    int rc = run_parse_args(argc, argv, &r.cfg);
    if (rc < 0)
        return RUN_OK;                 /* --help */
    if (rc != RUN_OK)
        return rc;
    diag_set_color(DIAG_COLOR_AUTO);
    rc = run_all(&r);
    diag_summary();
    run_cleanup(&r);
    return rc;
}
