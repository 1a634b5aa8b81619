/* Host test of tests/ufunc/vec.kern: @vectorize host functions against
 * values computed here, NumPy's broadcasting rules and their errors. */
#include <math.h>
#include <string.h>

#include <kernrt.h>

#include "tap/basic.h"
#include "vec.kern.h"

static krt_array dev(krt_dtype t, int ndim, const int64_t *shape, const void *host)
{
    krt_array a;
    if (krt_to_device(&a, host, t, ndim, shape, NULL) != KRT_OK)
        bail("krt_to_device: %s", krt_last_error());
    return a;
}

int main(void)
{
    plan_lazy();

    /* 2x3 against 3: the row broadcasts down the rows. */
    float x[6] = {3, 5, 8, -7, 0, 1.5f}, y[3] = {4, 12, 15};
    float out[6];
    int64_t s23[2] = {2, 3}, s3[1] = {3}, s1[1] = {1}, s6[1] = {6};
    krt_array dx = dev(KRT_FLOAT32, 2, s23, x), dy = dev(KRT_FLOAT32, 1, s3, y), dout;
    krt_alloc(&dout, KRT_FLOAT32, 2, s23);
    is_int(KRT_OK, hyp_f4(dx, dy, dout, NULL), "hyp_f4 (2,3) with (3,)");
    krt_copy_to_host(out, dout, NULL);
    int good = 1;
    for (int i = 0; i < 6; i++)
        good &= out[i] == sqrtf(x[i] * x[i] + y[i % 3] * y[i % 3]);
    ok(good, "broadcast rows: every element is float32 sqrt(x*x + y*y)");

    /* A host scalar and a (1,) array both stretch. */
    float four = 4;
    krt_array sfour, d1;
    is_int(KRT_OK, krt_host_scalar(&sfour, KRT_FLOAT32, &four), "krt_host_scalar");
    is_int(KRT_OK, hyp_f4(dx, sfour, dout, NULL), "hyp_f4 with a host scalar");
    krt_copy_to_host(out, dout, NULL);
    good = 1;
    for (int i = 0; i < 6; i++)
        good &= out[i] == sqrtf(x[i] * x[i] + 16.0f);
    ok(good, "host scalar broadcast over (2,3)");
    d1 = dev(KRT_FLOAT32, 1, s1, &four);
    is_int(KRT_OK, hyp_f4(d1, dx, dout, NULL), "hyp_f4 (1,) with (2,3)");
    krt_copy_to_host(out, dout, NULL);
    ok(out[3] == sqrtf(16.0f + 49.0f), "a (1,) array stretches");

    /* (2,1) x (3,) -> (2,3): an outer product shape. */
    float col[2] = {1, 2};
    int64_t s21[2] = {2, 1};
    krt_array dcol = dev(KRT_FLOAT32, 2, s21, col);
    is_int(KRT_OK, hyp_f4(dcol, dy, dout, NULL), "hyp_f4 (2,1) with (3,)");
    krt_copy_to_host(out, dout, NULL);
    good = 1;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            good &= out[i * 3 + j] == sqrtf(col[i] * col[i] + y[j] * y[j]);
    ok(good, "outer broadcast (2,1) x (3,)");

    /* Errors: shapes that do not broadcast, an output of the wrong shape,
     * a wrong dtype, an output that is a scalar. */
    float x6[6] = {0};
    krt_array d6 = dev(KRT_FLOAT32, 1, s6, x6);
    is_int(KRT_ESHAPE, hyp_f4(dx, d6, dout, NULL), "(2,3) with (6,): KRT_ESHAPE");
    ok(strstr(krt_last_error(), "do not broadcast") != NULL, "message: %s", krt_last_error());
    is_int(KRT_ESHAPE, hyp_f4(dx, dy, dy, NULL), "output (3,) for (2,3): KRT_ESHAPE");
    ok(strstr(krt_last_error(), "output 'out'") != NULL, "message: %s", krt_last_error());
    is_int(KRT_EDTYPE, hyp_f8(dx, dx, dout, NULL), "float32 data to hyp_f8: KRT_EDTYPE");
    is_int(KRT_EINVAL, hyp_f4(dx, dx, sfour, NULL), "host scalar output: KRT_EINVAL");

    /* Scalars of another dtype are converted to the signature's, as numba
     * converts them (np.array([value], dtype=formal)). */
    double dfour = 4;
    krt_array sd;
    krt_host_scalar(&sd, KRT_FLOAT64, &dfour);
    is_int(KRT_OK, hyp_f4(dx, sd, dout, NULL), "a float64 scalar to hyp_f4 is converted");
    krt_copy_to_host(out, dout, NULL);
    good = 1;
    for (int i = 0; i < 6; i++)
        good &= out[i] == sqrtf(x[i] * x[i] + 16.0f);
    ok(good, "as float32 4");

    /* float64 and a mixed signature: float64(float64, int32) is scale_f8_i4_f8. */
    double xd[3] = {1.5, -2, 1e10};
    int32_t k[3] = {2, 3, -4};
    double od[3];
    krt_array dxd = dev(KRT_FLOAT64, 1, s3, xd), dk = dev(KRT_INT32, 1, s3, k), dod;
    krt_alloc(&dod, KRT_FLOAT64, 1, s3);
    is_int(KRT_OK, scale_f8_i4_f8(dxd, dk, dod, NULL), "scale_f8_i4_f8");
    krt_copy_to_host(od, dod, NULL);
    ok(od[0] == 2.0 && od[1] == -7.0 && od[2] == -4e10 - 1, "x * k - 1 in float64");
    int64_t ki[3] = {INT64_MAX, 5, -6}, oi[3], two = 2;
    krt_array dki = dev(KRT_INT64, 1, s3, ki), doi, stwo;
    krt_alloc(&doi, KRT_INT64, 1, s3);
    krt_host_scalar(&stwo, KRT_INT64, &two);
    is_int(KRT_OK, scale_i8(dki, stwo, doi, NULL), "scale_i8 with a scalar");
    krt_copy_to_host(oi, doi, NULL);
    ok(oi[0] == (int64_t)((uint64_t)INT64_MAX * 2 - 1) && oi[1] == 9 && oi[2] == -13,
       "int64 arithmetic wraps");
    double twoish = 2.9, huge = 1e30;
    krt_array s29, shuge;
    krt_host_scalar(&s29, KRT_FLOAT64, &twoish);
    is_int(KRT_OK, scale_i8(dki, s29, doi, NULL), "a float64 2.9 to scale_i8");
    krt_copy_to_host(oi, doi, NULL);
    ok(oi[1] == 9 && oi[2] == -13, "truncated toward zero to 2");
    krt_host_scalar(&shuge, KRT_FLOAT64, &huge);
    is_int(KRT_EINVAL, scale_i8(dki, shuge, doi, NULL), "1e30 does not fit int64: KRT_EINVAL");
    ok(strstr(krt_last_error(), "does not fit int64") != NULL, "message: %s", krt_last_error());
    int8_t m3 = -3;
    krt_array sm3;
    krt_host_scalar(&sm3, KRT_INT8, &m3);
    is_int(KRT_OK, scale_f8_i4_f8(dxd, sm3, dod, NULL), "an int8 scalar to an int32 parameter");
    krt_copy_to_host(od, dod, NULL);
    ok(od[0] == 1.5 * -3 - 1 && od[1] == 5.0, "as int32 -3");

    /* On a stream, and zero-length arrays launch nothing. */
    krt_stream *st;
    krt_stream_create(&st);
    is_int(KRT_OK, hyp_f8(dxd, dxd, dod, st), "hyp_f8 on a stream");
    is_int(KRT_OK, krt_stream_synchronize(st), "stream synchronize");
    krt_copy_to_host(od, dod, NULL);
    ok(od[0] == sqrt(1.5 * 1.5 * 2) && od[2] == 1e10 * sqrt(2.0), "hyp_f8 values %.17g %.17g", od[0], od[2]);
    krt_stream_destroy(st);
    int64_t s0[1] = {0};
    krt_array e0, eo;
    krt_alloc(&e0, KRT_FLOAT64, 1, s0);
    krt_alloc(&eo, KRT_FLOAT64, 1, s0);
    is_int(KRT_OK, hyp_f8(e0, e0, eo, NULL), "empty arrays");

    /* The @vectorize function as a device function of a kernel. */
    float a6[6] = {3, 6, 5, 8, 9, 20}, b6[6] = {4, 8, 12, 15, 40, 21}, o6[6];
    krt_array da = dev(KRT_FLOAT32, 1, s6, a6), db = dev(KRT_FLOAT32, 1, s6, b6), dob;
    krt_alloc(&dob, KRT_FLOAT32, 1, s6);
    is_int(KRT_OK, hyp_kernel(krt_grid1(1, 32), da, db, dob), "kernel calling hyp");
    krt_copy_to_host(o6, dob, NULL);
    ok(o6[0] == 5 && o6[1] == 10 && o6[2] == 13 && o6[3] == 17 && o6[4] == 41 && o6[5] == 29,
       "hyp as a device function");

    krt_free(dx); krt_free(dy); krt_free(dout); krt_free(d1); krt_free(dcol); krt_free(d6);
    krt_free(dxd); krt_free(dk); krt_free(dod); krt_free(dki); krt_free(doi);
    krt_free(e0); krt_free(eo); krt_free(da); krt_free(db); krt_free(dob);
    return 0;
}
