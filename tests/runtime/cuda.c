/*
 * cuda.c - the CUDA backend's memory path and launch checks, from plain C:
 * round trips through cudaMalloc'd memory, a strided copy (staged through
 * the host), zero-size arrays, arrays of the CPU backend refused, kernels
 * without device code refused, and the launch limits checked the same way
 * as on the CPU; then the device API on the GPU: properties, the current
 * device, mapped memory, views, stream-ordered and double frees, pinned
 * buffer sizes, and peer copies where there are two devices.  Launching
 * real device code is tests/runtime/cuda_launch.cu.
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
                                    NULL, 0, 0, 0, NULL};

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
    plan_lazy();
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

    /* Devices and their properties. */
    {
        krt_device_props p;
        int n = 0, dev = -1;
        is_status(KRT_OK, krt_device_count(&n), "krt_device_count");
        ok(n >= 1, "%d device(s)", n);
        is_int(1, krt_is_available(), "krt_is_available");
        is_status(KRT_OK, krt_get_device_props(&p, 0), "props of device 0");
        ok(!p.is_cpu && p.name[0] != '\0' && p.major >= 3 && p.warp_size == 32 &&
               p.multiprocessor_count > 0 && p.total_memory > 0 &&
               p.free_memory <= p.total_memory && p.max_threads_per_block >= 1024 &&
               p.shared_memory_per_block >= 48 * 1024,
           "%s: cc %d.%d, %d SMs, %zu MiB", p.name, p.major, p.minor,
           p.multiprocessor_count, p.total_memory >> 20);
        is_status(KRT_EINVAL, krt_set_device(n), "krt_set_device(count)");
        is_status(KRT_OK, krt_get_device(&dev), "krt_get_device");
        is_int(0, dev, "device 0 is current");
        if (n >= 2) {
            krt_array p0, p1;
            is_status(KRT_OK, krt_set_device(1), "krt_set_device(1)");
            is_status(KRT_OK, krt_alloc(&p1, KRT_FLOAT64, 1, shape), "an array on device 1");
            is_status(KRT_OK, krt_copy_device(p1, a, NULL), "peer copy 0 -> 1");
            krt_set_device(0);
            is_status(KRT_OK, krt_alloc(&p0, KRT_FLOAT64, 1, shape), "an array on device 0");
            is_status(KRT_OK, krt_copy_device(p0, p1, NULL), "peer copy 1 -> 0");
            memset(back, 0, sizeof back);
            krt_copy_to_host(back, p0, NULL);
            is_blob(host, back, sizeof host, "through device 1 and back");
            krt_free(p0);
            krt_free(p1);
        }
    }

    /* Mapped memory: the device pointer and the host pointer share bytes. */
    {
        krt_array mp;
        double *mh = NULL, mback[16];
        is_status(KRT_OK, krt_mapped_array(&mp, (void **)&mh, KRT_FLOAT64, 1,
                                           KRT_SHAPE(16)), "krt_mapped_array");
        for (i = 0; i < 16; i++)
            mh[i] = 3.0 * i;
        is_status(KRT_OK, krt_copy_to_host(mback, mp, NULL), "copy from its device side");
        ok(mback[15] == 45.0 && mback[1] == 3.0, "the host's writes are there");
        is_status(KRT_OK, krt_free(mp), "krt_free of a mapped array");
    }

    /* Views, freeing, pinned buffer sizes. */
    {
        krt_array v, d;
        krt_stream *st;
        double part[8], *pin = NULL;
        is_status(KRT_OK, krt_array_slice(&v, a, 0, N / 2, N / 2 + 8, 1), "a[N/2:N/2+8]");
        is_status(KRT_OK, krt_copy_to_host(part, v, NULL), "copy the view");
        ok(part[0] == host[N / 2] && part[7] == host[N / 2 + 7], "its elements");
        is_status(KRT_OK, krt_array_slice(&v, a, 0, N - 1, KRT_SLICE_END, -2 * (N / 16)),
                  "a[N-1::-N/8]");
        is_status(KRT_OK, krt_copy_to_host(part, v, NULL), "a strided view, staged");
        ok(v.shape[0] == 8 && part[1] == host[N - 1 - N / 8], "gathered");
        is_status(KRT_OK, krt_stream_create(&st), "a stream");
        is_status(KRT_OK, krt_to_device(&d, host, KRT_FLOAT64, 1, shape, st), "async copy in");
        is_status(KRT_OK, krt_free_async(d, st), "krt_free_async behind it");
        is_status(KRT_ENULLARRAY, krt_free(d), "then krt_free is a double free");
        is_status(KRT_OK, krt_stream_synchronize(st), "the stream's work completes");
        krt_stream_destroy(st);
        is_status(KRT_OK, krt_host_alloc((void **)&pin, 8 * sizeof(double)), "8 pinned doubles");
        is_status(KRT_EBOUNDS, krt_copy_to_host(pin, a, NULL), "a copy of 2^20 into it");
        krt_host_free(pin);
    }

    is_status(KRT_OK, krt_free(a), "free");
    is_status(KRT_OK, krt_free(c), "free 2-D");
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, a, NULL), "a freed array is refused");
    return 0;
}
