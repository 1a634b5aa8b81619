/*
 * gridsync.c - host program for gridsync.kern: explicit heat diffusion on
 * a rod with both ends held at fixed temperatures, STEPS time steps in one
 * cooperative launch.
 *
 * The grid is as large as the backend can keep resident (at most 64 blocks
 * of 128 threads, from krt_max_cooperative_grid); each thread updates the
 * points start, start + gridsize, ... and the grid syncs keep the steps in
 * order.  The result is compared with the same scheme computed here, and
 * a grid one block larger than the co-resident limit must be refused with
 * KRT_ECOOPERATIVE.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kernrt.h>
#include "gridsync.kern.h"

#define N 20000
#define STEPS 500
#define BLOCK 128
#define ALPHA 0.25

static int run(int *bad)
{
    static double u[N], want[N], next[N];
    krt_array du, dtmp;
    krt_dim3 block = {BLOCK, 1, 1};
    int64_t shape[1] = {N};
    unsigned max = 0, blocks;
    double worst = 0;
    int status;

    for (int k = 0; k < N; k++)
        u[k] = want[k] = k == 0 ? 100.0 : k == N - 1 ? 50.0 : 0.0;
    for (int s = 0; s < STEPS; s++) {
        next[0] = want[0];
        next[N - 1] = want[N - 1];
        for (int k = 1; k < N - 1; k++)
            next[k] = want[k] + ALPHA * (want[k - 1] - 2.0 * want[k] +
                                         want[k + 1]);
        memcpy(want, next, sizeof want);
    }

    KRT_TRY(krt_max_cooperative_grid(&max, &diffuse__kernel, block, 0));
    blocks = max < 64 ? max : 64;
    KRT_TRY(krt_to_device(&du, u, KRT_FLOAT64, 1, shape, NULL));
    KRT_TRY(krt_alloc(&dtmp, KRT_FLOAT64, 1, shape));
    KRT_TRY(diffuse(krt_grid1(blocks, BLOCK), du, dtmp, STEPS, ALPHA));
    KRT_TRY(krt_copy_to_host(u, du, NULL));
    /* the GPU may fuse a multiply-add: allow for the last bits */
    for (int k = 0; k < N; k++) {
        double err = fabs(u[k] - want[k]);
        if (err > worst)
            worst = err;
        if (err > 1e-9 * (1.0 + fabs(want[k]))) {
            if (*bad < 10)
                fprintf(stderr, "gridsync: u[%d] = %.17g, want %.17g\n", k,
                        u[k], want[k]);
            ++*bad;
        }
    }
    printf("gridsync: %d steps on %u blocks of %d threads (%u resident at "
           "most): u[1] = %.6f, u[%d] = %.6f, worst error %.1e\n", STEPS,
           blocks, BLOCK, max, u[1], N - 2, u[N - 2], worst);

    status = diffuse(krt_grid1(max + 1, BLOCK), du, dtmp, 1, ALPHA);
    if (status != KRT_ECOOPERATIVE) {
        fprintf(stderr, "gridsync: a grid of %u blocks gave %s, want "
                "KRT_ECOOPERATIVE\n", max + 1, krt_status_name(status));
        ++*bad;
    } else {
        printf("gridsync: %u blocks refused: %s\n", max + 1,
               krt_last_error());
    }
    KRT_TRY(krt_free(du));
    KRT_TRY(krt_free(dtmp));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "gridsync: %s: %s\n", krt_status_name(status),
                krt_last_error());
        return 1;
    }
    printf("gridsync: %s (%s backend)\n", bad ? "FAILED" : "ok",
           krt_backend_name());
    return bad != 0;
}
