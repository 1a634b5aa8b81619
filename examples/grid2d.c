/*
 * grid2d.c - host program for grid2d.kern: out = alpha * a + b on a 37 x 53
 * float64 matrix, with a 2-D grid of 16 x 16 blocks that overhangs both edges.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "grid2d.kern.h"

#define ROWS 37
#define COLS 53

static double a[ROWS][COLS], b[ROWS][COLS], out[ROWS][COLS];

static int run(int *bad)
{
    const int64_t shape[2] = {ROWS, COLS};
    const double alpha = 1.5;
    krt_array dout, da, db;

    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) {
            a[i][j] = i - 0.25 * j;
            b[i][j] = 0.125 * i * j;
        }
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT64, 2, shape, NULL));
    KRT_TRY(krt_to_device(&db, b, KRT_FLOAT64, 2, shape, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_FLOAT64, 2, shape));
    /* x runs over rows (out.shape[0]), y over columns. */
    KRT_TRY(axpy2d(krt_grid2((ROWS + 15) / 16, (COLS + 15) / 16, 16, 16),
                   dout, da, db, alpha));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    krt_free(dout);
    krt_free(da);
    krt_free(db);
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) {
            double want = alpha * a[i][j] + b[i][j];
            /* nvcc may fuse the multiply-add: allow the last bit. */
            if (fabs(out[i][j] - want) > 1e-12 * (1 + fabs(want))) {
                fprintf(stderr, "grid2d: out[%d][%d] = %g, want %g\n", i, j,
                        out[i][j], want);
                ++*bad;
            }
        }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "grid2d: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("grid2d: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
