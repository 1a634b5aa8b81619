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
 * half-written file behind; devices, FIFOs and "-" (standard output) are
 * written through instead (see write_outputs).  Every exit after the input
 * was read goes through finish(), which prints the closing count.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kernc.h"
#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

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
    "                          FILE.c with --target c); '-' is standard output\n"
    "  --header FILE           write the launcher header to FILE\n"
    "                          (default: FILE.kern.h)\n"
    "  --target cuda|c         CUDA C (default), or C for the CPU backend\n"
    "  --signature NAME=SIG    type kernel NAME with SIG, e.g.\n"
    "                          'saxpy=void(float32[:], float32)'; repeatable\n"
    "  -g                      bounds checks and debug code (like debug=True)\n"
    "  --module-name NAME      NAME_ in front of every kernel's launcher and symbol\n"
    "                          (and krt_module_NAME): two files with the same\n"
    "                          kernel names in one program\n"
    "  --racecheck             -g, and the CPU code reports shared-memory races\n"
    "                          (two threads, one access a write, no barrier between)\n"
    "  --assume-noalias        the array arguments of a kernel never overlap:\n"
    "                          __restrict__ pointers, read-only arrays through\n"
    "                          the read-only cache (CUDA)\n"
    "  -Werror                 make warnings errors\n"
    "  -Werror=NAME            make warning NAME an error (-Wno-error=NAME: not)\n"
    "  -Wno-NAME               do not report warning NAME (-WNAME: do; -Wall:\n"
    "                          every warning, as by default); the warnings:\n";
static const char usage_text2[] =
    "  -w                      do not report warnings\n"
    "  -fsyntax-only           check the file, write nothing\n"
    "  -ftime-report           print the time and memory of each pass on stderr, as gcc does\n"
    "  -fdiagnostics-color[=WHEN]\n"
    "                          colour diagnostics: auto (default: on a terminal,\n"
    "                          unless NO_COLOR is set), always, never\n"
    "  --print-nvcc-flags      print the nvcc flags the kernels' options ask for\n"
    "                          (-lineinfo for lineinfo=True, -rdc=true for foreign\n"
    "                          functions) and exit\n"
    "  --print-link-files      print the CUDA C files cuda.declare_device links and exit\n"
    "  --print-link-cflags     print the flags a C++ compiler builds them with for the\n"
    "                          CPU backend and exit\n"
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
    diag_cli_prefix(stderr, "kernc");
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
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_putn(&b, chunk, n);
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

/* How an output reaches its destination.  Regular files (and names that do
 * not exist yet) are written to a temporary in the destination's directory
 * and renamed into place at the end, so that an error leaves no clobbered
 * or half-written file.  Anything else is written through, as gcc does:
 * a device (/dev/null), a FIFO or a socket opened for writing, standard
 * output for "-"; renaming over them would replace the node itself.  A
 * symlink is followed: the temporary goes next to the file it names, so the
 * link stays a link. */
typedef enum OutKind { OUT_RENAME, OUT_THROUGH, OUT_STDOUT } OutKind;

typedef struct Output {
    const char *path;             /* as given (for messages) */
    StrBuf text;
    OutKind kind;
    const char *dest;             /* what is renamed over: path, or a symlink's target */
    char *tmp;                    /* the temporary it was written to */
} Output;

static bool write_all(int fd, const StrBuf *text, const char *what)
{
    const char *p = text->s ? text->s : "";
    size_t left = text->len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            cli_error("cannot write '%s': %s", what, strerror(errno));
            return false;
        }
        p += w;
        left -= (size_t)w;
    }
    return true;
}

/* Decide how o is written, before anything is: a directory (or a symlink
 * to one) is refused here, so it cannot fail after another output was
 * already renamed into place. */
static bool classify_output(Output *o)
{
    struct stat st;
    o->dest = o->path;
    if (strcmp(o->path, "-") == 0) {
        o->kind = OUT_STDOUT;
        return true;
    }
    if (lstat(o->path, &st) != 0) {
        if (errno != ENOENT) {
            cli_error("cannot write '%s': %s", o->path, strerror(errno));
            return false;
        }
        o->kind = OUT_RENAME;
        return true;
    }
    if (S_ISLNK(st.st_mode)) {
        char *target = realpath(o->path, NULL);
        if (target && stat(target, &st) == 0 && S_ISREG(st.st_mode)) {
            o->dest = arena_strdup(target);
            free(target);
            o->kind = OUT_RENAME;
            return true;
        }
        free(target);
        /* A dangling link, or one to a device or FIFO: through the link. */
        if (stat(o->path, &st) != 0) {
            o->kind = OUT_THROUGH;
            return true;
        }
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': %s", o->path, strerror(EISDIR));
        return false;
    }
    o->kind = S_ISREG(st.st_mode) ? OUT_RENAME : OUT_THROUGH;
    return true;
}

static bool write_temp(Output *o)
{
    o->tmp = arena_printf("%s.tmpXXXXXX", o->dest);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        cli_error("cannot create '%s': %s", o->tmp, strerror(errno));
        o->tmp = NULL;
        return false;
    }
    /* mkstemp makes 0600; outputs are ordinary files, or keep the mode of
     * the file they replace */
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    if (stat(o->dest, &st) == 0)
        fchmod(fd, st.st_mode & 07777);
    else
        fchmod(fd, 0666 & ~mask);
    bool ok = write_all(fd, &o->text, o->tmp);
    if (close(fd) != 0 && ok) {
        cli_error("cannot write '%s': %s", o->tmp, strerror(errno));
        ok = false;
    }
    return ok;
}

static bool write_through(Output *o)
{
    if (o->kind == OUT_STDOUT) {
        fflush(stdout);
        return write_all(STDOUT_FILENO, &o->text, "standard output");
    }
    int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY, 0666);
    if (fd < 0) {
        cli_error("cannot write '%s': %s", o->path, strerror(errno));
        return false;
    }
    bool ok = write_all(fd, &o->text, o->path);
    if (close(fd) != 0 && ok) {
        cli_error("cannot write '%s': %s", o->path, strerror(errno));
        ok = false;
    }
    return ok;
}

/* tmp renamed over dest.  Where dest exists, Linux swaps the two names at
 * once (renameat2's RENAME_EXCHANGE) and tmp's name, now the old text, is
 * unlinked: ext4 writes a file renamed over another out to disk before the
 * rename returns (auto_da_alloc), 28 ms for a 33 MB output, where the swap
 * and unlink take 10.  Elsewhere, and where the swap fails (no dest, a file
 * system without it), rename(). */
static int replace_file(const char *tmp, const char *dest)
{
#if defined(__linux__) && defined(SYS_renameat2)
    if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, dest, 2 /* RENAME_EXCHANGE */) == 0) {
        unlink(tmp);
        return 0;
    }
#endif
    return rename(tmp, dest);
}

/* All or nothing, as far as the file system allows: every regular output
 * is complete in its temporary before the first written-through output is
 * sent and before the first rename. */
static bool write_outputs(Output *outs, int n)
{
    bool ok = true;
    int nstdout = 0;
    for (int i = 0; i < n && ok; i++) {
        ok = classify_output(&outs[i]);
        if (ok && outs[i].kind == OUT_STDOUT && ++nstdout > 1) {
            cli_error("only one output can go to standard output ('-')");
            ok = false;
        }
    }
    for (int i = 0; i < n && ok; i++)
        if (outs[i].kind == OUT_RENAME)
            ok = write_temp(&outs[i]);
    for (int i = 0; i < n && ok; i++)
        if (outs[i].kind != OUT_RENAME)
            ok = write_through(&outs[i]);
    for (int i = 0; i < n && ok; i++)
        if (outs[i].tmp) {
            if (replace_file(outs[i].tmp, outs[i].dest) != 0) {
                cli_error("cannot write '%s': %s", outs[i].path, strerror(errno));
                ok = false;
            } else {
                outs[i].tmp = NULL;
            }
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
    if (strcmp(output, header) != 0) {
        sb_putc(b, ' ');
        put_make_path(b, header);
    }
    sb_puts(b, ": ");
    put_make_path(b, input);
    /* dev (issue 9): the CUDA C files cuda.declare_device links (ffi.c) */
    for (int i = 0; i < ffi_nlinks(); i++) {
        sb_putc(b, ' ');
        put_make_path(b, ffi_link(i));
    }
    sb_putc(b, '\n');
}

/* dev (issue 9): --print-link-files, --print-link-cflags (ffi.c): the
 * files to link and the flags a host C++ compiler builds them with for the
 * CPU backend; one line each, empty when the file links nothing. */
static void print_links(bool cflags)
{
    StrBuf b = {0};
    if (cflags && ffi_count()) {
        sb_puts(&b, "-x c++ -include kernrt_cuda_compat.h");
        for (int i = 0; i < ffi_count(); i++)
            sb_printf(&b, " -D%s=%s__krt_cpu", ffi_get(i)->name, ffi_get(i)->name);
    }
    for (int i = 0; !cflags && i < ffi_nlinks(); i++)
        sb_printf(&b, "%s%s", i ? " " : "", ffi_link(i));
    printf("%s\n", b.s ? b.s : "");
    sb_free(&b);
}

/* ---- options ---- */

/* The exit of a run that read its input: the closing count, then status. */
static int finish(int status)
{
    diag_summary();
    return status;
}

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

    Options opt = {.may_fork = true};
    bool dep_only = false, dep_file = false, dump_ast = false, syntax_only = false;
    bool nvcc_flags = false;
    int link_files = 0;   /* dev: 1 --print-link-files, 2 --print-link-cflags */
    DiagColor color = DIAG_COLOR_AUTO;
    PtrVec sigs = {0};

    /* The colour of the option errors too: look for the option first. */
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "-fdiagnostics-color=", 20) == 0)
            diag_parse_color(argv[i] + 20, &color);
        else if (strcmp(argv[i], "-fdiagnostics-color") == 0)
            color = DIAG_COLOR_ALWAYS;
        else if (strcmp(argv[i], "-fno-diagnostics-color") == 0)
            color = DIAG_COLOR_NEVER;
    diag_set_color(color);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v, *hint;
        int wopt;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            diag_list_warnings(stdout);
            fputs(usage_text2, stdout);
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
        } else if ((v = option_value(argc, argv, &i, "--module-name"))) {   /* issue 13 */
            bool ok = (v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z');
            for (const char *q = v; ok && *q; q++)
                ok = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                     (*q >= '0' && *q <= '9') || (*q == '_' && q[1] != '_' && q[1] != '\0');
            if (!ok || strncmp(v, "krt_", 4) == 0 || strncmp(v, "KRT_", 4) == 0) {
                cli_error("--module-name wants an identifier of letters, digits and single '_' "
                          "inside, starting with a letter and not with krt_, not '%s'", v);
                return 1;
            }
            opt.module_name = v;
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
        } else if (strcmp(a, "--racecheck") == 0) {   /* issue 13 */
            opt.debug = true;
            opt.racecheck = true;
        } else if ((wopt = diag_warning_option(a, &hint)) != 0) {
            if (wopt < 0) {
                cli_error("unknown warning option '%s'%s", a, hint);
                return 1;
            }
        } else if (strcmp(a, "--print-nvcc-flags") == 0) {
            nvcc_flags = true;
        } else if (strcmp(a, "--print-link-files") == 0) {   /* dev */
            link_files = 1;
        } else if (strcmp(a, "--print-link-cflags") == 0) {   /* dev */
            link_files = 2;
        } else if (strcmp(a, "--assume-noalias") == 0) {
            opt.assume_noalias = true;
        } else if (strcmp(a, "-w") == 0) {
            diag_no_warnings = true;
        } else if (strcmp(a, "-fsyntax-only") == 0) {
            syntax_only = true;
        } else if (strcmp(a, "-ftime-report") == 0) {
            opt.time_report = true;
        } else if (strcmp(a, "-fdiagnostics-color") == 0 ||
                   strcmp(a, "-fno-diagnostics-color") == 0) {
            /* read above */
        } else if (strncmp(a, "-fdiagnostics-color=", 20) == 0) {
            if (!diag_parse_color(a + 20, &color)) {
                cli_error("-fdiagnostics-color: expected auto, always or never, not '%s'",
                          a + 20);
                return 1;
            }
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
            cli_error("unknown option '%s'%s", a, diag_option_hint(arena_printf("%s%s", usage_text, usage_text2), a));
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
    /* -MD next to the output; with "-o -", next to the input (as gcc). */
    const char *dep_path = strcmp(opt.output, "-") == 0
                               ? arena_printf("%.*s.d", (int)stem, opt.input)
                               : arena_printf("%s.d", opt.output);
    const char *dep_target = strcmp(opt.output, "-") == 0 ? opt.header : opt.output;

    Source src = {0};
    if (!read_file(opt.input, &src))
        return 1;
    diag_init(&src);

    if (dep_only || link_files) {
        /* dev: the module level names the link files (cuda.declare_device) */
        Node *module = parse_source(&src);
        if (!module || error_count() > 0)
            return finish(1);
        types_init();
        (void)resolve_module(module, &opt);
        if (error_count() > 0)
            return finish(1);
    }
    if (link_files) {
        print_links(link_files == 2);
        return finish(0);
    }
    if (dep_only) {
        StrBuf rule = {0};
        make_rule(&rule, dep_target, opt.header, opt.input);
        fputs(rule.s, stdout);
        sb_free(&rule);
        return 0;
    }

    if (dump_ast) {
        Node *module = parse_source(&src);
        if (!module || error_count() > 0)
            return finish(1);
        ast_dump(stdout, module, 0);
        return finish(0);
    }

    Program *prog = translate(&src, &opt);
    if (!prog)
        return finish(1);
    if (nvcc_flags) {
        printf("%s\n", emit_nvcc_flags(prog));
        arena_free_all();
        return finish(0);
    }
    Output outs[3] = {{0}};
    int nouts = 2;
    outs[0].path = opt.output;
    outs[1].path = opt.header;
    translate_emit(prog, &opt, &outs[0].text, &outs[1].text);
    if (dep_file) {
        outs[nouts].path = dep_path;
        make_rule(&outs[nouts].text, dep_target, opt.header, opt.input);
        nouts++;
    }
    /* -fsyntax-only: the emitter ran for its checks; nothing is written. */
    bool ok = error_count() == 0 && (syntax_only || write_outputs(outs, nouts));
    time_pass(&opt, "write");
    time_pass(&opt, NULL);
    for (int i = 0; i < nouts; i++)
        sb_free(&outs[i].text);
    arena_free_all();
    return finish(ok ? 0 : 1);
}
