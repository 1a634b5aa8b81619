/*
 * e2e.h - shared helpers of the end-to-end tests: each test translates a
 * .kern file with kernc, launches its kernels through the generated typed
 * launchers on the CPU backend (or CUDA when KRT_BACKEND says so), and
 * compares with values the test computes itself, here in plain C with
 * Python's rules written out independently of kernrt_device.h.
 */
#ifndef E2E_H
#define E2E_H

#include <kernrt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap/basic.h"

/* Stop the test with the runtime's message when a call fails. */
#define E2E_CHECK(expr)                                                      \
    do {                                                                     \
        int e2e_st_ = (expr);                                                \
        if (e2e_st_ != KRT_OK)                                               \
            bail("%s: %s (%s)", #expr, krt_status_name(e2e_st_),            \
                 krt_last_error());                                          \
    } while (0)

/* Python's int floor division and modulo on int64; numba gives 0 for a
 * zero divisor and for INT64_MIN // -1. */
static inline int64_t py_floordiv(int64_t a, int64_t b)
{
    if (b == 0 || (a == INT64_MIN && b == -1))
        return 0;
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}
static inline int64_t py_mod(int64_t a, int64_t b)
{
    if (b == 0 || b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}
/* Python's float divmod (CPython's float_divmod). */
static inline double py_fmod_floor(double a, double b, double *quot)
{
    double mod = fmod(a, b), div = (a - mod) / b, fl;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
            div -= 1.0;
        }
    } else {
        mod = copysign(0.0, b);
    }
    if (div != 0) {
        fl = floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
    } else {
        fl = copysign(0.0, a / b);
    }
    *quot = fl;
    return mod;
}

/* Equal, or both NaN. */
static inline int same_double(double a, double b)
{
    return a == b || (a != a && b != b);
}
static inline int close_double(double a, double b, double rel)
{
    return same_double(a, b) || fabs(a - b) <= rel * fabs(a);
}

#endif
