/*
 * localarray.c - host program for localarray.kern: every thread sorts one
 * row of K floats in its own local array; checked against qsort.
 */
#include <stdio.h>
#include <stdlib.h>

#include <kernrt.h>
#include "localarray.kern.h"

#define ROWS 300
#define K 8                     /* as in localarray.kern */

static float in[ROWS][K], out[ROWS][K], want[ROWS][K];

static int cmp_float(const void *p, const void *q)
{
    float a = *(const float *)p, b = *(const float *)q;
    return (a > b) - (a < b);
}

static int run(int *bad)
{
    const int64_t shape[2] = {ROWS, K};
    krt_array din, dout;

    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < K; j++)
            in[i][j] = (float)((i * 7919 + j * 104729) % 1000) / 10;
    KRT_TRY(krt_to_device(&din, in, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_FLOAT32, 2, shape));
    KRT_TRY(sort_rows(krt_grid1((ROWS + 63) / 64, 64), din, dout));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    krt_free(din);
    krt_free(dout);
    for (int i = 0; i < ROWS; i++) {
        for (int j = 0; j < K; j++)
            want[i][j] = in[i][j];
        qsort(want[i], K, sizeof(float), cmp_float);
        for (int j = 0; j < K; j++)
            if (out[i][j] != want[i][j]) {
                fprintf(stderr, "localarray: out[%d][%d] = %g, want %g\n", i, j,
                        out[i][j], want[i][j]);
                ++*bad;
            }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "localarray: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("localarray: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
