/*
 * kernrt_ffi.h - foreign CUDA C device functions on kernc's CPU backend
 * (cuda.declare_device; kernc's src/ffi.c).  The generated CPU code sets
 * the calling thread's indices before each foreign call (krt_ffi_enter),
 * so that the foreign source, compiled as C++ with kernrt_cuda_compat.h,
 * reads threadIdx, blockIdx, blockDim and gridDim as on the GPU; a nonzero
 * status of a numba-ABI function fails the launch (krt_ffi_fail).
 */
#ifndef KERNRT_FFI_H
#define KERNRT_FFI_H

#include <kernrt.h>

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krt_ffi_thread {
    krt_dim3 thread_idx, block_idx, block_dim, grid_dim;
} krt_ffi_thread;

/* This host thread's: the CPU thread of the block whose foreign call runs. */
krt_ffi_thread *krt_ffi_current(void);

#ifdef __cplusplus
}
#endif

static inline void krt_ffi_enter(const krt_cpu_block *b, krt_dim3 t)
{
    krt_ffi_thread *c = krt_ffi_current();
    c->thread_idx = t;
    c->block_idx = b->block_idx;
    c->block_dim = b->block_dim;
    c->grid_dim = b->grid_dim;
}

/* numba's ABI: a nonzero status is an exception the caller propagates (on
 * the GPU the thread ends); the CPU backend cannot end one thread of a
 * block, so the launch fails with the status. */
static inline void krt_ffi_fail(const krt_cpu_block *b, krt_dim3 t, const char *name, int status)
{
    char msg[256];
    snprintf(msg, sizeof msg,
             "foreign function '%s' returned status %d (block (%u,%u,%u), thread (%u,%u,%u))",
             name, status, b->block_idx.x, b->block_idx.y, b->block_idx.z, t.x, t.y, t.z);
    krt_cpu_fail(b, KRT_EKERNEL, msg);
}

#endif
