/*
 * translate.c - the pass driver, for kernc (main.c) and kernc run (run.c):
 *
 *   parse (layout.c, parser.y) -> resolve (resolve.c: module-level names,
 *   decorators, signatures) -> type (type.c: every kernel signature and,
 *   through calls, every device-function specialisation; ufunc.c: the
 *   kernels of @vectorize, @guvectorize and cuda.reduce) -> check (check.c)
 *   and, beside it on a second thread for a big file, range (range.c) ->
 *   emit (emit_host.c: emit_cuda, emit_c; emit_header, on a second thread
 *   beside the #line pass for a big file).
 *
 * Every pass reports all the errors it finds and the driver stops after a
 * pass that reported any, so one run shows every error of a file.
 */
#include "kernc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Resolve and type a parsed module: the Program, or NULL after errors. */
/* -ftime-report, as gcc's: CPU and wall time per pass, in the order the
 * passes first ran. */
enum { MAX_PASSES = 16 };
static struct { const char *name; double cpu, wall, mb; } passes[MAX_PASSES];
static int npasses;
static double last_cpu, last_wall, last_mb;

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void time_pass(const Options *opt, const char *pass)
{
    if (!opt->time_report)
        return;
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID), wall = clock_s(CLOCK_MONOTONIC);
    double mb = (double)mapped_bytes() / (1024.0 * 1024.0);
    if (!pass) {
        double tc = 0, tw = 0, tm = 0;
        fprintf(stderr, "\nkernc: time report (seconds; memory mapped, MiB)\n%-24s %9s %9s %9s\n",
                "pass", "cpu", "wall", "MiB");
        for (int i = 0; i < npasses; i++) {
            fprintf(stderr, "%-24s %9.3f %9.3f %9.1f\n", passes[i].name, passes[i].cpu,
                    passes[i].wall, passes[i].mb);
            tc += passes[i].cpu;
            tw += passes[i].wall;
            tm += passes[i].mb;
        }
        fprintf(stderr, "%-24s %9.3f %9.3f %9.1f\n", "total", tc, tw, tm);
        return;
    }
    if (last_wall == 0) {       /* the first call starts the clock */
        last_cpu = cpu;
        last_wall = wall;
        last_mb = mb;
        return;
    }
    int i = 0;
    while (i < npasses && strcmp(passes[i].name, pass) != 0)
        i++;
    if (i == npasses && npasses < MAX_PASSES)
        passes[npasses++].name = pass;
    if (i < npasses) {
        passes[i].cpu += cpu - last_cpu;
        passes[i].wall += wall - last_wall;
        passes[i].mb += mb - last_mb;
    }
    last_cpu = cpu;
    last_wall = wall;
    last_mb = mb;
}

/* The names the module reads (E_NAME, and E_ATTR's attribute), in an
 * open-addressing set: a kernel none of them names is never called from
 * device code, so its one signature is its only specialisation. */
typedef struct NameSet {
    const char **keys;
    size_t cap, len;
} NameSet;

static bool nameset_add(NameSet *s, const char *name)
{
    if (2 * (s->len + 1) > s->cap) {
        NameSet bigger = {NULL, s->cap ? 2 * s->cap : 1024, 0};
        bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
        if (!bigger.keys)
            die("out of memory (%zu names)", bigger.cap);
        for (size_t i = 0; i < s->cap; i++)
            if (s->keys[i])
                nameset_add(&bigger, s->keys[i]);
        free(s->keys);
        *s = bigger;
    }
    size_t h = str_hash_z(name) & (s->cap - 1);
    for (; s->keys[h]; h = (h + 1) & (s->cap - 1))
        if (strcmp(s->keys[h], name) == 0)
            return false;
    s->keys[h] = name;
    s->len++;
    return true;
}

static bool nameset_has(const NameSet *s, const char *name)
{
    if (!s->cap)
        return false;
    size_t h = str_hash_z(name) & (s->cap - 1);
    for (; s->keys[h]; h = (h + 1) & (s->cap - 1))
        if (strcmp(s->keys[h], name) == 0)
            return true;
    return false;
}

static Visit collect_name(const Node *n, void *ctx)
{
    if ((n->kind == E_NAME || n->kind == E_ATTR) && n->name)
        nameset_add(ctx, n->name);
    return VISIT_CHILDREN;
}

/* speed (issue 7): mark the kernels whose parsed body can be lowered in
 * place (FuncDef.share_def): those no name of the module reads (`read`,
 * collected as the parser checked the tree's depth: the names as parsed,
 * a superset of those left after resolve_module, which adds none) */
static void mark_shared_defs(PtrVec *fdefs, const NameSet *read)
{
    for (int i = 0; i < fdefs->len; i++) {
        FuncDef *fd = fdefs->items[i];
        fd->share_def = fd->is_kernel && fd->nsigs == 1 && !fd->ufunc && fd->nspecs == 0 &&
                        !nameset_has(read, fd->name);
    }
}

static Program *analyze(Node *module, const NameSet *read, const Options *opt)
{
    int errors_before = error_count();
    types_init();
    type_reset();
    PtrVec fdefs = resolve_module(module, opt);
    time_pass(opt, "resolve");
    mark_shared_defs(&fdefs, read);

    /* Pass 3: type every kernel signature and eager device function; their
     * calls type the device-function specialisations they need. */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        if (!resolve_check_params(fd))
            continue;
        if (fd->def->decorators.len != 1)
            continue;
        if (fd->sig_failed)
            continue;
        if (fd->is_kernel && fd->nsigs == 0)
            continue;   /* dev: below, unless device code calls it */
        for (int j = 0; j < fd->nsigs; j++) {
            Signature *s = &fd->sigs[j];
            /* issue 13: at the signature where it is written, the def in a note */
            if (fd->is_kernel && s->ret != ty_void) {
                if (s->has_loc)
                    diag_attach_note(fd->def->loc, "kernel '%s' is defined here", fd->name);
                sema_error(s->has_loc ? s->ret_loc : fd->def->loc, "the signature of kernel "
                           "'%s' must return void, not %s", fd->name, ty_name(s->ret));
                continue;
            }
            if (s->nparams != fd->def->params.len) {
                if (s->has_loc)
                    diag_attach_note(fd->def->loc, "'%s' takes %d parameter%s", fd->name,
                                     fd->def->params.len, fd->def->params.len == 1 ? "" : "s");
                sema_error(s->has_loc ? s->loc : fd->def->loc, "the signature of '%s' has %d "
                           "parameter%s but the function takes %d", fd->name, s->nparams,
                           s->nparams == 1 ? "" : "s", fd->def->params.len);
                continue;
            }
            int e = error_count(), from = type_nfinal();
            type_kernel(fd, s, fd->def->loc);
            if (error_count() > e)
                type_mark_failed(from);
        }
    }
    /* dev (issue 9): a bare @cuda.jit without a signature is a kernel kernc
     * cannot make; called from device code it is a device function there */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        bool defaults = false;   /* refused above already */
        for (int k = 0; k < fd->def->params.len; k++)
            defaults |= ((Node *)fd->def->params.items[k])->rhs != NULL;
        if (fd->is_kernel && fd->nsigs == 0 && !fd->sig_failed && !fd->ufunc && !defaults &&
            fd->def->decorators.len == 1 && fd->nspecs == 0)
            sema_error(fd->def->loc, "kernel '%s' has no signature; give one in "
                       "@cuda.jit(...), as parameter annotations, or with --signature "
                       "%s=void(...)", fd->name, fd->name);
    }
    time_pass(opt, "type");
    int e = error_count(), from = type_nfinal();
    ufunc_type_all(&fdefs, errors_before);
    if (error_count() > e)
        type_mark_failed(from);

    Program *p = arena_alloc(sizeof *p);
    type_finish(p);
    if (error_count() > errors_before) {
        /* every error of the file in one run: the check pass still runs
         * on the functions that typed cleanly (not on the others: no
         * cascades) */
        check_program(p, opt);
        return NULL;
    }
    p->ufuncs = arena_alloc(sizeof *p->ufuncs * (size_t)(fdefs.len ? fdefs.len : 1));
    for (int i = 0; i < fdefs.len; i++)
        if (((FuncDef *)fdefs.items[i])->ufunc)
            p->ufuncs[p->nufuncs++] = ((FuncDef *)fdefs.items[i])->ufunc;
    return p;
}

/* The range pass on a thread (translate), and the header (translate_emit):
 * from 128 KiB of source, where their instructions outweigh a thread's
 * start */
enum { RANGE_THREAD_MIN = 128 << 10 };

static void range_side(void *prog)
{
    range_program(prog);
}

Program *translate(Source *src, const Options *opt)
{
    diag_init(src);
    time_pass(opt, "start");
    NameSet read = {0}, read2 = {0};   /* read2: the second half's (parse_halves) */
    Node *module = parse_source_visit(src, collect_name, &read, &read2);
    for (size_t i = 0; i < read2.cap; i++)
        if (read2.keys[i])
            nameset_add(&read, read2.keys[i]);
    free(read2.keys);
    time_pass(opt, "parse");
    if (!module || error_count() > 0) {
        free(read.keys);
        return NULL;
    }
    Program *prog = analyze(module, &read, opt);
    free(read.keys);
    time_pass(opt, "ufuncs");
    if (!prog || error_count() > 0)
        return NULL;
    prog->src = src;
    prog->src_hash = str_hash(src->text, src->len);
    /* speed (issue 7): range.c's intervals on a thread of their own while
     * check.c looks for errors, where a core is idle: neither writes what
     * the other reads (check reads the tree and reports; range writes the
     * nodes' intervals and reports nothing) */
    SideThread thread;
    bool threaded = side_start(&thread, (long)src->len, RANGE_THREAD_MIN, range_side, prog);
    check_program(prog, opt);
    if (error_count() == 0)
        program_tuples(prog);   /* beside range too: it reads the types range leaves alone */
    time_pass(opt, "check");
    if (threaded) {
        side_join(&thread);
    } else if (error_count() == 0) {
        range_program(prog);
    }
    time_pass(opt, "range");
    return error_count() > 0 ? NULL : prog;
}

/* The lines of a text (a last line without a newline counts). */
static int count_lines(const char *s, size_t n)
{
    int lines = 0;
    for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        lines++;
    return lines + (n > 0 && s[n - 1] != '\n');
}

/* #line on every line of the generated code: the emitters put one before
 * each line that comes from a .kern line; the lines after it (the rest of
 * that statement, closing braces, code kernc adds there) inherit it, as C
 * says.  Here the code kernc adds between functions (descriptors,
 * launchers, tables: every line at the top level that no directive
 * precedes) and any line whose inherited number would lie past the end of
 * the .kern file get a directive back to the generated file's own line, so
 * no compiler or debugger message names a .kern line that is not there. */
static void own_line_directives(StrBuf *code, int src_lines, const char *out_name)
{
    StrBuf b = {0};
    /* the directives added are a few per function: room for them up front,
     * so b is not copied as it doubles */
    sb_reserve(&b, code->len + code->len / 16 + 4096);
    const char *s = code->s, *end = code->s + code->len;
    const char *run = s;        /* lines not copied to b yet (speed: in one piece) */
    int out_line = 0;           /* lines written to b, or to be */
    bool mapped = false;        /* the next line belongs to a .kern line */
    bool after_directive = false;
    long cur = 0;               /* the .kern line of the next line */
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
        if (len >= 6 && memcmp(s, "#line ", 6) == 0) {
            mapped = true;
            after_directive = true;
            cur = 0;            /* strtol(s + 6, NULL, 10), without its locale */
            const char *d = s + 6;
            while (*d == ' ' || (*d >= '\t' && *d <= '\r'))
                d++;
            bool neg = *d == '-';
            d += *d == '-' || *d == '+';
            for (; *d >= '0' && *d <= '9'; d++)
                cur = cur * 10 + (*d - '0');
            if (neg)
                cur = -cur;
        } else {
            bool top = len > 1 && s[0] != ' ' && s[0] != '\t' && s[0] != '{' && s[0] != '}' &&
                       s[0] != '#';
            if (mapped && !after_directive && (top || cur > src_lines)) {
                /* the directive is line out_line + 1; the line after it is ours */
                sb_putn(&b, run, (size_t)(s - run));
                run = s;
                sb_printf(&b, "#line %d \"%s\"\n", out_line + 2, out_name);
                out_line++;
                mapped = false;
            }
            after_directive = false;
            cur++;
        }
        out_line++;
        s += len;
    }
    sb_putn(&b, run, (size_t)(s - run));
    sb_free(code);
    *code = b;
}

/* The header printed on a thread while the #line pass runs (translate_emit),
 * from 128 KiB of source: emit_header reads the program and reports nothing */
typedef struct HeaderJob {
    Program *prog;
    const Options *opt;
    StrBuf *header;
} HeaderJob;

static void header_side(void *arg)
{
    HeaderJob *job = arg;
    emit_header(job->header, job->prog, job->opt);
}

bool translate_emit(Program *p, const Options *opt, StrBuf *code, StrBuf *header)
{
    if (code && opt->target_c)
        emit_c(code, p, opt);
    else if (code)
        emit_cuda(code, p, opt);
    time_pass(opt, opt->target_c ? "lower+emit C" : "emit CUDA");
    HeaderJob job = {p, opt, header};
    SideThread thread;
    bool threaded = header && code && p->src &&
                    side_start(&thread, (long)p->src->len, RANGE_THREAD_MIN, header_side, &job);
    if (code && p->src) {
        const char *out = !opt->output || strcmp(opt->output, "-") == 0 ? "<stdout>" : opt->output;
        own_line_directives(code, count_lines(p->src->text, p->src->len), c_string(out));
    }
    time_pass(opt, "#line");
    if (threaded) {
        side_join(&thread);
    } else if (header) {
        emit_header(header, p, opt);
    }
    time_pass(opt, "header");
    return error_count() == 0;
}
