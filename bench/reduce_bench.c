/*
 * reduce_bench.c - the sum of 16M floats: the 256-thread block tree
 * reduction of bench/reduce.kern (each thread first sums a grid-stride slice
 * of 16 elements; the host adds the block partials) against a plain C loop
 * with the same flags.  Best of BENCH_RUNS, copies not timed; the kernel's
 * sum must agree with a double-precision sum (the loop's sequential float
 * sum of 16M terms drifts by whole percents, so it is only printed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kernrt.h>
#include "bench.h"
#include "reduce.kern.h"

#define N (16 * 1024 * 1024)
#define TPB 256                         /* as in reduce.kern */
#define BLOCKS (N / (TPB * 16))

static float plain_sum(const float *x, long n)
{
    float s = 0;
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

static int run(const float *x, double *sum, double *krt_ms)
{
    static float partial[BLOCKS];
    krt_array dx, dpartial;

    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dpartial, KRT_FLOAT32, 1, (int64_t[]){BLOCKS}));
    KRT_TRY(block_sum(krt_grid1(BLOCKS, TPB), dx, dpartial));   /* warm-up */
    KRT_TRY(krt_synchronize());
    *krt_ms = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double t0 = bench_ms();
        KRT_TRY(block_sum(krt_grid1(BLOCKS, TPB), dx, dpartial));
        KRT_TRY(krt_synchronize());
        double t = bench_ms() - t0;
        *krt_ms = t < *krt_ms ? t : *krt_ms;
    }
    KRT_TRY(krt_copy_to_host(partial, dpartial, NULL));
    krt_free(dx);
    krt_free(dpartial);
    *sum = 0;
    for (int b = 0; b < BLOCKS; b++)
        *sum += partial[b];
    return KRT_OK;
}

int main(void)
{
    float *x = malloc(N * sizeof *x);
    double want = 0, krt_sum, krt_ms, plain_ms = 1e30;
    volatile float plain = 0;

    if (!x) {
        fprintf(stderr, "reduce_bench: out of memory\n");
        return 1;
    }
    for (long i = 0; i < N; i++) {
        x[i] = (float)(i % 1000) / 1000;
        want += x[i];
    }
    int status = run(x, &krt_sum, &krt_ms);
    if (status != KRT_OK) {
        fprintf(stderr, "reduce_bench: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    for (int r = 0; r < BENCH_RUNS + 1; r++) {
        double t0 = bench_ms();
        plain = plain_sum(x, N);
        double t = bench_ms() - t0;
        plain_ms = r && t < plain_ms ? t : plain_ms;   /* run 0 warms up */
    }
    if (fabs(krt_sum - want) > 1e-4 * want) {
        fprintf(stderr, "reduce_bench: kernel sum %.9g, want %.9g\n", krt_sum, want);
        return 1;
    }
    printf("# reduce: %d floats, %d blocks of %d threads, %s backend; sums: %.9g "
           "(kernel) %.9g (loop) %.9g (double)\n", N, BLOCKS, TPB, krt_backend_name(),
           krt_sum, (double)plain, want);
    bench_result("reduce-16M", krt_ms, plain_ms);
    free(x);
    return 0;
}
