/*
 * shared.c - end-to-end test of shared.kern: shared memory and barriers
 * with CUDA's semantics on every backend, with blocks of 1..1024 threads,
 * 3-D blocks, threads that return before the barriers, dynamic shared
 * memory and per-thread local arrays.
 */
#include "e2e.h"
#include "shared.kern.h"

static void test_block_sum(unsigned n, unsigned bs)
{
    unsigned g = (n + bs - 1) / bs;
    float *x = malloc(n * sizeof *x), *out = malloc(g * sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (float)((i * 7) % 13) - 6.0f;
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT32, 1, (int64_t[]){g}));
    E2E_CHECK(block_sum(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++) {
        float want = 0;
        for (unsigned i = b * bs; i < (b + 1) * bs && i < n; i++)
            want += x[i];
        if (!(good = out[b] == want))
            diag("block %u: got %g want %g", b, (double)out[b], (double)want);
    }
    ok(good, "tree reduction, %u elements, blocks of %u threads", n, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

static void test_scan(int n, unsigned bs)
{
    unsigned g = ((unsigned)n + bs - 1) / bs + 1;    /* one block wholly past n */
    int64_t *x = malloc((size_t)g * bs * sizeof *x), *out = malloc((size_t)g * bs * sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < g * bs; i++) {
        x[i] = (int64_t)(i % 5) - 2 + (int64_t)(i % 3) * 1000000000000;
        out[i] = -12345;
    }
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT64, 1, (int64_t[]){g * bs}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_INT64, 1, (int64_t[]){g * bs}, NULL));
    E2E_CHECK(scan(krt_grid1(g, bs), dx, dout, n));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned i = 0; i < g * bs && good; i++) {
        int64_t want = -12345;
        if ((int)i < n) {
            want = 0;
            for (unsigned j = i - i % bs; j <= i; j++)
                want += x[j];
        }
        if (!(good = out[i] == want))
            diag("element %u: got %lld want %lld", i, (long long)out[i], (long long)want);
    }
    ok(good, "scan with barriers in a for loop after an early return, n=%d, blocks of %u", n, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

static void test_mirror(unsigned g, unsigned bx, unsigned by, unsigned bz)
{
    size_t n = (size_t)g * bz * by * bx;
    int32_t *out = malloc(n * sizeof *out);
    krt_array dout;
    E2E_CHECK(krt_alloc(&dout, KRT_INT32, 3, (int64_t[]){g * bz, by, bx}));
    E2E_CHECK(mirror3(krt_grid3(g, 1, 1, bx, by, bz), dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++)
        for (unsigned z = 0; z < bz && good; z++)
            for (unsigned y = 0; y < by && good; y++)
                for (unsigned x = 0; x < bx && good; x++) {
                    unsigned mz = bz - 1 - z, my = by - 1 - y, mx = bx - 1 - x;
                    int32_t want = (int32_t)((mz * by + my) * bx + mx + b * 100000);
                    int32_t got = out[(((size_t)b * bz + z) * by + y) * bx + x];
                    if (!(good = got == want))
                        diag("block %u (%u,%u,%u): got %d want %d", b, x, y, z, got, want);
                }
    ok(good, "3-D block %ux%ux%u (%u threads), %u blocks: barrier across all threads",
       bx, by, bz, bx * by * bz, g);
    krt_free(dout);
    free(out);
}

static void test_dyn_local(unsigned n, unsigned bs)
{
    unsigned g = (n + bs - 1) / bs;
    double *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out), *d = malloc(bs * sizeof *d);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (double)i * 0.25 - 3.0;
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 1, (int64_t[]){n}));
    E2E_CHECK(dyn_local(krt_with_shared(krt_grid1(g, bs), bs * sizeof(double)), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++) {
        for (unsigned t = 0; t < bs; t++)
            d[t] = b * bs + t < n ? x[b * bs + t] : 0.0;
        for (unsigned t = 0; t < bs && b * bs + t < n && good; t++) {
            double acc = 0.0;
            for (unsigned k = 0; k < 4; k++)
                acc += d[(t + k) % bs] * (k + 1);
            double want = acc + d[bs - 1];
            if (!(good = out[b * bs + t] == want))
                diag("element %u: got %g want %g", b * bs + t, out[b * bs + t], want);
        }
    }
    ok(good, "dynamic shared memory (%zu bytes) and local arrays, blocks of %u",
       bs * sizeof(double), bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
    free(d);
}

int main(void)
{
    static const unsigned sizes[] = {1, 2, 32, 64, 256, 1024};
    plan(6 + 5 + 3 + 3);
    for (int k = 0; k < 6; k++)
        test_block_sum(5000, sizes[k]);
    test_scan(1000, 256);
    test_scan(77, 256);
    test_scan(300, 64);
    test_scan(1, 32);
    test_scan(511, 128);
    test_mirror(3, 32, 8, 4);
    test_mirror(2, 8, 4, 2);
    test_mirror(5, 3, 5, 3);
    test_dyn_local(1000, 64);
    test_dyn_local(77, 32);
    test_dyn_local(4096, 512);
    return 0;
}
