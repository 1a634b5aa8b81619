/*
 * bfloat16.c - krt_bfloat16's software conversions (kernrt_bfloat16.h),
 * the ones host code, .npy files and the C side of krt_bf16 use: every
 * bfloat16 value to float and back; float32 values across the whole
 * range (every 251st bit pattern) in the four rounding modes against the
 * reference done on float's bits; doubles at and next to every rounding
 * boundary (ties to even from the exact value, not through float32); and
 * 64-bit integers past 2**53.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The reference: float32 to bfloat16 by its bits (finite, not NaN). */
static uint16_t ref_from_float(float f, int mode)
{
    uint32_t u = bits_of(f), low = u & 0xffffu, top = u >> 16;
    int neg = (u >> 31) != 0, inc;
    switch (mode) {
    case KRT_BF16_RN: inc = low > 0x8000u || (low == 0x8000u && (top & 1u)); break;
    case KRT_BF16_RZ: inc = 0; break;
    case KRT_BF16_RD: inc = neg && low; break;
    default: inc = !neg && low; break;
    }
    top += (uint32_t)inc;
    /* directed modes never round a finite value to infinity away from
     * their direction: the largest finite instead */
    if ((top & 0x7fffu) == 0x7f80u && mode != KRT_BF16_RN &&
        (mode == KRT_BF16_RZ || (mode == KRT_BF16_RD) != neg))
        top--;
    return (uint16_t)top;
}

int main(void)
{
    plan(6);
    ok(krt_bfloat16_from_float(1.0f).bits == 0x3f80 && krt_bfloat16_from_float(-2.0f).bits == 0xc000 &&
           krt_bfloat16_from_double(1.0 + 0x1p-8).bits == 0x3f80 &&
           krt_bfloat16_from_double(1.0 + 3 * 0x1p-8).bits == 0x3f82 &&
           krt_bfloat16_from_double(1.0 + 0x1p-8 + 0x1p-40).bits == 0x3f81 &&
           krt_bfloat16_from_double(3.4e38).bits == 0x7f80 &&
           krt_bfloat16_from_double(3.38e38).bits == 0x7f7e &&
           krt_bfloat16_from_double(0x1p-133).bits == 0x0001 &&
           krt_bfloat16_from_double(0x1p-134).bits == 0x0000 &&
           krt_bfloat16_from_double(0x1.0000000000001p-134).bits == 0x0001 &&
           krt_bfloat16_from_double(-0.0).bits == 0x8000 &&
           krt_bfloat16_from_double(INFINITY).bits == 0x7f80 &&
           krt_bfloat16_from_double(NAN).bits == 0x7fff &&
           krt_bfloat16_bits_from_double_mode(1e39, KRT_BF16_RZ) == 0x7f7f &&
           krt_bfloat16_bits_from_double_mode(-1e39, KRT_BF16_RU) == 0xff7f &&
           krt_bfloat16_bits_from_double_mode(-1e39, KRT_BF16_RD) == 0xff80,
       "known conversions (ties to even, one rounding, overflow, subnormals, NaN)");
    unsigned long bad = 0;
    for (uint32_t u = 0; u < 0x10000; u++) {
        float f = krt_bfloat16_bits_to_float((uint16_t)u);
        if (bits_of(f) != u << 16)
            bad++;
        else if (!isnan(f) && krt_bfloat16_from_float(f).bits != u)
            bad++;
    }
    ok(bad == 0, "all 65536 bfloat16 values widen exactly and narrow back (%lu bad)", bad);
    bad = 0;
    for (uint64_t w = 0; w <= 0xffffffffu; w += 251) {
        float f;
        uint32_t b = (uint32_t)w;
        memcpy(&f, &b, sizeof f);
        if (isnan(f) || isinf(f))
            continue;
        for (int m = 0; m < 4; m++)
            if (krt_bfloat16_bits_from_double_mode((double)f, m) != ref_from_float(f, m))
                bad++;
    }
    ok(bad == 0, "float32 -> bfloat16 in each rounding mode over the whole range (%lu bad)", bad);
    bad = 0;
    for (uint32_t u = 0; u < 0x7f80; u++) {
        /* the midpoint between u and u + 1, and its neighbours in double */
        double lo = (double)krt_bfloat16_bits_to_float((uint16_t)u);
        double hi = u + 1 == 0x7f80 ? 0x1p128 : (double)krt_bfloat16_bits_to_float((uint16_t)(u + 1));
        double mid = (lo + hi) / 2, cand[3] = {mid, nextafter(mid, 0.0), nextafter(mid, 1e300)};
        uint16_t want[3] = {(uint16_t)(u + (u & 1u)), (uint16_t)u, (uint16_t)(u + 1)};
        for (int k = 0; k < 3; k++)
            for (int s = 0; s < 2; s++) {
                uint16_t got = krt_bfloat16_bits_from_double(s ? -cand[k] : cand[k]);
                if (got != (uint16_t)(want[k] | (s ? 0x8000u : 0u)))
                    bad++;
            }
    }
    ok(bad == 0, "float64 -> bfloat16 at every rounding boundary, from the exact value (%lu bad)", bad);
    bad = 0;
    for (int e = -1100; e < 1100; e++) {
        double d = ldexp(1.2345678901234567, e);
        /* away from boundaries, through float is right */
        uint16_t want = fabs(d) > 3.3e38 ? 0x7f80 : fabs(d) < 0x1p-140 ? 0 : ref_from_float((float)d, KRT_BF16_RN);
        if (krt_bfloat16_bits_from_double(d) != want)
            bad++;
    }
    ok(bad == 0, "float64 -> bfloat16 over every exponent (%lu bad)", bad);
    ok(krt_bfloat16_bits_from_i64_mode((INT64_C(1) << 60) - 1, KRT_BF16_RN) == 0x5d80 &&
           krt_bfloat16_bits_from_i64_mode((INT64_C(1) << 60) - 1, KRT_BF16_RZ) == 0x5d7f &&
           krt_bfloat16_bits_from_i64_mode(-((INT64_C(1) << 60) - 1), KRT_BF16_RD) == 0xdd80 &&
           krt_bfloat16_bits_from_i64_mode(-((INT64_C(1) << 60) - 1), KRT_BF16_RU) == 0xdd7f &&
           krt_bfloat16_bits_from_i64_mode(INT64_MIN, KRT_BF16_RN) == 0xdf00 &&
           krt_bfloat16_bits_from_u64_mode(UINT64_MAX, KRT_BF16_RZ) == 0x5f7f &&
           krt_bfloat16_bits_from_u64_mode(UINT64_MAX, KRT_BF16_RN) == 0x5f80 &&
           krt_bfloat16_bits_from_u64_mode((UINT64_C(1) << 56) + (UINT64_C(1) << 48) + 1,
                                           KRT_BF16_RN) == 0x5b81,
       "64-bit integers rounded once from the integer (past 2**53)");
    return 0;
}
