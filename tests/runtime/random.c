/*
 * random.c - numba.cuda.random in libkernrt, checked bit for bit against
 * numba (tests/runtime/rng_ref.h, written by gen_rng_ref.py): the states
 * krt_create_xoroshiro128p_states makes for several seeds and subsequence
 * starts (also on a stream), and 128 draws of each of xoroshiro128p_next,
 * _uniform_float32/64 and _normal_float32/64 from two states, drawn by a
 * CPU kernel in the shape kernc emits, through <kernrt_random.h>.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernrt.h"
#include "kernrt_random.h"
#include "runtime/rng_ref.h"
#include "tap/basic.h"

static int is_status(int want, int got, const char *fmt, ...)
    TAP_PRINTF(3, 4);

static int is_status(int want, int got, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    int r;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

#define NFUNCS 5
#define NIDX ((int)(sizeof rng_ref_draw_index / sizeof rng_ref_draw_index[0]))

/* draw(states, out, func, index): thread t < NIDX draws RNG_REF_NDRAWS values
 * of function func from state index[t] into out[t, :] (as raw bits). */
static void draw_cpu(const krt_cpu_block *b, void **args)
{
    krt_view states = *(const krt_view *)args[0];
    const krt_view *out = args[1];
    int func = *(int *)args[2];
    unsigned t;
    int i;

    for (t = 0; t < b->block_dim.x && t < (unsigned)NIDX; t++) {
        int64_t idx = rng_ref_draw_index[t];
        char *row = out->data + t * out->strides[0];
        for (i = 0; i < RNG_REF_NDRAWS; i++) {
            uint64_t *o = (uint64_t *)(row + i * out->strides[1]);
            float f;
            double d;
            switch (func) {
            case 0:
                *o = krt_xoroshiro128p_next(states, idx);
                break;
            case 1:
                f = krt_xoroshiro128p_uniform_float32(states, idx);
                memcpy(o, &f, 4);
                break;
            case 2:
                d = krt_xoroshiro128p_uniform_float64(states, idx);
                memcpy(o, &d, 8);
                break;
            case 3:
                f = krt_xoroshiro128p_normal_float32(states, idx);
                memcpy(o, &f, 4);
                break;
            default:
                d = krt_xoroshiro128p_normal_float64(states, idx);
                memcpy(o, &d, 8);
                break;
            }
        }
    }
}

static const krt_param draw_params[] = {
    {"states", KRT_PARAM_ARRAY, KRT_XOROSHIRO128P, 1, 1},
    {"out", KRT_PARAM_ARRAY, KRT_UINT64, 2, 1},
    {"func", KRT_PARAM_SCALAR, KRT_INT32, 0, 0}};
static const krt_kernel draw_k = {"draw", "random.kern", 3, draw_params,
                                  draw_cpu, NULL, 0, 0, 0, NULL};

static const char *const names[NFUNCS] = {
    "xoroshiro128p_next", "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64", "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64"};

/* Reference draw i of function f from row r, as 64 bits (zero-extended). */
static uint64_t ref_bits(int f, int r, int i)
{
    switch (f) {
    case 0:
        return rng_ref_next[r][i];
    case 1:
        return rng_ref_uniform_float32[r][i];
    case 2:
        return rng_ref_uniform_float64[r][i];
    case 3:
        return rng_ref_normal_float32[r][i];
    default:
        return rng_ref_normal_float64[r][i];
    }
}

int main(void)
{
    enum { NCASES = sizeof rng_ref_state_cases / sizeof rng_ref_state_cases[0] };
    static uint64_t bits[NIDX][RNG_REF_NDRAWS];
    krt_xoroshiro128p_state host[64];
    krt_array st, out, empty;
    krt_view vst, vout;
    krt_stream *s;
    void *args[3];
    int64_t oshape[] = {NIDX, RNG_REF_NDRAWS};
    int c, f, r, i, bad, func;

    krt_set_backend("cpu");
    plan(3 * NCASES + 2 + 2 * NFUNCS + 5);

    for (c = 0; c < NCASES; c++) {
        const rng_ref_states *ref = &rng_ref_state_cases[c];
        is_status(KRT_OK,
                  krt_create_xoroshiro128p_states(&st, ref->n, ref->seed,
                                                  ref->subsequence_start,
                                                  NULL),
                  "krt_create_xoroshiro128p_states(%lld, seed=%llu, "
                  "subsequence_start=%llu)",
                  (long long)ref->n, (unsigned long long)ref->seed,
                  (unsigned long long)ref->subsequence_start);
        ok(st.dtype == KRT_XOROSHIRO128P && st.ndim == 1 &&
               st.shape[0] == ref->n && st.strides[0] == 16,
           "a 1-D array of %lld xoroshiro128p states", (long long)ref->n);
        memset(host, 0, sizeof host);
        krt_copy_to_host(host, st, NULL);
        for (bad = 0, i = 0; i < ref->n; i++)
            bad += host[i].s0 != ref->s[2 * i] ||
                   host[i].s1 != ref->s[2 * i + 1];
        ok(bad == 0, "states identical to numba's (%d differ)", bad);
        krt_free(st);
    }

    /* On a stream: the same states once the stream has run. */
    krt_stream_create(&s);
    c = NCASES - 1;
    krt_create_xoroshiro128p_states(&st, rng_ref_state_cases[c].n,
                                    rng_ref_state_cases[c].seed,
                                    rng_ref_state_cases[c].subsequence_start,
                                    s);
    is_status(KRT_OK, krt_stream_synchronize(s), "created on a stream");
    krt_copy_to_host(host, st, NULL);
    for (bad = 0, i = 0; i < rng_ref_state_cases[c].n; i++)
        bad += host[i].s0 != rng_ref_state_cases[c].s[2 * i] ||
               host[i].s1 != rng_ref_state_cases[c].s[2 * i + 1];
    ok(bad == 0, "states made on a stream are numba's");
    krt_free(st);
    krt_stream_destroy(s);

    /* The draws, from fresh states each time, in a CPU kernel. */
    krt_alloc(&out, KRT_UINT64, 2, oshape);
    krt_check_array(&draw_k, 1, &out, &vout);
    args[0] = &vst;
    args[1] = &vout;
    args[2] = &func;
    for (f = 0; f < NFUNCS; f++) {
        func = f;
        krt_create_xoroshiro128p_states(&st, RNG_REF_DRAW_STATES,
                                        RNG_REF_DRAW_SEED, 0, NULL);
        krt_check_array(&draw_k, 0, &st, &vst);
        memset(bits, 0, sizeof bits);
        krt_copy_to_device(out, bits, NULL);
        is_status(KRT_OK, krt_launch(&draw_k, krt_grid1(1, 32), args),
                  "launch %s", names[f]);
        krt_copy_to_host(bits, out, NULL);
        for (bad = 0, r = 0; r < NIDX; r++)
            for (i = 0; i < RNG_REF_NDRAWS; i++)
                if (bits[r][i] != ref_bits(f, r, i)) {
                    if (bad++ == 0)
                        diag("%s: state %d draw %d: %#llx, numba %#llx",
                             names[f], rng_ref_draw_index[r], i,
                             (unsigned long long)bits[r][i],
                             (unsigned long long)ref_bits(f, r, i));
                }
        ok(bad == 0, "%d x %d draws of %s identical to numba's (%d differ)",
           NIDX, RNG_REF_NDRAWS, names[f], bad);
        krt_free(st);
    }
    krt_free(out);

    is_status(KRT_OK, krt_create_xoroshiro128p_states(&empty, 0, 1, 0, NULL),
              "zero states");
    ok(empty.ndim == 1 && empty.shape[0] == 0, "an empty array");
    krt_free(empty);
    is_status(KRT_EINVAL, krt_create_xoroshiro128p_states(&empty, -1, 1, 0,
                                                         NULL),
              "a negative count");
    is_status(KRT_EINVAL, krt_create_xoroshiro128p_states(NULL, 1, 1, 0,
                                                         NULL),
              "out is NULL");
    is_status(KRT_EINVAL,
              krt_create_xoroshiro128p_states(&empty, 4, 1, 0,
                                              (krt_stream *)&empty),
              "an unknown stream");
    return 0;
}
