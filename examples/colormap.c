/*
 * colormap.c - host program for colormap.kern, whose kernel calls the CUDA
 * C functions of colormap.cu (cuda.declare_device): on the GPU the nvcc
 * build of colormap.cu, on the CPU backend its C++ build with
 * kernrt_cuda_compat.h.  Checks both results against the same formulas.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "colormap.kern.h"

#define N 1000
#define TPB 128

static float x[N], smooth[N];
static unsigned char grey[N];

static float want_smooth(float v)
{
    float t = (v - 0.25f) / (0.75f - 0.25f);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

static int run(int *bad)
{
    krt_array dx, ds, dg;

    for (int i = 0; i < N; i++)
        x[i] = (float)i / (float)(N - 1);
    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 1, KRT_SHAPE(N), NULL));
    KRT_TRY(krt_alloc(&ds, KRT_FLOAT32, 1, KRT_SHAPE(N)));
    KRT_TRY(krt_alloc(&dg, KRT_UINT8, 1, KRT_SHAPE(N)));
    KRT_TRY(colormap(krt_grid1((N + TPB - 1) / TPB, TPB), dx, ds, dg));
    KRT_TRY(krt_copy_to_host(smooth, ds, NULL));
    KRT_TRY(krt_copy_to_host(grey, dg, NULL));
    KRT_TRY(krt_free(dx));
    KRT_TRY(krt_free(ds));
    KRT_TRY(krt_free(dg));
    for (int i = 0; i < N; i++) {
        float s = want_smooth(x[i]);
        unsigned dither = ((unsigned)(i % TPB) * 7u + (unsigned)(i / TPB)) % 4u;
        int g = (int)(s * 252.0f) + (int)dither;
        if (fabsf(smooth[i] - s) > 1e-6f || grey[i] != g) {
            if (*bad < 10)
                fprintf(stderr, "colormap: [%d] = %g, %d; want %g, %d\n", i, smooth[i],
                        grey[i], s, g);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "colormap: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("colormap: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
