/*
 * control.c - end-to-end test of control.kern: loops with barriers left
 * by `break` and `continue`, a per-thread re-assigned parameter, a bool
 * parameter, and a barrier under a block-uniform `if`.
 */
#include "e2e.h"
#include "control.kern.h"

#define N 200

/* The count the while loop leaves in s[t] for a start value n. */
static float loop_count(int64_t n)
{
    float s = 0;
    while (n > 0) {
        n -= 1;
        if (n == 3)
            continue;
        if (n == 1)
            break;
        s += 1;
    }
    return s;
}

int main(void)
{
    static const int64_t starts[] = {0, 1, 2, 3, 4, 6, 9};
    static float x[N], y[N];
    plan(2 * 7);
    for (int k = 0; k < 7; k++)
        for (int neg = 0; neg < 2; neg++) {
            krt_array dx;
            for (int i = 0; i < N; i++)
                x[i] = (float)i;
            E2E_CHECK(krt_to_device(&dx, x, KRT_FLOAT32, 1, (int64_t[]){N}, NULL));
            E2E_CHECK(flags(krt_grid1((N + 63) / 64, 64), dx, (uint8_t)(neg ? 7 : 0), starts[k]));
            E2E_CHECK(krt_copy_to_host(y, dx, NULL));
            float c = loop_count(starts[k]);
            int good = 1;
            for (int i = 0; i < N && good; i++) {
                float s = (i / 64) % 2 ? c + c * 100.0f : c - 1.0f;
                float want = neg ? -(x[i] * 2.0f) : s + x[i];
                if (!(good = y[i] == want))
                    diag("element %d: got %g want %g", i, (double)y[i], (double)want);
            }
            ok(good, "break/continue around barriers, n=%lld, neg=%d", (long long)starts[k], neg);
            krt_free(dx);
        }
    return 0;
}
