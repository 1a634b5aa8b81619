/*
 * kernrt_device.h - inline helpers that kernc's generated code includes.
 *
 * The emitter (src/emit_*.c) spells every operation whose Python/numba meaning
 * differs from plain C through one of these helpers: integer arithmetic that
 * wraps instead of overflowing (signed overflow is undefined in C), floor
 * division and modulo, `**`, shifts by any amount, float-to-int conversions
 * that saturate as the GPU does, atomics for every numba type (with CUDA's
 * inc/dec wrap-around and numba's NaN rules), the bit intrinsics at each
 * operand width, fences, lane queries, the bounds checks and assertion
 * failures of debug=True, and the thread loops of the CPU backend.  Each helper is `static inline` and, under nvcc,
 * `__host__ __device__`, so the same call works in a CUDA kernel and in the
 * CPU version of that kernel compiled into the same .cu file; a plain C
 * compiler sees ordinary C99.  Semantics follow numba's CUDA target (with its
 * default "numpy" error model: integer division by zero gives 0).
 *
 * Only generated code includes this file; nothing here is part of the
 * runtime's public API.
 */
#ifndef KERNRT_DEVICE_H
#define KERNRT_DEVICE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <kernrt.h>
#include <kernrt_random.h>
#include <kernrt_vector.h>   /* CUDA's vector types (vecrec) */

#if defined(__CUDACC__)
#define KRT_HD __host__ __device__
#else
#define KRT_HD
#endif
#define KRT_FN static inline KRT_HD
/* built with ThreadSanitizer (GCC's macro, Clang's feature test) */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KRT_TSAN_ 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define KRT_TSAN_ 1
#endif
/* Helpers only the CPU versions of kernels call (they call the C library). */
#define KRT_CPU_FN static inline
/* float16 (kernrt_fp16.h); the HALF rows have no C arithmetic, so the
 * per-class generators below make nothing for them. */
#include <kernrt_fp16.h>
#define KRT_INT_OPS_HALF(s, T, size, fsfx)
#define KRT_FLOAT_OPS_HALF(s, T, size, fsfx)
#define KRT_FLOAT_BITS_HALF(s, T, size, fsfx)
#define KRT_FLOAT_MINMAX_HALF(s, T, size, fsfx)
#define KRT_BIT_OPS_HALF(s, T, size, fsfx)
/* bfloat16 (kernrt_bf16.h): no C arithmetic either */
#include <kernrt_bf16.h>
#define KRT_INT_OPS_BF16(s, T, size, fsfx)
#define KRT_FLOAT_OPS_BF16(s, T, size, fsfx)
#define KRT_FLOAT_BITS_BF16(s, T, size, fsfx)
#define KRT_FLOAT_MINMAX_BF16(s, T, size, fsfx)
#define KRT_BIT_OPS_BF16(s, T, size, fsfx)
/* Generated helpers a file may not call (nvcc warns about those). */
#if defined(__GNUC__) || defined(__CUDACC__)
#define KRT_MAYBE_UNUSED __attribute__((unused))
#else
#define KRT_MAYBE_UNUSED
#endif

/* ------------------------------------------------------------------ */
/* Integer arithmetic with numba's (LLVM's) wrapping semantics         */
/* ------------------------------------------------------------------ */

/* The unsigned type an integer operation of each size is done in, at least
 * 32 bits wide so that uint16 * uint16 cannot overflow a promoted int; and
 * the width in bits. */
#define KRT_OPTYPE_1 uint32_t
#define KRT_OPTYPE_2 uint32_t
#define KRT_OPTYPE_4 uint32_t
#define KRT_OPTYPE_8 uint64_t
#define KRT_BITS_1 8
#define KRT_BITS_2 16
#define KRT_BITS_4 32
#define KRT_BITS_8 64
/* The unsigned integer type of each size (the bits of a float). */
#define KRT_UINT_OF_1 uint8_t
#define KRT_UINT_OF_2 uint16_t
#define KRT_UINT_OF_4 uint32_t
#define KRT_UINT_OF_8 uint64_t

/* Each integer row of KRT_SCALAR_TYPES: (suffix, T, U, BITS). */
#define KRT_INT_COMMON_(s, T, U, BITS)                                       \
    KRT_FN T krt_add_##s(T a, T b) { return (T)((U)a + (U)b); }              \
    KRT_FN T krt_sub_##s(T a, T b) { return (T)((U)a - (U)b); }              \
    KRT_FN T krt_mul_##s(T a, T b) { return (T)((U)a * (U)b); }              \
    KRT_FN T krt_neg_##s(T a) { return (T)((U)0 - (U)a); }                   \
    /* PTX clamps shift amounts: shifting by >= the width gives 0 (or the   \
     * sign for an arithmetic right shift); a negative amount is huge. */   \
    KRT_FN T krt_shl_##s(T a, T b)                                           \
    {                                                                        \
        return (U)b >= BITS ? (T)0 : (T)((U)a << (U)b);                      \
    }                                                                        \
    /* a ** b by repeated squaring, as numba's int_power. */                \
    KRT_FN U krt_upow_##s(U a, uint64_t e)                                   \
    {                                                                        \
        U r = 1;                                                             \
        while (e != 0) {                                                     \
            if (e & 1)                                                       \
                r = (U)(r * a);                                              \
            e >>= 1;                                                         \
            a = (U)(a * a);                                                  \
        }                                                                    \
        return r;                                                            \
    }                                                                        \
    KRT_FN T krt_min_##s(T a, T b) { return b < a ? b : a; }                 \
    KRT_FN T krt_max_##s(T a, T b) { return b > a ? b : a; }

#define KRT_INT_SIGNED_(s, T, U, BITS)                                       \
    KRT_INT_COMMON_(s, T, U, BITS)                                           \
    KRT_FN T krt_shr_##s(T a, T b)                                           \
    {                                                                        \
        return (U)b >= BITS ? (T)(a < 0 ? -1 : 0) : (T)(a >> b);             \
    }                                                                        \
    /* Python's floor division; numba returns 0 for x // 0 and for         \
     * MIN // -1 (which would trap in C). */                                \
    KRT_FN T krt_floordiv_##s(T a, T b)                                      \
    {                                                                        \
        T q, r;                                                              \
        if (b == 0 || (b == -1 && a == (T)((U)1 << (BITS - 1))))             \
            return 0;                                                        \
        q = (T)(a / b);                                                      \
        r = (T)(a % b);                                                      \
        if (r != 0 && ((r < 0) != (b < 0)))                                  \
            q = (T)(q - 1);                                                  \
        return q;                                                            \
    }                                                                        \
    /* The remainder takes the divisor's sign. */                           \
    KRT_FN T krt_mod_##s(T a, T b)                                           \
    {                                                                        \
        T r;                                                                 \
        if (b == 0 || b == -1)                                               \
            return 0;                                                        \
        r = (T)(a % b);                                                      \
        if (r != 0 && ((r < 0) != (b < 0)))                                  \
            r = (T)(r + b);                                                  \
        return r;                                                            \
    }                                                                        \
    /* a ** b with b not a constant: numba's int_power returns `1.0 / r if  \
     * invert else r`, so the exact product goes through float64 and back  \
     * (saturating, as cvt.rzi), a constant b as well (numba 0.56). */    \
    KRT_FN T krt_pow_round_##s(T r)                                          \
    {                                                                        \
        double d = (double)r;                                                \
        return d >= (double)((U)1 << (BITS - 1)) ? (T)(((U)1 << (BITS - 1)) - 1) : (T)d; \
    }                                                                        \
    /* Negative exponents: 0 ** -n is MIN (numba's numpy error model),     \
     * 1 and -1 keep their magnitude, anything else truncates to 0. */      \
    KRT_FN T krt_pow_##s(T a, T b)                                           \
    {                                                                        \
        if (b < 0) {                                                         \
            if (a == 0)                                                      \
                return (T)((U)1 << (BITS - 1));                              \
            if (a == 1)                                                      \
                return 1;                                                    \
            if (a == -1)                                                     \
                return (T)((b & 1) ? -1 : 1);                                \
            return 0;                                                        \
        }                                                                    \
        return (T)krt_upow_##s((U)a, (uint64_t)b);                           \
    }                                                                        \
    KRT_FN T krt_powr_##s(T a, T b)                                          \
    {                                                                        \
        return b < 0 ? krt_pow_##s(a, b) : krt_pow_round_##s(krt_pow_##s(a, b)); \
    }                                                                        \
    KRT_FN T krt_abs_##s(T a) { return a < 0 ? krt_neg_##s(a) : a; }

#define KRT_INT_UNSIGNED_(s, T, U, BITS)                                     \
    KRT_INT_COMMON_(s, T, U, BITS)                                           \
    KRT_FN T krt_shr_##s(T a, T b) { return (U)b >= BITS ? (T)0 : (T)(a >> b); } \
    KRT_FN T krt_floordiv_##s(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); } \
    KRT_FN T krt_mod_##s(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }   \
    KRT_FN T krt_pow_round_##s(T r)                                          \
    {                                                                        \
        double d = (double)r;                                                \
        return d >= (double)((U)1 << (BITS - 1)) * 2.0 ? (T)~(T)0 : (T)d;    \
    }                                                                        \
    KRT_FN T krt_pow_##s(T a, T b) { return (T)krt_upow_##s((U)a, (uint64_t)b); } \
    KRT_FN T krt_powr_##s(T a, T b) { return krt_pow_round_##s(krt_pow_##s(a, b)); } \
    KRT_FN T krt_abs_##s(T a) { return a; }

#define KRT_INT_OPS_BOOL(s, T, size, fsfx)
#define KRT_INT_OPS_SINT(s, T, size, fsfx) KRT_INT_SIGNED_(s, T, KRT_OPTYPE_##size, KRT_BITS_##size)
#define KRT_INT_OPS_UINT(s, T, size, fsfx) KRT_INT_UNSIGNED_(s, T, KRT_OPTYPE_##size, KRT_BITS_##size)
#define KRT_INT_OPS_FLOAT(s, T, size, fsfx)
#define KRT_INT_OPS_COMPLEX(s, T, size, fsfx)   /* complex: kernrt_cmath.h */
KRT_SCALAR_BY_CLASS(KRT_INT_OPS)

/* Python's negative indices count from the end. */
KRT_FN int64_t krt_wrap_index(int64_t i, int64_t n) { return i < 0 ? i + n : i; }

/* ------------------------------------------------------------------ */
/* Floating point                                                      */
/* ------------------------------------------------------------------ */

/* Each floating row of KRT_SCALAR_TYPES: (suffix, T, and its <math.h>
 * functions floor, fmod, pow). */
#define KRT_FLOAT_OPS_(s, T, FLOOR, FMOD, POW)                               \
    /* numba's real_divmod (CPython's float_divmod): the quotient is       \
     * snapped to an integer, the remainder has the divisor's sign;        \
     * a zero divisor gives IEEE's x / 0 and fmod(x, 0). */                 \
    KRT_FN T krt_floordiv_##s(T a, T b)                                      \
    {                                                                        \
        T mod, div, fl;                                                      \
        if (b == 0)                                                          \
            return a / b;                                                    \
        mod = FMOD(a, b);                                                    \
        div = (a - mod) / b;                                                 \
        if (mod != 0 || mod != mod) {                                        \
            if ((b < 0) != (mod < 0))                                        \
                div -= 1;                                                    \
        }                                                                    \
        if (div != 0) {                                                      \
            fl = FLOOR(div);                                                 \
            if (div - fl > (T)0.5)                                           \
                fl += 1;                                                     \
            return fl;                                                       \
        }                                                                    \
        div = div * div;                                                     \
        return div * a / b;                                                  \
    }                                                                        \
    KRT_FN T krt_mod_##s(T a, T b)                                           \
    {                                                                        \
        T mod;                                                               \
        if (b == 0)                                                          \
            return FMOD(a, b);                                               \
        mod = FMOD(a, b);                                                    \
        if (mod != 0 || mod != mod) {                                        \
            if ((b < 0) != (mod < 0))                                        \
                mod += b;                                                    \
        } else {                                                             \
            mod = b < 0 ? (T)-0.0 : (T)0.0;                                  \
        }                                                                    \
        return mod;                                                          \
    }                                                                        \
    /* float ** int: numba squares repeatedly, up to 0x10000. */            \
    KRT_FN T krt_powi_##s(T a, int64_t b)                                    \
    {                                                                        \
        T r = 1;                                                             \
        uint64_t e = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;        \
        if (e > 0x10000)                                                     \
            return POW(a, (T)b);                                             \
        while (e != 0) {                                                     \
            if (e & 1)                                                       \
                r *= a;                                                      \
            e >>= 1;                                                         \
            a *= a;                                                          \
        }                                                                    \
        return b < 0 ? (T)1 / r : r;                                         \
    }                                                                        \
    /* Python's min/max: the first of equal or unordered operands wins. */  \
    KRT_FN T krt_min_##s(T a, T b) { return b < a ? b : a; }                 \
    KRT_FN T krt_max_##s(T a, T b) { return b > a ? b : a; }

#define KRT_FLOAT_OPS_BOOL(s, T, size, fsfx)
#define KRT_FLOAT_OPS_SINT(s, T, size, fsfx)
#define KRT_FLOAT_OPS_UINT(s, T, size, fsfx)
#define KRT_FLOAT_OPS_FLOAT(s, T, size, fsfx) KRT_FLOAT_OPS_(s, T, floor##fsfx, fmod##fsfx, pow##fsfx)
#define KRT_FLOAT_OPS_COMPLEX(s, T, size, fsfx)   /* complex: kernrt_cmath.h */
KRT_SCALAR_BY_CLASS(KRT_FLOAT_OPS)

/* numba's round_ndigits scales by 10**nd as p1 * p2 (p2 = 1e22 past 22
 * digits, so that p1 stays exact); nd >= 0 only. */
KRT_FN void krt_round_scale(int64_t nd, double *p1, double *p2)
{
    if (nd > 22) {
        *p1 = krt_powi_f64(10.0, nd - 22);
        *p2 = 1e22;
    } else {
        *p1 = krt_powi_f64(10.0, nd);
        *p2 = 1.0;
    }
}
/* round(x, ndigits) as numba-cuda's round_ndigits (cudaimpl.py
 * round_to_impl), for float64 and float32 alike (suite, issue 8): all of it
 * in double, its round(y) an int64 (cvt.rni.s64.f64: to nearest even,
 * saturating, so a zero is +0.0 and |y| >= 2**63 gives +-2**63), a float32
 * result narrowed once at the end.  (Numba's CPU target rounds with a
 * float-typed intrinsic instead: not what the GPU computes.) */
KRT_FN double krt_round_rni_s64(double y)
{
    if (y != y)
        return 0.0;
    if (y >= 9223372036854775807.0)
        return 9223372036854775808.0;
    if (y <= -9223372036854775808.0)
        return -9223372036854775808.0;
    return rint(y) + 0.0;   /* -0.0 + 0.0 is +0.0, as the int64 is */
}
KRT_FN double krt_round_ndigits_f64(double x, int64_t nd)
{
    double p1, p2, y, z;
    if (isinf(x) || isnan(x))
        return x;
    if (nd >= 0) {
        krt_round_scale(nd, &p1, &p2);
        y = (x * p1) * p2;
        if (isinf(y))
            return x;
    } else {
        p1 = krt_powi_f64(10.0, -nd);
        p2 = 1.0;
        y = x / p1;
    }
    z = krt_round_rni_s64(y);
    if (fabs(y - z) == 0.5)   /* halfway: round half to even */
        z = 2.0 * krt_round_rni_s64(y / 2.0);
    return nd >= 0 ? (z / p2) / p1 : z * p1;
}
KRT_FN float krt_round_ndigits_f32(float x, int64_t nd)
{
    return (float)krt_round_ndigits_f64((double)x, nd);
}

/* Float to integer: what cvt.rzi does on the GPU (saturate, NaN -> 0), so
 * that both backends agree where C leaves the conversion undefined; 8- and
 * 16-bit results go through int32 and wrap.  x <= lo gives tmin, x >= hi
 * gives tmax. */
#define KRT_CVT_(s, T, tmin, tmax, lo, hi)                                   \
    KRT_FN T krt_cvt_##s##_f64(double x)                                     \
    {                                                                        \
        if (x != x)                                                          \
            return 0;                                                        \
        if (x <= (lo))                                                       \
            return tmin;                                                     \
        if (x >= (hi))                                                       \
            return tmax;                                                     \
        return (T)x;                                                         \
    }                                                                        \
    KRT_FN T krt_cvt_##s##_f32(float x) { return krt_cvt_##s##_f64((double)x); }
KRT_CVT_(i64, int64_t, INT64_MIN, INT64_MAX, -9223372036854775808.0,
         9223372036854775808.0)
KRT_CVT_(u64, uint64_t, 0, UINT64_MAX, 0.0, 18446744073709551616.0)
KRT_CVT_(i32, int32_t, INT32_MIN, INT32_MAX, -2147483648.0, 2147483647.0)
KRT_CVT_(u32, uint32_t, 0, UINT32_MAX, 0.0, 4294967295.0)
#define KRT_CVT_NARROW_(s, T, via)                                           \
    KRT_FN T krt_cvt_##s##_f64(double x) { return (T)krt_cvt_##via##_f64(x); } \
    KRT_FN T krt_cvt_##s##_f32(float x) { return (T)krt_cvt_##via##_f64((double)x); }
KRT_CVT_NARROW_(i8, int8_t, i32)
KRT_CVT_NARROW_(i16, int16_t, i32)
KRT_CVT_NARROW_(u8, uint8_t, i32)
KRT_CVT_NARROW_(u16, uint16_t, i32)

/* ------------------------------------------------------------------ */
/* Arrays                                                              */
/* ------------------------------------------------------------------ */

/* A view of a C-contiguous shared or local array, to pass it to a device
 * function (whose array parameters are all views). */
KRT_FN krt_view krt_view_make(void *data, int ndim, int64_t n0, int64_t n1,
                              int64_t n2, int64_t itemsize)
{
    krt_view v;
    int i;
    memset(&v, 0, sizeof v);
    v.data = (char *)data;
    v.shape[0] = n0;
    v.shape[1] = n1;
    v.shape[2] = n2;
    v.strides[ndim > 0 ? ndim - 1 : 0] = itemsize;
    for (i = ndim - 2; i >= 0; i--)
        v.strides[i] = v.strides[i + 1] * v.shape[i + 1];
    return v;
}

/* issue 9: views.  a[start:stop:step] on dimension d of a view, Python's
 * slice.indices() (numba's fix_slice): negative bounds count from the end,
 * bounds clip, `has` bit 0 says start was given, bit 1 stop; the new
 * length is ceil((stop - start) / step), 0 if negative.  A step of 0 gives
 * an empty dimension. */
KRT_FN krt_view krt_view_slice(krt_view v, int d, int64_t start, int64_t stop,
                               int64_t step, int has)
{
    int64_t n = v.shape[d], len;
    int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
    if (step == 0) {
        v.shape[d] = 0;
        return v;
    }
    if (!(has & 1))
        start = step < 0 ? hi : lo;
    else if (start < 0)
        start = start + n < lo ? lo : start + n;
    else if (start > hi)
        start = hi;
    if (!(has & 2))
        stop = step < 0 ? lo : hi;
    else if (stop < 0)
        stop = stop + n < lo ? lo : stop + n;
    else if (stop > hi)
        stop = hi;
    if (step > 0)
        len = start < stop ? (stop - start - 1) / step + 1 : 0;
    else
        len = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
    if (len > 0)
        v.data += start * v.strides[d];
    v.shape[d] = len;
    v.strides[d] *= step;
    return v;
}

/* a[..., i, ...]: dimension d of a view taken at index i (negative counts
 * from the end), the later dimensions moved down. */
KRT_FN krt_view krt_view_index(krt_view v, int d, int64_t i)
{
    int k;
    if (i < 0)
        i += v.shape[d];
    v.data += i * v.strides[d];
    for (k = d; k + 1 < KRT_MAX_NDIM; k++) {
        v.shape[k] = v.shape[k + 1];
        v.strides[k] = v.strides[k + 1];
    }
    v.shape[KRT_MAX_NDIM - 1] = 0;
    v.strides[KRT_MAX_NDIM - 1] = 0;
    return v;
}

/* issue 9: a.T and a.transpose(axes): dimension k of the result is
 * dimension p_k of v (unused ones 0 and the rest of the permutation). */
KRT_FN krt_view krt_view_transpose(krt_view v, int p0, int p1, int p2, int p3)
{
    krt_view r = v;
    int p[4];
    int k;
    p[0] = p0;
    p[1] = p1;
    p[2] = p2;
    p[3] = p3;
    for (k = 0; k < 4 && k < KRT_MAX_NDIM; k++) {
        r.shape[k] = v.shape[p[k]];
        r.strides[k] = v.strides[p[k]];
    }
    return r;
}

/* a.reshape(n0, n1, n2) of a C-contiguous view of ndim dimensions: one
 * extent may be -1 (inferred); C strides.  A size that does not match
 * (numba raises NotImplementedError) gives an empty view. */
KRT_FN krt_view krt_view_reshape(krt_view v, int ndim, int nnew, int64_t n0,
                                 int64_t n1, int64_t n2, int64_t itemsize)
{
    krt_view r;
    int64_t size = 1, known = 1, n[3];
    int k, infer = -1;
    memset(&r, 0, sizeof r);
    r.data = v.data;
    n[0] = n0;
    n[1] = n1;
    n[2] = n2;
    for (k = 0; k < ndim; k++)
        size *= v.shape[k];
    for (k = 0; k < nnew; k++) {
        if (n[k] == -1 && infer < 0)
            infer = k;
        else
            known *= n[k];
    }
    if (infer >= 0)
        n[infer] = known > 0 && size % known == 0 ? size / known : -1;
    for (k = 0; k < nnew; k++)
        if (n[k] < 0)
            return r;
    known = 1;
    for (k = 0; k < nnew; k++)
        known *= n[k];
    if (known != size)
        return r;
    for (k = nnew - 1; k >= 0; k--) {
        r.shape[k] = n[k];
        r.strides[k] = itemsize;
        itemsize *= n[k];
    }
    return r;
}

/* a.view(dtype) of an ndim-D view whose elements are `from` bytes, now
 * `to` bytes: the last dimension, which must be contiguous (its stride
 * the old itemsize, or a single element) and hold a whole number of new
 * elements, rescaled (numba's _change_dtype; where it raises ValueError
 * the view is empty). */
KRT_FN krt_view krt_view_dtype(krt_view v, int ndim, int64_t from, int64_t to)
{
    int d = ndim - 1;
    int64_t bytes = v.shape[d] * from;
    if (from == to)
        return v;
    if ((v.strides[d] != from && v.shape[d] > 1) || bytes % to != 0) {
        memset(v.shape, 0, sizeof v.shape);
        return v;
    }
    v.shape[d] = bytes / to;
    v.strides[d] = to;
    return v;
}

/* records (rec): a.x of an array of records v (ndim dimensions): the view
 * of field x at byte offset off of each record, its own fnd (0..2)
 * dimensions n0, n1 of elements of esize bytes after v's */
KRT_FN krt_view krt_view_field(krt_view v, int ndim, int fnd, int64_t off, int64_t n0,
                               int64_t n1, int64_t esize)
{
    v.data += off;
    if (fnd > 0) {
        v.shape[ndim] = n0;
        v.strides[ndim] = fnd > 1 ? n1 * esize : esize;
    }
    if (fnd > 1) {
        v.shape[ndim + 1] = n1;
        v.strides[ndim + 1] = esize;
    }
    return v;
}

/* issue 9: the length of range(start, stop, step) (step != 0), for a
 * range iterated inside enumerate() or zip(). */
KRT_FN int64_t krt_range_len(int64_t start, int64_t stop, int64_t step)
{
    if (step > 0)
        return start < stop ? (int64_t)(((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step) + 1 : 0;
    return stop < start ? (int64_t)(((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step)) + 1 : 0;
}

/* str: char sequences (src/charseq.c), NumPy's 'S<n>' (units of 1 byte)
 * and '<U<n>' (4-byte code points), as numba-cuda's charseq.py reads them:
 * a value's length is up to its last nonzero unit (charseq_len); two
 * compare by their codes up to the shorter length, then by length
 * (charseq_eq, charseq_lt): the sign of krt_cs_cmp. */
KRT_FN uint32_t krt_cs_code(const void *p, int unit, int64_t i)
{
    return unit == 4 ? ((const uint32_t *)p)[i] : ((const unsigned char *)p)[i];
}

KRT_FN int64_t krt_cs_len(const void *p, int unit, int64_t n)
{
    while (n > 0 && krt_cs_code(p, unit, n - 1) == 0)
        n--;
    return n;
}

KRT_FN int krt_cs_cmp(const void *a, int ua, int64_t na, const void *b, int ub, int64_t nb)
{
    int64_t n = na < nb ? na : nb;
    for (int64_t i = 0; i < n; i++) {
        uint32_t x = krt_cs_code(a, ua, i), y = krt_cs_code(b, ub, i);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return na < nb ? -1 : na > nb ? 1 : 0;
}

#if defined(__CUDACC__)
/* Bytes of dynamic shared memory of this launch. */
static __device__ inline unsigned krt_dynamic_smem_bytes(void)
{
    unsigned r;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}
#endif

/* ------------------------------------------------------------------ */
/* Atomics: return the old value; numba's semantics                    */
/* ------------------------------------------------------------------ */

/* Bit casts for the compare-and-swap loops of float atomics. */
#define KRT_FLOAT_BITS_BOOL(s, T, size, fsfx)
#define KRT_FLOAT_BITS_SINT(s, T, size, fsfx)
#define KRT_FLOAT_BITS_UINT(s, T, size, fsfx)
#define KRT_FLOAT_BITS_FLOAT(s, T, size, fsfx)                               \
    KRT_FN KRT_UINT_OF_##size krt_##s##_bits(T x) { KRT_UINT_OF_##size u; memcpy(&u, &x, size); return u; } \
    KRT_FN T krt_bits_##s(KRT_UINT_OF_##size u) { T x; memcpy(&x, &u, size); return x; }
#define KRT_FLOAT_BITS_COMPLEX(s, T, size, fsfx)   /* complex: kernrt_cmath.h */
KRT_SCALAR_BY_CLASS(KRT_FLOAT_BITS)

#if defined(__CUDA_ARCH__)
/* One compare-and-swap on the bits of a float or an integer. */
KRT_FN uint32_t krt_cas_u32(uint32_t *p, uint32_t old, uint32_t nw)
{
    return atomicCAS((unsigned int *)p, old, nw);
}
KRT_FN uint64_t krt_cas_u64(uint64_t *p, uint64_t old, uint64_t nw)
{
    return atomicCAS((unsigned long long *)p, (unsigned long long)old,
                     (unsigned long long)nw);
}
#define KRT_LOAD_(p) (*(volatile __typeof__(*(p)) *)(p))
#else
/* The CPU backend runs blocks on several threads: GCC/Clang atomics. */
KRT_FN uint32_t krt_cas_u32(uint32_t *p, uint32_t old, uint32_t nw)
{
    __atomic_compare_exchange_n(p, &old, nw, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return old;
}
KRT_FN uint64_t krt_cas_u64(uint64_t *p, uint64_t old, uint64_t nw)
{
    __atomic_compare_exchange_n(p, &old, nw, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return old;
}
#define KRT_LOAD_(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#endif

/* Integer atomics on the CPU are single builtins or CAS loops; on the GPU
 * the CUDA intrinsic where one exists for the type, else the same CAS loop
 * on the unsigned bits. */
#define KRT_CPU_INT_ATOMICS_(s, T)                                           \
    KRT_FN T krt_cpu_atomic_add_##s(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
    KRT_FN T krt_cpu_atomic_sub_##s(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
    KRT_FN T krt_cpu_atomic_max_##s(T *p, T v)                               \
    {                                                                        \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                        \
        while (old < v && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
            ;                                                                \
        return old;                                                          \
    }                                                                        \
    KRT_FN T krt_cpu_atomic_min_##s(T *p, T v)                               \
    {                                                                        \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                        \
        while (old > v && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
            ;                                                                \
        return old;                                                          \
    }

#if !defined(__CUDA_ARCH__)
KRT_CPU_INT_ATOMICS_(i32, int32_t)
KRT_CPU_INT_ATOMICS_(u32, uint32_t)
KRT_CPU_INT_ATOMICS_(i64, int64_t)
KRT_CPU_INT_ATOMICS_(u64, uint64_t)
#define KRT_INT_ATOMIC_(op, s, T, cuda_expr)                                 \
    KRT_FN T krt_atomic_##op##_##s(T *p, T v) { return krt_cpu_atomic_##op##_##s(p, v); }
#else
#define KRT_INT_ATOMIC_(op, s, T, cuda_expr)                                 \
    KRT_FN T krt_atomic_##op##_##s(T *p, T v) { return (T)(cuda_expr); }
#endif

KRT_INT_ATOMIC_(add, i32, int32_t, atomicAdd((int *)p, (int)v))
KRT_INT_ATOMIC_(add, u32, uint32_t, atomicAdd((unsigned *)p, (unsigned)v))
KRT_INT_ATOMIC_(add, i64, int64_t, atomicAdd((unsigned long long *)p, (unsigned long long)v))
KRT_INT_ATOMIC_(add, u64, uint64_t, atomicAdd((unsigned long long *)p, (unsigned long long)v))
KRT_INT_ATOMIC_(sub, i32, int32_t, atomicSub((int *)p, (int)v))
KRT_INT_ATOMIC_(sub, u32, uint32_t, atomicSub((unsigned *)p, (unsigned)v))
KRT_INT_ATOMIC_(sub, i64, int64_t, atomicAdd((unsigned long long *)p, 0ull - (unsigned long long)v))
KRT_INT_ATOMIC_(sub, u64, uint64_t, atomicAdd((unsigned long long *)p, 0ull - (unsigned long long)v))
KRT_INT_ATOMIC_(max, i32, int32_t, atomicMax((int *)p, (int)v))
KRT_INT_ATOMIC_(max, u32, uint32_t, atomicMax((unsigned *)p, (unsigned)v))
KRT_INT_ATOMIC_(max, i64, int64_t, atomicMax((long long *)p, (long long)v))
KRT_INT_ATOMIC_(max, u64, uint64_t, atomicMax((unsigned long long *)p, (unsigned long long)v))
KRT_INT_ATOMIC_(min, i32, int32_t, atomicMin((int *)p, (int)v))
KRT_INT_ATOMIC_(min, u32, uint32_t, atomicMin((unsigned *)p, (unsigned)v))
KRT_INT_ATOMIC_(min, i64, int64_t, atomicMin((long long *)p, (long long)v))
KRT_INT_ATOMIC_(min, u64, uint64_t, atomicMin((unsigned long long *)p, (unsigned long long)v))

/* issue 10 (cpu): privatised integer atomics.  A 1-D contiguous integer
 * array parameter that the kernel only ever names as the target of
 * cuda.atomic.add/sub whose result is dropped (emit_cpu.c's priv_params)
 * gets, per block, a zeroed private copy on the worker's stack
 * (krt_priv_init; at most KRT_PRIV_BYTES): the block's adds go there, with
 * no lock, and krt_priv_flush_* adds each nonzero total to the array with
 * one hardware atomic when the block ends.  No thread can read the array
 * during the launch, and integer sums are the same in any order (modulo
 * 2^n), so the result is the same.  krt_priv_clash gives the copy up
 * (nbytes 0: every add goes to memory, atomically) where another array
 * parameter overlaps the array; an index outside it does the same. */
#if !defined(__CUDACC__)
#define KRT_PRIV_BYTES 1024
typedef struct krt_priv {
    uintptr_t base;          /* the array's first byte */
    uintptr_t nbytes;        /* of the private copy (0: none) */
    unsigned char *buf;
} krt_priv;
KRT_CPU_FN void krt_priv_init(krt_priv *pv, const krt_view *v, size_t isz, int64_t *buf)
{
    pv->base = (uintptr_t)v->data;
    pv->buf = (unsigned char *)buf;
    pv->nbytes = 0;
    if (v->strides[0] == (int64_t)isz && v->shape[0] > 0 &&
        v->shape[0] <= (int64_t)(KRT_PRIV_BYTES / isz))
        pv->nbytes = (uintptr_t)v->shape[0] * isz;
    __builtin_memset(buf, 0, pv->nbytes);
}
KRT_CPU_FN void krt_priv_clash(krt_priv *pv, const krt_view *q, int ndim, size_t isz)
{
    uintptr_t lo = (uintptr_t)q->data, hi = lo + isz;
    int d;
    for (d = 0; d < ndim; d++) {
        int64_t e;
        if (q->shape[d] <= 0)
            return;          /* no element */
        e = (q->shape[d] - 1) * q->strides[d];
        if (e < 0)
            lo -= (uintptr_t)-e;
        else
            hi += (uintptr_t)e;
    }
    if (lo < pv->base + pv->nbytes && pv->base < hi)
        pv->nbytes = 0;
}
#define KRT_PRIV_OPS_(s, T, U)                                               \
    KRT_CPU_FN void krt_priv_add_##s(const krt_priv *pv, T *p, T v)          \
    {                                                                        \
        uintptr_t d = (uintptr_t)p - pv->base;                               \
        if (d < pv->nbytes) {                                                \
            T *q = (T *)(void *)(pv->buf + d);                               \
            *q = (T)((U)*q + (U)v);                                          \
        } else {                                                             \
            (void)krt_atomic_add_##s(p, v);                                  \
        }                                                                    \
    }                                                                        \
    KRT_CPU_FN void krt_priv_sub_##s(const krt_priv *pv, T *p, T v)          \
    {                                                                        \
        uintptr_t d = (uintptr_t)p - pv->base;                               \
        if (d < pv->nbytes) {                                                \
            T *q = (T *)(void *)(pv->buf + d);                               \
            *q = (T)((U)*q - (U)v);                                          \
        } else {                                                             \
            (void)krt_atomic_sub_##s(p, v);                                  \
        }                                                                    \
    }                                                                        \
    /* the same at index i of the 1-D array (data, stride), which the      \
     * translator knows is in [0, n): in the copy when it holds n elements \
     * (a test the loop around it can make once), without the address     \
     * arithmetic and its range test */                                    \
    KRT_CPU_FN void krt_priv_addn_##s(const krt_priv *pv, int64_t i, int64_t n, char *data, \
                                      int64_t stride, T v)                   \
    {                                                                        \
        if (pv->nbytes >= (uintptr_t)n * sizeof(T)) {                        \
            T *q = (T *)(void *)pv->buf + i;                                 \
            *q = (T)((U)*q + (U)v);                                          \
        } else {                                                             \
            krt_priv_add_##s(pv, (T *)(void *)(data + i * stride), v);       \
        }                                                                    \
    }                                                                        \
    /* (subtracting v adds its negation, modulo 2^n) */                      \
    KRT_CPU_FN void krt_priv_subn_##s(const krt_priv *pv, int64_t i, int64_t n, char *data, \
                                      int64_t stride, T v)                   \
    {                                                                        \
        krt_priv_addn_##s(pv, i, n, data, stride, (T)((U)0 - (U)v));         \
    }                                                                        \
    KRT_CPU_FN void krt_priv_flush_##s(const krt_priv *pv)                   \
    {                                                                        \
        const T *q = (const T *)(const void *)pv->buf;                       \
        size_t k, n = pv->nbytes / sizeof(T);                                \
        for (k = 0; k < n; k++)                                              \
            if (q[k] != 0)                                                   \
                (void)krt_atomic_add_##s((T *)pv->base + k, q[k]);           \
    }
KRT_PRIV_OPS_(i32, int32_t, uint32_t)
KRT_PRIV_OPS_(u32, uint32_t, uint32_t)
KRT_PRIV_OPS_(i64, int64_t, uint64_t)
KRT_PRIV_OPS_(u64, uint64_t, uint64_t)
#endif

/* Float add/sub: the CUDA intrinsic on the GPU (sub adds the negation,
 * which IEEE makes identical), a CAS loop on the CPU. */
/* Spelled out per type: token pasting cannot build uint32_t names. */
KRT_FN float krt_cas_add_f32(float *p, float v)
{
    uint32_t old = KRT_LOAD_((uint32_t *)p), seen;
    for (;;) {
        seen = krt_cas_u32((uint32_t *)p, old, krt_f32_bits(krt_bits_f32(old) + v));
        if (seen == old)
            return krt_bits_f32(old);
        old = seen;
    }
}
KRT_FN double krt_cas_add_f64(double *p, double v)
{
    uint64_t old = KRT_LOAD_((uint64_t *)p), seen;
    for (;;) {
        seen = krt_cas_u64((uint64_t *)p, old, krt_f64_bits(krt_bits_f64(old) + v));
        if (seen == old)
            return krt_bits_f64(old);
        old = seen;
    }
}

KRT_FN float krt_atomic_add_f32(float *p, float v)
{
#if defined(__CUDA_ARCH__)
    return atomicAdd(p, v);
#else
    return krt_cas_add_f32(p, v);
#endif
}
KRT_FN double krt_atomic_add_f64(double *p, double v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
    return atomicAdd(p, v);
#else
    return krt_cas_add_f64(p, v);
#endif
}
KRT_FN float krt_atomic_sub_f32(float *p, float v) { return krt_atomic_add_f32(p, -v); }
KRT_FN double krt_atomic_sub_f64(double *p, double v) { return krt_atomic_add_f64(p, -v); }

/* Float max/min as numba's ___numba_atomic_*_{max,min,nanmax,nanmin}:
 * max/min leave memory alone when either value is NaN; nanmax/nanmin
 * ignore a NaN operand but replace a NaN in memory.  They return the value
 * first read, as numba does. */
#define KRT_FLOAT_MINMAX_(s, T, B, name, SKIP, GO)                           \
    KRT_FN T krt_atomic_##name##_##s(T *p, T v)                              \
    {                                                                        \
        B bits = KRT_LOAD_((B *)p), seen;                                    \
        T first = krt_bits_##s(bits), cur = first;                           \
        if (SKIP)                                                            \
            return first;                                                    \
        while (GO) {                                                         \
            seen = krt_cas_##B((B *)p, bits, krt_##s##_bits(v));             \
            if (seen == bits)                                                \
                break;                                                       \
            bits = seen;                                                     \
            cur = krt_bits_##s(bits);                                        \
        }                                                                    \
        return first;                                                        \
    }
#define KRT_FLOAT_MINMAX_ALL_(s, T, B)                                       \
    KRT_FLOAT_MINMAX_(s, T, B, max, (v != v || cur != cur), (cur < v))       \
    KRT_FLOAT_MINMAX_(s, T, B, min, (v != v || cur != cur), (cur > v))       \
    KRT_FLOAT_MINMAX_(s, T, B, nanmax, (v != v), (!(cur >= v)))              \
    KRT_FLOAT_MINMAX_(s, T, B, nanmin, (v != v), (!(cur <= v)))
#define krt_cas_uint32_t krt_cas_u32
#define krt_cas_uint64_t krt_cas_u64
#define KRT_FLOAT_MINMAX_BOOL(s, T, size, fsfx)
#define KRT_FLOAT_MINMAX_SINT(s, T, size, fsfx)
#define KRT_FLOAT_MINMAX_UINT(s, T, size, fsfx)
#define KRT_FLOAT_MINMAX_FLOAT(s, T, size, fsfx) KRT_FLOAT_MINMAX_ALL_(s, T, KRT_UINT_OF_##size)
#define KRT_FLOAT_MINMAX_COMPLEX(s, T, size, fsfx)   /* complex: kernrt_cmath.h */
KRT_SCALAR_BY_CLASS(KRT_FLOAT_MINMAX)
#undef krt_cas_uint32_t
#undef krt_cas_uint64_t

/* Integer nanmax/nanmin are max/min. */
#define KRT_INT_NANMINMAX_(s, T)                                             \
    KRT_FN T krt_atomic_nanmax_##s(T *p, T v) { return krt_atomic_max_##s(p, v); } \
    KRT_FN T krt_atomic_nanmin_##s(T *p, T v) { return krt_atomic_min_##s(p, v); }
KRT_INT_NANMINMAX_(i32, int32_t)
KRT_INT_NANMINMAX_(u32, uint32_t)
KRT_INT_NANMINMAX_(i64, int64_t)
KRT_INT_NANMINMAX_(u64, uint64_t)

/* Bitwise atomics, exchange, compare-and-swap (integers, as numba), and
 * CUDA's wrapping inc/dec on unsigned ints:
 *   inc: old >= v ? 0 : old + 1        dec: (old == 0 || old > v) ? v : old - 1
 * The CPU side is GCC's __atomic builtins; 64-bit inc/dec are CAS loops on
 * both sides (CUDA has atomicInc/atomicDec for 32 bits only). */
#if !defined(__CUDA_ARCH__)
#define KRT_CPU_BIT_ATOMICS_(s, T)                                           \
    KRT_FN T krt_atomic_and_##s(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
    KRT_FN T krt_atomic_or_##s(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); } \
    KRT_FN T krt_atomic_xor_##s(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
    KRT_FN T krt_atomic_exch_##s(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
    KRT_FN T krt_atomic_cas_##s(T *p, T old, T v)                            \
    {                                                                        \
        __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return old;                                                          \
    }
KRT_CPU_BIT_ATOMICS_(i32, int32_t)
KRT_CPU_BIT_ATOMICS_(u32, uint32_t)
KRT_CPU_BIT_ATOMICS_(i64, int64_t)
KRT_CPU_BIT_ATOMICS_(u64, uint64_t)
#else
/* X(suffix, T, the CUDA integer type the intrinsics take) */
#define KRT_CUDA_BIT_ATOMICS_(s, T, C)                                       \
    KRT_FN T krt_atomic_and_##s(T *p, T v) { return (T)atomicAnd((C *)p, (C)v); } \
    KRT_FN T krt_atomic_or_##s(T *p, T v) { return (T)atomicOr((C *)p, (C)v); } \
    KRT_FN T krt_atomic_xor_##s(T *p, T v) { return (T)atomicXor((C *)p, (C)v); } \
    KRT_FN T krt_atomic_exch_##s(T *p, T v) { return (T)atomicExch((C *)p, (C)v); } \
    KRT_FN T krt_atomic_cas_##s(T *p, T old, T v) { return (T)atomicCAS((C *)p, (C)old, (C)v); }
KRT_CUDA_BIT_ATOMICS_(i32, int32_t, int)
KRT_CUDA_BIT_ATOMICS_(u32, uint32_t, unsigned)
KRT_CUDA_BIT_ATOMICS_(i64, int64_t, unsigned long long)
KRT_CUDA_BIT_ATOMICS_(u64, uint64_t, unsigned long long)
#endif

#define KRT_INC_DEC_(s, T, CAS)                                              \
    KRT_FN T krt_inc_step_##s(T old, T v) { return old >= v ? (T)0 : (T)(old + 1); } \
    KRT_FN T krt_dec_step_##s(T old, T v) { return (old == 0 || old > v) ? v : (T)(old - 1); } \
    KRT_FN T krt_cas_inc_##s(T *p, T v)                                      \
    {                                                                        \
        T old = KRT_LOAD_(p), seen;                                          \
        while ((seen = CAS(p, old, krt_inc_step_##s(old, v))) != old)        \
            old = seen;                                                      \
        return old;                                                          \
    }                                                                        \
    KRT_FN T krt_cas_dec_##s(T *p, T v)                                      \
    {                                                                        \
        T old = KRT_LOAD_(p), seen;                                          \
        while ((seen = CAS(p, old, krt_dec_step_##s(old, v))) != old)        \
            old = seen;                                                      \
        return old;                                                          \
    }
KRT_INC_DEC_(u32, uint32_t, krt_cas_u32)
KRT_INC_DEC_(u64, uint64_t, krt_cas_u64)
KRT_FN uint32_t krt_atomic_inc_u32(uint32_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return atomicInc((unsigned *)p, v);
#else
    return krt_cas_inc_u32(p, v);
#endif
}
KRT_FN uint32_t krt_atomic_dec_u32(uint32_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return atomicDec((unsigned *)p, v);
#else
    return krt_cas_dec_u32(p, v);
#endif
}
KRT_FN uint64_t krt_atomic_inc_u64(uint64_t *p, uint64_t v) { return krt_cas_inc_u64(p, v); }
KRT_FN uint64_t krt_atomic_dec_u64(uint64_t *p, uint64_t v) { return krt_cas_dec_u64(p, v); }

/* ------------------------------------------------------------------ */
/* Bit intrinsics (cuda.popc, clz, ffs, brev) at the operand's width   */
/* ------------------------------------------------------------------ */

/* numba lowers popc/clz to llvm.ctpop/ctlz of the operand's own width
 * (clz(0) is the width), ffs to __nv_ffs/__nv_ffsll (1-based position of
 * the lowest set bit, 0 for 0), brev to __nv_brev/__nv_brevll. */
#if defined(__CUDA_ARCH__)
#define KRT_POPC32_(x) __popc(x)
#define KRT_POPC64_(x) __popcll(x)
#define KRT_CLZ32_(x) __clz((int)(x))
#define KRT_CLZ64_(x) __clzll((long long)(x))
#define KRT_FFS32_(x) __ffs((int)(x))
#define KRT_FFS64_(x) __ffsll((long long)(x))
#else
#define KRT_POPC32_(x) __builtin_popcount(x)
#define KRT_POPC64_(x) __builtin_popcountll(x)
#define KRT_CLZ32_(x) ((x) ? __builtin_clz(x) : 32)
#define KRT_CLZ64_(x) ((x) ? __builtin_clzll(x) : 64)
#define KRT_FFS32_(x) __builtin_ffs((int)(x))
#define KRT_FFS64_(x) __builtin_ffsll((long long)(x))
#endif
/* X(suffix, T, unsigned type of the same width, BITS) */
#define KRT_BITS_SMALL_(s, T, U, BITS)                                       \
    KRT_FN int krt_popc_##s(T x) { return KRT_POPC32_((unsigned)(U)x); }     \
    KRT_FN int krt_clz_##s(T x) { return KRT_CLZ32_((unsigned)(U)x) - (32 - BITS); } \
    KRT_FN int krt_ffs_##s(T x) { return KRT_FFS32_((unsigned)(U)x); }
#define KRT_BITS_64_(s, T)                                                   \
    KRT_FN int krt_popc_##s(T x) { return KRT_POPC64_((unsigned long long)x); } \
    KRT_FN int krt_clz_##s(T x) { return KRT_CLZ64_((unsigned long long)x); } \
    KRT_FN int krt_ffs_##s(T x) { return KRT_FFS64_((unsigned long long)x); }
/* Each integer row of KRT_SCALAR_TYPES, by its size. */
#define KRT_BIT_OPS_BOOL(s, T, size, fsfx)
#define KRT_BIT_OPS_SINT(s, T, size, fsfx) KRT_BIT_OPS_##size(s, T)
#define KRT_BIT_OPS_UINT(s, T, size, fsfx) KRT_BIT_OPS_##size(s, T)
#define KRT_BIT_OPS_FLOAT(s, T, size, fsfx)
#define KRT_BIT_OPS_1(s, T) KRT_BITS_SMALL_(s, T, KRT_UINT_OF_1, KRT_BITS_1)
#define KRT_BIT_OPS_2(s, T) KRT_BITS_SMALL_(s, T, KRT_UINT_OF_2, KRT_BITS_2)
#define KRT_BIT_OPS_4(s, T) KRT_BITS_SMALL_(s, T, KRT_UINT_OF_4, KRT_BITS_4)
#define KRT_BIT_OPS_8(s, T) KRT_BITS_64_(s, T)
#define KRT_BIT_OPS_COMPLEX(s, T, size, fsfx)   /* complex: kernrt_cmath.h */
KRT_SCALAR_BY_CLASS(KRT_BIT_OPS)

KRT_FN uint32_t krt_brev_u32(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __brev(x);
#else
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
#endif
}
KRT_FN uint64_t krt_brev_u64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __brevll(x);
#else
    return ((uint64_t)krt_brev_u32((uint32_t)x) << 32) | krt_brev_u32((uint32_t)(x >> 32));
#endif
}

/* cuda.nanosleep(ns): a hint; the CPU threads of a block run one at a
 * time anyway, so it does nothing there. */
KRT_FN void krt_nanosleep(uint32_t ns)
{
#if defined(__CUDA_ARCH__)
    __nanosleep(ns);
#else
    (void)ns;
#endif
}

/* Memory fences: CUDA's three scopes; the CPU backend's threads of one
 * block run on one OS thread, blocks on several: one full fence. */
#if defined(__CUDA_ARCH__)
#define krt_threadfence() __threadfence()
#define krt_threadfence_block() __threadfence_block()
#define krt_threadfence_system() __threadfence_system()
#elif defined(KRT_TSAN_)
/* GCC rejects atomic_thread_fence under -fsanitize=thread (-Wtsan): a
 * sequentially consistent read-modify-write of one word instead, which
 * ThreadSanitizer follows and which is a full fence on the hardware */
KRT_FN void krt_fence_tsan_(void)
{
    static int word;
    (void)__atomic_fetch_add(&word, 0, __ATOMIC_SEQ_CST);
}
#define krt_threadfence() krt_fence_tsan_()
#define krt_threadfence_block() krt_fence_tsan_()
#define krt_threadfence_system() krt_fence_tsan_()
#else
#define krt_threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define krt_threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define krt_threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* ------------------------------------------------------------------ */
/* Warps                                                               */
/* ------------------------------------------------------------------ */

#if defined(__CUDACC__)
/* numba reads the %laneid and %lanemask_lt special registers. */
static __device__ inline int32_t krt_laneid(void)
{
    unsigned r;
    asm("mov.u32 %0, %%laneid;" : "=r"(r));
    return (int32_t)r;
}
static __device__ inline uint32_t krt_lanemask_lt(void)
{
    unsigned r;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
    return r;
}
#endif

/* The CPU backend: a thread's linear index in its block (CUDA's warp
 * numbering: x fastest), its lane and the lanes below it. */
KRT_FN unsigned krt_cpu_linear_tid(const krt_cpu_block *b, krt_dim3 t)
{
    return (t.z * b->block_dim.y + t.y) * b->block_dim.x + t.x;
}
KRT_FN int32_t krt_cpu_laneid(const krt_cpu_block *b, krt_dim3 t)
{
    return (int32_t)(krt_cpu_linear_tid(b, t) & 31u);
}
KRT_FN uint32_t krt_cpu_lanemask_lt(const krt_cpu_block *b, krt_dim3 t)
{
    return (1u << (krt_cpu_linear_tid(b, t) & 31u)) - 1u;
}
KRT_FN unsigned krt_cpu_nthreads(const krt_cpu_block *b)
{
    return b->block_dim.x * b->block_dim.y * b->block_dim.z;
}

/* warp (issue 10): one level of a shuffle-reduction tree on the CPU (see
 * print_warp_tree in src/emit_cpu.c): lv[0..wn) holds the values v of the
 * wn lanes of one warp, every lane active, and each lane l computes
 * v + shfl_down_sync(0xffffffff, v, d): lane l + d's value below wn - d,
 * its own above.  Lane l reads lane l + d before that lane writes, so the
 * update is in place.  A full warp (lv has 64 elements) first copies lanes
 * 32 - d .. 31 to lv[32 ..): then every lane adds lv[l + d], its own value
 * where it has no source, and the lanes run as 16-byte vectors (GCC and
 * Clang vector extensions: SSE2 on x86-64, NEON on AArch64), the same IEEE
 * additions lane by lane. */
#if defined(__CUDACC__)
#define KRT_LANES_FN_ static inline   /* host code: the CPU backend's */
#else
#define KRT_LANES_FN_ KRT_FN
#endif
#if defined(__GNUC__)
typedef float krt_lanevec_f32 __attribute__((vector_size(16)));
typedef double krt_lanevec_f64 __attribute__((vector_size(16)));
#define KRT_LANES_DOWN_ADD_(s, T)                                            \
    KRT_LANES_FN_ void krt_lanes_down_add_##s(T *lv, size_t wn, int64_t d)   \
    {                                                                        \
        const size_t n = sizeof(krt_lanevec_##s) / sizeof(T);               \
        size_t l = 0;                                                        \
        krt_lanevec_##s a, b;                                                \
        if (wn == 32 && d < 32) {                                            \
            for (l = 0; l < (size_t)d; l += n) {                             \
                __builtin_memcpy(&a, lv + 32 - d + l, sizeof a);             \
                __builtin_memcpy(lv + 32 + l, &a, sizeof a);                 \
            }                                                                \
            for (l = 0; l < 32; l += n) {                                    \
                __builtin_memcpy(&a, lv + l, sizeof a);                      \
                __builtin_memcpy(&b, lv + l + d, sizeof b);                  \
                a = a + b;                                                   \
                __builtin_memcpy(lv + l, &a, sizeof a);                      \
            }                                                                \
            return;                                                          \
        }                                                                    \
        for (; (int64_t)l + d < (int64_t)wn; l++)                            \
            lv[l] = lv[l] + lv[l + d];                                       \
        for (; l < wn; l++)                                                  \
            lv[l] = lv[l] + lv[l];                                           \
    }
#else
#define KRT_LANES_DOWN_ADD_(s, T)                                            \
    KRT_LANES_FN_ void krt_lanes_down_add_##s(T *lv, size_t wn, int64_t d)   \
    {                                                                        \
        size_t l = 0;                                                        \
        for (; (int64_t)l + d < (int64_t)wn; l++)                            \
            lv[l] = lv[l] + lv[l + d];                                       \
        for (; l < wn; l++)                                                  \
            lv[l] = lv[l] + lv[l];                                           \
    }
#endif
KRT_LANES_DOWN_ADD_(f32, float)
KRT_LANES_DOWN_ADD_(f64, double)

/* The deltas a tree's loop took (kernc records them once per block, up to
 * KRT_LANES_MAXLEV): the classic 16, 8, 4, 2, 1? */
#define KRT_LANES_MAXLEV 64
KRT_LANES_FN_ int krt_lanes_is_tree16(const int64_t *lev, int64_t n)
{
    return n == 5 && lev[0] == 16 && lev[1] == 8 && lev[2] == 4 && lev[3] == 2 && lev[4] == 1;
}

/* The classic tree (deltas 16, 8, 4, 2, 1) of a full warp of float32 in
 * eight 4-lane vectors: the same additions as krt_lanes_down_add_f32 level
 * by level, lane by lane (a lane without a source adds its own value). */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
KRT_LANES_FN_ void krt_lanes_tree16_add_f32(float *lv)
{
    krt_lanevec_f32 c0, c1, c2, c3, c4, c5, c6, c7;
    __builtin_memcpy(&c0, lv, sizeof c0);
    __builtin_memcpy(&c1, lv + 4, sizeof c1);
    __builtin_memcpy(&c2, lv + 8, sizeof c2);
    __builtin_memcpy(&c3, lv + 12, sizeof c3);
    __builtin_memcpy(&c4, lv + 16, sizeof c4);
    __builtin_memcpy(&c5, lv + 20, sizeof c5);
    __builtin_memcpy(&c6, lv + 24, sizeof c6);
    __builtin_memcpy(&c7, lv + 28, sizeof c7);
    /* 16: lanes 0..15 from 16..31, the others their own */
    c0 = c0 + c4; c1 = c1 + c5; c2 = c2 + c6; c3 = c3 + c7;
    c4 = c4 + c4; c5 = c5 + c5; c6 = c6 + c6; c7 = c7 + c7;
    /* 8 */
    c0 = c0 + c2; c1 = c1 + c3; c2 = c2 + c4; c3 = c3 + c5;
    c4 = c4 + c6; c5 = c5 + c7; c6 = c6 + c6; c7 = c7 + c7;
    /* 4 */
    c0 = c0 + c1; c1 = c1 + c2; c2 = c2 + c3; c3 = c3 + c4;
    c4 = c4 + c5; c5 = c5 + c6; c6 = c6 + c7; c7 = c7 + c7;
    /* 2: across neighbouring vectors */
    c0 = c0 + __builtin_shufflevector(c0, c1, 2, 3, 4, 5);
    c1 = c1 + __builtin_shufflevector(c1, c2, 2, 3, 4, 5);
    c2 = c2 + __builtin_shufflevector(c2, c3, 2, 3, 4, 5);
    c3 = c3 + __builtin_shufflevector(c3, c4, 2, 3, 4, 5);
    c4 = c4 + __builtin_shufflevector(c4, c5, 2, 3, 4, 5);
    c5 = c5 + __builtin_shufflevector(c5, c6, 2, 3, 4, 5);
    c6 = c6 + __builtin_shufflevector(c6, c7, 2, 3, 4, 5);
    c7 = c7 + __builtin_shufflevector(c7, c7, 2, 3, 2, 3);
    /* 1 */
    c0 = c0 + __builtin_shufflevector(c0, c1, 1, 2, 3, 4);
    c1 = c1 + __builtin_shufflevector(c1, c2, 1, 2, 3, 4);
    c2 = c2 + __builtin_shufflevector(c2, c3, 1, 2, 3, 4);
    c3 = c3 + __builtin_shufflevector(c3, c4, 1, 2, 3, 4);
    c4 = c4 + __builtin_shufflevector(c4, c5, 1, 2, 3, 4);
    c5 = c5 + __builtin_shufflevector(c5, c6, 1, 2, 3, 4);
    c6 = c6 + __builtin_shufflevector(c6, c7, 1, 2, 3, 4);
    c7 = c7 + __builtin_shufflevector(c7, c7, 1, 2, 3, 3);
    __builtin_memcpy(lv, &c0, sizeof c0);
    __builtin_memcpy(lv + 4, &c1, sizeof c1);
    __builtin_memcpy(lv + 8, &c2, sizeof c2);
    __builtin_memcpy(lv + 12, &c3, sizeof c3);
    __builtin_memcpy(lv + 16, &c4, sizeof c4);
    __builtin_memcpy(lv + 20, &c5, sizeof c5);
    __builtin_memcpy(lv + 24, &c6, sizeof c6);
    __builtin_memcpy(lv + 28, &c7, sizeof c7);
}
/* Lane 0's result of that tree alone (a warp whose other lanes' results
 * nobody reads: kernc's print_tree_fused), by the same additions: lanes
 * 0..3 of each level need lanes 0..7 of the level before. */
KRT_LANES_FN_ float krt_lanes_tree16_lane0_f32(const float *lv)
{
    krt_lanevec_f32 c0, c1, c2, c3, c4, c5, c6, c7;
    __builtin_memcpy(&c0, lv, sizeof c0);
    __builtin_memcpy(&c1, lv + 4, sizeof c1);
    __builtin_memcpy(&c2, lv + 8, sizeof c2);
    __builtin_memcpy(&c3, lv + 12, sizeof c3);
    __builtin_memcpy(&c4, lv + 16, sizeof c4);
    __builtin_memcpy(&c5, lv + 20, sizeof c5);
    __builtin_memcpy(&c6, lv + 24, sizeof c6);
    __builtin_memcpy(&c7, lv + 28, sizeof c7);
    c0 = c0 + c4; c1 = c1 + c5; c2 = c2 + c6; c3 = c3 + c7;   /* 16 */
    c0 = c0 + c2; c1 = c1 + c3;                               /* 8 */
    c0 = c0 + c1;                                             /* 4 */
    c0 = c0 + __builtin_shufflevector(c0, c0, 2, 3, 2, 3);    /* 2 */
    c0 = c0 + __builtin_shufflevector(c0, c0, 1, 1, 1, 1);    /* 1 */
    return c0[0];
}
#else
KRT_LANES_FN_ void krt_lanes_tree16_add_f32(float *lv)
{
    int64_t d;
    for (d = 16; d > 0; d /= 2)
        krt_lanes_down_add_f32(lv, 32, d);
}
KRT_LANES_FN_ float krt_lanes_tree16_lane0_f32(const float *lv)
{
    float t[64];
    int l;
    for (l = 0; l < 32; l++)
        t[l] = lv[l];
    krt_lanes_tree16_add_f32(t);
    return t[0];
}
#endif

/* The lane array of a tree from the frames and back: field is the first
 * lane's frame field, stride the frames' size; a full warp four lanes a
 * step (the frames are an array of structs: no vector loads). */
#define KRT_LANES_COPY_(s, T)                                                \
    KRT_LANES_FN_ void krt_lanes_get_##s(T *lv, const void *field, size_t stride, size_t wn) \
    {                                                                        \
        const char *f = (const char *)field;                                 \
        size_t l = 0;                                                        \
        if (wn == 32)                                                        \
            for (; l < 32; l += 4, f += 4 * stride) {                        \
                lv[l] = *(const T *)f;                                       \
                lv[l + 1] = *(const T *)(f + stride);                        \
                lv[l + 2] = *(const T *)(f + 2 * stride);                    \
                lv[l + 3] = *(const T *)(f + 3 * stride);                    \
            }                                                                \
        for (; l < wn; l++, f += stride)                                     \
            lv[l] = *(const T *)f;                                           \
    }                                                                        \
    KRT_LANES_FN_ void krt_lanes_put_##s(const T *lv, void *field, size_t stride, size_t wn) \
    {                                                                        \
        char *f = (char *)field;                                             \
        size_t l = 0;                                                        \
        if (wn == 32)                                                        \
            for (; l < 32; l += 4, f += 4 * stride) {                        \
                *(T *)f = lv[l];                                             \
                *(T *)(f + stride) = lv[l + 1];                              \
                *(T *)(f + 2 * stride) = lv[l + 2];                          \
                *(T *)(f + 3 * stride) = lv[l + 3];                          \
            }                                                                \
        for (; l < wn; l++, f += stride)                                     \
            *(T *)f = lv[l];                                                 \
    }
KRT_LANES_COPY_(f32, float)
KRT_LANES_COPY_(f64, double)

/* ------------------------------------------------------------------ */
/* Debug: bounds checks and assertions (debug=True, kernc -g)          */
/* ------------------------------------------------------------------ */

/* An index checked against the length of its axis (negative indices wrap
 * first, as numba's boundscheck does).  Out of bounds: on the GPU the
 * message is printed and the kernel traps (the launch then fails with a
 * CUDA error); on the CPU the launch fails with KRT_EKERNEL and this
 * message, and the access goes to a scratch "sink" instead of memory (see
 * krt_cpu_pick), so nothing outside the array is read or written. */
#if defined(__CUDACC__)
static __device__ inline int64_t krt_ck_dev(int64_t i, int64_t n, int axis, const char *file,
                                            int line)
{
    int64_t j = i < 0 ? i + n : i;
    if (j < 0 || j >= n) {
        printf("%s:%d: index %lld out of bounds for axis %d with length %lld "
               "(block (%u,%u,%u), thread (%u,%u,%u))\n",
               file, line, (long long)i, axis, (long long)n, blockIdx.x, blockIdx.y,
               blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
        __trap();
        return 0;
    }
    return j;
}
static __device__ inline void krt_assert_fail_dev(const char *msg)
{
    printf("%s (block (%u,%u,%u), thread (%u,%u,%u))\n", msg, blockIdx.x, blockIdx.y,
           blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
    __trap();
}
/* dev (issue 9): `raise CLS("msg")` or a failed `assert` under debug=True,
 * reported as numba-cuda reports it (its thread indices are z, y, x):
 *   CLS: In function 'FN', file FILE, line N, tid=[z, y, x] ctaid=[z, y, x]: msg
 * On the GPU the first raising thread of a launch fills the file's
 * krt_exception (kernrt.h), every raising thread ends, the others run on,
 * and the runtime fails the launch with KRT_EEXCEPTION and this message
 * when it has completed; on the CPU the launch fails the same way. */
static __device__ inline void krt_exc_text(char *dst, int cap, const char *src)
{
    int i = 0;
    for (; src && i < cap - 1 && src[i]; i++)
        dst[i] = src[i];
    dst[i] = 0;
}
static __device__ inline void krt_raise_dev(krt_exception *slot, const char *cls, const char *fn,
                                            const char *file, int line, const char *msg)
{
    if (atomicCAS(&slot->raised, 0, 1) == 0) {
        slot->line = line;
        slot->has_msg = msg != NULL;
        slot->tid[0] = threadIdx.x, slot->tid[1] = threadIdx.y, slot->tid[2] = threadIdx.z;
        slot->ctaid[0] = blockIdx.x, slot->ctaid[1] = blockIdx.y, slot->ctaid[2] = blockIdx.z;
        krt_exc_text(slot->cls, (int)sizeof slot->cls, cls);
        krt_exc_text(slot->fn, (int)sizeof slot->fn, fn);
        krt_exc_text(slot->file, (int)sizeof slot->file, file);
        krt_exc_text(slot->msg, (int)sizeof slot->msg, msg);
        __threadfence();
    }
    asm volatile("exit;");
}
/* End the calling thread from inside a device function: what numba's
 * propagated exception status does without debug (the device function
 * returns an error, and so does every caller up to the kernel).  PTX exit
 * terminates the thread; like a kernel's early return, later barriers do not
 * wait for it. */
static __device__ inline void krt_exit_thread_dev(void)
{
    asm volatile("exit;");
}
#endif

KRT_CPU_FN int64_t krt_ck_cpu(int64_t i, int64_t n, int axis, const char *file, int line,
                          const krt_cpu_block *b, krt_dim3 t)
{
    int64_t j = i < 0 ? i + n : i;
    if (j < 0 || j >= n) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%s:%d: index %lld out of bounds for axis %d with length %lld "
                 "(block (%u,%u,%u), thread (%u,%u,%u))",
                 file, line, (long long)i, axis, (long long)n, b->block_idx.x,
                 b->block_idx.y, b->block_idx.z, t.x, t.y, t.z);
        krt_cpu_fail(b, KRT_EKERNEL, msg);
        return 0;
    }
    return j;
}
/* Unsigned indices do not wrap. */
KRT_CPU_FN int64_t krt_ck_cpu_u(uint64_t i, int64_t n, int axis, const char *file, int line,
                            const krt_cpu_block *b, krt_dim3 t)
{
    return i > (uint64_t)INT64_MAX ? krt_ck_cpu(n, n, axis, file, line, b, t)
                                   : krt_ck_cpu((int64_t)i, n, axis, file, line, b, t);
}
#if defined(__CUDACC__)
static __device__ inline int64_t krt_ck_dev_u(uint64_t i, int64_t n, int axis,
                                              const char *file, int line)
{
    return i > (uint64_t)INT64_MAX ? krt_ck_dev(n, n, axis, file, line)
                                   : krt_ck_dev((int64_t)i, n, axis, file, line);
}
#endif

/* Where a checked access goes: the element, or the sink once the launch
 * has failed. */
typedef union krt_sink {
    int64_t i;
    uint64_t u;
    double d;
    char bytes[16];
} krt_sink;
KRT_CPU_FN void *krt_cpu_pick(const krt_cpu_block *b, void *p, krt_sink *sink)
{
    return *b->error != KRT_OK ? (void *)sink : p;
}
KRT_CPU_FN void krt_raise_cpu(const krt_cpu_block *b, krt_dim3 t, const char *cls,
                              const char *fn, const char *file, int line, const char *msg)
{
    char full[768];
    snprintf(full, sizeof full,
             "%s: In function '%s', file %s, line %d, tid=[%u, %u, %u] ctaid=[%u, %u, %u]%s%s",
             cls, fn, file, line, t.z, t.y, t.x, b->block_idx.z, b->block_idx.y,
             b->block_idx.x, msg ? ": " : "", msg ? msg : "");
    krt_cpu_fail(b, KRT_EEXCEPTION, full);
}
/* issue 13 (hard): kernc --racecheck's krt_cpu_pick, which shows the
 * access to the race detector first (runtime/cpucheck.c) */
KRT_CPU_FN void *krt_rc_pick(const krt_cpu_block *b, void *p, krt_sink *sink, size_t size,
                             int kind, krt_dim3 t, const char *array, const char *file,
                             int line)
{
    krt_rc_access(b, p, size, kind, t, array, file, line);
    return *b->error != KRT_OK ? (void *)sink : p;
}
KRT_CPU_FN void krt_assert_fail_cpu(const krt_cpu_block *b, krt_dim3 t, const char *msg)
{
    char full[512];
    snprintf(full, sizeof full, "%s (block (%u,%u,%u), thread (%u,%u,%u))", msg,
             b->block_idx.x, b->block_idx.y, b->block_idx.z, t.x, t.y, t.z);
    krt_cpu_fail(b, KRT_EKERNEL, full);
}

/* suite (issue 8): debug=True is numba's Python error model: a division,
 * floor division or modulo by zero raises ZeroDivisionError (numba's
 * messages: "division by zero", "modulo by zero", "integer division by
 * zero", "integer modulo by zero"), reported as a raise is (krt_raise_cpu,
 * krt_raise_dev).  op: 0 /, 1 //, 2 %. */
#define KRT_ZDIV_(s, T)                                                      \
    KRT_CPU_FN T krt_zdiv_cpu_##s(T a, T b, int op, const krt_cpu_block *blk, krt_dim3 t,  \
                                  const char *fn, const char *file, int line, const char *msg) \
    {                                                                        \
        if (b == 0) {                                                        \
            krt_raise_cpu(blk, t, "ZeroDivisionError", fn, file, line, msg);  \
            return 0;                                                        \
        }                                                                    \
        return op == 0 ? (T)(a / b) : op == 1 ? krt_floordiv_##s(a, b) : krt_mod_##s(a, b); \
    }                                                                        \
    KRT_ZDIV_DEV_(s, T)
#if defined(__CUDACC__)
#define KRT_ZDIV_DEV_(s, T)                                                  \
    static __device__ inline T krt_zdiv_dev_##s(T a, T b, int op, krt_exception *slot,     \
                                                const char *fn, const char *file, int line, \
                                                const char *msg)                          \
    {                                                                        \
        if (b == 0)                                                          \
            krt_raise_dev(slot, "ZeroDivisionError", fn, file, line, msg);   \
        return op == 0 ? (T)(a / b) : op == 1 ? krt_floordiv_##s(a, b) : krt_mod_##s(a, b); \
    }
#else
#define KRT_ZDIV_DEV_(s, T)
#endif
#define KRT_ZDIV_BOOL(s, T, size, fsfx)
#define KRT_ZDIV_SINT(s, T, size, fsfx) KRT_ZDIV_(s, T)
#define KRT_ZDIV_UINT(s, T, size, fsfx) KRT_ZDIV_(s, T)
#define KRT_ZDIV_FLOAT(s, T, size, fsfx) KRT_ZDIV_(s, T)
#define KRT_ZDIV_HALF(s, T, size, fsfx)
#define KRT_ZDIV_BF16(s, T, size, fsfx)
#define KRT_ZDIV_COMPLEX(s, T, size, fsfx)
KRT_SCALAR_BY_CLASS(KRT_ZDIV)

/* ------------------------------------------------------------------ */
/* The CPU backend's thread loops (see src/emit_*.c)                     */
/* ------------------------------------------------------------------ */

/* Every thread of the block in CUDA's order (x fastest).  `continue` in the
 * body moves on to the next thread.  The _T form also counts the linear
 * thread index krt_t (the thread's frame). */
#define KRT_FOR_EACH_THREAD(b)                                               \
    for (krt_tid.z = 0; krt_tid.z < (b)->block_dim.z; krt_tid.z++)           \
        for (krt_tid.y = 0; krt_tid.y < (b)->block_dim.y; krt_tid.y++)       \
            for (krt_tid.x = 0; krt_tid.x < (b)->block_dim.x; krt_tid.x++)
/* issue 10 (cpuperf): a barrier-free kernel whose arrays' last index is
 * the y thread component runs its threads y innermost */
#define KRT_FOR_EACH_THREAD_YX(b)                                            \
    for (krt_tid.z = 0; krt_tid.z < (b)->block_dim.z; krt_tid.z++)           \
        for (krt_tid.x = 0; krt_tid.x < (b)->block_dim.x; krt_tid.x++)       \
            for (krt_tid.y = 0; krt_tid.y < (b)->block_dim.y; krt_tid.y++)
#define KRT_FOR_EACH_THREAD_T(b)                                             \
    for (krt_t = 0, krt_tid.z = 0; krt_tid.z < (b)->block_dim.z; krt_tid.z++) \
        for (krt_tid.y = 0; krt_tid.y < (b)->block_dim.y; krt_tid.y++)       \
            for (krt_tid.x = 0; krt_tid.x < (b)->block_dim.x; krt_tid.x++, krt_t++)
/* issue 10 (cpu): the threads with threadIdx.x below n (the block's x
 * size at most: krt_clamp_below), each with its linear index krt_t */
#define KRT_FOR_EACH_THREAD_XN(b, n)                                         \
    for (krt_tid.z = 0; krt_tid.z < (b)->block_dim.z; krt_tid.z++)           \
        for (krt_tid.y = 0; krt_tid.y < (b)->block_dim.y; krt_tid.y++)       \
            for (krt_tid.x = 0,                                              \
                krt_t = ((size_t)krt_tid.z * (b)->block_dim.y + krt_tid.y) * (b)->block_dim.x; \
                 krt_tid.x < (n); krt_tid.x++, krt_t++)
/* issue 10 (cpu): the threads of a barrier-free kernel that pass its
 * `if i < n` test, nx * ny * nz of the block's (krt_clamp_below) */
#define KRT_FOR_EACH_THREAD_N(nx, ny, nz)                                    \
    for (krt_tid.z = 0; krt_tid.z < (nz); krt_tid.z++)                       \
        for (krt_tid.y = 0; krt_tid.y < (ny); krt_tid.y++)                   \
            for (krt_tid.x = 0; krt_tid.x < (nx); krt_tid.x++)
#define KRT_FOR_EACH_THREAD_YX_N(nx, ny, nz)                                 \
    for (krt_tid.z = 0; krt_tid.z < (nz); krt_tid.z++)                       \
        for (krt_tid.x = 0; krt_tid.x < (nx); krt_tid.x++)                   \
            for (krt_tid.y = 0; krt_tid.y < (ny); krt_tid.y++)
/* the threads t < n with base + t < u */
KRT_FN unsigned krt_clamp_below(int64_t u, int64_t base, unsigned n)
{
    if (u <= base)
        return 0;
    uint64_t d = (uint64_t)u - (uint64_t)base;
    return d < n ? (unsigned)d : n;
}

/* issue 10 (cpu): a hint for the cache: the elements of 1-D view v
 * (elements of size bytes) that the next block along x indexes at
 * cuda.grid(1) + lo .. cuda.grid(1) + hi, read, or written when write.
 * A block of a kernel with barriers loads and stores in bursts between
 * them, which the hardware's prefetcher sees too late; the next block's
 * lines are on their way while this one computes.  Only where that block
 * is this worker's next (b->nbx: the rest of its grab along x; another
 * worker's would lose the lines written to), at most 16 KiB, clamped to
 * the view; nothing where its elements are not next to each other. */
KRT_FN void krt_prefetch_next(const krt_view *v, size_t size, const krt_cpu_block *b, int64_t lo, int64_t hi,
                              int write)
{
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
    const int64_t n = (int64_t)b->block_dim.x, next = ((int64_t)b->block_idx.x + 1) * n;
    int64_t first = next + lo, end = next + n + hi;
    if (b->nbx < 2 || v->strides[0] != (int64_t)size)
        return;
    first = first < 0 ? 0 : first;
    end = end > v->shape[0] ? v->shape[0] : end;
    if (first >= end)
        return;
    uintptr_t p = (uintptr_t)(v->data + first * (int64_t)size) & ~(uintptr_t)63;
    uintptr_t e = (uintptr_t)(v->data + end * (int64_t)size);
    e = e - p > 16384 ? p + 16384 : e;
    if (write)
        for (; p < e; p += 64)
            __builtin_prefetch((const void *)p, 1, 3);
    else
        for (; p < e; p += 64)
            __builtin_prefetch((const void *)p, 0, 3);
#else
    (void)v, (void)size, (void)b, (void)lo, (void)hi, (void)write;
#endif
}

/* A thread's state in a kernel split at barriers: running, returned, or
 * leaving (break) / skipping the rest of (continue) the block-level loop
 * at nesting depth d. */
#define KRT_RUNNING 0
#define KRT_RETURNED (-1)
#define KRT_BREAK(d) (2 * (d) + 1)
#define KRT_CONTINUE(d) (2 * (d) + 2)
/* Not on the path of a thread-dependent `if` at block-level nesting k (a
 * branch holding a barrier or a warp operation): the thread waits for the
 * branch to end, so warp operations inside see only the lanes that took it. */
#define KRT_MASKED(k) (-2 - (k))

/* ---- issue 11 (GPU code quality) ----------------------------------- */
/* fastmath=True: numba-cuda compiles with NVVM's prec-sqrt=0 and ftz=1,
 * so a float32 math.sqrt is the approximate, flush-to-zero square root
 * (sqrt.approx.ftz.f32); the CPU version keeps C's sqrtf. */
KRT_FN float krt_fast_sqrtf(float x)
{
#if defined(__CUDA_ARCH__)
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return sqrtf(x);
#endif
}
/* The 32-bit variants of kernels (NAME__i32): an index times a stride,
 * both in int32, exactly as int64: one IMAD.WIDE (PTX mul.wide.s32; NVVM
 * makes a full 64-bit multiply of (int64_t)a * b). */
KRT_FN int64_t krt_mul_wide(int32_t a, int32_t b)
{
#if defined(__CUDA_ARCH__)
    int64_t r;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
    return r;
#else
    return (int64_t)a * b;
#endif
}
/* issue 10 (cpu): a short loop of constant bounds in the CPU code, fully
 * unrolled by the C compiler (gcc -O2 does not by itself); nothing under
 * nvcc, whose front end knows no GCC pragma in host code */
#if defined(__CUDACC__) || !defined(__GNUC__)
#define KRT_UNROLL
#elif defined(__clang__)
#define KRT_UNROLL _Pragma("unroll 16")
#else
#define KRT_UNROLL _Pragma("GCC unroll 16")
#endif
/* issue 10 (cpu): before a CPU loop over chunks of threads (each
 * iteration one chunk, KRT_CHUNK_LANES, KRT_IVDEP): unrolled 4 times, so
 * that the counting and the branch are paid once per 4 chunks */
#if defined(__CUDACC__) || !defined(__GNUC__)
#define KRT_UNROLL_CHUNKS
#elif defined(__clang__)
#define KRT_UNROLL_CHUNKS _Pragma("unroll 4")
#else
#define KRT_UNROLL_CHUNKS _Pragma("GCC unroll 4")
#endif
/* issue 10 (cpu): the values of one variable for each of the n threads of
 * a chunk of the CPU backend's fused loop (across a barrier, carried from
 * its first region to its second), subscripted [j] like an array: a
 * GCC/Clang vector of n lanes of T (in SSE2/NEON registers, no stack
 * copy between the chunk's two loops, which gcc -O2 then vectorises
 * together), an array of n elsewhere; KRT_CHUNK_ARRAY: always an array */
#define KRT_CHUNK_ARRAY(T, name, n) T name[n]
#if defined(__GNUC__) && !defined(__CUDACC__)
#define KRT_CHUNK_LANES(T, name, n) T name __attribute__((vector_size(sizeof(T) * (n))))
#else
#define KRT_CHUNK_LANES(T, name, n) T name[n]
#endif
/* issue 10 (cpu): before a loop over a chunk of threads of one region,
 * which may run in lock step: the C compiler may take the iterations for
 * independent (and vectorise the loop where it could not tell the arrays'
 * and the shared memory's elements apart) */
#if defined(__CUDACC__) || !defined(__GNUC__)
#define KRT_IVDEP
#elif defined(__clang__)
#define KRT_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define KRT_IVDEP _Pragma("GCC ivdep")
#endif
/* issue 10 (cpu): before a CPU kernel function with chunked thread loops
 * (KRT_CHUNK_LANES, KRT_IVDEP): a second copy of it compiled for AVX2,
 * chosen at load time where the CPU has it (GCC/Clang target_clones: an
 * ifunc, so x86-64 ELF with glibc; an 8-lane int32 or float operation
 * there is one instruction instead of two under SSE2).  Not AVX-512,
 * which valgrind does not run.  Empty elsewhere, with -DKRT_NO_SIMD_CLONES
 * and under ThreadSanitizer (the ifunc's resolver, instrumented, runs
 * before the sanitizer's runtime is set up: a crash at load time). */
#if defined(__x86_64__) && defined(__ELF__) && defined(__GLIBC__) && !defined(__CUDACC__) && \
    !defined(__INTEL_COMPILER) && !defined(KRT_NO_SIMD_CLONES) && !defined(KRT_TSAN_) &&    \
    (defined(__clang__) ? __clang_major__ >= 14 : defined(__GNUC__) && __GNUC__ >= 6)
#define KRT_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KRT_SIMD_CLONES
#endif
/* issue 10 (cpu): do the elements of views a (na dimensions, elements of
 * sa bytes) and b lie apart in memory?  (The CPU backend's guard for
 * running two regions across a barrier in one loop.) */
KRT_FN int krt_views_disjoint(const krt_view *a, int na, size_t sa, const krt_view *b, int nb, size_t sb)
{
    uintptr_t lo[2], hi[2];
    const krt_view *v[2] = {a, b};
    const int nd[2] = {na, nb};
    const size_t sz[2] = {sa, sb};
    for (int k = 0; k < 2; k++) {
        lo[k] = hi[k] = (uintptr_t)v[k]->data;
        for (int d = 0; d < nd[k]; d++) {
            if (v[k]->shape[d] <= 0)
                return 1;   /* no element */
            int64_t ext = (v[k]->shape[d] - 1) * v[k]->strides[d];
            if (ext < 0)
                lo[k] -= (uintptr_t)-ext;
            else
                hi[k] += (uintptr_t)ext;
        }
        hi[k] += sz[k];
    }
    return hi[0] <= lo[1] || hi[1] <= lo[0];
}
/* complex64 / complex128 (issue 8) */
#include <kernrt_cmath.h>

#endif /* KERNRT_DEVICE_H */
