/*
 * kernrt_bf16.h - bfloat16 in generated code: the type krt_bf16 and the
 * helpers kernc spells every bfloat16 operation with (kernrt_device.h
 * includes it), as kernrt_fp16.h does for float16.
 *
 * krt_bf16 is CUDA's __nv_bfloat16 under nvcc (cuda_bf16.h), else
 * krt_bfloat16 (kernrt_bfloat16.h): the same 16 bits in each.  In a CUDA
 * kernel the helpers are cuda_bf16.h's intrinsics, which is what
 * numba-cuda 0.30's bindings (numba.cuda.bf16, generated from cuda_bf16.h)
 * call: the operators are __nv_bfloat16's C++ operators (+ is __hadd, `!=`
 * is __hneu), the casts its constructors and conversion operators.
 * Everywhere else (the CPU backend, host code) an operation is done in
 * float and rounded once to bfloat16, to nearest even, which is what
 * cuda_bf16.hpp's own host branches do: for + - * / and sqrt that is the
 * correctly rounded result, the GPU's bit for bit (float's 24 bits are at
 * least 2 * 8 + 2; sm_90's add/mul.bf16 round once, its __hdiv is
 * correctly rounded); fma is exact then rounded once (fma.rn.bf16).  The
 * math functions (hsin, hexp, ...) are the float function rounded, which
 * the GPU's (sinf, ex2.approx, ...) meet within an ulp of bfloat16.
 *
 * Conversions as numba-cuda lowers them: from float32, float64, float16
 * and the integers round to nearest even (the constructors: __float2bfloat16,
 * __double2bfloat16, __int2bfloat16_rn ...), once; to float32/float64 is
 * exact; to an integer (the conversion operators) is __bfloat162int_rz:
 * truncation, saturating, NaN -> 0, unlike float16's cvt.rni.  The
 * numba.cuda.bf16 conversion functions have their own rounding modes.
 */
#ifndef KERNRT_BF16_H
#define KERNRT_BF16_H

#include <kernrt_bfloat16.h>

/* ---- the type and its conversions ---------------------------------- */
/* cuda_bf16.h's bfloat16 arithmetic needs sm_80 (as numba-cuda's bfloat16
 * does); device code for older GPUs takes the software path. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KRT_BF16_NATIVE_ 1
#else
#define KRT_BF16_NATIVE_ 0
#endif
#if defined(__CUDACC__)
#include <cuda_bf16.h>
typedef __nv_bfloat16 krt_bf16;
#define KRT_BF16(value, bits) __nv_bfloat16(__nv_bfloat16_raw{(unsigned short)(bits)})
#else
typedef krt_bfloat16 krt_bf16;
#if defined(__cplusplus)
#define KRT_BF16(value, bits) krt_bf16_from_bits((uint16_t)(bits))
#else
#define KRT_BF16(value, bits) ((krt_bf16){(uint16_t)(bits)})
#endif
#endif
#define KRT_BF16_ZERO KRT_BF16(0.0f, 0x0000)

KRT_FN uint16_t krt_bf16_bits(krt_bf16 h)
{
    uint16_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}
KRT_FN krt_bf16 krt_bf16_from_bits(uint16_t u)
{
    krt_bf16 h;
    memcpy(&h, &u, sizeof u);
    return h;
}
KRT_FN float krt_bf16_to_f32(krt_bf16 h) { return krt_bfloat16_bits_to_float(krt_bf16_bits(h)); }
KRT_FN double krt_bf16_to_f64(krt_bf16 h) { return (double)krt_bf16_to_f32(h); }
KRT_FN krt_bf16 krt_bf16_from_bf16(krt_bf16 h) { return h; }
/* a value rounded by mode, from a double (exact for every float and for
 * integers up to 2**53) or a 64-bit integer */
KRT_FN krt_bf16 krt_bf16_round_f64_(double d, int mode)
{
    return krt_bf16_from_bits(krt_bfloat16_bits_from_double_mode(d, mode));
}
#if KRT_BF16_NATIVE_
KRT_FN krt_bf16 krt_bf16_from_f32(float f) { return __float2bfloat16(f); }
KRT_FN krt_bf16 krt_bf16_from_f64(double d) { return __double2bfloat16(d); }
#else
KRT_FN krt_bf16 krt_bf16_from_f32(float f) { return krt_bf16_round_f64_((double)f, KRT_BF16_RN); }
KRT_FN krt_bf16 krt_bf16_from_f64(double d) { return krt_bf16_round_f64_(d, KRT_BF16_RN); }
#endif
KRT_FN krt_bf16 krt_bf16_from_f16(krt_f16 h) { return krt_bf16_from_f32(krt_f16_to_f32(h)); }
KRT_FN krt_f16 krt_f16_from_bf16(krt_bf16 h) { return krt_f16_from_f32(krt_bf16_to_f32(h)); }
KRT_FN bool krt_bf16_isnan(krt_bf16 h) { return (krt_bf16_bits(h) & 0x7fffu) > 0x7f80u; }

/* From integers: the constructors round to nearest even, exactly (the
 * 64-bit ones from the integer, not through double). */
KRT_FN krt_bf16 krt_bf16_from_i64_mode_(int64_t x, int mode)
{
    return krt_bf16_from_bits(krt_bfloat16_bits_from_i64_mode(x, mode));
}
KRT_FN krt_bf16 krt_bf16_from_u64_mode_(uint64_t x, int mode)
{
    return krt_bf16_from_bits(krt_bfloat16_bits_from_u64_mode(x, mode));
}
#define KRT_BF16_FROM_INT_(s, T, W)                                          \
    KRT_FN krt_bf16 krt_bf16_from_##s(T x) { return krt_bf16_from_##W##_mode_(x, KRT_BF16_RN); }
KRT_BF16_FROM_INT_(b, bool, i64)
KRT_BF16_FROM_INT_(i8, int8_t, i64)
KRT_BF16_FROM_INT_(i16, int16_t, i64)
KRT_BF16_FROM_INT_(i32, int32_t, i64)
KRT_BF16_FROM_INT_(i64, int64_t, i64)
KRT_BF16_FROM_INT_(u8, uint8_t, u64)
KRT_BF16_FROM_INT_(u16, uint16_t, u64)
KRT_BF16_FROM_INT_(u32, uint32_t, u64)
KRT_BF16_FROM_INT_(u64, uint64_t, u64)

/* To integers: cvt.{rni,rzi,rmi,rpi}.<int>.bf16: rounded by mode,
 * saturating, NaN -> 0.  The casts (krt_cvt_<int>_bf16) are rz. */
#define KRT_BF16_TO_INT_(s, T, lo, hi)                                       \
    KRT_FN T krt_bf16_to_##s##_mode_(krt_bf16 h, int mode)                   \
    {                                                                        \
        double x = krt_bf16_to_f64(h);                                       \
        if (x != x)                                                          \
            return 0;                                                        \
        x = mode == KRT_BF16_RN ? rint(x) : mode == KRT_BF16_RZ ? trunc(x)   \
          : mode == KRT_BF16_RD ? floor(x) : ceil(x);                        \
        return x <= (double)(lo) ? (T)(lo) : x >= (double)(hi) ? (T)(hi) : (T)x; \
    }                                                                        \
    KRT_FN T krt_cvt_##s##_bf16(krt_bf16 h) { return krt_bf16_to_##s##_mode_(h, KRT_BF16_RZ); }
KRT_BF16_TO_INT_(i8, int8_t, INT8_MIN, INT8_MAX)
KRT_BF16_TO_INT_(i16, int16_t, INT16_MIN, INT16_MAX)
KRT_BF16_TO_INT_(i32, int32_t, INT32_MIN, INT32_MAX)
KRT_BF16_TO_INT_(i64, int64_t, INT64_MIN, INT64_MAX)
KRT_BF16_TO_INT_(u8, uint8_t, 0, UINT8_MAX)
KRT_BF16_TO_INT_(u16, uint16_t, 0, UINT16_MAX)
KRT_BF16_TO_INT_(u32, uint32_t, 0, UINT32_MAX)
KRT_BF16_TO_INT_(u64, uint64_t, 0, UINT64_MAX)

/* ---- operators and numba.cuda.bf16 --------------------------------- */
/* F(x): x as float; H(f): a float rounded to bfloat16. */
#define KRT_BF16_F_(x) krt_bf16_to_f32(x)
#define KRT_BF16_H_(f) krt_bf16_from_f32(f)
#if KRT_BF16_NATIVE_
#define KRT_BF16_BIN_(name, intr, expr)                                      \
    KRT_FN krt_bf16 krt_##name##_bf16(krt_bf16 a, krt_bf16 b) { return intr(a, b); }
#define KRT_BF16_UN_(name, intr, expr)                                       \
    KRT_FN krt_bf16 krt_##name##_bf16(krt_bf16 a) { return intr(a); }
#define KRT_BF16_CMP_(name, intr, expr)                                      \
    KRT_FN bool krt_##name##_bf16(krt_bf16 a, krt_bf16 b) { return intr(a, b); }
#define KRT_BF16_FMA_(name, intr, expr)                                      \
    KRT_FN krt_bf16 krt_##name##_bf16(krt_bf16 a, krt_bf16 b, krt_bf16 c) { return intr(a, b, c); }
#else
#define KRT_BF16_BIN_(name, intr, expr)                                      \
    KRT_FN krt_bf16 krt_##name##_bf16(krt_bf16 a, krt_bf16 b) { return expr; }
#define KRT_BF16_UN_(name, intr, expr)                                       \
    KRT_FN krt_bf16 krt_##name##_bf16(krt_bf16 a) { return expr; }
#define KRT_BF16_CMP_(name, intr, expr)                                      \
    KRT_FN bool krt_##name##_bf16(krt_bf16 a, krt_bf16 b) { return expr; }
#define KRT_BF16_FMA_(name, intr, expr)                                      \
    KRT_FN krt_bf16 krt_##name##_bf16(krt_bf16 a, krt_bf16 b, krt_bf16 c) { return expr; }
#endif

/* a * b + c exactly, rounded once: a * b is exact in double (8 + 8 bits),
 * the sum's rounding error is recovered (two-sum) and kept as a nudge of
 * the double toward it, so that the rounding to bfloat16 sees it. */
KRT_FN float krt_bf16_fma_exact_(krt_bf16 a, krt_bf16 b, krt_bf16 c, krt_bf16 *out)
{
    double p = krt_bf16_to_f64(a) * krt_bf16_to_f64(b), q = krt_bf16_to_f64(c);
    double s = p + q, bp = s - q, err = (p - bp) + (q - (s - bp));
    if (err != 0 && s == s && s - s == 0) {   /* inexact, finite: a sticky bit */
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if ((err > 0) == (s > 0))
            u++;   /* away from zero by one ulp of double */
        else
            u--;
        memcpy(&s, &u, sizeof u);
    }
    *out = krt_bf16_round_f64_(s, KRT_BF16_RN);
    return krt_bf16_to_f32(*out);
}
KRT_FN krt_bf16 krt_bf16_fma_host_(krt_bf16 a, krt_bf16 b, krt_bf16 c)
{
    krt_bf16 r;
    krt_bf16_fma_exact_(a, b, c, &r);
    return r;
}
/* .sat: clamped to [0, 1], NaN -> +0; .relu: negatives -> +0, NaN -> the
 * canonical NaN */
KRT_FN krt_bf16 krt_bf16_sat_(krt_bf16 x)
{
    float f = krt_bf16_to_f32(x);
    return !(f > 0.0f) ? KRT_BF16_ZERO : f > 1.0f ? KRT_BF16(1.0f, 0x3f80) : x;
}
KRT_FN krt_bf16 krt_bf16_relu_(krt_bf16 x)
{
    float f = krt_bf16_to_f32(x);
    return f != f ? krt_bf16_from_bits(0x7fffu) : !(f > 0.0f) ? KRT_BF16_ZERO : x;
}

KRT_BF16_BIN_(add, __hadd, KRT_BF16_H_(KRT_BF16_F_(a) + KRT_BF16_F_(b)))
KRT_BF16_BIN_(sub, __hsub, KRT_BF16_H_(KRT_BF16_F_(a) - KRT_BF16_F_(b)))
KRT_BF16_BIN_(mul, __hmul, KRT_BF16_H_(KRT_BF16_F_(a) * KRT_BF16_F_(b)))
KRT_BF16_BIN_(div, __hdiv, KRT_BF16_H_(KRT_BF16_F_(a) / KRT_BF16_F_(b)))
/* _rn: never contracted into an fma; the same single rounding */
KRT_BF16_BIN_(add_rn, __hadd_rn, KRT_BF16_H_(KRT_BF16_F_(a) + KRT_BF16_F_(b)))
KRT_BF16_BIN_(sub_rn, __hsub_rn, KRT_BF16_H_(KRT_BF16_F_(a) - KRT_BF16_F_(b)))
KRT_BF16_BIN_(mul_rn, __hmul_rn, KRT_BF16_H_(KRT_BF16_F_(a) * KRT_BF16_F_(b)))
KRT_BF16_BIN_(add_sat, __hadd_sat, krt_bf16_sat_(KRT_BF16_H_(KRT_BF16_F_(a) + KRT_BF16_F_(b))))
KRT_BF16_BIN_(sub_sat, __hsub_sat, krt_bf16_sat_(KRT_BF16_H_(KRT_BF16_F_(a) - KRT_BF16_F_(b))))
KRT_BF16_BIN_(mul_sat, __hmul_sat, krt_bf16_sat_(KRT_BF16_H_(KRT_BF16_F_(a) * KRT_BF16_F_(b))))
KRT_BF16_FMA_(fma, __hfma, krt_bf16_fma_host_(a, b, c))
KRT_BF16_FMA_(fma_sat, __hfma_sat, krt_bf16_sat_(krt_bf16_fma_host_(a, b, c)))
KRT_BF16_FMA_(fma_relu, __hfma_relu, krt_bf16_relu_(krt_bf16_fma_host_(a, b, c)))
/* hmax/hmin: a NaN operand gives the other, two give the canonical NaN;
 * +0 is above -0.  hmax_nan/hmin_nan: a NaN operand gives the canonical
 * NaN. */
KRT_FN krt_bf16 krt_bf16_minmax_host_(krt_bf16 a, krt_bf16 b, bool max, bool nan)
{
    float x = KRT_BF16_F_(a), y = KRT_BF16_F_(b);
    if ((x != x && y != y) || (nan && (x != x || y != y)))
        return krt_bf16_from_bits(0x7fffu);
    if (x != x)
        return b;
    if (y != y)
        return a;
    if (x == y)
        return (max ? krt_bf16_bits(a) <= krt_bf16_bits(b) : krt_bf16_bits(a) >= krt_bf16_bits(b)) ? a : b;
    return (max ? x > y : x < y) ? a : b;
}
KRT_BF16_BIN_(hmax, __hmax, krt_bf16_minmax_host_(a, b, true, false))
KRT_BF16_BIN_(hmin, __hmin, krt_bf16_minmax_host_(a, b, false, false))
KRT_BF16_BIN_(hmax_nan, __hmax_nan, krt_bf16_minmax_host_(a, b, true, true))
KRT_BF16_BIN_(hmin_nan, __hmin_nan, krt_bf16_minmax_host_(a, b, false, true))
/* -x and abs flip or clear the sign bit (NaN included) */
KRT_BF16_UN_(neg, __hneg, krt_bf16_from_bits((uint16_t)(krt_bf16_bits(a) ^ 0x8000u)))
KRT_BF16_UN_(abs, __habs, krt_bf16_from_bits((uint16_t)(krt_bf16_bits(a) & 0x7fffu)))
KRT_BF16_UN_(sqrt, hsqrt, KRT_BF16_H_(sqrtf(KRT_BF16_F_(a))))
KRT_BF16_UN_(rsqrt, hrsqrt, KRT_BF16_H_(1.0f / sqrtf(KRT_BF16_F_(a))))
KRT_BF16_UN_(rcp, hrcp, KRT_BF16_H_(1.0f / KRT_BF16_F_(a)))
KRT_BF16_UN_(exp, hexp, KRT_BF16_H_(expf(KRT_BF16_F_(a))))
KRT_BF16_UN_(exp2, hexp2, KRT_BF16_H_(exp2f(KRT_BF16_F_(a))))
KRT_BF16_UN_(exp10, hexp10, KRT_BF16_H_(powf(10.0f, KRT_BF16_F_(a))))
KRT_BF16_UN_(log, hlog, KRT_BF16_H_(logf(KRT_BF16_F_(a))))
KRT_BF16_UN_(log2, hlog2, KRT_BF16_H_(log2f(KRT_BF16_F_(a))))
KRT_BF16_UN_(log10, hlog10, KRT_BF16_H_(log10f(KRT_BF16_F_(a))))
KRT_BF16_UN_(sin, hsin, KRT_BF16_H_(sinf(KRT_BF16_F_(a))))
KRT_BF16_UN_(cos, hcos, KRT_BF16_H_(cosf(KRT_BF16_F_(a))))
KRT_BF16_UN_(tanh, htanh, KRT_BF16_H_(tanhf(KRT_BF16_F_(a))))
KRT_BF16_UN_(tanh_approx, htanh_approx, KRT_BF16_H_(tanhf(KRT_BF16_F_(a))))
KRT_BF16_UN_(ceil, hceil, KRT_BF16_H_(ceilf(KRT_BF16_F_(a))))
KRT_BF16_UN_(floor, hfloor, KRT_BF16_H_(floorf(KRT_BF16_F_(a))))
KRT_BF16_UN_(trunc, htrunc, KRT_BF16_H_(truncf(KRT_BF16_F_(a))))
KRT_BF16_UN_(rint, hrint, KRT_BF16_H_(rintf(KRT_BF16_F_(a))))

/* Comparisons: ordered (false with a NaN), except `!=` (__hneu) and the
 * unordered h*u forms (true with a NaN); the bf16 hne is the ordered one. */
KRT_BF16_CMP_(eq, __heq, KRT_BF16_F_(a) == KRT_BF16_F_(b))
KRT_BF16_CMP_(ne, __hneu, KRT_BF16_F_(a) != KRT_BF16_F_(b))
KRT_BF16_CMP_(lt, __hlt, KRT_BF16_F_(a) < KRT_BF16_F_(b))
KRT_BF16_CMP_(le, __hle, KRT_BF16_F_(a) <= KRT_BF16_F_(b))
KRT_BF16_CMP_(gt, __hgt, KRT_BF16_F_(a) > KRT_BF16_F_(b))
KRT_BF16_CMP_(ge, __hge, KRT_BF16_F_(a) >= KRT_BF16_F_(b))
KRT_BF16_CMP_(hne, __hne, KRT_BF16_F_(a) < KRT_BF16_F_(b) || KRT_BF16_F_(a) > KRT_BF16_F_(b))
KRT_BF16_CMP_(hequ, __hequ, !(KRT_BF16_F_(a) < KRT_BF16_F_(b) || KRT_BF16_F_(a) > KRT_BF16_F_(b)))
KRT_BF16_CMP_(hneu, __hneu, KRT_BF16_F_(a) != KRT_BF16_F_(b))
KRT_BF16_CMP_(hltu, __hltu, !(KRT_BF16_F_(a) >= KRT_BF16_F_(b)))
KRT_BF16_CMP_(hleu, __hleu, !(KRT_BF16_F_(a) > KRT_BF16_F_(b)))
KRT_BF16_CMP_(hgtu, __hgtu, !(KRT_BF16_F_(a) <= KRT_BF16_F_(b)))
KRT_BF16_CMP_(hgeu, __hgeu, !(KRT_BF16_F_(a) < KRT_BF16_F_(b)))
KRT_FN bool krt_hisnan_bf16(krt_bf16 a) { return krt_bf16_isnan(a); }
/* __hisinf: 1 for +inf, -1 for -inf, else 0 */
KRT_FN int32_t krt_hisinf_bf16(krt_bf16 a)
{
    uint16_t u = krt_bf16_bits(a);
    return u == 0x7f80u ? 1 : u == 0xff80u ? -1 : 0;
}

/* Python's min/max as numba types them for bfloat16 (operator < and >):
 * the first of equal or unordered operands wins. */
KRT_FN krt_bf16 krt_min_bf16(krt_bf16 a, krt_bf16 b) { return krt_lt_bf16(b, a) ? b : a; }
KRT_FN krt_bf16 krt_max_bf16(krt_bf16 a, krt_bf16 b) { return krt_gt_bf16(b, a) ? b : a; }

/* ---- numba.cuda.bf16's conversion functions -------------------------- */
/* bfloat16 from float32 with a rounding mode (__float2bfloat16_r?); the
 * argument is a float32 (numba converts a float64 to it first) */
KRT_FN krt_bf16 krt_f32_to_bf16_rn(float f) { return krt_bf16_round_f64_((double)f, KRT_BF16_RN); }
KRT_FN krt_bf16 krt_f32_to_bf16_rz(float f) { return krt_bf16_round_f64_((double)f, KRT_BF16_RZ); }
KRT_FN krt_bf16 krt_f32_to_bf16_rd(float f) { return krt_bf16_round_f64_((double)f, KRT_BF16_RD); }
KRT_FN krt_bf16 krt_f32_to_bf16_ru(float f) { return krt_bf16_round_f64_((double)f, KRT_BF16_RU); }
/* the integers' (__int2bfloat16_r?, ...), each from its own width */
#define KRT_BF16_INT_MODES_(s, T, W)                                         \
    KRT_FN krt_bf16 krt_##s##_to_bf16_rn(T x) { return krt_bf16_from_##W##_mode_(x, KRT_BF16_RN); } \
    KRT_FN krt_bf16 krt_##s##_to_bf16_rz(T x) { return krt_bf16_from_##W##_mode_(x, KRT_BF16_RZ); } \
    KRT_FN krt_bf16 krt_##s##_to_bf16_rd(T x) { return krt_bf16_from_##W##_mode_(x, KRT_BF16_RD); } \
    KRT_FN krt_bf16 krt_##s##_to_bf16_ru(T x) { return krt_bf16_from_##W##_mode_(x, KRT_BF16_RU); } \
    KRT_FN T krt_bf16_to_##s##_rn(krt_bf16 h) { return krt_bf16_to_##s##_mode_(h, KRT_BF16_RN); }   \
    KRT_FN T krt_bf16_to_##s##_rz(krt_bf16 h) { return krt_bf16_to_##s##_mode_(h, KRT_BF16_RZ); }   \
    KRT_FN T krt_bf16_to_##s##_rd(krt_bf16 h) { return krt_bf16_to_##s##_mode_(h, KRT_BF16_RD); }   \
    KRT_FN T krt_bf16_to_##s##_ru(krt_bf16 h) { return krt_bf16_to_##s##_mode_(h, KRT_BF16_RU); }
KRT_BF16_INT_MODES_(i16, int16_t, i64)
KRT_BF16_INT_MODES_(i32, int32_t, i64)
KRT_BF16_INT_MODES_(i64, int64_t, i64)
KRT_BF16_INT_MODES_(u16, uint16_t, u64)
KRT_BF16_INT_MODES_(u32, uint32_t, u64)
KRT_BF16_INT_MODES_(u64, uint64_t, u64)
KRT_FN int8_t krt_bf16_to_i8_rz(krt_bf16 h) { return krt_bf16_to_i8_mode_(h, KRT_BF16_RZ); }
KRT_FN uint8_t krt_bf16_to_u8_rz(krt_bf16 h) { return krt_bf16_to_u8_mode_(h, KRT_BF16_RZ); }
/* the bits as int16/uint16 and back */
KRT_FN int16_t krt_bf16_as_i16(krt_bf16 h) { return (int16_t)krt_bf16_bits(h); }
KRT_FN uint16_t krt_bf16_as_u16(krt_bf16 h) { return krt_bf16_bits(h); }
KRT_FN krt_bf16 krt_i16_as_bf16(int16_t x) { return krt_bf16_from_bits((uint16_t)x); }
KRT_FN krt_bf16 krt_u16_as_bf16(uint16_t x) { return krt_bf16_from_bits(x); }

#endif /* KERNRT_BF16_H */
