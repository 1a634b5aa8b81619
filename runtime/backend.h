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

    /* bytes > 0.  *ptr is aligned to at least 64 bytes. */
    int (*alloc)(void **ptr, size_t bytes);
    int (*free)(void *ptr);
    /* bytes > 0; stream is NULL until streams exist. */
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
    /* Run the kernel; cfg was checked against the limits above. */
    int (*launch)(const krt_kernel *k, const krt_launch_cfg *cfg, void **args);
    /* Wait for all outstanding work. */
    int (*synchronize)(void);
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

#endif /* KRT_BACKEND_H */
