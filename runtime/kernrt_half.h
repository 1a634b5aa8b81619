/*
 * kernrt_half.h - krt_half, the storage type of float16 (IEEE binary16)
 * that host code sees: array elements, launcher parameters, .npy data.
 *
 * A struct of the 16 bits, the same in C and C++ and with every compiler,
 * so that a launcher compiled by nvcc and a host program compiled by cc
 * agree on how it is passed.  The conversions round to nearest even, as
 * the GPU's cvt.rn.f16.f32/.f64 do; widening is exact.  Generated code
 * computes in krt_f16 (kernrt_fp16.h), which has the same bits.
 */
#ifndef KERNRT_HALF_H
#define KERNRT_HALF_H

#include <stdint.h>
#include <string.h>

typedef struct krt_half {
    uint16_t bits;
} krt_half;

/* binary16 bits of a double, rounded to nearest even (NaN stays NaN,
 * quieted; overflow gives infinity). */
static inline uint16_t krt_half_bits_from_double(double d)
{
    uint64_t x, sig, q, rem, halfway;
    uint16_t sign;
    int e, ue, shift, he;
    memcpy(&x, &d, sizeof x);
    sign = (uint16_t)((x >> 48) & 0x8000u);
    e = (int)((x >> 52) & 0x7ff);
    sig = x & UINT64_C(0xfffffffffffff);
    if (e == 0x7ff)
        return (uint16_t)(sign | (sig ? 0x7e00u | (uint16_t)(sig >> 42) : 0x7c00u));
    ue = e - 1023;
    if (ue > 15)
        return (uint16_t)(sign | 0x7c00u);
    if (e == 0 || ue < -25)   /* below half the smallest subnormal */
        return sign;
    sig |= UINT64_C(1) << 52;
    shift = ue >= -14 ? 42 : 42 + (-14 - ue);
    q = sig >> shift;
    rem = sig & ((UINT64_C(1) << shift) - 1);
    halfway = UINT64_C(1) << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
        q++;
    if (ue < -14)   /* subnormal; 0x400 is the smallest normal */
        return (uint16_t)(sign | q);
    he = ue + 15;
    if (q == 0x800) {
        q >>= 1;
        he++;
    }
    if (he >= 31)
        return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | (unsigned)he << 10 | (q & 0x3ffu));
}

/* The float of binary16 bits (exact). */
static inline float krt_half_bits_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, r;
    float f;
    if (e == 0x1f) {
        r = s | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        r = s | ((e + 112) << 23) | (m << 13);
    } else {
        f = (float)m * 5.9604644775390625e-08f;   /* m * 2**-24 */
        return s ? -f : f;
    }
    memcpy(&f, &r, sizeof f);
    return f;
}

static inline krt_half krt_half_from_double(double d)
{
    krt_half h;
    h.bits = krt_half_bits_from_double(d);
    return h;
}
static inline krt_half krt_half_from_float(float f) { return krt_half_from_double((double)f); }
static inline float krt_half_to_float(krt_half h) { return krt_half_bits_to_float(h.bits); }
static inline double krt_half_to_double(krt_half h) { return (double)krt_half_bits_to_float(h.bits); }

#endif /* KERNRT_HALF_H */
