/*
 * fault.c - a kernel that faults on the CPU backend: its launch fails with
 * KRT_EKERNEL and a message naming the kernel and the block, the process
 * and the pool survive, and the next launch works.
 *
 * Kernels written by hand in the shape kernc emits, as in launch.c: one
 * that writes past its dynamic shared memory, one past its thread frames,
 * one far outside a global array, on one block of a grid run by several
 * pool threads; also on a stream.  A fault outside any kernel still kills
 * the process (checked in a child), so the runtime's handler hides nothing
 * of the program's own bugs.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernrt.h"
#include "tap/basic.h"

#define BAD_BLOCK 5

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

static int has(const char *needle, const char *what)
{
    const char *msg = krt_last_error();
    int r = ok(strstr(msg, needle) != NULL, "%s", what);
    if (!r)
        diag("message: %s", msg);
    return r;
}

/* Block BAD_BLOCK writes on, one float after another, past the end of its
 * dynamic shared memory. */
static void dynshared_cpu(const krt_cpu_block *b, void **args)
{
    volatile float *d = (volatile float *)b->dyn_shared;
    size_t i;

    (void)args;
    for (i = 0; i < b->dyn_shared_bytes / sizeof(float); i++)
        d[i] = 1.0f;
    if (b->block_idx.x == BAD_BLOCK)
        for (i = 0; i < ((size_t)1 << 30); i++)
            d[i] = 2.0f;
}

static const krt_kernel dynshared_k = {"dynshared", "test.kern", 0, NULL,
                                       dynshared_cpu, NULL, 256, 0, 0, NULL};

/* Thread frames: the last thread's frame overrun by the bad block. */
static void frame_cpu(const krt_cpu_block *b, void **args)
{
    volatile char *f = b->frame;
    size_t i, n = 24 * (size_t)b->block_dim.x;

    (void)args;
    for (i = 0; i < n; i++)
        f[i] = 1;
    if (b->block_idx.x == BAD_BLOCK)
        for (i = n; i < ((size_t)1 << 30); i++)
            f[i] = 2;
}

static const krt_kernel frame_k = {"frame", "test.kern", 0, NULL, frame_cpu,
                                   NULL, 0, 24, 0, NULL};

/* a[i] = i inside the array; the bad block writes a terabyte past it. */
static void global_cpu(const krt_cpu_block *b, void **args)
{
    const krt_view *a = args[0];
    unsigned t;

    for (t = 0; t < b->block_dim.x; t++) {
        int64_t i = (int64_t)b->block_idx.x * b->block_dim.x + t;
        if (i < a->shape[0])
            *(float *)(a->data + i * a->strides[0]) = (float)i;
    }
    if (b->block_idx.x == BAD_BLOCK)
        *(volatile float *)(a->data + ((int64_t)1 << 40)) = 1.0f;
}

static const krt_param global_params[] = {
    {"a", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1}};
static const krt_kernel global_k = {"global", "test.kern", 1, global_params,
                                    global_cpu, NULL, 0, 0, 0, NULL};

/* The first n of d's elements are 0, 1, 2, ... */
static int check_array(krt_array d, int n)
{
    float *h = malloc(krt_array_nbytes(&d));
    int i, bad = 0;

    if (h == NULL || krt_copy_to_host(h, d, NULL) != KRT_OK)
        bad = 1;
    for (i = 0; !bad && i < n; i++)
        if (h[i] != (float)i) {
            diag("element %d is %g", i, (double)h[i]);
            bad = 1;
        }
    free(h);
    return !bad;
}

int main(void)
{
    enum { N = 8 * 64 };
    krt_array a;
    krt_view v;
    krt_stream *s = NULL;
    void *args[1];
    krt_launch_cfg cfg;
    int round, status;
    pid_t child;

    setenv("KRT_CPU_THREADS", "4", 1);
    plan(22);
    is_status(KRT_OK, krt_set_backend("cpu"), "cpu backend");
    is_status(KRT_OK, krt_alloc(&a, KRT_FLOAT32, 1, (int64_t[]){N}) ||
                          krt_check_array(&global_k, 0, &a, &v),
              "an array and its view");
    args[0] = &v;

    for (round = 0; round < 2; round++) {
        cfg = krt_with_shared(krt_grid1(8, 64), 1000);
        is_status(KRT_EKERNEL, krt_launch(&dynshared_k, cfg, NULL),
                  "a dynamic shared memory overrun fails the launch");
        has("kernel 'dynshared': block (5, 0, 0): memory fault (SIGSEGV)",
            "the message names the kernel, the block and the fault");
    }
    is_status(KRT_EKERNEL, krt_launch(&frame_k, krt_grid1(8, 64), NULL),
              "a thread frame overrun fails the launch");
    has("kernel 'frame': block (5, 0, 0): memory fault",
        "the frame fault names the kernel and the block");
    is_status(KRT_EKERNEL, krt_launch(&global_k, krt_grid1(8, 64), args),
              "a write far outside a global array fails the launch");
    has("kernel 'global': block (5, 0, 0): memory fault",
        "the global fault names the kernel and the block");

    /* The pool and the runtime's memory are intact. */
    is_status(KRT_OK, krt_launch(&global_k, krt_grid1(4, 64), args),
              "the next launch works");
    ok(check_array(a, 4 * 64), "and computes the right values");
    cfg = krt_with_shared(krt_grid1(4, 64), 1000);
    is_status(KRT_OK, krt_launch(&dynshared_k, cfg, NULL),
              "a shared-memory kernel works after the faults");

    /* On a stream: the fault is reported by the synchronisation. */
    is_status(KRT_OK, krt_stream_create(&s), "stream");
    cfg = krt_grid1(8, 64);
    cfg.stream = s;
    is_status(KRT_OK, krt_launch(&global_k, cfg, args),
              "a faulting launch queues on a stream");
    is_status(KRT_EKERNEL, krt_stream_synchronize(s),
              "the stream reports the fault");
    has("kernel 'global'", "the stream's message names the kernel");
    cfg.grid.x = 4;
    is_status(KRT_OK, krt_launch(&global_k, cfg, args),
              "the stream takes the next launch");
    is_status(KRT_OK, krt_stream_synchronize(s), "which succeeds");
    is_status(KRT_OK, krt_stream_destroy(s), "stream destroyed");

    /* A fault that is no kernel's is not swallowed. */
    fflush(stdout);
    child = fork();
    if (child == 0) {
        /* a page that cannot be written (a NULL store would be UBSan's) */
        volatile int *page = mmap(NULL, 4096, PROT_NONE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if ((void *)page != MAP_FAILED)
            *page = 1;
        _exit(0);
    }
    status = 0;
    waitpid(child, &status, 0);
    /* SIGSEGV, or the exit status of a sanitizer's own handler, which the
     * runtime's handler passes the fault on to */
    ok((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
           (WIFEXITED(status) && WEXITSTATUS(status) != 0),
       "a fault outside a kernel still kills the process");

    is_status(KRT_OK, krt_free(a), "free");
    return 0;
}
