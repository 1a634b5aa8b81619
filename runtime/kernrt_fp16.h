/*
 * kernrt_fp16.h - float16 in generated code: the type krt_f16 and the
 * helpers kernc spells every float16 operation with (kernrt_device.h
 * includes it).
 *
 * krt_f16 is CUDA's __half under nvcc (cuda_fp16.h), C's _Float16 where
 * the C compiler has it (gcc 12 on x86-64), else krt_half (kernrt_half.h):
 * the same 16 bits, IEEE binary16, in each.  In a CUDA kernel the helpers
 * are cuda_fp16.h's intrinsics, numba-cuda 0.30's lowering of the operators
 * and of cuda.fp16 (hadd is add.f16, `!=` is __hneu, ...).  Everywhere else
 * (the CPU backend, host code) an operation is done in float and rounded
 * once to binary16, to nearest even: for + - * / and sqrt that is the
 * correctly rounded result (float's 24 bits are at least 2 * 11 + 2), the
 * GPU's bit for bit; fma goes through double, exact for binary16 operands
 * within the range.  The transcendental ones (hsin, hexp, ...) are the
 * float function rounded to binary16, which the GPU's approximations meet
 * within an ulp of binary16.
 *
 * Conversions as numba-cuda lowers them: to and from float32/float64 and
 * from integers round to nearest even (cvt.rn.f16.*); to integers is
 * cvt.rni (round to nearest even, not truncation; saturating, NaN -> 0).
 */
#ifndef KERNRT_FP16_H
#define KERNRT_FP16_H

#include <kernrt_half.h>

/* ---- the type and its conversions ---------------------------------- */
#if defined(__CUDACC__)
#include <cuda_fp16.h>
typedef __half krt_f16;
#define KRT_F16(value, bits) __half(__half_raw{(unsigned short)(bits)})
KRT_FN float krt_f16_to_f32(krt_f16 h) { return __half2float(h); }
KRT_FN krt_f16 krt_f16_from_f32(float f) { return __float2half_rn(f); }
KRT_FN krt_f16 krt_f16_from_f64(double d) { return __double2half(d); }
#elif defined(__FLT16_MAX__) && !defined(__cplusplus) && !defined(KRT_NO_FLOAT16)
__extension__ typedef _Float16 krt_f16;
#define KRT_F16(value, bits) ((krt_f16)(value))
KRT_FN float krt_f16_to_f32(krt_f16 h) { return (float)h; }
KRT_FN krt_f16 krt_f16_from_f32(float f) { return (krt_f16)f; }
KRT_FN krt_f16 krt_f16_from_f64(double d) { return (krt_f16)d; }
#else
typedef krt_half krt_f16;
#if defined(__cplusplus)
#define KRT_F16(value, bits) krt_f16_from_bits((uint16_t)(bits))
#else
#define KRT_F16(value, bits) ((krt_f16){(uint16_t)(bits)})
#endif
KRT_FN float krt_f16_to_f32(krt_f16 h) { return krt_half_to_float(h); }
KRT_FN krt_f16 krt_f16_from_f32(float f) { return krt_half_from_float(f); }
KRT_FN krt_f16 krt_f16_from_f64(double d) { return krt_half_from_double(d); }
#endif
#define KRT_F16_ZERO KRT_F16(0.0f, 0x0000)

KRT_FN uint16_t krt_f16_bits(krt_f16 h)
{
    uint16_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}
KRT_FN krt_f16 krt_f16_from_bits(uint16_t u)
{
    krt_f16 h;
    memcpy(&h, &u, sizeof u);
    return h;
}
KRT_FN double krt_f16_to_f64(krt_f16 h) { return (double)krt_f16_to_f32(h); }
KRT_FN krt_f16 krt_f16_from_f16(krt_f16 h) { return h; }
KRT_FN bool krt_f16_isnan(krt_f16 h) { return (krt_f16_bits(h) & 0x7fffu) > 0x7c00u; }

/* From integers: cvt.rn.f16.<int>; every int64 goes through double
 * exactly enough (a value past 65520 is infinity either way). */
#define KRT_F16_FROM_INT_(s, T)                                              \
    KRT_FN krt_f16 krt_f16_from_##s(T x) { return krt_f16_from_f64((double)x); }
KRT_F16_FROM_INT_(b, bool)
KRT_F16_FROM_INT_(i8, int8_t)
KRT_F16_FROM_INT_(i16, int16_t)
KRT_F16_FROM_INT_(i32, int32_t)
KRT_F16_FROM_INT_(i64, int64_t)
KRT_F16_FROM_INT_(u8, uint8_t)
KRT_F16_FROM_INT_(u16, uint16_t)
KRT_F16_FROM_INT_(u32, uint32_t)
KRT_F16_FROM_INT_(u64, uint64_t)

/* To integers: cvt.rni.<int>.f16 (nearest even, saturating, NaN -> 0). */
#define KRT_CVT_F16_(s, T, lo, hi)                                           \
    KRT_FN T krt_cvt_##s##_f16(krt_f16 h)                                    \
    {                                                                        \
        double x = rint(krt_f16_to_f64(h));                                  \
        if (x != x)                                                          \
            return 0;                                                        \
        return x <= (double)(lo) ? (T)(lo) : x >= (double)(hi) ? (T)(hi) : (T)x; \
    }
KRT_CVT_F16_(i8, int8_t, INT8_MIN, INT8_MAX)
KRT_CVT_F16_(i16, int16_t, INT16_MIN, INT16_MAX)
KRT_CVT_F16_(i32, int32_t, INT32_MIN, INT32_MAX)
KRT_CVT_F16_(i64, int64_t, INT64_MIN, INT64_MAX)
KRT_CVT_F16_(u8, uint8_t, 0, UINT8_MAX)
KRT_CVT_F16_(u16, uint16_t, 0, UINT16_MAX)
KRT_CVT_F16_(u32, uint32_t, 0, UINT32_MAX)
KRT_CVT_F16_(u64, uint64_t, 0, UINT64_MAX)

/* ---- operators and cuda.fp16 --------------------------------------- */
/* F(x): x as float; H(f): a float rounded to binary16. */
#define KRT_F16_F_(x) krt_f16_to_f32(x)
#define KRT_F16_H_(f) krt_f16_from_f32(f)
#if defined(__CUDA_ARCH__)
#define KRT_F16_BIN_(name, intr, expr)                                       \
    KRT_FN krt_f16 krt_##name##_f16(krt_f16 a, krt_f16 b) { return intr(a, b); }
#define KRT_F16_UN_(name, intr, expr)                                        \
    KRT_FN krt_f16 krt_##name##_f16(krt_f16 a) { return intr(a); }
#define KRT_F16_CMP_(name, intr, expr)                                       \
    KRT_FN bool krt_##name##_f16(krt_f16 a, krt_f16 b) { return intr(a, b); }
#else
#define KRT_F16_BIN_(name, intr, expr)                                       \
    KRT_FN krt_f16 krt_##name##_f16(krt_f16 a, krt_f16 b) { return expr; }
#define KRT_F16_UN_(name, intr, expr)                                        \
    KRT_FN krt_f16 krt_##name##_f16(krt_f16 a) { return expr; }
#define KRT_F16_CMP_(name, intr, expr)                                       \
    KRT_FN bool krt_##name##_f16(krt_f16 a, krt_f16 b) { return expr; }
#endif

KRT_F16_BIN_(add, __hadd, KRT_F16_H_(KRT_F16_F_(a) + KRT_F16_F_(b)))
KRT_F16_BIN_(sub, __hsub, KRT_F16_H_(KRT_F16_F_(a) - KRT_F16_F_(b)))
KRT_F16_BIN_(mul, __hmul, KRT_F16_H_(KRT_F16_F_(a) * KRT_F16_F_(b)))
KRT_F16_BIN_(div, __hdiv, KRT_F16_H_(KRT_F16_F_(a) / KRT_F16_F_(b)))
/* hmax/hmin: a NaN operand gives the other, two give the canonical NaN;
 * +0 is above -0 */
KRT_FN krt_f16 krt_hmax_host_(krt_f16 a, krt_f16 b, bool max)
{
    float x = KRT_F16_F_(a), y = KRT_F16_F_(b);
    if (x != x && y != y)
        return krt_f16_from_bits(0x7fffu);
    if (x != x)
        return b;
    if (y != y)
        return a;
    if (x == y)
        return (max ? krt_f16_bits(a) <= krt_f16_bits(b) : krt_f16_bits(a) >= krt_f16_bits(b)) ? a : b;
    return (max ? x > y : x < y) ? a : b;
}
KRT_F16_BIN_(hmax, __hmax, krt_hmax_host_(a, b, true))
KRT_F16_BIN_(hmin, __hmin, krt_hmax_host_(a, b, false))
/* -x and abs flip or clear the sign bit (NaN included) */
KRT_F16_UN_(neg, __hneg, krt_f16_from_bits((uint16_t)(krt_f16_bits(a) ^ 0x8000u)))
KRT_F16_UN_(abs, __habs, krt_f16_from_bits((uint16_t)(krt_f16_bits(a) & 0x7fffu)))
KRT_F16_UN_(sqrt, hsqrt, KRT_F16_H_(sqrtf(KRT_F16_F_(a))))
KRT_F16_UN_(rsqrt, hrsqrt, KRT_F16_H_(1.0f / sqrtf(KRT_F16_F_(a))))
KRT_F16_UN_(rcp, hrcp, KRT_F16_H_(1.0f / KRT_F16_F_(a)))
KRT_F16_UN_(exp, hexp, KRT_F16_H_(expf(KRT_F16_F_(a))))
KRT_F16_UN_(exp2, hexp2, KRT_F16_H_(exp2f(KRT_F16_F_(a))))
KRT_F16_UN_(exp10, hexp10, KRT_F16_H_(powf(10.0f, KRT_F16_F_(a))))
KRT_F16_UN_(log, hlog, KRT_F16_H_(logf(KRT_F16_F_(a))))
KRT_F16_UN_(log2, hlog2, KRT_F16_H_(log2f(KRT_F16_F_(a))))
KRT_F16_UN_(log10, hlog10, KRT_F16_H_(log10f(KRT_F16_F_(a))))
KRT_F16_UN_(sin, hsin, KRT_F16_H_(sinf(KRT_F16_F_(a))))
KRT_F16_UN_(cos, hcos, KRT_F16_H_(cosf(KRT_F16_F_(a))))
/* math.tanh(float16): fp16.py's htanh, which CUDA 13.0's cuda_fp16.h
 * lacks: tanhf rounded, on the GPU as well */
KRT_FN krt_f16 krt_tanh_f16(krt_f16 a) { return KRT_F16_H_(tanhf(KRT_F16_F_(a))); }
KRT_F16_UN_(ceil, hceil, KRT_F16_H_(ceilf(KRT_F16_F_(a))))
KRT_F16_UN_(floor, hfloor, KRT_F16_H_(floorf(KRT_F16_F_(a))))
KRT_F16_UN_(trunc, htrunc, KRT_F16_H_(truncf(KRT_F16_F_(a))))
KRT_F16_UN_(rint, hrint, KRT_F16_H_(rintf(KRT_F16_F_(a))))
KRT_FN krt_f16 krt_fma_f16(krt_f16 a, krt_f16 b, krt_f16 c)
{
#if defined(__CUDA_ARCH__)
    return __hfma(a, b, c);
#else
    return krt_f16_from_f64(fma(krt_f16_to_f64(a), krt_f16_to_f64(b), krt_f16_to_f64(c)));
#endif
}

/* Comparisons: ordered (false with a NaN), except `!=` (__hneu); the
 * cuda.fp16 hne is the ordered one. */
KRT_F16_CMP_(eq, __heq, KRT_F16_F_(a) == KRT_F16_F_(b))
KRT_F16_CMP_(ne, __hneu, KRT_F16_F_(a) != KRT_F16_F_(b))
KRT_F16_CMP_(lt, __hlt, KRT_F16_F_(a) < KRT_F16_F_(b))
KRT_F16_CMP_(le, __hle, KRT_F16_F_(a) <= KRT_F16_F_(b))
KRT_F16_CMP_(gt, __hgt, KRT_F16_F_(a) > KRT_F16_F_(b))
KRT_F16_CMP_(ge, __hge, KRT_F16_F_(a) >= KRT_F16_F_(b))
KRT_F16_CMP_(hne, __hne, KRT_F16_F_(a) < KRT_F16_F_(b) || KRT_F16_F_(a) > KRT_F16_F_(b))

/* Python's min/max as numba types them for float16 (operator < and >):
 * the first of equal or unordered operands wins. */
KRT_FN krt_f16 krt_min_f16(krt_f16 a, krt_f16 b) { return krt_lt_f16(b, a) ? b : a; }
KRT_FN krt_f16 krt_max_f16(krt_f16 a, krt_f16 b) { return krt_gt_f16(b, a) ? b : a; }

#endif /* KERNRT_FP16_H */
