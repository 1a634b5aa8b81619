/*
 * kernrt_random.h - numba.cuda.random's xoroshiro128+ generator for kernels:
 * the draws a kernel makes from an array of states that
 * krt_create_xoroshiro128p_states() (runtime/random.c) filled on the host.
 *
 * The sequence is bit-identical to numba's for the same seed: next() is
 * xoroshiro128+ with rotations 55/14/36; uniform64 is (x >> 11) * 2^-53;
 * uniform32 rounds uniform64 to float (so it can round up to 1.0f, as in
 * numba); the normals are Box-Muller's cosine branch from two float32
 * uniforms.  The float operations are those numba's compiled typing gives:
 * the float32 normal computes log, sqrt and cos in float32; the float64
 * normal takes log of the float32 uniform in float32 and widens it, the rest
 * in float64.  On the CPU the libm functions are the C library's; under nvcc
 * CUDA's, which numba-cuda also uses (libdevice).  No expression below has a
 * multiply feeding an add, so FMA contraction cannot change a result.
 *
 * Every function is static inline and, under nvcc, __host__ __device__, so
 * the generated CUDA kernel, the CPU version of the same kernel and the
 * runtime's seeding share one definition.  A draw takes the kernel's view
 * of the xoroshiro128p_type[:] array (dtype KRT_XOROSHIRO128P) and the index
 * of the state to advance; the emitter spells numba's
 * xoroshiro128p_uniform_float32(states, i) as
 * krt_xoroshiro128p_uniform_float32(states, i), and so on.
 */
#ifndef KERNRT_RANDOM_H
#define KERNRT_RANDOM_H

#include <math.h>
#include <stdint.h>

#include "kernrt.h"

#if defined(__CUDACC__)
#define KRT_RNG_FN static inline __host__ __device__
#else
#define KRT_RNG_FN static inline
#endif

/* np.float32(2 * math.pi) and np.float64(2 * math.pi). */
#define KRT_RNG_TWO_PI_F32 6.28318548202514648438f
#define KRT_RNG_TWO_PI_F64 6.28318530717958623200

KRT_RNG_FN uint64_t krt_rng_rotl(uint64_t x, unsigned k)
{
    return (x << k) | (x >> (64u - k));
}

/* One SplitMix64 step of seed gives both words (init_xoroshiro128p_state). */
KRT_RNG_FN void krt_xoroshiro128p_init(krt_xoroshiro128p_state *s,
                                       uint64_t seed)
{
    uint64_t z = seed + UINT64_C(0x9E3779B97F4A7C15);

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z = z ^ (z >> 31);
    s->s0 = z;
    s->s1 = z;
}

KRT_RNG_FN uint64_t krt_xoroshiro128p_step(krt_xoroshiro128p_state *s)
{
    uint64_t s0 = s->s0, s1 = s->s1, result = s0 + s1;

    s1 ^= s0;
    s->s0 = krt_rng_rotl(s0, 55) ^ s1 ^ (s1 << 14);
    s->s1 = krt_rng_rotl(s1, 36);
    return result;
}

/* Advance by 2^64 steps (xoroshiro128p_jump). */
KRT_RNG_FN void krt_xoroshiro128p_jump(krt_xoroshiro128p_state *s)
{
    const uint64_t jump[2] = {UINT64_C(0xBEAC0467EBA5FACB),
                              UINT64_C(0xD86B048B86AA9922)};
    uint64_t s0 = 0, s1 = 0;
    int i, b;

    for (i = 0; i < 2; i++)
        for (b = 0; b < 64; b++) {
            if (jump[i] & (UINT64_C(1) << b)) {
                s0 ^= s->s0;
                s1 ^= s->s1;
            }
            krt_xoroshiro128p_step(s);
        }
    s->s0 = s0;
    s->s1 = s1;
}

KRT_RNG_FN double krt_rng_unit_f64(uint64_t x)
{
    /* float64(1) / (uint64(1) << 53), exactly 2^-53. */
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

KRT_RNG_FN float krt_rng_unit_f32(uint64_t x)
{
    return (float)krt_rng_unit_f64(x);
}

/* The element of a xoroshiro128p_type[:] array a kernel indexes: strided,
 * and a negative index counts from the end, as numba's states[index]. */
KRT_RNG_FN krt_xoroshiro128p_state *krt_rng_state(krt_view states,
                                                  int64_t index)
{
    if (index < 0)
        index += states.shape[0];
    return (krt_xoroshiro128p_state *)(states.data +
                                       index * states.strides[0]);
}

/* The draws, named as numba's with the krt_ prefix. */
KRT_RNG_FN uint64_t krt_xoroshiro128p_next(krt_view states, int64_t index)
{
    return krt_xoroshiro128p_step(krt_rng_state(states, index));
}

KRT_RNG_FN float krt_xoroshiro128p_uniform_float32(krt_view states,
                                                   int64_t index)
{
    return krt_rng_unit_f32(krt_xoroshiro128p_next(states, index));
}

KRT_RNG_FN double krt_xoroshiro128p_uniform_float64(krt_view states,
                                                    int64_t index)
{
    return krt_rng_unit_f64(krt_xoroshiro128p_next(states, index));
}

KRT_RNG_FN float krt_xoroshiro128p_normal_float32(krt_view states,
                                                  int64_t index)
{
    float u1 = krt_xoroshiro128p_uniform_float32(states, index);
    float u2 = krt_xoroshiro128p_uniform_float32(states, index);
    float r = sqrtf(-2.0f * logf(u1));
    float c = cosf(KRT_RNG_TWO_PI_F32 * u2);

    return r * c;
}

KRT_RNG_FN double krt_xoroshiro128p_normal_float64(krt_view states,
                                                   int64_t index)
{
    float u1 = krt_xoroshiro128p_uniform_float32(states, index);
    float u2 = krt_xoroshiro128p_uniform_float32(states, index);
    float lg = logf(u1);
    double r = sqrt(-2.0 * (double)lg);
    double c = cos(KRT_RNG_TWO_PI_F64 * (double)u2);

    return r * c;
}

#endif /* KERNRT_RANDOM_H */
