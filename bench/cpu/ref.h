/*
 * ref.h - the hand-written C versions of bench/cpu's kernels: the same
 * work as each .kern file, written as one would in C.  ref.c is compiled
 * twice: as the plain single-thread loops (REF(name) = name_plain, $CC -O2,
 * its OpenMP pragmas ignored) and as the OpenMP version (name_omp, -O3
 * -fopenmp, all cores).
 */
#ifndef BENCH_CPU_REF_H
#define BENCH_CPU_REF_H

#include <stdint.h>

#include <kernrt.h>

#define REF_DECLS(S)                                                              \
    void saxpy_##S(const float *x, float *y, float a, int64_t n);                 \
    void ew2d_##S(double *out, const double *a, const double *b, double alpha,    \
                  int64_t rows, int64_t cols);                                    \
    void gridstride_##S(const float *x, float *y, float a, int64_t n);            \
    void ndiff_##S(const float *in, float *out, int64_t n);                       \
    void matmul_##S(const float *A, const float *B, float *C, int64_t n);         \
    void scan_##S(const int32_t *in, int32_t *out, int64_t n);                    \
    void reduce_##S(const float *in, float *partial, int64_t n, int64_t chunk);   \
    void stencil_##S(const float *in, float *out, int64_t n);                     \
    void histogram_##S(const int32_t *v, int32_t *bins, int64_t n);               \
    void montecarlo_##S(krt_xoroshiro128p_state *st, int64_t nstates,             \
                        int64_t samples, int64_t *hits);                          \
    void warpsum_##S(const float *in, float *out, int64_t n);

REF_DECLS(plain)
REF_DECLS(omp)

#endif /* BENCH_CPU_REF_H */
