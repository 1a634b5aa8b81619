/*
 * scan.c - host program for scan.kern: an inclusive prefix sum within each
 * block of 256 elements (the last block is partial).
 */
#include <stdio.h>

#include <kernrt.h>
#include "scan.kern.h"

#define N 700
#define TPB 256                 /* as in scan.kern */

static int32_t in[N], out[N];

static int run(int *bad)
{
    krt_array din, dout;
    int32_t sum = 0;

    for (int i = 0; i < N; i++)
        in[i] = (i * 13) % 101 - 50;
    KRT_TRY(krt_to_device(&din, in, KRT_INT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_INT32, 1, (int64_t[]){N}));
    KRT_TRY(block_scan(krt_grid1((N + TPB - 1) / TPB, TPB), din, dout));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    krt_free(din);
    krt_free(dout);
    for (int i = 0; i < N; i++) {
        sum = (i % TPB == 0 ? 0 : sum) + in[i];
        if (out[i] != sum) {
            fprintf(stderr, "scan: out[%d] = %d, want %d\n", i, (int)out[i], (int)sum);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "scan: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("scan: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
