/*
 * devsync.c - end-to-end test of devsync.kern: device functions holding
 * barriers, syncthreads_count and warp shuffles, called from kernels (the
 * CPU backend inlines them into the kernel's regions), compared with the
 * same computations written out here: a block sum made of two warp
 * reductions, shared-array rotations, a call in a condition, a warp
 * reduction taken by two of four warps, a block count with an early
 * return, and a void function that synchronises.
 */
#include "e2e.h"
#include "devsync.kern.h"

#define TPB 128

static void test_reduce(unsigned blocks, unsigned bs)
{
    unsigned n = blocks * bs - 5;
    float *x = malloc(n * sizeof *x), *out = calloc(blocks, sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (float)((int)(i * 13 % 23) - 11);
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_FLOAT32, 1, (int64_t[]){blocks}, NULL));
    E2E_CHECK(reduce(krt_grid1(blocks, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < blocks && good; b++) {
        float want = 0;   /* small integers: exact in any order */
        for (unsigned i = b * bs; i < (b + 1) * bs && i < n; i++)
            want += x[i];
        if (!(good = out[b] == want))
            diag("block %u: got %g want %g", b, (double)out[b], (double)want);
    }
    ok(good, "block_sum (two warp_sum calls around a barrier), %u blocks of %u", blocks, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

/* warp_sum's value in every lane: shfl_down_sync gives a lane its own
 * value when the source lane is past the warp. */
static void warp_sums(const int32_t *a, int64_t *v)
{
    int64_t nv[32];
    for (int l = 0; l < 32; l++)
        v[l] = a[l];
    for (int off = 16; off > 0; off /= 2) {
        for (int l = 0; l < 32; l++)
            nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
        memcpy(v, nv, sizeof nv);
    }
}

static void test_shuffle(unsigned blocks)
{
    unsigned n = blocks * TPB;
    int32_t *a = malloc(n * sizeof *a), *a1 = malloc(n * sizeof *a1),
            *out = calloc(n, sizeof *out), *counts = calloc(2 * n, sizeof *counts);
    krt_array da, dout, dc;
    for (unsigned i = 0; i < n; i++)
        a[i] = (int32_t)(i * 37 % 101);
    E2E_CHECK(krt_to_device(&da, a, KRT_INT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_INT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_to_device(&dc, counts, KRT_INT32, 1, (int64_t[]){2 * n}, NULL));
    E2E_CHECK(shuffle(krt_grid1(blocks, TPB), da, dout, dc));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    E2E_CHECK(krt_copy_to_host(counts, dc, NULL));
    E2E_CHECK(krt_copy_to_host(a1, da, NULL));
    int good_out = 1, good_warp = 1, good_count = 1, good_fence = 1;
    for (unsigned b = 0; b < blocks; b++) {
        const int32_t *ab = a + b * TPB;
        int32_t positive = 0;
        int64_t v[32];
        for (unsigned t = 0; t < TPB; t++)
            positive += ab[t] - 50 > 0;
        for (unsigned t = 0; t < TPB; t++) {
            unsigned i = b * TPB + t;
            int32_t want = ab[(t + 2) % TPB] + 1 + (ab[(t + 1) % TPB] > 50 ? 1000 : 0);
            if (good_out && !(good_out = out[i] == want))
                diag("out[%u]: got %d want %d", i, out[i], want);
            if (t % 32 == 0 && t < 64)
                warp_sums(ab + t, v);
            int32_t w = t < 64 ? (int32_t)v[t % 32] : -5;
            if (good_warp && !(good_warp = counts[2 * i] == w))
                diag("warp_sum at %u: got %d want %d", i, counts[2 * i], w);
            int32_t c = positive == 0 ? -1 : positive;
            if (good_count && !(good_count = counts[2 * i + 1] == c))
                diag("count at %u: got %d want %d", i, counts[2 * i + 1], c);
            good_fence &= a1[i] == ab[t] + 1;
        }
    }
    ok(good_out, "rotate(rotate(x)) through a shared array of the device function, and in a condition");
    ok(good_warp, "warp_sum called by whole warps inside a branch");
    ok(good_count, "syncthreads_count in a device function with an early return");
    ok(good_fence, "a void device function with a barrier, called as a statement");
    krt_free(da);
    krt_free(dout);
    krt_free(dc);
    free(a);
    free(a1);
    free(out);
    free(counts);
}

int main(void)
{
    plan(7);
    test_reduce(5, 128);
    test_reduce(3, 64);
    test_reduce(2, 32);
    test_shuffle(3);
    return 0;
}
