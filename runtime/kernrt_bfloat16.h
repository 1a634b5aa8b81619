/*
 * kernrt_bfloat16.h - krt_bfloat16, the storage type of bfloat16 (the top
 * 16 bits of an IEEE binary32: 8 exponent bits, 7 fraction bits) that host
 * code sees: array elements, launcher parameters, .npy data.
 *
 * A struct of the 16 bits, the same in C and C++ and with every compiler,
 * as krt_half is for float16 (kernrt_half.h).  The conversions round as
 * the GPU's cvt.{rn,rz,rm,rp}.bf16.{f32,f64,s64,u64} do: once, from the
 * exact value (no double rounding through float), NaN to the canonical
 * 0x7fff; widening to float is exact (the bits shifted up).  Generated
 * code computes in krt_bf16 (kernrt_bf16.h), which has the same bits.
 */
#ifndef KERNRT_BFLOAT16_H
#define KERNRT_BFLOAT16_H

#include <stdint.h>
#include <string.h>

/* Plain integer code: usable in CUDA device code as well (kernrt_bf16.h's
 * exact conversions). */
#if defined(__CUDACC__)
#define KRT_BFLOAT16_FN static inline __host__ __device__
#else
#define KRT_BFLOAT16_FN static inline
#endif

typedef struct krt_bfloat16 {
    uint16_t bits;
} krt_bfloat16;

/* Rounding modes: to nearest even, toward zero, down, up. */
enum { KRT_BF16_RN, KRT_BF16_RZ, KRT_BF16_RD, KRT_BF16_RU };

/* The bfloat16 bits of (-1)**neg * m * 2**e, plus a sticky bit `inexact`
 * below m's last bit (the value is a little more than that), rounded by
 * `mode`; m != 0. */
KRT_BFLOAT16_FN uint16_t krt_bfloat16_round_(unsigned neg, uint64_t m, int e, int inexact, int mode)
{
    int nb = 0, msb, qexp, shift, inc;
    uint64_t n, half = 0, rest = (uint64_t)(inexact != 0), t = m;
    uint16_t sign = (uint16_t)(neg ? 0x8000u : 0u), bits;
    while (t) {
        nb++;
        t >>= 1;
    }
    msb = e + nb - 1;   /* 2**msb <= value < 2**(msb + 1) */
    if (msb > 127)
        goto overflow;
    qexp = (msb >= -126 ? msb : -126) - 7;   /* the exponent of the last bit kept */
    shift = qexp - e;
    if (shift <= 0) {
        n = m << -shift;
    } else if (shift > 64) {
        n = 0;
        rest |= m != 0;
    } else if (shift == 64) {
        n = 0;
        half = m >> 63;
        rest |= (m << 1) != 0;
    } else {
        n = m >> shift;
        half = (m >> (shift - 1)) & 1u;
        rest |= (m & ((UINT64_C(1) << (shift - 1)) - 1)) != 0;
    }
    switch (mode) {
    case KRT_BF16_RN: inc = half && (rest || (n & 1u)); break;
    case KRT_BF16_RZ: inc = 0; break;
    case KRT_BF16_RD: inc = neg && (half || rest); break;
    default: inc = !neg && (half || rest); break;
    }
    n += (uint64_t)inc;
    /* a normal's n is 0x80..0x100 and its biased exponent msb + 127; a
     * carry into the exponent is the addition's */
    bits = (uint16_t)(((msb >= -126 ? (unsigned)(msb + 126) : 0u) << 7) + (unsigned)n);
    if (bits >= 0x7f80u)
        goto overflow;
    return (uint16_t)(sign | bits);
overflow:
    if (mode == KRT_BF16_RZ || (mode == KRT_BF16_RD && !neg) || (mode == KRT_BF16_RU && neg))
        return (uint16_t)(sign | 0x7f7fu);   /* the largest finite */
    return (uint16_t)(sign | 0x7f80u);
}

/* bfloat16 bits of a double, rounded by mode (NaN -> 0x7fff, infinities
 * stay). */
KRT_BFLOAT16_FN uint16_t krt_bfloat16_bits_from_double_mode(double d, int mode)
{
    uint64_t x, frac;
    int ex;
    memcpy(&x, &d, sizeof x);
    ex = (int)((x >> 52) & 0x7ff);
    frac = x & UINT64_C(0xfffffffffffff);
    if (ex == 0x7ff)
        return frac ? (uint16_t)0x7fffu : (uint16_t)((x >> 63) ? 0xff80u : 0x7f80u);
    if (ex == 0 && frac == 0)
        return (uint16_t)((x >> 63) ? 0x8000u : 0u);
    if (ex == 0)
        return krt_bfloat16_round_((unsigned)(x >> 63), frac, -1074, 0, mode);
    return krt_bfloat16_round_((unsigned)(x >> 63), frac | (UINT64_C(1) << 52), ex - 1075, 0, mode);
}
KRT_BFLOAT16_FN uint16_t krt_bfloat16_bits_from_double(double d)
{
    return krt_bfloat16_bits_from_double_mode(d, KRT_BF16_RN);
}
/* Of 64-bit integers, exactly rounded (cvt.*.bf16.s64 / .u64). */
KRT_BFLOAT16_FN uint16_t krt_bfloat16_bits_from_u64_mode(uint64_t v, int mode)
{
    return v ? krt_bfloat16_round_(0, v, 0, 0, mode) : (uint16_t)0;
}
KRT_BFLOAT16_FN uint16_t krt_bfloat16_bits_from_i64_mode(int64_t v, int mode)
{
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return v ? krt_bfloat16_round_(v < 0, m, 0, 0, mode) : (uint16_t)0;
}

/* The float of bfloat16 bits (exact). */
KRT_BFLOAT16_FN float krt_bfloat16_bits_to_float(uint16_t h)
{
    uint32_t r = (uint32_t)h << 16;
    float f;
    memcpy(&f, &r, sizeof f);
    return f;
}

KRT_BFLOAT16_FN krt_bfloat16 krt_bfloat16_from_double(double d)
{
    krt_bfloat16 h;
    h.bits = krt_bfloat16_bits_from_double(d);
    return h;
}
KRT_BFLOAT16_FN krt_bfloat16 krt_bfloat16_from_float(float f) { return krt_bfloat16_from_double((double)f); }
KRT_BFLOAT16_FN float krt_bfloat16_to_float(krt_bfloat16 h) { return krt_bfloat16_bits_to_float(h.bits); }
KRT_BFLOAT16_FN double krt_bfloat16_to_double(krt_bfloat16 h) { return (double)krt_bfloat16_bits_to_float(h.bits); }

#endif /* KERNRT_BFLOAT16_H */
