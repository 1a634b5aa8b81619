/*
 * kernrt_vector.h - CUDA's built-in vector types (numba-cuda's
 * cuda.float32x4, cuda.int2, ...), as kernc's generated code spells them.
 *
 * KRT_VECTOR_BASES is the one list of their element types: each row is
 * X(ENUM, numba, cuda), ENUM a row of kernrt_types.h, numba the prefix of
 * numba-cuda's names (float32 -> float32x1..float32x4) and cuda the prefix
 * of CUDA's (float -> float1..float4); every vector type has 1 to 4
 * elements named x, y, z, w.  KRT_VECTOR_ALIASES lists numba-cuda's other
 * prefixes (stubs.py: char2 is int8x2, long4 is int64x4, double3 is
 * float64x3).  The translator (src/types.c, src/names.c) reads both.
 *
 * Generated CUDA code spells them as CUDA does (float4, make_float4); the
 * CPU code names the type krt_<cuda><n> and builds a value with
 * krt_make_<cuda><n>(x, ...), as does CUDA code for the deprecated types
 * below.  Under nvcc, krt_float4 is CUDA's own float4
 * (vector_types.h; for the 64-bit four-element types of CUDA 13, whose old
 * names are deprecated, the same-layout double4_16a etc.); a plain C compiler
 * gets a struct of the same size and alignment (CUDA's: two elements
 * aligned to their total size, four to at most 16 bytes, one and three to the
 * element's).  numba-cuda allows them as locals, tuple elements and
 * device-function arguments and results, and reads their fields; they are
 * never kernel arguments nor array elements, so no launcher sees them.
 *
 * Only generated code includes this file (through kernrt_device.h).
 */
#ifndef KERNRT_VECTOR_H
#define KERNRT_VECTOR_H

#include <stdint.h>

/* clang-format off */
#define KRT_VECTOR_BASES(X)                                                  \
    X(INT8, int8, char, int8_t, 1)                                           \
    X(INT16, int16, short, int16_t, 2)                                       \
    X(INT32, int32, int, int32_t, 4)                                         \
    X(INT64, int64, longlong, int64_t, 8)                                    \
    X(UINT8, uint8, uchar, uint8_t, 1)                                       \
    X(UINT16, uint16, ushort, uint16_t, 2)                                   \
    X(UINT32, uint32, uint, uint32_t, 4)                                     \
    X(UINT64, uint64, ulonglong, uint64_t, 8)                                \
    X(FLOAT32, float32, float, float, 4)                                     \
    X(FLOAT64, float64, double, double, 8)

/* X(alias prefix, numba prefix) */
#define KRT_VECTOR_ALIASES(X)                                                \
    X(char, int8) X(short, int16) X(int, int32) X(long, int64)               \
    X(longlong, int64) X(uchar, uint8) X(ushort, uint16) X(uint, uint32)     \
    X(ulong, uint64) X(ulonglong, uint64) X(float, float32) X(double, float64)
/* clang-format on */

#define KRT_VEC_FIELDS_1(T) T x;
#define KRT_VEC_FIELDS_2(T) T x, y;
#define KRT_VEC_FIELDS_3(T) T x, y, z;
#define KRT_VEC_FIELDS_4(T) T x, y, z, w;
#define KRT_VEC_PARAMS_1(T) T x
#define KRT_VEC_PARAMS_2(T) T x, T y
#define KRT_VEC_PARAMS_3(T) T x, T y, T z
#define KRT_VEC_PARAMS_4(T) T x, T y, T z, T w
#define KRT_VEC_ARGS_1 x
#define KRT_VEC_ARGS_2 x, y
#define KRT_VEC_ARGS_3 x, y, z
#define KRT_VEC_ARGS_4 x, y, z, w

#if defined(__CUDACC__)
#include <cuda_runtime.h>
/* CUDA's own type, and its make_ function */
#define KRT_VEC_DEF_(c, T, n, cudat, make)                                   \
    typedef cudat krt_##c##n;                                                \
    static inline __host__ __device__ krt_##c##n krt_make_##c##n(KRT_VEC_PARAMS_##n(T)) \
    {                                                                        \
        return make(KRT_VEC_ARGS_##n);                                       \
    }
#define KRT_VEC_ONE_(c, T, n, size) KRT_VEC_DEF_(c, T, n, c##n, make_##c##n)
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
#define KRT_VEC_FOUR_(c, T, size) KRT_VEC_FOUR_##size##_(c, T)
#define KRT_VEC_FOUR_1_(c, T) KRT_VEC_DEF_(c, T, 4, c##4, make_##c##4)
#define KRT_VEC_FOUR_2_(c, T) KRT_VEC_DEF_(c, T, 4, c##4, make_##c##4)
#define KRT_VEC_FOUR_4_(c, T) KRT_VEC_DEF_(c, T, 4, c##4, make_##c##4)
#define KRT_VEC_FOUR_8_(c, T) KRT_VEC_DEF_(c, T, 4, c##4_16a, make_##c##4_16a)
#else
#define KRT_VEC_FOUR_(c, T, size) KRT_VEC_DEF_(c, T, 4, c##4, make_##c##4)
#endif
#else
/* A struct of CUDA's layout */
#define KRT_VEC_STRUCT_(c, T, n, align)                                      \
    typedef struct __attribute__((aligned(align))) krt_##c##n {              \
        KRT_VEC_FIELDS_##n(T)                                                \
    } krt_##c##n;                                                            \
    static inline krt_##c##n krt_make_##c##n(KRT_VEC_PARAMS_##n(T))          \
    {                                                                        \
        krt_##c##n r = {KRT_VEC_ARGS_##n};                                   \
        return r;                                                            \
    }
#define KRT_VEC_ONE_(c, T, n, align) KRT_VEC_STRUCT_(c, T, n, align)
#define KRT_VEC_FOUR_(c, T, size) KRT_VEC_STRUCT_(c, T, 4, KRT_VEC_ALIGN4_##size)
#define KRT_VEC_ALIGN4_1 4
#define KRT_VEC_ALIGN4_2 8
#define KRT_VEC_ALIGN4_4 16
#define KRT_VEC_ALIGN4_8 16
#endif
#define KRT_VEC_ALIGN2_1 2
#define KRT_VEC_ALIGN2_2 4
#define KRT_VEC_ALIGN2_4 8
#define KRT_VEC_ALIGN2_8 16
#define KRT_VEC_CAT_(a, b) a##b
#define KRT_VEC_ROW_(e, numba, c, T, size)                                   \
    KRT_VEC_ONE_(c, T, 1, size)                                              \
    KRT_VEC_ONE_(c, T, 2, KRT_VEC_CAT_(KRT_VEC_ALIGN2_, size))               \
    KRT_VEC_ONE_(c, T, 3, size)                                              \
    KRT_VEC_FOUR_(c, T, size)
KRT_VECTOR_BASES(KRT_VEC_ROW_)
#undef KRT_VEC_ROW_

#endif /* KERNRT_VECTOR_H */
