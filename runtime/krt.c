/*
 * krt.c - the front of libkernrt: status text, the per-thread error message,
 * dtypes, device arrays, launch configurations, backend selection, and the
 * checks that run before a kernel does.
 *
 * Everything a user can get wrong is checked here, once, for both backends,
 * so the CPU and CUDA backends report the same statuses with the same
 * messages; the backend (backend.h) only allocates, copies and launches.  The
 * backend is chosen on first use (KRT_BACKEND, or krt_set_backend earlier)
 * and never changes afterwards, because arrays already allocated belong to it.
 * A failed choice (a bad KRT_BACKEND, cuda without a device) is remembered:
 * every later call returns the same status and message, until
 * krt_set_backend picks a backend that works.
 *
 * Handles (streams, events) and pinned host memory are bookkept here too:
 * registries of the live ones let both backends refuse a destroyed stream
 * or an unregistered pointer with the same status, before the backend sees
 * it.  Deferred cleanup (krt_defer_begin/end) is a queue of allocations
 * that krt_free fills while a section is open.
 *
 * Arrays are values, so every allocation gets an id that is never reused
 * and a record in a registry (base, size, device): a handle, or a view of
 * it, whose id is no longer there was freed, and is refused with
 * KRT_ENULLARRAY wherever it is used, including a second krt_free; a view
 * must lie inside its allocation.  krt_free_async parks an allocation with
 * an event recorded on the stream and releases it from later calls once
 * the event has completed (krt_reap).  The current device is per host
 * thread (krt_cur_dev); calls that act on an array switch to its device
 * for the backend call and back (krt_enter_device / krt_leave_device).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "backend.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Status text and the per-thread message                              */
/* ------------------------------------------------------------------ */

static const char *const krt_status_names[KRT_STATUS_COUNT_] = {
    "KRT_OK",
#define KRT_STATUS_NAME_(name, msg) "KRT_E" #name,
    KRT_STATUS_MAP(KRT_STATUS_NAME_)
#undef KRT_STATUS_NAME_
};

static const char *const krt_status_text[KRT_STATUS_COUNT_] = {
    "success",
#define KRT_STATUS_TEXT_(name, msg) msg,
    KRT_STATUS_MAP(KRT_STATUS_TEXT_)
#undef KRT_STATUS_TEXT_
};

const char *krt_strerror(int status)
{
    if (status > 0 || status <= -KRT_STATUS_COUNT_)
        return "unknown status";
    return krt_status_text[-status];
}

const char *krt_status_name(int status)
{
    if (status > 0 || status <= -KRT_STATUS_COUNT_)
        return "KRT_E?";
    return krt_status_names[-status];
}

#define KRT_MSG_MAX 1024

static _Thread_local char krt_msg[KRT_MSG_MAX] = "no error";

const char *krt_last_error(void)
{
    return krt_msg;
}

const char *krt__message(void)
{
    return krt_msg;
}

int krt__verror(int status, const char *fmt, va_list args)
{
    /* Format aside first: callers may pass krt__message() as an argument. */
    char buf[KRT_MSG_MAX];

    vsnprintf(buf, sizeof buf, fmt, args);
    memcpy(krt_msg, buf, sizeof buf);
    return status;
}

int krt__error(int status, const char *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    krt__verror(status, fmt, args);
    va_end(args);
    return status;
}

/* ------------------------------------------------------------------ */
/* Dtypes                                                              */
/* ------------------------------------------------------------------ */

/* Indexed by code: a code past KRT_DTYPE_COUNT does not compile, two rows
 * with one code trip -Woverride-init (-Wextra). */
static const size_t krt_dtype_sizes[KRT_DTYPE_COUNT] = {
#define KRT_DTYPE_SIZE_(e, stype, size, descr) [KRT_##e] = size,
    KRT_DTYPE_MAP(KRT_DTYPE_SIZE_)
#undef KRT_DTYPE_SIZE_
};

static const char *const krt_dtype_names[KRT_DTYPE_COUNT] = {
#define KRT_DTYPE_NAME_(e, code, numba, numpy, ...) [KRT_##e] = numpy,
    KRT_SCALAR_TYPES(KRT_DTYPE_NAME_)
#undef KRT_DTYPE_NAME_
    [KRT_XOROSHIRO128P] = KRT_XOROSHIRO128P_NAME,
};

static int krt_dtype_valid(krt_dtype t)
{
    if (KRT_DTYPE_IS_RECORD(t) || KRT_DTYPE_IS_CHARSEQ(t))   /* rec, str */
        return 1;
    /* a code no row has yet (KRT_DTYPE_COUNT leaves room) has size 0 */
    return (int)t >= 0 && (int)t < KRT_DTYPE_COUNT && krt_dtype_sizes[t] != 0;
}

size_t krt_dtype_size(krt_dtype t)
{
    if (KRT_DTYPE_IS_RECORD(t))   /* rec */
        return KRT_RECORD_ITEMSIZE(t);
    if (KRT_DTYPE_IS_CHARSEQ(t))   /* str: n units of 1 or 4 bytes */
        return KRT_CHARSEQ_COUNT(t) * KRT_CHARSEQ_UNIT(t);
    return krt_dtype_valid(t) ? krt_dtype_sizes[t] : 0;
}

const char *krt_dtype_name(krt_dtype t)
{
    if (KRT_DTYPE_IS_RECORD(t))   /* rec */
        return "record";
    if (KRT_DTYPE_IS_CHARSEQ(t))   /* str: NumPy's kinds */
        return ((int)t & 0xff) == KRT_STR ? "str" : "bytes";
    return krt_dtype_valid(t) ? krt_dtype_names[t] : "?";
}

/* ------------------------------------------------------------------ */
/* Backend selection                                                   */
/* ------------------------------------------------------------------ */

/* The backends by name; "auto" is handled apart. */
#ifdef KRT_HAVE_CUDA
#define KRT_CUDA_BACKEND (&krt__cuda_backend)
#else
#define KRT_CUDA_BACKEND NULL
#endif

static pthread_mutex_t krt_select_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set once a backend is initialised; read without the lock afterwards. */
static const krt_backend *_Atomic krt_active;
/* A failed choice: its status and message, replayed by every call. */
static int krt_failed_status;
static char krt_failed_msg[KRT_MSG_MAX];
/* The running backend's device count, known once it is active. */
static int krt_ndev = 1;

/* Make b, just initialised, the running backend. */
static int krt_activate(const krt_backend *b)
{
    int n = 0, status = b->device_count(&n);

    if (status != KRT_OK)
        return status;
    if (n < 1)
        return krt__error(KRT_ENODEVICE, "backend '%s' reports no device",
                          b->name);
    krt_ndev = n;
    atomic_store_explicit(&krt_active, b, memory_order_release);
    return KRT_OK;
}

/* Initialise the backend called name; "from" says who asked, for messages.
 * Called with krt_select_lock held.  On failure the message is set. */
static int krt_select(const char *name, const char *from)
{
    const krt_backend *cuda = KRT_CUDA_BACKEND;
    int status;

    if (strcmp(name, "cpu") == 0) {
        status = krt__cpu_backend.init();
        if (status == KRT_OK)
            status = krt_activate(&krt__cpu_backend);
        return status;
    }
    if (strcmp(name, "cuda") == 0) {
        if (cuda == NULL)
            return krt__error(KRT_ENOBACKEND,
                              "backend 'cuda' (%s): libkernrt was built "
                              "without CUDA support",
                              from);
        status = cuda->init();
        if (status == KRT_OK)
            status = krt_activate(cuda);
        if (status != KRT_OK)
            return krt__error(status, "backend 'cuda' (%s): %s", from,
                              krt__message());
        return KRT_OK;
    }
    if (strcmp(name, "auto") == 0) {
        /* A machine without a usable GPU (or without libcudart) runs on
         * the CPU: not an error. */
        if (cuda != NULL && cuda->init() == KRT_OK &&
            krt_activate(cuda) == KRT_OK)
            return KRT_OK;
        return krt_select("cpu", from);
    }
    return krt__error(KRT_EINVAL,
                      "backend '%s' (%s): unknown backend; expected cpu, "
                      "cuda or auto",
                      name, from);
}

/* A backend call failed: put the public function's name in front. */
static int krt_backend_failed(int status, const char *who)
{
    return krt__error(status, "%s: %s", who, krt__message());
}

/* A backend call's status as the public function returns it: KRT_OK, or
 * the failure with the function's name in front. */
static int krt_backend_result(int status, const char *who)
{
    return status == KRT_OK ? KRT_OK : krt_backend_failed(status, who);
}

/* The running backend, choosing it on first use.  who prefixes messages. */
static int krt_backend_get(const krt_backend **out, const char *who)
{
    const krt_backend *b;
    const char *env;
    int status;

    b = atomic_load_explicit(&krt_active, memory_order_acquire);
    if (b != NULL) {
        *out = b;
        return KRT_OK;
    }
    pthread_mutex_lock(&krt_select_lock);
    b = atomic_load_explicit(&krt_active, memory_order_relaxed);
    status = KRT_OK;
    if (b == NULL && krt_failed_status == KRT_OK) {
        env = getenv("KRT_BACKEND");
        status = krt_select(env != NULL && *env != '\0' ? env : "auto",
                            env != NULL && *env != '\0' ? "from KRT_BACKEND"
                                                        : "default");
        if (status != KRT_OK) {
            krt_failed_status = status;
            snprintf(krt_failed_msg, sizeof krt_failed_msg, "%s",
                     krt__message());
        }
        b = atomic_load_explicit(&krt_active, memory_order_relaxed);
    }
    if (b == NULL) {
        status = krt__error(krt_failed_status, "%s: %s", who, krt_failed_msg);
    }
    pthread_mutex_unlock(&krt_select_lock);
    *out = b;
    return status;
}

int krt_set_backend(const char *name)
{
    const krt_backend *b;
    int status;

    if (name == NULL)
        return krt__error(KRT_EINVAL, "krt_set_backend: name is NULL");
    if (strcmp(name, "cpu") != 0 && strcmp(name, "cuda") != 0 &&
        strcmp(name, "auto") != 0)
        return krt__error(KRT_EINVAL,
                          "krt_set_backend: unknown backend '%s'; expected "
                          "cpu, cuda or auto",
                          name);
    pthread_mutex_lock(&krt_select_lock);
    b = atomic_load_explicit(&krt_active, memory_order_relaxed);
    if (b != NULL) {
        /* Arrays may already live on it: only the same backend is fine. */
        status = strcmp(name, "auto") == 0 || strcmp(name, b->name) == 0
                     ? KRT_OK
                     : krt__error(KRT_EINVAL,
                                  "krt_set_backend: backend '%s' is already "
                                  "in use; choose '%s' before any other call",
                                  b->name, name);
    } else {
        status = krt_select(name, "from krt_set_backend");
        if (status != KRT_OK) {
            krt_failed_status = status;
            snprintf(krt_failed_msg, sizeof krt_failed_msg, "%s",
                     krt__message());
            krt__error(status, "krt_set_backend: %s", krt_failed_msg);
        } else {
            krt_failed_status = KRT_OK;
        }
    }
    pthread_mutex_unlock(&krt_select_lock);
    return status;
}

const char *krt_backend_name(void)
{
    const krt_backend *b;

    if (krt_backend_get(&b, "krt_backend_name") != KRT_OK)
        return "none";
    return b->name;
}

int krt_is_available(void)
{
    const krt_backend *cuda = KRT_CUDA_BACKEND;
    static int available = -1;       /* under krt_select_lock */
    char saved[KRT_MSG_MAX];
    int result;

    if (cuda == NULL)
        return 0;
    if (atomic_load_explicit(&krt_active, memory_order_acquire) == cuda)
        return 1;
    /* A probe, not a call that fails: the thread's message stays. */
    memcpy(saved, krt_msg, sizeof saved);
    pthread_mutex_lock(&krt_select_lock);
    if (available < 0)
        available = cuda->init() == KRT_OK;
    result = available;
    pthread_mutex_unlock(&krt_select_lock);
    memcpy(krt_msg, saved, sizeof saved);
    return result;
}

static void krt_reap(const krt_backend *b, int all);

int krt_synchronize(void)
{
    const krt_backend *b;

    int status;

    KRT_TRY(krt_backend_get(&b, "krt_synchronize"));
    status = b->synchronize();
    /* Every stream is idle: stream-ordered frees are all due. */
    krt_reap(b, status == KRT_OK);
    return krt_backend_result(status, "krt_synchronize");
}

/* ------------------------------------------------------------------ */
/* Devices: this thread's current one                                  */
/* ------------------------------------------------------------------ */

/* As CUDA's: per host thread, 0 until set.  The backend's own notion
 * (cudaSetDevice) is kept equal through set_device. */
static _Thread_local int krt_cur_dev;
/* Bit p of krt_peers[d]: kernels on device d may reach device p's memory
 * (krt_device_enable_peer_access); the first 64 devices only. */
#define KRT_MAX_PEER_DEVICES 64
static _Atomic uint64_t krt_peers[KRT_MAX_PEER_DEVICES];

static int krt_peer_enabled(int dev, int peer)
{
    return dev < KRT_MAX_PEER_DEVICES && peer < KRT_MAX_PEER_DEVICES &&
           ((atomic_load_explicit(&krt_peers[dev], memory_order_relaxed) >>
             peer) & 1u);
}

static int krt_check_device(int dev, const char *who)
{
    if (dev < 0 || dev >= krt_ndev)
        return krt__error(KRT_EINVAL, "%s: device %d does not exist (%d "
                          "device%s: 0..%d)", who, dev, krt_ndev,
                          krt_ndev == 1 ? "" : "s", krt_ndev - 1);
    return KRT_OK;
}

/* Run what follows on device dev (an array's), whatever the current one;
 * krt_leave_device puts the current one back.  *saved is for the latter. */
static int krt_enter_device(const krt_backend *b, int dev, int *saved,
                            const char *who)
{
    int status;

    *saved = krt_cur_dev;
    if (dev == krt_cur_dev)
        return KRT_OK;
    status = b->set_device(dev);
    return krt_backend_result(status, who);
}

static void krt_leave_device(const krt_backend *b, int dev, int saved)
{
    if (dev != saved)
        b->set_device(saved);
}

int krt_device_count(int *count)
{
    const krt_backend *b;

    if (count == NULL)
        return krt__error(KRT_EINVAL, "krt_device_count: count is NULL");
    *count = 0;
    KRT_TRY(krt_backend_get(&b, "krt_device_count"));
    *count = krt_ndev;
    return KRT_OK;
}

int krt_set_device(int dev)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_set_device"));
    KRT_TRY(krt_check_device(dev, "krt_set_device"));
    status = b->set_device(dev);
    if (status != KRT_OK)
        return krt_backend_failed(status, "krt_set_device");
    krt_cur_dev = dev;
    return KRT_OK;
}

int krt_get_device(int *dev)
{
    const krt_backend *b;

    if (dev == NULL)
        return krt__error(KRT_EINVAL, "krt_get_device: dev is NULL");
    *dev = 0;
    KRT_TRY(krt_backend_get(&b, "krt_get_device"));
    *dev = krt_cur_dev;
    return KRT_OK;
}

int krt_get_device_props(krt_device_props *out, int dev)
{
    const krt_backend *b;
    int status;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_get_device_props: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_backend_get(&b, "krt_get_device_props"));
    KRT_TRY(krt_check_device(dev, "krt_get_device_props"));
    status = b->device_props(dev, out);
    out->device = dev;
    return krt_backend_result(status, "krt_get_device_props");
}

int krt_device_can_access_peer(int *can, int dev, int peer)
{
    const krt_backend *b;
    int status;

    if (can == NULL)
        return krt__error(KRT_EINVAL,
                          "krt_device_can_access_peer: can is NULL");
    *can = 0;
    KRT_TRY(krt_backend_get(&b, "krt_device_can_access_peer"));
    KRT_TRY(krt_check_device(dev, "krt_device_can_access_peer"));
    KRT_TRY(krt_check_device(peer, "krt_device_can_access_peer: peer"));
    if (dev == peer)
        return krt__error(KRT_EINVAL, "krt_device_can_access_peer: device "
                          "%d and its peer are the same device", dev);
    status = b->can_access_peer(can, dev, peer);
    return krt_backend_result(status, "krt_device_can_access_peer");
}

int krt_device_enable_peer_access(int peer)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_device_enable_peer_access"));
    KRT_TRY(krt_check_device(peer, "krt_device_enable_peer_access"));
    if (peer == krt_cur_dev)
        return krt__error(KRT_EINVAL, "krt_device_enable_peer_access: "
                          "device %d is the current device", peer);
    status = b->enable_peer(peer);
    if (status == KRT_OK && krt_cur_dev < KRT_MAX_PEER_DEVICES &&
        peer < KRT_MAX_PEER_DEVICES)
        atomic_fetch_or_explicit(&krt_peers[krt_cur_dev],
                                 (uint64_t)1 << peer, memory_order_relaxed);
    return krt_backend_result(status, "krt_device_enable_peer_access");
}

/* ------------------------------------------------------------------ */
/* Arrays                                                              */
/* ------------------------------------------------------------------ */

int64_t krt_array_size(const krt_array *a)
{
    int64_t n = 1;
    int i;

    if (a == NULL || a->ndim < 1 || a->ndim > KRT_MAX_NDIM)
        return 0;
    for (i = 0; i < a->ndim; i++) {
        if (a->shape[i] <= 0)
            return 0;
        if (__builtin_mul_overflow(n, a->shape[i], &n))
            return 0;
    }
    return n;
}

size_t krt_array_nbytes(const krt_array *a)
{
    int64_t n = krt_array_size(a);

    if (n == 0 || a == NULL)
        return 0;
    return (size_t)n * krt_dtype_size(a->dtype);
}

/* NumPy's rule: strides match C order, ignoring dimensions of extent 1; an
 * empty array is contiguous. */
/* C order (dir -1: the last index fastest) or F order (dir +1). */
static int krt_array_is_dense(const krt_array *a, int dir)
{
    int64_t expect;
    int i, end;

    if (a == NULL || a->ndim < 1 || a->ndim > KRT_MAX_NDIM)
        return 0;
    if (krt_array_size(a) == 0)
        return 1;
    expect = (int64_t)krt_dtype_size(a->dtype);
    i = dir < 0 ? a->ndim - 1 : 0;
    end = dir < 0 ? -1 : a->ndim;
    for (; i != end; i += dir) {
        if (a->shape[i] != 1 && a->strides[i] != expect)
            return 0;
        if (__builtin_mul_overflow(expect, a->shape[i], &expect))
            break;      /* no stride can match: only extents 1 may remain */
    }
    if (i == end)
        return 1;
    for (i += dir; i != end; i += dir)
        if (a->shape[i] != 1)
            return 0;
    return 1;
}

int krt_array_is_contiguous(const krt_array *a)
{
    return krt_array_is_dense(a, -1);
}

int krt_array_is_fortran(const krt_array *a)
{
    return krt_array_is_dense(a, 1);
}

/* NumPy's rule for a shape: the product of its nonzero extents times the
 * item size must fit in int64 (and here in ptrdiff_t), even when another
 * extent is 0, so that every C-order stride is representable.  Extents are
 * known non-negative.  *nbytes gets the byte size (0 for an empty array);
 * returns 0 when the shape is too large. */
static int krt_shape_fits(krt_dtype dtype, int ndim, const int64_t *shape,
                          size_t *nbytes)
{
    int64_t n = (int64_t)krt_dtype_size(dtype);
    int i, empty = 0;

    for (i = 0; i < ndim; i++) {
        if (shape[i] == 0)
            empty = 1;
        else if (__builtin_mul_overflow(n, shape[i], &n))
            return 0;
    }
    if ((uint64_t)n > (uint64_t)PTRDIFF_MAX)
        return 0;
    *nbytes = empty ? 0 : (size_t)n;
    return 1;
}

/* Check what krt_alloc, krt_to_device and krt_wrap are given; *nbytes on
 * success. */
static int krt_check_shape(const char *who, krt_dtype dtype, int ndim,
                           const int64_t *shape, size_t *nbytes)
{
    int i;

    if (!krt_dtype_valid(dtype))
        return krt__error(KRT_EINVAL, "%s: invalid dtype %d", who, (int)dtype);
    if (ndim < 1 || ndim > KRT_MAX_NDIM)
        return krt__error(KRT_EINVAL,
                          "%s: ndim %d is outside 1..%d", who, ndim,
                          KRT_MAX_NDIM);
    if (shape == NULL)
        return krt__error(KRT_EINVAL, "%s: shape is NULL", who);
    for (i = 0; i < ndim; i++)
        if (shape[i] < 0)
            return krt__error(KRT_EINVAL,
                              "%s: dimension %d has negative extent %lld",
                              who, i, (long long)shape[i]);
    if (!krt_shape_fits(dtype, ndim, shape, nbytes))
        return krt__error(KRT_EINVAL, "%s: shape too large", who);
    return KRT_OK;
}

/* Fill a C-contiguous array header. */
static void krt_array_init(krt_array *out, krt_dtype dtype, int ndim,
                           const int64_t *shape, const krt_backend *b)
{
    int64_t stride = (int64_t)krt_dtype_size(dtype);
    int i;

    memset(out, 0, sizeof *out);
    out->dtype = dtype;
    out->ndim = ndim;
    for (i = ndim - 1; i >= 0; i--) {
        out->shape[i] = shape[i];
        out->strides[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
    out->flags = KRT_ARRAY_OWNED;
    out->backend = b->id;
    out->device = krt_cur_dev;
}

/* ------------------------------------------------------------------ */
/* The registry of live allocations                                    */
/* ------------------------------------------------------------------ */

/* Every allocation the library made, by id: arrays are values, copied
 * freely, so the handle itself cannot say it was freed; its id can, as
 * ids are never reused.  An open-addressing table (linear probing,
 * backward-shift deletion), because a launch looks up each array
 * argument. */
typedef struct krt_alloc_rec {
    uint64_t id;                     /* 0: an empty slot */
    char *base;                      /* device address of the allocation */
    char *host;                      /* mapped: its host address */
    size_t bytes;
    int device;
    unsigned flags;                  /* KRT_ARRAY_MAPPED */
} krt_alloc_rec;

static struct {
    pthread_mutex_t lock;
    krt_alloc_rec *slots;
    size_t cap, n;                   /* cap: a power of two, or 0 */
    uint64_t next_id;
} krt_allocs = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static size_t krt_alloc_slot(uint64_t id, size_t cap)
{
    return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
}

/* Called with the lock held: the slot holding id, or (size_t)-1. */
static size_t krt_alloc_find_locked(uint64_t id)
{
    size_t i;

    if (krt_allocs.cap == 0)
        return (size_t)-1;
    for (i = krt_alloc_slot(id, krt_allocs.cap); krt_allocs.slots[i].id != 0;
         i = (i + 1) & (krt_allocs.cap - 1))
        if (krt_allocs.slots[i].id == id)
            return i;
    return (size_t)-1;
}

static void krt_alloc_put_locked(const krt_alloc_rec *r)
{
    size_t i = krt_alloc_slot(r->id, krt_allocs.cap);

    while (krt_allocs.slots[i].id != 0)
        i = (i + 1) & (krt_allocs.cap - 1);
    krt_allocs.slots[i] = *r;
    krt_allocs.n++;
}

/* Register r (its id is set here); KRT_ENOMEM if the table cannot grow. */
static int krt_alloc_add(krt_alloc_rec *r)
{
    int status = KRT_OK;

    pthread_mutex_lock(&krt_allocs.lock);
    if (2 * (krt_allocs.n + 1) > krt_allocs.cap) {
        size_t cap = krt_allocs.cap ? 2 * krt_allocs.cap : 64, i;
        krt_alloc_rec *old = krt_allocs.slots, *slots;
        size_t old_cap = krt_allocs.cap;
        slots = calloc(cap, sizeof *slots);
        if (slots == NULL) {
            status = KRT_ENOMEM;
        } else {
            krt_allocs.slots = slots;
            krt_allocs.cap = cap;
            krt_allocs.n = 0;
            for (i = 0; i < old_cap; i++)
                if (old[i].id != 0)
                    krt_alloc_put_locked(&old[i]);
            free(old);
        }
    }
    if (status == KRT_OK) {
        r->id = ++krt_allocs.next_id;
        krt_alloc_put_locked(r);
    }
    pthread_mutex_unlock(&krt_allocs.lock);
    return status;
}

/* Copy out the record of id; 0 if it is not live. */
static int krt_alloc_lookup(uint64_t id, krt_alloc_rec *out)
{
    size_t i;

    pthread_mutex_lock(&krt_allocs.lock);
    i = krt_alloc_find_locked(id);
    if (i != (size_t)-1)
        *out = krt_allocs.slots[i];
    pthread_mutex_unlock(&krt_allocs.lock);
    return i != (size_t)-1;
}

/* Retire id, copying its record out; 0 if it was not live. */
static int krt_alloc_retire(uint64_t id, krt_alloc_rec *out)
{
    size_t i, j, cap = krt_allocs.cap;
    int found;

    pthread_mutex_lock(&krt_allocs.lock);
    i = krt_alloc_find_locked(id);
    found = i != (size_t)-1;
    if (found) {
        *out = krt_allocs.slots[i];
        krt_allocs.slots[i].id = 0;
        krt_allocs.n--;
        /* Backward shift: pull later members of the probe run into the
         * hole when their home slot does not lie after it. */
        for (j = (i + 1) & (cap - 1); krt_allocs.slots[j].id != 0;
             j = (j + 1) & (cap - 1)) {
            size_t home = krt_alloc_slot(krt_allocs.slots[j].id, cap);
            if (((j - home) & (cap - 1)) >= ((j - i) & (cap - 1))) {
                krt_allocs.slots[i] = krt_allocs.slots[j];
                krt_allocs.slots[j].id = 0;
                i = j;
            }
        }
    }
    pthread_mutex_unlock(&krt_allocs.lock);
    return found;
}

/* The bytes an array's elements span, relative to a->data: [*lo, *hi).
 * The shape was checked; the array is not empty.  0 when strides so large
 * that the span does not fit in int64 (a corrupt or hostile handle). */
static int krt_array_span(const krt_array *a, int64_t *lo, int64_t *hi)
{
    int64_t reach;
    int d;

    *lo = 0;
    *hi = (int64_t)krt_dtype_size(a->dtype);
    for (d = 0; d < a->ndim; d++) {
        if (__builtin_mul_overflow(a->shape[d] - 1, a->strides[d], &reach) ||
            __builtin_add_overflow(reach < 0 ? *lo : *hi, reach,
                                   reach < 0 ? lo : hi))
            return 0;
    }
    return 1;
}

/* The live allocation behind a (a->id != 0), and a inside it: KRT_OK, or
 * KRT_ENULLARRAY for a freed one, KRT_EBOUNDS for a view that strays. */
static int krt_check_live(const krt_array *a, const char *what,
                          krt_alloc_rec *rec)
{
    int64_t lo, hi;
    char *first;

    if (!krt_alloc_lookup(a->id, rec))
        return krt__error(KRT_ENULLARRAY, "%s was freed (used after "
                          "krt_free)", what);
    if (a->device != rec->device)
        return krt__error(KRT_EINVAL, "%s says device %d, but its memory "
                          "is on device %d", what, a->device, rec->device);
    if (krt_array_size(a) == 0)
        return KRT_OK;
    if (!krt_array_span(a, &lo, &hi))
        return krt__error(KRT_EBOUNDS, "%s: its strides reach beyond any "
                          "allocation", what);
    /* In integers: the pointers may lie anywhere. */
    first = (char *)a->data;
    {
        int64_t off = (int64_t)((uintptr_t)first - (uintptr_t)rec->base);
        int64_t from, to;
        if (__builtin_add_overflow(off, lo, &from) ||
            __builtin_add_overflow(off, hi, &to))
            return krt__error(KRT_EBOUNDS, "%s lies outside its allocation",
                              what);
        if (from < 0 || to > (int64_t)rec->bytes)
            return krt__error(KRT_EBOUNDS, "%s: its elements span bytes "
                              "[%lld, %lld) of an allocation of %zu bytes",
                              what, (long long)from, (long long)to,
                              rec->bytes);
    }
    return KRT_OK;
}

/* "the cpu" backend, for messages. */
static const char *krt_backend_id_name(int id)
{
    switch (id) {
    case KRT_BACKEND_NONE:
        return "no";
    case KRT_BACKEND_CPU:
        return "the cpu";
    case KRT_BACKEND_CUDA:
        return "the cuda";
    default:
        return "an unknown";
    }
}

/* An array given back to the library: not zeroed, sane header, owned by the
 * running backend.  what names it in messages ("krt_copy_to_host: array"). */
static int krt_check_usable(const krt_array *a, const char *what,
                            const krt_backend *b)
{
    size_t nbytes;
    int i;

    if (a == NULL)
        return krt__error(KRT_ENULLARRAY, "%s is NULL", what);
    if (a->data == NULL && a->ndim == 0)
        return krt__error(KRT_ENULLARRAY, "%s is a zeroed or freed array",
                          what);
    if (a->ndim < 1 || a->ndim > KRT_MAX_NDIM)
        return krt__error(KRT_EINVAL, "%s has ndim %d, outside 1..%d", what,
                          a->ndim, KRT_MAX_NDIM);
    if (!krt_dtype_valid(a->dtype))
        return krt__error(KRT_EINVAL, "%s has an invalid dtype %d", what,
                          (int)a->dtype);
    for (i = 0; i < a->ndim; i++)
        if (a->shape[i] < 0)
            return krt__error(KRT_EINVAL,
                              "%s: dimension %d has negative extent %lld",
                              what, i, (long long)a->shape[i]);
    if (!krt_shape_fits(a->dtype, a->ndim, a->shape, &nbytes))
        return krt__error(KRT_EINVAL, "%s: shape too large", what);
    if (a->data == NULL && krt_array_size(a) > 0)
        return krt__error(KRT_ENULLARRAY,
                          "%s has no data (zeroed or freed array)", what);
    if (a->backend != b->id)
        return krt__error(KRT_EBACKENDMIX,
                          "%s belongs to %s backend, but the %s backend is "
                          "running",
                          what, krt_backend_id_name(a->backend), b->name);
    if (a->device < 0 || a->device >= krt_ndev)
        return krt__error(KRT_EINVAL, "%s has device %d, outside 0..%d",
                          what, a->device, krt_ndev - 1);
    if (a->id != 0) {
        krt_alloc_rec rec;
        return krt_check_live(a, what, &rec);
    }
    return KRT_OK;
}

/* For a launch: a usable array on the current device (mapped memory is on
 * every device, and a peer's once peer access is enabled). */
static int krt_check_launchable(const krt_array *a, const char *what,
                                const krt_backend *b)
{
    KRT_TRY(krt_check_usable(a, what, b));
    if (a->device != krt_cur_dev && !(a->flags & KRT_ARRAY_MAPPED) &&
        !krt_peer_enabled(krt_cur_dev, a->device))
        return krt__error(KRT_EDEVICE, "%s is on device %d, but the kernel "
                          "runs on device %d (krt_set_device, "
                          "krt_device_enable_peer_access, or copy it with "
                          "krt_copy_device)",
                          what, a->device, krt_cur_dev);
    return KRT_OK;
}

int krt__check_launch_array(const krt_array *a, const char *what)
{
    const krt_backend *b;

    KRT_TRY(krt_backend_get(&b, what));
    return krt_check_launchable(a, what, b);
}

/* ------------------------------------------------------------------ */
/* Registries of live handles                                          */
/* ------------------------------------------------------------------ */

/* A set of pointers, searched linearly: programs hold a handful of streams
 * and events, and a lookup never dereferences the pointer it is given (a
 * destroyed handle's memory is gone). */
typedef struct krt_registry {
    pthread_mutex_t lock;
    void **items;
    size_t n, cap;
} krt_registry;

static krt_registry krt_streams = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
static krt_registry krt_events = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static int krt_registry_add(krt_registry *r, void *p)
{
    int status = KRT_OK;

    pthread_mutex_lock(&r->lock);
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        void **items = realloc(r->items, cap * sizeof *items);
        if (items == NULL)
            status = KRT_ENOMEM;
        else {
            r->items = items;
            r->cap = cap;
        }
    }
    if (status == KRT_OK)
        r->items[r->n++] = p;
    pthread_mutex_unlock(&r->lock);
    return status;
}

static size_t krt_registry_find_locked(krt_registry *r, const void *p)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->items[i] == p)
            return i;
    return (size_t)-1;
}

static int krt_registry_has(krt_registry *r, const void *p)
{
    size_t i;

    pthread_mutex_lock(&r->lock);
    i = krt_registry_find_locked(r, p);
    pthread_mutex_unlock(&r->lock);
    return i != (size_t)-1;
}

/* Remove p; 0 if it was not there. */
static int krt_registry_remove(krt_registry *r, const void *p)
{
    size_t i;

    pthread_mutex_lock(&r->lock);
    i = krt_registry_find_locked(r, p);
    if (i != (size_t)-1)
        r->items[i] = r->items[--r->n];
    pthread_mutex_unlock(&r->lock);
    return i != (size_t)-1;
}

static int krt_check_stream(krt_stream *stream, const char *who)
{
    if (stream != NULL && !krt_registry_has(&krt_streams, stream))
        return krt__error(KRT_EINVAL,
                          "%s: stream %p was destroyed or never created",
                          who, (void *)stream);
    return KRT_OK;
}

int krt__check_stream(krt_stream *stream, const char *who)
{
    return krt_check_stream(stream, who);
}

static int krt_check_event(krt_event *event, const char *who)
{
    if (event == NULL)
        return krt__error(KRT_EINVAL, "%s: event is NULL", who);
    if (!krt_registry_has(&krt_events, event))
        return krt__error(KRT_EINVAL,
                          "%s: event %p was destroyed or never created", who,
                          (void *)event);
    return KRT_OK;
}

static void krt_free_host_buffer(void *p)
{
    free(p);
}

int krt__free_after(krt_stream *stream, void *host, const char *who)
{
    const krt_backend *b;
    int status;

    if (stream == NULL) {
        free(host);
        return KRT_OK;
    }
    KRT_TRY(krt_backend_get(&b, who));
    status = b->host_fn(stream, krt_free_host_buffer, host);
    if (status != KRT_OK) {
        /* Not queued: wait for the work that reads it, then free. */
        b->stream_synchronize(stream);
        free(host);
        return krt_backend_failed(status, who);
    }
    return KRT_OK;
}

/* Give out an id for memory just allocated on the current device and
 * put it in *out; on failure the caller still owns the memory. */
static int krt_array_register(krt_array *out, void *host, size_t nbytes,
                              const char *who)
{
    krt_alloc_rec rec;

    memset(&rec, 0, sizeof rec);
    rec.base = out->data;
    rec.host = host;
    rec.bytes = nbytes;
    rec.device = out->device;
    rec.flags = out->flags & KRT_ARRAY_MAPPED;
    if (krt_alloc_add(&rec) != KRT_OK)
        return krt__error(KRT_ENOMEM, "%s: out of memory", who);
    out->id = rec.id;
    return KRT_OK;
}

/* A stream given with memory of device dev must belong to it. */
static int krt_check_stream_on(const krt_stream *s, int dev, const char *who)
{
    if (s != NULL && s->device != dev)
        return krt__error(KRT_EDEVICE, "%s: the stream belongs to device %d, "
                          "the memory to device %d", who, s->device, dev);
    return KRT_OK;
}

static int krt_check_host_span(const void *host, size_t nbytes,
                               const char *who);

int krt_alloc(krt_array *out, krt_dtype dtype, int ndim, const int64_t *shape)
{
    const krt_backend *b;
    size_t nbytes;
    void *data = NULL;
    int status;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_alloc: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_check_shape("krt_alloc", dtype, ndim, shape, &nbytes));
    KRT_TRY(krt_backend_get(&b, "krt_alloc"));
    krt_reap(b, 0);
    if (nbytes > 0) {
        status = b->alloc(&data, nbytes);
        if (status != KRT_OK)
            return krt_backend_failed(status, "krt_alloc");
    }
    krt_array_init(out, dtype, ndim, shape, b);
    out->data = data;
    status = krt_array_register(out, NULL, nbytes, "krt_alloc");
    if (status != KRT_OK) {
        if (data != NULL)
            b->release(data);
        memset(out, 0, sizeof *out);
    }
    return status;
}

int krt_to_device(krt_array *out, const void *host, krt_dtype dtype, int ndim,
                  const int64_t *shape, krt_stream *stream)
{
    const krt_backend *b;
    size_t nbytes;
    void *data = NULL;
    int status;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_to_device: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_check_shape("krt_to_device", dtype, ndim, shape, &nbytes));
    if (host == NULL && nbytes > 0)
        return krt__error(KRT_EINVAL, "krt_to_device: host pointer is NULL");
    KRT_TRY(krt_check_stream(stream, "krt_to_device"));
    KRT_TRY(krt_backend_get(&b, "krt_to_device"));
    KRT_TRY(krt_check_stream_on(stream, krt_cur_dev, "krt_to_device"));
    KRT_TRY(krt_check_host_span(host, nbytes, "krt_to_device"));
    krt_reap(b, 0);
    if (nbytes > 0) {
        status = b->alloc(&data, nbytes);
        if (status != KRT_OK)
            return krt_backend_failed(status, "krt_to_device");
        status = b->copy_to_device(data, host, nbytes, stream);
        if (status != KRT_OK) {
            krt_backend_failed(status, "krt_to_device");
            b->free(data);
            return status;
        }
    }
    krt_array_init(out, dtype, ndim, shape, b);
    out->data = data;
    status = krt_array_register(out, NULL, nbytes, "krt_to_device");
    if (status != KRT_OK) {
        if (data != NULL)
            b->free(data);
        memset(out, 0, sizeof *out);
    }
    return status;
}

/* Gather a strided array into C order.  src is host-visible memory holding
 * the array's whole byte span; base is where element (0, ..., 0) lies. */
static void krt_gather(char *dst, const char *base, const krt_array *a)
{
    size_t item = krt_dtype_size(a->dtype);
    int64_t idx[KRT_MAX_NDIM] = {0};
    int64_t n = krt_array_size(a), e;
    int d;

    for (e = 0; e < n; e++) {
        const char *p = base;
        for (d = 0; d < a->ndim; d++)
            p += idx[d] * a->strides[d];
        memcpy(dst, p, item);
        dst += item;
        for (d = a->ndim - 1; d >= 0; d--) {
            if (++idx[d] < a->shape[d])
                break;
            idx[d] = 0;
        }
    }
}

/* A strided copy to the host queued on a stream: the gather runs as a host
 * function after the bytes arrive (a staging span on a backend whose memory
 * the host cannot read). */
typedef struct krt_gather_job {
    char *dst;
    char *span;                      /* owned staging bytes, or NULL */
    const char *base;                /* element (0, ..., 0) */
    krt_array a;
} krt_gather_job;

static void krt_gather_run(void *arg)
{
    krt_gather_job *job = arg;

    krt_gather(job->dst, job->base, &job->a);
    free(job->span);
    free(job);
}

static int krt_gather_on_stream(void *host, krt_array a, int64_t lo,
                                int64_t hi, krt_stream *stream,
                                const krt_backend *b)
{
    krt_gather_job *job = calloc(1, sizeof *job);
    int status;

    if (job == NULL)
        return krt__error(KRT_ENOMEM, "krt_copy_to_host: out of memory");
    job->dst = host;
    job->a = a;
    job->base = (const char *)a.data;
    if (!b->host_visible) {
        job->span = malloc((size_t)(hi - lo));
        if (job->span == NULL) {
            free(job);
            return krt__error(KRT_ENOMEM,
                              "krt_copy_to_host: no memory for a staging "
                              "buffer of %lld bytes",
                              (long long)(hi - lo));
        }
        job->base = job->span - lo;
        status = b->copy_to_host(job->span, (const char *)a.data + lo,
                                 (size_t)(hi - lo), stream);
        if (status != KRT_OK) {
            free(job->span);
            free(job);
            return krt_backend_failed(status, "krt_copy_to_host");
        }
    }
    status = b->host_fn(stream, krt_gather_run, job);
    if (status != KRT_OK) {
        krt_backend_failed(status, "krt_copy_to_host");
        if (stream != NULL)
            b->stream_synchronize(stream);
        free(job->span);
        free(job);
        return status;
    }
    return KRT_OK;
}

static int krt_copy_to_host_on(void *host, krt_array a, size_t nbytes,
                               krt_stream *stream, const krt_backend *b)
{
    int64_t lo, hi;
    char *span;
    int status;

    if (krt_array_is_contiguous(&a)) {
        status = b->copy_to_host(host, a.data, nbytes, stream);
        return krt_backend_result(status, "krt_copy_to_host");
    }
    /* A strided view: fetch the bytes it spans, then gather in C order. */
    if (!krt_array_span(&a, &lo, &hi))
        return krt__error(KRT_EINVAL, "krt_copy_to_host: the array's "
                          "strides span more than 2^63 bytes");
    /* On the default stream, host_fn runs the gather at once, after the
     * work queued on every stream. */
    if (stream != NULL || b->host_visible)
        return krt_gather_on_stream(host, a, lo, hi, stream, b);
    span = malloc((size_t)(hi - lo));
    if (span == NULL)
        return krt__error(KRT_ENOMEM,
                          "krt_copy_to_host: no memory for a staging buffer "
                          "of %lld bytes",
                          (long long)(hi - lo));
    status = b->copy_to_host(span, (const char *)a.data + lo,
                             (size_t)(hi - lo), stream);
    if (status == KRT_OK)
        krt_gather(host, span - lo, &a);
    else
        krt_backend_failed(status, "krt_copy_to_host");
    free(span);
    return status;
}

int krt_copy_to_host(void *host, krt_array a, krt_stream *stream)
{
    const krt_backend *b;
    size_t nbytes;
    int status, saved;

    KRT_TRY(krt_backend_get(&b, "krt_copy_to_host"));
    KRT_TRY(krt_check_usable(&a, "krt_copy_to_host: array", b));
    nbytes = krt_array_nbytes(&a);
    if (host == NULL && nbytes > 0)
        return krt__error(KRT_EINVAL,
                          "krt_copy_to_host: host pointer is NULL");
    KRT_TRY(krt_check_stream(stream, "krt_copy_to_host"));
    KRT_TRY(krt_check_stream_on(stream, a.device, "krt_copy_to_host"));
    if (nbytes == 0)
        return KRT_OK;
    KRT_TRY(krt_check_host_span(host, nbytes, "krt_copy_to_host"));
    KRT_TRY(krt_enter_device(b, a.device, &saved, "krt_copy_to_host"));
    status = krt_copy_to_host_on(host, a, nbytes, stream, b);
    krt_leave_device(b, a.device, saved);
    return status;
}

/* Deferred cleanup: the open sections and the memory they hold back. */
static struct {
    pthread_mutex_t lock;
    int depth;
    krt_alloc_rec *recs;
    size_t n, cap;
} krt_defer = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, 0};

/* Queue rec if a deferred section is open: 1 if queued, 0 if not, or a
 * negative status. */
static int krt_defer_push(const krt_alloc_rec *rec)
{
    int queued = 0;

    pthread_mutex_lock(&krt_defer.lock);
    if (krt_defer.depth > 0) {
        queued = 1;
        if (krt_defer.n == krt_defer.cap) {
            size_t cap = krt_defer.cap ? 2 * krt_defer.cap : 32;
            krt_alloc_rec *p = realloc(krt_defer.recs, cap * sizeof *p);
            if (p == NULL)
                queued = krt__error(KRT_ENOMEM,
                                    "krt_free: no memory to defer a free");
            else {
                krt_defer.recs = p;
                krt_defer.cap = cap;
            }
        }
        if (queued == 1)
            krt_defer.recs[krt_defer.n++] = *rec;
    }
    pthread_mutex_unlock(&krt_defer.lock);
    return queued;
}

static void krt_nothing(void *arg)
{
    (void)arg;
}

static int krt_pin_remove(void *p, int kind);

/* Give the memory of a retired allocation back to the backend, on its
 * device.  wait: queued work may still use it (krt_free: wait for every
 * stream first); else an event said it is done.  A deferred section that
 * is open keeps it for later instead. */
static int krt_release_rec(const krt_backend *b, const krt_alloc_rec *rec,
                           int wait, int deferrable, const char *who)
{
    int status, saved;

    if (rec->base == NULL && rec->host == NULL)
        return KRT_OK;
    if (deferrable) {
        status = krt_defer_push(rec);
        if (status != 0)
            return status > 0 ? KRT_OK : status;
    }
    KRT_TRY(krt_enter_device(b, rec->device, &saved, who));
    if (rec->flags & KRT_ARRAY_MAPPED) {
        /* host_free does not wait for queued kernels: wait here. */
        status = wait ? b->host_fn(NULL, krt_nothing, NULL) : KRT_OK;
        krt_pin_remove(rec->host, 2);
        if (status == KRT_OK)
            status = b->host_free(rec->host);
    } else {
        status = wait ? b->free(rec->base) : b->release(rec->base);
    }
    krt_leave_device(b, rec->device, saved);
    return krt_backend_result(status, who);
}

int krt_defer_begin(void)
{
    const krt_backend *b;

    KRT_TRY(krt_backend_get(&b, "krt_defer_begin"));
    pthread_mutex_lock(&krt_defer.lock);
    krt_defer.depth++;
    pthread_mutex_unlock(&krt_defer.lock);
    return KRT_OK;
}

int krt_defer_end(void)
{
    const krt_backend *b;
    krt_alloc_rec *recs = NULL;
    size_t n = 0, i;
    int status = KRT_OK, s;

    KRT_TRY(krt_backend_get(&b, "krt_defer_end"));
    pthread_mutex_lock(&krt_defer.lock);
    if (krt_defer.depth == 0) {
        pthread_mutex_unlock(&krt_defer.lock);
        return krt__error(KRT_EINVAL,
                          "krt_defer_end: no deferred section is open");
    }
    if (--krt_defer.depth == 0) {
        recs = krt_defer.recs;
        n = krt_defer.n;
        krt_defer.recs = NULL;
        krt_defer.n = krt_defer.cap = 0;
    }
    pthread_mutex_unlock(&krt_defer.lock);
    for (i = 0; i < n; i++) {
        s = krt_release_rec(b, &recs[i], 1, 0, "krt_defer_end");
        if (s != KRT_OK && status == KRT_OK)
            status = s;
    }
    free(recs);
    return status;
}

/* What krt_free and krt_free_async check before retiring a's id: 1 if
 * there is nothing to free (a zeroed array, a wrapper, a view), 0 if a's
 * id may be retired, or a negative status. */
static int krt_free_check(const krt_array *a, const krt_backend **b,
                          const char *who)
{
    if ((a->data == NULL && a->id == 0) || !(a->flags & KRT_ARRAY_OWNED))
        return 1;
    KRT_TRY(krt_backend_get(b, who));
    if (a->backend != (*b)->id)
        return krt__error(KRT_EBACKENDMIX,
                          "%s: array belongs to %s backend, but the %s "
                          "backend is running",
                          who, krt_backend_id_name(a->backend), (*b)->name);
    if (a->id == 0)
        return krt__error(KRT_EINVAL, "%s: the array says it owns memory, "
                          "but libkernrt did not allocate it", who);
    return 0;
}

int krt_free(krt_array a)
{
    const krt_backend *b = NULL;
    krt_alloc_rec rec;
    int status = krt_free_check(&a, &b, "krt_free");

    if (status != 0)
        return status > 0 ? KRT_OK : status;
    if (!krt_alloc_retire(a.id, &rec))
        return krt__error(KRT_ENULLARRAY, "krt_free: the array was already "
                          "freed (double free)");
    status = krt_release_rec(b, &rec, 1, 1, "krt_free");
    krt_reap(b, 0);
    return status;
}

/* ---- stream-ordered release -------------------------------------- */

/* Allocations freed by krt_free_async, each waiting for an event recorded
 * on its stream. */
typedef struct krt_pending_free {
    krt_alloc_rec rec;
    krt_event *event;                /* internal: not in the registry */
} krt_pending_free;

static struct {
    pthread_mutex_t lock;
    krt_pending_free *items;
    size_t n, cap;
} krt_pending = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* Release the pending frees whose event has completed (all: every one,
 * the caller knows the device is idle). */
static void krt_reap(const krt_backend *b, int all)
{
    krt_pending_free due[64];
    size_t n = 0, i;

    do {
        n = 0;
        pthread_mutex_lock(&krt_pending.lock);
        for (i = 0; i < krt_pending.n && n < 64;) {
            krt_pending_free *p = &krt_pending.items[i];
            if (all || b->event_query(p->event) == KRT_OK) {
                due[n++] = *p;
                *p = krt_pending.items[--krt_pending.n];
            } else {
                i++;
            }
        }
        pthread_mutex_unlock(&krt_pending.lock);
        for (i = 0; i < n; i++) {
            krt_release_rec(b, &due[i].rec, 0, 1, "krt_free_async");
            b->event_destroy(due[i].event);
            free(due[i].event);
        }
    } while (n == 64);
}

int krt_free_async(krt_array a, krt_stream *stream)
{
    const krt_backend *b = NULL;
    krt_alloc_rec rec;
    krt_event *ev;
    int status = krt_free_check(&a, &b, "krt_free_async"), saved;

    if (status != 0)
        return status > 0 ? KRT_OK : status;
    KRT_TRY(krt_check_stream(stream, "krt_free_async"));
    if (stream == NULL)
        return krt_free(a);
    if (!krt_alloc_retire(a.id, &rec))
        return krt__error(KRT_ENULLARRAY, "krt_free_async: the array was "
                          "already freed (double free)");
    ev = calloc(1, sizeof *ev);
    status = ev == NULL ? krt__error(KRT_ENOMEM, "out of memory") : KRT_OK;
    if (status == KRT_OK)
        status = krt_enter_device(b, stream->device, &saved,
                                  "krt_free_async");
    if (status == KRT_OK) {
        ev->device = stream->device;
        status = b->event_create(ev);
        if (status == KRT_OK) {
            status = b->event_record(ev, stream);
            if (status != KRT_OK)
                b->event_destroy(ev);
        }
        krt_leave_device(b, stream->device, saved);
    }
    if (status == KRT_OK) {
        pthread_mutex_lock(&krt_pending.lock);
        if (krt_pending.n == krt_pending.cap) {
            size_t cap = krt_pending.cap ? 2 * krt_pending.cap : 16;
            krt_pending_free *items =
                realloc(krt_pending.items, cap * sizeof *items);
            if (items == NULL) {
                status = KRT_ENOMEM;
            } else {
                krt_pending.items = items;
                krt_pending.cap = cap;
            }
        }
        if (status == KRT_OK) {
            krt_pending.items[krt_pending.n].rec = rec;
            krt_pending.items[krt_pending.n].event = ev;
            krt_pending.n++;
        }
        pthread_mutex_unlock(&krt_pending.lock);
        if (status != KRT_OK)
            b->event_destroy(ev);
    }
    if (status != KRT_OK) {
        /* Nothing queued: free it the synchronous way. */
        free(ev);
        return krt_release_rec(b, &rec, 1, 1, "krt_free_async");
    }
    krt_reap(b, 0);
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* Launch configurations                                               */
/* ------------------------------------------------------------------ */

krt_launch_cfg krt_grid3(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz)
{
    krt_launch_cfg cfg;

    cfg.grid.x = gx;
    cfg.grid.y = gy;
    cfg.grid.z = gz;
    cfg.block.x = bx;
    cfg.block.y = by;
    cfg.block.z = bz;
    cfg.shared_bytes = 0;
    cfg.stream = NULL;
    return cfg;
}

krt_launch_cfg krt_grid1(unsigned grid, unsigned block)
{
    return krt_grid3(grid, 1, 1, block, 1, 1);
}

krt_launch_cfg krt_grid2(unsigned gx, unsigned gy, unsigned bx, unsigned by)
{
    return krt_grid3(gx, gy, 1, bx, by, 1);
}

krt_launch_cfg krt_with_shared(krt_launch_cfg cfg, size_t bytes)
{
    cfg.shared_bytes = bytes;
    return cfg;
}

/* ------------------------------------------------------------------ */
/* Checks for generated launchers, and the launch                      */
/* ------------------------------------------------------------------ */

/* "float32 array of 1 dimension" */
static void krt_describe(char *buf, size_t size, krt_dtype dtype, int ndim)
{
    snprintf(buf, size, "%s array of %d dimension%s", krt_dtype_name(dtype),
             ndim, ndim == 1 ? "" : "s");
}

/* rec: a record scalar parameter takes an array of one record of its
 * dtype (ndim 0, or 1 of extent 1) */
static int krt_check_record(const krt_kernel *k, const krt_param *p, const krt_array *a,
                            krt_view *out)
{
    const krt_backend *b;
    char what[256];
    snprintf(what, sizeof what, "krt_launch: kernel '%s': parameter '%s'", k->name, p->name);
    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_check_array: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_backend_get(&b, what));
    KRT_TRY(krt_check_launchable(a, what, b));
    if (a->dtype != p->dtype)
        return krt__error(KRT_EDTYPE, "%s: expected a record of %zu bytes, got a %s array",
                          what, KRT_RECORD_ITEMSIZE(p->dtype),
                          KRT_DTYPE_IS_RECORD(a->dtype) ? "record" : krt_dtype_name(a->dtype));
    if (krt_array_size(a) != 1 || a->ndim > 1)
        return krt__error(KRT_ESHAPE, "%s: expected one record (an array of shape () or "
                          "(1,)), got %lld", what, (long long)krt_array_size(a));
    out->data = a->data;
    return KRT_OK;
}

int krt_check_array(const krt_kernel *k, int param, const krt_array *a,
                    krt_view *out)
{
    const krt_backend *b;
    const krt_param *p;
    char what[256], want[64], got[64];
    int i;

    if (k == NULL)
        return krt__error(KRT_EINVAL, "krt_check_array: kernel is NULL");
    if (param < 0 || param >= k->nparams || k->params == NULL)
        return krt__error(KRT_EINVAL,
                          "krt_check_array: kernel '%s' has no parameter %d",
                          k->name, param);
    p = &k->params[param];
    if (p->kind == KRT_PARAM_RECORD)   /* rec */
        return krt_check_record(k, p, a, out);
    if (p->kind != KRT_PARAM_ARRAY)
        return krt__error(KRT_EINVAL,
                          "krt_check_array: kernel '%s': parameter '%s' is "
                          "not an array",
                          k->name, p->name);
    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_check_array: out is NULL");
    memset(out, 0, sizeof *out);
    /* issue 10: the message names the parameter; it is formatted only
     * where a check fails (the checks are repeated with it then), not on
     * every launch */
    if (krt_backend_get(&b, "krt_launch") != KRT_OK ||
        krt_check_launchable(a, "krt_launch", b) != KRT_OK ||
        a->dtype != p->dtype || a->ndim != p->ndim ||
        (p->contiguous == 1 && !krt_array_is_contiguous(a)) ||
        (p->contiguous == 2 && !krt_array_is_fortran(a))) {
        snprintf(what, sizeof what, "krt_launch: kernel '%s': parameter '%s'",
                 k->name, p->name);
        KRT_TRY(krt_backend_get(&b, what));
        KRT_TRY(krt_check_launchable(a, what, b));
    }
    if (a->dtype != p->dtype || a->ndim != p->ndim) {
        krt_describe(want, sizeof want, p->dtype, p->ndim);
        krt_describe(got, sizeof got, a->dtype, a->ndim);
        return krt__error(a->dtype != p->dtype ? KRT_EDTYPE : KRT_ENDIM,
                          "%s: expected %s, got %s", what, want, got);
    }
    if ((p->contiguous == 1 && !krt_array_is_contiguous(a)) ||
        (p->contiguous == 2 && !krt_array_is_fortran(a))) {
        char strides[128];
        size_t len = 0;
        for (i = 0; i < a->ndim && len < sizeof strides; i++)
            len += (size_t)snprintf(strides + len, sizeof strides - len,
                                    "%s%lld", i ? ", " : "",
                                    (long long)a->strides[i]);
        return krt__error(KRT_ELAYOUT,
                          "%s: expected a %s-contiguous array, got strides "
                          "(%s) bytes",
                          what, p->contiguous == 2 ? "Fortran" : "C", strides);
    }
    out->data = a->data;
    for (i = 0; i < a->ndim; i++) {
        out->shape[i] = a->shape[i];
        out->strides[i] = a->strides[i];
    }
    return KRT_OK;
}

/* issue 11: the launch conditions of a kernel's 32-bit variant, which
 * kernc's range.c assumes when it prints NAME__i32 (range_func_i32). */
int krt_launch_fits32(const krt_kernel *k, const krt_launch_cfg *cfg, void **args)
{
    static int off = -1;
    int i, d;

    if (off < 0) {
        const char *env = getenv("KRT_I32");
        off = env != NULL && strcmp(env, "0") == 0;
    }
    if (k == NULL || off || cfg == NULL ||
        (uint64_t)cfg->grid.x * cfg->block.x > (UINT64_C(1) << 30) ||
        cfg->grid.x > (1u << 24))
        return 0;
    for (i = 0; i < k->nparams; i++) {
        const krt_view *v;
        if (k->params[i].kind != KRT_PARAM_ARRAY)
            continue;
        if (args == NULL || args[i] == NULL)
            return 0;
        v = (const krt_view *)args[i];
        for (d = 0; d < k->params[i].ndim && d < KRT_MAX_NDIM; d++)
            if (v->shape[d] < 0 || v->shape[d] >= (INT64_C(1) << 30) ||
                v->strides[d] < -INT32_MAX || v->strides[d] > INT32_MAX)
                return 0;
    }
    return 1;
}

/* Everything krt_launch and krt_launch_cooperative check, then the launch;
 * fn is the public name, for messages. */
static int krt_launch_checked(const krt_kernel *k, krt_launch_cfg cfg,
                              void **args, const char *fn, int cooperative)
{
    const krt_backend *b;
    krt_dim3 g = cfg.grid, t = cfg.block;
    uint64_t threads = (uint64_t)t.x * t.y * t.z;
    size_t static_shared = 0;
    unsigned max_threads = KRT_MAX_BLOCK_THREADS, max_blocks;
    char who[160];
    int i, status;

    if (k == NULL)
        return krt__error(KRT_EINVAL, "%s: kernel is NULL", fn);
    snprintf(who, sizeof who, "%s: kernel '%s'", fn,
             k->name ? k->name : "?");
    if (k->nparams < 0 || (k->nparams > 0 && k->params == NULL))
        return krt__error(KRT_EINVAL, "%s: bad parameter table", who);
    if (k->nparams > 0 && args == NULL)
        return krt__error(KRT_EINVAL, "%s: args is NULL", who);
    for (i = 0; i < k->nparams; i++)
        if (args[i] == NULL)
            return krt__error(KRT_EINVAL, "%s: argument %d ('%s') is NULL",
                              who, i, k->params[i].name);
    KRT_TRY(krt_backend_get(&b, who));
    KRT_TRY(krt_check_stream(cfg.stream, who));
    if (cfg.stream != NULL && cfg.stream->device != krt_cur_dev)
        return krt__error(KRT_EDEVICE, "%s: the stream belongs to device %d, "
                          "but the kernel runs on device %d", who,
                          cfg.stream->device, krt_cur_dev);

    /* The limits CUDA enforces, checked the same way on both backends. */
    if (g.x == 0 || g.y == 0 || g.z == 0)
        return krt__error(KRT_ELAUNCH, "%s: grid (%u, %u, %u) has a zero "
                          "dimension", who, g.x, g.y, g.z);
    if (t.x == 0 || t.y == 0 || t.z == 0)
        return krt__error(KRT_ELAUNCH, "%s: block (%u, %u, %u) has a zero "
                          "dimension", who, t.x, t.y, t.z);
    if (g.x > (unsigned)INT_MAX || g.y > 65535 || g.z > 65535)
        return krt__error(KRT_ELAUNCH,
                          "%s: grid (%u, %u, %u) is too large (at most "
                          "2147483647 x 65535 x 65535)",
                          who, g.x, g.y, g.z);
    if (t.x > 1024 || t.y > 1024 || t.z > 64 ||
        threads > KRT_MAX_BLOCK_THREADS)
        return krt__error(KRT_EBLOCKSIZE,
                          "%s: block (%u, %u, %u) has %llu threads; at most "
                          "1024 threads, with x and y at most 1024 and z at "
                          "most 64",
                          who, t.x, t.y, t.z, (unsigned long long)threads);

    status = b->kernel_limits(k, &static_shared, &max_threads);
    if (status != KRT_OK)
        return krt_backend_failed(status, who);
    if (threads > max_threads)
        return krt__error(KRT_EBLOCKSIZE,
                          "%s: block (%u, %u, %u) has %llu threads; this "
                          "kernel allows at most %u per block",
                          who, t.x, t.y, t.z, (unsigned long long)threads,
                          max_threads);
    if (static_shared > KRT_MAX_SHARED_BYTES ||
        cfg.shared_bytes > KRT_MAX_SHARED_BYTES - static_shared)
        return krt__error(KRT_ESHARED,
                          "%s: %zu bytes of static and %zu bytes of dynamic "
                          "shared memory; at most %zu bytes per block",
                          who, static_shared, cfg.shared_bytes,
                          KRT_MAX_SHARED_BYTES);

    /* A kernel with a grid sync only runs as a cooperative launch, so
     * krt_launch (the typed launchers) takes that path for it. */
    if (cooperative || k->cooperative) {
        uint64_t blocks = (uint64_t)g.x * g.y * g.z;
        status = b->max_cooperative(k, t, cfg.shared_bytes, &max_blocks);
        if (status != KRT_OK)
            return krt_backend_failed(status, who);
        if (blocks > max_blocks)
            return krt__error(KRT_ECOOPERATIVE,
                              "%s: grid (%u, %u, %u) has %llu blocks; at "
                              "most %u blocks of (%u, %u, %u) threads can be "
                              "resident at once for a cooperative launch",
                              who, g.x, g.y, g.z, (unsigned long long)blocks,
                              max_blocks, t.x, t.y, t.z);
        status = b->launch_cooperative(k, &cfg, args);
    } else {
        status = b->launch(k, &cfg, args);
    }
    if (status != KRT_OK)
        return krt_backend_failed(status, who);
    return KRT_OK;
}

int krt_launch(const krt_kernel *k, krt_launch_cfg cfg, void **args)
{
    return krt_launch_checked(k, cfg, args, "krt_launch", 0);
}

int krt_launch_cooperative(const krt_kernel *k, krt_launch_cfg cfg,
                           void **args)
{
    return krt_launch_checked(k, cfg, args, "krt_launch_cooperative", 1);
}

/* Block shape and shared memory as a launch would check them. */
static int krt_check_block(const char *who, krt_dim3 t, size_t shared)
{
    uint64_t threads = (uint64_t)t.x * t.y * t.z;

    if (t.x == 0 || t.y == 0 || t.z == 0)
        return krt__error(KRT_ELAUNCH, "%s: block (%u, %u, %u) has a zero "
                          "dimension", who, t.x, t.y, t.z);
    if (t.x > 1024 || t.y > 1024 || t.z > 64 ||
        threads > KRT_MAX_BLOCK_THREADS)
        return krt__error(KRT_EBLOCKSIZE,
                          "%s: block (%u, %u, %u) has %llu threads; at most "
                          "1024 threads, with x and y at most 1024 and z at "
                          "most 64",
                          who, t.x, t.y, t.z, (unsigned long long)threads);
    if (shared > KRT_MAX_SHARED_BYTES)
        return krt__error(KRT_ESHARED,
                          "%s: %zu bytes of dynamic shared memory; at most "
                          "%zu bytes per block",
                          who, shared, KRT_MAX_SHARED_BYTES);
    return KRT_OK;
}

int krt_max_cooperative_grid(unsigned *blocks, const krt_kernel *k,
                             krt_dim3 block, size_t shared_bytes)
{
    const krt_backend *b;
    size_t static_shared;
    unsigned max_threads;
    char who[160];
    int status;

    if (blocks == NULL)
        return krt__error(KRT_EINVAL,
                          "krt_max_cooperative_grid: blocks is NULL");
    *blocks = 0;
    if (k == NULL)
        return krt__error(KRT_EINVAL,
                          "krt_max_cooperative_grid: kernel is NULL");
    snprintf(who, sizeof who, "krt_max_cooperative_grid: kernel '%s'",
             k->name ? k->name : "?");
    KRT_TRY(krt_backend_get(&b, who));
    KRT_TRY(krt_check_block(who, block, shared_bytes));
    status = b->kernel_limits(k, &static_shared, &max_threads);
    if (status != KRT_OK)
        return krt_backend_failed(status, who);
    if ((uint64_t)block.x * block.y * block.z > max_threads)
        return krt__error(KRT_EBLOCKSIZE,
                          "%s: this kernel allows at most %u threads per "
                          "block", who, max_threads);
    if (static_shared > KRT_MAX_SHARED_BYTES ||
        shared_bytes > KRT_MAX_SHARED_BYTES - static_shared)
        return krt__error(KRT_ESHARED,
                          "%s: %zu bytes of static and %zu bytes of dynamic "
                          "shared memory; at most %zu bytes per block",
                          who, static_shared, shared_bytes,
                          KRT_MAX_SHARED_BYTES);
    status = b->max_cooperative(k, block, shared_bytes, blocks);
    return krt_backend_result(status, who);
}

int krt_forall(krt_launch_cfg *out, const krt_kernel *k, int64_t n)
{
    const krt_backend *b;
    unsigned block = 0;
    int64_t grid;
    char who[160];
    int status;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_forall: out is NULL");
    *out = krt_grid1(0, 0);
    if (k == NULL)
        return krt__error(KRT_EINVAL, "krt_forall: kernel is NULL");
    snprintf(who, sizeof who, "krt_forall: kernel '%s'",
             k->name ? k->name : "?");
    if (n <= 0)
        return krt__error(KRT_EINVAL,
                          "%s: %lld threads; forall needs at least one",
                          who, (long long)n);
    KRT_TRY(krt_backend_get(&b, who));
    status = b->forall_block(k, n, &block);
    if (status != KRT_OK)
        return krt_backend_failed(status, who);
    if (block == 0 || block > KRT_MAX_BLOCK_THREADS)
        return krt__error(KRT_EINTERNAL, "%s: backend chose %u threads per "
                          "block", who, block);
    grid = (n - 1) / block + 1;
    if (grid > INT_MAX)
        return krt__error(KRT_ELAUNCH,
                          "%s: %lld threads need more than 2147483647 "
                          "blocks of %u",
                          who, (long long)n, block);
    *out = krt_grid1((unsigned)grid, block);
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* More transfers, wrapping                                            */
/* ------------------------------------------------------------------ */

int krt_copy_to_device(krt_array dst, const void *host, krt_stream *stream)
{
    const krt_backend *b;
    size_t nbytes;
    int status, saved;

    KRT_TRY(krt_backend_get(&b, "krt_copy_to_device"));
    KRT_TRY(krt_check_usable(&dst, "krt_copy_to_device: array", b));
    nbytes = krt_array_nbytes(&dst);
    if (host == NULL && nbytes > 0)
        return krt__error(KRT_EINVAL,
                          "krt_copy_to_device: host pointer is NULL");
    if (!krt_array_is_contiguous(&dst))
        return krt__error(KRT_ELAYOUT, "krt_copy_to_device: the device "
                          "array is not C-contiguous");
    KRT_TRY(krt_check_stream(stream, "krt_copy_to_device"));
    KRT_TRY(krt_check_stream_on(stream, dst.device, "krt_copy_to_device"));
    if (nbytes == 0)
        return KRT_OK;
    KRT_TRY(krt_check_host_span(host, nbytes, "krt_copy_to_device"));
    KRT_TRY(krt_enter_device(b, dst.device, &saved, "krt_copy_to_device"));
    status = b->copy_to_device(dst.data, host, nbytes, stream);
    krt_leave_device(b, dst.device, saved);
    return krt_backend_result(status, "krt_copy_to_device");
}

int krt_copy_device(krt_array dst, krt_array src, krt_stream *stream)
{
    const krt_backend *b;
    size_t nbytes;
    int status, d, saved;

    KRT_TRY(krt_backend_get(&b, "krt_copy_device"));
    KRT_TRY(krt_check_usable(&dst, "krt_copy_device: destination", b));
    KRT_TRY(krt_check_usable(&src, "krt_copy_device: source", b));
    if (dst.dtype != src.dtype)
        return krt__error(KRT_EDTYPE,
                          "krt_copy_device: destination is %s, source is %s",
                          krt_dtype_name(dst.dtype),
                          krt_dtype_name(src.dtype));
    if (dst.ndim != src.ndim)
        return krt__error(KRT_ESHAPE,
                          "krt_copy_device: destination has %d dimensions, "
                          "source %d",
                          dst.ndim, src.ndim);
    for (d = 0; d < dst.ndim; d++)
        if (dst.shape[d] != src.shape[d])
            return krt__error(KRT_ESHAPE,
                              "krt_copy_device: dimension %d is %lld in the "
                              "destination, %lld in the source",
                              d, (long long)dst.shape[d],
                              (long long)src.shape[d]);
    if (!krt_array_is_contiguous(&dst) || !krt_array_is_contiguous(&src))
        return krt__error(KRT_ELAYOUT, "krt_copy_device: the %s is not "
                          "C-contiguous",
                          krt_array_is_contiguous(&dst) ? "source"
                                                        : "destination");
    KRT_TRY(krt_check_stream(stream, "krt_copy_device"));
    if (stream != NULL && stream->device != dst.device &&
        stream->device != src.device)
        return krt__error(KRT_EDEVICE, "krt_copy_device: the stream belongs "
                          "to device %d, the arrays to devices %d and %d",
                          stream->device, dst.device, src.device);
    nbytes = krt_array_nbytes(&dst);
    if (nbytes == 0 || dst.data == src.data)
        return KRT_OK;
    if (dst.device != src.device) {
        /* Across devices: a peer copy (the source's memory stays where it
         * is; no peer access needed). */
        status = b->copy_peer(dst.data, dst.device, src.data, src.device,
                              nbytes, stream);
        return krt_backend_result(status, "krt_copy_device");
    }
    KRT_TRY(krt_enter_device(b, dst.device, &saved, "krt_copy_device"));
    status = b->copy_device(dst.data, src.data, nbytes, stream);
    krt_leave_device(b, dst.device, saved);
    return krt_backend_result(status, "krt_copy_device");
}

int krt_device_array_like(krt_array *out, krt_array like)
{
    const krt_backend *b;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_device_array_like: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_backend_get(&b, "krt_device_array_like"));
    KRT_TRY(krt_check_usable(&like, "krt_device_array_like: array", b));
    return krt_alloc(out, like.dtype, like.ndim, like.shape);
}

int krt_wrap(krt_array *out, void *device_ptr, krt_dtype dtype, int ndim,
             const int64_t *shape, const int64_t *strides_or_null)
{
    const krt_backend *b;
    size_t nbytes;
    int d;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_wrap: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_check_shape("krt_wrap", dtype, ndim, shape, &nbytes));
    if (device_ptr == NULL && nbytes > 0)
        return krt__error(KRT_EINVAL, "krt_wrap: device pointer is NULL");
    KRT_TRY(krt_backend_get(&b, "krt_wrap"));
    krt_array_init(out, dtype, ndim, shape, b);
    if (strides_or_null != NULL)
        for (d = 0; d < ndim; d++)
            out->strides[d] = strides_or_null[d];
    out->data = device_ptr;
    out->flags = 0;                  /* not ours to free */
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* Views                                                               */
/* ------------------------------------------------------------------ */

/* The common end of the three: out is a's header with new geometry; it
 * owns nothing, and must stay inside a's allocation. */
static int krt_view_finish(krt_array *out, const char *who,
                           const krt_backend *b)
{
    char what[96];

    out->flags &= ~KRT_ARRAY_OWNED;
    snprintf(what, sizeof what, "%s: the view", who);
    return krt_check_usable(out, what, b);
}

int krt_array_slice(krt_array *out, krt_array a, int dim, int64_t start,
                    int64_t stop, int64_t step)
{
    const krt_backend *b;
    int64_t len, n;
    krt_array v;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_array_slice: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_backend_get(&b, "krt_array_slice"));
    KRT_TRY(krt_check_usable(&a, "krt_array_slice: array", b));
    if (dim < 0 || dim >= a.ndim)
        return krt__error(KRT_EINVAL, "krt_array_slice: dimension %d of an "
                          "array of %d", dim, a.ndim);
    if (step == 0 || step == INT64_MIN)
        return krt__error(KRT_EINVAL, "krt_array_slice: step %lld",
                          (long long)step);
    len = a.shape[dim];
    /* CPython's PySlice_AdjustIndices, with KRT_SLICE_END as None. */
    if (start == KRT_SLICE_END)
        start = step > 0 ? 0 : len - 1;
    else if (start < 0) {
        start = start < -len ? (step > 0 ? 0 : -1) : start + len;
    } else if (start >= len)
        start = step > 0 ? len : len - 1;
    if (stop == KRT_SLICE_END)
        stop = step > 0 ? len : -1;
    else if (stop < 0) {
        stop = stop < -len ? (step > 0 ? 0 : -1) : stop + len;
    } else if (stop >= len)
        stop = step > 0 ? len : len - 1;
    if (step > 0)
        n = stop > start ? (stop - start - 1) / step + 1 : 0;
    else
        n = start > stop ? (start - stop - 1) / -step + 1 : 0;
    v = a;
    if (n > 0)
        v.data = (char *)a.data + start * a.strides[dim];
    v.shape[dim] = n;
    /* With one element or none the stride is never used (and a huge step
     * may not fit). */
    if (__builtin_mul_overflow(a.strides[dim], step, &v.strides[dim])) {
        if (n > 1)
            return krt__error(KRT_EBOUNDS, "krt_array_slice: stride %lld "
                              "times step %lld does not fit",
                              (long long)a.strides[dim], (long long)step);
        v.strides[dim] = a.strides[dim];
    }
    KRT_TRY(krt_view_finish(&v, "krt_array_slice", b));
    *out = v;
    return KRT_OK;
}

int krt_array_index(krt_array *out, krt_array a, int64_t index)
{
    const krt_backend *b;
    krt_array v;
    int d;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_array_index: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_backend_get(&b, "krt_array_index"));
    KRT_TRY(krt_check_usable(&a, "krt_array_index: array", b));
    if (a.ndim < 2)
        return krt__error(KRT_ENDIM, "krt_array_index: a %d-D array has no "
                          "sub-arrays (slice it instead)", a.ndim);
    if (index < -a.shape[0] || index >= a.shape[0])
        return krt__error(KRT_EBOUNDS, "krt_array_index: index %lld is out "
                          "of bounds for dimension 0 of extent %lld",
                          (long long)index, (long long)a.shape[0]);
    if (index < 0)
        index += a.shape[0];
    v = a;
    v.data = (char *)a.data + index * a.strides[0];
    v.ndim = a.ndim - 1;
    for (d = 0; d < KRT_MAX_NDIM; d++) {
        v.shape[d] = d < v.ndim ? a.shape[d + 1] : 0;
        v.strides[d] = d < v.ndim ? a.strides[d + 1] : 0;
    }
    KRT_TRY(krt_view_finish(&v, "krt_array_index", b));
    *out = v;
    return KRT_OK;
}

int krt_array_view(krt_array *out, krt_array a, int64_t offset_bytes,
                   int ndim, const int64_t *shape, const int64_t *strides)
{
    const krt_backend *b;
    size_t nbytes;
    krt_array v;
    int64_t stride;
    int d;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_array_view: out is NULL");
    memset(out, 0, sizeof *out);
    KRT_TRY(krt_backend_get(&b, "krt_array_view"));
    KRT_TRY(krt_check_usable(&a, "krt_array_view: array", b));
    KRT_TRY(krt_check_shape("krt_array_view", a.dtype, ndim, shape, &nbytes));
    v = a;
    v.ndim = ndim;
    v.data = (char *)a.data + offset_bytes;
    stride = (int64_t)krt_dtype_size(a.dtype);
    for (d = KRT_MAX_NDIM - 1; d >= 0; d--) {
        v.shape[d] = d < ndim ? shape[d] : 0;
        v.strides[d] = d >= ndim ? 0 : strides != NULL ? strides[d] : stride;
        if (d < ndim)
            stride *= shape[d] > 0 ? shape[d] : 1;
    }
    if (a.id == 0 && a.data == NULL && krt_array_size(&v) > 0)
        return krt__error(KRT_ENULLARRAY, "krt_array_view: array has no data");
    KRT_TRY(krt_view_finish(&v, "krt_array_view", b));
    *out = v;
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* Mapped host memory                                                  */
/* ------------------------------------------------------------------ */

static int krt_pin_add(void *p, size_t bytes, int kind);

int krt_mapped_array(krt_array *out, void **host, krt_dtype dtype, int ndim,
                     const int64_t *shape)
{
    const krt_backend *b;
    size_t nbytes;
    void *h = NULL, *dev = NULL;
    int status;

    if (out == NULL || host == NULL)
        return krt__error(KRT_EINVAL, "krt_mapped_array: %s is NULL",
                          out == NULL ? "out" : "host");
    memset(out, 0, sizeof *out);
    *host = NULL;
    KRT_TRY(krt_check_shape("krt_mapped_array", dtype, ndim, shape, &nbytes));
    KRT_TRY(krt_backend_get(&b, "krt_mapped_array"));
    if (nbytes > 0) {
        status = b->mapped_alloc(&h, &dev, nbytes);
        if (status != KRT_OK)
            return krt_backend_failed(status, "krt_mapped_array");
        if (krt_pin_add(h, nbytes, 2) != KRT_OK) {
            b->host_free(h);
            return krt__error(KRT_ENOMEM, "krt_mapped_array: out of memory");
        }
    }
    krt_array_init(out, dtype, ndim, shape, b);
    out->data = dev;
    out->flags |= KRT_ARRAY_MAPPED;
    status = krt_array_register(out, h, nbytes, "krt_mapped_array");
    if (status != KRT_OK) {
        if (h != NULL) {
            krt_pin_remove(h, 2);
            b->host_free(h);
        }
        memset(out, 0, sizeof *out);
        return status;
    }
    *host = h;
    return KRT_OK;
}

void *krt_device_ptr(krt_array a)
{
    return a.data;
}

/* ------------------------------------------------------------------ */
/* Pinned host memory                                                  */
/* ------------------------------------------------------------------ */

/* What is pinned: host allocations and registered ranges, so that freeing
 * or unregistering something else is refused on both backends alike. */
typedef struct krt_pinned {
    char *p;
    size_t bytes;
    int kind;                        /* 0 krt_host_alloc, 1 krt_host_register,
                                        2 krt_mapped_array */
} krt_pinned;

static struct {
    pthread_mutex_t lock;
    krt_pinned *items;
    size_t n, cap;
} krt_pins = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* Called with the lock held: the entry for p, or one overlapping
 * [p, p + bytes) when bytes > 0; -1 if none. */
static long krt_pin_find(const char *p, size_t bytes)
{
    size_t i;

    for (i = 0; i < krt_pins.n; i++) {
        krt_pinned *e = &krt_pins.items[i];
        if (e->p == p ||
            (bytes > 0 && p < e->p + e->bytes && e->p < p + bytes))
            return (long)i;
    }
    return -1;
}

static int krt_pin_add(void *p, size_t bytes, int kind)
{
    int status = KRT_OK;

    pthread_mutex_lock(&krt_pins.lock);
    if (krt_pins.n == krt_pins.cap) {
        size_t cap = krt_pins.cap ? 2 * krt_pins.cap : 16;
        krt_pinned *items = realloc(krt_pins.items, cap * sizeof *items);
        if (items == NULL)
            status = KRT_ENOMEM;
        else {
            krt_pins.items = items;
            krt_pins.cap = cap;
        }
    }
    if (status == KRT_OK) {
        krt_pinned *e = &krt_pins.items[krt_pins.n++];
        e->p = p;
        e->bytes = bytes;
        e->kind = kind;
    }
    pthread_mutex_unlock(&krt_pins.lock);
    return status;
}

/* Remove the entry of p of the given kind; 0 if there is none. */
static int krt_pin_remove(void *p, int kind)
{
    long i;
    int found = 0;

    pthread_mutex_lock(&krt_pins.lock);
    i = krt_pin_find(p, 0);
    if (i >= 0 && krt_pins.items[i].p == (char *)p &&
        krt_pins.items[i].kind == kind) {
        krt_pins.items[i] = krt_pins.items[--krt_pins.n];
        found = 1;
    }
    pthread_mutex_unlock(&krt_pins.lock);
    return found;
}

/* A host range of a copy: if it starts in a pinned buffer, it must end
 * there too (the runtime knows that buffer's size; other memory it cannot
 * check). */
static int krt_check_host_span(const void *host, size_t nbytes,
                               const char *who)
{
    const char *h = host;
    size_t i;
    int status = KRT_OK;

    if (host == NULL || nbytes == 0)
        return KRT_OK;
    pthread_mutex_lock(&krt_pins.lock);
    for (i = 0; i < krt_pins.n; i++) {
        const krt_pinned *e = &krt_pins.items[i];
        if (h >= e->p && h < e->p + e->bytes) {
            size_t room = (size_t)(e->p + e->bytes - h);
            if (nbytes > room)
                status = krt__error(KRT_EBOUNDS, "%s: the copy needs %zu "
                                    "bytes at %p, but the %s buffer there "
                                    "has %zu bytes left (of %zu)",
                                    who, nbytes, host,
                                    e->kind == 0   ? "pinned"
                                    : e->kind == 1 ? "registered"
                                                   : "mapped",
                                    room, e->bytes);
            break;
        }
    }
    pthread_mutex_unlock(&krt_pins.lock);
    return status;
}

int krt_host_alloc(void **p, size_t bytes)
{
    const krt_backend *b;
    int status;

    if (p == NULL)
        return krt__error(KRT_EINVAL, "krt_host_alloc: p is NULL");
    *p = NULL;
    if (bytes == 0)
        return krt__error(KRT_EINVAL, "krt_host_alloc: size is 0");
    KRT_TRY(krt_backend_get(&b, "krt_host_alloc"));
    status = b->host_alloc(p, bytes);
    if (status != KRT_OK)
        return krt_backend_failed(status, "krt_host_alloc");
    if (krt_pin_add(*p, bytes, 0) != KRT_OK) {
        b->host_free(*p);
        *p = NULL;
        return krt__error(KRT_ENOMEM, "krt_host_alloc: out of memory");
    }
    return KRT_OK;
}

int krt_host_free(void *p)
{
    const krt_backend *b;
    int status;

    if (p == NULL)
        return KRT_OK;
    KRT_TRY(krt_backend_get(&b, "krt_host_free"));
    if (!krt_pin_remove(p, 0))
        return krt__error(KRT_EINVAL, "krt_host_free: %p was not allocated "
                          "by krt_host_alloc (or was freed)", p);
    status = b->host_free(p);
    return krt_backend_result(status, "krt_host_free");
}

int krt_host_register(void *p, size_t bytes)
{
    const krt_backend *b;
    long i;
    int status;

    if (p == NULL || bytes == 0)
        return krt__error(KRT_EINVAL, "krt_host_register: %s",
                          p == NULL ? "pointer is NULL" : "size is 0");
    KRT_TRY(krt_backend_get(&b, "krt_host_register"));
    pthread_mutex_lock(&krt_pins.lock);
    i = krt_pin_find(p, bytes);
    pthread_mutex_unlock(&krt_pins.lock);
    if (i >= 0)
        return krt__error(KRT_EINVAL, "krt_host_register: [%p, +%zu) "
                          "overlaps memory that is already pinned",
                          p, bytes);
    status = b->host_register(p, bytes);
    if (status != KRT_OK)
        return krt_backend_failed(status, "krt_host_register");
    if (krt_pin_add(p, bytes, 1) != KRT_OK) {
        b->host_unregister(p);
        return krt__error(KRT_ENOMEM, "krt_host_register: out of memory");
    }
    return KRT_OK;
}

int krt_host_unregister(void *p)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_host_unregister"));
    if (p == NULL || !krt_pin_remove(p, 1))
        return krt__error(KRT_EINVAL, "krt_host_unregister: %p is not "
                          "registered", p);
    status = b->host_unregister(p);
    return krt_backend_result(status, "krt_host_unregister");
}

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */

/* The one body of krt_stream_create and krt_event_create: allocate the
 * handle, let the backend set it up, and register it, so that later calls
 * can tell it from a destroyed one.  is_event picks the kind. */
static int krt_handle_create(void **out, int is_event, const char *who)
{
    const krt_backend *b;
    void *h;
    int status;

    KRT_TRY(krt_backend_get(&b, who));
    h = calloc(1, is_event ? sizeof(krt_event) : sizeof(krt_stream));
    if (h == NULL)
        return krt__error(KRT_ENOMEM, "%s: out of memory", who);
    if (is_event)
        ((krt_event *)h)->device = krt_cur_dev;
    else
        ((krt_stream *)h)->device = krt_cur_dev;
    status = is_event ? b->event_create(h) : b->stream_create(h);
    if (status != KRT_OK) {
        free(h);
        return krt_backend_failed(status, who);
    }
    if (krt_registry_add(is_event ? &krt_events : &krt_streams, h)
        != KRT_OK) {
        if (is_event)
            b->event_destroy(h);
        else
            b->stream_destroy(h);
        free(h);
        return krt__error(KRT_ENOMEM, "%s: out of memory", who);
    }
    *out = h;
    return KRT_OK;
}

int krt_stream_create(krt_stream **s)
{
    void *h;

    if (s == NULL)
        return krt__error(KRT_EINVAL, "krt_stream_create: s is NULL");
    *s = NULL;
    KRT_TRY(krt_handle_create(&h, 0, "krt_stream_create"));
    *s = h;
    return KRT_OK;
}

int krt_stream_destroy(krt_stream *s)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_stream_destroy"));
    if (s == NULL)
        return krt__error(KRT_EINVAL, "krt_stream_destroy: the default "
                          "stream cannot be destroyed");
    /* Out of the registry first: no other call may start using it. */
    if (!krt_registry_remove(&krt_streams, s))
        return krt_check_stream(s, "krt_stream_destroy");
    status = b->stream_destroy(s);
    free(s);
    krt_reap(b, 0);
    return krt_backend_result(status, "krt_stream_destroy");
}

int krt_stream_device(int *dev, krt_stream *s)
{
    const krt_backend *b;

    if (dev == NULL)
        return krt__error(KRT_EINVAL, "krt_stream_device: dev is NULL");
    *dev = 0;
    KRT_TRY(krt_backend_get(&b, "krt_stream_device"));
    KRT_TRY(krt_check_stream(s, "krt_stream_device"));
    *dev = s != NULL ? s->device : krt_cur_dev;
    return KRT_OK;
}

int krt_stream_synchronize(krt_stream *s)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_stream_synchronize"));
    KRT_TRY(krt_check_stream(s, "krt_stream_synchronize"));
    status = s == NULL ? b->synchronize() : b->stream_synchronize(s);
    krt_reap(b, 0);
    return krt_backend_result(status, "krt_stream_synchronize");
}

int krt_stream_query(krt_stream *s)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_stream_query"));
    if (s == NULL)
        return krt__error(KRT_EINVAL, "krt_stream_query: the default "
                          "stream cannot be queried; use krt_synchronize");
    KRT_TRY(krt_check_stream(s, "krt_stream_query"));
    status = b->stream_query(s);
    if (status == KRT_ENOTREADY)
        return krt__error(status, "krt_stream_query: work is pending");
    return krt_backend_result(status, "krt_stream_query");
}

int krt_stream_wait_event(krt_stream *s, krt_event *e)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_stream_wait_event"));
    KRT_TRY(krt_check_stream(s, "krt_stream_wait_event"));
    KRT_TRY(krt_check_event(e, "krt_stream_wait_event"));
    status = b->stream_wait_event(s, e);
    return krt_backend_result(status, "krt_stream_wait_event");
}

int krt_event_create(krt_event **e)
{
    void *h;

    if (e == NULL)
        return krt__error(KRT_EINVAL, "krt_event_create: e is NULL");
    *e = NULL;
    KRT_TRY(krt_handle_create(&h, 1, "krt_event_create"));
    *e = h;
    return KRT_OK;
}

int krt_event_destroy(krt_event *e)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_event_destroy"));
    if (e == NULL || !krt_registry_remove(&krt_events, e))
        return krt_check_event(e, "krt_event_destroy");
    status = b->event_destroy(e);
    free(e);
    return krt_backend_result(status, "krt_event_destroy");
}

int krt_event_record(krt_event *e, krt_stream *s)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_event_record"));
    KRT_TRY(krt_check_event(e, "krt_event_record"));
    KRT_TRY(krt_check_stream(s, "krt_event_record"));
    if ((s != NULL ? s->device : krt_cur_dev) != e->device)
        return krt__error(KRT_EDEVICE, "krt_event_record: the event belongs "
                          "to device %d, the stream to device %d", e->device,
                          s != NULL ? s->device : krt_cur_dev);
    status = b->event_record(e, s);
    if (status != KRT_OK)
        return krt_backend_failed(status, "krt_event_record");
    __atomic_store_n(&e->recorded, 1, __ATOMIC_RELEASE);
    return KRT_OK;
}

int krt_event_synchronize(krt_event *e)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_event_synchronize"));
    KRT_TRY(krt_check_event(e, "krt_event_synchronize"));
    status = b->event_synchronize(e);
    return krt_backend_result(status, "krt_event_synchronize");
}

int krt_event_query(krt_event *e)
{
    const krt_backend *b;
    int status;

    KRT_TRY(krt_backend_get(&b, "krt_event_query"));
    KRT_TRY(krt_check_event(e, "krt_event_query"));
    status = b->event_query(e);
    if (status == KRT_ENOTREADY)
        return krt__error(status, "krt_event_query: the event's last "
                          "record is pending");
    return krt_backend_result(status, "krt_event_query");
}

int krt_event_elapsed_ms(float *ms, krt_event *start, krt_event *end)
{
    const krt_backend *b;
    int status;

    if (ms == NULL)
        return krt__error(KRT_EINVAL, "krt_event_elapsed_ms: ms is NULL");
    *ms = 0.0f;
    KRT_TRY(krt_backend_get(&b, "krt_event_elapsed_ms"));
    KRT_TRY(krt_check_event(start, "krt_event_elapsed_ms: start"));
    KRT_TRY(krt_check_event(end, "krt_event_elapsed_ms: end"));
    if (!__atomic_load_n(&start->recorded, __ATOMIC_ACQUIRE) ||
        !__atomic_load_n(&end->recorded, __ATOMIC_ACQUIRE))
        return krt__error(KRT_EINVAL, "krt_event_elapsed_ms: the %s event "
                          "was never recorded",
                          !start->recorded ? "start" : "end");
    status = b->event_elapsed_ms(ms, start, end);
    if (status == KRT_ENOTREADY)
        return krt__error(status, "krt_event_elapsed_ms: a record is "
                          "still pending");
    return krt_backend_result(status, "krt_event_elapsed_ms");
}
