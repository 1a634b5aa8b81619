/*
 * basic.c - the TAP producer behind tests/tap/basic.h.
 *
 * Output goes to stdout line by line (flushed, so a crash leaves the lines
 * already printed for the driver); diagnostics go to stderr.  An atexit hook
 * prints a lazy plan and turns a wrong test count or any failure into a
 * non-zero exit status, as c-tap-harness does.
 */
#include "basic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long testnum = 1;
unsigned long tap_failed = 0;

static unsigned long tap_planned = 0;
static int tap_lazy = 0;
static int tap_plan_printed = 0;
static int tap_hook_set = 0;

/* Runs at exit: lazy plan, then the verdict on the count of tests run. */
static void tap_finish(void)
{
    unsigned long run = testnum - 1;

    fflush(stderr);
    if (tap_lazy && !tap_plan_printed) {
        printf("1..%lu\n", run);
        tap_planned = run;
        tap_plan_printed = 1;
    }
    fflush(stdout);
    if (!tap_plan_printed)
        return;
    if (run != tap_planned) {
        fprintf(stderr, "# Looks like you planned %lu test%s but ran %lu\n",
                tap_planned, tap_planned == 1 ? "" : "s", run);
        _Exit(255);
    }
    if (tap_failed > 0) {
        fprintf(stderr, "# Looks like you failed %lu test%s of %lu\n",
                tap_failed, tap_failed == 1 ? "" : "s", run);
        _Exit(tap_failed > 254 ? 254 : (int)tap_failed);
    }
}

static void tap_hook(void)
{
    if (!tap_hook_set) {
        atexit(tap_finish);
        tap_hook_set = 1;
    }
}

void plan(unsigned long count)
{
    /* Line buffering: the driver sees each result as soon as it exists. */
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    tap_hook();
    printf("1..%lu\n", count);
    fflush(stdout);
    tap_planned = count;
    tap_plan_printed = 1;
}

void plan_lazy(void)
{
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    tap_hook();
    tap_lazy = 1;
}

void skip_all(const char *format, ...)
{
    va_list args;

    fflush(stderr);
    printf("1..0 # SKIP");
    if (format != NULL) {
        putchar(' ');
        va_start(args, format);
        vprintf(format, args);
        va_end(args);
    }
    putchar('\n');
    fflush(stdout);
    /* No plan check at exit: nothing was meant to run. */
    tap_plan_printed = 0;
    tap_lazy = 0;
    exit(0);
}

/* "ok N - description" (or "not ok"); the description is optional. */
static void tap_result(int success, const char *format, va_list args)
{
    fflush(stderr);
    printf("%sok %lu", success ? "" : "not ", testnum++);
    if (!success)
        tap_failed++;
    if (format != NULL && *format != '\0') {
        fputs(" - ", stdout);
        vprintf(format, args);
    }
    putchar('\n');
    fflush(stdout);
}

int okv(int success, const char *format, va_list args)
{
    tap_result(success, format, args);
    return success;
}

int ok(int success, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    return success;
}

void ok_block(unsigned long count, int success, const char *format, ...)
{
    va_list args;
    unsigned long i;

    for (i = 0; i < count; i++) {
        va_start(args, format);
        tap_result(success, format, args);
        va_end(args);
    }
}

void skip(const char *reason, ...)
{
    va_list args;

    fflush(stderr);
    printf("ok %lu # SKIP", testnum++);
    if (reason != NULL) {
        putchar(' ');
        va_start(args, reason);
        vprintf(reason, args);
        va_end(args);
    }
    putchar('\n');
    fflush(stdout);
}

void skip_block(unsigned long count, const char *reason, ...)
{
    va_list args;
    unsigned long i;

    for (i = 0; i < count; i++) {
        fflush(stderr);
        printf("ok %lu # SKIP", testnum++);
        if (reason != NULL) {
            putchar(' ');
            va_start(args, reason);
            vprintf(reason, args);
            va_end(args);
        }
        putchar('\n');
    }
    fflush(stdout);
}

int is_int(long long wanted, long long seen, const char *format, ...)
{
    va_list args;
    int success = wanted == seen;

    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    if (!success)
        diag("wanted: %lld\n#   seen: %lld", wanted, seen);
    return success;
}

int is_uint(unsigned long long wanted, unsigned long long seen,
            const char *format, ...)
{
    va_list args;
    int success = wanted == seen;

    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    if (!success)
        diag("wanted: %llu\n#   seen: %llu", wanted, seen);
    return success;
}

int is_hex(unsigned long long wanted, unsigned long long seen,
           const char *format, ...)
{
    va_list args;
    int success = wanted == seen;

    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    if (!success)
        diag("wanted: 0x%llx\n#   seen: 0x%llx", wanted, seen);
    return success;
}

int is_double(double wanted, double seen, double epsilon, const char *format,
              ...)
{
    va_list args;
    int success;

    if (isnan(wanted) || isnan(seen))
        success = isnan(wanted) && isnan(seen);
    else if (isinf(wanted) || isinf(seen))
        success = wanted == seen;
    else
        success = fabs(wanted - seen) <= epsilon;
    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    if (!success)
        diag("wanted: %.17g\n#   seen: %.17g", wanted, seen);
    return success;
}

int is_string(const char *wanted, const char *seen, const char *format, ...)
{
    va_list args;
    int success;

    if (wanted == NULL || seen == NULL)
        success = wanted == seen;
    else
        success = strcmp(wanted, seen) == 0;
    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    if (!success)
        diag("wanted: %s%s%s\n#   seen: %s%s%s", wanted ? "\"" : "",
             wanted ? wanted : "(null)", wanted ? "\"" : "",
             seen ? "\"" : "", seen ? seen : "(null)", seen ? "\"" : "");
    return success;
}

int is_blob(const void *wanted, const void *seen, size_t len,
            const char *format, ...)
{
    va_list args;
    const unsigned char *w = wanted, *s = seen;
    size_t i = 0;
    int success;

    if (wanted == NULL || seen == NULL)
        success = wanted == seen;
    else {
        while (i < len && w[i] == s[i])
            i++;
        success = i == len;
    }
    va_start(args, format);
    tap_result(success, format, args);
    va_end(args);
    if (!success && wanted != NULL && seen != NULL)
        diag("first difference at byte %zu: wanted 0x%02x, seen 0x%02x", i,
             w[i], s[i]);
    return success;
}

/* Writes "# " before the message and before each line break inside it. */
static void tap_comment(FILE *out, const char *format, va_list args)
{
    char buf[4096];
    const char *p;

    vsnprintf(buf, sizeof buf, format, args);
    fputs("# ", out);
    for (p = buf; *p != '\0'; p++) {
        fputc(*p, out);
        if (*p == '\n' && p[1] != '\0' && p[1] != '#')
            fputs("# ", out);
    }
    if (p == buf || p[-1] != '\n')
        fputc('\n', out);
    fflush(out);
}

int diag(const char *format, ...)
{
    va_list args;

    fflush(stdout);
    va_start(args, format);
    tap_comment(stderr, format, args);
    va_end(args);
    return 1;
}

int note(const char *format, ...)
{
    va_list args;

    fflush(stderr);
    va_start(args, format);
    tap_comment(stdout, format, args);
    va_end(args);
    return 1;
}

void bail(const char *format, ...)
{
    va_list args;

    fflush(stderr);
    fflush(stdout);
    printf("Bail out! ");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
    _Exit(255);
}

void sysbail(const char *format, ...)
{
    va_list args;
    int err = errno;

    fflush(stderr);
    fflush(stdout);
    printf("Bail out! ");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf(": %s\n", strerror(err));
    fflush(stdout);
    _Exit(255);
}
