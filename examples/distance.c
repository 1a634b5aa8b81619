/*
 * distance.c - host program for distance.kern: the distance of 500 points
 * from (px, py), computed by a device function called from the kernel.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "distance.kern.h"

#define N 500

static float xs[N], ys[N], out[N];

static int run(int *bad)
{
    const float px = 0.5f, py = 0.25f;
    krt_array dxs, dys, dout;

    for (int i = 0; i < N; i++) {
        xs[i] = (float)(i % 23) / 23;
        ys[i] = (float)(i % 31) / 31;
    }
    KRT_TRY(krt_to_device(&dxs, xs, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_to_device(&dys, ys, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_FLOAT32, 1, (int64_t[]){N}));
    KRT_TRY(distances(krt_grid1((N + 255) / 256, 256), dxs, dys, px, py, dout));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    krt_free(dxs);
    krt_free(dys);
    krt_free(dout);
    for (int i = 0; i < N; i++) {
        double want = hypot((double)px - xs[i], (double)py - ys[i]);
        if (fabs(out[i] - want) > 1e-6 * (1 + want)) {
            fprintf(stderr, "distance: out[%d] = %g, want %g\n", i, out[i], want);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "distance: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("distance: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
