/*
 * pipeline.c - host program for pipeline.kern: a two-stream pipeline.
 *
 * A large array lives in pinned host memory (krt_host_alloc).  It is cut
 * into chunks, and chunk c goes to stream c % 2: copy in (asynchronous),
 * kernel, copy out (asynchronous), each stream reusing one device buffer.
 * Stream 0's copies can then run while stream 1's kernel does, and the other
 * way round: on the cuda backend the copy engines work beside the SMs; on
 * the cpu backend each stream has its own thread, so one stream's memcpy
 * runs while the other's kernel occupies the pool.
 *
 * Events time the whole run (recorded on the default stream), each stream
 * (its first and last operation), and every operation of every chunk, so
 * the program can say how long a copy of one stream ran beside a kernel of
 * the other.  The same work is first run on one stream as the serial
 * baseline.  The result is checked element by element against the same
 * rounds computed on the host; the timings are checked for consistency
 * (events of one stream complete in order, a stream's span lies inside the
 * whole run) and printed, but no speed-up is demanded: how much overlap a
 * machine gives depends on its load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kernrt.h>
#include "pipeline.kern.h"

#define N (1 << 22)                  /* elements in all: 16 MiB of uint32 */
#define NCHUNK 16
#define CHUNK (N / NCHUNK)
#define NSTREAM 2
#define TPB 256

/* The marks around one chunk's operations: before the copy in, after it
 * (the kernel starts), after the kernel, after the copy out. */
enum { OP_IN, OP_KERNEL, OP_OUT, NOP };
static const char *const op_name[NOP] = {"copy in", "kernel", "copy out"};

typedef struct timing {
    float total_ms;                  /* default-stream record to record */
    float stream_ms[NSTREAM];        /* each stream's first to last mark */
    float op_ms[NOP];                /* summed over chunks */
    float copy_beside_kernel_ms;     /* a copy of one stream while the
                                        other stream's kernel ran */
    double queue_ms;                 /* host time to queue everything */
} timing;

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The kernel's arithmetic on the host: xorshift32 and the round's number,
 * rounds times. */
static uint32_t xorshift_ref(uint32_t x, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x ^= (uint32_t)r;
    }
    return x;
}

static float overlap(float a0, float a1, float b0, float b1)
{
    float lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

    return hi > lo ? hi - lo : 0.0f;
}

/* Each chunk's marks as times since the start event, checked for order. */
static int read_marks(float at[NCHUNK][NOP + 1], krt_event *start,
                      krt_event *marks[NCHUNK][NOP + 1], int nstreams,
                      int *bad)
{
    for (int c = 0; c < NCHUNK; c++)
        for (int k = 0; k <= NOP; k++) {
            KRT_TRY(krt_event_elapsed_ms(&at[c][k], start, marks[c][k]));
            /* Within a stream, records complete in the order queued. */
            float before = k > 0 ? at[c][k - 1]
                         : c >= nstreams ? at[c - nstreams][NOP] : 0.0f;
            if (at[c][k] < before - 1e-3f) {
                fprintf(stderr, "pipeline: chunk %d mark %d at %.3f ms, "
                        "before the previous mark of its stream (%.3f ms)\n",
                        c, k, at[c][k], before);
                ++*bad;
            }
        }
    return KRT_OK;
}

/* Run the pipeline over nstreams streams: in -> out, both pinned. */
static int pipeline(int nstreams, const uint32_t *in, uint32_t *out,
                    int rounds, timing *t, int *bad)
{
    krt_stream *stream[NSTREAM] = {NULL};
    krt_array chunk[NSTREAM];
    krt_event *start, *end, *first[NSTREAM], *last[NSTREAM];
    krt_event *marks[NCHUNK][NOP + 1];
    float at[NCHUNK][NOP + 1];
    int64_t shape[1] = {CHUNK};
    double t0;

    memset(t, 0, sizeof *t);
    KRT_TRY(krt_event_create(&start));
    KRT_TRY(krt_event_create(&end));
    for (int s = 0; s < nstreams; s++) {
        KRT_TRY(krt_stream_create(&stream[s]));
        KRT_TRY(krt_alloc(&chunk[s], KRT_UINT32, 1, shape));
        KRT_TRY(krt_event_create(&first[s]));
        KRT_TRY(krt_event_create(&last[s]));
    }
    for (int c = 0; c < NCHUNK; c++)
        for (int k = 0; k <= NOP; k++)
            KRT_TRY(krt_event_create(&marks[c][k]));

    /* On the legacy default stream, this record completes before any work
     * queued after it starts: every mark below is later than it. */
    KRT_TRY(krt_event_record(start, NULL));
    t0 = now_ms();
    for (int s = 0; s < nstreams; s++)
        KRT_TRY(krt_event_record(first[s], stream[s]));
    for (int c = 0; c < NCHUNK; c++) {
        int s = c % nstreams;
        krt_launch_cfg cfg = krt_grid1((CHUNK + TPB - 1) / TPB, TPB);

        cfg.stream = stream[s];
        KRT_TRY(krt_event_record(marks[c][OP_IN], stream[s]));
        KRT_TRY(krt_copy_to_device(chunk[s], in + (size_t)c * CHUNK,
                                   stream[s]));
        KRT_TRY(krt_event_record(marks[c][OP_KERNEL], stream[s]));
        KRT_TRY(xorshift_rounds(cfg, chunk[s], rounds));
        KRT_TRY(krt_event_record(marks[c][OP_OUT], stream[s]));
        KRT_TRY(krt_copy_to_host(out + (size_t)c * CHUNK, chunk[s],
                                 stream[s]));
        KRT_TRY(krt_event_record(marks[c][NOP], stream[s]));
    }
    for (int s = 0; s < nstreams; s++)
        KRT_TRY(krt_event_record(last[s], stream[s]));
    /* The host got here long before the device is done: all of the above
     * only queued work. */
    t->queue_ms = now_ms() - t0;
    /* Waits for both streams (legacy default stream semantics). */
    KRT_TRY(krt_event_record(end, NULL));
    KRT_TRY(krt_event_synchronize(end));
    for (int s = 0; s < nstreams; s++)
        KRT_TRY(krt_stream_synchronize(stream[s]));

    KRT_TRY(krt_event_elapsed_ms(&t->total_ms, start, end));
    for (int s = 0; s < nstreams; s++) {
        KRT_TRY(krt_event_elapsed_ms(&t->stream_ms[s], first[s], last[s]));
        if (t->stream_ms[s] < 0 || t->stream_ms[s] > t->total_ms + 1e-3f) {
            fprintf(stderr, "pipeline: stream %d took %.3f ms of a %.3f ms "
                    "run\n", s, t->stream_ms[s], t->total_ms);
            ++*bad;
        }
    }
    KRT_TRY(read_marks(at, start, marks, nstreams, bad));
    for (int c = 0; c < NCHUNK; c++)
        for (int k = 0; k < NOP; k++)
            t->op_ms[k] += at[c][k + 1] - at[c][k];
    /* A copy of one chunk beside the kernel of a chunk of the other stream
     * (chunks of one stream never overlap each other). */
    for (int c = 0; c < NCHUNK; c++)
        for (int d = 0; d < NCHUNK; d++)
            if (c % nstreams != d % nstreams) {
                t->copy_beside_kernel_ms +=
                    overlap(at[c][OP_IN], at[c][OP_IN + 1],
                            at[d][OP_KERNEL], at[d][OP_KERNEL + 1]) +
                    overlap(at[c][OP_OUT], at[c][OP_OUT + 1],
                            at[d][OP_KERNEL], at[d][OP_KERNEL + 1]);
            }

    for (int c = 0; c < NCHUNK; c++)
        for (int k = 0; k <= NOP; k++)
            KRT_TRY(krt_event_destroy(marks[c][k]));
    for (int s = 0; s < nstreams; s++) {
        KRT_TRY(krt_event_destroy(first[s]));
        KRT_TRY(krt_event_destroy(last[s]));
        KRT_TRY(krt_free(chunk[s]));
        KRT_TRY(krt_stream_destroy(stream[s]));
    }
    KRT_TRY(krt_event_destroy(start));
    KRT_TRY(krt_event_destroy(end));
    return KRT_OK;
}

static void check(const char *what, const uint32_t *out, const uint32_t *want,
                  int *bad)
{
    int shown = 0;

    for (int i = 0; i < N; i++)
        if (out[i] != want[i]) {
            if (shown++ < 10)
                fprintf(stderr, "pipeline (%s): out[%d] = %u, want %u\n",
                        what, i, (unsigned)out[i], (unsigned)want[i]);
            ++*bad;
        }
}

static void report(const char *what, const timing *t, int nstreams)
{
    printf("%s: %.2f ms in all, %.1f MB/s through the pipeline "
           "(host queued it in %.2f ms)\n",
           what, t->total_ms, 2.0 * N * sizeof(uint32_t) / 1e3 / t->total_ms,
           t->queue_ms);
    for (int s = 0; s < nstreams; s++)
        printf("  stream %d: %.2f ms\n", s, t->stream_ms[s]);
    /* Each from the mark before it: time spent waiting for the other
     * stream (for the pool, a copy engine, the SMs) counts. */
    printf("  summed over the %d chunks:", NCHUNK);
    for (int k = 0; k < NOP; k++)
        printf(" %s %.2f ms%s", op_name[k], t->op_ms[k],
               k + 1 < NOP ? "," : "\n");
}

static int run(int *bad)
{
    uint32_t *in = NULL, *out = NULL, *want = NULL;
    krt_event *never;
    timing serial, piped;
    float ms;
    int rounds, status;

    /* Enough rounds that a kernel lasts about as long as its copies on
     * either backend (a GPU hashes far faster than it copies). */
    rounds = strcmp(krt_backend_name(), "cuda") == 0 ? 256 : 8;
    KRT_TRY(krt_host_alloc((void **)&in, N * sizeof *in));
    KRT_TRY(krt_host_alloc((void **)&out, N * sizeof *out));
    if ((want = malloc(N * sizeof *want)) == NULL) {
        fprintf(stderr, "pipeline: out of host memory\n");
        return KRT_ENOMEM;
    }
    for (int i = 0; i < N; i++) {
        in[i] = (uint32_t)i * 2654435761u;
        want[i] = xorshift_ref(in[i], rounds);
    }

    memset(out, 0, N * sizeof *out);
    KRT_TRY(pipeline(1, in, out, rounds, &serial, bad));
    check("one stream", out, want, bad);
    memset(out, 0, N * sizeof *out);
    KRT_TRY(pipeline(NSTREAM, in, out, rounds, &piped, bad));
    check("two streams", out, want, bad);

    /* elapsed_ms on an event never recorded is KRT_EINVAL (kernrt.h). */
    KRT_TRY(krt_event_create(&never));
    status = krt_event_elapsed_ms(&ms, never, never);
    if (status != KRT_EINVAL) {
        fprintf(stderr, "pipeline: elapsed time of an unrecorded event: %s, "
                "want KRT_EINVAL\n", krt_status_name(status));
        ++*bad;
    }
    KRT_TRY(krt_event_destroy(never));

    printf("%d elements in %d chunks of %d, %d xorshift rounds each\n", N,
           NCHUNK, CHUNK, rounds);
    report("1 stream ", &serial, 1);
    report("2 streams", &piped, NSTREAM);
    printf("copies of one stream ran beside kernels of the other for "
           "%.2f ms (%.0f%% of the copy time); %.2fx the serial speed\n",
           piped.copy_beside_kernel_ms,
           100.0 * piped.copy_beside_kernel_ms /
               (piped.op_ms[OP_IN] + piped.op_ms[OP_OUT]),
           serial.total_ms / piped.total_ms);

    free(want);
    KRT_TRY(krt_host_free(in));
    KRT_TRY(krt_host_free(out));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "pipeline: %s: %s\n", krt_status_name(status),
                krt_last_error());
        return 1;
    }
    printf("pipeline: %s (%s backend)\n", bad ? "FAILED" : "ok",
           krt_backend_name());
    return bad != 0;
}
