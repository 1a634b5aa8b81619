/*
 * launch_overhead.cu - host time per launch of an empty kernel through
 * kernc's typed launcher (launch.kern's `empty`: krt_check_array, the
 * configuration checks, krt_launch_fits32, cudaLaunchKernel) against the
 * same kernel through a bare cudaLaunchKernel, 10000 launches each after a
 * warm-up.  Built by tests/gpu/timing.sh with the generated launch.kern.cu;
 * exit status 77 without a CUDA device.
 */
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

#include "launch.kern.h"

extern "C" __global__ void bare_empty(int n, float *p)
{
    if (n < 0)
        p[0] = 0.0f;
}

int main(void)
{
    const int launches = 10000;
    krt_array a;
    krt_launch_cfg cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    int zero = 0, ndev = 0;
    float *p;
    void *args[] = {&zero, &p};

    const int64_t shape[1] = {32};

    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0 || krt_set_backend("cuda") != KRT_OK) {
        printf("launch_overhead: SKIP: no CUDA device\n");
        return 77;
    }
    if (krt_alloc(&a, KRT_FLOAT32, 1, shape) != KRT_OK) {
        fprintf(stderr, "launch_overhead: %s\n", krt_last_error());
        return 1;
    }
    p = (float *)a.data;
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: kernc's launcher; pass 1: bare cudaLaunchKernel */
        int st = pass ? (int)cudaLaunchKernel((const void *)bare_empty, dim3(1), dim3(32), args, 0, 0)
                      : empty(cfg, 0, a);
        cudaDeviceSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < launches && st == 0; i++)
            st = pass ? (int)cudaLaunchKernel((const void *)bare_empty, dim3(1), dim3(32), args, 0, 0)
                      : empty(cfg, 0, a);
        auto t1 = std::chrono::steady_clock::now();
        cudaDeviceSynchronize();
        if (st != 0) {
            fprintf(stderr, "launch_overhead: launch failed (%d): %s\n", st,
                    pass ? cudaGetErrorString((cudaError_t)st) : krt_last_error());
            return 1;
        }
        printf("launch overhead: %-24s %.2f us per launch\n", pass ? "bare cudaLaunchKernel" : "kernc typed launcher",
               std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
    }
    krt_free(a);
    return 0;
}
