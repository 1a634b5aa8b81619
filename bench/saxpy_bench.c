/*
 * saxpy_bench.c - y = a * x + y over 16M floats: the saxpy kernel of
 * bench/saxpy.kern on the backend KRT_BACKEND picks (bench/run: cpu), one
 * thread per element, against a plain C loop built with the same flags.
 * Both are timed without the copies, best of BENCH_RUNS, and their results
 * must agree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kernrt.h>
#include "bench.h"
#include "saxpy.kern.h"

#define N (16 * 1024 * 1024)
#define TPB 256

static void plain_saxpy(float *restrict y, const float *restrict x, float a, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

static int run(float *x, float *y, float *ref, const float a, double *krt_ms,
               double *plain_ms)
{
    krt_array dx, dy;

    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_to_device(&dy, y, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(saxpy(krt_grid1(N / TPB, TPB), dx, dy, a));      /* warm-up */
    KRT_TRY(krt_synchronize());
    *krt_ms = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double t0 = bench_ms();
        KRT_TRY(saxpy(krt_grid1(N / TPB, TPB), dx, dy, a));
        KRT_TRY(krt_synchronize());
        double t = bench_ms() - t0;
        *krt_ms = t < *krt_ms ? t : *krt_ms;
    }
    KRT_TRY(krt_copy_to_host(y, dy, NULL));
    krt_free(dx);
    krt_free(dy);

    plain_saxpy(ref, x, a, N);                                  /* warm-up */
    *plain_ms = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double t0 = bench_ms();
        plain_saxpy(ref, x, a, N);
        double t = bench_ms() - t0;
        *plain_ms = t < *plain_ms ? t : *plain_ms;
    }
    return KRT_OK;
}

int main(void)
{
    const float a = 0.5f;
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    float *ref = malloc(N * sizeof *ref);
    double krt_ms, plain_ms;
    long bad = 0;

    if (!x || !y || !ref) {
        fprintf(stderr, "saxpy_bench: out of memory\n");
        return 1;
    }
    for (long i = 0; i < N; i++) {
        x[i] = (float)(i % 1000) / 1000;
        y[i] = ref[i] = (float)(i % 7);
    }
    int status = run(x, y, ref, a, &krt_ms, &plain_ms);
    if (status != KRT_OK) {
        fprintf(stderr, "saxpy_bench: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    /* Both applied saxpy 1 + BENCH_RUNS times to the same inputs. */
    for (long i = 0; i < N; i++)
        if (fabsf(y[i] - ref[i]) > 1e-5f * (1 + fabsf(ref[i])))
            bad++;
    if (bad) {
        fprintf(stderr, "saxpy_bench: %ld results differ from the plain loop\n", bad);
        return 1;
    }
    printf("# saxpy: %d floats, %d-thread blocks, %s backend\n", N, TPB, krt_backend_name());
    bench_result("saxpy-16M", krt_ms, plain_ms);
    free(x);
    free(y);
    free(ref);
    return 0;
}
