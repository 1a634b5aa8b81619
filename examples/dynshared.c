/*
 * dynshared.c - host program for dynshared.kern: the kernel's shared array
 * has shape 0, so its size comes from the launch (krt_with_shared).
 */
#include <stdio.h>

#include <kernrt.h>
#include "dynshared.kern.h"

#define BLOCKS 5
#define TPB 64
#define N (BLOCKS * TPB)

static float a[N], out[N];

static int run(int *bad)
{
    krt_array da;

    for (int i = 0; i < N; i++)
        a[i] = (float)i;
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(reverse_blocks(krt_with_shared(krt_grid1(BLOCKS, TPB), TPB * sizeof(float)),
                           da));
    KRT_TRY(krt_copy_to_host(out, da, NULL));
    krt_free(da);
    for (int i = 0; i < N; i++) {
        float want = a[i - i % TPB + (TPB - 1 - i % TPB)];
        if (out[i] != want) {
            fprintf(stderr, "dynshared: a[%d] = %g, want %g\n", i, out[i], want);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "dynshared: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("dynshared: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
