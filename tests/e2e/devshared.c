/*
 * devshared.c - end-to-end test of devshared.kern: shared arrays declared
 * in device functions that do not synchronise, one instance per block
 * whichever call path reaches them (direct, nested, from an inlined
 * synchronising function), used by three kernels, with or without
 * barriers in the kernel.  Expected values are computed here in C.
 */
#include "e2e.h"
#include "devshared.kern.h"

static int64_t input(unsigned i)
{
    return (int64_t)(i * 37 % 101) - 50;
}

/* count_blocks: thread 0 clears counter's array, every thread adds its
 * element (directly, via via(), or via own_and_via()), thread 0 reads
 * sum * 1000 + number of additions. */
static void test_count_blocks(unsigned n, unsigned bs)
{
    unsigned g = (n + bs - 1) / bs;
    int64_t *x = malloc(n * sizeof *x), *out = malloc(g * sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = input(i);
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_INT64, 1, (int64_t[]){g}));
    E2E_CHECK(count_blocks(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++) {
        int64_t sum = 0, cnt = 0;
        for (unsigned i = b * bs; i < (b + 1) * bs && i < n; i++) {
            sum += x[i];
            cnt++;
        }
        int64_t want = sum * 1000 + cnt;
        if (!(good = out[b] == want))
            diag("block %u: got %lld want %lld", b, (long long)out[b], (long long)want);
    }
    ok(good, "per-block shared counter in a device function, direct and nested calls, "
             "n=%u, blocks of %u", n, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

/* totals: every thread of the block (also those past n, with 0) adds
 * through block_total, which synchronises; each thread gets the block's
 * sum * 1000 + block size. */
static void test_totals(unsigned n, unsigned bs)
{
    unsigned g = (n + bs - 1) / bs;
    int64_t *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = input(i * 3 + 1);
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_INT64, 1, (int64_t[]){n}));
    E2E_CHECK(totals(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned i = 0; i < n && good; i++) {
        unsigned b = i / bs;
        int64_t sum = 0;
        for (unsigned j = b * bs; j < (b + 1) * bs && j < n; j++)
            sum += x[j];
        int64_t want = sum * 1000 + bs;
        if (!(good = out[i] == want))
            diag("element %u: got %lld want %lld", i, (long long)out[i], (long long)want);
    }
    ok(good, "the same counter from a synchronising (inlined) device function, n=%u, "
             "blocks of %u", n, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

/* no_barrier: scratch stores v + k in row 3 - k of its 2-D shared array,
 * column t, and weigh() sums row k times k + 1. */
static void test_no_barrier(unsigned n, unsigned bs)
{
    unsigned g = (n + bs - 1) / bs;
    double *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (double)input(i) / 8.0 + 0.1;
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_FLOAT64, 1, (int64_t[]){n}));
    E2E_CHECK(no_barrier(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned i = 0; i < n && good; i++) {
        double acc = 0.0;
        for (int k = 0; k < 4; k++)
            acc += (x[i] + (3 - k)) * (k + 1);
        if (!(good = out[i] == acc))
            diag("element %u: got %.17g want %.17g", i, out[i], acc);
    }
    ok(good, "2-D shared scratch array in a device function passed on to another, "
             "no barrier, n=%u, blocks of %u", n, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

int main(void)
{
    plan(3 + 3 + 3);
    test_count_blocks(1000, 64);
    test_count_blocks(77, 32);
    test_count_blocks(5, 1);
    test_totals(1000, 64);
    test_totals(100, 48);
    test_totals(3, 1);
    test_no_barrier(1000, 64);
    test_no_barrier(77, 32);
    test_no_barrier(9, 1);
    return 0;
}
