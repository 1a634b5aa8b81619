/*
 * half.c - krt_half's software conversions (kernrt_half.h), the ones host
 * code, .npy files and the C fallback of krt_f16 use, against the
 * compiler's _Float16 (IEEE binary16, round to nearest even) where it has
 * one: every binary16 value to float and back, float32 values across the
 * whole range (every 251st bit pattern), and doubles at and next to every
 * rounding boundary of binary16.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

#if defined(__FLT16_MAX__)
static uint16_t bits_of(_Float16 h)
{
    uint16_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}
static _Float16 half_of(uint16_t u)
{
    _Float16 h;
    memcpy(&h, &u, sizeof h);
    return h;
}
/* Same value, or both NaN (payloads may differ). */
static int same16(uint16_t a, uint16_t b)
{
    return a == b || ((a & 0x7fffu) > 0x7c00u && (b & 0x7fffu) > 0x7c00u);
}
#endif

int main(void)
{
    plan(6);
    /* documented values, independent of any compiler */
    ok(krt_half_from_float(1.0f).bits == 0x3c00 && krt_half_from_float(-2.0f).bits == 0xc000 &&
           krt_half_from_double(65504.0).bits == 0x7bff &&
           krt_half_from_double(65520.0).bits == 0x7c00 &&
           krt_half_from_double(65519.99).bits == 0x7bff &&
           krt_half_from_double(0x1p-24).bits == 0x0001 &&
           krt_half_from_double(0x1p-25).bits == 0x0000 &&
           krt_half_from_double(0x1.0000000000001p-25).bits == 0x0001 &&
           krt_half_from_double(1.0 + 0x1p-11).bits == 0x3c00 &&
           krt_half_from_double(1.0 + 3 * 0x1p-11).bits == 0x3c02 &&
           krt_half_from_double(-0.0).bits == 0x8000 &&
           krt_half_from_double(INFINITY).bits == 0x7c00 &&
           (krt_half_from_double(NAN).bits & 0x7fffu) > 0x7c00u,
       "known conversions (ties to even, overflow, subnormals, zero, inf, NaN)");
    ok(krt_half_to_float((krt_half){0x3555}) == 0x1.554p-2f &&
           krt_half_to_float((krt_half){0x0001}) == 0x1p-24f &&
           krt_half_to_float((krt_half){0x03ff}) == 0x1.ff8p-15f &&
           krt_half_to_float((krt_half){0xfbff}) == -65504.0f,
       "known widenings (normal, subnormal)");
#if defined(__FLT16_MAX__)
    unsigned long bad = 0;
    for (uint32_t u = 0; u < 0x10000; u++) {
        float mine = krt_half_bits_to_float((uint16_t)u), cc = (float)half_of((uint16_t)u);
        if (!(mine == cc || (isnan(mine) && isnan(cc))) || signbit(mine) != signbit(cc))
            bad++;
        else if (!isnan(cc) && krt_half_from_float(mine).bits != u)
            bad++;
    }
    ok(bad == 0, "all 65536 binary16 values widen as _Float16 and narrow back (%lu bad)", bad);
    bad = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 251) {
        uint32_t b = (uint32_t)u;
        float f;
        memcpy(&f, &b, sizeof f);
        if (!same16(krt_half_from_float(f).bits, bits_of((_Float16)f)))
            bad++;
    }
    ok(bad == 0, "float32 -> binary16 as _Float16 over the whole range (%lu bad)", bad);
    bad = 0;
    for (uint32_t u = 0; u < 0x7c00; u++) {
        /* the midpoint between u and u + 1, and its neighbours */
        double lo = (double)krt_half_bits_to_float((uint16_t)u);
        double hi = u + 1 == 0x7c00 ? 65536.0 : (double)krt_half_bits_to_float((uint16_t)(u + 1));
        double mid = (lo + hi) / 2, cand[3] = {mid, nextafter(mid, 0.0), nextafter(mid, 1e300)};
        for (int k = 0; k < 3; k++)
            for (int s = 0; s < 2; s++) {
                double d = s ? -cand[k] : cand[k];
                if (!same16(krt_half_from_double(d).bits, bits_of((_Float16)d)))
                    bad++;
            }
    }
    ok(bad == 0, "float64 -> binary16 as _Float16 at every rounding boundary (%lu bad)", bad);
    bad = 0;
    for (int e = -1100; e < 1100; e++) {
        double d = ldexp(1.2345678901234567, e);
        if (!same16(krt_half_from_double(d).bits, bits_of((_Float16)d)))
            bad++;
    }
    ok(bad == 0, "float64 -> binary16 as _Float16 over every exponent (%lu bad)", bad);
#else
    skip_block(4, "the C compiler has no _Float16 to compare with");
#endif
    return 0;
}
