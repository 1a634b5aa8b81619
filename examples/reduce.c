/*
 * reduce.c - host program for reduce.kern: 8 blocks of 256 threads sum
 * 100000 floats into 8 partial sums, which the host adds up.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "reduce.kern.h"

#define N 100000
#define BLOCKS 8
#define TPB 256                 /* as in reduce.kern */

static float in[N], partial[BLOCKS];

static int run(int *bad)
{
    krt_array din, dpartial;
    double want = 0, got = 0;

    for (int i = 0; i < N; i++) {
        in[i] = (float)(i % 1000) / 1000;
        want += in[i];
    }
    KRT_TRY(krt_to_device(&din, in, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dpartial, KRT_FLOAT32, 1, (int64_t[]){BLOCKS}));
    KRT_TRY(block_sum(krt_grid1(BLOCKS, TPB), din, dpartial));
    KRT_TRY(krt_copy_to_host(partial, dpartial, NULL));
    krt_free(din);
    krt_free(dpartial);
    for (int b = 0; b < BLOCKS; b++)
        got += partial[b];
    /* float32 partial sums of ~6000 each: a few units in the 7th digit. */
    if (fabs(got - want) > 1e-5 * want) {
        fprintf(stderr, "reduce: sum = %.7g, want %.7g\n", got, want);
        ++*bad;
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "reduce: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("reduce: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
