/*
 * random.c - end-to-end test of random.kern: states made by
 * krt_create_xoroshiro128p_states, drawn from by the kernels, compared
 * with numba's own sequences (tests/runtime/rng_ref.h, recorded from numba)
 * and with the runtime's draw functions (<kernrt_random.h>) run here on a
 * host copy of the states; the states the kernels leave behind must be
 * those the host reaches too.
 */
#include "e2e.h"
#include "random.kern.h"
#include "runtime/rng_ref.h"

#include <kernrt_random.h>

#define NS RNG_REF_DRAW_STATES

static double bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static double bits_f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Each kind of draw, 128 per state from fresh states: numba's sequence. */
static void test_draws(void)
{
    static const char *const kinds[] = {"uniform_float32", "uniform_float64", "normal_float32",
                                        "normal_float64"};
    static double out[NS * RNG_REF_NDRAWS];
    for (int which = 0; which < 4; which++) {
        krt_array st, dout;
        E2E_CHECK(krt_create_xoroshiro128p_states(&st, NS, RNG_REF_DRAW_SEED, 0, NULL));
        E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 2, (int64_t[]){NS, RNG_REF_NDRAWS}));
        /* more threads than states: the extra ones draw nothing */
        E2E_CHECK(draws(krt_grid1(1, 32), st, which, dout));
        E2E_CHECK(krt_copy_to_host(out, dout, NULL));
        int good = 1;
        for (int r = 0; r < 2 && good; r++) {
            int s = rng_ref_draw_index[r];
            for (int j = 0; j < RNG_REF_NDRAWS && good; j++) {
                double want = which == 0   ? bits_f32(rng_ref_uniform_float32[r][j])
                              : which == 1 ? bits_f64(rng_ref_uniform_float64[r][j])
                              : which == 2 ? bits_f32(rng_ref_normal_float32[r][j])
                                           : bits_f64(rng_ref_normal_float64[r][j]);
                double got = out[s * RNG_REF_NDRAWS + j];
                if (!(good = memcmp(&got, &want, sizeof got) == 0))
                    diag("state %d draw %d: got %.17g want %.17g", s, j, got, want);
            }
        }
        ok(good, "xoroshiro128p_%s: numba's sequence from states 0 and 3", kinds[which]);
        krt_free(st);
        krt_free(dout);
    }
}

/* mixed(): per state, 64 coin flips through a device function and 64
 * float32 draws tested by a chained comparison, then a jump. */
static void test_mixed(int64_t n, uint64_t seed)
{
    krt_array st, dout;
    krt_xoroshiro128p_state *host = malloc((size_t)n * sizeof *host),
                            *after = malloc((size_t)n * sizeof *after);
    int64_t *out = calloc((size_t)(2 * n), sizeof *out);
    E2E_CHECK(krt_create_xoroshiro128p_states(&st, n, seed, 1, NULL));
    E2E_CHECK(krt_copy_to_host(host, st, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_INT64, 1, (int64_t[]){2 * n}, NULL));
    E2E_CHECK(mixed(krt_grid1((unsigned)((n + 63) / 64), 64), st, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    E2E_CHECK(krt_copy_to_host(after, st, NULL));

    krt_view v = {(char *)host, {n}, {(int64_t)sizeof *host}};
    int good = 1, same = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t heads = 0, inside = 0;
        for (int r = 0; r < 64; r++) {
            heads += krt_xoroshiro128p_uniform_float64(v, i) < 0.5;
            float u = krt_xoroshiro128p_uniform_float32(v, i);
            inside += 0.25 <= u && u < 0.75;
        }
        krt_xoroshiro128p_jump(&host[i]);
        if (good && !(good = out[2 * i] == heads && out[2 * i + 1] == inside))
            diag("state %lld: got (%lld, %lld) want (%lld, %lld)", (long long)i,
                 (long long)out[2 * i], (long long)out[2 * i + 1], (long long)heads,
                 (long long)inside);
        same &= host[i].s0 == after[i].s0 && host[i].s1 == after[i].s1;
    }
    ok(good, "device function, negative index and chained comparison, %lld states", (long long)n);
    ok(same, "the states advanced (and jumped) in place as on the host");
    krt_free(st);
    krt_free(dout);
    free(host);
    free(after);
    free(out);
}

int main(void)
{
    plan(8);
    test_draws();
    test_mixed(100, 42);
    test_mixed(7, 0xfeedfacecafebeefULL);
    return 0;
}
