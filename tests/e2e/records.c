/*
 * records.c - end-to-end test of records.kern: the launcher header's record
 * structs (NumPy's layout, checked by its static assertions) filled on the
 * host, arrays of them as KRT_RECORD_DTYPE(sizeof) krt arrays, and the
 * kernels' field reads and writes, nested records, subarray fields,
 * records in local and shared memory, checked field by field.
 */
#include "e2e.h"
#include "records.kern.h"

#define N 64

static void test_step(void)
{
    krt_rec_particle h[N];
    double out[N];
    krt_array dp, dout;
    memset(h, 0, sizeof h);
    for (int i = 0; i < N; i++) {
        h[i].m = 1.0 + i;
        h[i].id = i;
        h[i].v[0] = 0.5f * (float)i;
        h[i].v[1] = 1.0f;
        h[i].v[2] = -2.0f;
        h[i].p.x = (int16_t)(3 * i);
        h[i].p.y = 0.25 * i;
    }
    E2E_CHECK(krt_to_device(&dp, h, KRT_RECORD_DTYPE(sizeof(krt_rec_particle)), 1,
                            (int64_t[]){N}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 1, (int64_t[]){N}));
    E2E_CHECK(step(krt_grid1(2, 32), dp, dout));
    krt_rec_particle g[N];
    E2E_CHECK(krt_copy_to_host(g, dp, NULL));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (int i = 0; i < N && good; i++) {
        float v0 = 0.5f * (float)i;
        double e = 0.5 * h[i].m * (double)(v0 * v0 + 1.0f * 1.0f + (-2.0f) * (-2.0f));
        double want = e + i + 0.25 * i;
        good = out[i] == want && g[i].id == i * 10 && g[i].v[2] == (float)(3 * i) &&
               g[i].p.y == h[i].m * 2 && g[i].m == h[i].m && g[i].v[0] == v0 &&
               g[i].p.x == 3 * i;
        if (!good)
            diag("element %d: out %g want %g, id %d, v[2] %g, p.y %g", i, out[i], want,
                 g[i].id, (double)g[i].v[2], g[i].p.y);
    }
    ok(good, "step: fields, nested record, subarray field, device function");
    krt_free(dp);
    krt_free(dout);
}

static void test_rotate(void)
{
    krt_rec_particle h[N], g[N];
    krt_array dp;
    memset(h, 0, sizeof h);
    for (int i = 0; i < N; i++) {
        h[i].m = i;
        h[i].id = 100 + i;
        h[i].p.y = -i;
    }
    E2E_CHECK(krt_to_device(&dp, h, KRT_RECORD_DTYPE(sizeof(krt_rec_particle)), 1,
                            (int64_t[]){N}, NULL));
    E2E_CHECK(rotate(krt_grid1(2, 32), dp, 5));
    E2E_CHECK(krt_copy_to_host(g, dp, NULL));
    int good = 1;
    for (int i = 0; i < N && good; i++) {
        int src = (i / 32) * 32 + (i % 32 + 5) % 32;
        good = g[i].m == h[src].m + 1.0 && g[i].id == h[src].id && g[i].p.y == h[src].p.y;
        if (!good)
            diag("element %d: m %g id %d, want from %d", i, g[i].m, g[i].id, src);
    }
    ok(good, "rotate: whole records through shared and local arrays");
    krt_free(dp);
}

static void test_sums(void)
{
    krt_rec_packed h[N], g[N];
    float out[N];
    krt_array da, dout;
    memset(h, 0, sizeof h);
    for (int i = 0; i < N; i++)
        for (int u = 0; u < 3; u++)
            for (int w = 0; w < 2; w++)
                h[i].j[u][w] = (float)(i + u * 2 + w);
    E2E_CHECK(krt_to_device(&da, h, KRT_RECORD_DTYPE(sizeof(krt_rec_packed)), 1,
                            (int64_t[]){N}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT32, 1, (int64_t[]){N}));
    E2E_CHECK(sums(krt_grid1(1, N), da, dout));
    E2E_CHECK(krt_copy_to_host(g, da, NULL));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = sizeof(krt_rec_packed) == 28;
    for (int i = 0; i < N && good; i++) {
        float s = 0;
        for (int u = 0; u < 3; u++)
            for (int w = 0; w < 2; w++)
                s += h[i].j[u][w];
        good = out[i] == s && g[i].i == 3;
    }
    ok(good, "sums: a packed record with a 2-D subarray field");
    krt_free(da);
    krt_free(dout);
}

int main(void)
{
    plan(3);
    test_step();
    test_rotate();
    test_sums();
    return 0;
}
