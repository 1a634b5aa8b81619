/*
 * exceptions.c - end-to-end test of exceptions.kern: raise and assert
 * under debug=True fail the launch with KRT_EEXCEPTION and numba-cuda's
 * message; without debug the raising thread ends and the others finish.
 */
#include "e2e.h"
#include "exceptions.kern.h"

static void test_raises(int32_t how, const char *needle)
{
    int32_t a[8] = {0};
    krt_array da;
    E2E_CHECK(krt_to_device(&da, a, KRT_INT32, 1, (int64_t[]){8}, NULL));
    int st = raises(krt_grid1(1, 8), da, how);
    if (st == KRT_OK)
        st = krt_synchronize();
    if (!needle) {
        E2E_CHECK(krt_copy_to_host(a, da, NULL));
        int good = st == KRT_OK;
        for (int i = 0; i < 8; i++)
            good &= a[i] == how + 1;
        ok(good, "how=%d: no exception", how);
    } else {
        ok(st == KRT_EEXCEPTION && strstr(krt_last_error(), needle) != NULL,
           "how=%d raises: %s (%s)", how, krt_status_name(st), krt_last_error());
    }
    krt_free(da);
}

static void test_device(int32_t limit, const char *needle)
{
    int32_t a[4] = {0};
    krt_array da;
    E2E_CHECK(krt_to_device(&da, a, KRT_INT32, 1, (int64_t[]){4}, NULL));
    int st = through_device(krt_grid1(1, 4), da, limit);
    if (st == KRT_OK)
        st = krt_synchronize();
    if (!needle) {
        E2E_CHECK(krt_copy_to_host(a, da, NULL));
        ok(st == KRT_OK && a[0] == 0 && a[1] == 2 && a[2] == 4 && a[3] == 6,
           "device function, limit %d: no exception", limit);
    } else {
        ok(st == KRT_EEXCEPTION && strstr(krt_last_error(), needle) != NULL,
           "device function, limit %d: %s", limit, krt_last_error());
    }
    krt_free(da);
}

static void test_ends_thread(void)
{
    enum { N = 16 };
    int32_t a[N] = {0}, b[N] = {0};
    krt_array da, db;
    E2E_CHECK(krt_to_device(&da, a, KRT_INT32, 1, (int64_t[]){N}, NULL));
    E2E_CHECK(krt_to_device(&db, b, KRT_INT32, 1, (int64_t[]){N}, NULL));
    int st = ends_thread(krt_grid1(1, N), da, db);
    if (st == KRT_OK)
        st = krt_synchronize();
    E2E_CHECK(krt_copy_to_host(a, da, NULL));
    E2E_CHECK(krt_copy_to_host(b, db, NULL));
    int good = st == KRT_OK;
    for (int i = 0; i < N; i++) {
        int ended = i % 4 == 1 || i % 4 == 2;
        good &= a[i] == (ended ? 0 : 1);
        good &= b[i] == (ended ? 0 : (i + 1) % N + 100);
    }
    ok(good, "without debug the raising threads end, the others pass the barrier (%s)",
       krt_status_name(st));
    krt_free(da);
    krt_free(db);
}

int main(void)
{
    plan(8);
    test_raises(0, NULL);
    test_raises(1, "MyError: In function 'raises', file exceptions.kern, line 16, "
                   "tid=[0, 0, 5] ctaid=[0, 0, 0]");
    test_raises(2, "ValueError: In function 'raises', file exceptions.kern, line 18, "
                   "tid=[0, 0, 3] ctaid=[0, 0, 0]: bad value");
    test_raises(3, "AssertionError: In function 'raises', file exceptions.kern, line 19, "
                   "tid=[0, 0, 2] ctaid=[0, 0, 0]: how is 3");
    test_device(10, NULL);
    test_device(2, "IndexError: In function 'check', file exceptions.kern, line 26, "
                   "tid=[0, 0, 2] ctaid=[0, 0, 0]: past the limit");
    test_ends_thread();
    ok(strcmp(krt_status_name(KRT_EEXCEPTION), "KRT_EEXCEPTION") == 0 &&
           strcmp(krt_strerror(KRT_EEXCEPTION), "exception raised in a kernel") == 0,
       "KRT_EEXCEPTION's name and text");
    return 0;
}
