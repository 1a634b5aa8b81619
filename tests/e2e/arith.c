/*
 * arith.c - end-to-end test of arith.kern: integer and float semantics of
 * Python/numba (floor division and modulo of negative operands, division
 * by zero, wraparound, int32 + int32 widening to int64, unsigned
 * arithmetic, shifts by any amount, `**`, chained comparisons, and/or
 * values, the ternary, negative indices, range() with a negative step,
 * math functions, float32 vs float64), over several launch shapes.
 */
#include "e2e.h"
#include "arith.kern.h"

#define N 203
#define NCOL 20
#define NF 12
#define NF32 5

static float py_floordivf(float a, float b)
{
    float mod = fmodf(a, b), div = (a - mod) / b, fl;
    if (b == 0)
        return a / b;
    if (mod != 0 && ((b < 0) != (mod < 0)))
        div -= 1.0f;
    if (div != 0) {
        fl = floorf(div);
        if (div - fl > 0.5f)
            fl += 1.0f;
        return fl;
    }
    return copysignf(0.0f, a / b);
}
static float py_modf(float a, float b)
{
    float mod = fmodf(a, b);
    if (b == 0)
        return mod;
    if (mod != 0) {
        if ((b < 0) != (mod < 0))
            mod += b;
    } else {
        mod = copysignf(0.0f, b);
    }
    return mod;
}

static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* numba 0.56's int_power returns `1.0 / r if invert else r`: the wrapped
 * product goes through float64 and back (saturating at 2**63, as PTX does). */
static int64_t pow_round(int64_t r)
{
    double d = (double)r;
    return d >= 9223372036854775808.0 ? INT64_MAX : (int64_t)d;
}

static int64_t int_expect(const int64_t *a, int64_t x, int64_t y, int col)
{
    int64_t s = y & 127;
    switch (col) {
    case 0: return py_floordiv(x, y);
    case 1: return py_mod(x, y);
    case 2: return wmul(wmul(x, y), 1000003);
    case 3: return (int64_t)(0 - (uint64_t)x);
    case 4: return pow_round(wmul(wmul(x, x), x));
    case 5: return (int64_t)((uint64_t)x << 3) >> 1;
    case 6: return x > y ? x : y;
    case 7: { int64_t m = y < x ? y : x; return 7 < m ? 7 : m; }
    case 8: {
        int64_t ax = x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
        int64_t ay = y < 0 ? (int64_t)(0 - (uint64_t)y) : y;
        return ay > ax ? ay : ax;
    }
    case 9: return -5 < x && x <= y;
    case 10: return x ? y : x;
    case 11: return x ? x : y;
    case 12: {
        int64_t e = py_mod(y, 3) - 2;
        if (e == 0)
            return 1;
        if (x == 0)
            return INT64_MIN;
        if (x == 1)
            return 1;
        if (x == -1)
            return (e & 1) ? -1 : 1;
        return 0;
    }
    case 13: return wadd(a[N - 1], a[0]);
    case 14: return s >= 64 ? (x < 0 ? -1 : 0) : x >> s;
    case 15: return s >= 64 ? 0 : (int64_t)((uint64_t)x << s);
    case 16: return (x ^ y) | (x & 255);
    case 17: return ~x;
    case 18: case 19: {
        int64_t n = 0, k = 0;
        for (int64_t j = py_mod(x, 7); j > -3; j -= 2) {
            n += j;
            k = j;
        }
        return col == 18 ? n : k;
    }
    }
    return 0;
}

static double float_expect(double x, double y, int col)
{
    double q;
    switch (col) {
    case 0: if (y == 0) return x / y; py_fmod_floor(x, y, &q); return q;
    case 1: if (y == 0) return fmod(x, y); return py_fmod_floor(x, y, &q);
    case 2: return x / y;
    case 3: return x * x;
    case 4: return sqrt(fabs(x)) + exp(y / 10.0);
    case 5: return floor(x) + ceil(y);
    case 6: return y > x ? y : x;
    case 7: return atan2(x, y) + hypot(x, y);
    case 8: return (double)(int64_t)rint(x);
    case 9: return x > 0 ? pow(x, y) : 0.0;
    case 10: return y != 0 ? fmod(x, y) : 0.0;
    case 11: return (double)(int64_t)(x * 3.5);
    }
    return 0;
}

static float f32_expect(float v, int col)
{
    switch (col) {
    case 0: return v * v + 1.5f;
    case 1: return sinf(v);
    case 2: return py_floordivf(v, 0.75f);
    case 3: return v * (v * v);
    case 4: return py_modf(v, -0.75f);
    }
    return 0;
}

int main(void)
{
    static int64_t a[N], b[N], out[N][NCOL];
    static int32_t p[N];
    static uint32_t u[N];
    static int64_t o64[N];
    static uint64_t ou[N], osh[N];
    static double fa[N], fb[N], fout[N][NF];
    static float f[N], f32out[N][NF32];
    static const int64_t special[] = {0, 1, -1, 7, -7, 2, -2, 3, -3, INT64_MIN, INT64_MAX,
                                      INT64_MIN + 1, 1000000007, -1000000007, 64, -64};
    const int nspecial = (int)(sizeof special / sizeof special[0]);
    uint64_t seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        int64_t r = (int64_t)(seed >> 20) % 2001 - 1000;
        a[i] = i < nspecial * nspecial ? special[i % nspecial] : r * (i % 3 ? 1 : 1234567);
        b[i] = i < nspecial * nspecial ? special[(i / nspecial) % nspecial] : (int64_t)(seed >> 40) % 23 - 11;
        p[i] = (int32_t)(i % 2 ? INT32_MAX - i : INT32_MIN + i);
        u[i] = (uint32_t)(seed >> 13) ^ (uint32_t)i;
        if (i % 17 == 0)
            u[i] = 0;
        fa[i] = (double)r / 8.0 + (i % 5 == 0 ? 0.5 : 0.0);
        fb[i] = (double)((int64_t)(seed >> 40) % 9 - 4) * 0.75;
        f[i] = (float)r / 16.0f;
    }
    fa[3] = -0.0;
    fb[5] = -0.0;

    krt_launch_cfg cfgs[] = {krt_grid1(1, 256), krt_grid1(7, 32), krt_grid1(N, 1),
                             krt_grid1(2, 128), krt_grid1(13, 17)};
    int ncfg = (int)(sizeof cfgs / sizeof cfgs[0]);
    plan((unsigned long)ncfg * (NCOL + 3 + NF + NF32));

    for (int c = 0; c < ncfg; c++) {
        krt_launch_cfg cfg = cfgs[c];
        char shape[64];
        snprintf(shape, sizeof shape, "grid %u x block %u", cfg.grid.x, cfg.block.x);
        krt_array da, db, dout, dp, du, d64, dou, dsh, dfa, dfb, dfout, df, df32;
        int64_t n1[1] = {N}, n2[2] = {N, NCOL}, nf2[2] = {N, NF}, nf32[2] = {N, NF32};

        memset(out, 0x5a, sizeof out);
        E2E_CHECK(krt_to_device(&da, a, KRT_INT64, 1, n1, NULL));
        E2E_CHECK(krt_to_device(&db, b, KRT_INT64, 1, n1, NULL));
        E2E_CHECK(krt_to_device(&dout, out, KRT_INT64, 2, n2, NULL));
        E2E_CHECK(intops(cfg, da, db, dout));
        E2E_CHECK(krt_copy_to_host(out, dout, NULL));
        for (int col = 0; col < NCOL; col++) {
            int bad = -1;
            for (int i = 0; i < N && bad < 0; i++)
                if (out[i][col] != int_expect(a, a[i], b[i], col))
                    bad = i;
            if (!ok(bad < 0, "intops column %d, %s", col, shape))
                diag("row %d: x=%lld y=%lld got %lld want %lld", bad, (long long)a[bad],
                     (long long)b[bad], (long long)out[bad][col],
                     (long long)int_expect(a, a[bad], b[bad], col));
        }

        E2E_CHECK(krt_to_device(&dp, p, KRT_INT32, 1, n1, NULL));
        E2E_CHECK(krt_to_device(&du, u, KRT_UINT32, 1, n1, NULL));
        E2E_CHECK(krt_alloc(&d64, KRT_INT64, 1, n1));
        E2E_CHECK(krt_alloc(&dou, KRT_UINT64, 1, n1));
        E2E_CHECK(krt_alloc(&dsh, KRT_UINT64, 1, n1));
        E2E_CHECK(widen(cfg, dp, du, d64, dou, dsh));
        E2E_CHECK(krt_copy_to_host(o64, d64, NULL));
        E2E_CHECK(krt_copy_to_host(ou, dou, NULL));
        E2E_CHECK(krt_copy_to_host(osh, dsh, NULL));
        int w1 = 1, w2 = 1, w3 = 1;
        for (int i = 0; i < N; i++) {
            w1 &= o64[i] == (int64_t)p[i] + (int64_t)p[i];
            w2 &= ou[i] == (uint64_t)u[i] - (uint64_t)u[(i + 1) % N];
            w3 &= osh[i] == (uint64_t)u[i] * u[i] + (u[i] ? 7u / u[i] : 0);
        }
        ok(w1, "int32 + int32 widens to int64, %s", shape);
        ok(w2, "uint32 - uint32 wraps as uint64, %s", shape);
        ok(w3, "uint32 * uint32 is uint64; uint // 0 is 0, %s", shape);

        E2E_CHECK(krt_to_device(&dfa, fa, KRT_FLOAT64, 1, n1, NULL));
        E2E_CHECK(krt_to_device(&dfb, fb, KRT_FLOAT64, 1, n1, NULL));
        E2E_CHECK(krt_alloc(&dfout, KRT_FLOAT64, 2, nf2));
        E2E_CHECK(krt_to_device(&df, f, KRT_FLOAT32, 1, n1, NULL));
        E2E_CHECK(krt_alloc(&df32, KRT_FLOAT32, 2, nf32));
        E2E_CHECK(floatops(cfg, dfa, dfb, dfout, df, df32));
        E2E_CHECK(krt_copy_to_host(fout, dfout, NULL));
        E2E_CHECK(krt_copy_to_host(f32out, df32, NULL));
        for (int col = 0; col < NF; col++) {
            int bad = -1;
            for (int i = 0; i < N && bad < 0; i++) {
                double want = float_expect(fa[i], fb[i], col);
                int good = (col == 4 || col == 7 || col == 9) ? close_double(want, fout[i][col], 1e-13)
                                                              : same_double(want, fout[i][col]);
                /* signed zeros matter for // and % */
                if (good && want == 0 && (col == 0 || col == 1))
                    good = signbit(want) == signbit(fout[i][col]);
                if (!good)
                    bad = i;
            }
            if (!ok(bad < 0, "floatops column %d, %s", col, shape))
                diag("row %d: x=%.17g y=%.17g got %.17g want %.17g", bad, fa[bad], fb[bad],
                     fout[bad][col], float_expect(fa[bad], fb[bad], col));
        }
        for (int col = 0; col < NF32; col++) {
            int bad = -1;
            for (int i = 0; i < N && bad < 0; i++) {
                float want = f32_expect(f[i], col);
                int good = col == 1 ? close_double(want, f32out[i][col], 1e-6)
                                    : same_double(want, f32out[i][col]);
                if (!good)
                    bad = i;
            }
            if (!ok(bad < 0, "float32 column %d (computed in float32), %s", col, shape))
                diag("row %d: v=%.9g got %.9g want %.9g", bad, (double)f[bad],
                     (double)f32out[bad][col], (double)f32_expect(f[bad], col));
        }
        krt_free(da); krt_free(db); krt_free(dout); krt_free(dp); krt_free(du);
        krt_free(d64); krt_free(dou); krt_free(dsh); krt_free(dfa); krt_free(dfb);
        krt_free(dfout); krt_free(df); krt_free(df32);
    }
    return 0;
}
