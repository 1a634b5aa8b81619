/*
 * range_step.c - end-to-end test of range_step.kern: a range() whose step
 * is 0 only at run time ends the thread that reaches it, as numba's CUDA
 * target does without debug (ValueError("range() arg 3 must not be zero")
 * makes the kernel return): nothing after the loop runs for that thread,
 * the other threads give Python's results, in a plain kernel, in kernels
 * split at barriers (per-thread loop, block-level loop, inlined device
 * function).  With debug=True the launch fails with KRT_EKERNEL and the
 * message naming the .kern line.  In a device function that is a plain C
 * function, the CPU backend fails the launch (it cannot end the caller's
 * thread); CUDA ends the thread.
 */
#include "e2e.h"
#include "range_step.kern.h"

enum { N = 8, UNTOUCHED = 7777 };

/* len(range(a, b, s)), s != 0 */
static int64_t py_range_len(int64_t a, int64_t b, int64_t s)
{
    if (s > 0)
        return a < b ? (b - a + s - 1) / s : 0;
    return a > b ? (a - b - s - 1) / -s : 0;
}

static int on_cuda(void)
{
    return strcmp(krt_backend_name(), "cuda") == 0;
}

/* out = UNTOUCHED everywhere, and steps on the device. */
static void setup(krt_array *dout, krt_array *dsteps, const int64_t *steps)
{
    int64_t out[N];
    for (int i = 0; i < N; i++)
        out[i] = UNTOUCHED;
    E2E_CHECK(krt_to_device(dout, out, KRT_INT64, 1, (int64_t[]){N}, NULL));
    if (dsteps)
        E2E_CHECK(krt_to_device(dsteps, steps, KRT_INT64, 1, (int64_t[]){N}, NULL));
}

/* Launch status (synchronised), out copied back. */
static int finish(int st, krt_array dout, int64_t *out)
{
    if (st == KRT_OK)
        st = krt_synchronize();
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    return st;
}

static const int64_t steps[N] = {1, 0, 3, -1, 0, 20, 2, 4};

static void test_count(void)
{
    krt_array dout, dsteps;
    int64_t out[N];
    setup(&dout, &dsteps, steps);
    int st = finish(count(krt_grid1(2, 4), dout, dsteps), dout, out);
    int good = st == KRT_OK;
    for (int i = 0; i < N; i++)
        good &= out[i] == (steps[i] == 0 ? -2 : py_range_len(0, 10, steps[i]));
    ok(good, "plain kernel: zero-step threads end after the write before the loop (%s)",
       krt_status_name(st));
    krt_free(dout);
    krt_free(dsteps);
}

static void test_unsigned(uint32_t step)
{
    krt_array dout;
    int64_t out[N];
    setup(&dout, NULL, NULL);
    int st = finish(count_unsigned(krt_grid1(2, 4), dout, step), dout, out);
    int good = st == KRT_OK;
    for (int i = 0; i < N; i++)
        good &= out[i] == (step == 0 ? UNTOUCHED : py_range_len(3, 20, step));
    ok(good, "uint32 step %u: %s", step, step == 0 ? "every thread ends" : "counted");
    krt_free(dout);
}

static void test_sync(void)
{
    krt_array dout, dsteps;
    int64_t out[N], n[N];
    setup(&dout, &dsteps, steps);
    int st = finish(count_sync(krt_grid1(1, N), dout, dsteps), dout, out);
    int good = st == KRT_OK;
    for (int t = 0; t < N; t++)
        n[t] = steps[t] == 0 ? -1 : py_range_len(0, 10, steps[t]);   /* s[t] */
    for (int t = 0; t < N; t++)
        good &= out[t] == (steps[t] == 0 ? UNTOUCHED : n[t] * 100 + n[(t + 1) % N]);
    ok(good, "kernel with barriers: zero-step threads end, the others see their shared "
             "writes (%s)", krt_status_name(st));
    krt_free(dout);
    krt_free(dsteps);
}

static void test_block(int64_t step)
{
    krt_array dout;
    int64_t out[N];
    setup(&dout, NULL, NULL);
    int st = finish(count_block(krt_grid1(1, N), dout, step), dout, out);
    int64_t want = 0, s = 0;
    if (step != 0)
        for (int64_t k = 0; step > 0 ? k < 8 : k > 8; k += step) {
            s += k;
            want += s;
        }
    int good = st == KRT_OK;
    for (int t = 0; t < N; t++)
        good &= out[t] == (step == 0 ? UNTOUCHED : want);
    ok(good, "loop holding a barrier, step %lld: %s", (long long)step,
       step == 0 ? "every thread ends" : "counted");
    krt_free(dout);
}

static void test_inlined(void)
{
    krt_array dout, dsteps;
    int64_t out[N];
    setup(&dout, &dsteps, steps);
    int st = finish(count_inlined(krt_grid1(1, N), dout, dsteps), dout, out);
    int good = st == KRT_OK;
    for (int t = 0; t < N; t++)
        good &= out[t] == (steps[t] == 0 ? UNTOUCHED : py_range_len(0, 6, steps[t]));
    ok(good, "device function with a barrier: the thread ends in the kernel (%s)",
       krt_status_name(st));
    krt_free(dout);
    krt_free(dsteps);
}

static void test_device(void)
{
    static const int64_t nonzero[N] = {1, 2, 3, -1, 5, 6, 7, 8};
    krt_array dout, dsteps;
    int64_t out[N];
    setup(&dout, &dsteps, nonzero);
    int st = finish(count_device(krt_grid1(2, 4), dout, dsteps), dout, out);
    int good = st == KRT_OK;
    for (int i = 0; i < N; i++)
        good &= out[i] == py_range_len(0, 10, nonzero[i]);
    ok(good, "device function, nonzero steps (%s)", krt_status_name(st));
    krt_free(dout);
    krt_free(dsteps);

    setup(&dout, &dsteps, steps);
    st = finish(count_device(krt_grid1(2, 4), dout, dsteps), dout, out);
    if (on_cuda()) {
        good = st == KRT_OK;
        for (int i = 0; i < N; i++)
            good &= out[i] == (steps[i] == 0 ? UNTOUCHED : py_range_len(0, 10, steps[i]));
        ok(good, "device function, zero step: the CUDA thread ends (%s)", krt_status_name(st));
    } else {
        ok(st == KRT_EKERNEL &&
               strstr(krt_last_error(), "range_step.kern:81: range() arg 3 must not be zero "
                                        "(in a device function") != NULL,
           "device function, zero step: the CPU launch fails: %s", krt_last_error());
    }
    krt_free(dout);
    krt_free(dsteps);
}

static void test_debug(int with_zero)
{
    static const int64_t nonzero[N] = {1, 2, 3, -1, 5, 6, 7, 8};
    const int64_t *st_in = with_zero ? steps : nonzero;
    krt_array dout, dsteps;
    int64_t out[N];
    setup(&dout, &dsteps, st_in);
    int st = finish(count_debug(krt_grid1(2, 4), dout, dsteps), dout, out);
    if (!with_zero) {
        int good = st == KRT_OK;
        for (int i = 0; i < N; i++)
            good &= out[i] == py_range_len(0, 10, nonzero[i]);
        ok(good, "debug=True, nonzero steps (%s)", krt_status_name(st));
    } else if (on_cuda()) {
        ok(st != KRT_OK, "debug=True, zero step: the CUDA kernel traps (%s)",
           krt_status_name(st));
    } else {
        ok(st == KRT_EKERNEL &&
               strstr(krt_last_error(), "range_step.kern:98: range() arg 3 must not be zero") != NULL,
           "debug=True, zero step fails the launch: %s", krt_last_error());
    }
    krt_free(dout);
    krt_free(dsteps);
}

int main(void)
{
    plan(11);
    test_count();
    test_unsigned(0);
    test_unsigned(4);
    test_sync();
    test_block(0);
    test_block(2);
    test_inlined();
    test_device();
    test_debug(0);
    test_debug(1);
    return 0;
}
