/*
 * stencil.c - host program for stencil.kern: out[i] is the sum of in[i-R ..
 * i+R] (zero outside the array), across block boundaries through the halo.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "stencil.kern.h"

#define N 1000
#define TPB 128                 /* as in stencil.kern */
#define R 3

static float in[N], out[N];

static int run(int *bad)
{
    krt_array din, dout;

    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 31) % 17) / 16;
    KRT_TRY(krt_to_device(&din, in, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_FLOAT32, 1, (int64_t[]){N}));
    KRT_TRY(stencil1d(krt_grid1((N + TPB - 1) / TPB, TPB), din, dout));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    krt_free(din);
    krt_free(dout);
    for (int i = 0; i < N; i++) {
        float want = 0;
        for (int k = -R; k <= R; k++)
            if (i + k >= 0 && i + k < N)
                want += in[i + k];
        if (fabsf(out[i] - want) > 1e-5f * (1 + fabsf(want))) {
            fprintf(stderr, "stencil: out[%d] = %g, want %g\n", i, out[i], want);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "stencil: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("stencil: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
