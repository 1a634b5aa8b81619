/*
 * cuda_launch.cu - krt_launch on the CUDA backend with __global__ functions
 * and kernel descriptors written by hand, as kernc's generated .cu does:
 * views and scalars passed by pointer through args, every block of a 3-D
 * grid run exactly once, static shared memory read back through
 * cudaFuncGetAttributes for the limit check; a launch on views (slices of
 * the arrays) and one that writes into mapped host memory.
 *
 * Build with nvcc -cudart shared (the kernels here and libkernrt must share
 * one cudart).  Without a device: "1..0 # SKIP no CUDA device".
 */
#include <stdint.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

__global__ void saxpy_cuda(krt_view x, krt_view y, float a)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < y.shape[0]) {
        float xi = *(float *)(x.data + i * x.strides[0]);
        float *yi = (float *)(y.data + i * y.strides[0]);
        *yi = a * xi + *yi;
    }
}

__global__ void count_cuda(krt_view counts)
{
    unsigned id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
        atomicAdd((int *)(counts.data + id * counts.strides[0]), 1);
}

__global__ void big_shared_cuda(krt_view out)
{
    __shared__ char buf[40000];
    buf[threadIdx.x] = (char)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        out.data[0] = buf[1];
}

static const krt_param saxpy_params[] = {
    {"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"y", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"a", KRT_PARAM_SCALAR, KRT_FLOAT32, 0, 0}};
static const krt_kernel saxpy_k = {"saxpy", "test.kern", 3, saxpy_params,
                                   NULL, (const void *)saxpy_cuda, 0, 0, 0, NULL};
static const krt_param count_params[] = {
    {"counts", KRT_PARAM_ARRAY, KRT_INT32, 1, 1}};
static const krt_kernel count_k = {"count", "test.kern", 1, count_params,
                                   NULL, (const void *)count_cuda, 0, 0, 0, NULL};
static const krt_param big_params[] = {
    {"out", KRT_PARAM_ARRAY, KRT_INT8, 1, 1}};
static const krt_kernel big_k = {"big_shared", "test.kern", 1, big_params,
                                 NULL, (const void *)big_shared_cuda, 0, 0, 0, NULL};

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

int main(void)
{
    enum { N = 100000, GX = 9, GY = 7, GZ = 5, NB = GX * GY * GZ };
    static float x[N], y[N], out[N];
    static int32_t counts[NB];
    krt_array dx, dy, dc, db;
    krt_view vx, vy, vc, vb;
    float a = 2.5f;
    void *sargs[] = {&vx, &vy, &a};
    void *cargs[] = {&vc};
    void *bargs[] = {&vb};
    int64_t n[] = {N}, nb[] = {NB}, one[] = {1};
    int i, good;

    if (krt_set_backend("cuda") != KRT_OK)
        skip_all("no CUDA device");
    plan(19);
    for (i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    is_status(KRT_OK, krt_to_device(&dx, x, KRT_FLOAT32, 1, n, NULL), "x");
    is_status(KRT_OK, krt_to_device(&dy, y, KRT_FLOAT32, 1, n, NULL), "y");
    is_status(KRT_OK, krt_check_array(&saxpy_k, 0, &dx, &vx) ||
                          krt_check_array(&saxpy_k, 1, &dy, &vy),
              "saxpy arguments check");
    is_status(KRT_OK, krt_launch(&saxpy_k, krt_grid1((N + 255) / 256, 256),
                                 sargs),
              "saxpy launch");
    is_status(KRT_OK, krt_copy_to_host(out, dy, NULL), "copy y back");
    good = 1;
    for (i = 0; i < N; i++)
        if (out[i] != 2.5f * (float)i + 1.0f)
            good = 0;
    ok(good, "saxpy result");

    /* Views: y[1000:2000] += 2.5 * x[5000:6000], through the views'
     * offset data pointers. */
    {
        krt_array xs, ys;
        krt_view v1, v2;
        void *vargs[] = {&v1, &v2, &a};
        is_status(KRT_OK, krt_array_slice(&xs, dx, 0, 5000, 6000, 1) ||
                              krt_array_slice(&ys, dy, 0, 1000, 2000, 1) ||
                              krt_check_array(&saxpy_k, 0, &xs, &v1) ||
                              krt_check_array(&saxpy_k, 1, &ys, &v2),
                  "slices as saxpy arguments");
        is_status(KRT_OK, krt_launch(&saxpy_k, krt_grid1(4, 256), vargs), "saxpy on the views");
        krt_copy_to_host(out, dy, NULL);
        ok(out[999] == 2.5f * 999.0f + 1.0f &&
               out[1000] == 2.5f * 1000.0f + 1.0f + 2.5f * 5000.0f &&
               out[1999] == 2.5f * 1999.0f + 1.0f + 2.5f * 5999.0f &&
               out[2000] == 2.5f * 2000.0f + 1.0f,
           "only y[1000:2000] changed, by x[5000:6000]");
    }

    /* Mapped memory: the kernel writes host memory directly. */
    {
        krt_array dm;
        krt_view vm;
        float *mh = NULL;
        void *margs[] = {&vx, &vm, &a};
        is_status(KRT_OK, krt_mapped_array(&dm, (void **)&mh, KRT_FLOAT32, 1, n),
                  "a mapped array");
        for (i = 0; i < N; i++)
            mh[i] = 1.0f;
        krt_check_array(&saxpy_k, 1, &dm, &vm);
        is_status(KRT_OK, krt_launch(&saxpy_k, krt_grid1((N + 255) / 256, 256), margs),
                  "saxpy into mapped memory");
        krt_synchronize();
        ok(mh[7] == 2.5f * 7.0f + 1.0f && mh[N - 1] == 2.5f * (float)(N - 1) + 1.0f,
           "the host reads the result without a copy");
        krt_free(dm);
    }

    memset(counts, 0, sizeof counts);
    krt_to_device(&dc, counts, KRT_INT32, 1, nb, NULL);
    krt_check_array(&count_k, 0, &dc, &vc);
    is_status(KRT_OK, krt_launch(&count_k, krt_grid3(GX, GY, GZ, 8, 4, 2),
                                 cargs),
              "count launch on a 3-D grid");
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    krt_copy_to_host(counts, dc, NULL);
    good = 1;
    for (i = 0; i < NB; i++)
        if (counts[i] != 1)
            good = 0;
    ok(good, "every block ran exactly once");

    krt_alloc(&db, KRT_INT8, 1, one);
    krt_check_array(&big_k, 0, &db, &vb);
    is_status(KRT_ESHARED,
              krt_launch(&big_k, krt_with_shared(krt_grid1(1, 32), 10000),
                         bargs),
              "40000 static (from cudaFuncGetAttributes) + 10000 dynamic");
    is_status(KRT_OK, krt_launch(&big_k, krt_grid1(1, 32), bargs),
              "40000 static alone is fine");
    is_status(KRT_OK, krt_synchronize(), "and runs");
    {
        int8_t v = 0;
        krt_copy_to_host(&v, db, NULL);
        is_int(1, v, "shared memory value read back");
    }
    krt_free(dx);
    krt_free(dy);
    krt_free(dc);
    krt_free(db);
    return 0;
}
