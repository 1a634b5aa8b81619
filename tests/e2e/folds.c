/*
 * folds.c - end-to-end test of folds.kern: comparisons kernc prints as
 * their value (the types or ranges of the operands decide them) give
 * numba's results, and the generated code compiles under -Werror (e2e.sh).
 */
#include "e2e.h"
#include "folds.kern.h"

#define N 70
#define NC 12

int main(void)
{
    int32_t a[N], r[N][NC];
    uint32_t u[N];
    uint8_t b[N];
    int8_t c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (i * 37) % 23 - 11;
        u[i] = (uint32_t)i * 2654435761u;
        if (i < 12)
            u[i] = (uint32_t)i;
        b[i] = (uint8_t)(i * 7);
        c[i] = (int8_t)(i * 5 - 100);
    }
    krt_array da, du, db, dc, dr;
    plan(NC);
    E2E_CHECK(krt_to_device(&da, a, KRT_INT32, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&du, u, KRT_UINT32, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&db, b, KRT_UINT8, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&dc, c, KRT_INT8, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_alloc(&dr, KRT_INT32, 2, (int64_t[]){N, NC}));
    E2E_CHECK(folds(krt_grid1(3, 32), da, du, db, dc, dr));
    E2E_CHECK(krt_copy_to_host(r, dr, NULL));
    static const char *const what[NC] = {
        "uint32 >= 0", "uint32 < 0", "uint8 > 300", "int8 == 200", "(a & 3) == 7", "a % 8 != 9",
        "0 <= uint32 < 10", "-1 < a % 8 < 8", "0 <= a % 8 <= 3 < 9", "300 > uint8",
        "a % 2 == 14 (its variable read nowhere else)", "0 < a % 8 < 0"};
    for (int k = 0; k < NC; k++) {
        int good = 1;
        for (int i = 0; i < N && good; i++) {
            int m = ((a[i] % 8) + 8) % 8, want;
            switch (k) {
            case 0: want = 1; break;
            case 1: want = 0; break;
            case 2: want = 0; break;
            case 3: want = 0; break;
            case 4: want = 0; break;
            case 5: want = 1; break;
            case 6: want = u[i] < 10; break;
            case 7: want = 1; break;
            case 8: want = m <= 3; break;
            case 9: want = 1; break;
            case 10: want = 0; break;
            default: want = 0; break;
            }
            if (!(good = r[i][k] == want))
                diag("i=%d: got %d want %d", i, r[i][k], want);
        }
        ok(good, "%s", what[k]);
    }
    krt_free(da);
    krt_free(du);
    krt_free(db);
    krt_free(dc);
    krt_free(dr);
    return 0;
}
