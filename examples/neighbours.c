/*
 * neighbours.c - host program for neighbours.kern: each element plus its left
 * and right neighbours within its block of 128 (the last block is partial).
 */
#include <stdio.h>

#include <kernrt.h>
#include "neighbours.kern.h"

#define N 1000
#define TPB 128                 /* as in neighbours.kern */

static int32_t in[N], out[N];

static int run(int *bad)
{
    krt_array din, dout;

    for (int i = 0; i < N; i++)
        in[i] = (i * 37) % 201 - 100;
    KRT_TRY(krt_to_device(&din, in, KRT_INT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_INT32, 1, (int64_t[]){N}));
    KRT_TRY(neighbour_sum(krt_grid1((N + TPB - 1) / TPB, TPB), din, dout));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    krt_free(din);
    krt_free(dout);
    for (int i = 0; i < N; i++) {
        int t = i % TPB, want = in[i];
        if (t > 0)
            want += in[i - 1];
        if (t < TPB - 1 && i + 1 < N)
            want += in[i + 1];
        if (out[i] != want) {
            fprintf(stderr, "neighbours: out[%d] = %d, want %d\n", i, (int)out[i], want);
            ++*bad;
        }
    }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "neighbours: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("neighbours: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
