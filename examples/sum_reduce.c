/*
 * sum_reduce.c - host program for sum_reduce.kern (cuda.reduce): the sum
 * of 1..N as int64 (exact), and of N float64 halves with an init value,
 * once copied back and once left in a device array.
 */
#include <stdio.h>

#include <kernrt.h>
#include "sum_reduce.kern.h"

#define N 100003

static int64_t v[N];
static double h[N];

static int run(int *bad)
{
    krt_array dv, dh, dres;
    int64_t total = 0;
    double dtotal = 0, back = 0;

    for (int i = 0; i < N; i++) {
        v[i] = i + 1;
        h[i] = 0.5;
    }
    KRT_TRY(krt_to_device(&dv, v, KRT_INT64, 1, (int64_t[]){N}, NULL));
    KRT_TRY(sum_reduce_i8(dv, 0, &total, NULL, NULL));
    if (total != (int64_t)N * (N + 1) / 2) {
        fprintf(stderr, "sum_reduce: int64 sum %lld\n", (long long)total);
        ++*bad;
    }
    KRT_TRY(krt_to_device(&dh, h, KRT_FLOAT64, 1, (int64_t[]){N}, NULL));
    KRT_TRY(krt_alloc(&dres, KRT_FLOAT64, 1, (int64_t[]){1}));
    KRT_TRY(sum_reduce_f8(dh, 1.0, &dtotal, NULL, NULL));
    KRT_TRY(sum_reduce_f8(dh, 2.0, NULL, &dres, NULL));   /* stays on the device */
    KRT_TRY(krt_copy_to_host(&back, dres, NULL));
    if (dtotal != 1.0 + N * 0.5 || back != 2.0 + N * 0.5) {
        fprintf(stderr, "sum_reduce: float64 sums %.17g %.17g\n", dtotal, back);
        ++*bad;
    }
    KRT_TRY(krt_free(dv));
    KRT_TRY(krt_free(dh));
    KRT_TRY(krt_free(dres));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "sum_reduce: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("sum_reduce: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
