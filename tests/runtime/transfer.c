/*
 * transfer.c - the transfers beyond krt_to_device/krt_copy_to_host on the
 * CPU backend: copies into an existing array (synchronous and on a stream),
 * device-to-device copies and their dtype/shape/layout checks, arrays
 * "like" another, wrapping foreign memory (zero copy, never freed, strided
 * views gathered on the way back, also on a stream), pinned host memory and
 * its bookkeeping, and deferred cleanup.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

int main(void)
{
    enum { R = 6, C = 5 };
    int32_t m[R][C], back[R][C], col[R], two[R][C];
    double d[R * C];
    krt_array a, b, f64, like, w, zero, freed, wide;
    krt_stream *s;
    int64_t shape[] = {R, C}, flat[] = {R * C}, wshape[] = {R},
            wstride[] = {C * 4}, other[] = {C, R};
    void *pinned, *p2;
    char *buf;
    int i, good;

    krt_set_backend("cpu");
    plan(59);
    for (i = 0; i < R * C; i++) {
        m[i / C][i % C] = i * 3;
        d[i] = i;
    }
    memset(&zero, 0, sizeof zero);

    /* krt_copy_to_device into an existing array. */
    is_status(KRT_OK, krt_alloc(&a, KRT_INT32, 2, shape), "alloc int32[6,5]");
    is_status(KRT_OK, krt_copy_to_device(a, m, NULL), "krt_copy_to_device");
    memset(back, 0, sizeof back);
    krt_copy_to_host(back, a, NULL);
    is_blob(m, back, sizeof m, "round trip through an existing array");
    is_status(KRT_ENULLARRAY, krt_copy_to_device(zero, m, NULL),
              "copy into a zeroed array");
    is_status(KRT_EINVAL, krt_copy_to_device(a, NULL, NULL),
              "copy from a NULL host pointer");

    /* krt_copy_device. */
    is_status(KRT_OK, krt_device_array_like(&like, a),
              "krt_device_array_like");
    ok(like.dtype == KRT_INT32 && like.ndim == 2 && like.shape[0] == R &&
           like.shape[1] == C && krt_array_is_contiguous(&like) &&
           (like.flags & KRT_ARRAY_OWNED) && like.data != a.data,
       "a new contiguous owned array of the same dtype and shape");
    is_status(KRT_OK, krt_copy_device(like, a, NULL), "krt_copy_device");
    memset(back, 0, sizeof back);
    krt_copy_to_host(back, like, NULL);
    is_blob(m, back, sizeof m, "device-to-device copy");
    is_status(KRT_OK, krt_to_device(&f64, d, KRT_FLOAT64, 2, shape, NULL),
              "float64[6,5]");
    is_status(KRT_EDTYPE, krt_copy_device(like, f64, NULL),
              "copy float64 into int32");
    is_status(KRT_OK, krt_alloc(&b, KRT_INT32, 1, flat), "int32[30]");
    is_status(KRT_ESHAPE, krt_copy_device(b, a, NULL),
              "copy 2-D into 1-D");
    krt_free(b);
    is_status(KRT_OK, krt_alloc(&b, KRT_INT32, 2, other), "int32[5,6]");
    is_status(KRT_ESHAPE, krt_copy_device(b, a, NULL),
              "copy [6,5] into [5,6]");
    krt_free(b);
    is_status(KRT_ENULLARRAY, krt_copy_device(like, zero, NULL),
              "copy from a zeroed array");
    freed = like;
    freed.data = NULL;
    is_status(KRT_ENULLARRAY, krt_copy_device(freed, a, NULL),
              "copy into an array without data");
    is_status(KRT_ENULLARRAY, krt_device_array_like(&b, zero),
              "like a zeroed array");

    /* krt_wrap: zero copy, strided, not owned. */
    is_status(KRT_OK,
              krt_wrap(&w, (char *)krt_device_ptr(a) + 2 * 4, KRT_INT32, 1,
                       wshape, wstride),
              "wrap column 2 of a");
    ok(!(w.flags & KRT_ARRAY_OWNED) && krt_device_ptr(w) ==
           (char *)a.data + 8 && !krt_array_is_contiguous(&w),
       "the wrapper is a strided, unowned view");
    is_status(KRT_OK, krt_copy_to_host(col, w, NULL), "copy the column back");
    for (good = 1, i = 0; i < R; i++)
        good &= col[i] == m[i][2];
    ok(good, "the column was gathered");
    is_status(KRT_OK, krt_free(w), "krt_free of a wrapper");
    memset(back, 0, sizeof back);
    krt_copy_to_host(back, a, NULL);
    is_blob(m, back, sizeof m, "the wrapped memory is still a's");
    is_status(KRT_ELAYOUT, krt_copy_to_device(w, col, NULL),
              "copy into a strided view");
    is_status(KRT_ESHAPE, krt_copy_device(like, w, NULL),
              "device copy of a [6] view into [6,5]");
    krt_alloc(&b, KRT_INT32, 1, wshape);
    is_status(KRT_ELAYOUT, krt_copy_device(b, w, NULL),
              "device copy from a strided view");
    krt_free(b);
    is_status(KRT_OK, krt_wrap(&wide, a.data, KRT_INT32, 2, shape, NULL),
              "wrap with C strides");
    ok(wide.strides[0] == C * 4 && wide.strides[1] == 4,
       "NULL strides mean C order");
    is_status(KRT_EINVAL, krt_wrap(&wide, NULL, KRT_INT32, 2, shape, NULL),
              "wrap NULL");
    is_status(KRT_OK, krt_wrap(&wide, NULL, KRT_INT32, 1,
                               (int64_t[]){0}, NULL),
              "wrap NULL with zero elements");
    ok(krt_device_ptr(zero) == NULL, "krt_device_ptr of a zeroed array");

    /* On a stream: a copy in, a device copy, a strided copy out. */
    is_status(KRT_OK, krt_stream_create(&s), "stream");
    for (i = 0; i < R * C; i++)
        two[i / C][i % C] = -i;
    memset(col, 0, sizeof col);
    is_status(KRT_OK, krt_copy_to_device(a, two, s), "async copy in");
    is_status(KRT_OK, krt_copy_device(like, a, s), "async device copy");
    is_status(KRT_OK, krt_wrap(&w, (char *)like.data + 4, KRT_INT32, 1,
                               wshape, wstride), "wrap column 1 of like");
    is_status(KRT_OK, krt_copy_to_host(col, w, s), "async strided copy out");
    is_status(KRT_OK, krt_stream_synchronize(s), "synchronize");
    for (good = 1, i = 0; i < R; i++)
        good &= col[i] == two[i][1];
    ok(good, "the three copies ran in order");

    /* Pinned host memory. */
    is_status(KRT_OK, krt_host_alloc(&pinned, 1000), "krt_host_alloc");
    ok(pinned != NULL && (uintptr_t)pinned % 64 == 0, "aligned memory");
    memset(pinned, 1, 1000);
    is_status(KRT_OK, krt_host_free(pinned), "krt_host_free");
    is_status(KRT_EINVAL, krt_host_free(pinned), "free it twice");
    is_status(KRT_EINVAL, krt_host_alloc(&p2, 0), "allocate 0 bytes");
    buf = malloc(4096);
    is_status(KRT_EINVAL, krt_host_unregister(buf),
              "unregister an unregistered pointer");
    is_status(KRT_OK, krt_host_register(buf, 4096), "krt_host_register");
    is_status(KRT_EINVAL, krt_host_register(buf + 100, 10),
              "register an overlapping range");
    is_status(KRT_EINVAL, krt_host_free(buf), "krt_host_free of registered "
                                              "memory");
    is_status(KRT_OK, krt_host_unregister(buf), "krt_host_unregister");
    is_status(KRT_EINVAL, krt_host_unregister(buf), "unregister it twice");
    free(buf);

    /* Deferred cleanup: freed memory stays usable (by work queued before
     * the free, seen here through an unchecked wrapper) until the
     * outermost section ends (valgrind would flag a premature free); the
     * handle itself is dead at once. */
    is_status(KRT_EINVAL, krt_defer_end(), "krt_defer_end without begin");
    is_status(KRT_OK, krt_defer_begin(), "krt_defer_begin");
    is_status(KRT_OK, krt_defer_begin(), "nested krt_defer_begin");
    is_status(KRT_OK, krt_wrap(&w, like.data, like.dtype, like.ndim,
                               like.shape, NULL), "wrap like's memory");
    is_status(KRT_OK, krt_free(like), "krt_free is deferred");
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, like, NULL),
              "the freed handle is refused at once");
    is_status(KRT_OK, krt_defer_end(), "inner krt_defer_end");
    memset(back, 0, sizeof back);
    krt_copy_to_host(back, w, NULL);
    is_blob(two, back, sizeof two, "still there after the inner end");
    is_status(KRT_OK, krt_defer_end(), "outer krt_defer_end frees it");

    krt_stream_destroy(s);
    krt_free(a);
    krt_free(f64);
    return 0;
}
