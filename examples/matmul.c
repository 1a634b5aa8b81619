/*
 * matmul.c - host program for matmul.kern: C = A B for 40 x 40 float32
 * matrices (not a multiple of the 16 x 16 tile, so the edge code runs).
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "matmul.kern.h"

#define N 40
#define TPB 16                  /* as in matmul.kern */

static float a[N][N], b[N][N], c[N][N];

static int run(int *bad)
{
    const int64_t shape[2] = {N, N};
    const unsigned grid = (N + TPB - 1) / TPB;
    krt_array da, db, dc;

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (float)((i + 2 * j) % 7) / 4;
            b[i][j] = (float)((3 * i + j) % 5) - 2;
        }
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_to_device(&db, b, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_alloc(&dc, KRT_FLOAT32, 2, shape));
    KRT_TRY(fast_matmul(krt_grid2(grid, grid, TPB, TPB), da, db, dc));
    KRT_TRY(krt_copy_to_host(c, dc, NULL));
    krt_free(da);
    krt_free(db);
    krt_free(dc);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int k = 0; k < N; k++)
                want += (double)a[i][k] * b[k][j];
            if (fabs(c[i][j] - want) > 1e-4 * (1 + fabs(want))) {
                fprintf(stderr, "matmul: C[%d][%d] = %g, want %g\n", i, j, c[i][j], want);
                ++*bad;
            }
        }
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "matmul: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("matmul: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
