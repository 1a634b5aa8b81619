/*
 * sim_bench.c - kernc's side of the comparison with numba's CUDA simulator:
 * the saxpy and block-reduction kernels of bench/ and the tiled matmul of
 * examples/matmul.kern, on the small sizes the simulator finishes in
 * seconds.  bench/sim_bench.py launches the same .kern files with the same
 * sizes and launch configurations under NUMBA_ENABLE_CUDASIM=1; bench/run
 * puts the two side by side.
 *
 *   sim_bench SAXPY_N REDUCE_N MATMUL_N
 *
 * prints "KERNC name ms" per kernel: the best of SIM_RUNS launches after a
 * warm-up, copies not timed, each result checked against a plain C
 * reference (a wrong result fails the program instead of printing a time).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kernrt.h>
#include "bench.h"
#include "saxpy.kern.h"
#include "reduce.kern.h"
#include "matmul.kern.h"

/* Launches are short at these sizes: more runs make the best one stable. */
#define SIM_RUNS 20
#define SAXPY_TPB 256
#define REDUCE_TPB 256                  /* TPB in bench/reduce.kern */
#define REDUCE_PER_THREAD 16            /* as in reduce_bench.c */
#define MATMUL_TPB 16                   /* TPB in examples/matmul.kern */

static unsigned cdiv(long a, long b)
{
    return (unsigned)((a + b - 1) / b);
}

/* Time SIM_RUNS launches of one kernel; the launch expression is a macro
 * argument so that each kernel keeps its typed launcher. */
#define SIM_TIME(best, launch)                                               \
    do {                                                                     \
        KRT_TRY(launch);                                  /* warm-up */      \
        KRT_TRY(krt_synchronize());                                          \
        *(best) = 1e30;                                                      \
        for (int r_ = 0; r_ < SIM_RUNS; r_++) {                              \
            double t0_ = bench_ms();                                         \
            KRT_TRY(launch);                                                 \
            KRT_TRY(krt_synchronize());                                      \
            double t_ = bench_ms() - t0_;                                    \
            *(best) = t_ < *(best) ? t_ : *(best);                           \
        }                                                                    \
    } while (0)

static int run_saxpy(long n, double *ms, long *bad)
{
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    const float a = 0.5f;
    krt_array dx, dy;
    int status = KRT_ENOMEM;

    if (!x || !y)
        goto out;
    for (long i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) / 1000;
        y[i] = (float)(i % 7);
    }
    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    KRT_TRY(krt_to_device(&dy, y, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    SIM_TIME(ms, saxpy(krt_grid1(cdiv(n, SAXPY_TPB), SAXPY_TPB), dx, dy, a));
    /* The timed launches ran on the same y: check one more from scratch. */
    KRT_TRY(krt_copy_to_device(dy, y, NULL));
    KRT_TRY(saxpy(krt_grid1(cdiv(n, SAXPY_TPB), SAXPY_TPB), dx, dy, a));
    KRT_TRY(krt_copy_to_host(y, dy, NULL));
    for (long i = 0; i < n; i++) {
        float want = a * ((float)(i % 1000) / 1000) + (float)(i % 7);
        if (fabsf(y[i] - want) > 1e-5f * (1 + fabsf(want)))
            ++*bad;
    }
    krt_free(dx);
    krt_free(dy);
    status = KRT_OK;
out:
    free(x);
    free(y);
    return status;
}

static int run_reduce(long n, double *ms, long *bad)
{
    const unsigned blocks = cdiv(n, REDUCE_TPB * REDUCE_PER_THREAD);
    float *x = malloc(n * sizeof *x), *partial = malloc(blocks * sizeof *partial);
    double sum = 0, want = 0;
    krt_array dx, dpartial;
    int status = KRT_ENOMEM;

    if (!x || !partial)
        goto out;
    for (long i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) / 1000;
        want += x[i];
    }
    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    KRT_TRY(krt_alloc(&dpartial, KRT_FLOAT32, 1, (int64_t[]){blocks}));
    SIM_TIME(ms, block_sum(krt_grid1(blocks, REDUCE_TPB), dx, dpartial));
    KRT_TRY(krt_copy_to_host(partial, dpartial, NULL));
    for (unsigned b = 0; b < blocks; b++)
        sum += partial[b];
    if (fabs(sum - want) > 1e-4 * want)
        ++*bad;
    krt_free(dx);
    krt_free(dpartial);
    status = KRT_OK;
out:
    free(x);
    free(partial);
    return status;
}

static int run_matmul(long n, double *ms, long *bad)
{
    const unsigned grid = cdiv(n, MATMUL_TPB);
    float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    float *c = malloc(n * n * sizeof *c);
    const int64_t shape[2] = {n, n};
    krt_array da, db, dc;
    int status = KRT_ENOMEM;

    if (!a || !b || !c)
        goto out;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = (float)((i + 2 * j) % 7) / 4;
            b[i * n + j] = (float)((3 * i + j) % 5) - 2;
        }
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_to_device(&db, b, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_alloc(&dc, KRT_FLOAT32, 2, shape));
    SIM_TIME(ms, fast_matmul(krt_grid2(grid, grid, MATMUL_TPB, MATMUL_TPB), da, db, dc));
    KRT_TRY(krt_copy_to_host(c, dc, NULL));
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double want = 0;
            for (long k = 0; k < n; k++)
                want += (double)a[i * n + k] * b[k * n + j];
            if (fabs(c[i * n + j] - want) > 1e-4 * (1 + fabs(want)))
                ++*bad;
        }
    krt_free(da);
    krt_free(db);
    krt_free(dc);
    status = KRT_OK;
out:
    free(a);
    free(b);
    free(c);
    return status;
}

static const struct {
    const char *name;
    int (*run)(long n, double *ms, long *bad);
} sim_benches[] = {
    {"saxpy", run_saxpy},
    {"reduce", run_reduce},
    {"matmul", run_matmul},
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: sim_bench SAXPY_N REDUCE_N MATMUL_N\n");
        return 2;
    }
    for (int i = 0; i < 3; i++) {
        char *end;
        long n = strtol(argv[i + 1], &end, 10), bad = 0;
        double ms;

        if (*end != '\0' || n < 1 || n > (i == 2 ? 4096 : 1L << 28)) {
            fprintf(stderr, "sim_bench: %s: bad size '%s'\n", sim_benches[i].name,
                    argv[i + 1]);
            return 2;
        }
        int status = sim_benches[i].run(n, &ms, &bad);
        if (status != KRT_OK) {
            fprintf(stderr, "sim_bench: %s: %s: %s\n", sim_benches[i].name,
                    krt_status_name(status), krt_last_error());
            return 1;
        }
        if (bad) {
            fprintf(stderr, "sim_bench: %s: %ld wrong results\n", sim_benches[i].name, bad);
            return 1;
        }
        printf("KERNC %s %.4f\n", sim_benches[i].name, ms);
    }
    return 0;
}
