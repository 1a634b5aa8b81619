/*
 * max_reduce.c - host program for max_reduce.kern (@cuda.reduce): the
 * largest of a million float32 values on a stream, and of an int32 array
 * where init is larger than every element.
 */
#include <stdio.h>

#include <kernrt.h>
#include "max_reduce.kern.h"

#define N (1 << 20)

static float f[N];
static int32_t k[1000];

static int run(int *bad)
{
    krt_array df, dk;
    krt_stream *stream;
    float fmax = 0, want = -1e30f;
    int32_t kmax = 0;
    uint32_t x = 12345;

    for (int i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        f[i] = (float)(x >> 8) / 65536.0f - 128.0f;
        if (f[i] > want)
            want = f[i];
    }
    for (int i = 0; i < 1000; i++)
        k[i] = (i * 7919) % 1000 - 500;
    KRT_TRY(krt_stream_create(&stream));
    KRT_TRY(krt_to_device(&df, f, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    KRT_TRY(max_reduce_f4(df, -1e30f, &fmax, NULL, stream));
    if (fmax != want) {
        fprintf(stderr, "max_reduce: float32 max %g, want %g\n", fmax, want);
        ++*bad;
    }
    KRT_TRY(krt_to_device(&dk, k, KRT_INT32, 1, (int64_t[]){1000}, NULL));
    KRT_TRY(max_reduce_i4(dk, 1000, &kmax, NULL, NULL));
    if (kmax != 1000) {
        fprintf(stderr, "max_reduce: int32 max %d, want the init 1000\n", kmax);
        ++*bad;
    }
    KRT_TRY(krt_stream_destroy(stream));
    KRT_TRY(krt_free(df));
    KRT_TRY(krt_free(dk));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "max_reduce: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("max_reduce: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
