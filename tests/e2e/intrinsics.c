/*
 * intrinsics.c - end-to-end test of intrinsics.kern: the bit intrinsics at
 * every operand width, fma/cbrt/selp, math.frexp/ldexp/gamma/lgamma/erf,
 * round() half to even and to n digits, constant arrays, device functions
 * returning tuples, a.shape as a tuple, and print() (stdout captured).
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "e2e.h"
#include "intrinsics.kern.h"

static const int64_t xs[] = {0, 1, -1, 0x80, 12345678901LL, INT64_MIN, 255, 256, 0xf0f0,
                             -4096, 0x7fffffff, 1LL << 40};
#define NX ((int)(sizeof xs / sizeof xs[0]))

static int popc64(uint64_t v) { return __builtin_popcountll(v); }
static int clz_w(uint64_t v, int w) { int n = 0; for (int b = w - 1; b >= 0 && !(v >> b & 1); b--) n++; return n; }
static int ffs64(uint64_t v) { for (int b = 0; b < 64; b++) if (v >> b & 1) return b + 1; return 0; }
static uint64_t brev_w(uint64_t v, int w)
{
    uint64_t r = 0;
    for (int b = 0; b < w; b++)
        if (v >> b & 1)
            r |= 1ULL << (w - 1 - b);
    return r;
}

static void test_bitops(void)
{
    int64_t out[NX][11];
    krt_array dx, dout;
    E2E_CHECK(krt_to_device(&dx, xs, KRT_INT64, 1, (int64_t[]){NX}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_INT64, 2, (int64_t[]){NX, 11}));
    E2E_CHECK(bitops(krt_grid1(1, 32), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (int i = 0; i < NX && good; i++) {
        uint64_t v = (uint64_t)xs[i];
        int64_t want[11] = {
            popc64(v), popc64(v & 0xff), popc64(v & 0xffff), clz_w(v, 64), clz_w(v & 0xffffffff, 32),
            clz_w(v & 0xff, 8), ffs64(v), ffs64(v & 0xffffffff), (int64_t)brev_w(v & 0xffffffff, 32),
            (int64_t)brev_w(v, 64), xs[i] > 0 ? xs[i] : (int64_t)(0 - v)};
        for (int k = 0; k < 11 && good; k++)
            if (!(good = out[i][k] == want[k]))
                diag("x=%lld op %d: got %lld want %lld", (long long)xs[i], k, (long long)out[i][k],
                     (long long)want[k]);
    }
    ok(good, "popc/clz/ffs/brev at 8..64 bits, selp");
    krt_free(dx);
    krt_free(dout);
}

/* numba's round_ndigits for ndigits >= 0 (y never overflows here) */
static double round_nd(double x, int nd)
{
    double p = pow(10.0, nd), y = x * p, z = rint(y);
    return z / p;
}

static void test_math(void)
{
    static const double vs[] = {0.0, 1.0, -1.0, 0.75, -2.5, 3.25, 1e-3, 123.456, -7.05, 0.25};
    enum { NV = sizeof vs / sizeof vs[0] };
    double out[NV][12];
    float out32[NV][4];
    krt_array dx, dout, d32;
    E2E_CHECK(krt_to_device(&dx, vs, KRT_FLOAT64, 1, (int64_t[]){NV}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 2, (int64_t[]){NV, 12}));
    E2E_CHECK(krt_alloc(&d32, KRT_FLOAT32, 2, (int64_t[]){NV, 4}));
    E2E_CHECK(mathops(krt_grid1(1, 16), dx, dout, d32));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    E2E_CHECK(krt_copy_to_host(out32, d32, NULL));
    int good = 1;
    for (int i = 0; i < NV && good; i++) {
        double v = vs[i];
        int e;
        double m = frexp(v, &e);
        double want[12] = {m, e, ldexp(m, e), tgamma(fabs(v) + 0.5), lgamma(fabs(v) + 0.5),
                           erf(v), erfc(v), rint(v * 2.5), round_nd(v, 1), fma(v, 3.0, 1.0),
                           cbrt(v), hypot(v, 2.0) + atan2(v, 2.0)};
        for (int k = 0; k < 12 && good; k++)
            if (!(good = close_double(out[i][k], want[k], 1e-12)))
                diag("v=%g op %d: got %.17g want %.17g", v, k, out[i][k], want[k]);
        float f = (float)v;
        int fe;
        float fm = frexpf(f, &fe);
        float w32[4] = {fmaf(f, 3.0f, 1.0f), cbrtf(f), sqrtf(fabsf(f)) + expf(f / 8.0f),
                        fm * (float)fe};
        for (int k = 0; k < 4 && good; k++)
            if (!(good = close_double(out32[i][k], w32[k], 1e-6)))
                diag("v=%g float32 op %d: got %.9g want %.9g", v, k, (double)out32[i][k],
                     (double)w32[k]);
    }
    ok(good, "frexp ldexp gamma lgamma erf erfc round fma cbrt hypot atan2 (float64, float32)");
    krt_free(dx);
    krt_free(dout);
    krt_free(d32);
}

static void test_tables(void)
{
    static const int64_t table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
    static const double grid[2][2] = {{1.5, 2.5}, {-0.5, 4.0}};
    enum { N = 21 };
    int64_t idx[N], shp[2][2];
    double out[N];
    krt_array di, dout, ds;
    for (int i = 0; i < N; i++)
        idx[i] = (i * 5) % 23;
    E2E_CHECK(krt_to_device(&di, idx, KRT_INT64, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 1, (int64_t[]){N}));
    E2E_CHECK(krt_alloc(&ds, KRT_INT64, 2, (int64_t[]){2, 2}));
    E2E_CHECK(tables(krt_grid1(2, 16), di, dout, ds));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    E2E_CHECK(krt_copy_to_host(shp, ds, NULL));
    int good = 1;
    int64_t lo = idx[0], hi = idx[0];
    for (int i = 0; i < N; i++) {
        int64_t k = idx[i];
        double want = (double)table[k % 8] * 100.0 + grid[k % 2][(k / 2) % 2] +
                      (double)(k / 3) * 1000.0 + (double)(k % 3) * 10000.0;
        if (good && !(good = out[i] == want))
            diag("k=%lld: got %g want %g", (long long)k, out[i], want);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    ok(good, "const.array_like (1-D and 2-D), tuple-returning device function unpacked");
    ok(shp[0][0] == 2 && shp[0][1] == 2 && shp[1][0] == lo && shp[1][1] == hi,
       "a.shape as a tuple, a (min, max) tuple from a device function");
    krt_free(di);
    krt_free(dout);
    krt_free(ds);
}

static void test_print(void)
{
    char path[] = "/tmp/kernc-print.XXXXXX", buf[256] = "";
    int fd = mkstemp(path), saved = dup(1);
    if (fd < 0 || saved < 0)
        bail("cannot capture stdout");
    fflush(stdout);
    dup2(fd, 1);
    int st = say(krt_grid1(2, 32), 5, 2.5, 1);
    if (st == KRT_OK)
        st = krt_synchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    unlink(path);
    E2E_CHECK(st);
    buf[n > 0 ? n : 0] = '\0';
    is_string("n = 5 x = 2.500000 100% 1 7\n", buf, "print() formats as numba's CUDA print");
}

int main(void)
{
    plan(5);
    test_bitops();
    test_math();
    test_tables();
    test_print();
    return 0;
}
