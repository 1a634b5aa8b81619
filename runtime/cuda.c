/*
 * cuda.c - the CUDA backend: device memory from cudaMalloc, kernels launched
 * with cudaLaunchKernel, through the CUDA runtime API only (plain C, compiled
 * with cc -I$CUDA/include, linked with -lcudart).  Built when configure
 * finds the toolkit (KRT_HAVE_CUDA); without it this file is empty and
 * KRT_BACKEND=cuda reports KRT_ENOBACKEND.
 *
 * One cudart for the whole program: kernel->cuda is the host stub of a
 * __global__ function that the generated .cu registered, at load time, with
 * the cudart it was linked against.  cudaLaunchKernel here only finds it if
 * libkernrt calls into that same cudart instance, so programs must link the
 * shared cudart (`nvcc -cudart shared`, the default of kernc's build rules);
 * with nvcc's default static cudart every launch fails with
 * "invalid device function".
 *
 * Launches are asynchronous, as CUDA's: an error raised while a kernel runs
 * (a trap, an illegal address) is reported by the next call that
 * synchronises (krt_copy_to_host, krt_synchronize), as KRT_ECUDA with
 * cudaGetErrorString's text.  Such errors are sticky: the CUDA context is
 * unusable afterwards, as with every CUDA program.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "backend.h"

#ifdef KRT_HAVE_CUDA

#include <cuda_runtime_api.h>

/* Map a CUDA error to a status and a message naming the call. */
static int krt_cuda_fail(cudaError_t e, const char *call)
{
    int status = e == cudaErrorMemoryAllocation ? KRT_ENOMEM : KRT_ECUDA;

    if (e == cudaErrorInvalidDeviceFunction)
        return krt__error(status,
                          "%s: %s (%s); is the program linked with the "
                          "shared cudart (nvcc -cudart shared)?",
                          call, cudaGetErrorString(e), cudaGetErrorName(e));
    return krt__error(status, "%s: %s (%s)", call, cudaGetErrorString(e),
                      cudaGetErrorName(e));
}

static int krt_cuda_init(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);

    /* No driver, no device, or a driver too old: nothing to run on. */
    if (e != cudaSuccess) {
        cudaGetLastError();
        return krt__error(KRT_ENODEVICE, "no CUDA device (cudaGetDeviceCount: "
                          "%s, %s)", cudaGetErrorString(e),
                          cudaGetErrorName(e));
    }
    if (count == 0)
        return krt__error(KRT_ENODEVICE, "no CUDA device (cudaGetDeviceCount "
                          "found none)");
    /* Create the context now, so a broken device fails here, not later. */
    e = cudaFree(NULL);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return krt__error(KRT_ENODEVICE, "CUDA device unusable (cudaFree: "
                          "%s, %s)", cudaGetErrorString(e),
                          cudaGetErrorName(e));
    }
    return KRT_OK;
}

static int krt_cuda_alloc(void **ptr, size_t bytes)
{
    cudaError_t e = cudaMalloc(ptr, bytes);

    if (e != cudaSuccess) {
        *ptr = NULL;
        return krt_cuda_fail(e, "cudaMalloc");
    }
    return KRT_OK;
}

static int krt_cuda_free(void *ptr)
{
    cudaError_t e = cudaFree(ptr);

    return e == cudaSuccess ? KRT_OK : krt_cuda_fail(e, "cudaFree");
}

/* stream is NULL until streams exist: cudaMemcpy on the default stream. */
static int krt_cuda_copy(void *dst, const void *src, size_t bytes,
                         enum cudaMemcpyKind kind)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, kind);

    return e == cudaSuccess ? KRT_OK : krt_cuda_fail(e, "cudaMemcpy");
}

static int krt_cuda_copy_to_device(void *dst, const void *src, size_t bytes,
                                   krt_stream *stream)
{
    (void)stream;
    return krt_cuda_copy(dst, src, bytes, cudaMemcpyHostToDevice);
}

static int krt_cuda_copy_to_host(void *dst, const void *src, size_t bytes,
                                 krt_stream *stream)
{
    (void)stream;
    return krt_cuda_copy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

static int krt_cuda_copy_device(void *dst, const void *src, size_t bytes,
                                krt_stream *stream)
{
    (void)stream;
    return krt_cuda_copy(dst, src, bytes, cudaMemcpyDeviceToDevice);
}

static int krt_cuda_kernel_limits(const krt_kernel *k, size_t *static_shared,
                                  unsigned *max_threads)
{
    struct cudaFuncAttributes attr;
    cudaError_t e;

    if (k->cuda == NULL)
        return krt__error(KRT_ENOCODE,
                          "kernel was not compiled for the cuda backend (no "
                          "device code: translate it with kernc --target "
                          "cuda and link the .cu)");
    e = cudaFuncGetAttributes(&attr, k->cuda);
    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaFuncGetAttributes");
    *static_shared = attr.sharedSizeBytes;
    /* Registers may allow fewer than 1024 threads for this kernel. */
    *max_threads = attr.maxThreadsPerBlock > 0
                       ? (unsigned)attr.maxThreadsPerBlock
                       : KRT_MAX_BLOCK_THREADS;
    return KRT_OK;
}

static int krt_cuda_launch(const krt_kernel *k, const krt_launch_cfg *cfg,
                           void **args)
{
    dim3 grid, block;
    cudaError_t e;

    grid.x = cfg->grid.x;
    grid.y = cfg->grid.y;
    grid.z = cfg->grid.z;
    block.x = cfg->block.x;
    block.y = cfg->block.y;
    block.z = cfg->block.z;
    e = cudaLaunchKernel(k->cuda, grid, block, args, cfg->shared_bytes,
                         (cudaStream_t)0);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e == cudaSuccess ? KRT_OK : krt_cuda_fail(e, "cudaLaunchKernel");
}

static int krt_cuda_synchronize(void)
{
    cudaError_t e = cudaDeviceSynchronize();

    return e == cudaSuccess ? KRT_OK
                            : krt_cuda_fail(e, "cudaDeviceSynchronize");
}

const krt_backend krt__cuda_backend = {
    .name = "cuda",
    .id = KRT_BACKEND_CUDA,
    .host_visible = 0,
    .init = krt_cuda_init,
    .alloc = krt_cuda_alloc,
    .free = krt_cuda_free,
    .copy_to_device = krt_cuda_copy_to_device,
    .copy_to_host = krt_cuda_copy_to_host,
    .copy_device = krt_cuda_copy_device,
    .kernel_limits = krt_cuda_kernel_limits,
    .launch = krt_cuda_launch,
    .synchronize = krt_cuda_synchronize,
};

#else

/* ISO C wants at least one declaration in a translation unit. */
typedef int krt_cuda_unused;

#endif /* KRT_HAVE_CUDA */
