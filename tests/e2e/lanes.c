/*
 * lanes.c - end-to-end test of lanes.kern: a block scan and elementwise
 * work in the regions around it, over contiguous arrays and over views
 * with doubled strides (the CPU backend's chunked loops only for the
 * first), with blocks of 64 and of 40 threads over 1001 elements.
 */
#include "e2e.h"
#include "lanes.kern.h"

/* A view of every other element of `big` (not owned). */
static krt_array every_other(krt_array big)
{
    krt_array v = big;
    v.shape[0] = (big.shape[0] + 1) / 2;
    v.strides[0] *= 2;
    v.flags &= ~KRT_ARRAY_OWNED;
    return v;
}

static void test_scan(int n, unsigned block, int strided)
{
    int sh = strided ? 2 : 1;
    int32_t *in = malloc(sizeof(int32_t) * sh * n), *out = malloc(sizeof(int32_t) * sh * n);
    float *x = malloc(sizeof(float) * sh * n), *y = malloc(sizeof(float) * sh * n);
    for (int i = 0; i < sh * n; i++) {
        in[i] = (int32_t)((i * 2654435761u) >> 3) - (1 << 28);
        x[i] = (float)(i % 53) * 0.25f - 6.0f;
        out[i] = -1;
        y[i] = -1.0f;
    }
    krt_array din, dout, dx, dy;
    E2E_CHECK(krt_to_device(&din, in, KRT_INT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_INT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dy, y, KRT_FLOAT32, 1, (int64_t[]){sh * n}, NULL));
    krt_array vin = strided ? every_other(din) : din, vout = strided ? every_other(dout) : dout;
    krt_array vx = strided ? every_other(dx) : dx, vy = strided ? every_other(dy) : dy;
    unsigned grid = (unsigned)((n + block - 1) / block);
    E2E_CHECK(lanes_scan(krt_grid1(grid, block), vin, vout, vx, vy));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    E2E_CHECK(krt_copy_to_host(y, dy, NULL));
    int good = 1;
    uint32_t acc = 0;
    for (int i = 0; i < n && good; i++) {
        int tx = i % (int)block;
        float xi = x[sh * i], want_y = xi * 2.0f + xi;
        if (tx == 0)
            acc = 0;
        acc += (uint32_t)in[sh * i];
        if (tx >= 1)
            want_y -= x[sh * (i - 1)];
        if (!(good = out[sh * i] == (int32_t)acc && y[sh * i] == want_y))
            diag("%d: got %d %g, want %d %g", i, out[sh * i], (double)y[sh * i], (int32_t)acc, (double)want_y);
        if (good && strided)
            good = out[sh * i + 1] == -1 && y[sh * i + 1] == -1.0f;
    }
    ok(good, "scan of %d, blocks of %u, %s", n, block, strided ? "strided" : "contiguous");
    krt_free(din);
    krt_free(dout);
    krt_free(dx);
    krt_free(dy);
    free(in);
    free(out);
    free(x);
    free(y);
}

/* lanes_gs and lanes_gs_neg over n elements (every other one of 2n when
 * strided), a grid of `grid` blocks of 32 threads. */
static void test_gs(int n, unsigned grid, int strided)
{
    int sh = strided ? 2 : 1;
    int32_t *v = malloc(sizeof(int32_t) * sh * n), *out = malloc(sizeof(int32_t) * sh * n);
    int32_t *neg = malloc(sizeof(int32_t) * sh * n), bins[2 * 16], want[16] = {0};
    int32_t *car = malloc(sizeof(int32_t) * sh * n);
    for (int i = 0; i < sh * n; i++) {
        v[i] = (int32_t)((i * 2654435761u) >> 7 & 1023);
        out[i] = neg[i] = car[i] = -1;
    }
    for (int i = 0; i < 2 * 16; i++)
        bins[i] = 0;
    for (int i = 0; i < n; i++)
        want[v[sh * i] % 16]++;
    krt_array dv, dout, dneg, dcar, dbins;
    E2E_CHECK(krt_to_device(&dv, v, KRT_INT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_INT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dneg, neg, KRT_INT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dcar, car, KRT_INT32, 1, (int64_t[]){sh * n}, NULL));
    E2E_CHECK(krt_to_device(&dbins, bins, KRT_INT32, 1, (int64_t[]){sh * 16}, NULL));
    krt_array vv = strided ? every_other(dv) : dv, vout = strided ? every_other(dout) : dout;
    krt_array vneg = strided ? every_other(dneg) : dneg, vbins = strided ? every_other(dbins) : dbins;
    krt_array vcar = strided ? every_other(dcar) : dcar;
    E2E_CHECK(lanes_gs(krt_grid1(grid, 32), vv, vbins, vout));
    E2E_CHECK(lanes_gs_neg(krt_grid1(grid, 32), vv, vneg));
    E2E_CHECK(lanes_gs_carried(krt_grid1(grid, 32), vv, vcar));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    E2E_CHECK(krt_copy_to_host(neg, dneg, NULL));
    E2E_CHECK(krt_copy_to_host(car, dcar, NULL));
    E2E_CHECK(krt_copy_to_host(bins, dbins, NULL));
    int good = 1;
    for (int i = 0; i < n && good; i++)
        if (!(good = out[sh * i] == v[sh * i] * 3 && neg[sh * i] == v[sh * i] + 1 && car[sh * i] == v[sh * i] + 1 &&
                     (!strided || (out[sh * i + 1] == -1 && neg[sh * i + 1] == -1 && car[sh * i + 1] == -1))))
            diag("%d: got %d %d %d, want %d %d %d", i, out[sh * i], neg[sh * i], car[sh * i], v[sh * i] * 3,
                 v[sh * i] + 1, v[sh * i] + 1);
    for (int b = 0; b < 16 && good; b++)
        if (!(good = bins[sh * b] == want[b] && (!strided || bins[sh * b + 1] == 0)))
            diag("bin %d: got %d, want %d", b, bins[sh * b], want[b]);
    ok(good, "grid-stride loops over %d, %u blocks, %s", n, grid, strided ? "strided" : "contiguous");
    krt_free(dv);
    krt_free(dout);
    krt_free(dneg);
    krt_free(dcar);
    krt_free(dbins);
    free(v);
    free(out);
    free(neg);
    free(car);
}

int main(void)
{
    plan(10);
    test_gs(1001, 3, 0);
    test_gs(1001, 3, 1);
    test_gs(20, 4, 0);
    test_gs(777, 1, 1);
    test_scan(1001, 64, 0);
    test_scan(1001, 64, 1);
    test_scan(1001, 40, 0);
    test_scan(1001, 40, 1);
    test_scan(5, 64, 0);
    test_scan(64, 64, 1);
    return 0;
}
