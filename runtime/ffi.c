/*
 * ffi.c - the CPU backend's side of foreign CUDA C device functions
 * (kernrt_ffi.h): each host thread's current CUDA thread, for the foreign
 * code's threadIdx & co (kernrt_cuda_compat.h).
 */
#include "config.h"

#include "kernrt_ffi.h"

static _Thread_local krt_ffi_thread krt_ffi_tls;

krt_ffi_thread *krt_ffi_current(void)
{
    return &krt_ffi_tls;
}
