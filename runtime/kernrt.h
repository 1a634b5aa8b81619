/*
 * kernrt.h - the public interface of libkernrt, the kernc runtime.
 *
 * A host program moves data to the device, launches kernels through the typed
 * launchers that kernc generates (FILE.kern.h), and copies results back.  Every
 * call returns a status (KRT_OK or a negative KRT_E* code); krt_strerror() and
 * krt_status_name() give static text for a code, krt_last_error() the detailed
 * message of the last failure on this thread.  The library never calls exit()
 * or abort() on user error.
 *
 * Two backends sit behind one interface: "cuda" (the CUDA runtime API, built
 * when configure finds the CUDA toolkit; libcudart is loaded with dlopen at
 * first use, so nothing here needs it installed) and "cpu" (always), chosen
 * at run time by KRT_BACKEND=cpu|cuda|auto (auto: cuda if libcudart loads
 * and a device is present, else cpu) or krt_set_backend() before the first
 * other call.
 *
 * The second half of this header ("for generated code") is the ABI between
 * kernc's output and the runtime: kernel descriptors, array views passed to
 * kernels, and the block context the CPU backend hands to a kernel.
 *
 * This header is valid C99 and C++ (nvcc compiles the generated .cu as C++);
 * <kernrt.hpp> is a small C++17 layer over it (RAII, exceptions).
 */
#ifndef KERNRT_H
#define KERNRT_H

#include <stddef.h>
#include <stdint.h>

#include <kernrt_types.h>
#include <kernrt_half.h>   /* krt_half: float16 as stored */
#include <kernrt_bfloat16.h>   /* krt_bfloat16: bfloat16 as stored */
#include <kernrt_complex.h>   /* krt_c64, krt_c128 */

#ifdef __cplusplus
#define KRT_EXTERN_C extern "C"
extern "C" {
#else
#define KRT_EXTERN_C
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/* X(NAME, message): KRT_E##NAME = -(position), KRT_OK = 0. */
#define KRT_STATUS_MAP(X)                                                    \
    X(INVAL, "invalid argument")                                             \
    X(NOMEM, "out of memory")                                                \
    X(NULLARRAY, "array is null or was freed")                               \
    X(DTYPE, "array has the wrong dtype")                                    \
    X(NDIM, "array has the wrong number of dimensions")                      \
    X(LAYOUT, "array is not C-contiguous")                                   \
    X(SHAPE, "array shapes do not match")                                    \
    X(LAUNCH, "invalid launch configuration")                                \
    X(BLOCKSIZE, "too many threads per block (at most 1024)")                \
    X(SHARED, "too much shared memory for one block")                        \
    X(NOBACKEND, "backend not available")                                    \
    X(NODEVICE, "no CUDA device")                                            \
    X(NOCODE, "kernel was not compiled for this backend")                    \
    X(CUDA, "CUDA error")                                                    \
    X(KERNEL, "error raised inside a kernel")                                \
    X(IO, "input/output error")                                              \
    X(BACKENDMIX, "array belongs to another backend")                        \
    X(INTERNAL, "internal error")                                            \
    X(NOTREADY, "work is still pending")                                     \
    X(COOPERATIVE, "grid too large for a cooperative launch")                \
    X(DEVICE, "array, stream or event belongs to another device")            \
    X(BOUNDS, "outside the buffer or array")                                 \
    /* dev (issue 9): raise / assert in a kernel compiled with debug=True */ \
    X(EXCEPTION, "exception raised in a kernel")

enum {
    KRT_OK = 0,
#define KRT_STATUS_ENUM_(name, msg) KRT_E##name##_INDEX_,
    KRT_STATUS_MAP(KRT_STATUS_ENUM_)
#undef KRT_STATUS_ENUM_
    KRT_STATUS_COUNT_
};
#define KRT_STATUS_CODE_(name, msg) KRT_E##name = -(int)KRT_E##name##_INDEX_,
enum { KRT_STATUS_MAP(KRT_STATUS_CODE_) KRT_STATUS_LAST_ = 0 };
#undef KRT_STATUS_CODE_

/* Static text for a status ("success", "array has the wrong dtype", ...). */
const char *krt_strerror(int status);
/* The enum spelling ("KRT_OK", "KRT_EDTYPE", ...). */
const char *krt_status_name(int status);
/* The detailed message of the last failing call on this thread (never NULL). */
const char *krt_last_error(void);

/* Return the status of an expression from the enclosing function on failure. */
#define KRT_TRY(expr)                                                        \
    do {                                                                     \
        int krt_try_status_ = (expr);                                        \
        if (krt_try_status_ != KRT_OK)                                       \
            return krt_try_status_;                                          \
    } while (0)

/* ------------------------------------------------------------------ */
/* Data types                                                          */
/* ------------------------------------------------------------------ */

/* The element types of arrays: the scalar types (kernrt_types.h) and
 * numba.cuda.random's generator state. */

/* One state of numba.cuda.random's generator (numba's xoroshiro128p_dtype,
 * {('s0', uint64), ('s1', uint64)}): the element type KRT_XOROSHIRO128P. */
typedef struct krt_xoroshiro128p_state {
    uint64_t s0, s1;
} krt_xoroshiro128p_state;

typedef enum krt_dtype {
#define KRT_DTYPE_ENUM_(e, code, ...) KRT_##e = code,
    KRT_SCALAR_TYPES(KRT_DTYPE_ENUM_)
#undef KRT_DTYPE_ENUM_
    KRT_XOROSHIRO128P = 11,              /* named KRT_XOROSHIRO128P_NAME */
    KRT_DTYPE_COUNT = KRT_NSCALAR + 1,   /* the codes are 0..KRT_DTYPE_COUNT-1 */
    KRT_DTYPE_RANGE_ = 0x7fffffff        /* rec: room for KRT_RECORD_DTYPE values */
} krt_dtype;

/* Records (NumPy structured dtypes, kernc's record.c): not rows of the
 * scalar table; the dtype of an array of records is KRT_RECORD_DTYPE(
 * itemsize), code 20 in the low byte and the record's size above it, so
 * that arrays of one record size share a dtype.  The launcher header
 * declares each record's struct (krt_rec_NAME) with NumPy's layout. */
#define KRT_RECORD 20
#define KRT_RECORD_DTYPE(itemsize) ((krt_dtype)(KRT_RECORD | ((int)(itemsize) << 8)))
#define KRT_DTYPE_IS_RECORD(t) (((int)(t) & 0xff) == KRT_RECORD && ((int)(t) >> 8) > 0)
#define KRT_RECORD_ITEMSIZE(t) ((size_t)((unsigned)(t) >> 8))

/* str: NumPy's fixed-width char sequences, numba's CharSeq ('S<n>': n
 * bytes) and UnicodeCharSeq ('<U<n>': n UCS4 code points, 4 bytes each),
 * likewise not rows of the scalar table: KRT_BYTES_DTYPE(n) and
 * KRT_STR_DTYPE(n) carry the count n above the code.  The launcher header
 * declares each width's struct: krt_S<n> {char c[n];} and krt_U<n>
 * {uint32_t c[n];} (NumPy's layout: no terminator, zero-padded). */
#define KRT_BYTES 21
#define KRT_STR 22
#define KRT_BYTES_DTYPE(n) ((krt_dtype)(KRT_BYTES | ((int)(n) << 8)))
#define KRT_STR_DTYPE(n) ((krt_dtype)(KRT_STR | ((int)(n) << 8)))
#define KRT_DTYPE_IS_CHARSEQ(t)                                              \
    ((((int)(t) & 0xff) == KRT_BYTES || ((int)(t) & 0xff) == KRT_STR) && ((int)(t) >> 8) > 0)
#define KRT_CHARSEQ_COUNT(t) ((size_t)((unsigned)(t) >> 8))
#define KRT_CHARSEQ_UNIT(t) (((int)(t) & 0xff) == KRT_STR ? 4u : 1u)

#define KRT_XOROSHIRO128P_NAME "xoroshiro128p"

/* X(ENUM, C storage type, size, NumPy descr) for every dtype: the scalar
 * rows in the table's order, then KRT_XOROSHIRO128P; index by KRT_<ENUM>,
 * not by position. */
#define KRT_DTYPE_MAP(X)                                                     \
    KRT_SCALAR_TABLE(KRT_DTYPE_ROW_, X)                                      \
    X(XOROSHIRO128P, krt_xoroshiro128p_state, 16, "|V16")
#define KRT_DTYPE_ROW_(X, e, code, numba, numpy, aliases, letters, descr, sfx, ctype, \
                       stype, size, ...)                                     \
    X(e, stype, size, descr)

size_t krt_dtype_size(krt_dtype t);            /* 0 for an invalid dtype */
const char *krt_dtype_name(krt_dtype t);       /* NumPy's name: float32, ... or "?" */

/* ------------------------------------------------------------------ */
/* Backends                                                            */
/* ------------------------------------------------------------------ */

/* Choose "cpu", "cuda" or "auto" before any other call; afterwards only the
 * backend already chosen is accepted.  Without it, KRT_BACKEND decides. */
int krt_set_backend(const char *name);
/* "cpu" or "cuda": initialises the backend if needed. */
const char *krt_backend_name(void);
/* Wait until all work on the device has finished. */
int krt_synchronize(void);

/* ------------------------------------------------------------------ */
/* Device arrays                                                       */
/* ------------------------------------------------------------------ */

#define KRT_MAX_NDIM 4

/* A shape argument written in place, valid in C and C++ alike:
 * krt_alloc(&a, KRT_FLOAT32, 2, KRT_SHAPE(rows, cols)).  In C it is the
 * compound literal (const int64_t[]){rows, cols}, which C++ lacks; in C++
 * a temporary that lives until the end of the full expression (the call),
 * each extent converted to int64_t. */
#ifdef __cplusplus
#define KRT_SHAPE(...) (::krt_detail::make_shape(__VA_ARGS__).extents)
#else
#define KRT_SHAPE(...) ((const int64_t[]){__VA_ARGS__})
#endif

typedef struct krt_stream krt_stream;     /* opaque; NULL is the default stream */

/* A handle to device memory, passed by value.  Every allocation made by
 * the library (krt_alloc, krt_to_device, krt_mapped_array, ...) has a
 * unique id that its handle and all views of it carry; krt_free retires
 * the id, so any later use of a copy of the handle, or of a view, is
 * refused with KRT_ENULLARRAY instead of touching freed memory, and a
 * second krt_free is refused too. */
typedef struct krt_array {
    void *data;                      /* device memory (host memory on cpu) */
    krt_dtype dtype;
    int ndim;
    int64_t shape[KRT_MAX_NDIM];
    int64_t strides[KRT_MAX_NDIM];   /* in bytes, as NumPy */
    unsigned flags;                  /* KRT_ARRAY_* */
    int backend;                     /* internal: which backend owns data */
    int device;                      /* the device the memory lives on */
    uint64_t id;                     /* internal: the allocation (0: none) */
} krt_array;

#define KRT_ARRAY_OWNED 1u            /* krt_free releases data */
#define KRT_ARRAY_MAPPED 4u           /* host memory mapped for the device */

/* Allocate an uninitialised C-contiguous array. */
int krt_alloc(krt_array *out, krt_dtype dtype, int ndim, const int64_t *shape);
/* Allocate and copy ndim/shape elements of C-contiguous host data. */
int krt_to_device(krt_array *out, const void *host, krt_dtype dtype, int ndim,
                  const int64_t *shape, krt_stream *stream);
/* Copy the whole array to host memory of a.nbytes (C order). */
int krt_copy_to_host(void *host, krt_array a, krt_stream *stream);
/* Release the memory an array owns, after waiting for the work queued on
 * every stream (as cudaFree).  A zeroed array (what a failed krt_alloc
 * leaves), a wrapper (krt_wrap) and a view (krt_array_slice/_view) own
 * nothing and are ignored.  Freeing an array a second time, through any
 * copy of its handle, is refused with KRT_ENULLARRAY: nothing is freed
 * twice.  Stream-ordered release: krt_free_async below. */
int krt_free(krt_array a);
/* Number of elements, and size in bytes of a C-contiguous copy. */
int64_t krt_array_size(const krt_array *a);
size_t krt_array_nbytes(const krt_array *a);
/* 1 if the array is C-contiguous. */
int krt_array_is_contiguous(const krt_array *a);
/* 1 if the array is Fortran-contiguous (NumPy's F_CONTIGUOUS: the first
 * index varies fastest; extents of 1 take any stride). */
int krt_array_is_fortran(const krt_array *a);

/* Copy C-contiguous host data of dst's size into the existing array dst,
 * which must be C-contiguous (KRT_ELAYOUT otherwise). */
int krt_copy_to_device(krt_array dst, const void *host, krt_stream *stream);
/* Device-to-device copy: same dtype (KRT_EDTYPE), same ndim and shape
 * (KRT_ESHAPE), both C-contiguous (KRT_ELAYOUT). */
int krt_copy_device(krt_array dst, krt_array src, krt_stream *stream);
/* A new uninitialised C-contiguous array of like's dtype and shape. */
int krt_device_array_like(krt_array *out, krt_array like);
/* Wrap device memory that someone else owns (zero copy; krt_free leaves it
 * alone): dtype, ndim and shape, and strides in bytes (NULL: C order).  On
 * the cpu backend device memory is host memory. */
int krt_wrap(krt_array *out, void *device_ptr, krt_dtype dtype, int ndim,
             const int64_t *shape, const int64_t *strides_or_null);
/* The device address of an array's first element (NULL for a zeroed one). */
void *krt_device_ptr(krt_array a);

/* A host scalar in place of an input array of a @vectorize/@guvectorize
 * host function (runtime/ufunc.c): out describes *value (flags
 * KRT_ARRAY_HOST_SCALAR, ndim 0); the value is read when the function is
 * called, so value must stay valid until then.  Nothing else accepts it. */
#define KRT_ARRAY_HOST_SCALAR 2u
int krt_host_scalar(krt_array *out, krt_dtype dtype, const void *value);

/* ------------------------------------------------------------------ */
/* Views of device arrays (numba's d[lo:hi], d[:, j], ...)             */
/* ------------------------------------------------------------------ */

/*
 * A view shares its array's memory: it is a krt_array with its own data
 * pointer, shape and strides, the same device, and the same allocation id,
 * so it is usable wherever an array is (copies, launches, reductions, ufunc
 * calls, further views) and dies with the array (a view used after its
 * array was freed is KRT_ENULLARRAY).  A view owns nothing: krt_free
 * ignores it.  A view of a library allocation must stay inside it
 * (KRT_EBOUNDS otherwise); one of a wrapper (krt_wrap) is not checked.
 */

/* Python's a[start:stop:step] along dimension dim, the other dimensions
 * whole: negative start and stop count from the end, both are clipped to
 * the extent, step may be negative but not 0.  KRT_SLICE_END as stop (or as
 * start with a negative step) means "to the end", as an omitted bound. */
#define KRT_SLICE_END INT64_MAX
int krt_array_slice(krt_array *out, krt_array a, int dim, int64_t start,
                    int64_t stop, int64_t step);
/* a[index] along dimension 0 of an array of ndim > 1: the sub-array of one
 * less dimension (numba's d[i] on a 2-D array); index may be negative. */
int krt_array_index(krt_array *out, krt_array a, int64_t index);
/* Any view: byte offset from a's first element, ndim, shape and strides in
 * bytes (NULL: C order of shape).  Every element must lie in a's
 * allocation. */
int krt_array_view(krt_array *out, krt_array a, int64_t offset_bytes,
                   int ndim, const int64_t *shape, const int64_t *strides);

/* ------------------------------------------------------------------ */
/* Stream-ordered release                                              */
/* ------------------------------------------------------------------ */

/* Free a's memory once the work queued on stream before this call has
 * finished, without waiting for it (numba's deallocation queue; CUDA's
 * cudaFreeAsync).  The handle is dead at once: later uses and a second
 * free are KRT_ENULLARRAY.  The memory itself is released by a later
 * runtime call (krt_free_async, krt_alloc, krt_to_device, krt_free,
 * krt_synchronize, krt_stream_synchronize, krt_stream_destroy) that finds
 * the stream past that point; krt_synchronize releases all of it.  On the
 * cuda backend the release is a cudaFree, which CUDA may synchronise.
 * stream NULL: the default stream, which is krt_free. */
int krt_free_async(krt_array a, krt_stream *stream);

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

/*
 * Devices are numbered 0..count-1 on the running backend.  Each host
 * thread has a current device (0 until krt_set_device, as cudaSetDevice):
 * arrays are allocated, streams and events created, and kernels launched
 * on it.  Arrays (krt_array.device), streams and events remember their
 * device.  A launch refuses arrays and streams of another device
 * (KRT_EDEVICE), except mapped arrays (krt_mapped_array), which every
 * device reaches, and arrays of a device whose memory the current one was
 * given access to (krt_device_enable_peer_access); copies to and from the host and krt_free act on the
 * array's own device, whatever the current one; krt_copy_device between
 * arrays of two devices is a peer copy.  A stream given with an array must
 * belong to the array's device (for a peer copy: to either device), and an
 * event is recorded on streams of its own device only.
 *
 * The cpu backend is one device, the host (KRT_CPU_DEVICES=N, 1..64,
 * makes it N devices that share the host's memory and threads, to test
 * multi-device programs without N GPUs).
 */

typedef struct krt_device_props {
    char name[256];                  /* "NVIDIA H100 80GB HBM3", the CPU model */
    int device;                      /* its number */
    int is_cpu;                      /* 1 on the cpu backend */
    int major, minor;                /* compute capability; cpu: 0.0 */
    int multiprocessor_count;        /* SMs; cpu: threads running blocks */
    size_t total_memory;             /* bytes; cpu: physical memory */
    size_t free_memory;              /* bytes; cpu: available memory */
    int warp_size;                   /* 32 */
    int max_threads_per_block;       /* 1024 */
    int max_block_dim[3];
    int max_grid_dim[3];
    size_t shared_memory_per_block;  /* without opt-in (48 KiB) */
    size_t shared_memory_per_block_optin;
    size_t shared_memory_per_multiprocessor;
    int max_threads_per_multiprocessor;
    int registers_per_block;
    size_t l2_cache_bytes;
    int clock_khz;                   /* cpu: 0 (unknown) */
    int pci_domain_id, pci_bus_id, pci_device_id;   /* cpu: 0 */
    int integrated;                  /* memory shared with the host */
    int can_map_host_memory;
    int unified_addressing;
    int concurrent_kernels;
    int async_engine_count;
    int cooperative_launch;
} krt_device_props;

/* 1 if the cuda backend can run here (libcudart loads and a device is
 * present; numba's cuda.is_available()), else 0.  Does not choose the
 * backend. */
int krt_is_available(void);
/* Devices of the running backend (1 on the cpu backend). */
int krt_device_count(int *count);
/* Properties of device dev (KRT_EINVAL for a number out of range). */
int krt_get_device_props(krt_device_props *out, int dev);
/* This host thread's current device. */
int krt_set_device(int dev);
int krt_get_device(int *dev);
/* The device a stream belongs to (NULL: the current device's default
 * stream). */
int krt_stream_device(int *dev, krt_stream *s);
/* Whether device dev can read and write peer's memory in kernels, and
 * enabling that for the current device (cudaDeviceEnablePeerAccess; on the
 * cpu backend every device can): afterwards its launches take peer's
 * arrays (process-wide, as CUDA's).  Peer copies (krt_copy_device) work
 * without it. */
int krt_device_can_access_peer(int *can, int dev, int peer);
int krt_device_enable_peer_access(int peer);

/* ------------------------------------------------------------------ */
/* Mapped (zero-copy) host memory                                      */
/* ------------------------------------------------------------------ */

/* numba's cuda.mapped_array: a C-contiguous array in pinned host memory
 * that kernels on every device read and write directly over the bus
 * (cudaHostAlloc with cudaHostAllocMapped | cudaHostAllocPortable).
 * *host gets the host address of the same bytes (on the cpu backend it is
 * data itself).  The host sees what a kernel wrote once the kernel is
 * known to have finished (a synchronize).  krt_free releases it. */
int krt_mapped_array(krt_array *out, void **host, krt_dtype dtype, int ndim,
                     const int64_t *shape);

/* ------------------------------------------------------------------ */
/* Pinned host memory and deferred cleanup                             */
/* ------------------------------------------------------------------ */

/* Page-locked host memory (cudaHostAlloc; 64-byte-aligned memory on the
 * cpu backend), freed with krt_host_free. */
int krt_host_alloc(void **p, size_t bytes);
int krt_host_free(void *p);
/* Page-lock an existing buffer (cudaHostRegister) until unregistered.  Both
 * backends keep the list of registered pointers: registering one twice or
 * unregistering one that is not registered is KRT_EINVAL.
 *
 * The runtime knows the size of every pinned buffer: a copy to or from
 * host memory that starts inside one (krt_copy_to_host, krt_to_device,
 * krt_copy_to_device) and would run past its end is refused with
 * KRT_EBOUNDS before any byte moves. */
int krt_host_register(void *p, size_t bytes);
int krt_host_unregister(void *p);

/* numba's cuda.defer_cleanup(): between krt_defer_begin and the matching
 * krt_defer_end, krt_free of device memory only queues it; the memory is
 * released when the outermost section ends (sections nest, process-wide). */
int krt_defer_begin(void);
int krt_defer_end(void);

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */

/*
 * A stream is a queue of work (copies, launches, event records and waits)
 * that runs in order, asynchronously to the host.  Work on different streams
 * may run in any order relative to each other unless an event orders it.
 *
 * The default stream (NULL) is CUDA's legacy default stream: an operation on
 * it starts only after all work queued earlier on every stream has finished,
 * and work queued later on any stream starts after it.  Copies on the
 * default stream block the host until they are done (cudaMemcpy).  A launch
 * on the default stream returns once it is queued on the cuda backend (its
 * errors come from the next synchronising call), once it has finished on
 * the cpu backend (its errors come from krt_launch itself).
 *
 * On a stream, a copy reads or writes the host buffer when it runs, so the
 * buffer must stay valid until then (pinned or not, as in CUDA); a launch
 * copies its argument values when queued.  An error raised by queued work
 * (a failing kernel) is returned, once, by the next krt_stream_synchronize
 * of that stream or krt_synchronize; krt_synchronize waits for every stream.
 *
 * Handles are checked against the live ones: a handle that was destroyed or
 * never created is KRT_EINVAL (unless its memory was reused by a new one).
 * krt_stream_destroy waits for the stream's work; krt_event_destroy may be
 * called while a record is pending.  krt_free waits for work queued on all
 * streams first (cudaFree synchronises too); krt_free_async does not.
 */
typedef struct krt_event krt_event;

int krt_stream_create(krt_stream **s);
int krt_stream_destroy(krt_stream *s);
int krt_stream_synchronize(krt_stream *s);
/* KRT_OK when all its work is done, KRT_ENOTREADY while some is pending. */
int krt_stream_query(krt_stream *s);
/* Later work on s waits until the last record of e queued before this call
 * has completed (nothing to wait for if e was never recorded). */
int krt_stream_wait_event(krt_stream *s, krt_event *e);

int krt_event_create(krt_event **e);
int krt_event_destroy(krt_event *e);
/* Completes when the work queued on s before it has finished. */
int krt_event_record(krt_event *e, krt_stream *s);
int krt_event_synchronize(krt_event *e);
/* KRT_OK when its last record completed (or it was never recorded),
 * KRT_ENOTREADY while that record is pending. */
int krt_event_query(krt_event *e);
/* Milliseconds between two completed records: KRT_ENOTREADY if either is
 * pending, KRT_EINVAL if either was never recorded. */
int krt_event_elapsed_ms(float *ms, krt_event *start, krt_event *end);

/* ------------------------------------------------------------------ */
/* Launch configuration                                                */
/* ------------------------------------------------------------------ */

typedef struct krt_dim3 {
    unsigned x, y, z;
} krt_dim3;

typedef struct krt_launch_cfg {
    krt_dim3 grid;
    krt_dim3 block;
    size_t shared_bytes;             /* dynamic shared memory */
    krt_stream *stream;
} krt_launch_cfg;

krt_launch_cfg krt_grid1(unsigned grid, unsigned block);
krt_launch_cfg krt_grid2(unsigned gx, unsigned gy, unsigned bx, unsigned by);
krt_launch_cfg krt_grid3(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz);
/* cfg with dynamic shared memory of the given size. */
krt_launch_cfg krt_with_shared(krt_launch_cfg cfg, size_t bytes);

typedef struct krt_kernel krt_kernel;
/* numba's kernel.forall(n): a 1-D configuration with at least n threads,
 * the block size chosen by occupancy on the cuda backend (as
 * cudaOccupancyMaxPotentialBlockSize), 256 (or n rounded up to a warp when
 * smaller) on the cpu backend.  n <= 0 is KRT_EINVAL. */
int krt_forall(krt_launch_cfg *out, const krt_kernel *k, int64_t n);

/* Cooperative launches (cuda.cg.this_grid().sync()): the most blocks of this
 * shape that can be resident at once (cuda: occupancy per SM times the SM
 * count; cpu: 65535 blocks, fewer if their shared and frame memory would
 * exceed 1 GiB), and the launch, which refuses a larger grid with
 * KRT_ECOOPERATIVE. */
int krt_max_cooperative_grid(unsigned *blocks, const krt_kernel *k,
                             krt_dim3 block, size_t shared_bytes);
int krt_launch_cooperative(const krt_kernel *k, krt_launch_cfg cfg,
                           void **args);

/* ------------------------------------------------------------------ */
/* Random numbers (numba.cuda.random)                                  */
/* ------------------------------------------------------------------ */

/* numba's create_xoroshiro128p_states(n, seed, subsequence_start, stream):
 * a new 1-D array of n KRT_XOROSHIRO128P states, state 0 seeded by one
 * SplitMix64 step of seed and jumped subsequence_start times by 2^64 steps,
 * state i the state i-1 jumped once more; bit-identical to numba's.  The
 * device-side draws are in <kernrt_random.h>. */
int krt_create_xoroshiro128p_states(krt_array *out, int64_t n, uint64_t seed,
                                    uint64_t subsequence_start,
                                    krt_stream *stream);

/* ================================================================== */
/* For generated code                                                 */
/* ================================================================== */

/* An array as a kernel sees it: passed by value to CUDA and CPU kernels. */
typedef struct krt_view {
    char *data;
    int64_t shape[KRT_MAX_NDIM];
    int64_t strides[KRT_MAX_NDIM];   /* bytes */
} krt_view;

enum krt_param_kind {
    KRT_PARAM_SCALAR,
    KRT_PARAM_ARRAY,
    KRT_PARAM_TUPLE,                 /* a tuple: the generated krt_tup_* struct */
    KRT_PARAM_RECORD                 /* rec: a record scalar, by reference as numba
                                        passes it: an array of one record (ndim 0,
                                        or 1 of extent 1); the kernel gets its
                                        device address */
};

typedef struct krt_param {
    const char *name;                /* the .kern parameter name */
    int kind;                        /* krt_param_kind */
    krt_dtype dtype;                 /* scalar type or array element type */
    int ndim;                        /* arrays; tuples: the bytes of the struct */
    int contiguous;                  /* arrays: 1 if the signature says [::1]
                                        on the last dimension (layout C), 2
                                        on the first ([::1, :]: layout F) */
} krt_param;

/* The block context the CPU backend hands to a kernel's CPU function, which
 * runs every thread of one block (see kernc's emitter for how barriers are
 * honoured). */
typedef struct krt_cpu_block {
    krt_dim3 block_idx;
    krt_dim3 block_dim;
    krt_dim3 grid_dim;
    char *shared;                    /* kernel->shared_bytes, 64-byte aligned */
    char *dyn_shared;                /* cfg.shared_bytes, 64-byte aligned */
    size_t dyn_shared_bytes;
    char *frame;                     /* kernel->frame_bytes * threads, aligned */
    int *error;                      /* a kernel sets *error = KRT_E... */
    /* Cooperative kernels (krt_kernel.cooperative): the CPU function returns
     * at each grid sync and is called again once every block of the grid
     * has reached it.  In: 0 to start the block, k > 0 to resume after grid
     * sync k; out: the k of the grid sync the block stopped at, 0 once it
     * has finished.  The block's shared memory and frames stay alive from
     * one call to the next.  Other kernels never touch it. */
    int *resume;
    /* issue 10 (cpu): blocks block_idx.x .. block_idx.x + nbx - 1 (same y
     * and z) are this worker's next ones; a function that ran them all (a
     * grid-stride loop over several blocks: the kernel's threads inside,
     * memory in order) sets *ndone = nbx, others leave it at 1.  nbx 0 or
     * 1: the one block.  Never for cooperative kernels. */
    unsigned nbx;
    unsigned *ndone;
} krt_cpu_block;

typedef void (*krt_cpu_fn)(const krt_cpu_block *block, void **args);

struct krt_kernel {
    const char *name;                /* the .kern kernel name */
    const char *file;                /* the .kern file it came from */
    int nparams;
    const krt_param *params;
    krt_cpu_fn cpu;                  /* NULL: not compiled for the CPU */
    const void *cuda;                /* __global__ function; NULL in C output */
    size_t shared_bytes;             /* static shared memory of the CPU code */
    size_t frame_bytes;              /* per-thread state of the CPU code */
    int cooperative;                 /* 1: has a grid sync; krt_launch launches
                                        it as krt_launch_cooperative does */
    void *cuda_exception;            /* debug=True: the file's __device__
                                        krt_exception (its host symbol), read
                                        after each launch; NULL otherwise */
};

/* debug=True on the cuda backend (numba-cuda's __errcode__, tid and ctaid
 * globals): the first `raise` or failed `assert` of a launch, written by
 * the raising thread (which then ends, as numba's kernel returns), read
 * and cleared by the runtime after the launch, which fails with
 * KRT_EEXCEPTION and numba-cuda's message.  One per .kern file; two debug
 * launches of one file in flight on different streams at once share it. */
typedef struct krt_exception {
    int raised;
    int line;
    int has_msg;
    unsigned tid[3], ctaid[3];       /* x, y, z */
    char cls[64];
    char fn[128];
    char file[256];
    char msg[512];
} krt_exception;

/* issue 11: whether a launch may take a kernel's 32-bit variant (kernc's
 * NAME__i32, descriptor NAME__kernel_i32: the same results, index
 * arithmetic in 32 bits; the typed launcher NAME__launch asks): KRT_I32=0
 * is not set in the environment, grid.x * block.x <= 2^30, grid.x <= 2^24,
 * and every array argument of k has each extent < 2^30 and each byte
 * stride in [-(2^31 - 1), 2^31 - 1].  args as for krt_launch. */
int krt_launch_fits32(const krt_kernel *k, const krt_launch_cfg *cfg, void **args);

/* Every kernel of one .kern file: the symbol krt_module_<base> in the
 * generated code, where <base> is the file's base name without its
 * directory and without the ".kern" suffix (saxpy.kern: krt_module_saxpy);
 * a base name that is not an identifier gets every character that is not
 * [A-Za-z0-9_] replaced by '_' and 8 hex digits of a hash of the name after
 * it (my-kern.kern: krt_module_my_kern_XXXXXXXX), apart from my_kern.kern's. */
typedef struct krt_module {
    const char *file;
    int nkernels;
    const krt_kernel *const *kernels;
} krt_module;

/* Check one argument against its parameter; fills the view.  The status names
 * the parameter in krt_last_error(). */
int krt_check_array(const krt_kernel *k, int param, const krt_array *a,
                    krt_view *out);
/* Launch: args[i] points to the value of parameter i (a krt_view for arrays,
 * the scalar's C type otherwise).  Checks the configuration first. */
int krt_launch(const krt_kernel *k, krt_launch_cfg cfg, void **args);

/* For a kernel's CPU code: fail the launch with status (a KRT_E* code;
 * anything else counts as KRT_EKERNEL) and a message that krt_last_error()
 * will show after krt_launch returns, with the kernel and the block index in
 * front.  Sets *block->error; the first failing block of a launch wins and no
 * further blocks start.  Returns the status recorded. */
int krt_cpu_fail(const krt_cpu_block *block, int status, const char *message);

/* ---- issue 13 (hard): the CPU backend's synchronisation checks -------
 * (runtime/cpucheck.c), called by the CPU code of kernels translated with
 * kernc -g.  krt_cpu_barrier: at a barrier `what` at file:line, the block's
 * threads' states (state[t], every `stride` bytes: 0 running, -1 returned,
 * else waiting elsewhere) and missed-barrier marks (missed[t], a line, 0
 * none); fails the launch when a thread that missed a barrier reaches
 * another one or has exited (what NULL: the end of the kernel).  Returns
 * the block's status. */
int krt_cpu_barrier(const krt_cpu_block *b, int *state, int *missed, size_t stride,
                    const char *file, int line, const char *what);
/* kernc -g --racecheck: krt_rc_begin at the start of a block's CPU
 * function (static_bytes: its shared struct), krt_rc_sync at each barrier,
 * krt_rc_syncwarp at each syncwarp, krt_rc_access at each checked access
 * (kind: KRT_RC_*; array: its name or NULL); a race fails the launch. */
#define KRT_RC_READ 0
#define KRT_RC_WRITE 1
#define KRT_RC_ATOMIC 2
int krt_rc_begin(const krt_cpu_block *b, size_t static_bytes);
void krt_rc_sync(const krt_cpu_block *b);
void krt_rc_syncwarp(const krt_cpu_block *b);
void krt_rc_access(const krt_cpu_block *b, const void *p, size_t size, int kind,
                   krt_dim3 tid, const char *array, const char *file, int line);

/* ---- @vectorize, @guvectorize, cuda.reduce (runtime/ufunc.c, reduce.c) ----
 * kernc makes one kernel and one typed host function per signature (per
 * element type for cuda.reduce); the host function hands its arguments
 * and the static description below to krt_ufunc_call / krt_reduce_call.
 *
 * The kernel of a (gu)vectorize signature takes, for each operand in
 * order, a view of nloop + view_ndim dimensions (the loop dimensions,
 * broadcast with stride 0 and padded in front with length-1 ones, then the
 * core dimensions), followed by the operand's scalar when scalar_ok; then
 * an int64 mask (bit i: operand i is a host scalar) and the int64 number
 * of loop iterations, one thread each.  A reduce kernel takes numba's
 * (arr, partials, init, use_init). */
enum krt_ufunc_kind {
    KRT_UFUNC_VECTORIZE,
    KRT_UFUNC_GUVECTORIZE,
    KRT_UFUNC_REDUCE
};

typedef struct krt_ufunc_operand {
    const char *name;                /* the .kern parameter ("out": vectorize's result) */
    krt_dtype dtype;
    int is_output;
    int scalar_ok;                   /* a krt_host_scalar may stand for it */
    int core_ndim;                   /* dimensions in the layout: (m,n) -> 2 */
    int view_ndim;                   /* the kernel's core dimensions (1 for a `()` array) */
    int core_dims[KRT_MAX_NDIM];     /* layout symbol of each core dimension */
} krt_ufunc_operand;

typedef struct krt_ufunc {
    const char *name;                /* the .kern function */
    const char *host_name;           /* its host function for this signature */
    const char *signature;           /* "float32(float32, float32)", for messages */
    int kind;                        /* krt_ufunc_kind */
    const krt_kernel *kernel;
    int nloop;                       /* loop dimensions of the kernel's views */
    int nin, nout;
    const krt_ufunc_operand *operands;   /* nin inputs, then nout outputs */
    int nsymbols;
    const char *const *symbols;      /* the layout's dimension names */
} krt_ufunc;

/* Every host function of one .kern file: krt_ufuncs_<base> in the
 * generated code (<base> as for krt_module_<base>). */
typedef struct krt_ufunc_module {
    const char *file;
    int nufuncs;
    const krt_ufunc *const *ufuncs;
} krt_ufunc_module;

/* Check every array (dtype, dimensions, backend), broadcast the loop
 * dimensions by NumPy's rules, check the core dimensions against the
 * layout, and launch one thread per loop iteration on stream.  arrays[i]
 * is operand i (nin + nout of them). */
int krt_ufunc_call(const krt_ufunc *u, const krt_array *const *arrays,
                   krt_stream *stream);
/* numba's cuda.reduce: reduce the 1-D array in with numba's association
 * order; init points to a value of the element type; the result goes to
 * *result (host, may be NULL) and to the first element of *device_result
 * (may be NULL; no copy to the host). */
int krt_reduce_call(const krt_ufunc *u, krt_array in, const void *init,
                    void *result, krt_array *device_result, krt_stream *stream);

#ifdef __cplusplus
}

/* KRT_SHAPE's C++ half (outside extern "C": it is a template). */
namespace krt_detail {
struct shape_arg {
    int64_t extents[KRT_MAX_NDIM];
};
template <class... T> inline shape_arg make_shape(T... n)
{
    static_assert(sizeof...(T) >= 1 && sizeof...(T) <= KRT_MAX_NDIM,
                  "KRT_SHAPE takes 1 to KRT_MAX_NDIM extents");
    return shape_arg{{static_cast<int64_t>(n)...}};
}
} // namespace krt_detail
#endif
#endif /* KERNRT_H */
