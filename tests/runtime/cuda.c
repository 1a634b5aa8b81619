/*
 * cuda.c - the CUDA backend's memory path and launch checks, from plain C:
 * round trips through cudaMalloc'd memory, a strided copy (staged through
 * the host), zero-size arrays, arrays of the CPU backend refused, kernels
 * without device code refused, and the launch limits checked the same way
 * as on the CPU.  Launching real device code is tests/runtime/cuda_launch.cu.
 * Without a device: "1..0 # SKIP no CUDA device".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
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

static void never(const krt_cpu_block *b, void **args)
{
    (void)b;
    (void)args;
}

static const krt_kernel cpu_only = {"cpu_only", "t.kern", 0, NULL, never,
                                    NULL, 0, 0, 0};

int main(void)
{
    enum { N = 1 << 20 };
    static double host[N], back[N];
    int32_t m[4][5], col[4];
    krt_array a, b, c, z;
    int64_t shape[] = {N}, shape2[] = {4, 5}, zero[] = {0};
    int i, good;

    if (krt_set_backend("cuda") != KRT_OK)
        skip_all("no CUDA device");
    plan(16);
    for (i = 0; i < N; i++)
        host[i] = i * 0.25;
    for (i = 0; i < 20; i++)
        m[i / 5][i % 5] = i;

    is_string("cuda", krt_backend_name(), "backend is cuda");
    is_status(KRT_OK, krt_to_device(&a, host, KRT_FLOAT64, 1, shape, NULL),
              "krt_to_device 8 MiB");
    is_status(KRT_OK, krt_copy_to_host(back, a, NULL), "krt_copy_to_host");
    is_blob(host, back, sizeof host, "round trip through the device");
    is_status(KRT_OK, krt_alloc(&b, KRT_FLOAT64, 1, shape), "krt_alloc");
    is_status(KRT_OK, krt_free(b), "krt_free");

    is_status(KRT_OK, krt_to_device(&c, m, KRT_INT32, 2, shape2, NULL),
              "krt_to_device int32[4, 5]");
    b = c;
    b.data = (char *)c.data + 2 * 4;      /* column 2 */
    b.ndim = 1;
    b.shape[0] = 4;
    b.strides[0] = 20;
    is_status(KRT_OK, krt_copy_to_host(col, b, NULL), "copy a strided column");
    good = col[0] == 2 && col[1] == 7 && col[2] == 12 && col[3] == 17;
    ok(good, "column gathered through a staging buffer");

    is_status(KRT_OK, krt_alloc(&z, KRT_FLOAT32, 1, zero), "zero-size alloc");
    is_status(KRT_OK, krt_free(z), "zero-size free");

    b = a;
    b.backend = 1;                        /* what a CPU array would say */
    is_status(KRT_EBACKENDMIX, krt_copy_to_host(back, b, NULL),
              "an array of the cpu backend is refused");
    is_status(KRT_ENOCODE, krt_launch(&cpu_only, krt_grid1(1, 32), NULL),
              "a kernel without device code is refused");
    is_status(KRT_EBLOCKSIZE, krt_launch(&cpu_only, krt_grid1(1, 2048), NULL),
              "block limits are checked before the code");
    is_status(KRT_OK, krt_free(a), "free");
    is_status(KRT_OK, krt_free(c), "free 2-D");
    return 0;
}
