/*
 * forall.c - host program for forall.kern: launches configured by
 * krt_forall(n), numba's kernel.forall(n).
 *
 * The host does not choose a block size: the backend does (on cuda the one
 * that maximises occupancy, as cudaOccupancyMaxPotentialBlockSize; on cpu
 * 256, or n rounded up to a warp when smaller), and the grid is just large
 * enough for n threads.  For array sizes around the interesting edges (one
 * element, a warp, a block, and large ones), the program checks the
 * configuration (at least n threads, less than one block to spare), that a
 * launch with it starts exactly grid * block threads (count_threads) and
 * computes every element (affine), and that n <= 0 is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kernrt.h>
#include "forall.kern.h"

static const int64_t sizes[] = {1, 31, 32, 33, 255, 256, 257, 1000, 100003,
                                (int64_t)1 << 20};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* The configuration for n threads, as kernrt.h documents it. */
static void check_cfg(const char *kernel, krt_launch_cfg cfg, int64_t n,
                      int on_cpu, int *bad)
{
    uint64_t threads = (uint64_t)cfg.grid.x * cfg.block.x;
    unsigned want_cpu = n >= 256 ? 256u : (unsigned)((n + 31) / 32 * 32);

    if (cfg.block.x == 0 || cfg.block.x > 1024 || cfg.grid.y != 1 ||
        cfg.grid.z != 1 || cfg.block.y != 1 || cfg.block.z != 1 ||
        cfg.shared_bytes != 0 || cfg.stream != NULL ||
        threads < (uint64_t)n || threads - cfg.block.x >= (uint64_t)n ||
        (on_cpu && cfg.block.x != want_cpu)) {
        fprintf(stderr, "forall: %s, n = %lld: grid (%u, %u, %u), block "
                "(%u, %u, %u), %zu shared bytes\n", kernel, (long long)n,
                cfg.grid.x, cfg.grid.y, cfg.grid.z, cfg.block.x, cfg.block.y,
                cfg.block.z, cfg.shared_bytes);
        ++*bad;
    }
}

static int one_size(int64_t n, int on_cpu, double *x, double *y, int *bad)
{
    krt_launch_cfg cfg;
    krt_array dx, dy, dcount;
    int64_t shape[1] = {n}, one[1] = {1}, count = 0;
    const double a = 1.5, b = -2.0;

    for (int64_t i = 0; i < n; i++) {
        x[i] = (double)i - 7.25;
        y[i] = 0.0;
    }
    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT64, 1, shape, NULL));
    KRT_TRY(krt_to_device(&dy, y, KRT_FLOAT64, 1, shape, NULL));
    KRT_TRY(krt_to_device(&dcount, &count, KRT_INT64, 1, one, NULL));

    KRT_TRY(krt_forall(&cfg, &affine__kernel, n));
    check_cfg("affine", cfg, n, on_cpu, bad);
    KRT_TRY(affine(cfg, dx, dy, a, b));
    KRT_TRY(krt_copy_to_host(y, dy, NULL));
    for (int64_t i = 0; i < n; i++)
        if (y[i] != a * x[i] + b) {
            if (*bad < 10)
                fprintf(stderr, "forall: n = %lld: out[%lld] = %g, want "
                        "%g\n", (long long)n, (long long)i, y[i],
                        a * x[i] + b);
            ++*bad;
        }

    /* The block size may differ from kernel to kernel (cuda: registers). */
    KRT_TRY(krt_forall(&cfg, &count_threads__kernel, n));
    check_cfg("count_threads", cfg, n, on_cpu, bad);
    KRT_TRY(count_threads(cfg, dcount));
    KRT_TRY(krt_copy_to_host(&count, dcount, NULL));
    if ((uint64_t)count != (uint64_t)cfg.grid.x * cfg.block.x) {
        fprintf(stderr, "forall: n = %lld: %lld threads ran, the "
                "configuration has %u x %u\n", (long long)n,
                (long long)count, cfg.grid.x, cfg.block.x);
        ++*bad;
    }
    if (n == sizes[NSIZES - 1])
        printf("forall(%lld): %u blocks of %u threads\n", (long long)n,
               cfg.grid.x, cfg.block.x);

    KRT_TRY(krt_free(dx));
    KRT_TRY(krt_free(dy));
    KRT_TRY(krt_free(dcount));
    return KRT_OK;
}

static int run(int *bad)
{
    int64_t most = sizes[NSIZES - 1];
    double *x = malloc((size_t)most * sizeof *x);
    double *y = malloc((size_t)most * sizeof *y);
    int on_cpu = strcmp(krt_backend_name(), "cpu") == 0;
    krt_launch_cfg cfg;
    int status = KRT_OK;

    if (x == NULL || y == NULL) {
        fprintf(stderr, "forall: out of host memory\n");
        status = KRT_ENOMEM;
    }
    for (int s = 0; s < NSIZES && status == KRT_OK; s++)
        status = one_size(sizes[s], on_cpu, x, y, bad);
    free(x);
    free(y);
    KRT_TRY(status);

    /* forall needs at least one thread; the refused call leaves an empty
     * configuration behind. */
    for (int64_t n = 0; n >= -1; n--) {
        status = krt_forall(&cfg, &affine__kernel, n);
        if (status != KRT_EINVAL || cfg.grid.x != 0 || cfg.block.x != 0) {
            fprintf(stderr, "forall(%lld): %s with a grid of %u x %u, want "
                    "KRT_EINVAL\n", (long long)n, krt_status_name(status),
                    cfg.grid.x, cfg.block.x);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "forall: %s: %s\n", krt_status_name(status),
                krt_last_error());
        return 1;
    }
    printf("forall: %s (%s backend)\n", bad ? "FAILED" : "ok",
           krt_backend_name());
    return bad != 0;
}
