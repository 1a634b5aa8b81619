/* Host test of tests/ufunc/red.kern: cuda.reduce against numba's results
 * (reduce_ref.h, made by gen_ref.py), bit for bit, for lengths around the
 * warp, block and grid sizes; device results, streams and errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kernrt.h>

#include "tap/basic.h"
#include "red.kern.h"
#include "reduce_ref.h"

/* gen_ref.py's data: a 64-bit LCG, values exact in the element type. */
static void lcg_fill(void *out, const char *code, long long n, unsigned long long seed)
{
    uint64_t x = seed;
    for (long long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int e = (int)((x >> 20) & 15);
        if (strcmp(code, "f4") == 0)
            ((float *)out)[i] = (float)(((double)(x >> 40) / 16777216.0 - 0.5) * ldexp(1.0, e));
        else if (strcmp(code, "f8") == 0)
            ((double *)out)[i] = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * ldexp(1.0, e);
        else if (strcmp(code, "i4") == 0)
            ((int32_t *)out)[i] = (int32_t)(uint32_t)(x >> 32);
        else
            ((int64_t *)out)[i] = (int64_t)x;
    }
}

static int run_ref(const struct reduce_ref *r, unsigned long long *bits, krt_stream *stream)
{
    krt_dtype t = strcmp(r->code, "f4") == 0   ? KRT_FLOAT32
                  : strcmp(r->code, "f8") == 0 ? KRT_FLOAT64
                  : strcmp(r->code, "i4") == 0 ? KRT_INT32
                                               : KRT_INT64;
    size_t size = krt_dtype_size(t);
    void *host = malloc(size * (size_t)(r->n ? r->n : 1));
    lcg_fill(host, r->code, r->n, r->seed);
    int64_t n = r->n;
    krt_array in;
    int st = krt_to_device(&in, host, t, 1, &n, NULL);
    free(host);
    if (st != KRT_OK)
        return st;
    int sum = strcmp(r->op, "sum") == 0;
    *bits = 0;
    switch (t) {
    case KRT_FLOAT32: {
        float res, init = (float)r->init;
        st = sum ? sum_reduce_f4(in, init, &res, NULL, stream)
                 : max_reduce_f4(in, init, &res, NULL, stream);
        memcpy(bits, &res, 4);
        break;
    }
    case KRT_FLOAT64: {
        double res, init = r->init;
        st = sum ? sum_reduce_f8(in, init, &res, NULL, stream)
                 : max_reduce_f8(in, init, &res, NULL, stream);
        memcpy(bits, &res, 8);
        break;
    }
    case KRT_INT32: {
        int32_t res, init = (int32_t)r->init;
        st = sum ? sum_reduce_i4(in, init, &res, NULL, stream)
                 : max_reduce_i4(in, init, &res, NULL, stream);
        *bits = (unsigned long long)(int64_t)res;
        break;
    }
    default: {
        int64_t res, init = (int64_t)r->init;
        st = sum ? sum_reduce_i8(in, init, &res, NULL, stream)
                 : max_reduce_i8(in, init, &res, NULL, stream);
        *bits = (unsigned long long)res;
        break;
    }
    }
    krt_free(in);
    return st;
}

int main(void)
{
    plan_lazy();
    size_t nrefs = sizeof reduce_refs / sizeof reduce_refs[0];
    krt_stream *stream;
    krt_stream_create(&stream);
    for (size_t i = 0; i < nrefs; i++) {
        const struct reduce_ref *r = &reduce_refs[i];
        unsigned long long bits;
        int st = run_ref(r, &bits, i % 3 == 2 ? stream : NULL);
        if (st != KRT_OK) {
            ok(0, "%s_%s of %lld elements: %s", r->op, r->code, r->n, krt_last_error());
            continue;
        }
        unsigned long long want = r->bits;
        if (strcmp(r->code, "i4") == 0)
            want = (unsigned long long)(int64_t)(int32_t)(uint32_t)want;
        is_hex(want, bits, "%s_reduce_%s of %lld elements (init %g) equals numba's",
               r->op, r->code, r->n, r->init);
    }

    /* A device result (no copy back), then both; an empty array gives init. */
    float data[5] = {1, 2, 3, 4, 5.5f}, res = 0, back = 0;
    int64_t n5 = 5, n1 = 1, n0 = 0;
    krt_array in, dres, empty;
    krt_to_device(&in, data, KRT_FLOAT32, 1, &n5, NULL);
    krt_alloc(&dres, KRT_FLOAT32, 1, &n1);
    krt_alloc(&empty, KRT_FLOAT32, 1, &n0);
    is_int(KRT_OK, sum_reduce_f4(in, 10, NULL, &dres, NULL), "sum into a device result");
    krt_copy_to_host(&back, dres, NULL);
    ok(back == 25.5f, "device result %g", back);
    is_int(KRT_OK, max_reduce_f4(in, 0, &res, &dres, stream), "max to both, on a stream");
    krt_copy_to_host(&back, dres, NULL);
    ok(res == 5.5f && back == 5.5f, "max %g and %g", res, back);
    is_int(KRT_OK, sum_reduce_f4(empty, 7, &res, &dres, NULL), "empty array");
    krt_copy_to_host(&back, dres, NULL);
    ok(res == 7 && back == 7, "an empty array gives init (%g, %g)", res, back);

    /* The integer-only operator has integer entries only. */
    uint8_t bytes[4] = {1, 2, 4, 0x80}, ores = 0;
    int64_t n4 = 4;
    krt_array din;
    krt_to_device(&din, bytes, KRT_UINT8, 1, &n4, NULL);
    is_int(KRT_OK, or_reduce_u1(din, 0x10, &ores, NULL, NULL), "or_reduce_u1");
    is_int(0x97, ores, "bitwise or of uint8");

    /* Errors. */
    int64_t s22[2] = {2, 2};
    krt_array d2, df8;
    krt_alloc(&d2, KRT_FLOAT32, 2, s22);
    krt_alloc(&df8, KRT_FLOAT64, 1, &n5);
    is_int(KRT_ENDIM, sum_reduce_f4(d2, 0, &res, NULL, NULL), "2-D input: KRT_ENDIM");
    is_int(KRT_EDTYPE, sum_reduce_f4(df8, 0, &res, NULL, NULL), "float64 to sum_reduce_f4: KRT_EDTYPE");
    is_int(KRT_EDTYPE, sum_reduce_f4(in, 0, &res, &df8, NULL), "float64 device result: KRT_EDTYPE");
    krt_array zero;
    memset(&zero, 0, sizeof zero);
    is_int(KRT_ENULLARRAY, sum_reduce_f4(zero, 0, &res, NULL, NULL), "zeroed array: KRT_ENULLARRAY");

    krt_free(in); krt_free(dres); krt_free(empty); krt_free(din); krt_free(d2); krt_free(df8);
    krt_stream_destroy(stream);
    return 0;
}
