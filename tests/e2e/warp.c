/*
 * warp.c - end-to-end test of warp.kern: shuffles, votes, match and
 * activemask computed by the CPU backend's lockstep warps (or the GPU),
 * compared with the same operations written out here lane by lane, with
 * full warps, a partial last warp (blocks of 48 threads) and branches that
 * split a warp; and syncthreads_count/and/or over blocks.
 */
#include "e2e.h"
#include "warp.kern.h"

/* Warp w of a launch with blocks of bs threads: its first global index
 * and its number of lanes. */
static unsigned warp_lanes(unsigned bs, unsigned t0)
{
    unsigned left = bs - t0 % bs;
    return left < 32 ? left : 32;
}

static void test_warp_sum(unsigned n, unsigned bs)
{
    unsigned g = (n + bs - 1) / bs, nw = g * bs / 32;
    float *x = malloc(n * sizeof *x), *out = calloc(nw, sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (float)((int)(i * 37 % 19) - 9);
    E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_FLOAT32, 1, (int64_t[]){nw}, NULL));
    E2E_CHECK(warp_sum(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned w = 0; w < nw && good; w++) {
        float want = 0;
        for (unsigned i = w * 32; i < w * 32 + 32 && i < n; i++)
            want += x[i];
        if (!(good = out[w] == want))
            diag("warp %u: got %g want %g", w, (double)out[w], (double)want);
    }
    ok(good, "shfl_down_sync warp reduction, n=%u, blocks of %u", n, bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

static void test_ballot(unsigned g, unsigned bs)
{
    unsigned n = g * bs, wpb = (bs + 31) / 32;
    int32_t *x = malloc(n * sizeof *x), *out = calloc(g * wpb, sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (int32_t)(i * 7 % 5) - 2;
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_to_device(&dout, out, KRT_INT32, 1, (int64_t[]){g * wpb}, NULL));
    E2E_CHECK(ballot_count(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++)
        for (unsigned w = 0; w < wpb && good; w++) {
            unsigned t0 = b * bs + w * 32, lanes = warp_lanes(bs, w * 32);
            int32_t want = 0;
            for (unsigned l = 0; l < lanes; l++)
                want += x[t0 + l] > 0;
            if (!(good = out[b * wpb + w] == want))
                diag("block %u warp %u: got %d want %d", b, w, out[b * wpb + w], want);
        }
    ok(good, "ballot_sync + popc per warp, blocks of %u", bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

static void test_match(unsigned g, unsigned bs)
{
    unsigned n = g * bs;
    int64_t *keys = malloc(n * sizeof *keys);
    int32_t *any = malloc(n * sizeof *any), *all = malloc(n * sizeof *all);
    krt_array dk, dany, dall;
    for (unsigned i = 0; i < n; i++) {
        /* warps whose index is odd have one key//1000 for all lanes */
        unsigned w = (i % bs) / 32;
        keys[i] = (int64_t)(w & 1 ? 5000 + i % 3 : (int64_t)(i % 4) * 1000 + i % 3);
    }
    E2E_CHECK(krt_to_device(&dk, keys, KRT_INT64, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dany, KRT_INT32, 1, (int64_t[]){n}));
    E2E_CHECK(krt_alloc(&dall, KRT_INT32, 1, (int64_t[]){n}));
    E2E_CHECK(match_keys(krt_grid1(g, bs), dk, dany, dall));
    E2E_CHECK(krt_copy_to_host(any, dany, NULL));
    E2E_CHECK(krt_copy_to_host(all, dall, NULL));
    int good = 1;
    for (unsigned i = 0; i < n && good; i++) {
        unsigned t = i % bs, l = t % 32, t0 = i - l, lanes = warp_lanes(bs, t - l);
        uint32_t wa = 0, act = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        int same = 1;
        for (unsigned j = 0; j < lanes; j++) {
            if (keys[t0 + j] == keys[i])
                wa |= 1u << j;
            same &= keys[t0 + j] / 1000 == keys[i] / 1000;
        }
        int32_t want_all = same ? (int32_t)act : 7;
        if (!(good = any[i] == (int32_t)wa && all[i] == want_all))
            diag("thread %u: match_any %08x want %08x, match_all %d want %d", i, (unsigned)any[i],
                 (unsigned)wa, all[i], want_all);
    }
    ok(good, "match_any_sync / match_all_sync on int64 keys, blocks of %u", bs);
    krt_free(dk);
    krt_free(dany);
    krt_free(dall);
    free(keys);
    free(any);
    free(all);
}

static void test_divergent(unsigned g, unsigned bs)
{
    unsigned n = g * bs;
    int32_t *x = malloc(n * sizeof *x);
    int64_t *out = malloc(4 * n * sizeof *out);
    krt_array dx, dout;
    for (unsigned i = 0; i < n; i++)
        x[i] = (int32_t)(i * 13 % 11);
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_INT64, 1, (int64_t[]){4 * n}));
    E2E_CHECK(divergent(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned i = 0; i < n && good; i++) {
        unsigned t = i % bs, l = t % 32, t0 = i - l, lanes = warp_lanes(bs, t - l);
        uint32_t lo = lanes >= 16 ? 0xffffu : (1u << lanes) - 1;
        uint32_t hi = lanes == 32 ? 0xffff0000u : lanes > 16 ? ((1u << lanes) - 1) & ~0xffffu : 0;
        int64_t want[4];
        if (l < 16) {
            /* a partner past a partial warp's end: the lane's own value */
            want[0] = (l ^ 1) < lanes ? x[t0 + (l ^ 1)] : x[i];
            want[1] = lo;
        } else {
            want[0] = lanes == 32 ? x[t0 + 31] : x[i];
            want[1] = hi;
        }
        want[2] = 2 * (int64_t)(l >= 3 ? x[i - 3] : x[i]);
        int all = 1, anyv = 0, big = 0;
        for (unsigned j = 0; j < lanes; j++) {
            all &= x[t0 + j] >= 0;
            anyv |= x[t0 + j] > 5;
            big += x[t0 + j] > 5;
        }
        want[3] = all * 4 + anyv * 2 + (big == 0 || big == (int)lanes);
        for (int k = 0; k < 4 && good; k++)
            if (!(good = out[4 * i + k] == want[k]))
                diag("thread %u, value %d: got %lld want %lld", i, k, (long long)out[4 * i + k],
                     (long long)want[k]);
    }
    ok(good, "shuffles and votes in branches that split warps, blocks of %u", bs);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

static void test_block_votes(unsigned g, unsigned bs, int32_t shift)
{
    int32_t *x = malloc(bs * sizeof *x), *out = malloc(3 * g * sizeof *out);
    krt_array dx, dout;
    int32_t c = 0, a = 1, o = 0;
    for (unsigned t = 0; t < bs; t++) {
        x[t] = (int32_t)(t % 7) + shift;
        c += x[t] > 0;
        a &= x[t] > 0;
        o |= x[t] > 100;
    }
    E2E_CHECK(krt_to_device(&dx, x, KRT_INT32, 1, (int64_t[]){bs}, NULL));
    E2E_CHECK(krt_alloc(&dout, KRT_INT32, 1, (int64_t[]){3 * g}));
    E2E_CHECK(block_votes(krt_grid1(g, bs), dx, dout));
    E2E_CHECK(krt_copy_to_host(out, dout, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++)
        if (!(good = out[3 * b] == c && out[3 * b + 1] == a && out[3 * b + 2] == o))
            diag("block %u: %d %d %d want %d %d %d", b, out[3 * b], out[3 * b + 1], out[3 * b + 2],
                 c, a, o);
    ok(good, "syncthreads_count/and/or, blocks of %u, shift %d", bs, shift);
    krt_free(dx);
    krt_free(dout);
    free(x);
    free(out);
}

int main(void)
{
    plan(14);
    test_warp_sum(1000, 128);
    test_warp_sum(4096, 1024);
    test_ballot(3, 64);
    test_ballot(5, 48);
    test_match(2, 96);
    test_match(3, 48);
    test_divergent(2, 64);
    test_divergent(3, 48);
    test_divergent(2, 20);
    test_block_votes(4, 256, 0);
    test_block_votes(2, 100, 1);
    test_block_votes(3, 1024, 95);
    test_block_votes(1, 7, -10);
    test_warp_sum(33, 32);
    return 0;
}
