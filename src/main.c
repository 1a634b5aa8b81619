/*
 * main.c - the `kernc` command: options, the pass pipeline, output files.
 *
 *   kernc [options] FILE.kern      translate (SPEC section 2)
 *   kernc run FILE.kern KERNEL ... translate, build and launch (run.c)
 *
 * The pipeline is parse -> analyze (resolve + type) -> check -> emit, each
 * pass reporting through diag.c; after any pass that reported an error the
 * driver stops with status 1 and writes nothing.  Outputs are written to a
 * temporary file in the destination's directory and renamed into place only
 * when all of them are complete, so an error never leaves a clobbered or
 * half-written file behind.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kernc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

static const char usage_text[] =
    "Usage: kernc [options] FILE.kern\n"
    "       kernc run FILE.kern KERNEL [run options] ARG...\n"
    "\n"
    "Translate numba.cuda kernels (FILE.kern) into CUDA C and a C header\n"
    "with one typed launcher per kernel.\n"
    "\n"
    "Options:\n"
    "  -o FILE                 write the code to FILE (default: FILE.cu, or\n"
    "                          FILE.c with --target c)\n"
    "  --header FILE           write the launcher header to FILE\n"
    "                          (default: FILE.kern.h)\n"
    "  --target cuda|c         CUDA C (default), or C for the CPU backend\n"
    "  --signature NAME=SIG    type kernel NAME with SIG, e.g.\n"
    "                          'saxpy=void(float32[:], float32)'; repeatable\n"
    "  -g                      bounds checks and debug code (like debug=True)\n"
    "  -Werror                 make warnings errors\n"
    "  -M                      print a make rule for the outputs and exit\n"
    "  -MD                     also write that rule to OUTPUT.d\n"
    "  --version               print the version and exit\n"
    "  --help                  print this help and exit\n"
    "\n"
    "Run 'kernc run --help' for the options of 'kernc run'.\n";

static void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("kernc: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The whole file, NUL-terminated (the scanner reads it as bytes; a NUL
 * inside is reported by parse_source, at its line and column). */
static bool read_file(const char *path, Source *src)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    StrBuf b = {0};
    char chunk[65536];
    size_t n;
    sb_puts(&b, "");
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        for (size_t i = 0; i < n; i++)
            sb_putc(&b, chunk[i]);
    }
    bool ok = !ferror(f);
    if (!ok)
        cli_error("cannot read '%s': %s", path, strerror(errno));
    fclose(f);
    if (ok) {
        src->path = path;
        src->text = arena_strndup(b.s, b.len);
        src->len = b.len;
    }
    sb_free(&b);
    return ok;
}

/* ---- output files ---- */

typedef struct Output {
    const char *path;
    StrBuf text;
    char *tmp;        /* the temporary it was written to */
} Output;

static bool write_temp(Output *o)
{
    o->tmp = arena_printf("%s.tmpXXXXXX", o->path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        cli_error("cannot create '%s': %s", o->tmp, strerror(errno));
        o->tmp = NULL;
        return false;
    }
    /* mkstemp makes 0600; outputs are ordinary files */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    const char *p = o->text.s ? o->text.s : "";
    size_t left = o->text.len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            cli_error("cannot write '%s': %s", o->tmp, strerror(errno));
            close(fd);
            return false;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0) {
        cli_error("cannot write '%s': %s", o->tmp, strerror(errno));
        return false;
    }
    return true;
}

/* All or nothing: every output goes to a temporary first. */
static bool write_outputs(Output *outs, int n)
{
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = write_temp(&outs[i]);
    for (int i = 0; i < n && ok; i++)
        if (rename(outs[i].tmp, outs[i].path) != 0) {
            cli_error("cannot write '%s': %s", outs[i].path, strerror(errno));
            ok = false;
        } else {
            outs[i].tmp = NULL;
        }
    for (int i = 0; i < n; i++)
        if (outs[i].tmp)
            unlink(outs[i].tmp);
    return ok;
}

/* A path for a make rule: spaces and '$' escaped. */
static void put_make_path(StrBuf *b, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#')
            sb_putc(b, '\\');
        if (*p == '$')
            sb_putc(b, '$');
        sb_putc(b, *p);
    }
}

static void make_rule(StrBuf *b, const char *output, const char *header, const char *input)
{
    put_make_path(b, output);
    sb_putc(b, ' ');
    put_make_path(b, header);
    sb_puts(b, ": ");
    put_make_path(b, input);
    sb_putc(b, '\n');
}

/* ---- options ---- */

/* "--name VALUE" or "--name=VALUE"; advances *i past what it used. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        cli_error("option '%s' needs a value", name);
        exit(1);
    }
    return argv[++*i];
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return run_main(argc - 1, argv + 1);

    Options opt = {0};
    bool dep_only = false, dep_file = false, dump_ast = false;
    PtrVec sigs = {0};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("kernc %s\n", PACKAGE_VERSION);
            return 0;
        } else if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                cli_error("option '-o' needs a value");
                return 1;
            }
            opt.output = argv[++i];
        } else if ((v = option_value(argc, argv, &i, "--header"))) {
            opt.header = v;
        } else if ((v = option_value(argc, argv, &i, "--target"))) {
            if (strcmp(v, "c") == 0)
                opt.target_c = true;
            else if (strcmp(v, "cuda") == 0)
                opt.target_c = false;
            else {
                cli_error("unknown target '%s' (use 'cuda' or 'c')", v);
                return 1;
            }
        } else if ((v = option_value(argc, argv, &i, "--signature"))) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) {
                cli_error("--signature wants NAME=SIGNATURE, e.g. 'saxpy=void(float32[:])', "
                          "not '%s'", v);
                return 1;
            }
            SigOverride *s = arena_alloc(sizeof *s);
            s->kernel = arena_strndup(v, (size_t)(eq - v));
            s->sig = arena_strdup(eq + 1);
            vec_push(&sigs, s);
        } else if (strcmp(a, "-g") == 0) {
            opt.debug = true;
        } else if (strcmp(a, "-Werror") == 0) {
            diag_werror = true;
        } else if (strcmp(a, "-M") == 0) {
            dep_only = true;
        } else if (strcmp(a, "-MD") == 0) {
            dep_file = true;
        } else if (strcmp(a, "--dump-ast") == 0) {
            dump_ast = true;
        } else if (strcmp(a, "--") == 0) {
            if (i + 1 < argc && !opt.input)
                opt.input = argv[++i];
            if (i + 1 < argc) {
                cli_error("only one input file, please ('%s')", argv[i + 1]);
                return 1;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_error("unknown option '%s'", a);
            fputs("Try 'kernc --help'.\n", stderr);
            return 1;
        } else if (opt.input) {
            cli_error("only one input file, please ('%s' and '%s')", opt.input, a);
            return 1;
        } else {
            opt.input = a;
        }
    }
    if (!opt.input) {
        cli_error("no input file");
        fputs("Try 'kernc --help'.\n", stderr);
        return 1;
    }
    opt.sigs = arena_alloc(sizeof *opt.sigs * (size_t)(sigs.len ? sigs.len : 1));
    for (int i = 0; i < sigs.len; i++)
        opt.sigs[i] = *(SigOverride *)sigs.items[i];
    opt.nsigs = sigs.len;

    /* FILE.kern -> FILE.cu / FILE.c and FILE.kern.h */
    size_t len = strlen(opt.input);
    size_t stem = len > 5 && strcmp(opt.input + len - 5, ".kern") == 0 ? len - 5 : len;
    if (!opt.output)
        opt.output = arena_printf("%.*s%s", (int)stem, opt.input, opt.target_c ? ".c" : ".cu");
    if (!opt.header)
        opt.header = arena_printf("%.*s.kern.h", (int)stem, opt.input);

    Source src = {0};
    if (!read_file(opt.input, &src))
        return 1;
    diag_init(&src);

    if (dep_only) {
        StrBuf rule = {0};
        make_rule(&rule, opt.output, opt.header, opt.input);
        fputs(rule.s, stdout);
        sb_free(&rule);
        return 0;
    }

    Node *module = parse_source(&src);
    if (!module || error_count() > 0)
        return 1;
    if (dump_ast) {
        ast_dump(stdout, module, 0);
        return 0;
    }

    types_init();
    Program *prog = analyze(module, &opt);
    if (!prog || error_count() > 0)
        return 1;
    check_program(prog, &opt);
    if (error_count() > 0)
        return 1;

    Output outs[3] = {{0}};
    int nouts = 0;
    outs[nouts].path = opt.output;
    if (opt.target_c)
        emit_c(&outs[nouts].text, prog, &opt);
    else
        emit_cuda(&outs[nouts].text, prog, &opt);
    nouts++;
    outs[nouts].path = opt.header;
    emit_header(&outs[nouts].text, prog, &opt);
    nouts++;
    if (dep_file) {
        outs[nouts].path = arena_printf("%s.d", opt.output);
        make_rule(&outs[nouts].text, opt.output, opt.header, opt.input);
        nouts++;
    }
    bool ok = error_count() == 0 && write_outputs(outs, nouts);
    for (int i = 0; i < nouts; i++)
        sb_free(&outs[i].text);
    arena_free_all();
    return ok ? 0 : 1;
}
