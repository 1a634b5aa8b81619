/*
 * gridsync.c - end-to-end test of gridsync.kern: Jacobi relaxation whose
 * grid syncs sit in a device function called in a loop (grids smaller and
 * larger than the array, one block too), a grid-wide prefix sum over
 * several blocks that keeps each block's shared memory across the sync,
 * both compared with C written here, and the co-resident limit: a grid
 * larger than krt_max_cooperative_grid is refused with KRT_ECOOPERATIVE
 * by the typed launcher (the kernel's descriptor says cooperative).
 */
#include "e2e.h"
#include "gridsync.kern.h"

#define TPB 64

static void test_jacobi(int64_t n, int iters, unsigned blocks, unsigned threads)
{
    double *a = malloc((size_t)n * sizeof *a), *want = malloc((size_t)n * sizeof *want),
           *tmp = malloc((size_t)n * sizeof *tmp);
    krt_array da, db;
    for (int64_t k = 0; k < n; k++)
        a[k] = want[k] = (double)((k * 7919) % 101) - 50.0;
    for (int it = 0; it < iters; it++) {
        for (int64_t k = 0; k < n; k++)
            tmp[k] = 0 < k && k < n - 1 ? 0.5 * (want[k - 1] + want[k + 1]) : want[k];
        memcpy(want, tmp, (size_t)n * sizeof *want);
    }
    E2E_CHECK(krt_to_device(&da, a, KRT_FLOAT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&db, KRT_FLOAT64, 1, (int64_t[]){n}));
    E2E_CHECK(jacobi(krt_grid1(blocks, threads), da, db, iters));
    E2E_CHECK(krt_copy_to_host(a, da, NULL));
    int good = 1;
    for (int64_t k = 0; k < n && good; k++)
        if (!(good = a[k] == want[k]))
            diag("a[%lld]: got %.17g want %.17g", (long long)k, a[k], want[k]);
    ok(good, "jacobi: %d sweeps of %lld points on %u blocks of %u", iters, (long long)n, blocks,
       threads);
    krt_free(da);
    krt_free(db);
    free(a);
    free(want);
    free(tmp);
}

static void test_scan(int64_t n)
{
    unsigned blocks = (unsigned)((n + TPB - 1) / TPB);
    int64_t *x = malloc((size_t)n * sizeof *x), *out = malloc((size_t)n * sizeof *out);
    krt_array dx, dp, dout;
    for (int64_t k = 0; k < n; k++)
        x[k] = (k * 31) % 17 - 8;
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dp, KRT_INT64, 1, (int64_t[]){blocks}));
    E2E_CHECK(krt_alloc(&dout, KRT_INT64, 1, (int64_t[]){n}));
    E2E_CHECK(grid_scan(krt_grid1(blocks, TPB), dx, dp, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    int64_t sum = 0;
    for (int64_t k = 0; k < n && good; k++) {
        sum += x[k];
        if (!(good = out[k] == sum))
            diag("out[%lld]: got %lld want %lld", (long long)k, (long long)out[k], (long long)sum);
    }
    ok(good, "grid-wide prefix sum of %lld values over %u blocks", (long long)n, blocks);
    krt_free(dx);
    krt_free(dp);
    krt_free(dout);
    free(x);
    free(out);
}

static void test_too_large(void)
{
    unsigned max = 0;
    krt_array dx, dp, dout;
    E2E_CHECK(krt_max_cooperative_grid(&max, &grid_scan__kernel, (krt_dim3){TPB, 1, 1}, 0));
    ok(max > 0, "krt_max_cooperative_grid: %u blocks of %d", max, TPB);
    ok(grid_scan__kernel.cooperative == 1 && jacobi__kernel.cooperative == 1,
       "the descriptors say cooperative");
    E2E_CHECK(krt_alloc(&dx, KRT_INT64, 1, (int64_t[]){1}));
    E2E_CHECK(krt_alloc(&dp, KRT_INT64, 1, (int64_t[]){1}));
    E2E_CHECK(krt_alloc(&dout, KRT_INT64, 1, (int64_t[]){1}));
    int st = grid_scan(krt_grid1(max + 1, TPB), dx, dp, dout);
    is_string("KRT_ECOOPERATIVE", krt_status_name(st), "a grid of %u blocks is refused", max + 1);
    ok(strstr(krt_last_error(), "cooperative") != NULL, "the message says why: %s",
       krt_last_error());
    krt_free(dx);
    krt_free(dp);
    krt_free(dout);
}

int main(void)
{
    plan(10);
    test_jacobi(1000, 25, 4, 64);
    test_jacobi(100, 40, 8, 32);
    test_jacobi(300, 7, 1, 128);
    test_jacobi(2, 3, 2, 32);
    test_scan(1000);
    test_scan(64);
    test_too_large();
    return 0;
}
