/*
 * cuda.c - the CUDA backend: device memory from cudaMalloc, kernels launched
 * with cudaLaunchKernel, through the CUDA runtime API only (plain C, compiled
 * with cc -I$CUDA/include).  Built when configure finds the toolkit
 * (KRT_HAVE_CUDA); without it this file is empty and KRT_BACKEND=cuda
 * reports KRT_ENOBACKEND.
 *
 * libkernrt is not linked with libcudart: the CUDA runtime library is
 * loaded with dlopen() when the cuda backend is first initialised, and every
 * function used here is called through one table of pointers (krt_cu,
 * KRT_CUDART_FUNCS), so that kernc and CPU-only programs start on machines
 * without the CUDA toolkit.  The library is KRT_CUDART when that is set
 * (a path or a name, tried alone), else the soname configure found
 * (KRT_CUDART_SONAME, "libcudart.so.13"), reused when the program already
 * loaded it, then the same name in the toolkit's directory, then
 * "libcudart.so".  A library that cannot be loaded, or lacks a function,
 * makes init fail with KRT_ENOBACKEND and the loader's message.
 *
 * One cudart for the whole program: kernel->cuda is the host stub of a
 * __global__ function that the generated .cu registered, at load time, with
 * the cudart it was linked against.  cudaLaunchKernel here only finds it if
 * libkernrt calls into that same cudart instance, so programs must link the
 * shared cudart (`nvcc -cudart shared`, the default of kernc's build rules);
 * the dlopen of the soname then returns that instance.  With nvcc's default
 * static cudart every launch fails with "invalid device function".
 *
 * Devices: CUDA's current device is per host thread, as krt_set_device's;
 * set_device is cudaSetDevice, and memory, streams and events belong to the
 * device current when they were made (krt.c checks that they are used
 * together).  Peer copies are cudaMemcpyPeer(Async); mapped host memory is
 * cudaHostAlloc(Mapped | Portable) with cudaHostGetDevicePointer.
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

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#ifndef KRT_CUDART_SONAME
#define KRT_CUDART_SONAME "libcudart.so"
#endif

/* Every cudart function this file calls: X(name without the "cuda"). */
#define KRT_CUDART_FUNCS(X)                                                  \
    X(GetErrorString) X(GetErrorName) X(GetLastError) X(GetDeviceCount)      \
    X(GetDevice) X(SetDevice) X(GetDeviceProperties) X(DeviceGetAttribute)   \
    X(MemGetInfo) X(DeviceCanAccessPeer) X(DeviceEnablePeerAccess)           \
    X(Malloc) X(Free) X(Memcpy) X(MemcpyAsync) X(MemcpyPeer)                 \
    X(MemcpyPeerAsync) X(FuncGetAttributes) X(LaunchKernel)                  \
    X(LaunchCooperativeKernel) X(OccupancyMaxActiveBlocksPerMultiprocessor)  \
    X(DeviceSynchronize) X(StreamCreate) X(StreamDestroy)                    \
    X(StreamSynchronize) X(StreamQuery) X(StreamWaitEvent)                   \
    X(LaunchHostFunc) X(EventCreate) X(EventDestroy) X(EventRecord)          \
    X(EventSynchronize) X(EventQuery) X(EventElapsedTime) X(HostAlloc)       \
    X(FreeHost) X(HostRegister) X(HostUnregister) X(HostGetDevicePointer)   \
    X(MemcpyFromSymbol) X(MemcpyToSymbol)

/* cuda_runtime_api.h may #define a name to a versioned symbol
 * (cudaMemcpy_ptds, ...): pasted and expanded before it is stringified,
 * the dlsym name is the one the header would have linked. */
#define KRT_CU_STR_(s) #s
#define KRT_CU_XSTR_(s) KRT_CU_STR_(s)
#define KRT_CU_FIELD_(n) __typeof__(&cuda##n) n;
#define KRT_CU_SYM_(n) {KRT_CU_XSTR_(cuda##n), offsetof(krt_cudart, n)},

typedef struct krt_cudart {
    KRT_CUDART_FUNCS(KRT_CU_FIELD_)
} krt_cudart;

static krt_cudart krt_cu;

static const struct {
    const char *name;
    size_t offset;
} krt_cu_syms[] = {KRT_CUDART_FUNCS(KRT_CU_SYM_)};

/* Loaded once; a failure is kept with its message and replayed. */
static pthread_mutex_t krt_cu_lock = PTHREAD_MUTEX_INITIALIZER;
static int krt_cu_state;            /* 0: not tried, 1: loaded, -1: failed */
static char krt_cu_msg[512];

static void *krt_cu_open(const char *name, char *why, size_t len)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);

    if (h == NULL) {
        const char *e = dlerror();
        size_t n = strlen(why);
        snprintf(why + n, len - n, "%s%s", n ? "; " : "",
                 e != NULL ? e : name);
    }
    return h;
}

static int krt_cu_load_locked(void)
{
    const char *env = getenv("KRT_CUDART");
    char why[sizeof krt_cu_msg - 128] = "";
    void *h = NULL;
    size_t i;

    if (env != NULL && *env != '\0') {
        h = krt_cu_open(env, why, sizeof why);
    } else {
        /* The program's own cudart first (kernels are registered there). */
        h = dlopen(KRT_CUDART_SONAME, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
        if (h == NULL)
            h = krt_cu_open(KRT_CUDART_SONAME, why, sizeof why);
#ifdef KRT_CUDART_DIR
        if (h == NULL)
            h = krt_cu_open(KRT_CUDART_DIR "/" KRT_CUDART_SONAME, why,
                            sizeof why);
#endif
        if (h == NULL && strcmp(KRT_CUDART_SONAME, "libcudart.so") != 0)
            h = krt_cu_open("libcudart.so", why, sizeof why);
    }
    if (h == NULL) {
        snprintf(krt_cu_msg, sizeof krt_cu_msg,
                 "cannot load the CUDA runtime library (%s); install the "
                 "CUDA toolkit or point KRT_CUDART at libcudart", why);
        return -1;
    }
    for (i = 0; i < sizeof krt_cu_syms / sizeof krt_cu_syms[0]; i++) {
        void *f = dlsym(h, krt_cu_syms[i].name);
        if (f == NULL) {
            snprintf(krt_cu_msg, sizeof krt_cu_msg,
                     "the CUDA runtime library has no %s (too old?)",
                     krt_cu_syms[i].name);
            dlclose(h);
            memset(&krt_cu, 0, sizeof krt_cu);
            return -1;
        }
        /* POSIX guarantees data and function pointers convert. */
        memcpy((char *)&krt_cu + krt_cu_syms[i].offset, &f, sizeof f);
    }
    return 1;
}

/* Load cudart if not done yet: KRT_OK, or KRT_ENOBACKEND with why. */
static int krt_cu_load(void)
{
    int state;

    pthread_mutex_lock(&krt_cu_lock);
    if (krt_cu_state == 0)
        krt_cu_state = krt_cu_load_locked();
    state = krt_cu_state;
    pthread_mutex_unlock(&krt_cu_lock);
    if (state < 0)
        return krt__error(KRT_ENOBACKEND, "%s", krt_cu_msg);
    return KRT_OK;
}

/* Map a CUDA error to a status and a message naming the call. */
static int krt_cuda_fail(cudaError_t e, const char *call)
{
    int status = e == cudaErrorMemoryAllocation ? KRT_ENOMEM : KRT_ECUDA;

    if (e == cudaErrorInvalidDeviceFunction)
        return krt__error(status,
                          "%s: %s (%s); is the program linked with the "
                          "shared cudart (nvcc -cudart shared)?",
                          call, krt_cu.GetErrorString(e), krt_cu.GetErrorName(e));
    return krt__error(status, "%s: %s (%s)", call, krt_cu.GetErrorString(e),
                      krt_cu.GetErrorName(e));
}

/* A CUDA call's error as a backend status: KRT_OK on success. */
static int krt_cuda_check(cudaError_t e, const char *call)
{
    return e == cudaSuccess ? KRT_OK : krt_cuda_fail(e, call);
}

static int krt_cuda_init(void)
{
    int count = 0;
    cudaError_t e;

    KRT_TRY(krt_cu_load());
    e = krt_cu.GetDeviceCount(&count);

    /* No driver, no device, or a driver too old: nothing to run on. */
    if (e != cudaSuccess) {
        krt_cu.GetLastError();
        return krt__error(KRT_ENODEVICE, "no CUDA device (cudaGetDeviceCount: "
                          "%s, %s)", krt_cu.GetErrorString(e),
                          krt_cu.GetErrorName(e));
    }
    if (count == 0)
        return krt__error(KRT_ENODEVICE, "no CUDA device (cudaGetDeviceCount "
                          "found none)");
    /* Create the context now, so a broken device fails here, not later. */
    e = krt_cu.Free(NULL);
    if (e != cudaSuccess) {
        krt_cu.GetLastError();
        return krt__error(KRT_ENODEVICE, "CUDA device unusable (cudaFree: "
                          "%s, %s)", krt_cu.GetErrorString(e),
                          krt_cu.GetErrorName(e));
    }
    return KRT_OK;
}

static int krt_cuda_alloc(void **ptr, size_t bytes)
{
    cudaError_t e = krt_cu.Malloc(ptr, bytes);

    if (e != cudaSuccess) {
        *ptr = NULL;
        return krt_cuda_fail(e, "cudaMalloc");
    }
    return KRT_OK;
}

static int krt_cuda_free(void *ptr)
{
    cudaError_t e = krt_cu.Free(ptr);

    return krt_cuda_check(e, "cudaFree");
}

/* cudaFree is the only way to give back cudaMalloc'd memory. */
static int krt_cuda_release(void *ptr)
{
    return krt_cuda_free(ptr);
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
        e = krt_cu.Memcpy(dst, src, bytes, kind);
        return krt_cuda_check(e, "cudaMemcpy");
    }
    e = krt_cu.MemcpyAsync(dst, src, bytes, kind, krt_cuda_stream(stream));
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

static int krt_cuda_copy_peer(void *dst, int dst_dev, const void *src,
                              int src_dev, size_t bytes, krt_stream *stream)
{
    cudaError_t e;

    if (stream == NULL) {
        e = krt_cu.MemcpyPeer(dst, dst_dev, src, src_dev, bytes);
        return krt_cuda_check(e, "cudaMemcpyPeer");
    }
    e = krt_cu.MemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes,
                               krt_cuda_stream(stream));
    return krt_cuda_check(e, "cudaMemcpyPeerAsync");
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static int krt_cuda_device_count(int *count)
{
    return krt_cuda_check(krt_cu.GetDeviceCount(count), "cudaGetDeviceCount");
}

/* One attribute of device dev into *out (left alone on failure: some
 * attributes are missing on some devices, and a property is not worth
 * failing the query for). */
static void krt_cuda_dev_attr(int *out, enum cudaDeviceAttr attr, int dev)
{
    int v = 0;

    if (krt_cu.DeviceGetAttribute(&v, attr, dev) == cudaSuccess)
        *out = v;
    else
        krt_cu.GetLastError();
}

static int krt_cuda_device_props(int dev, krt_device_props *p)
{
    struct cudaDeviceProp prop;
    int v, cur = 0;
    size_t free_b = 0, total_b = 0;
    cudaError_t e = krt_cu.GetDeviceProperties(&prop, dev);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaGetDeviceProperties");
    snprintf(p->name, sizeof p->name, "%s", prop.name);
    p->major = prop.major;
    p->minor = prop.minor;
    p->multiprocessor_count = prop.multiProcessorCount;
    p->total_memory = prop.totalGlobalMem;
    p->warp_size = prop.warpSize;
    p->max_threads_per_block = prop.maxThreadsPerBlock;
    for (v = 0; v < 3; v++) {
        p->max_block_dim[v] = prop.maxThreadsDim[v];
        p->max_grid_dim[v] = prop.maxGridSize[v];
    }
    p->shared_memory_per_block = prop.sharedMemPerBlock;
    p->shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    p->shared_memory_per_multiprocessor = prop.sharedMemPerMultiprocessor;
    p->max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
    p->registers_per_block = prop.regsPerBlock;
    p->l2_cache_bytes = (size_t)prop.l2CacheSize;
    p->pci_domain_id = prop.pciDomainID;
    p->pci_bus_id = prop.pciBusID;
    p->pci_device_id = prop.pciDeviceID;
    p->integrated = prop.integrated;
    p->can_map_host_memory = prop.canMapHostMemory;
    p->unified_addressing = prop.unifiedAddressing;
    p->concurrent_kernels = prop.concurrentKernels;
    p->async_engine_count = prop.asyncEngineCount;
    /* Fields CUDA 13 dropped from cudaDeviceProp are attributes. */
    krt_cuda_dev_attr(&p->clock_khz, cudaDevAttrClockRate, dev);
    krt_cuda_dev_attr(&p->cooperative_launch, cudaDevAttrCooperativeLaunch,
                      dev);
    /* Free memory is the current context's view: ask on dev. */
    if (krt_cu.GetDevice(&cur) == cudaSuccess &&
        krt_cu.SetDevice(dev) == cudaSuccess) {
        if (krt_cu.MemGetInfo(&free_b, &total_b) == cudaSuccess)
            p->free_memory = free_b;
        krt_cu.SetDevice(cur);
    }
    krt_cu.GetLastError();
    return KRT_OK;
}

static int krt_cuda_set_device(int dev)
{
    return krt_cuda_check(krt_cu.SetDevice(dev), "cudaSetDevice");
}

static int krt_cuda_can_access_peer(int *can, int dev, int peer)
{
    return krt_cuda_check(krt_cu.DeviceCanAccessPeer(can, dev, peer),
                          "cudaDeviceCanAccessPeer");
}

static int krt_cuda_enable_peer(int peer)
{
    cudaError_t e = krt_cu.DeviceEnablePeerAccess(peer, 0);

    if (e == cudaErrorPeerAccessAlreadyEnabled) {
        krt_cu.GetLastError();
        return KRT_OK;
    }
    return krt_cuda_check(e, "cudaDeviceEnablePeerAccess");
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
    e = krt_cu.FuncGetAttributes(&attr, k->cuda);
    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaFuncGetAttributes");
    *static_shared = attr.sharedSizeBytes;
    /* Registers may allow fewer than 1024 threads for this kernel. */
    *max_threads = attr.maxThreadsPerBlock > 0
                       ? (unsigned)attr.maxThreadsPerBlock
                       : KRT_MAX_BLOCK_THREADS;
    return KRT_OK;
}

/* debug=True (numba-cuda's launch: the __errcode__ global read after the
 * kernel): wait for the launch, read the file's krt_exception, and if a
 * thread raised, clear it and fail with numba-cuda's message. */
static int krt_cuda_exception(const krt_kernel *k, const krt_launch_cfg *cfg)
{
    krt_exception x;
    cudaError_t e = krt_cu.StreamSynchronize(krt_cuda_stream(cfg->stream));

    if (e == cudaSuccess)
        e = krt_cu.MemcpyFromSymbol(&x, k->cuda_exception, sizeof x, 0,
                                    cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return krt_cuda_check(e, "cudaMemcpyFromSymbol (debug=True exception)");
    if (!x.raised)
        return KRT_OK;
    int zero = 0;
    e = krt_cu.MemcpyToSymbol(k->cuda_exception, &zero, sizeof zero, 0,
                              cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        return krt_cuda_check(e, "cudaMemcpyToSymbol (debug=True exception)");
    x.cls[sizeof x.cls - 1] = x.fn[sizeof x.fn - 1] = '\0';
    x.file[sizeof x.file - 1] = x.msg[sizeof x.msg - 1] = '\0';
    return krt__error(KRT_EEXCEPTION,
                      "block (%u, %u, %u): %s: In function '%s', file %s, "
                      "line %d, tid=[%u, %u, %u] ctaid=[%u, %u, %u]%s%s",
                      x.ctaid[0], x.ctaid[1], x.ctaid[2], x.cls, x.fn,
                      x.file, x.line, x.tid[2], x.tid[1], x.tid[0], x.ctaid[2],
                      x.ctaid[1], x.ctaid[0], x.has_msg ? ": " : "",
                      x.has_msg ? x.msg : "");
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
            ? krt_cu.LaunchCooperativeKernel(k->cuda, grid, block, args,
                                          cfg->shared_bytes,
                                          krt_cuda_stream(cfg->stream))
            : krt_cu.LaunchKernel(k->cuda, grid, block, args, cfg->shared_bytes,
                               krt_cuda_stream(cfg->stream));
    if (e == cudaSuccess)
        e = krt_cu.GetLastError();
    int rc = krt_cuda_check(e, cooperative ? "cudaLaunchCooperativeKernel"
                                           : "cudaLaunchKernel");
    if (rc == KRT_OK && k->cuda_exception != NULL)
        rc = krt_cuda_exception(k, cfg);
    return rc;
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
    cudaError_t e = krt_cu.GetDevice(&dev);

    if (e == cudaSuccess)
        e = krt_cu.DeviceGetAttribute(out, attr, dev);
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
    e = krt_cu.FuncGetAttributes(&attr, k->cuda);
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
        e = krt_cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->cuda,
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
    e = krt_cu.OccupancyMaxActiveBlocksPerMultiprocessor(
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
    cudaError_t e = krt_cu.StreamCreate(&st);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaStreamCreate");
    s->impl = st;
    return KRT_OK;
}

/* kernrt.h promises the stream's work is done when this returns. */
static int krt_cuda_stream_destroy(krt_stream *s)
{
    cudaStream_t st = krt_cuda_stream(s);
    cudaError_t e = krt_cu.StreamSynchronize(st), e2 = krt_cu.StreamDestroy(st);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaStreamSynchronize");
    return krt_cuda_check(e2, "cudaStreamDestroy");
}

static int krt_cuda_stream_synchronize(krt_stream *s)
{
    cudaError_t e = krt_cu.StreamSynchronize(krt_cuda_stream(s));

    return krt_cuda_check(e, "cudaStreamSynchronize");
}

/* cudaErrorNotReady is not an error: clear it from cudaGetLastError. */
static int krt_cuda_ready(cudaError_t e, const char *call)
{
    if (e == cudaErrorNotReady) {
        krt_cu.GetLastError();
        return KRT_ENOTREADY;
    }
    return krt_cuda_check(e, call);
}

static int krt_cuda_stream_query(krt_stream *s)
{
    return krt_cuda_ready(krt_cu.StreamQuery(krt_cuda_stream(s)),
                          "cudaStreamQuery");
}

static int krt_cuda_stream_wait_event(krt_stream *s, krt_event *ev)
{
    cudaError_t e = krt_cu.StreamWaitEvent(krt_cuda_stream(s),
                                        (cudaEvent_t)ev->impl, 0);

    return krt_cuda_check(e, "cudaStreamWaitEvent");
}

/* cudaHostFn_t's signature is exactly void (*)(void *). */
static int krt_cuda_host_fn(krt_stream *s, void (*fn)(void *), void *arg)
{
    cudaError_t e;

    if (s == NULL) {
        e = krt_cu.StreamSynchronize((cudaStream_t)0);
        if (e != cudaSuccess)
            return krt_cuda_fail(e, "cudaStreamSynchronize");
        fn(arg);
        return KRT_OK;
    }
    e = krt_cu.LaunchHostFunc(krt_cuda_stream(s), fn, arg);
    return krt_cuda_check(e, "cudaLaunchHostFunc");
}

static int krt_cuda_event_create(krt_event *ev)
{
    cudaEvent_t h;
    cudaError_t e = krt_cu.EventCreate(&h);

    if (e != cudaSuccess)
        return krt_cuda_fail(e, "cudaEventCreate");
    ev->impl = h;
    return KRT_OK;
}

static int krt_cuda_event_destroy(krt_event *ev)
{
    cudaError_t e = krt_cu.EventDestroy((cudaEvent_t)ev->impl);

    return krt_cuda_check(e, "cudaEventDestroy");
}

static int krt_cuda_event_record(krt_event *ev, krt_stream *s)
{
    cudaError_t e = krt_cu.EventRecord((cudaEvent_t)ev->impl,
                                    krt_cuda_stream(s));

    return krt_cuda_check(e, "cudaEventRecord");
}

static int krt_cuda_event_synchronize(krt_event *ev)
{
    cudaError_t e = krt_cu.EventSynchronize((cudaEvent_t)ev->impl);

    return krt_cuda_check(e, "cudaEventSynchronize");
}

static int krt_cuda_event_query(krt_event *ev)
{
    return krt_cuda_ready(krt_cu.EventQuery((cudaEvent_t)ev->impl),
                          "cudaEventQuery");
}

static int krt_cuda_event_elapsed_ms(float *ms, krt_event *start,
                                     krt_event *end)
{
    return krt_cuda_ready(krt_cu.EventElapsedTime(ms, (cudaEvent_t)start->impl,
                                               (cudaEvent_t)end->impl),
                          "cudaEventElapsedTime");
}

/* ------------------------------------------------------------------ */
/* Pinned host memory                                                  */
/* ------------------------------------------------------------------ */

static int krt_cuda_host_alloc(void **p, size_t bytes)
{
    cudaError_t e = krt_cu.HostAlloc(p, bytes, cudaHostAllocDefault);

    if (e != cudaSuccess) {
        *p = NULL;
        return krt_cuda_fail(e, "cudaHostAlloc");
    }
    return KRT_OK;
}

/* Portable: every device may map it, as the header promises. */
static int krt_cuda_mapped_alloc(void **host, void **dev, size_t bytes)
{
    cudaError_t e = krt_cu.HostAlloc(host, bytes, cudaHostAllocMapped |
                                                      cudaHostAllocPortable);

    if (e != cudaSuccess) {
        *host = NULL;
        return krt_cuda_fail(e, "cudaHostAlloc");
    }
    e = krt_cu.HostGetDevicePointer(dev, *host, 0);
    if (e != cudaSuccess) {
        krt_cu.FreeHost(*host);
        *host = NULL;
        return krt_cuda_fail(e, "cudaHostGetDevicePointer");
    }
    return KRT_OK;
}

static int krt_cuda_host_free(void *p)
{
    cudaError_t e = krt_cu.FreeHost(p);

    return krt_cuda_check(e, "cudaFreeHost");
}

static int krt_cuda_host_register(void *p, size_t bytes)
{
    cudaError_t e = krt_cu.HostRegister(p, bytes, cudaHostRegisterDefault);

    return krt_cuda_check(e, "cudaHostRegister");
}

static int krt_cuda_host_unregister(void *p)
{
    cudaError_t e = krt_cu.HostUnregister(p);

    return krt_cuda_check(e, "cudaHostUnregister");
}

static int krt_cuda_synchronize(void)
{
    cudaError_t e = krt_cu.DeviceSynchronize();

    return krt_cuda_check(e, "cudaDeviceSynchronize");
}

const krt_backend krt__cuda_backend = {
    .name = "cuda",
    .id = KRT_BACKEND_CUDA,
    .host_visible = 0,
    .init = krt_cuda_init,
    .alloc = krt_cuda_alloc,
    .free = krt_cuda_free,
    .release = krt_cuda_release,
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
    .device_count = krt_cuda_device_count,
    .device_props = krt_cuda_device_props,
    .set_device = krt_cuda_set_device,
    .can_access_peer = krt_cuda_can_access_peer,
    .enable_peer = krt_cuda_enable_peer,
    .copy_peer = krt_cuda_copy_peer,
    .mapped_alloc = krt_cuda_mapped_alloc,
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
