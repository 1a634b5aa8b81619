/*
 * atomics2.c - end-to-end test of atomics2.kern: the bitwise atomics,
 * exch, inc/dec (CUDA's wrap-around), cas and numba's older
 * compare_and_swap, nanmax/nanmin beside max/min with NaNs, and atomics on
 * shared memory, all under contention from many blocks run in parallel.
 */
#include "e2e.h"
#include "atomics2.kern.h"

#define N 5000

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_bits(void)
{
    static int32_t vals[N];
    int32_t i32[3] = {-1, 0, 0x12345678};
    uint32_t u32[3] = {0xffffffffu, 0, 0x9abcdef0u};
    int64_t i64[3] = {-1, 0, 0x123456789abcdefLL};
    uint64_t u64[3] = {UINT64_MAX, 0, 0xfedcba9876543210ULL};
    int32_t wi32[3];
    uint32_t wu32[3];
    int64_t wi64[3];
    uint64_t wu64[3];
    memcpy(wi32, i32, sizeof i32);
    memcpy(wu32, u32, sizeof u32);
    memcpy(wi64, i64, sizeof i64);
    memcpy(wu64, u64, sizeof u64);
    for (int i = 0; i < N; i++) {
        int32_t v = (int32_t)((uint32_t)i * 2654435761u);
        vals[i] = v;
        wi32[0] &= v | 0x7ff00000;
        wi32[1] |= v & 0x00ff00ff;
        wi32[2] ^= v;
        uint32_t w = (uint32_t)v;
        wu32[0] &= w | 0xfff00000u;
        wu32[1] |= w & 0x00ff00ffu;
        wu32[2] ^= w;
        int64_t x = (int64_t)((uint64_t)(int64_t)v << 20);
        wi64[0] &= x | 0x7ff0000000000000LL;
        wi64[1] |= x & 0x00ff00ff00ff00ffLL;
        wi64[2] ^= x;
        uint64_t y = (uint64_t)x;
        wu64[0] &= y | 0xfff0000000000000ULL;
        wu64[1] |= y & 0x00ff00ff00ff00ffULL;
        wu64[2] ^= y;
    }
    krt_array dv, a, b, c, d;
    E2E_CHECK(krt_to_device(&dv, vals, KRT_INT32, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&a, i32, KRT_INT32, 1, (int64_t[]){3}, NULL));
    E2E_CHECK(krt_to_device(&b, u32, KRT_UINT32, 1, (int64_t[]){3}, NULL));
    E2E_CHECK(krt_to_device(&c, i64, KRT_INT64, 1, (int64_t[]){3}, NULL));
    E2E_CHECK(krt_to_device(&d, u64, KRT_UINT64, 1, (int64_t[]){3}, NULL));
    E2E_CHECK(bits(krt_grid1((N + 127) / 128, 128), a, b, c, d, dv));
    E2E_CHECK(krt_copy_to_host(i32, a, NULL));
    E2E_CHECK(krt_copy_to_host(u32, b, NULL));
    E2E_CHECK(krt_copy_to_host(i64, c, NULL));
    E2E_CHECK(krt_copy_to_host(u64, d, NULL));
    ok(memcmp(i32, wi32, sizeof i32) == 0, "and_/or_/xor on int32");
    ok(memcmp(u32, wu32, sizeof u32) == 0, "and_/or_/xor on uint32");
    ok(memcmp(i64, wi64, sizeof i64) == 0, "and_/or_/xor on int64");
    ok(memcmp(u64, wu64, sizeof u64) == 0, "and_/or_/xor on uint64");
    krt_free(dv);
    krt_free(a);
    krt_free(b);
    krt_free(c);
    krt_free(d);
}

static void test_incdec(uint32_t limit, uint32_t start)
{
    static int32_t olds[N];
    static uint32_t want_olds[N];
    uint32_t u32[2] = {start, start};
    uint64_t u64[4] = {0, start, start, 0};
    uint32_t inc = start, dec = start;
    for (int i = 0; i < N; i++) {
        want_olds[i] = inc;
        inc = inc >= limit ? 0 : inc + 1;
        dec = (dec == 0 || dec > limit) ? limit : dec - 1;
    }
    krt_array a, b, o;
    E2E_CHECK(krt_to_device(&a, u32, KRT_UINT32, 1, (int64_t[]){2}, NULL));
    E2E_CHECK(krt_to_device(&b, u64, KRT_UINT64, 2, (int64_t[]){2, 2}, NULL));
    E2E_CHECK(krt_alloc(&o, KRT_INT32, 1, (int64_t[]){N}));
    E2E_CHECK(incdec(krt_grid1((N + 63) / 64, 64), a, b, o, limit));
    E2E_CHECK(krt_copy_to_host(u32, a, NULL));
    E2E_CHECK(krt_copy_to_host(u64, b, NULL));
    E2E_CHECK(krt_copy_to_host(olds, o, NULL));
    ok(u32[0] == inc && u32[1] == dec && u64[1] == inc && u64[2] == dec,
       "inc/dec wrap at %u from %u: %u %u %llu %llu (want %u %u)", limit, start, u32[0], u32[1],
       (unsigned long long)u64[1], (unsigned long long)u64[2], inc, dec);
    qsort(olds, N, sizeof olds[0], cmp_u32);
    qsort(want_olds, N, sizeof want_olds[0], cmp_u32);
    ok(memcmp(olds, want_olds, sizeof olds) == 0, "inc returns every state once");
    krt_free(a);
    krt_free(b);
    krt_free(o);
}

static void test_exch_cas(int32_t cell0)
{
    static int32_t winner[N];
    static int64_t chain[N + 1];
    int64_t slot = -7;
    int32_t owner[16], cell = cell0;
    for (int k = 0; k < 16; k++)
        owner[k] = k < 8 ? -1 : 0;
    krt_array s, w, o, c;
    E2E_CHECK(krt_to_device(&s, &slot, KRT_INT64, 1, (int64_t[]){1}, NULL));
    E2E_CHECK(krt_alloc(&w, KRT_INT32, 1, (int64_t[]){N}));
    E2E_CHECK(krt_to_device(&o, owner, KRT_INT32, 1, (int64_t[]){16}, NULL));
    E2E_CHECK(krt_to_device(&c, &cell, KRT_INT32, 1, (int64_t[]){1}, NULL));
    E2E_CHECK(exch_cas(krt_grid1((N + 255) / 256, 256), s, w, o, c));
    E2E_CHECK(krt_copy_to_host(&slot, s, NULL));
    E2E_CHECK(krt_copy_to_host(winner, w, NULL));
    E2E_CHECK(krt_copy_to_host(owner, o, NULL));
    E2E_CHECK(krt_copy_to_host(&cell, c, NULL));
    /* the old values and the final one: -7 and every thread index once */
    for (int i = 0; i < N; i++)
        chain[i] = winner[i];
    chain[N] = slot;
    qsort(chain, N + 1, sizeof chain[0], cmp_i64);
    int good = chain[0] == -7;
    for (int i = 0; i < N && good; i++)
        good = chain[i + 1] == i;
    ok(good, "exch hands every value on exactly once");
    good = 1;
    for (int k = 0; k < 8; k++)
        good &= owner[k] >= 0 && owner[k] % 8 == k && owner[8 + k] == 1;
    ok(good, "cas: exactly one thread claims each cell");
    if (cell0 == 0)
        ok(cell > 0 && cell < N, "compare_and_swap from 0: a thread index won (%d)", cell);
    else
        ok(cell == cell0, "compare_and_swap expecting 0 leaves %d alone (%d)", cell0, cell);
    krt_free(s);
    krt_free(w);
    krt_free(o);
    krt_free(c);
}

static void test_nans(void)
{
    static float vals[N];
    float f32[4] = {NAN, INFINITY, NAN, 0.0f};
    double f64[4] = {NAN, INFINITY, NAN, 0.0};
    int32_t i32[2] = {-5, 1 << 30};
    float hi = -INFINITY, lo = INFINITY;
    for (int i = 0; i < N; i++) {
        vals[i] = i % 7 == 3 ? NAN : (float)((i * 7919) % 1999) - 1000.0f;
        if (vals[i] == vals[i]) {
            hi = vals[i] > hi ? vals[i] : hi;
            lo = vals[i] < lo ? vals[i] : lo;
        }
    }
    krt_array v, a, b, c;
    E2E_CHECK(krt_to_device(&v, vals, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&a, f32, KRT_FLOAT32, 1, (int64_t[]){4}, NULL));
    E2E_CHECK(krt_to_device(&b, f64, KRT_FLOAT64, 1, (int64_t[]){4}, NULL));
    E2E_CHECK(krt_to_device(&c, i32, KRT_INT32, 1, (int64_t[]){2}, NULL));
    E2E_CHECK(nans(krt_grid1((N + 127) / 128, 128), a, b, v, c));
    E2E_CHECK(krt_copy_to_host(f32, a, NULL));
    E2E_CHECK(krt_copy_to_host(f64, b, NULL));
    E2E_CHECK(krt_copy_to_host(i32, c, NULL));
    ok(f32[0] == hi && f32[1] == lo && f32[2] != f32[2] && f32[3] == (lo < 0 ? lo : 0.0f),
       "float32 nanmax/nanmin replace a NaN, max/min keep it: %g %g %g %g", (double)f32[0],
       (double)f32[1], (double)f32[2], (double)f32[3]);
    ok(f64[0] == hi && f64[1] == lo && f64[2] != f64[2] && f64[3] == (lo < 0 ? lo : 0.0),
       "float64 nanmax/nanmin replace a NaN, max/min keep it");
    ok(i32[0] == N - 1 && i32[1] == 0, "int32 nanmax/nanmin are max/min");
    krt_free(v);
    krt_free(a);
    krt_free(b);
    krt_free(c);
}

static void test_shared(unsigned g, unsigned bs)
{
    unsigned n = g * bs;
    int32_t *vals = malloc(n * sizeof *vals), *out = malloc(4 * g * sizeof *out);
    krt_array v, o;
    for (unsigned i = 0; i < n; i++)
        vals[i] = (int32_t)(i * 31 % 1000) - 300;
    E2E_CHECK(krt_to_device(&v, vals, KRT_INT32, 1, (int64_t[]){n}, NULL));
    E2E_CHECK(krt_alloc(&o, KRT_INT32, 1, (int64_t[]){4 * g}));
    E2E_CHECK(shared_atomics(krt_grid1(g, bs), v, o));
    E2E_CHECK(krt_copy_to_host(out, o, NULL));
    int good = 1;
    for (unsigned b = 0; b < g && good; b++) {
        int32_t w[4] = {0, 0, 0, 0};
        for (unsigned t = 0; t < bs; t++) {
            int32_t x = vals[b * bs + t];
            w[0] += x;
            w[1] = x > w[1] ? x : w[1];
            w[2] |= x;
            w[3] ^= x;
        }
        good = memcmp(w, out + 4 * b, sizeof w) == 0;
    }
    ok(good, "atomics on shared memory, blocks of %u", bs);
    krt_free(v);
    krt_free(o);
    free(vals);
    free(out);
}

int main(void)
{
    plan(18);
    test_bits();
    test_incdec(17, 3);
    test_incdec(1000000, 999990);
    test_exch_cas(0);
    test_exch_cas(5);
    test_nans();
    test_shared(3, 256);
    return 0;
}
