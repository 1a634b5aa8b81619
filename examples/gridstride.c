/*
 * gridstride.c - host program for gridstride.kern: y = a * x + y over 5000
 * elements with only 4 blocks of 64 threads, so each thread loops.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "gridstride.kern.h"

#define N 5000

static float x[N], y[N], out[N];

static int run(int *bad)
{
    const float a = 2.5f;
    krt_array dx, dy;

    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 97) / 8;
        y[i] = (float)(i % 13) - 6;
    }
    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_to_device(&dy, y, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(saxpy_stride(krt_grid1(4, 64), dx, dy, a));
    KRT_TRY(krt_copy_to_host(out, dy, NULL));
    krt_free(dx);
    krt_free(dy);
    for (int i = 0; i < N; i++) {
        float want = a * x[i] + y[i];
        if (fabsf(out[i] - want) > 1e-6f * (1 + fabsf(want))) {
            fprintf(stderr, "gridstride: y[%d] = %g, want %g\n", i, out[i], want);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "gridstride: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("gridstride: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
