/*
 * histogram.c - host program for histogram.kern: 10000 values counted into
 * 16 bins by 1024 threads at once; exact counts prove the adds are atomic.
 */
#include <stdio.h>

#include <kernrt.h>
#include "histogram.kern.h"

#define N 10000
#define NBINS 16                /* as in histogram.kern */

static int32_t values[N], bins[NBINS], want[NBINS];

static int run(int *bad)
{
    krt_array dvalues, dbins;

    for (int i = 0; i < N; i++) {
        values[i] = (i * 7 + i / 3) % 1000;
        want[values[i] % NBINS]++;
    }
    KRT_TRY(krt_to_device(&dvalues, values, KRT_INT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_to_device(&dbins, bins, KRT_INT32, 1, (int64_t[]){NBINS}, NULL));
    KRT_TRY(histogram(krt_grid1(8, 128), dvalues, dbins));
    KRT_TRY(krt_copy_to_host(bins, dbins, NULL));
    krt_free(dvalues);
    krt_free(dbins);
    for (int b = 0; b < NBINS; b++)
        if (bins[b] != want[b]) {
            fprintf(stderr, "histogram: bin %d = %d, want %d\n", b, (int)bins[b],
                    (int)want[b]);
            ++*bad;
        }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "histogram: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("histogram: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
