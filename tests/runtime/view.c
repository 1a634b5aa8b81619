/*
 * view.c - views of device arrays and stream-ordered frees on the cpu
 * backend.  krt_array_slice follows Python's slice rules (checked against
 * what CPython gives for a list of ten), krt_array_index and
 * krt_array_view make sub-arrays; views work in copies (both ways where
 * contiguous, strided to the host), in device copies and in launches,
 * are refused when they stray out of their allocation, own nothing, and
 * die with their array.  krt_free_async returns while the stream is busy,
 * the handle dies at once, and the memory lives until the queued work that
 * uses it is done.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernrt.h"
#include "tap/basic.h"

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* fill(x, ms, value): block 0 sleeps ms first, then x[i] = value. */
static void fill_cpu(const krt_cpu_block *b, void **args)
{
    const krt_view *x = args[0];
    int ms = *(int *)args[1];
    float value = *(float *)args[2];
    unsigned t;

    if (b->block_idx.x == 0 && ms > 0)
        usleep((useconds_t)ms * 1000);
    for (t = 0; t < b->block_dim.x; t++) {
        int64_t i = (int64_t)b->block_idx.x * b->block_dim.x + t;
        if (i < x->shape[0])
            *(float *)(x->data + i * x->strides[0]) = value;
    }
}

static const krt_param fill_params[] = {
    {"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0},
    {"ms", KRT_PARAM_SCALAR, KRT_INT32, 0, 0},
    {"value", KRT_PARAM_SCALAR, KRT_FLOAT32, 0, 0}};
static const krt_kernel fill_k = {"fill", "view.kern", 3, fill_params,
                                  fill_cpu, NULL, 0, 0, 0, NULL};

static int fill(krt_launch_cfg cfg, krt_array x, int ms, float value)
{
    krt_view v;
    void *args[] = {&v, &ms, &value};

    KRT_TRY(krt_check_array(&fill_k, 0, &x, &v));
    return krt_launch(&fill_k, cfg, args);
}

#define E KRT_SLICE_END

static const struct {
    int64_t start, stop, step;
    int n;
    int32_t want[10];
} slices[] = {
    {2, 7, 1, 5, {2, 3, 4, 5, 6}},
    {-3, E, 1, 3, {7, 8, 9}},
    {E, -8, 1, 2, {0, 1}},
    {E, E, -1, 10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {8, 2, -2, 3, {8, 6, 4}},
    {-100, 100, 3, 4, {0, 3, 6, 9}},
    {5, 5, 1, 0, {0}},
    {7, 2, 1, 0, {0}},
    {E, E, -3, 4, {9, 6, 3, 0}},
    {100, -100, -4, 3, {9, 5, 1}},
    {1, -1, 4, 2, {1, 5}},
};
#define NSLICES (sizeof slices / sizeof slices[0])

int main(void)
{
    int32_t ten[10], got[10], m[12], row[4], col[3];
    int64_t n10[] = {10}, s34[] = {3, 4}, n6[] = {6}, n64[] = {64};
    float f64[64], back[64];
    krt_array a, v, w, mat, r, f, part, x;
    krt_stream *s;
    size_t k;
    int i, good;
    double t0, dt;

    plan(NSLICES + 38);
    is_status(KRT_OK, krt_set_backend("cpu"), "the cpu backend");
    for (i = 0; i < 10; i++)
        ten[i] = i;
    krt_to_device(&a, ten, KRT_INT32, 1, n10, NULL);

    /* Python's slice rules. */
    for (k = 0; k < NSLICES; k++) {
        int st = krt_array_slice(&v, a, 0, slices[k].start, slices[k].stop,
                                 slices[k].step);
        memset(got, -1, sizeof got);
        if (st == KRT_OK)
            st = krt_copy_to_host(got, v, NULL);
        ok(st == KRT_OK && v.shape[0] == slices[k].n &&
               memcmp(got, slices[k].want, sizeof(int32_t) * slices[k].n) == 0,
           "a[%lld:%lld:%lld] has %d elements as in Python",
           (long long)slices[k].start, (long long)slices[k].stop,
           (long long)slices[k].step, slices[k].n);
    }
    is_status(KRT_EINVAL, krt_array_slice(&v, a, 0, 0, 5, 0), "step 0");
    is_status(KRT_EINVAL, krt_array_slice(&v, a, 1, 0, 5, 1), "dimension 1 of a 1-D array");
    ok(v.data == NULL && v.ndim == 0, "a refused view is zeroed");

    /* A view owns nothing and shares the memory. */
    krt_array_slice(&v, a, 0, 2, 8, 1);
    ok(!(v.flags & KRT_ARRAY_OWNED) && v.id == a.id && v.device == a.device,
       "the view owns nothing, carries a's id and device");
    is_status(KRT_OK, krt_copy_to_device(v, ten, NULL),
              "copy 6 values into the contiguous view a[2:8]");
    krt_copy_to_host(got, a, NULL);
    ok(got[0] == 0 && got[1] == 1 && got[2] == 0 && got[7] == 5 && got[8] == 8,
       "they landed at a[2..7]");
    is_status(KRT_OK, krt_free(v), "krt_free of a view does nothing");
    is_status(KRT_OK, krt_copy_to_host(got, a, NULL), "a is still live");

    /* Sub-arrays of a matrix. */
    for (i = 0; i < 12; i++)
        m[i] = 100 + i;
    krt_to_device(&mat, m, KRT_INT32, 2, s34, NULL);
    /* issue 9: Fortran order ([::1, :] parameters): mat's transpose is F,
     * not C; mat is C, not F. */
    krt_array_view(&f, mat, 0, 2, (int64_t[]){4, 3}, (int64_t[]){4, 16});
    ok(krt_array_is_fortran(&f) && !krt_array_is_contiguous(&f), "mat.T is Fortran-contiguous");
    ok(krt_array_is_contiguous(&mat) && !krt_array_is_fortran(&mat), "mat is C-contiguous only");
    krt_array_view(&f, mat, 0, 2, (int64_t[]){1, 12}, (int64_t[]){999, 4});
    ok(krt_array_is_fortran(&f) && krt_array_is_contiguous(&f),
       "a 1 x 12 view is both, whatever the stride of its extent 1");
    is_status(KRT_OK, krt_array_index(&r, mat, -2), "mat[-2]");
    krt_copy_to_host(row, r, NULL);
    ok(r.ndim == 1 && r.shape[0] == 4 && row[0] == 104 && row[3] == 107,
       "row 1: 104..107");
    is_status(KRT_EBOUNDS, krt_array_index(&r, mat, 3), "mat[3]");
    is_status(KRT_ENDIM, krt_array_index(&r, a, 0), "a[0] of a 1-D array");
    is_status(KRT_OK, krt_array_slice(&w, mat, 1, 2, 3, 1), "mat[:, 2:3]");
    is_status(KRT_OK, krt_array_view(&v, w, 0, 1, (int64_t[]){3},
                                     (int64_t[]){16}), "as 1-D: mat[:, 2]");
    krt_copy_to_host(col, v, NULL);
    ok(col[0] == 102 && col[1] == 106 && col[2] == 110,
       "a strided column gathered: 102 106 110");
    is_status(KRT_EBOUNDS, krt_array_view(&v, mat, 4, 2, s34, NULL),
              "a view one element past the end");
    ok(strstr(krt_last_error(), "bytes [4, 52) of an allocation of 48") != NULL,
       "message: %s", krt_last_error());
    w = mat;
    w.shape[0] = 4;
    is_status(KRT_EBOUNDS, krt_copy_to_host(m, w, NULL),
              "a hand-made view that strays is refused");
    w = mat;
    w.strides[0] = INT64_MAX;
    is_status(KRT_EBOUNDS, krt_copy_to_host(m, w, NULL),
              "so is one whose strides overflow");
    is_status(KRT_OK, krt_array_slice(&v, a, 0, 3, E, INT64_MAX),
              "a[3::2**63-1]: one element, the step fits no stride");
    krt_copy_to_host(got, v, NULL);
    ok(v.shape[0] == 1 && got[0] == 1, "its element: a[3], 1 since the copy into a[2:8]");

    /* Views in launches and device copies. */
    for (i = 0; i < 64; i++)
        f64[i] = 0;
    krt_to_device(&f, f64, KRT_FLOAT32, 1, n64, NULL);
    krt_array_slice(&part, f, 0, 16, 32, 1);
    is_status(KRT_OK, fill(krt_grid1(1, 32), part, 0, 7.0f),
              "launch on f[16:32]");
    krt_array_slice(&v, f, 0, 1, E, 2);
    is_status(KRT_OK, fill(krt_grid1(1, 32), v, 0, 1.0f),
              "launch on f[1::2] (strided)");
    krt_copy_to_host(back, f, NULL);
    for (good = 1, i = 0; i < 64; i++)
        good &= back[i] == (i % 2 ? 1.0f : i >= 16 && i < 32 ? 7.0f : 0.0f);
    ok(good, "each launch wrote its view only");
    krt_to_device(&x, f64, KRT_FLOAT32, 1, n6, NULL);
    krt_array_slice(&v, f, 0, 16, 22, 1);
    is_status(KRT_OK, krt_copy_device(x, v, NULL), "device copy from a view");
    krt_copy_to_host(back, x, NULL);
    ok(back[0] == 7.0f && back[1] == 1.0f && back[5] == 1.0f, "7 1 7 1 7 1");
    krt_free(x);

    /* Stream-ordered free. */
    krt_stream_create(&s);
    krt_alloc(&x, KRT_FLOAT32, 1, n64);
    memset(back, 0, sizeof back);
    {
        krt_launch_cfg cfg = krt_grid1(2, 32);
        cfg.stream = s;
        is_status(KRT_OK, fill(cfg, x, 200, 4.5f), "a 200 ms fill on a stream");
    }
    krt_copy_to_host(back, x, s);
    t0 = now_ms();
    is_status(KRT_OK, krt_free_async(x, s), "krt_free_async");
    dt = now_ms() - t0;
    ok(dt < 100, "returned before the stream's work (%.1f ms)", dt);
    is_status(KRT_ENOTREADY, krt_stream_query(s), "the stream is still busy");
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, x, NULL),
              "the handle is dead at once");
    is_status(KRT_ENULLARRAY, krt_free_async(x, s), "freeing it again");
    krt_stream_synchronize(s);
    for (good = 1, i = 0; i < 64; i++)
        good &= back[i] == 4.5f;
    ok(good, "the queued copy read the memory before it was released");

    krt_stream_destroy(s);
    krt_free(f);
    krt_free(mat);
    krt_free(a);
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    return 0;
}
