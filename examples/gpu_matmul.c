/*
 * gpu_matmul.c - host program for gpu_matmul.kern (@guvectorize): 1000
 * products of (4x5) by (5x3) matrices, one per thread, checked against the
 * same float32 arithmetic on the host.
 */
#include <stdio.h>

#include <kernrt.h>
#include "gpu_matmul.kern.h"

#define L 1000
#define M 4
#define N 5
#define P 3

static float a[L][M][N], b[L][N][P], c[L][M][P];

static int run(int *bad)
{
    krt_array da, db, dc;

    for (int l = 0; l < L; l++) {
        for (int i = 0; i < M; i++)
            for (int k = 0; k < N; k++)
                a[l][i][k] = (float)((l + i * 7 + k * 3) % 11) - 5.0f;
        for (int k = 0; k < N; k++)
            for (int j = 0; j < P; j++)
                b[l][k][j] = (float)((l * 3 + k + j * 5) % 13) * 0.5f;
    }
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT32, 3, (int64_t[]){L, M, N}, NULL));
    KRT_TRY(krt_to_device(&db, b, KRT_FLOAT32, 3, (int64_t[]){L, N, P}, NULL));
    KRT_TRY(krt_alloc(&dc, KRT_FLOAT32, 3, (int64_t[]){L, M, P}));
    KRT_TRY(gpu_matmul_f4(da, db, dc, NULL));
    KRT_TRY(krt_copy_to_host(c, dc, NULL));
    for (int l = 0; l < L; l++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < P; j++) {
                float want = 0;
                for (int k = 0; k < N; k++)
                    want += a[l][i][k] * b[l][k][j];
                if (c[l][i][j] != want && ++*bad < 5)
                    fprintf(stderr, "gpu_matmul: c[%d][%d][%d] = %g, want %g\n", l, i, j,
                            c[l][i][j], want);
            }
    KRT_TRY(krt_free(da));
    KRT_TRY(krt_free(db));
    KRT_TRY(krt_free(dc));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "gpu_matmul: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("gpu_matmul: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
