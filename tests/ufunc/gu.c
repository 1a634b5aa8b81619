/* Host test of tests/ufunc/gu.kern: @guvectorize host functions, loop
 * dimensions and broadcasting over them, core-dimension checks. */
#include <string.h>

#include <kernrt.h>

#include "tap/basic.h"
#include "gu.kern.h"

static krt_array dev(krt_dtype t, int ndim, const int64_t *shape, const void *host)
{
    krt_array a;
    if (krt_to_device(&a, host, t, ndim, shape, NULL) != KRT_OK)
        bail("krt_to_device: %s", krt_last_error());
    return a;
}

int main(void)
{
    plan_lazy();

    /* A stack of 5 (2x3) times one (3x4): B broadcasts over the loop. */
    enum { L = 5, M = 2, N = 3, P = 4 };
    float a[L][M][N], b[N][P], c[L][M][P];
    for (int l = 0; l < L; l++)
        for (int i = 0; i < M; i++)
            for (int k = 0; k < N; k++)
                a[l][i][k] = (float)(l + 1) * 0.5f + (float)(i * N + k);
    for (int k = 0; k < N; k++)
        for (int j = 0; j < P; j++)
            b[k][j] = (float)(k - j) * 0.25f;
    int64_t sa[3] = {L, M, N}, sb[2] = {N, P}, sc[3] = {L, M, P};
    krt_array da = dev(KRT_FLOAT32, 3, sa, a), db = dev(KRT_FLOAT32, 2, sb, b), dc;
    krt_alloc(&dc, KRT_FLOAT32, 3, sc);
    is_int(KRT_OK, matmul_f4(da, db, dc, NULL), "matmul_f4 (5,2,3) @ (3,4)");
    krt_copy_to_host(c, dc, NULL);
    int good = 1;
    for (int l = 0; l < L; l++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < P; j++) {
                double acc = 0;
                for (int k = 0; k < N; k++)
                    acc += (double)(a[l][i][k] * b[k][j]);
                good &= c[l][i][j] == (float)acc;
            }
    ok(good, "every product as numba computes it (float64 accumulator)");

    /* Core dimension mismatch, missing core dimensions, wrong output. */
    int64_t sb2[2] = {4, 4};
    float b2[16] = {0};
    krt_array db2 = dev(KRT_FLOAT32, 2, sb2, b2);
    is_int(KRT_ESHAPE, matmul_f4(da, db2, dc, NULL), "n = 3 against 4: KRT_ESHAPE");
    ok(strstr(krt_last_error(), "core dimension 'n'") != NULL, "message: %s", krt_last_error());
    int64_t s3[1] = {3};
    krt_array d1 = dev(KRT_FLOAT32, 1, s3, b2);
    is_int(KRT_ENDIM, matmul_f4(d1, db, dc, NULL), "1-D A for (m,n): KRT_ENDIM");
    int64_t sc2[3] = {4, M, P};
    krt_array dc2;
    krt_alloc(&dc2, KRT_FLOAT32, 3, sc2);
    is_int(KRT_ESHAPE, matmul_f4(da, db, dc2, NULL), "output loop (4,) for (5,): KRT_ESHAPE");
    is_int(KRT_ESHAPE, matmul_f4(da, db, db, NULL), "output (3,4) for (m,p) = (2,4): KRT_ESHAPE");

    /* (n),()->(): a host scalar input and a scalar output per row. */
    double rows[3][4] = {{1, 2, 3, 4}, {0.5, 0.25, 0, 0}, {-1, 1, -1, 1}}, res[3];
    double three = 3, scales[3] = {1, 2, -4};
    int64_t sr[2] = {3, 4};
    krt_array dr = dev(KRT_FLOAT64, 2, sr, rows), dres, sthree, dscales;
    krt_alloc(&dres, KRT_FLOAT64, 1, s3);
    krt_host_scalar(&sthree, KRT_FLOAT64, &three);
    is_int(KRT_OK, scaled_sum_f8(dr, sthree, dres, NULL), "scaled_sum_f8 with a host scalar");
    krt_copy_to_host(res, dres, NULL);
    ok(res[0] == 30 && res[1] == 2.25 && res[2] == 0, "row sums times 3");
    dscales = dev(KRT_FLOAT64, 1, s3, scales);
    is_int(KRT_OK, scaled_sum_f8(dr, dscales, dres, NULL), "scaled_sum_f8 with an array of scales");
    krt_copy_to_host(res, dres, NULL);
    ok(res[0] == 10 && res[1] == 1.5 && res[2] == 0, "row sums times their scale");
    is_int(KRT_EINVAL, scaled_sum_f8(dr, sthree, sthree, NULL), "scalar output: KRT_EINVAL");

    /* (n)->(n) over a 2-D loop of a 3-D array. */
    int32_t v[2][3][4], w[2][3][4];
    for (int i = 0; i < 24; i++)
        (&v[0][0][0])[i] = i % 7 - 3;
    int64_t sv[3] = {2, 3, 4};
    krt_array dv = dev(KRT_INT32, 3, sv, v), dw;
    krt_alloc(&dw, KRT_INT32, 3, sv);
    is_int(KRT_OK, cumsum_i4(dv, dw, NULL), "cumsum_i4 over (2,3) loops");
    krt_copy_to_host(w, dw, NULL);
    good = 1;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            int acc = 0;
            for (int k = 0; k < 4; k++)
                good &= w[i][j][k] == (acc += v[i][j][k]);
        }
    ok(good, "running sums along the core dimension");
    int64_t s4[1] = {4};
    krt_array dw1;
    krt_alloc(&dw1, KRT_INT32, 1, s4);
    is_int(KRT_ESHAPE, cumsum_i4(dv, dw1, NULL), "output without the loop dimensions: KRT_ESHAPE");

    krt_free(da); krt_free(db); krt_free(dc); krt_free(db2); krt_free(d1); krt_free(dc2);
    krt_free(dr); krt_free(dres); krt_free(dscales); krt_free(dv); krt_free(dw); krt_free(dw1);
    return 0;
}
