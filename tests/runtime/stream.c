/*
 * stream.c - streams and events on the CPU backend: work queued on a
 * stream runs in order and asynchronously to the host (the launch returns
 * before a long kernel ends, queries say "not ready"), launch arguments are
 * copied when queued, an event recorded on one stream orders another, the
 * default stream waits for every stream, elapsed times grow with the work
 * between records, an error raised by queued work comes back once from the
 * next synchronisation, and destroyed or unknown handles are refused.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernrt.h"
#include "tap/basic.h"

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static float elem(const krt_view *v, int64_t i)
{
    return *(float *)(v->data + i * v->strides[0]);
}

/* sleep_then_fill(out, ms, value): block 0 sleeps, then every thread of
 * every block writes value to its element. */
static void sleep_fill_cpu(const krt_cpu_block *b, void **args)
{
    const krt_view *out = args[0];
    int ms = *(int *)args[1];
    float value = *(float *)args[2];
    unsigned t;

    if (b->block_idx.x == 0 && ms > 0)
        usleep((useconds_t)ms * 1000);
    for (t = 0; t < b->block_dim.x; t++) {
        int64_t i = (int64_t)b->block_idx.x * b->block_dim.x + t;
        if (i < out->shape[0])
            *(float *)(out->data + i * out->strides[0]) = value;
    }
}

static const krt_param sleep_fill_params[] = {
    {"out", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"ms", KRT_PARAM_SCALAR, KRT_INT32, 0, 0},
    {"value", KRT_PARAM_SCALAR, KRT_FLOAT32, 0, 0}};
static const krt_kernel sleep_fill_k = {"sleep_fill", "stream.kern", 3,
                                        sleep_fill_params, sleep_fill_cpu,
                                        NULL, 0, 0, 0, NULL};

/* add_one(dst, src): dst[i] = src[i] + 1 */
static void add_one_cpu(const krt_cpu_block *b, void **args)
{
    const krt_view *dst = args[0], *src = args[1];
    unsigned t;

    for (t = 0; t < b->block_dim.x; t++) {
        int64_t i = (int64_t)b->block_idx.x * b->block_dim.x + t;
        if (i < dst->shape[0])
            *(float *)(dst->data + i * dst->strides[0]) = elem(src, i) + 1;
    }
}

static const krt_param add_one_params[] = {
    {"dst", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"src", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1}};
static const krt_kernel add_one_k = {"add_one", "stream.kern", 2,
                                     add_one_params, add_one_cpu, NULL, 0, 0, 0, NULL};

static void fail_cpu(const krt_cpu_block *b, void **args)
{
    (void)args;
    if (b->block_idx.x == 1)
        krt_cpu_fail(b, KRT_EKERNEL, "assertion failed (stream.kern:3)");
}

static const krt_kernel fail_k = {"fail", "stream.kern", 0, NULL, fail_cpu,
                                  NULL, 0, 0, 0, NULL};

static int all_equal(const float *a, int n, float v)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] != v)
            return 0;
    return 1;
}

int main(void)
{
    enum { N = 1000 };
    static float host[N], back[N];
    krt_stream *s1, *s2, *dead;
    krt_event *e0, *e1, *e2, *never, *gone;
    krt_array x, y;
    krt_view vx, vy;
    void *fill_args[3], *add_args[2];
    int64_t n = N;
    int ms, i;
    float value, t01 = 0, t02 = 0, t00 = -1;
    double t;

    krt_set_backend("cpu");
    plan(59);
    for (i = 0; i < N; i++)
        host[i] = (float)i;

    is_status(KRT_OK, krt_stream_create(&s1), "krt_stream_create");
    is_status(KRT_OK, krt_stream_create(&s2), "second stream");
    is_status(KRT_OK, krt_stream_query(s1), "a new stream is idle");
    is_status(KRT_OK, krt_alloc(&x, KRT_FLOAT32, 1, &n), "alloc x");
    is_status(KRT_OK, krt_alloc(&y, KRT_FLOAT32, 1, &n), "alloc y");
    krt_check_array(&sleep_fill_k, 0, &x, &vx);
    krt_check_array(&add_one_k, 0, &y, &vy);

    /* Asynchrony: the host gets control back while the kernel sleeps. */
    fill_args[0] = &vx;
    fill_args[1] = &ms;
    fill_args[2] = &value;
    ms = 300;
    value = 7.0f;
    krt_launch_cfg cfg = krt_grid1((N + 127) / 128, 128);
    cfg.stream = s1;
    t = now_ms();
    is_status(KRT_OK, krt_launch(&sleep_fill_k, cfg, fill_args),
              "launch a 300 ms kernel on a stream");
    ok(now_ms() - t < 150, "the launch returned before the kernel ended "
                           "(%.1f ms)", now_ms() - t);
    /* Arguments are copied when queued: changing them now has no effect. */
    value = -1.0f;
    ms = 0;
    is_status(KRT_ENOTREADY, krt_stream_query(s1), "query: not ready");
    is_status(KRT_OK, krt_event_create(&e0), "krt_event_create");
    is_status(KRT_OK, krt_event_record(e0, s1), "record after the kernel");
    is_status(KRT_ENOTREADY, krt_event_query(e0), "event query: not ready");
    is_status(KRT_OK, krt_copy_to_host(back, x, s1), "queue a copy back");
    is_status(KRT_OK, krt_stream_synchronize(s1), "krt_stream_synchronize");
    ok(now_ms() - t >= 290, "synchronize waited for the kernel (%.1f ms)",
       now_ms() - t);
    ok(all_equal(back, N, 7.0f), "the copy ran after the kernel, with the "
                                 "arguments of the launch");
    is_status(KRT_OK, krt_stream_query(s1), "query: idle");
    is_status(KRT_OK, krt_event_query(e0), "event query: done");

    /* In order within a stream: copy in, kernel, copy out. */
    add_args[0] = &vy;
    add_args[1] = &vx;
    memset(back, 0, sizeof back);
    is_status(KRT_OK, krt_copy_to_device(x, host, s1), "queue copy in");
    cfg = krt_grid1((N + 255) / 256, 256);
    cfg.stream = s1;
    is_status(KRT_OK, krt_launch(&add_one_k, cfg, add_args),
              "queue y = x + 1");
    is_status(KRT_OK, krt_copy_to_host(back, y, s1), "queue copy out");
    is_status(KRT_OK, krt_stream_synchronize(s1), "synchronize");
    for (i = 0; i < N && back[i] == host[i] + 1; i++)
        ;
    ok(i == N, "copy, launch and copy ran in order");

    /* An event orders two streams: s2 computes y = x + 1 only after s1's
     * slow fill of x. */
    ms = 200;
    value = 41.0f;
    cfg = krt_grid1((N + 127) / 128, 128);
    cfg.stream = s1;
    is_status(KRT_OK, krt_launch(&sleep_fill_k, cfg, fill_args),
              "s1: slow fill of x");
    is_status(KRT_OK, krt_event_record(e0, s1), "s1: record e0");
    is_status(KRT_OK, krt_stream_wait_event(s2, e0), "s2 waits for e0");
    cfg.stream = s2;
    is_status(KRT_OK, krt_launch(&add_one_k, cfg, add_args),
              "s2: y = x + 1");
    is_status(KRT_OK, krt_copy_to_host(back, y, s2), "s2: copy y");
    is_status(KRT_ENOTREADY, krt_stream_query(s2), "s2 is blocked on e0");
    is_status(KRT_OK, krt_stream_synchronize(s2), "synchronize s2");
    ok(all_equal(back, N, 42.0f), "s2 saw s1's fill (y = 42)");

    /* The default stream waits for every stream. */
    ms = 150;
    value = 5.0f;
    cfg.stream = s1;
    is_status(KRT_OK, krt_launch(&sleep_fill_k, cfg, fill_args),
              "s1: slow fill of x with 5");
    is_status(KRT_OK, krt_copy_to_host(back, x, NULL),
              "copy x on the default stream");
    ok(all_equal(back, N, 5.0f), "the default stream waited for s1");

    /* Elapsed time grows with the work between records. */
    is_status(KRT_OK, krt_event_create(&e1), "event e1");
    is_status(KRT_OK, krt_event_create(&e2), "event e2");
    is_status(KRT_OK, krt_event_create(&never), "event never recorded");
    ms = 30;
    krt_event_record(e0, s1);
    krt_launch(&sleep_fill_k, cfg, fill_args);
    krt_event_record(e1, s1);
    krt_launch(&sleep_fill_k, cfg, fill_args);
    is_status(KRT_OK, krt_event_record(e2, s1), "records around two 30 ms "
                                                "kernels");
    is_status(KRT_OK, krt_event_synchronize(e2), "krt_event_synchronize");
    krt_event_elapsed_ms(&t00, e0, e0);
    krt_event_elapsed_ms(&t01, e0, e1);
    is_status(KRT_OK, krt_event_elapsed_ms(&t02, e0, e2),
              "krt_event_elapsed_ms");
    ok(t00 == 0 && t01 >= 25 && t02 >= t01 + 25,
       "elapsed times are monotone: %.2f, %.2f, %.2f ms", t00, t01, t02);
    is_status(KRT_EINVAL, krt_event_elapsed_ms(&t01, e0, never),
              "elapsed to a never-recorded event");
    ms = 100;
    krt_launch(&sleep_fill_k, cfg, fill_args);
    krt_event_record(e1, s1);
    is_status(KRT_ENOTREADY, krt_event_elapsed_ms(&t01, e0, e1),
              "elapsed to a pending record");
    /* Destroying an event whose record is pending is allowed. */
    is_status(KRT_OK, krt_event_destroy(e1), "destroy a pending event");
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize waits for all");
    is_status(KRT_OK, krt_stream_query(s1), "s1 idle after krt_synchronize");

    /* Errors from queued work come back once. */
    cfg = krt_grid1(4, 32);
    cfg.stream = s2;
    is_status(KRT_OK, krt_launch(&fail_k, cfg, NULL),
              "a failing kernel is queued without error");
    is_status(KRT_EKERNEL, krt_stream_synchronize(s2),
              "the next synchronize returns its error");
    ok(strstr(krt_last_error(), "kernel 'fail'") != NULL &&
           strstr(krt_last_error(), "block (1, 0, 0)") != NULL &&
           strstr(krt_last_error(), "stream.kern:3") != NULL,
       "with the kernel, the block and the message: %s", krt_last_error());
    is_status(KRT_OK, krt_stream_synchronize(s2), "only once");
    krt_launch(&fail_k, cfg, NULL);
    is_status(KRT_EKERNEL, krt_synchronize(), "krt_synchronize reports it");

    /* Destroyed and unknown handles. */
    is_status(KRT_OK, krt_stream_create(&dead), "stream to destroy");
    is_status(KRT_OK, krt_stream_destroy(dead), "krt_stream_destroy");
    is_status(KRT_EINVAL, krt_stream_synchronize(dead),
              "synchronize a destroyed stream");
    ok(strstr(krt_last_error(), "destroyed or never created") != NULL,
       "message: %s", krt_last_error());
    cfg.stream = dead;
    is_status(KRT_EINVAL, krt_launch(&fail_k, cfg, NULL),
              "launch on a destroyed stream");
    is_status(KRT_EINVAL, krt_copy_to_host(back, x, dead),
              "copy on a destroyed stream");
    is_status(KRT_EINVAL, krt_stream_destroy(dead), "destroy it twice");
    gone = (krt_event *)&x;
    is_status(KRT_EINVAL, krt_event_record(gone, s1), "an unknown event");
    is_status(KRT_EINVAL, krt_stream_wait_event(s1, NULL), "a NULL event");

    krt_free(x);
    krt_free(y);
    krt_event_destroy(e0);
    krt_event_destroy(e2);
    krt_event_destroy(never);
    krt_stream_destroy(s1);
    krt_stream_destroy(s2);
    return 0;
}
