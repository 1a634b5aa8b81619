/*
 * ref.c - the hand-written C versions of bench/cpu's kernels (see ref.h):
 * compiled with -DREF_SUFFIX=plain (one thread) and with
 * -DREF_SUFFIX=omp -fopenmp.
 */
#include "ref.h"

#include <kernrt_random.h>

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define REF(name) CAT(name, REF_SUFFIX)

void REF(saxpy)(const float *x, float *y, float a, int64_t n)
{
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

void REF(ew2d)(double *out, const double *a, const double *b, double alpha, int64_t rows,
               int64_t cols)
{
#pragma omp parallel for
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            out[r * cols + c] = alpha * a[r * cols + c] + b[r * cols + c];
}

void REF(gridstride)(const float *x, float *y, float a, int64_t n)
{
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

void REF(ndiff)(const float *in, float *out, int64_t n)
{
    if (n > 0)
        out[0] = in[0];
#pragma omp parallel for
    for (int64_t i = 1; i < n; i++)
        out[i] = in[i] - in[i - 1];
}

/* C = A B, n x n row-major, in i-k-j order (rows of B streamed). */
void REF(matmul)(const float *A, const float *B, float *C, int64_t n)
{
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        float *c = C + i * n;
        for (int64_t j = 0; j < n; j++)
            c[j] = 0;
        for (int64_t k = 0; k < n; k++) {
            float a = A[i * n + k];
            const float *b = B + k * n;
            for (int64_t j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
}

/* An inclusive scan of each segment of 256. */
void REF(scan)(const int32_t *in, int32_t *out, int64_t n)
{
#pragma omp parallel for
    for (int64_t s = 0; s < n; s += 256) {
        int32_t acc = 0;
        for (int64_t i = s; i < s + 256 && i < n; i++) {
            acc += in[i];
            out[i] = acc;
        }
    }
}

/* The sum of each chunk. */
void REF(reduce)(const float *in, float *partial, int64_t n, int64_t chunk)
{
#pragma omp parallel for
    for (int64_t s = 0; s < n; s += chunk) {
        float acc = 0;
        for (int64_t i = s; i < s + chunk && i < n; i++)
            acc += in[i];
        partial[s / chunk] = acc;
    }
}

void REF(stencil)(const float *in, float *out, int64_t n)
{
    /* the edges with their bounds tests, the interior without */
    for (int64_t i = 0; i < n && (i < 3 || i >= n - 3); i++) {
        float s = 0;
        for (int64_t k = -3; k <= 3; k++)
            s += i + k >= 0 && i + k < n ? in[i + k] : 0.0f;
        out[i] = s;
    }
    for (int64_t i = n - 3 > 3 ? n - 3 : 3; i < n; i++) {
        float s = 0;
        for (int64_t k = -3; k <= 3; k++)
            s += i + k >= 0 && i + k < n ? in[i + k] : 0.0f;
        out[i] = s;
    }
#pragma omp parallel for
    for (int64_t i = 3; i < n - 3; i++)
        out[i] = in[i - 3] + in[i - 2] + in[i - 1] + in[i] + in[i + 1] + in[i + 2] + in[i + 3];
}

void REF(histogram)(const int32_t *v, int32_t *bins, int64_t n)
{
    int32_t local[16] = {0};
#pragma omp parallel for reduction(+ : local[:16])
    for (int64_t i = 0; i < n; i++)
        local[((v[i] % 16) + 16) % 16]++;
    for (int b = 0; b < 16; b++)
        bins[b] += local[b];
}

void REF(montecarlo)(krt_xoroshiro128p_state *st, int64_t nstates, int64_t samples,
                     int64_t *hits)
{
#pragma omp parallel for
    for (int64_t i = 0; i < nstates; i++) {
        krt_xoroshiro128p_state s = st[i];
        int64_t inside = 0;
        for (int64_t k = 0; k < samples; k++) {
            float x = krt_rng_unit_f32(krt_xoroshiro128p_step(&s));
            float y = krt_rng_unit_f32(krt_xoroshiro128p_step(&s));
            inside += x * x + y * y <= 1.0f;
        }
        st[i] = s;
        hits[i] = inside;
    }
}

/* The sum of each segment of 32. */
void REF(warpsum)(const float *in, float *out, int64_t n)
{
#pragma omp parallel for
    for (int64_t s = 0; s < n; s += 32) {
        float acc = 0;
        for (int64_t i = s; i < s + 32 && i < n; i++)
            acc += in[i];
        out[s / 32] = acc;
    }
}
