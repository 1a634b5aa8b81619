/*
 * options.c - end-to-end test of options.kern: a kernel with two
 * signatures has two launchers (axpb for the first, axpb__a1f8_f8 for the
 * second, as type.c names them) and both are in the module table; options
 * are accepted and leave the CPU results IEEE; a re-assigned parameter
 * and its wider shadow; ~ on a boolean; a tuple-typed local variable.
 */
#include "e2e.h"
#include "options.kern.h"

static void test_axpb(void)
{
    float x[100];
    double y[100];
    krt_array dx, dy;
    for (int i = 0; i < 100; i++) {
        x[i] = (float)i * 0.5f;
        y[i] = i * 0.25;
    }
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){100}, NULL));
    E2E_CHECK(krt_to_device(&dy, y, KRT_FLOAT64, 1, (int64_t[]){100}, NULL));
    E2E_CHECK(axpb(krt_grid1(4, 32), dx, 1.5f));
    E2E_CHECK(axpb__a1f8_f8(krt_grid1(4, 32), dy, -2.0));
    E2E_CHECK(krt_copy_to_host(x, dx, NULL));
    E2E_CHECK(krt_copy_to_host(y, dy, NULL));
    int good = 1;
    for (int i = 0; i < 100 && good; i++)
        good = x[i] == (float)i * 0.5f * 2 / 4 + 1.5f && y[i] == i * 0.25 * 2 / 4 - 2.0;
    ok(good, "one launcher per signature (float32 and float64)");
    /* the float64 launcher refuses float32 data */
    ok(axpb__a1f8_f8(krt_grid1(4, 32), dx, 1.0) == KRT_EDTYPE, "the float64 launcher checks its dtype");
    int found = 0;
    for (int k = 0; k < krt_module_options.nkernels; k++)
        found += krt_module_options.kernels[k] == &axpb__kernel ||
                 krt_module_options.kernels[k] == &axpb__a1f8_f8__kernel;
    ok(found == 2 && krt_module_options.nkernels == 5, "both signatures are in the module table");
    krt_free(dx);
    krt_free(dy);
}

static void test_shadow(int32_t n)
{
    int32_t out[40];
    krt_array d;
    E2E_CHECK(krt_alloc(&d, KRT_INT32, 1, (int64_t[]){40}));
    E2E_CHECK(shadow(krt_grid1(2, 32), d, n));
    E2E_CHECK(krt_copy_to_host(out, d, NULL));
    int good = 1;
    for (int i = 0; i < 40 && good; i++)
        good = out[i] == (int32_t)((int64_t)n * 3000000000LL / 1000000000 + i);
    ok(good, "a parameter re-assigned as int64 (n=%d)", n);
    krt_free(d);
}

static void test_tuple_local(int flip)
{
    int32_t out[5][7];
    krt_array d;
    E2E_CHECK(krt_alloc(&d, KRT_INT32, 2, (int64_t[]){5, 7}));
    E2E_CHECK(tuple_local(krt_grid2(2, 4, 4, 2), d, (uint8_t)flip));
    E2E_CHECK(krt_copy_to_host(out, d, NULL));
    int good = 1;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 7; c++)
            good &= out[r][c] == (flip ? -1 : r * 100 + c);
    ok(good, "t = cuda.grid(2); t[0], t[1]; ~flip with flip=%d", flip);
    krt_free(d);
}

static void test_fast(void)
{
    float x[64], y[64];
    krt_array d;
    for (int i = 0; i < 64; i++)
        x[i] = (float)i / 16.0f - 2.0f;
    E2E_CHECK(krt_to_device(&d, x, KRT_FLOAT32, 1, (int64_t[]){64}, NULL));
    E2E_CHECK(fast(krt_grid1(2, 32), d));
    E2E_CHECK(krt_copy_to_host(y, d, NULL));
    int good = 1;
    for (int i = 0; i < 64 && good; i++) {
        /* fast intrinsics on the GPU: a few ulps */
        double want = exp((double)x[i]) / 64.0 + sin((double)x[i]) / 3.0;
        if (!(good = fabs(y[i] - want) <= 1e-5 * (fabs(want) + 1)))
            diag("x=%g: got %.9g want %.9g", (double)x[i], (double)y[i], want);
    }
    ok(good, "fastmath=True: float32 exp, sin and division within 1e-5");
    krt_free(d);
}

int main(void)
{
    plan(8);
    test_fast();
    test_axpb();
    test_shadow(5);
    test_shadow(-7);
    test_tuple_local(0);
    test_tuple_local(1);
    return 0;
}
