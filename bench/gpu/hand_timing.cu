/*
 * hand_timing.cu - the hand-written CUDA kernels of bench/sass/hand.cu timed
 * on the GPU at the sizes of tests/gpu/timing.sh (CUDA events around each
 * launch, one warm-up launch first, the minimum of REPEAT launches), and
 * the launch overhead of a bare cudaLaunchKernel of an empty kernel (host
 * time per launch, averaged over 10000 launches), the references of
 * `make check-gpu`'s GPU timings.  Usage: hand_timing [N [REPEAT [SIDE]]];
 * exit status 77 without a CUDA device.
 */
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cuda_runtime.h>

#include "../sass/hand.cu"

extern "C" __global__ void empty_kernel(int n, float *p)
{
    if (n < 0)
        p[0] = 0.0f;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "hand_timing: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static int repeat = 20;

/* min ms of `repeat` launches of f after one warm-up */
template <typename F> static float time_min(F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    f();
    CK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int r = 0; r < repeat; r++) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (ms < best)
            best = ms;
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return best;
}

static void *dev(size_t bytes, int fill)
{
    void *p;
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, fill, bytes));
    return p;
}

static void row(const char *name, float ms, double bytes)
{
    if (bytes > 0)
        printf("%-12s %10.4f ms %8.1f GB/s\n", name, ms, bytes / (ms * 1e-3) / 1e9);
    else
        printf("%-12s %10.4f ms\n", name, ms);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
    repeat = argc > 2 ? atoi(argv[2]) : 20;
    int side = argc > 3 ? atoi(argv[3]) : 4096;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("hand_timing: SKIP: no CUDA device\n");
        return 77;
    }
    int blocks = (n + 255) / 256;
    float *x = (float *)dev(4 * (size_t)n, 0), *y = (float *)dev(4 * (size_t)n, 0);
    int *iv = (int *)dev(4 * (size_t)n, 1), *io = (int *)dev(4 * (size_t)n, 0), *bins = (int *)dev(64, 0);
    double *d0 = (double *)dev(8 * (size_t)side * side, 0), *d1 = (double *)dev(8 * (size_t)side * side, 0),
           *d2 = (double *)dev(8 * (size_t)side * side, 0);
    float *A = (float *)dev(4 << 20, 0), *B = (float *)dev(4 << 20, 0), *C = (float *)dev(4 << 20, 0);
    float *part = (float *)dev(4 * 1024, 0);

    printf("kernel             time  (hand-written CUDA, min of %d launches after a warm-up)\n", repeat);
    row("saxpy", time_min([&] { saxpy<<<blocks, 256>>>(n, x, y, 2.5f); }), 12.0 * n);
    row("axpy2d", time_min([&] { axpy2d<<<dim3(side / 16, side / 16), dim3(16, 16)>>>(side, side, d0, d1, d2, 2.0); }),
        24.0 * side * side);
    row("block_sum", time_min([&] { block_sum<<<1024, 256>>>(n, x, part); }), 4.0 * n);
    row("histogram", time_min([&] { histogram<<<1024, 256>>>(n, iv, bins); }), 0);
    row("fast_matmul", time_min([&] { fast_matmul<<<dim3(64, 64), dim3(16, 16)>>>(1024, A, B, C); }), 0);
    row("block_scan", time_min([&] { block_scan<<<blocks, 256>>>(n, iv, io); }), 0);
    row("stencil1d", time_min([&] { stencil1d<<<(n + 127) / 128, 128>>>(n, x, y); }), 0);
    row("warp_sum", time_min([&] { warp_sum<<<blocks, 256>>>(n, x, y); }), 0);

    /* launch overhead: host time per bare cudaLaunchKernel */
    int zero = 0;
    float *p = x;
    void *args[] = {&zero, &p};
    const int launches = 10000;
    CK(cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(32), args, 0, 0));
    CK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; i++)
        CK(cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(32), args, 0, 0));
    auto t1 = std::chrono::steady_clock::now();
    CK(cudaDeviceSynchronize());
    printf("launch overhead: bare cudaLaunchKernel %.2f us per launch\n",
           std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
    return 0;
}
