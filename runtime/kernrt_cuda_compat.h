/*
 * kernrt_cuda_compat.h - compile a CUDA C source of device functions for
 * kernc's CPU backend, with a C++ compiler (or a C one, for sources
 * without extern "C"):
 *
 *     c++ -O2 -fPIC $(pkg-config --cflags kernrt) -include kernrt_cuda_compat.h \
 *         -x c++ -c times2.cu -o times2.cpu.o
 *
 * so that the file a .kern file links with cuda.declare_device(...,
 * link=['times2.cu']) serves both backends.  __device__, __host__,
 * __forceinline__, __noinline__, __restrict__ and __align__ mean what they
 * mean to a host compiler; threadIdx, blockIdx, blockDim and gridDim are
 * the calling CUDA thread's (kernc's CPU code sets them before each
 * foreign call: kernrt_ffi.h), warpSize is 32; atomicAdd, atomicSub,
 * atomicExch, atomicMin, atomicMax and atomicCAS are atomic (C++);
 * __ldg and the fast-math intrinsics __fdividef, __expf, __logf, __sinf,
 * __cosf, __powf, rsqrtf and rsqrt have their exact meaning.  What a
 * device function cannot do on the CPU backend is a compile error:
 * __syncthreads() and the warp functions (one CUDA thread runs at a time
 * there, between the kernel's barriers), __shared__ variables and
 * __global__ kernels.
 */
#ifndef KERNRT_CUDA_COMPAT_H
#define KERNRT_CUDA_COMPAT_H

#ifdef __CUDACC__
#error "kernrt_cuda_compat.h is for compiling CUDA C for kernc's CPU backend with a host compiler, not with nvcc"
#endif

#include <kernrt_ffi.h>

#include <math.h>
#include <stdint.h>

#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __inline__ inline
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __constant__
#define __managed__
/* refused: an undeclared name makes the compiler say where and what */
#define __global__ krt_cuda_compat_error__global_kernels_cannot_be_linked_into_the_cpu_backend
#define __shared__ krt_cuda_compat_error__shared_memory_in_foreign_device_code_is_not_supported_on_the_cpu_backend
#define __syncthreads() krt_cuda_compat_error__syncthreads_in_foreign_device_code_is_not_supported_on_the_cpu_backend()
#define __syncwarp krt_cuda_compat_error__warp_functions_in_foreign_device_code_are_not_supported_on_the_cpu_backend
#define __shfl_sync krt_cuda_compat_error__warp_functions_in_foreign_device_code_are_not_supported_on_the_cpu_backend
#define __shfl_down_sync krt_cuda_compat_error__warp_functions_in_foreign_device_code_are_not_supported_on_the_cpu_backend
#define __shfl_up_sync krt_cuda_compat_error__warp_functions_in_foreign_device_code_are_not_supported_on_the_cpu_backend
#define __shfl_xor_sync krt_cuda_compat_error__warp_functions_in_foreign_device_code_are_not_supported_on_the_cpu_backend
#define __ballot_sync krt_cuda_compat_error__warp_functions_in_foreign_device_code_are_not_supported_on_the_cpu_backend

typedef krt_dim3 uint3;
typedef krt_dim3 dim3;
#define threadIdx (krt_ffi_current()->thread_idx)
#define blockIdx (krt_ffi_current()->block_idx)
#define blockDim (krt_ffi_current()->block_dim)
#define gridDim (krt_ffi_current()->grid_dim)
#define warpSize 32

#define __ldg(p) (*(p))
#define __fdividef(a, b) ((a) / (b))
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __powf(x, y) powf(x, y)
#define rsqrtf(x) (1.0f / sqrtf(x))
#define rsqrt(x) (1.0 / sqrt(x))

#ifdef __cplusplus
template <typename T> static inline T krt_compat_cas_loop_(T *p, T v, int op)
{
    T old = __atomic_load_n(p, __ATOMIC_RELAXED), nv;
    do {
        nv = op == 0 ? old + v : op == 1 ? old - v : op == 2 ? (v < old ? v : old)
                                                            : (v > old ? v : old);
    } while (!__atomic_compare_exchange(p, &old, &nv, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
    return old;
}
template <typename T> static inline T atomicAdd(T *p, T v) { return krt_compat_cas_loop_(p, v, 0); }
template <typename T> static inline T atomicSub(T *p, T v) { return krt_compat_cas_loop_(p, v, 1); }
template <typename T> static inline T atomicMin(T *p, T v) { return krt_compat_cas_loop_(p, v, 2); }
template <typename T> static inline T atomicMax(T *p, T v) { return krt_compat_cas_loop_(p, v, 3); }
template <typename T> static inline T atomicExch(T *p, T v)
{
    T old;
    __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
    return old;
}
template <typename T> static inline T atomicCAS(T *p, T cmp, T v)
{
    __atomic_compare_exchange(p, &cmp, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cmp;
}
#endif

#endif
