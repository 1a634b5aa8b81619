/*
 * wrapped.c - host program for wrapped.kern: kernels on device memory that
 * another library allocated and owns, with no copy in either direction.
 *
 * The "other library" below knows nothing of kernrt: on the cuda backend it
 * is CUDA code that calls cudaMalloc/cudaMemcpy/cudaFree itself (compiled
 * in where the build found the toolkit, KRT_HAVE_CUDA); on the cpu backend
 * device memory is host memory, so it is a CPU library handing over malloc'd
 * buffers.  Which one acts is decided at run time from krt_backend_name().
 *
 * kernrt wraps the library's pointers with krt_wrap (zero copy; krt_free
 * leaves them alone), launches on them, and the result is read back through
 * the library's own pointer.  The reverse direction too: memory kernrt
 * allocated is handed to the library through krt_device_ptr.  A strided
 * wrap (every other element) shows the strides argument, and that a kernel
 * declared C-contiguous refuses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kernrt.h>
#include "wrapped.kern.h"

#ifdef KRT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define N 10000
#define TPB 128
/* run()'s result when the other library failed (it said why): not a KRT_*
 * status, which are 0 or negative. */
#define OTHER_FAILED 1

/* ------------------------------------------------------------------ */
/* The other library: allocates, fills and reads its own device memory */
/* ------------------------------------------------------------------ */

static int other_on_gpu;             /* its memory is CUDA device memory */

static int other_failed(const char *what, const char *why)
{
    fprintf(stderr, "wrapped: the other library's %s failed: %s\n", what, why);
    return -1;
}

static int other_init(void)
{
    other_on_gpu = strcmp(krt_backend_name(), "cuda") == 0;
#ifndef KRT_HAVE_CUDA
    if (other_on_gpu)
        return other_failed("set-up", "this program was built without "
                            "CUDA, so it cannot allocate device memory");
#endif
    return 0;
}

static int other_alloc(void **p, size_t bytes)
{
#ifdef KRT_HAVE_CUDA
    if (other_on_gpu) {
        cudaError_t e = cudaMalloc(p, bytes);
        return e == cudaSuccess ? 0
                                : other_failed("cudaMalloc",
                                               cudaGetErrorString(e));
    }
#endif
    *p = malloc(bytes);
    return *p != NULL ? 0 : other_failed("malloc", "out of memory");
}

static int other_upload(void *dev, const void *host, size_t bytes)
{
#ifdef KRT_HAVE_CUDA
    if (other_on_gpu) {
        cudaError_t e = cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
        return e == cudaSuccess ? 0
                                : other_failed("cudaMemcpy",
                                               cudaGetErrorString(e));
    }
#endif
    memcpy(dev, host, bytes);
    return 0;
}

static int other_download(void *host, const void *dev, size_t bytes)
{
#ifdef KRT_HAVE_CUDA
    if (other_on_gpu) {
        cudaError_t e = cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
        return e == cudaSuccess ? 0
                                : other_failed("cudaMemcpy",
                                               cudaGetErrorString(e));
    }
#endif
    memcpy(host, dev, bytes);
    return 0;
}

static void other_free(void *p)
{
#ifdef KRT_HAVE_CUDA
    if (other_on_gpu) {
        cudaFree(p);
        return;
    }
#endif
    free(p);
}

/* ------------------------------------------------------------------ */
/* kernrt on the other library's memory                                */
/* ------------------------------------------------------------------ */

static float ha[N], hb[N], res[N];

static void expect(const char *what, int i, float got, float want, int *bad)
{
    if (got != want) {
        if (*bad < 10)
            fprintf(stderr, "wrapped: %s[%d] = %g, want %g\n", what, i, got,
                    want);
        ++*bad;
    }
}

static int run(int *bad)
{
    void *A = NULL, *B = NULL, *OUT = NULL;
    krt_array a, b, out, evens, mine;
    int64_t shape[1] = {N}, half[1] = {N / 2};
    int64_t every_other[1] = {2 * sizeof(float)};   /* bytes */
    krt_launch_cfg cfg = krt_grid1((N + TPB - 1) / TPB, TPB);
    int status;

    if (other_init() != 0)
        return OTHER_FAILED;
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = 0.25f * (float)(N - i);
        res[i] = -1.0f;
    }
    if (other_alloc(&A, sizeof ha) != 0 || other_alloc(&B, sizeof hb) != 0 ||
        other_alloc(&OUT, sizeof res) != 0 ||
        other_upload(A, ha, sizeof ha) != 0 ||
        other_upload(B, hb, sizeof hb) != 0 ||
        other_upload(OUT, res, sizeof res) != 0)
        return OTHER_FAILED;

    /* Zero copy: the arrays are the library's memory, under kernrt's
     * shape and dtype. */
    KRT_TRY(krt_wrap(&a, A, KRT_FLOAT32, 1, shape, NULL));
    KRT_TRY(krt_wrap(&b, B, KRT_FLOAT32, 1, shape, NULL));
    KRT_TRY(krt_wrap(&out, OUT, KRT_FLOAT32, 1, shape, NULL));
    if (krt_device_ptr(a) != A || krt_device_ptr(out) != OUT) {
        fprintf(stderr, "wrapped: krt_device_ptr does not give back the "
                "wrapped pointer\n");
        ++*bad;
    }
    KRT_TRY(vadd(cfg, a, b, out));
    /* A launch on the default stream may only be queued (cuda): wait, and
     * collect its errors, before the other library reads. */
    KRT_TRY(krt_synchronize());
    if (other_download(res, OUT, sizeof res) != 0)
        return OTHER_FAILED;
    for (int i = 0; i < N; i++)
        expect("out", i, res[i], ha[i] + hb[i], bad);

    /* A strided wrap: elements 0, 2, 4, ... of the library's buffer. */
    KRT_TRY(krt_wrap(&evens, OUT, KRT_FLOAT32, 1, half, every_other));
    status = vadd(cfg, evens, evens, evens);
    if (status != KRT_ELAYOUT) {
        fprintf(stderr, "wrapped: vadd (float32[::1]) on a strided array: "
                "%s, want KRT_ELAYOUT\n", krt_status_name(status));
        ++*bad;
    }
    KRT_TRY(scale(krt_grid1((N / 2 + TPB - 1) / TPB, TPB), evens, 0.5f));
    KRT_TRY(krt_synchronize());
    if (other_download(res, OUT, sizeof res) != 0)
        return OTHER_FAILED;
    for (int i = 0; i < N; i++)
        expect("out after scaling the evens", i, res[i],
               i % 2 == 0 ? 0.5f * (ha[i] + hb[i]) : ha[i] + hb[i], bad);

    /* The other way round: kernrt's memory, written by a kernel, read and
     * then written by the library through krt_device_ptr. */
    KRT_TRY(krt_alloc(&mine, KRT_FLOAT32, 1, shape));
    KRT_TRY(vadd(cfg, a, a, mine));
    KRT_TRY(krt_synchronize());
    if (other_download(res, krt_device_ptr(mine), sizeof res) != 0)
        return OTHER_FAILED;
    for (int i = 0; i < N; i++)
        expect("mine", i, res[i], 2 * ha[i], bad);
    if (other_upload(krt_device_ptr(mine), hb, sizeof hb) != 0)
        return OTHER_FAILED;
    KRT_TRY(krt_copy_to_host(res, mine, NULL));
    for (int i = 0; i < N; i++)
        expect("mine after the library wrote it", i, res[i], hb[i], bad);
    KRT_TRY(krt_free(mine));

    /* krt_free leaves wrapped memory alone: it still belongs to the
     * library, which reads it and frees it itself. */
    KRT_TRY(krt_free(a));
    KRT_TRY(krt_free(b));
    KRT_TRY(krt_free(out));
    KRT_TRY(krt_free(evens));
    if (other_download(res, A, sizeof res) != 0)
        return OTHER_FAILED;
    for (int i = 0; i < N; i++)
        expect("A after krt_free of its wrap", i, res[i], ha[i], bad);
    other_free(A);
    other_free(B);
    other_free(OUT);
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        /* The other library printed its own failures. */
        if (status != OTHER_FAILED)
            fprintf(stderr, "wrapped: %s: %s\n", krt_status_name(status),
                    krt_last_error());
        return 1;
    }
    printf("wrapped: %s (%s backend, %s memory)\n", bad ? "FAILED" : "ok",
           krt_backend_name(), other_on_gpu ? "cudaMalloc" : "malloc");
    return bad != 0;
}
