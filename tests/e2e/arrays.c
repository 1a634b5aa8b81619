/*
 * arrays.c - end-to-end test of arrays.kern: 2-D and 3-D arrays, both
 * C-contiguous and strided (views with doubled strides made by hand over a
 * larger array), indexed through cuda.grid(2|3), over 2-D and 3-D grids.
 */
#include "e2e.h"
#include "arrays.kern.h"

/* A view of every other element in each dimension of `big` (not owned). */
static krt_array every_other(krt_array big)
{
    krt_array v = big;
    for (int k = 0; k < v.ndim; k++) {
        v.shape[k] = (big.shape[k] + 1) / 2;
        v.strides[k] *= 2;
    }
    v.flags &= ~KRT_ARRAY_OWNED;
    return v;
}

static void test_add2(int R, int C, krt_launch_cfg cfg, int strided)
{
    float *a = malloc(sizeof(float) * 4 * R * C), *b = malloc(sizeof(float) * 4 * R * C);
    float *c = malloc(sizeof(float) * R * C);
    krt_array da, db, dc, va, vb;
    int sh = strided ? 2 : 1;
    for (int i = 0; i < sh * R * sh * C; i++) {
        a[i] = (float)(i % 97) * 0.5f;
        b[i] = (float)(i % 31) - 15.0f;
    }
    E2E_CHECK(krt_to_device(&da, a, KRT_FLOAT32, 2, (int64_t[]){sh * R, sh * C}, NULL));
    E2E_CHECK(krt_to_device(&db, b, KRT_FLOAT32, 2, (int64_t[]){sh * R, sh * C}, NULL));
    E2E_CHECK(krt_alloc(&dc, KRT_FLOAT32, 2, (int64_t[]){R, C}));
    va = strided ? every_other(da) : da;
    vb = strided ? every_other(db) : db;
    E2E_CHECK(add2(cfg, va, vb, dc));
    E2E_CHECK(krt_copy_to_host(c, dc, NULL));
    int good = 1;
    float last = a[(sh * (R - 1)) * sh * C + sh * (C - 1)];
    for (int i = 0; i < R && good; i++)
        for (int j = 0; j < C && good; j++) {
            size_t src = (size_t)(sh * i) * sh * C + sh * j;
            float want = a[src] + b[src] * 2.0f + last;
            if (!(good = c[i * C + j] == want))
                diag("(%d,%d): got %g want %g", i, j, (double)c[i * C + j], (double)want);
        }
    ok(good, "2-D %s %dx%d, grid %ux%u, block %ux%u", strided ? "strided" : "contiguous", R, C,
       cfg.grid.x, cfg.grid.y, cfg.block.x, cfg.block.y);
    krt_free(da);
    krt_free(db);
    krt_free(dc);
    free(a);
    free(b);
    free(c);
}

static void test_scale3(int Z, int Y, int X, krt_launch_cfg cfg, int strided)
{
    int sh = strided ? 2 : 1;
    size_t nbig = (size_t)sh * Z * sh * Y * sh * X;
    double *a = malloc(sizeof(double) * nbig), *out = malloc(sizeof(double) * Z * Y * X);
    krt_array da, dout, va;
    for (size_t i = 0; i < nbig; i++)
        a[i] = (double)(i % 1013) * 0.125;
    E2E_CHECK(krt_to_device(&da, a, KRT_FLOAT64, 3, (int64_t[]){sh * Z, sh * Y, sh * X}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 3, (int64_t[]){Z, Y, X}));
    va = strided ? every_other(da) : da;
    E2E_CHECK(scale3(cfg, va, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
#define A3(z, y, x) a[(((size_t)sh * (z)) * sh * Y + (size_t)sh * (y)) * sh * X + (size_t)sh * (x)]
    for (int z = 0; z < Z && good; z++)
        for (int y = 0; y < Y && good; y++)
            for (int x = 0; x < X && good; x++) {
                double want = A3(z, y, x) * 10.0 + Z + A3(z, Y - 1, 0) * 0.5;
                double got = out[((size_t)z * Y + y) * X + x];
                if (!(good = got == want))
                    diag("(%d,%d,%d): got %g want %g", z, y, x, got, want);
            }
#undef A3
    ok(good, "3-D %s %dx%dx%d, grid %ux%ux%u, block %ux%ux%u", strided ? "strided" : "contiguous",
       Z, Y, X, cfg.grid.x, cfg.grid.y, cfg.grid.z, cfg.block.x, cfg.block.y, cfg.block.z);
    krt_free(da);
    krt_free(dout);
    free(a);
    free(out);
}

int main(void)
{
    plan(8);
    test_add2(37, 23, krt_grid2(3, 2, 16, 16), 0);
    test_add2(37, 23, krt_grid2(3, 2, 16, 16), 1);
    test_add2(5, 300, krt_grid2(5, 10, 1, 32), 1);
    test_add2(64, 64, krt_grid2(4, 4, 16, 16), 0);
    test_scale3(5, 6, 7, krt_grid3(2, 2, 2, 4, 4, 4), 0);
    test_scale3(5, 6, 7, krt_grid3(2, 2, 2, 4, 4, 4), 1);
    test_scale3(3, 9, 33, krt_grid3(1, 3, 3, 64, 4, 1), 1);
    test_scale3(2, 2, 2, krt_grid3(1, 1, 1, 2, 2, 2), 0);
    return 0;
}
