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
 *
 * Streams are cudaStreamCreate streams (blocking: they synchronise with the
 * legacy default stream, which is what kernrt.h promises), events
 * cudaEventCreate events (with timing), host functions
 * cudaLaunchHostFunc.  The occupancy helpers of cuda_runtime.h are C++
 * templates, so krt_forall's block size is searched here in C with
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, as the template does.
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

/* A CUDA call's error as a backend status: KRT_OK on success. */
static int krt_cuda_check(cudaError_t e, const char *call)
{
    return e == cudaSuccess ? KRT_OK : krt_cuda_fail(e, call);
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

    return krt_cuda_check(e, "cudaFree");
}

static cudaStream_t krt_cuda_stream(const krt_stream *s)
{
    return s != NULL ? (cudaStream_t)s->impl : (cudaStream_t)0;
}

/* The default stream: cudaMemcpy (blocks the host); else cudaMemcpyAsync. */
static int krt_cuda_copy(void *dst, const void *src, size_t bytes,
                         enum cudaMemcpyKind kind, krt_stream *stream)
{
    cudaError_t e;

    if (stream == NULL) {
        e = cudaMemcpy(dst, src, bytes, kind);
        return krt_cuda_check(e, "cudaMemcpy");
    }
    e = cudaMemcpyAsync(dst, src, bytes, kind, krt_cuda_stream(stream));
    return krt_cuda_check(e, "cudaMemcpyAsync");
}

static int krt_cuda_copy_to_device(void *dst, const void *src, size_t bytes,
                                   krt_stream *stream)
{
    return krt_cuda_copy(dst, src, bytes, cudaMemcpyHostToDevice, stream);
}

static int krt_cuda_copy_to_host(void *dst, const void *src, size_t bytes,
                                 krt_stream *stream)
{
    return krt_cuda_copy(dst, src, bytes, cudaMemcpyDeviceToHost, stream);
}

static int krt_cuda_copy_device(void *dst, const void *src, size_t bytes,
                                krt_stream *stream)
{
    return krt_cuda_copy(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
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

/* The one body of both launches: they differ in the cudart call only. */
static int krt_cuda_launch_with(const krt_kernel *k, const krt_launch_cfg *cfg,
                                void **args, int cooperative)
{
    dim3 grid, block;
    cudaError_t e;

    grid.x = cfg->grid.x;
    grid.y = cfg->grid.y;
    grid.z = cfg->grid.z;
    block.x = cfg->block.x;
    block.y = cfg->block.y;
    block.z = cfg->block.z;
    e = cooperative
            ? cudaLaunchCooperativeKernel(k->cuda, grid, block, args,
                                          cfg->shared_bytes,
                                          krt_cuda_stream(cfg->stream))
            : cudaLaunchKernel(k->cuda, grid, block, args, cfg->shared_bytes,
                               krt_cuda_stream(cfg->stream));
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return krt_cuda_check(e, cooperative ? "cudaLaunchCooperativeKernel"
                                         : "cudaLaunchKernel");
}

static int krt_cuda_launch(const krt_kernel *k, const krt_launch_cfg *cfg,
                           void **args)
{
    return krt_cuda_launch_with(k, cfg, args, 0);
}

static int krt_cuda_launch_cooperative(const krt_kernel *k,
                                       const krt_launch_cfg *cfg, void **args)
{
    return krt_cuda_launch_with(k, cfg, args, 1);
}

/* An attribute of the current device. */
static int krt_cuda_attr(int *out, enum cudaDeviceAttr attr, const char *what)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);

    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(out, attr, dev);
    if (e != cudaSuccess)
        return krt_cuda_fail(e, what);
    return KRT_OK;
}

/* cudaOccupancyMaxPotentialBlockSize's search, in C: from the largest block
 * the kernel allows down by warps, keep the size with the most resident
 * threads per SM (the larger size on a tie). */
static int krt_cuda_forall_block(const krt_kernel *k, int64_t n,
                                 unsigned *block)
{
    struct cudaFuncAttributes attr;
    int warp = 32, per_sm = 2048, best = 0, size, blocks;
    int limit;
    cudaError_t e;

    (void)n;                         /* numba's forall ignores it too */
    if (k->cuda == NULL)
        return krt__error(KRT_ENOCODE,
                          "kernel was not compiled for the cuda backend");
    e = cudaFuncGetAttributes(&attr, k->cuda);
    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaFuncGetAttributes");
    KRT_TRY(krt_cuda_attr(&warp, cudaDevAttrWarpSize, "cudaDeviceGetAttribute"));
    KRT_TRY(krt_cuda_attr(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor,
                          "cudaDeviceGetAttribute"));
    limit = attr.maxThreadsPerBlock < (int)KRT_MAX_BLOCK_THREADS
                ? attr.maxThreadsPerBlock
                : (int)KRT_MAX_BLOCK_THREADS;
    *block = 0;
    for (size = limit; size > 0;
         size = size % warp ? size - size % warp : size - warp) {
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->cuda,
                                                          size, 0);
        if (e != cudaSuccess)
            return krt_cuda_fail(e,
                                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        if (blocks * size > best) {
            best = blocks * size;
            *block = (unsigned)size;
            if (best >= per_sm)
                break;
        }
    }
    if (*block == 0)
        return krt__error(KRT_ELAUNCH, "no block size lets this kernel run "
                          "(too many registers or too much shared memory)");
    return KRT_OK;
}

static int krt_cuda_max_cooperative(const krt_kernel *k, krt_dim3 block,
                                    size_t shared_bytes, unsigned *blocks)
{
    int coop = 0, sms = 0, per_sm = 0;
    cudaError_t e;

    KRT_TRY(krt_cuda_attr(&coop, cudaDevAttrCooperativeLaunch,
                          "cudaDeviceGetAttribute"));
    if (!coop)
        return krt__error(KRT_ECOOPERATIVE, "this device does not support "
                          "cooperative launches");
    KRT_TRY(krt_cuda_attr(&sms, cudaDevAttrMultiProcessorCount,
                          "cudaDeviceGetAttribute"));
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, k->cuda, (int)(block.x * block.y * block.z), shared_bytes);
    if (e != cudaSuccess)
        return krt_cuda_fail(e,
                             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    *blocks = (unsigned)per_sm * (unsigned)sms;
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */

static int krt_cuda_stream_create(krt_stream *s)
{
    cudaStream_t st;
    cudaError_t e = cudaStreamCreate(&st);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaStreamCreate");
    s->impl = st;
    return KRT_OK;
}

/* kernrt.h promises the stream's work is done when this returns. */
static int krt_cuda_stream_destroy(krt_stream *s)
{
    cudaStream_t st = krt_cuda_stream(s);
    cudaError_t e = cudaStreamSynchronize(st), e2 = cudaStreamDestroy(st);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaStreamSynchronize");
    return krt_cuda_check(e2, "cudaStreamDestroy");
}

static int krt_cuda_stream_synchronize(krt_stream *s)
{
    cudaError_t e = cudaStreamSynchronize(krt_cuda_stream(s));

    return krt_cuda_check(e, "cudaStreamSynchronize");
}

/* cudaErrorNotReady is not an error: clear it from cudaGetLastError. */
static int krt_cuda_ready(cudaError_t e, const char *call)
{
    if (e == cudaErrorNotReady) {
        cudaGetLastError();
        return KRT_ENOTREADY;
    }
    return krt_cuda_check(e, call);
}

static int krt_cuda_stream_query(krt_stream *s)
{
    return krt_cuda_ready(cudaStreamQuery(krt_cuda_stream(s)),
                          "cudaStreamQuery");
}

static int krt_cuda_stream_wait_event(krt_stream *s, krt_event *ev)
{
    cudaError_t e = cudaStreamWaitEvent(krt_cuda_stream(s),
                                        (cudaEvent_t)ev->impl, 0);

    return krt_cuda_check(e, "cudaStreamWaitEvent");
}

/* cudaHostFn_t's signature is exactly void (*)(void *). */
static int krt_cuda_host_fn(krt_stream *s, void (*fn)(void *), void *arg)
{
    cudaError_t e;

    if (s == NULL) {
        e = cudaStreamSynchronize((cudaStream_t)0);
        if (e != cudaSuccess)
            return krt_cuda_fail(e, "cudaStreamSynchronize");
        fn(arg);
        return KRT_OK;
    }
    e = cudaLaunchHostFunc(krt_cuda_stream(s), fn, arg);
    return krt_cuda_check(e, "cudaLaunchHostFunc");
}

static int krt_cuda_event_create(krt_event *ev)
{
    cudaEvent_t h;
    cudaError_t e = cudaEventCreate(&h);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaEventCreate");
    ev->impl = h;
    return KRT_OK;
}

static int krt_cuda_event_destroy(krt_event *ev)
{
    cudaError_t e = cudaEventDestroy((cudaEvent_t)ev->impl);

    return krt_cuda_check(e, "cudaEventDestroy");
}

static int krt_cuda_event_record(krt_event *ev, krt_stream *s)
{
    cudaError_t e = cudaEventRecord((cudaEvent_t)ev->impl,
                                    krt_cuda_stream(s));

    return krt_cuda_check(e, "cudaEventRecord");
}

static int krt_cuda_event_synchronize(krt_event *ev)
{
    cudaError_t e = cudaEventSynchronize((cudaEvent_t)ev->impl);

    return krt_cuda_check(e, "cudaEventSynchronize");
}

static int krt_cuda_event_query(krt_event *ev)
{
    return krt_cuda_ready(cudaEventQuery((cudaEvent_t)ev->impl),
                          "cudaEventQuery");
}

static int krt_cuda_event_elapsed_ms(float *ms, krt_event *start,
                                     krt_event *end)
{
    return krt_cuda_ready(cudaEventElapsedTime(ms, (cudaEvent_t)start->impl,
                                               (cudaEvent_t)end->impl),
                          "cudaEventElapsedTime");
}

/* ------------------------------------------------------------------ */
/* Pinned host memory                                                  */
/* ------------------------------------------------------------------ */

static int krt_cuda_host_alloc(void **p, size_t bytes)
{
    cudaError_t e = cudaHostAlloc(p, bytes, cudaHostAllocDefault);

    if (e != cudaSuccess) {
        *p = NULL;
        return krt_cuda_fail(e, "cudaHostAlloc");
    }
    return KRT_OK;
}

static int krt_cuda_host_free(void *p)
{
    cudaError_t e = cudaFreeHost(p);

    return krt_cuda_check(e, "cudaFreeHost");
}

static int krt_cuda_host_register(void *p, size_t bytes)
{
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);

    return krt_cuda_check(e, "cudaHostRegister");
}

static int krt_cuda_host_unregister(void *p)
{
    cudaError_t e = cudaHostUnregister(p);

    return krt_cuda_check(e, "cudaHostUnregister");
}

static int krt_cuda_synchronize(void)
{
    cudaError_t e = cudaDeviceSynchronize();

    return krt_cuda_check(e, "cudaDeviceSynchronize");
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
    .stream_create = krt_cuda_stream_create,
    .stream_destroy = krt_cuda_stream_destroy,
    .stream_synchronize = krt_cuda_stream_synchronize,
    .stream_query = krt_cuda_stream_query,
    .stream_wait_event = krt_cuda_stream_wait_event,
    .host_fn = krt_cuda_host_fn,
    .event_create = krt_cuda_event_create,
    .event_destroy = krt_cuda_event_destroy,
    .event_record = krt_cuda_event_record,
    .event_synchronize = krt_cuda_event_synchronize,
    .event_query = krt_cuda_event_query,
    .event_elapsed_ms = krt_cuda_event_elapsed_ms,
    .host_alloc = krt_cuda_host_alloc,
    .host_free = krt_cuda_host_free,
    .host_register = krt_cuda_host_register,
    .host_unregister = krt_cuda_host_unregister,
    .forall_block = krt_cuda_forall_block,
    .max_cooperative = krt_cuda_max_cooperative,
    .launch_cooperative = krt_cuda_launch_cooperative,
};

#else

/* ISO C wants at least one declaration in a translation unit. */
typedef int krt_cuda_unused;

#endif /* KRT_HAVE_CUDA */
