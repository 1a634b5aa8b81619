/*
 * diag.c - user-facing diagnostics, gcc style.
 *
 *   file.kern:LINE:COL: error: message
 *   <the source line>
 *           ^~~~~
 *
 * Every pass reports through error_at/warning_at/note_at and keeps going;
 * the driver looks at error_count() after each pass, so one run shows every
 * error of a file.  Locations are 1-based; columns count characters (a UTF-8
 * sequence is one column, a tab is one column) and last_column is the column
 * of the last character of the range (inclusive), as the scanner sets them.
 * Tabs of the source line are copied into the caret line's padding so that
 * the caret stays under the right character whatever the tab width.
 *
 * Colours are gcc's defaults (GCC_COLORS): the location bold, "error:"
 * bold red, "warning:" bold magenta, "note:" bold cyan, the caret and its
 * range green; each coloured span ends with SGR reset and erase-to-end-of-
 * line ("\33[m\33[K"), as gcc writes them.  The run ends with clang's
 * closing count (diag_summary).
 */
#include "kernc.h"
#include "diag.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool diag_no_warnings;
static bool diag_werror;                 /* -Werror */

static const struct {
    const char *name, *what;
} warning_info[W__COUNT] = {
#define X_(id, name, what) {name, what},
    KERNC_WARNINGS(X_)
#undef X_
};
static bool warning_off[W__COUNT];      /* -Wno-NAME */
static signed char warning_error[W__COUNT];   /* -Werror=NAME 1, -Wno-error=NAME -1 */

static const Source *diag_src;
static int diag_errors, diag_warnings;
static bool diag_color;
/* The last warning was dropped (-w): so are the notes that belong to it. */
static bool diag_dropping;
/* speed (issue 7; diag_mute): while muted, only counted */
static _Thread_local bool diag_muted;   /* per thread: grammar/parser.y's halves */
static _Thread_local int diag_muted_count;

#define SGR_LOCUS "\33[01m\33[K"
#define SGR_ERROR "\33[01;31m\33[K"
#define SGR_WARNING "\33[01;35m\33[K"
#define SGR_NOTE "\33[01;36m\33[K"
#define SGR_CARET "\33[32m\33[K"
#define SGR_END "\33[m\33[K"

/* The contexts pushed and not popped; deeper ones are counted, not kept. */
enum { DIAG_CONTEXTS = 128 };
static struct {
    Loc loc;
    const char *msg;
} contexts[DIAG_CONTEXTS];
static int ncontexts;

/* The notes attached to the next error or warning. */
enum { DIAG_ATTACHED = 8 };
static struct {
    Loc loc;
    const char *msg;
} attached[DIAG_ATTACHED];
static int nattached;

static void reported_reset(void);

/* Hostile input (a line of 5,000 stray '$', '\\' or '0b2', or of unmatched
 * ']'): an error per token, each showing the whole line, made output
 * quadratic in the line's length (gigabytes, minutes).  At most
 * DIAG_PER_LINE errors and warnings of a source line are shown; the others
 * are counted (error_count, the summary), and a note says so once. */
enum { DIAG_PER_LINE = 16 };
static int *line_shown;          /* line_shown[l]: diagnostics of line l so far */
static int line_shown_cap;
static bool line_quota(Loc loc);

static const char *lines_text;   /* source_line's index is of this text */

void diag_init(const Source *src)
{
    lines_text = NULL;   /* a new source: index its lines anew */
    diag_src = src;
    diag_errors = 0;
    diag_warnings = 0;
    diag_dropping = false;
    ncontexts = 0;
    nattached = 0;
    reported_reset();
    free(line_shown);
    line_shown = NULL;
    line_shown_cap = 0;
}

int error_count(void)
{
    return diag_errors;
}

int warning_count(void)
{
    return diag_warnings;
}

bool diag_parse_color(const char *word, DiagColor *out)
{
    if (strcmp(word, "auto") == 0)
        *out = DIAG_COLOR_AUTO;
    else if (strcmp(word, "always") == 0 || word[0] == '\0')
        *out = DIAG_COLOR_ALWAYS;
    else if (strcmp(word, "never") == 0)
        *out = DIAG_COLOR_NEVER;
    else
        return false;
    return true;
}

void diag_set_color(DiagColor mode)
{
    if (mode == DIAG_COLOR_AUTO) {
        const char *term = getenv("TERM");
        const char *no_color = getenv("NO_COLOR");
        diag_color = isatty(STDERR_FILENO) && (!term || strcmp(term, "dumb") != 0) &&
                     !(no_color && no_color[0]);
    } else {
        diag_color = mode == DIAG_COLOR_ALWAYS;
    }
}

bool diag_color_enabled(void)
{
    return diag_color;
}

static void put_colored(FILE *out, const char *sgr, const char *text)
{
    if (diag_color)
        fprintf(out, "%s%s" SGR_END, sgr, text);
    else
        fputs(text, out);
}

const char *diag_option_hint(const char *usage, const char *arg)
{
    const char *eq = strchr(arg, '=');
    const char *word = eq ? arena_strndup(arg, (size_t)(eq - arg)) : arg;
    Suggest sg;
    suggest_init(&sg, word);
    for (const char *p = usage; *p;) {
        while (*p == ' ')
            p++;
        if (*p == '-') {
            size_t n = strcspn(p, " \n,=[|");
            suggest_add(&sg, arena_strndup(p, n));
        }
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    if (!sg.best)
        return "";
    return arena_printf("; did you mean '%s%s'?", sg.best, eq ? eq : "");
}

void diag_cli_prefix(FILE *out, const char *prog)
{
    fprintf(out, "%s: ", prog);
    put_colored(out, SGR_ERROR, "error:");
    fputc(' ', out);
}

void diag_summary(void)
{
    if (diag_errors == 0 && diag_warnings == 0)
        return;
    fflush(stdout);
    if (diag_warnings > 0)
        fprintf(stderr, "%d warning%s%s", diag_warnings, diag_warnings == 1 ? "" : "s",
                diag_errors > 0 ? " and " : "");
    if (diag_errors > 0)
        fprintf(stderr, "%d error%s", diag_errors, diag_errors == 1 ? "" : "s");
    fputs(" generated.\n", stderr);
}

/* Where each line of diag_src starts, made at the first diagnostic (a
 * scan from the top for each one made 20,000 errors quadratic). */
static size_t lines_len;
static size_t *line_start;     /* line_start[l - 1]: offset of line l */
static int nline_starts;

static void lines_index(void)
{
    if (lines_text == diag_src->text && lines_len == diag_src->len)
        return;
    free(line_start);
    size_t cap = 64, n = 0;
    line_start = malloc(cap * sizeof *line_start);
    if (!line_start)
        die("out of memory");
    const char *p = diag_src->text, *end = p + diag_src->len;
    line_start[n++] = 0;
    for (const char *nl; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
        if (n == cap) {
            cap *= 2;
            size_t *t = realloc(line_start, cap * sizeof *line_start);
            if (!t)
                die("out of memory");
            line_start = t;
        }
        line_start[n++] = (size_t)(nl + 1 - diag_src->text);
    }
    nline_starts = (int)n;
    lines_text = diag_src->text;
    lines_len = diag_src->len;
}

/* The text of line `line` (1-based) and its length without the newline;
 * NULL past the end of the file. */
static const char *source_line(int line, size_t *len)
{
    if (!diag_src || !diag_src->text || line < 1)
        return NULL;
    lines_index();
    if (line > nline_starts)
        return NULL;
    const char *p = diag_src->text + line_start[line - 1], *end = diag_src->text + diag_src->len;
    if (p == end && line > 1)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n && p[n - 1] == '\r')
        n--;
    *len = n;
    return p;
}

static bool is_utf8_continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

/* The source line, then '^' under first_column and '~' under the rest of
 * the range that lies on the same line. */
static void show_source(Loc loc)
{
    size_t len;
    const char *line = source_line(loc.first_line, &len);
    if (!line)
        return;
    fwrite(line, 1, len, stderr);
    fputc('\n', stderr);

    int last = loc.last_line == loc.first_line ? loc.last_column : INT32_MAX;
    int col = 1;
    size_t i = 0;
    /* Padding up to the caret: tabs stay tabs. */
    for (; i < len && col < loc.first_column; i++) {
        if (is_utf8_continuation(line[i]))
            continue;
        fputc(line[i] == '\t' ? '\t' : ' ', stderr);
        col++;
    }
    /* A location past the end of the line (a newline, the end of file). */
    for (; col < loc.first_column; col++)
        fputc(' ', stderr);
    if (diag_color)
        fputs(SGR_CARET, stderr);
    fputc('^', stderr);
    /* Skip the caret's character, then underline the rest of the range. */
    for (; i < len && is_utf8_continuation(line[i]); i++)
        ;
    if (i < len)
        i++;
    col++;
    for (; i < len && col <= last; i++) {
        if (is_utf8_continuation(line[i]))
            continue;
        fputc('~', stderr);
        col++;
    }
    if (diag_color)
        fputs(SGR_END, stderr);
    fputc('\n', stderr);
}

static void report_text(const char *kind, Loc loc, const char *msg, const char *tag)
{
    const char *path = diag_src && diag_src->path ? diag_src->path : "<input>";
    fflush(stdout);
    char locus[4096 + 32];
    if (loc.first_line > 0)
        snprintf(locus, sizeof locus, "%s:%d:%d:", path, loc.first_line, loc.first_column);
    else
        snprintf(locus, sizeof locus, "%s:", path);
    put_colored(stderr, SGR_LOCUS, locus);
    fputc(' ', stderr);
    char label[32];
    snprintf(label, sizeof label, "%s:", kind);
    put_colored(stderr, kind[0] == 'e' ? SGR_ERROR : kind[0] == 'w' ? SGR_WARNING : SGR_NOTE,
                label);
    fputc(' ', stderr);
    /* one line: a control character of the source quoted in the message
     * (a string literal's "\n" in a @guvectorize layout) is escaped */
    for (const unsigned char *m = (const unsigned char *)msg; *m; m++) {
        if (*m >= 0x20 && *m != 0x7F)
            fputc(*m, stderr);
        else if (*m == '\n')
            fputs("\\n", stderr);
        else if (*m == '\t')
            fputs("\\t", stderr);
        else if (*m == '\r')
            fputs("\\r", stderr);
        else
            fprintf(stderr, "\\x%02x", *m);
    }
    fputs(tag, stderr);
    fputc('\n', stderr);
    if (loc.first_line > 0)
        show_source(loc);
}

/* True if a diagnostic at loc is shown; false past DIAG_PER_LINE of its
 * line (the first time, a note says that the line has more). */
static bool line_quota(Loc loc)
{
    size_t len;
    if (loc.first_line <= 0 || !source_line(loc.first_line, &len))
        return true;
    if (loc.first_line >= line_shown_cap) {
        int cap = line_shown_cap ? line_shown_cap : 64;
        while (cap <= loc.first_line)
            cap *= 2;
        int *t = realloc(line_shown, (size_t)cap * sizeof *t);
        if (!t)
            die("out of memory");
        memset(t + line_shown_cap, 0, (size_t)(cap - line_shown_cap) * sizeof *t);
        line_shown = t;
        line_shown_cap = cap;
    }
    int *n = &line_shown[loc.first_line];
    if (*n < DIAG_PER_LINE) {
        ++*n;
        return true;
    }
    if (*n == DIAG_PER_LINE) {
        ++*n;
        char msg[128];
        snprintf(msg, sizeof msg, "this line has more errors or warnings; only its first %d "
                 "are shown", DIAG_PER_LINE);
        report_text("note", loc, msg, "");
    }
    return false;
}

static void report(const char *kind, Loc loc, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    report_text(kind, loc, msg, "");
}

void diag_push_context(Loc loc, const char *fmt, ...)
{
    if (ncontexts < DIAG_CONTEXTS) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        contexts[ncontexts].loc = loc;
        contexts[ncontexts].msg = arena_strdup(msg);
    }
    ncontexts++;
}

void diag_pop_context(void)
{
    if (ncontexts > 0)
        ncontexts--;
}

void diag_attach_note(Loc loc, const char *fmt, ...)
{
    if (diag_muted) {
        diag_muted_count++;
        return;
    }
    if (nattached == DIAG_ATTACHED)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    attached[nattached].loc = loc;
    attached[nattached++].msg = arena_strdup(msg);
}

static void report_contexts(void)
{
    for (int i = 0; i < nattached; i++)
        report_text("note", attached[i].loc, attached[i].msg, "");
    nattached = 0;
    for (int i = (ncontexts < DIAG_CONTEXTS ? ncontexts : DIAG_CONTEXTS) - 1; i >= 0; i--)
        report_text("note", contexts[i].loc, contexts[i].msg, "");
}

int diag_mute(bool on)
{
    int n = diag_muted_count;
    diag_muted = on;
    diag_muted_count = 0;
    return n;
}

void error_at(Loc loc, const char *fmt, ...)
{
    va_list ap;
    if (diag_muted) {
        diag_muted_count++;
        return;
    }
    if (!line_quota(loc)) {
        diag_errors++;   /* counted, not shown, and neither are its notes */
        diag_dropping = true;
        nattached = 0;
        return;
    }
    va_start(ap, fmt);
    report("error", loc, fmt, ap);
    va_end(ap);
    diag_errors++;
    diag_dropping = false;
    report_contexts();
}

void warning_at(Loc loc, Warn w, const char *fmt, ...)
{
    va_list ap;
    if (diag_muted) {
        diag_muted_count++;
        return;
    }
    diag_dropping = diag_no_warnings || warning_off[w];
    if (diag_dropping) {
        nattached = 0;
        return;
    }
    /* -Werror: the same text, reported and counted as an error. */
    bool as_error = warning_error[w] > 0 || (diag_werror && warning_error[w] == 0);
    if (!line_quota(loc)) {
        if (as_error)
            diag_errors++;
        else
            diag_warnings++;
        diag_dropping = true;
        nattached = 0;
        return;
    }
    char msg[2048];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char tag[96];
    snprintf(tag, sizeof tag, " [-W%s%s]", as_error ? "error=" : "", warning_info[w].name);
    report_text(as_error ? "error" : "warning", loc, msg, tag);
    if (as_error)
        diag_errors++;
    else
        diag_warnings++;
    report_contexts();
}

int diag_warning_option(const char *arg, const char **hint)
{
    *hint = "";
    if (strncmp(arg, "-W", 2) != 0)
        return 0;
    const char *name = arg + 2;
    if (strcmp(name, "error") == 0) {
        diag_werror = true;
        return 1;
    }
    if (strcmp(name, "all") == 0 || strcmp(name, "extra") == 0) {
        for (int i = 0; i < W__COUNT; i++)
            warning_off[i] = false;
        return 1;
    }
    bool no = strncmp(name, "no-", 3) == 0;
    if (no)
        name += 3;
    bool error = strncmp(name, "error=", 6) == 0;
    if (error)
        name += 6;
    for (int i = 0; i < W__COUNT; i++)
        if (strcmp(name, warning_info[i].name) == 0) {
            if (error)
                warning_error[i] = no ? -1 : 1;
            else
                warning_off[i] = no;
            return 1;
        }
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; i < W__COUNT; i++)
        suggest_add(&sg, warning_info[i].name);
    if (sg.best)
        *hint = arena_printf("; did you mean '-W%s%s%s'?", no ? "no-" : "", error ? "error=" : "",
                             sg.best);
    return -1;
}

void diag_list_warnings(FILE *out)
{
    for (int i = 0; i < W__COUNT; i++)
        fprintf(out, "  -W%-21s %s\n", warning_info[i].name, warning_info[i].what);
}

void note_at(Loc loc, const char *fmt, ...)
{
    va_list ap;
    if (diag_muted) {
        diag_muted_count++;
        return;
    }
    if (diag_dropping)
        return;
    va_start(ap, fmt);
    report("note", loc, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ */
/* sema_error: once per location and text                              */
/* ------------------------------------------------------------------ */

/* The semantic passes lower a device function once per specialisation, so
 * the same error can come up many times; a hash set of (line, column,
 * text) reports each once. */
typedef struct Reported {
    int line, column;
    uint64_t hash;
    const char *msg;
} Reported;
static Reported *reported;     /* open addressing; msg NULL: empty */
static size_t reported_cap, reported_len;

static void reported_reset(void)
{
    free(reported);
    reported = NULL;
    reported_cap = reported_len = 0;
}

static uint64_t reported_hash(int line, int column, const char *msg)
{
    return str_hash_z(msg) ^ ((uint64_t)(unsigned)line * 31u ^ (uint64_t)(unsigned)column);
}

/* True if (loc, msg) was reported before; else remembers it. */
static bool reported_seen(Loc loc, const char *msg)
{
    if (reported_len * 2 >= reported_cap) {
        size_t cap = reported_cap ? reported_cap * 2 : 64;
        Reported *t = calloc(cap, sizeof *t);
        if (!t)
            die("out of memory");
        for (size_t i = 0; i < reported_cap; i++)
            if (reported[i].msg)
                for (size_t j = reported[i].hash & (cap - 1);; j = (j + 1) & (cap - 1))
                    if (!t[j].msg) {
                        t[j] = reported[i];
                        break;
                    }
        free(reported);
        reported = t;
        reported_cap = cap;
    }
    uint64_t h = reported_hash(loc.first_line, loc.first_column, msg);
    size_t j = h & (reported_cap - 1);
    for (; reported[j].msg; j = (j + 1) & (reported_cap - 1))
        if (reported[j].hash == h && reported[j].line == loc.first_line &&
            reported[j].column == loc.first_column && strcmp(reported[j].msg, msg) == 0)
            return true;
    reported[j] = (Reported){loc.first_line, loc.first_column, h, arena_strdup(msg)};
    reported_len++;
    return false;
}

void vsema_error(Loc loc, const char *fmt, va_list ap)
{
    if (diag_muted) {
        diag_muted_count++;
        return;
    }
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (!reported_seen(loc, buf))
        error_at(loc, "%s", buf);
    else
        nattached = 0;
}

void sema_error(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsema_error(loc, fmt, ap);
    va_end(ap);
}
