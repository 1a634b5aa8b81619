/*
 * atomics.c - end-to-end test of atomics.kern: cuda.atomic add, sub, max
 * and min on int32, uint32, int64, uint64, float32 and float64, every
 * thread of many blocks hitting the same four elements (the CPU backend
 * runs blocks in parallel, so the atomics must be real), and the old
 * value returned: tickets drawn by all threads form a permutation.
 */
#include "e2e.h"
#include "atomics.kern.h"

#define N 6000

static void test_hammer(krt_launch_cfg cfg)
{
    static int32_t vals[N], i32[4];
    static uint32_t u32[4];
    static int64_t i64[4];
    static uint64_t u64[4];
    static float f32[4];
    static double f64[4];
    int32_t wi32[4] = {100, -100, INT32_MIN, INT32_MAX};
    uint32_t wu32[4] = {7, 7, 0, UINT32_MAX};
    int64_t wi64[4] = {5, -5, INT64_MIN, INT64_MAX};
    uint64_t wu64[4] = {9, 9, 0, UINT64_MAX};
    float wf32[4] = {0.5f, -0.5f, -1e30f, 1e30f};
    double wf64[4] = {0.25, -0.25, -1e300, 1e300};
    for (int i = 0; i < N; i++)
        vals[i] = (int32_t)((i * 7919) % 2001) - 1000;
    memcpy(i32, wi32, sizeof i32);
    memcpy(u32, wu32, sizeof u32);
    memcpy(i64, wi64, sizeof i64);
    memcpy(u64, wu64, sizeof u64);
    memcpy(f32, wf32, sizeof f32);
    memcpy(f64, wf64, sizeof f64);
    for (int i = 0; i < N; i++) {
        int32_t v = vals[i];
        wi32[0] = (int32_t)((uint32_t)wi32[0] + (uint32_t)v);
        wi32[1] = (int32_t)((uint32_t)wi32[1] - (uint32_t)v);
        wi32[2] = v > wi32[2] ? v : wi32[2];
        wi32[3] = v < wi32[3] ? v : wi32[3];
        uint32_t w = (uint32_t)v;
        wu32[0] += w;
        wu32[1] -= w;
        wu32[2] = w > wu32[2] ? w : wu32[2];
        wu32[3] = w < wu32[3] ? w : wu32[3];
        int64_t x = (int64_t)v * 1000003;
        wi64[0] += x;
        wi64[1] -= x;
        wi64[2] = x > wi64[2] ? x : wi64[2];
        wi64[3] = x < wi64[3] ? x : wi64[3];
        uint64_t y = (uint64_t)x;
        wu64[0] += y;
        wu64[1] -= y;
        wu64[2] = y > wu64[2] ? y : wu64[2];
        wu64[3] = y < wu64[3] ? y : wu64[3];
        float f = (float)v * 0.5f;
        wf32[0] += f;
        wf32[1] -= f;
        wf32[2] = f > wf32[2] ? f : wf32[2];
        wf32[3] = f < wf32[3] ? f : wf32[3];
        double d = (double)v * 0.25;
        wf64[0] += d;
        wf64[1] -= d;
        wf64[2] = d > wf64[2] ? d : wf64[2];
        wf64[3] = d < wf64[3] ? d : wf64[3];
    }
    krt_array dv, di32, du32, di64, du64, df32, df64;
    int64_t four[1] = {4};
    E2E_CHECK(krt_to_device(&dv, vals, KRT_INT32, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&di32, i32, KRT_INT32, 1, four, NULL));
    E2E_CHECK(krt_to_device(&du32, u32, KRT_UINT32, 1, four, NULL));
    E2E_CHECK(krt_to_device(&di64, i64, KRT_INT64, 1, four, NULL));
    E2E_CHECK(krt_to_device(&du64, u64, KRT_UINT64, 1, four, NULL));
    E2E_CHECK(krt_to_device(&df32, f32, KRT_FLOAT32, 1, four, NULL));
    E2E_CHECK(krt_to_device(&df64, f64, KRT_FLOAT64, 1, four, NULL));
    E2E_CHECK(hammer(cfg, di32, du32, di64, du64, df32, df64, dv));
    E2E_CHECK(krt_copy_to_host(i32, di32, NULL));
    E2E_CHECK(krt_copy_to_host(u32, du32, NULL));
    E2E_CHECK(krt_copy_to_host(i64, di64, NULL));
    E2E_CHECK(krt_copy_to_host(u64, du64, NULL));
    E2E_CHECK(krt_copy_to_host(f32, df32, NULL));
    E2E_CHECK(krt_copy_to_host(f64, df64, NULL));
    static const char *const ops[4] = {"add", "sub", "max", "min"};
    for (int k = 0; k < 4; k++) {
        ok(i32[k] == wi32[k], "int32 %s, grid %u x %u", ops[k], cfg.grid.x, cfg.block.x);
        ok(u32[k] == wu32[k], "uint32 %s, grid %u x %u", ops[k], cfg.grid.x, cfg.block.x);
        ok(i64[k] == wi64[k], "int64 %s, grid %u x %u", ops[k], cfg.grid.x, cfg.block.x);
        ok(u64[k] == wu64[k], "uint64 %s, grid %u x %u", ops[k], cfg.grid.x, cfg.block.x);
        /* all partial sums are exact in both float types */
        ok(f32[k] == wf32[k], "float32 %s, grid %u x %u", ops[k], cfg.grid.x, cfg.block.x);
        ok(f64[k] == wf64[k], "float64 %s, grid %u x %u", ops[k], cfg.grid.x, cfg.block.x);
    }
    krt_free(dv); krt_free(di32); krt_free(du32); krt_free(di64);
    krt_free(du64); krt_free(df32); krt_free(df64);
}

static void test_tickets(krt_launch_cfg cfg)
{
    static int64_t ticket[N];
    static int32_t hist[4][3];
    static char seen[N];
    int64_t counter = 0;
    krt_array dc, dt, dh;
    memset(hist, 0, sizeof hist);
    E2E_CHECK(krt_to_device(&dc, &counter, KRT_INT64, 1, (int64_t[]){1}, NULL));
    E2E_CHECK(krt_alloc(&dt, KRT_INT64, 1, (int64_t[]){N}));
    E2E_CHECK(krt_to_device(&dh, hist, KRT_INT32, 2, (int64_t[]){4, 3}, NULL));
    E2E_CHECK(tickets(cfg, dc, dt, dh));
    E2E_CHECK(krt_copy_to_host(&counter, dc, NULL));
    E2E_CHECK(krt_copy_to_host(ticket, dt, NULL));
    E2E_CHECK(krt_copy_to_host(hist, dh, NULL));
    memset(seen, 0, sizeof seen);
    int perm = counter == N;
    for (int i = 0; i < N && perm; i++) {
        perm = ticket[i] >= 0 && ticket[i] < N && !seen[ticket[i]];
        if (perm)
            seen[ticket[i]] = 1;
    }
    ok(perm, "atomic.add returns the old value: %d distinct tickets, grid %u x %u", N,
       cfg.grid.x, cfg.block.x);
    int hgood = 1;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) {
            int want = 0;
            for (int i = 0; i < N; i++)
                want += i % 4 == r && i % 3 == c;
            hgood &= hist[r][c] == want;
        }
    ok(hgood, "atomic.add with a tuple index on a 2-D array, grid %u x %u", cfg.grid.x,
       cfg.block.x);
    krt_free(dc);
    krt_free(dt);
    krt_free(dh);
}

int main(void)
{
    krt_launch_cfg cfgs[] = {krt_grid1((N + 63) / 64, 64), krt_grid1((N + 255) / 256, 256),
                             krt_grid1(N, 1), krt_grid1((N + 1023) / 1024, 1024)};
    int n = (int)(sizeof cfgs / sizeof cfgs[0]);
    plan((unsigned long)n * 26);
    for (int c = 0; c < n; c++) {
        test_hammer(cfgs[c]);
        test_tickets(cfgs[c]);
    }
    return 0;
}
