/*
 * basic.h - a small TAP (Test Anything Protocol) producer for kernc's C tests.
 *
 * The shape follows rra/c-tap-harness tests/tap/basic.h: a test calls plan()
 * (or plan_lazy()), then one ok()/is_*() per check, each printing an "ok N" or
 * "not ok N" line with a description; diag() writes "# ..." comments to
 * stderr.  skip_all() prints "1..0 # SKIP reason" and exits 0, the form
 * Automake's tap-driver.sh reports as a skipped test (a GPU test without a
 * GPU).  bail() prints "Bail out!" and exits 255.  At exit the helper checks
 * the plan: a test that ran fewer or more checks than planned, or failed any,
 * exits non-zero, so the test also fails under a plain `make check` without
 * the TAP driver.
 */
#ifndef TAP_BASIC_H
#define TAP_BASIC_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define TAP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define TAP_NORETURN __attribute__((noreturn))
#else
#define TAP_PRINTF(fmt, args)
#define TAP_NORETURN
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The number of the next test, and the count of failures so far. */
extern unsigned long testnum;
extern unsigned long tap_failed;

/* Announce how many tests will run ("1..count"). */
void plan(unsigned long count);
/* Print the plan at the end instead, from the number of tests run. */
void plan_lazy(void);

/* Skip the whole file: "1..0 # SKIP reason", exit status 0. */
void skip_all(const char *format, ...) TAP_PRINTF(1, 2) TAP_NORETURN;

/* One check; returns success so callers can add diagnostics on failure. */
int ok(int success, const char *format, ...) TAP_PRINTF(2, 3);
int okv(int success, const char *format, va_list args);
/* Record one skipped check, or count of them. */
void skip(const char *reason, ...) TAP_PRINTF(1, 2);
void skip_block(unsigned long count, const char *reason, ...) TAP_PRINTF(2, 3);
/* count checks that all pass or all fail together. */
void ok_block(unsigned long count, int success, const char *format, ...)
    TAP_PRINTF(3, 4);

/* Compare and, on a mismatch, print wanted and seen as diagnostics. */
int is_int(long long wanted, long long seen, const char *format, ...)
    TAP_PRINTF(3, 4);
int is_uint(unsigned long long wanted, unsigned long long seen,
            const char *format, ...) TAP_PRINTF(3, 4);
int is_hex(unsigned long long wanted, unsigned long long seen,
           const char *format, ...) TAP_PRINTF(3, 4);
/* Equal within epsilon; two NaNs compare equal, as do equal infinities. */
int is_double(double wanted, double seen, double epsilon, const char *format,
              ...) TAP_PRINTF(4, 5);
/* NULL equals only NULL. */
int is_string(const char *wanted, const char *seen, const char *format, ...)
    TAP_PRINTF(3, 4);
/* Equal bytes of length len. */
int is_blob(const void *wanted, const void *seen, size_t len,
            const char *format, ...) TAP_PRINTF(4, 5);

/* "# message" on stderr (stdout would be parsed as TAP); returns 1. */
int diag(const char *format, ...) TAP_PRINTF(1, 2);
/* "# message" on stdout, kept in the TAP log next to the checks. */
int note(const char *format, ...) TAP_PRINTF(1, 2);
/* Abort the whole test: "Bail out! message", exit 255. */
void bail(const char *format, ...) TAP_PRINTF(1, 2) TAP_NORETURN;
/* bail() with ": strerror(errno)" appended. */
void sysbail(const char *format, ...) TAP_PRINTF(1, 2) TAP_NORETURN;

#ifdef __cplusplus
}
#endif
#endif /* TAP_BASIC_H */
