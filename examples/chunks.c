/*
 * chunks.c - numba's d[lo:hi] at work: one device buffer processed in
 * chunks, each chunk a view (krt_array_slice) with its own stream, so the
 * copy in, the kernel and the copy out of one chunk
 * overlap those of the others; then cuda.reduce over a view of the
 * result, and over a strided view (every other element); and a scratch
 * array released with krt_free_async behind the work of a stream.  The
 * kernels are chunks.kern's: twice (a[i] * 2) and total (a sum).
 */
#include <stdio.h>

#include <kernrt.h>
#include "chunks.kern.h"

#define N 100000
#define CHUNKS 4

static float in[N], out[N];

static int run(int *bad)
{
    krt_array d, part, evens, scratch;
    krt_stream *s[CHUNKS];
    int64_t chunk = (N + CHUNKS - 1) / CHUNKS;
    float sum = 0, sum_evens = 0, want = 0, want_evens = 0;
    int c, i;

    for (i = 0; i < N; i++)
        in[i] = (float)(i % 7);
    KRT_TRY(krt_alloc(&d, KRT_FLOAT32, 1, KRT_SHAPE(N)));
    for (c = 0; c < CHUNKS; c++) {
        int64_t lo = c * chunk, hi = lo + chunk < N ? lo + chunk : N;
        krt_launch_cfg cfg = krt_grid1((unsigned)((hi - lo + 255) / 256), 256);
        KRT_TRY(krt_stream_create(&s[c]));
        KRT_TRY(krt_array_slice(&part, d, 0, lo, hi, 1));
        cfg.stream = s[c];
        KRT_TRY(krt_copy_to_device(part, in + lo, s[c]));
        KRT_TRY(twice(cfg, part));
        KRT_TRY(krt_copy_to_host(out + lo, part, s[c]));
    }
    /* A scratch buffer used on stream 0, freed behind its work. */
    KRT_TRY(krt_alloc(&scratch, KRT_FLOAT32, 1, KRT_SHAPE(chunk)));
    KRT_TRY(krt_array_slice(&part, d, 0, 0, chunk, 1));
    KRT_TRY(krt_copy_device(scratch, part, s[0]));
    KRT_TRY(krt_free_async(scratch, s[0]));
    for (c = 0; c < CHUNKS; c++) {
        KRT_TRY(krt_stream_synchronize(s[c]));
        KRT_TRY(krt_stream_destroy(s[c]));
    }
    for (i = 0; i < N; i++)
        if (out[i] != 2 * in[i] && ++*bad <= 5)
            fprintf(stderr, "chunks: out[%d] = %g, want %g\n", i, out[i], 2 * in[i]);

    /* Reductions over views: the second half, and every other element. */
    KRT_TRY(krt_array_slice(&part, d, 0, N / 2, KRT_SLICE_END, 1));
    KRT_TRY(total_f4(part, 0.0f, &sum, NULL, NULL));
    KRT_TRY(krt_array_slice(&evens, d, 0, KRT_SLICE_END, KRT_SLICE_END, 2));
    KRT_TRY(total_f4(evens, 0.0f, &sum_evens, NULL, NULL));
    for (i = 0; i < N; i++) {
        if (i >= N / 2)
            want += 2 * in[i];
        if (i % 2 == 0)
            want_evens += 2 * in[i];
    }
    /* Small integers in float32: every partial sum is exact. */
    if (sum != want || sum_evens != want_evens) {
        fprintf(stderr, "chunks: sums %g %g, want %g %g\n", sum, sum_evens, want,
                want_evens);
        ++*bad;
    }
    KRT_TRY(krt_free(d));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "chunks: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("chunks: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
