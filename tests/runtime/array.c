/*
 * array.c - device arrays and krt_check_array on the backend KRT_BACKEND
 * chooses (auto: the GPU where there is one, else the CPU): allocation,
 * round trips, strided copies, every argument error, and the messages that
 * name the kernel and the parameter.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

static const krt_param params[] = {
    {"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0},
    {"m", KRT_PARAM_ARRAY, KRT_INT32, 2, 1},
    {"alpha", KRT_PARAM_SCALAR, KRT_FLOAT32, 0, 0},
};
static const krt_kernel saxpy = {"saxpy", "saxpy.kern", 3, params,
                                 NULL, NULL, 0, 0, 0, NULL};

/* The status, and the message when it is not KRT_OK. */
static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

static int contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

int main(void)
{
    krt_array a, b, z;
    krt_view v;
    float host[24], back[24];
    int32_t m[3][4], mback[12], col[3];
    int64_t shape1[] = {24}, shape2[] = {3, 4}, neg[] = {3, -1},
            zero[] = {0, 5}, five[] = {1, 1, 1, 1, 1};
    int i, ok_all;

    plan(83);
    diag("backend: %s", krt_backend_name());

    for (i = 0; i < 24; i++)
        host[i] = (float)i * 1.5f;
    for (i = 0; i < 12; i++)
        m[i / 4][i % 4] = i * 10;

    /* Round trips. */
    is_status(KRT_OK, krt_to_device(&a, host, KRT_FLOAT32, 1, shape1, NULL),
              "krt_to_device float32[24]");
    ok(a.data != NULL && a.ndim == 1 && a.shape[0] == 24 &&
           a.strides[0] == 4 && a.dtype == KRT_FLOAT32 &&
           (a.flags & KRT_ARRAY_OWNED),
       "array header filled");
    is_int(24, krt_array_size(&a), "krt_array_size");
    is_int(96, (long long)krt_array_nbytes(&a), "krt_array_nbytes");
    ok(krt_array_is_contiguous(&a), "new array is contiguous");
    memset(back, 0, sizeof back);
    is_status(KRT_OK, krt_copy_to_host(back, a, NULL), "krt_copy_to_host");
    is_blob(host, back, sizeof host, "round trip keeps the data");

    is_status(KRT_OK, krt_to_device(&b, m, KRT_INT32, 2, shape2, NULL),
              "krt_to_device int32[3, 4]");
    ok(b.strides[0] == 16 && b.strides[1] == 4, "C strides in bytes");
    is_status(KRT_OK, krt_copy_to_host(mback, b, NULL), "copy 2-D back");
    is_blob(m, mback, sizeof m, "2-D round trip");

    /* A strided view: column 1 of m, then m transposed. */
    {
        krt_array c = b;
        c.data = (char *)b.data + 4;
        c.ndim = 1;
        c.shape[0] = 3;
        c.strides[0] = 16;
        ok(!krt_array_is_contiguous(&c), "column view is not contiguous");
        is_status(KRT_OK, krt_copy_to_host(col, c, NULL),
                  "copy a strided column");
        ok(col[0] == 10 && col[1] == 50 && col[2] == 90,
           "strided column gathered (%d %d %d)", col[0], col[1], col[2]);

        c = b;
        c.shape[0] = 4;
        c.shape[1] = 3;
        c.strides[0] = 4;
        c.strides[1] = 16;
        is_status(KRT_OK, krt_copy_to_host(mback, c, NULL),
                  "copy a transposed view");
        ok_all = 1;
        for (i = 0; i < 12; i++)
            if (mback[i] != m[i % 3][i / 3])
                ok_all = 0;
        ok(ok_all, "transposed view gathered in C order");
    }
    {
        int32_t rev[4];
        krt_array c = b;
        c.data = (char *)b.data + 12;
        c.ndim = 1;
        c.shape[0] = 4;
        c.strides[0] = -4;
        is_status(KRT_OK, krt_copy_to_host(rev, c, NULL),
                  "copy a reversed view (negative stride)");
        ok(rev[0] == 30 && rev[1] == 20 && rev[2] == 10 && rev[3] == 0,
           "reversed view gathered");
        c.shape[0] = 1;
        c.strides[0] = 999;
        ok(krt_array_is_contiguous(&c), "extent-1 dimensions ignore strides");
    }

    /* Zero-size arrays. */
    is_status(KRT_OK, krt_alloc(&z, KRT_FLOAT64, 2, zero),
              "krt_alloc of a zero-size array");
    is_int(0, krt_array_size(&z), "zero-size array has no elements");
    ok(krt_array_is_contiguous(&z), "zero-size array is contiguous");
    is_status(KRT_OK, krt_copy_to_host(NULL, z, NULL),
              "copy of a zero-size array needs no buffer");
    is_status(KRT_OK, krt_to_device(&z, NULL, KRT_FLOAT64, 2, zero, NULL),
              "krt_to_device of zero elements from NULL");
    is_status(KRT_OK, krt_free(z), "free a zero-size array");

    /* Argument errors. */
    is_status(KRT_EINVAL, krt_alloc(NULL, KRT_FLOAT32, 1, shape1),
              "krt_alloc: NULL out");
    is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT32, 0, shape1),
              "krt_alloc: ndim 0");
    ok(contains(krt_last_error(), "ndim 0 is outside 1..4"),
       "message: %s", krt_last_error());
    is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT32, 5, five),
              "krt_alloc: ndim 5");
    is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT32, -1, shape1),
              "krt_alloc: ndim -1");
    is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT32, 2, neg),
              "krt_alloc: negative dimension");
    is_string("krt_alloc: dimension 1 has negative extent -1",
              krt_last_error(), "negative dimension message");
    is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT32, 1, NULL),
              "krt_alloc: NULL shape");
    is_status(KRT_EINVAL, krt_alloc(&z, KRT_DTYPE_COUNT, 1, shape1),
              "krt_alloc: invalid dtype");
    ok(z.data == NULL && z.ndim == 0, "failed krt_alloc leaves a zeroed array");
    {
        /* NumPy's rule: the product of the nonzero extents times the item
         * size must fit in int64, even for an empty array. */
        int64_t huge[] = {INT64_MAX / 2, 4}, empty_huge[] = {0, INT64_MAX},
                two_huge[] = {INT64_C(1) << 32, INT64_C(1) << 32},
                edge[] = {0, INT64_MAX / 8}, past[] = {INT64_MAX / 8 + 1, 0};
        krt_array e, w;
        is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT64, 2, huge),
                  "krt_alloc: size overflows");
        is_string("krt_alloc: shape too large", krt_last_error(),
                  "size overflow message");
        is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT32, 2, empty_huge),
                  "krt_alloc: (0, INT64_MAX) is too large though empty");
        is_status(KRT_EINVAL, krt_alloc(&z, KRT_INT8, 2, two_huge),
                  "krt_alloc: two dimensions of 2**32 int8");
        is_status(KRT_EINVAL,
                  krt_to_device(&z, NULL, KRT_FLOAT32, 2, empty_huge, NULL),
                  "krt_to_device: (0, INT64_MAX)");
        is_string("krt_to_device: shape too large", krt_last_error(),
                  "krt_to_device message");
        is_status(KRT_EINVAL, krt_wrap(&w, host, KRT_INT8, 2, two_huge, NULL),
                  "krt_wrap: two dimensions of 2**32");
        is_string("krt_wrap: shape too large", krt_last_error(),
                  "krt_wrap message");
        is_status(KRT_EINVAL, krt_alloc(&z, KRT_FLOAT64, 2, past),
                  "krt_alloc: (INT64_MAX / 8 + 1, 0) float64 is too large");
        ok(z.data == NULL && z.ndim == 0,
           "a refused shape leaves a zeroed array");
        is_status(KRT_OK, krt_alloc(&e, KRT_FLOAT64, 2, edge),
                  "krt_alloc: (0, INT64_MAX / 8) float64 just fits");
        ok(e.strides[1] == 8 && e.strides[0] == 8 * (INT64_MAX / 8) &&
               krt_array_nbytes(&e) == 0,
           "its strides are exact and it holds no bytes");
        w = e;
        w.shape[1] = INT64_MAX;
        is_status(KRT_EINVAL, krt_device_array_like(&z, w),
                  "krt_device_array_like: a header of shape (0, INT64_MAX)");
        is_string("krt_device_array_like: array: shape too large",
                  krt_last_error(), "krt_device_array_like message");
        is_status(KRT_OK, krt_free(e), "free the empty edge array");
    }
    is_status(KRT_EINVAL, krt_to_device(&z, NULL, KRT_FLOAT32, 1, shape1, NULL),
              "krt_to_device: NULL host pointer");
    is_string("krt_to_device: host pointer is NULL", krt_last_error(),
              "NULL host message");
    is_status(KRT_EINVAL,
              krt_to_device(&z, host, KRT_FLOAT32, 1, shape1,
                            (krt_stream *)&z),
              "krt_to_device: an unknown stream is refused");
    is_status(KRT_EINVAL, krt_copy_to_host(NULL, a, NULL),
              "krt_copy_to_host: NULL host pointer");

    memset(&z, 0, sizeof z);
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, z, NULL),
              "krt_copy_to_host: zeroed array");
    is_string("krt_copy_to_host: array is a zeroed or freed array",
              krt_last_error(), "zeroed array message");
    is_status(KRT_OK, krt_free(z), "krt_free ignores a zeroed array");
    z = a;
    z.data = NULL;
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, z, NULL),
              "krt_copy_to_host: data NULL with elements");
    z = a;
    z.ndim = 7;
    is_status(KRT_EINVAL, krt_copy_to_host(back, z, NULL),
              "krt_copy_to_host: corrupt ndim");
    z = a;
    z.backend = 99;
    is_status(KRT_EBACKENDMIX, krt_copy_to_host(back, z, NULL),
              "krt_copy_to_host: array of another backend");
    is_status(KRT_EBACKENDMIX, krt_free(z),
              "krt_free: array of another backend");
    z = a;
    z.flags = 0;
    is_status(KRT_OK, krt_free(z), "krt_free leaves a borrowed array alone");

    /* krt_check_array. */
    is_status(KRT_OK, krt_check_array(&saxpy, 0, &a, &v),
              "krt_check_array: matching array");
    ok(v.data == a.data && v.shape[0] == 24 && v.strides[0] == 4,
       "view filled");
    is_status(KRT_EDTYPE, krt_check_array(&saxpy, 0, &b, &v),
              "krt_check_array: wrong dtype");
    is_string("krt_launch: kernel 'saxpy': parameter 'x': expected float32 "
              "array of 1 dimension, got int32 array of 2 dimensions",
              krt_last_error(), "dtype message names kernel and parameter");
    {
        krt_array a2;
        int64_t s2[] = {4, 6};
        is_status(KRT_OK, krt_alloc(&a2, KRT_INT32, 1, s2), "alloc int32[4]");
        is_status(KRT_ENDIM, krt_check_array(&saxpy, 1, &a2, &v),
                  "krt_check_array: wrong ndim");
        is_string("krt_launch: kernel 'saxpy': parameter 'm': expected int32 "
                  "array of 2 dimensions, got int32 array of 1 dimension",
                  krt_last_error(), "ndim message");
        krt_free(a2);
    }
    is_status(KRT_OK, krt_check_array(&saxpy, 1, &b, &v),
              "krt_check_array: contiguous 2-D");
    {
        krt_array t = b;
        t.shape[0] = 4;
        t.shape[1] = 3;
        t.strides[0] = 4;
        t.strides[1] = 16;
        is_status(KRT_ELAYOUT, krt_check_array(&saxpy, 1, &t, &v),
                  "krt_check_array: non-contiguous for [:, ::1]");
        ok(contains(krt_last_error(), "parameter 'm'") &&
               contains(krt_last_error(), "strides (4, 16)"),
           "layout message: %s", krt_last_error());
        t = a;
        t.shape[0] = 12;
        t.strides[0] = 8;
        is_status(KRT_OK, krt_check_array(&saxpy, 0, &t, &v),
                  "strided array accepted where [:] allows it");
        ok(v.strides[0] == 8 && v.shape[0] == 12, "strided view filled");
    }
    memset(&z, 0, sizeof z);
    is_status(KRT_ENULLARRAY, krt_check_array(&saxpy, 0, &z, &v),
              "krt_check_array: zeroed array");
    ok(contains(krt_last_error(), "kernel 'saxpy': parameter 'x'"),
       "null array message names the parameter");
    is_status(KRT_ENULLARRAY, krt_check_array(&saxpy, 0, NULL, &v),
              "krt_check_array: NULL array");
    is_status(KRT_EINVAL, krt_check_array(&saxpy, 2, &a, &v),
              "krt_check_array: scalar parameter");
    is_status(KRT_EINVAL, krt_check_array(&saxpy, 3, &a, &v),
              "krt_check_array: no such parameter");
    is_status(KRT_EINVAL, krt_check_array(NULL, 0, &a, &v),
              "krt_check_array: NULL kernel");

    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    is_status(KRT_OK, krt_free(a), "krt_free");
    is_status(KRT_OK, krt_free(b), "krt_free 2-D");
    return 0;
}
