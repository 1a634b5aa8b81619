/*
 * montecarlo_pi.c - host program for montecarlo_pi.kern: pi from random
 * points, with numba's random number generator.
 *
 * NSTATES threads each draw SAMPLES points from their own xoroshiro128+
 * state; 4 * inside / total estimates pi.  The program checks that the
 * estimate is within a tolerance of pi (five standard deviations of the
 * estimator), that a second run from the same seed gives bit-identical
 * counts (the sequence depends on the seed only, not on the backend's
 * scheduling), and that another seed gives other counts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kernrt.h>
#include "montecarlo_pi.kern.h"

#define NSTATES 4096
#define SAMPLES 1000
#define BLOCK 128

/* One run: the counts of every thread, from states seeded with seed. */
static int run(uint64_t seed, int64_t *hits)
{
    krt_array states, dhits;
    int64_t shape[1] = {NSTATES};

    KRT_TRY(krt_create_xoroshiro128p_states(&states, NSTATES, seed, 0, NULL));
    KRT_TRY(krt_alloc(&dhits, KRT_INT64, 1, shape));
    KRT_TRY(count_inside(krt_grid1((NSTATES + BLOCK - 1) / BLOCK, BLOCK),
                         states, SAMPLES, dhits));
    KRT_TRY(krt_copy_to_host(hits, dhits, NULL));
    KRT_TRY(krt_free(states));
    KRT_TRY(krt_free(dhits));
    return KRT_OK;
}

int main(void)
{
    static int64_t hits[NSTATES], again[NSTATES], other[NSTATES];
    const double total = (double)NSTATES * SAMPLES;
    /* the estimator's standard deviation: 4 sqrt(p (1 - p) / total) */
    const double p = M_PI / 4, tol = 5 * 4 * sqrt(p * (1 - p) / total);
    int64_t inside = 0;
    int status, bad = 0;

    status = run(2024, hits);
    if (status == KRT_OK)
        status = run(2024, again);
    if (status == KRT_OK)
        status = run(7, other);
    if (status != KRT_OK) {
        fprintf(stderr, "montecarlo_pi: %s: %s\n", krt_status_name(status),
                krt_last_error());
        return 1;
    }
    for (int i = 0; i < NSTATES; i++)
        inside += hits[i];
    double pi = 4.0 * (double)inside / total;
    printf("montecarlo_pi: %.0f points, pi ~ %.6f (error %.2e, tolerance "
           "%.2e)\n", total, pi, fabs(pi - M_PI), tol);
    if (fabs(pi - M_PI) > tol) {
        fprintf(stderr, "montecarlo_pi: the estimate is too far from pi\n");
        bad++;
    }
    if (memcmp(hits, again, sizeof hits) != 0) {
        fprintf(stderr, "montecarlo_pi: two runs from seed 2024 differ\n");
        bad++;
    }
    if (memcmp(hits, other, sizeof hits) == 0) {
        fprintf(stderr, "montecarlo_pi: seeds 2024 and 7 give the same "
                "counts\n");
        bad++;
    }
    printf("montecarlo_pi: %s (%s backend)\n", bad ? "FAILED" : "ok",
           krt_backend_name());
    return bad != 0;
}
