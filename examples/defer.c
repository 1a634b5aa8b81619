/*
 * defer.c - deferred cleanup (numba's cuda.defer_cleanup()) in a loop of
 * launches, with the kernel of double.kern.
 *
 * Each iteration allocates a device array, copies its input in, doubles it
 * and copies it out, all queued on one stream, and frees the array at once.
 * A plain krt_free would first wait for all queued work (as cudaFree does),
 * so the loop would run in lock step with the device.  Inside
 * krt_defer_begin/krt_defer_end a free only queues the memory: the loop
 * never waits, and the memory, which the queued copies still read, is
 * released when the outermost section ends.  Sections nest: one opened and
 * closed in the middle of the loop releases nothing.
 *
 * Checked: every result; that no two arrays of the deferred loop share an
 * address (memory not yet released cannot be handed out again); that
 * closing a section that is not open is KRT_EINVAL.  A second loop without
 * deferral, for comparison, prints how often its allocator reused memory.
 */
#include <stdio.h>
#include <string.h>

#include <kernrt.h>
#include "double.kern.h"

#define N 4096
#define ITER 16
#define TPB 256

static int run(int *bad)
{
    krt_stream *stream;
    krt_array d;
    float *in, *out;
    void *ptrs[ITER];
    int64_t shape[1] = {N};
    krt_launch_cfg cfg = krt_grid1((N + TPB - 1) / TPB, TPB);
    int reused = 0, status;

    /* Pinned, since the copies on the stream run after the calls return. */
    KRT_TRY(krt_host_alloc((void **)&in, sizeof(float) * N * ITER));
    KRT_TRY(krt_host_alloc((void **)&out, sizeof(float) * N * ITER));
    for (int i = 0; i < N * ITER; i++) {
        in[i] = 0.5f * (float)(i % N) + (float)(i / N);
        out[i] = -1.0f;
    }
    KRT_TRY(krt_stream_create(&stream));
    cfg.stream = stream;

    KRT_TRY(krt_defer_begin());
    for (int it = 0; it < ITER; it++) {
        KRT_TRY(krt_to_device(&d, in + (size_t)it * N, KRT_FLOAT32, 1,
                              shape, stream));
        KRT_TRY(double_it(cfg, d));
        KRT_TRY(krt_copy_to_host(out + (size_t)it * N, d, stream));
        ptrs[it] = krt_device_ptr(d);
        /* Queued, not released: the copy above may not have run yet. */
        KRT_TRY(krt_free(d));
        if (it == ITER / 2) {
            /* A nested section: its end is not the outermost one. */
            KRT_TRY(krt_defer_begin());
            KRT_TRY(krt_defer_end());
        }
    }
    /* Releases the ITER arrays, after the work that uses them. */
    KRT_TRY(krt_defer_end());
    KRT_TRY(krt_stream_synchronize(stream));

    for (int i = 0; i < N * ITER; i++)
        if (out[i] != 2 * in[i]) {
            if (*bad < 10)
                fprintf(stderr, "defer: iteration %d: out[%d] = %g, want "
                        "%g\n", i / N, i % N, out[i], 2 * in[i]);
            ++*bad;
        }
    for (int i = 0; i < ITER; i++)
        for (int j = 0; j < i; j++)
            if (ptrs[i] == ptrs[j]) {
                fprintf(stderr, "defer: iterations %d and %d got the same "
                        "device memory %p, though the first was not yet "
                        "released\n", j, i, ptrs[i]);
                ++*bad;
            }

    status = krt_defer_end();
    if (status != KRT_EINVAL) {
        fprintf(stderr, "defer: krt_defer_end with no section open: %s, "
                "want KRT_EINVAL\n", krt_status_name(status));
        ++*bad;
    }

    /* The same loop without deferral: each free waits for the stream, and
     * the allocator may hand the same memory out again. */
    for (int it = 0; it < ITER; it++) {
        KRT_TRY(krt_to_device(&d, in + (size_t)it * N, KRT_FLOAT32, 1,
                              shape, stream));
        KRT_TRY(double_it(cfg, d));
        KRT_TRY(krt_copy_to_host(out + (size_t)it * N, d, stream));
        ptrs[it] = krt_device_ptr(d);
        KRT_TRY(krt_free(d));
        reused += it > 0 && ptrs[it] == ptrs[it - 1];
    }
    KRT_TRY(krt_stream_synchronize(stream));
    for (int i = 0; i < N * ITER; i++)
        if (out[i] != 2 * in[i]) {
            if (*bad < 10)
                fprintf(stderr, "defer: without deferral: iteration %d: "
                        "out[%d] = %g, want %g\n",
                        i / N, i % N, out[i], 2 * in[i]);
            ++*bad;
        }
    printf("defer: %d arrays held back until the section ended; without "
           "it, %d of %d allocations reused the array just freed\n",
           ITER, reused, ITER - 1);

    KRT_TRY(krt_stream_destroy(stream));
    KRT_TRY(krt_host_free(in));
    KRT_TRY(krt_host_free(out));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "defer: %s: %s\n", krt_status_name(status),
                krt_last_error());
        return 1;
    }
    printf("defer: %s (%s backend)\n", bad ? "FAILED" : "ok",
           krt_backend_name());
    return bad != 0;
}
