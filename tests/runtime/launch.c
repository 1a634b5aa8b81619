/*
 * launch.c - krt_launch on the CPU backend, with kernel descriptors and CPU
 * functions written by hand in the shape kernc emits (one call per block,
 * looping over the block's threads).
 *
 * Checks: every launch-limit error (before anything runs), KRT_ENOCODE, that
 * every block of a 3-D grid runs exactly once and on several pool threads,
 * that shared memory is private to a block, that frame memory spans
 * frame_bytes per thread and is aligned, that kernel errors propagate (first
 * failing block, krt_cpu_fail's message), a saxpy through krt_check_array,
 * and the per-launch overhead (reported with diag, not asserted).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernrt.h"
#include "tap/basic.h"

#define THREADS 4                    /* KRT_CPU_THREADS for this test */

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

static int contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- count: each block increments its slot and records its thread ---- */

#define GX 7
#define GY 5
#define GZ 3
#define NBLOCKS (GX * GY * GZ)

static _Atomic int block_runs[NBLOCKS];
static pthread_t block_thread[NBLOCKS];
static _Atomic int kernel_calls;

static void count_cpu(const krt_cpu_block *b, void **args)
{
    unsigned id = b->block_idx.x + b->grid_dim.x *
                  (b->block_idx.y + b->grid_dim.y * b->block_idx.z);
    int sleep_us = *(int *)args[0];

    atomic_fetch_add(&kernel_calls, 1);
    if (id < NBLOCKS) {
        atomic_fetch_add(&block_runs[id], 1);
        block_thread[id] = pthread_self();
    }
    if (sleep_us > 0)
        usleep((useconds_t)sleep_us);
}

static const krt_param count_params[] = {
    {"sleep_us", KRT_PARAM_SCALAR, KRT_INT32, 0, 0}};
static const krt_kernel count_k = {"count", "test.kern", 1, count_params,
                                   count_cpu, NULL, 0, 0, 0, NULL};

/* ---- shared: each block fills its shared memory with its id, waits, and
 * checks nobody else wrote there ---- */

#define SHARED_STATIC 1000
static _Atomic int shared_bad, shared_misaligned;

static void shared_cpu(const krt_cpu_block *b, void **args)
{
    unsigned t, nthreads = b->block_dim.x;
    unsigned char id = (unsigned char)(b->block_idx.x + 1);
    size_t i;

    (void)args;
    if ((uintptr_t)b->shared % 64 || (uintptr_t)b->dyn_shared % 64)
        atomic_fetch_add(&shared_misaligned, 1);
    /* Each "thread" fills its slice of static and dynamic shared memory. */
    for (t = 0; t < nthreads; t++) {
        for (i = t; i < SHARED_STATIC; i += nthreads)
            b->shared[i] = (char)id;
        for (i = t; i < b->dyn_shared_bytes; i += nthreads)
            b->dyn_shared[i] = (char)~id;
    }
    usleep(200);                 /* let other blocks run meanwhile */
    for (i = 0; i < SHARED_STATIC; i++)
        if ((unsigned char)b->shared[i] != id)
            atomic_fetch_add(&shared_bad, 1);
    for (i = 0; i < b->dyn_shared_bytes; i++)
        if ((unsigned char)b->dyn_shared[i] != (unsigned char)~id)
            atomic_fetch_add(&shared_bad, 1);
}

static const krt_kernel shared_k = {"shared", "test.kern", 0, NULL,
                                    shared_cpu, NULL, SHARED_STATIC, 0, 0, NULL};

/* ---- frame: each thread owns frame_bytes at frame + t * frame_bytes ---- */

#define FRAME_BYTES 40
static _Atomic int frame_bad, frame_misaligned;

static void frame_cpu(const krt_cpu_block *b, void **args)
{
    unsigned t, n = b->block_dim.x * b->block_dim.y * b->block_dim.z;
    size_t i;

    (void)args;
    if ((uintptr_t)b->frame % 64)
        atomic_fetch_add(&frame_misaligned, 1);
    for (t = 0; t < n; t++)
        memset(b->frame + (size_t)t * FRAME_BYTES, (int)(t & 0xff),
               FRAME_BYTES);
    for (t = 0; t < n; t++)
        for (i = 0; i < FRAME_BYTES; i++)
            if ((unsigned char)b->frame[t * FRAME_BYTES + i] != (t & 0xff))
                atomic_fetch_add(&frame_bad, 1);
}

static const krt_kernel frame_k = {"frame", "test.kern", 0, NULL, frame_cpu,
                                   NULL, 0, FRAME_BYTES, 0, NULL};

/* ---- fail: block `which` reports an error ---- */

static void fail_cpu(const krt_cpu_block *b, void **args)
{
    unsigned which = *(unsigned *)args[0];
    int how = *(int *)args[1];

    if (b->block_idx.x != which)
        return;
    if (how == 0)
        *b->error = KRT_EKERNEL;
    else if (how == 1)
        krt_cpu_fail(b, KRT_EINVAL, "index 10 is out of bounds for axis 0 "
                                    "with size 10 (test.kern:7)");
    else
        *b->error = 12345;           /* not a status: becomes KRT_EKERNEL */
}

static const krt_param fail_params[] = {
    {"which", KRT_PARAM_SCALAR, KRT_UINT32, 0, 0},
    {"how", KRT_PARAM_SCALAR, KRT_INT32, 0, 0}};
static const krt_kernel fail_k = {"fail", "test.kern", 2, fail_params,
                                  fail_cpu, NULL, 0, 0, 0, NULL};

/* ---- saxpy through the ABI: views and scalars by pointer ---- */

static void saxpy_cpu(const krt_cpu_block *b, void **args)
{
    const krt_view *x = args[0], *y = args[1];
    float a = *(const float *)args[2];
    unsigned t;

    for (t = 0; t < b->block_dim.x; t++) {
        int64_t i = (int64_t)b->block_idx.x * b->block_dim.x + t;
        if (i < y->shape[0]) {
            float xi = *(float *)(x->data + i * x->strides[0]);
            float *yi = (float *)(y->data + i * y->strides[0]);
            *yi = a * xi + *yi;
        }
    }
}

static const krt_param saxpy_params[] = {
    {"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"y", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"a", KRT_PARAM_SCALAR, KRT_FLOAT32, 0, 0}};
static const krt_kernel saxpy_k = {"saxpy", "test.kern", 3, saxpy_params,
                                   saxpy_cpu, NULL, 0, 0, 0, NULL};

static void empty_cpu(const krt_cpu_block *b, void **args)
{
    (void)b;
    (void)args;
}

static const krt_kernel empty_k = {"empty", "test.kern", 0, NULL, empty_cpu,
                                   NULL, 0, 0, 0, NULL};
static const krt_kernel nocpu_k = {"gpuonly", "test.kern", 0, NULL, NULL,
                                   NULL, 0, 0, 0, NULL};

int main(void)
{
    int zero_sleep = 0, sleep_us = 300, how, i, all_once, distinct;
    unsigned which;
    void *count_args[] = {&zero_sleep};
    krt_kernel big;

    /* Set before the pool exists, so the test sees several workers even on
     * a one-core machine. */
    setenv("KRT_CPU_THREADS", "4", 1);
    plan(55);
    is_status(KRT_OK, krt_set_backend("cpu"), "krt_set_backend(\"cpu\")");
    is_string("cpu", krt_backend_name(), "backend is cpu");
    is_status(KRT_OK, krt_set_backend("cpu"), "choosing cpu again is fine");
    is_status(KRT_OK, krt_set_backend("auto"), "auto after a choice is fine");
    is_status(KRT_EINVAL, krt_set_backend("cuda"),
              "cannot switch to cuda once cpu is in use");
    ok(contains(krt_last_error(), "already in use"), "message: %s",
       krt_last_error());
    is_status(KRT_EINVAL, krt_set_backend("gpu"), "unknown backend name");
    is_status(KRT_EINVAL, krt_set_backend(NULL), "NULL backend name");

    /* Limits: checked before anything runs. */
#define BAD(status, cfg, what)                                               \
    is_status(status, krt_launch(&count_k, cfg, count_args), what)
    BAD(KRT_ELAUNCH, krt_grid1(0, 32), "grid.x 0");
    ok(contains(krt_last_error(), "kernel 'count'") &&
           contains(krt_last_error(), "grid (0, 1, 1)"),
       "message: %s", krt_last_error());
    BAD(KRT_ELAUNCH, krt_grid3(1, 0, 1, 32, 1, 1), "grid.y 0");
    BAD(KRT_ELAUNCH, krt_grid3(1, 1, 0, 32, 1, 1), "grid.z 0");
    BAD(KRT_ELAUNCH, krt_grid1(4, 0), "block.x 0");
    BAD(KRT_ELAUNCH, krt_grid3(1, 1, 1, 32, 1, 0), "block.z 0");
    BAD(KRT_ELAUNCH, krt_grid2(1, 65536, 32, 1), "grid.y 65536");
    BAD(KRT_ELAUNCH, krt_grid3(1, 1, 65536, 32, 1, 1), "grid.z 65536");
    BAD(KRT_ELAUNCH, krt_grid1(0x80000000u, 32), "grid.x 2^31");
    BAD(KRT_EBLOCKSIZE, krt_grid1(1, 1025), "block 1025");
    ok(contains(krt_last_error(), "1025 threads"), "message: %s",
       krt_last_error());
    BAD(KRT_EBLOCKSIZE, krt_grid3(1, 1, 1, 1, 1, 65), "block.z 65");
    BAD(KRT_EBLOCKSIZE, krt_grid2(1, 1, 1, 1025), "block.y 1025");
    BAD(KRT_EBLOCKSIZE, krt_grid3(1, 1, 1, 32, 32, 2), "32x32x2 threads");
    BAD(KRT_ESHARED, krt_with_shared(krt_grid1(1, 32), 48 * 1024 + 1),
        "dynamic shared 48 KiB + 1");
    BAD(KRT_ESHARED, krt_with_shared(krt_grid1(1, 32), SIZE_MAX),
        "dynamic shared SIZE_MAX");
    big = shared_k;
    big.shared_bytes = 40000;
    is_status(KRT_ESHARED,
              krt_launch(&big, krt_with_shared(krt_grid1(1, 32), 10000), NULL),
              "static 40000 + dynamic 10000 shared");
    ok(contains(krt_last_error(), "40000 bytes of static and 10000 bytes of "
                                  "dynamic"),
       "message: %s", krt_last_error());
    big.shared_bytes = 48 * 1024;
    is_status(KRT_OK, krt_launch(&big, krt_grid1(2, 8), NULL),
              "exactly 48 KiB of static shared is allowed");
    is_status(KRT_ENOCODE, krt_launch(&nocpu_k, krt_grid1(1, 32), NULL),
              "no CPU code");
    ok(contains(krt_last_error(), "kernel 'gpuonly'") &&
           contains(krt_last_error(), "cpu backend"),
       "message: %s", krt_last_error());
    is_status(KRT_EINVAL, krt_launch(NULL, krt_grid1(1, 32), NULL),
              "NULL kernel");
    is_status(KRT_EINVAL, krt_launch(&count_k, krt_grid1(1, 32), NULL),
              "NULL args for a kernel with parameters");
    {
        krt_launch_cfg cfg = krt_grid1(1, 32);
        cfg.stream = (krt_stream *)&cfg;
        BAD(KRT_EINVAL, cfg, "an unknown stream is refused");
    }
    is_int(0, atomic_load(&kernel_calls), "no failed launch ran the kernel");

    /* Every block exactly once, on several threads. */
    count_args[0] = &sleep_us;
    is_status(KRT_OK, krt_launch(&count_k, krt_grid3(GX, GY, GZ, 32, 2, 1),
                                 count_args),
              "launch a 7x5x3 grid");
    all_once = 1;
    for (i = 0; i < NBLOCKS; i++)
        if (atomic_load(&block_runs[i]) != 1)
            all_once = 0;
    ok(all_once, "every block ran exactly once");
    is_int(NBLOCKS, atomic_load(&kernel_calls), "and no other call happened");
    distinct = 0;
    for (i = 0; i < NBLOCKS; i++) {
        int j, seen = 0;
        for (j = 0; j < i && !seen; j++)
            seen = pthread_equal(block_thread[i], block_thread[j]);
        distinct += !seen;
    }
    diag("%d blocks ran on %d threads", NBLOCKS, distinct);
    ok(distinct >= 2 && distinct <= THREADS,
       "blocks ran on several pool threads (%d)", distinct);

    /* Shared memory is per block. */
    is_status(KRT_OK, krt_launch(&shared_k,
                                 krt_with_shared(krt_grid1(16, 64), 3000),
                                 NULL),
              "launch 16 blocks with static and dynamic shared memory");
    is_int(0, atomic_load(&shared_bad), "no block saw another's shared memory");
    is_int(0, atomic_load(&shared_misaligned), "shared memory 64-byte aligned");

    /* Frames: block of 3-D shape, then a larger block that must grow them. */
    is_status(KRT_OK, krt_launch(&frame_k, krt_grid3(8, 1, 1, 4, 4, 2), NULL),
              "launch with frames of 32 threads");
    is_status(KRT_OK, krt_launch(&frame_k, krt_grid1(8, 1024), NULL),
              "launch with frames of 1024 threads");
    is_int(0, atomic_load(&frame_bad), "every thread's frame kept its bytes");
    is_int(0, atomic_load(&frame_misaligned), "frames 64-byte aligned");

    /* Kernel errors. */
    {
        void *fail_args[] = {&which, &how};
        which = 3;
        how = 0;
        is_status(KRT_EKERNEL, krt_launch(&fail_k, krt_grid1(10, 32),
                                          fail_args),
                  "*error set by block 3 propagates");
        is_string("krt_launch: kernel 'fail': block (3, 0, 0): error raised "
                  "inside a kernel",
                  krt_last_error(), "kernel error message");
        how = 1;
        which = 9;
        is_status(KRT_EINVAL, krt_launch(&fail_k, krt_grid1(10, 32),
                                         fail_args),
                  "krt_cpu_fail status propagates");
        is_string("krt_launch: kernel 'fail': block (9, 0, 0): index 10 is "
                  "out of bounds for axis 0 with size 10 (test.kern:7)",
                  krt_last_error(), "krt_cpu_fail message");
        how = 2;
        which = 0;
        is_status(KRT_EKERNEL, krt_launch(&fail_k, krt_grid1(1, 32),
                                          fail_args),
                  "a non-status error becomes KRT_EKERNEL");
        which = 99;
        is_status(KRT_OK, krt_launch(&fail_k, krt_grid1(10, 32), fail_args),
                  "the pool is fine after failures");
    }

    /* saxpy through krt_check_array and views. */
    {
        enum { N = 1000 };
        float x[N], y[N], out[N], a = 2.5f;
        krt_array dx, dy;
        krt_view vx, vy;
        void *args[3];
        int good = 1;

        for (i = 0; i < N; i++) {
            x[i] = (float)i;
            y[i] = 1.0f;
        }
        krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){N}, NULL);
        krt_to_device(&dy, y, KRT_FLOAT32, 1, (int64_t[]){N}, NULL);
        is_status(KRT_OK,
                  krt_check_array(&saxpy_k, 0, &dx, &vx) ||
                      krt_check_array(&saxpy_k, 1, &dy, &vy),
                  "saxpy arguments check");
        args[0] = &vx;
        args[1] = &vy;
        args[2] = &a;
        is_status(KRT_OK, krt_launch(&saxpy_k, krt_grid1((N + 127) / 128, 128),
                                     args),
                  "saxpy launch");
        krt_copy_to_host(out, dy, NULL);
        for (i = 0; i < N; i++)
            if (out[i] != 2.5f * (float)i + 1.0f)
                good = 0;
        ok(good, "saxpy result");
        krt_free(dx);
        krt_free(dy);
    }

    /* Overhead: no thread is created per launch; just report the cost. */
    {
        enum { REPS = 20000 };
        double t0, t1, t2;
        int failures = 0;

        t0 = now();
        for (i = 0; i < REPS; i++)
            failures += krt_launch(&empty_k, krt_grid1(1, 256), NULL) != 0;
        t1 = now();
        for (i = 0; i < REPS; i++)
            failures += krt_launch(&empty_k, krt_grid1(64, 256), NULL) != 0;
        t2 = now();
        is_int(0, failures, "%d empty launches succeeded", 2 * REPS);
        diag("per-launch overhead: %.2f us (1 block), %.2f us (64 blocks, "
             "%d threads)",
             (t1 - t0) * 1e6 / REPS, (t2 - t1) * 1e6 / REPS, THREADS);
    }
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    return 0;
}
