/*
 * recursion.c - end-to-end test of recursion.kern: recursive device
 * functions and a kernel called from device code, against C.
 */
#include "e2e.h"
#include "recursion.kern.h"

static int64_t c_fib(int64_t n) { return n < 2 ? n : c_fib(n - 1) + c_fib(n - 2); }
static int64_t c_ack(int64_t m, int64_t n)
{
    return m == 0 ? n + 1 : n == 0 ? c_ack(m - 1, 1) : c_ack(m - 1, c_ack(m, n - 1));
}

int main(void)
{
    enum { N = 20 };
    int64_t out[N][4];
    memset(out, 0, sizeof out);
    plan(4);
    krt_array d;
    E2E_CHECK(krt_to_device(&d, out, KRT_INT64, 2, (int64_t[]){N, 4}, NULL));
    E2E_CHECK(recursive(krt_grid1(1, N), d));
    E2E_CHECK(krt_copy_to_host(out, d, NULL));
    int f = 1, a = 1, e = 1, s = 1;
    for (int i = 0; i < N; i++) {
        f &= out[i][0] == c_fib(i);
        a &= out[i][1] == c_ack(2, i);
        e &= out[i][2] == (i % 2 == 0);
        s &= out[i][3] == 10 * i;
    }
    ok(f, "fib (explicit signature, self recursion)");
    ok(a, "ackermann (no signature, nested recursive calls)");
    ok(e, "even/odd (mutual recursion)");
    ok(s, "a kernel called from a kernel, as a device function");
    krt_free(d);
    return 0;
}
