/*
 * double.c - host program for double.kern: copies an array to the device,
 * doubles it with one thread per element and checks the result.  The other
 * examples follow the same shape: fill, to_device, launch, copy back, check;
 * every runtime call returns a status that KRT_TRY passes up to main().
 */
#include <stdio.h>

#include <kernrt.h>
#include "double.kern.h"

#define N 1000

static float a[N], out[N];

static int run(int *bad)
{
    krt_array da;

    for (int i = 0; i < N; i++)
        a[i] = 0.5f * (float)i;
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(double_it(krt_grid1((N + 255) / 256, 256), da));
    KRT_TRY(krt_copy_to_host(out, da, NULL));
    KRT_TRY(krt_free(da));
    for (int i = 0; i < N; i++)
        if (out[i] != 2 * a[i]) {
            fprintf(stderr, "double: a[%d] = %g, want %g\n", i, out[i], 2 * a[i]);
            ++*bad;
        }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "double: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("double: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
