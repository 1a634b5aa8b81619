/*
 * backend.h - the internal interface between libkernrt's front (krt.c) and
 * its backends (cpu.c, cuda.c).
 *
 * krt.c validates every argument, chooses the backend once (KRT_BACKEND or
 * krt_set_backend) and then talks to it only through one krt_backend, a table
 * of function pointers; nothing above this header knows which backend runs.
 * A backend may assume its arguments were checked: sizes are non-zero where
 * it copies or allocates, pointers are its own, launch configurations respect
 * the CUDA limits.  Every entry returns a KRT_* status and, on failure, sets
 * the thread's detailed message through krt__error().
 *
 * Symbols declared here are internal: hidden from the shared library's
 * dynamic symbol table (KRT_INTERNAL), spelled krt__ so they cannot clash
 * with the public krt_ names.
 */
#ifndef KRT_BACKEND_H
#define KRT_BACKEND_H

#include <stdarg.h>
#include <stddef.h>

#include "kernrt.h"

#if defined(__GNUC__)
#define KRT_INTERNAL __attribute__((visibility("hidden")))
#define KRT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define KRT_INTERNAL
#define KRT_PRINTF(fmt, args)
#endif

/* krt_array.backend: which backend owns the data (0: none, a zeroed array). */
enum {
    KRT_BACKEND_NONE = 0,
    KRT_BACKEND_CPU = 1,
    KRT_BACKEND_CUDA = 2
};

/* The handles krt.c gives out: it keeps the live ones in a registry (so an
 * unknown handle is refused before a backend sees it) and wraps the
 * backend's own object, impl.  A NULL krt_stream * is the default stream. */
struct krt_stream {
    void *impl;
    int device;                      /* the device current at creation */
};
struct krt_event {
    void *impl;
    int recorded;                    /* krt_event_record succeeded once */
    int device;                      /* the device current at creation */
};

/* Static shared memory a block may use without opt-in, as CUDA. */
#define KRT_MAX_SHARED_BYTES ((size_t)48 * 1024)
#define KRT_MAX_BLOCK_THREADS 1024u

typedef struct krt_backend {
    const char *name;                /* "cpu", "cuda" */
    int id;                          /* KRT_BACKEND_* */
    int host_visible;                /* device memory is host memory */

    /* Probe and set up; called once, under krt.c's lock.  KRT_ENODEVICE when
     * there is nothing to run on. */
    int (*init)(void);

    /* bytes > 0.  *ptr is aligned to at least 64 bytes.  On the calling
     * thread's current device (set_device). */
    int (*alloc)(void **ptr, size_t bytes);
    /* Waits for the work queued on every stream first, as cudaFree. */
    int (*free)(void *ptr);
    /* No queued work uses ptr any more (krt_free_async checked an event):
     * release it without waiting, where the backend can. */
    int (*release)(void *ptr);
    /* bytes > 0; stream NULL: the default stream, the copy is done when
     * the call returns; else queued on the stream. */
    int (*copy_to_device)(void *dst, const void *src, size_t bytes,
                          krt_stream *stream);
    int (*copy_to_host)(void *dst, const void *src, size_t bytes,
                        krt_stream *stream);
    int (*copy_device)(void *dst, const void *src, size_t bytes,
                       krt_stream *stream);

    /* What this backend knows of a kernel: its static shared memory and the
     * most threads a block of it may have (CUDA: registers limit it).
     * KRT_ENOCODE when the kernel has no code for this backend. */
    int (*kernel_limits)(const krt_kernel *k, size_t *static_shared,
                         unsigned *max_threads);
    /* Run the kernel; cfg was checked against the limits above.  On a
     * stream (cfg->stream) the argument values are copied when queued. */
    int (*launch)(const krt_kernel *k, const krt_launch_cfg *cfg, void **args);
    /* Wait for all outstanding work; return (once) an error that queued
     * work raised. */
    int (*synchronize)(void);

    /* Streams and events: s and e are never NULL here except where said. */
    int (*stream_create)(krt_stream *s);
    int (*stream_destroy)(krt_stream *s);
    int (*stream_synchronize)(krt_stream *s);
    int (*stream_query)(krt_stream *s);          /* KRT_ENOTREADY if busy */
    int (*stream_wait_event)(krt_stream *s, krt_event *e);     /* s NULL ok */
    /* Queue fn(arg) on s after the work queued before it; fn must not call
     * the runtime.  s NULL: run it now, after the work queued on every
     * stream (the default stream's rule). */
    int (*host_fn)(krt_stream *s, void (*fn)(void *), void *arg);
    int (*event_create)(krt_event *e);
    int (*event_destroy)(krt_event *e);
    int (*event_record)(krt_event *e, krt_stream *s);          /* s NULL ok */
    int (*event_synchronize)(krt_event *e);
    int (*event_query)(krt_event *e);            /* KRT_ENOTREADY if busy */
    /* Both events were recorded (krt.c checks). */
    int (*event_elapsed_ms)(float *ms, krt_event *start, krt_event *end);

    /* Devices: count >= 1 once init succeeded; dev < count below. */
    int (*device_count)(int *count);
    /* props is zeroed; fill what the backend knows. */
    int (*device_props)(int dev, krt_device_props *props);
    /* Make dev the calling thread's current device. */
    int (*set_device)(int dev);
    int (*can_access_peer)(int *can, int dev, int peer);
    /* Let the current device's kernels reach peer's memory (enabling it
     * twice is fine). */
    int (*enable_peer)(int peer);
    /* bytes > 0, dst_dev != src_dev; stream NULL: done on return. */
    int (*copy_peer)(void *dst, int dst_dev, const void *src, int src_dev,
                     size_t bytes, krt_stream *stream);
    /* Mapped pinned host memory: *host and *dev address the same bytes
     * (bytes > 0); released with host_free(*host). */
    int (*mapped_alloc)(void **host, void **dev, size_t bytes);

    /* Pinned host memory; krt.c keeps the bookkeeping of what is pinned. */
    int (*host_alloc)(void **p, size_t bytes);
    int (*host_free)(void *p);
    int (*host_register)(void *p, size_t bytes);
    int (*host_unregister)(void *p);

    /* The block size that maximises occupancy for forall (dynamic shared
     * memory 0). */
    int (*forall_block)(const krt_kernel *k, int64_t n, unsigned *block);
    /* The most co-resident blocks of this shape (block checked). */
    int (*max_cooperative)(const krt_kernel *k, krt_dim3 block,
                           size_t shared_bytes, unsigned *blocks);
    /* A launch whose blocks are all resident at once (grid checked). */
    int (*launch_cooperative)(const krt_kernel *k, const krt_launch_cfg *cfg,
                              void **args);
} krt_backend;

extern const krt_backend krt__cpu_backend KRT_INTERNAL;
#ifdef KRT_HAVE_CUDA
extern const krt_backend krt__cuda_backend KRT_INTERNAL;
#endif

/* Set this thread's detailed message (printf format) and return status. */
int krt__error(int status, const char *fmt, ...) KRT_INTERNAL KRT_PRINTF(2, 3);
int krt__verror(int status, const char *fmt, va_list args) KRT_INTERNAL;
/* The message last set on this thread (for a backend that adds context). */
const char *krt__message(void) KRT_INTERNAL;

/* For runtime/random.c: check a stream handle ("%s: stream ..." names who),
 * and free a malloc'd host buffer once the work queued on stream before
 * this call is done (at once for the default stream). */
int krt__check_stream(krt_stream *stream, const char *who) KRT_INTERNAL;
int krt__free_after(krt_stream *stream, void *host, const char *who)
    KRT_INTERNAL;
/* For runtime/ufunc.c and reduce.c: an array a kernel of the current
 * device may be given (live, inside its allocation, on this device);
 * what names it in messages. */
int krt__check_launch_array(const krt_array *a, const char *what)
    KRT_INTERNAL;

#endif /* KRT_BACKEND_H */
