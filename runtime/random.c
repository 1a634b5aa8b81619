/*
 * random.c - krt_create_xoroshiro128p_states: the host side of
 * numba.cuda.random.  The states are computed on the host, as numba does
 * ("initialization on CPU is much faster than the GPU"), with the very
 * functions kernels draw with (<kernrt_random.h>), then copied into a new
 * device array of dtype KRT_XOROSHIRO128P, on a stream if one is given (the
 * staging buffer is released once the copy has run).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "backend.h"
#include "kernrt_random.h"

#include <stdlib.h>
#include <string.h>

/* numba's init_xoroshiro128p_states_cpu. */
static void krt_rng_seed(krt_xoroshiro128p_state *st, int64_t n,
                         uint64_t seed, uint64_t subsequence_start)
{
    uint64_t j;
    int64_t i;

    if (n < 1)
        return;
    krt_xoroshiro128p_init(&st[0], seed);
    for (j = 0; j < subsequence_start; j++)
        krt_xoroshiro128p_jump(&st[0]);
    for (i = 1; i < n; i++) {
        st[i] = st[i - 1];
        krt_xoroshiro128p_jump(&st[i]);
    }
}

int krt_create_xoroshiro128p_states(krt_array *out, int64_t n, uint64_t seed,
                                    uint64_t subsequence_start,
                                    krt_stream *stream)
{
    static const char who[] = "krt_create_xoroshiro128p_states";
    krt_xoroshiro128p_state *host;
    krt_array a;
    int status;

    if (out == NULL)
        return krt__error(KRT_EINVAL, "%s: out is NULL", who);
    memset(out, 0, sizeof *out);
    if (n < 0)
        return krt__error(KRT_EINVAL, "%s: n is %lld; expected a number of "
                          "states >= 0", who, (long long)n);
    KRT_TRY(krt__check_stream(stream, who));
    if ((uint64_t)n > SIZE_MAX / sizeof *host)
        return krt__error(KRT_ENOMEM, "%s: %lld states are too many", who,
                          (long long)n);
    KRT_TRY(krt_alloc(&a, KRT_XOROSHIRO128P, 1, &n));
    if (n == 0) {
        *out = a;
        return KRT_OK;
    }
    host = malloc((size_t)n * sizeof *host);
    if (host == NULL) {
        krt_free(a);
        return krt__error(KRT_ENOMEM, "%s: no memory for %lld states", who,
                          (long long)n);
    }
    krt_rng_seed(host, n, seed, subsequence_start);
    status = krt_copy_to_device(a, host, stream);
    if (status != KRT_OK) {
        free(host);
        krt_free(a);
        return status;
    }
    status = krt__free_after(stream, host, who);
    if (status != KRT_OK) {
        krt_free(a);
        return status;
    }
    *out = a;
    return KRT_OK;
}
