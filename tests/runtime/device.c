/*
 * device.c - devices on the cpu backend, posing as three
 * (KRT_CPU_DEVICES=3): count and properties, the current device per host
 * thread, arrays, streams and events that remember their device, launches
 * that refuse another device's arrays and streams (not mapped arrays),
 * copies that act on the array's own device, peer copies between devices
 * (on the default stream and on a stream), and the peer-access queries.
 */
#include <pthread.h>
#include <stdio.h>
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

/* add_one(x): x[i] += 1 */
static void add_one_cpu(const krt_cpu_block *b, void **args)
{
    const krt_view *x = args[0];
    unsigned t;

    for (t = 0; t < b->block_dim.x; t++) {
        int64_t i = (int64_t)b->block_idx.x * b->block_dim.x + t;
        if (i < x->shape[0])
            *(float *)(x->data + i * x->strides[0]) += 1.0f;
    }
}

static const krt_param add_one_params[] = {
    {"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0}};
static const krt_kernel add_one_k = {"add_one", "device.kern", 1,
                                     add_one_params, add_one_cpu, NULL, 0, 0,
                                     0, NULL};

static int add_one(krt_launch_cfg cfg, krt_array x)
{
    krt_view v;
    void *args[] = {&v};

    KRT_TRY(krt_check_array(&add_one_k, 0, &x, &v));
    return krt_launch(&add_one_k, cfg, args);
}

/* A new host thread starts on device 0, whatever its parent chose. */
static void *thread_device(void *arg)
{
    int *dev = arg;

    if (krt_get_device(dev) != KRT_OK)
        *dev = -1;
    return NULL;
}

int main(void)
{
    krt_device_props p;
    krt_array a0, a1, m, c;
    krt_stream *s0, *s1;
    krt_event *e0;
    float host[16], back[16], *mh = NULL;
    int64_t shape[] = {16};
    int n = 0, dev = -1, can = 0, i, good;
    pthread_t th;
    char msg[1024];

    plan(49);
    setenv("KRT_CPU_DEVICES", "3", 1);
    is_status(KRT_OK, krt_set_backend("cpu"), "the cpu backend");

    /* Count and properties. */
    is_status(KRT_OK, krt_device_count(&n), "krt_device_count");
    is_int(3, n, "KRT_CPU_DEVICES=3: three devices");
    is_status(KRT_EINVAL, krt_device_count(NULL), "krt_device_count(NULL)");
    is_status(KRT_OK, krt_get_device_props(&p, 2), "props of device 2");
    ok(p.device == 2 && p.is_cpu == 1 && p.name[0] != '\0',
       "device 2 is a cpu called '%s'", p.name);
    ok(p.warp_size == 32 && p.max_threads_per_block == 1024 &&
           p.max_block_dim[2] == 64 && p.max_grid_dim[1] == 65535 &&
           p.shared_memory_per_block == 48 * 1024,
       "CUDA's limits: warp 32, 1024 threads, 48 KiB shared");
    ok(p.multiprocessor_count >= 1 && p.total_memory > 0 &&
           p.free_memory <= p.total_memory && p.cooperative_launch == 1 &&
           p.can_map_host_memory == 1,
       "%d threads as multiprocessors, %zu MiB of memory",
       p.multiprocessor_count, p.total_memory >> 20);
    is_status(KRT_EINVAL, krt_get_device_props(&p, 3), "props of device 3");
    is_string("krt_get_device_props: device 3 does not exist (3 devices: "
              "0..2)", krt_last_error(), "message names the range");
    is_status(KRT_EINVAL, krt_get_device_props(NULL, 0), "props into NULL");
    ok(krt_is_available() == 0 || krt_is_available() == 1,
       "krt_is_available is 0 or 1");

    /* The current device. */
    is_status(KRT_OK, krt_get_device(&dev), "krt_get_device");
    is_int(0, dev, "device 0 to begin with");
    for (i = 0; i < 16; i++)
        host[i] = (float)i;
    is_status(KRT_OK, krt_to_device(&a0, host, KRT_FLOAT32, 1, shape, NULL),
              "an array on device 0");
    is_status(KRT_OK, krt_stream_create(&s0), "a stream on device 0");
    is_status(KRT_OK, krt_event_create(&e0), "an event on device 0");
    is_status(KRT_EINVAL, krt_set_device(3), "krt_set_device(3)");
    is_status(KRT_EINVAL, krt_set_device(-1), "krt_set_device(-1)");
    is_status(KRT_OK, krt_set_device(1), "krt_set_device(1)");
    krt_get_device(&dev);
    is_int(1, dev, "device 1 is current");
    dev = -2;
    pthread_create(&th, NULL, thread_device, &dev);
    pthread_join(th, NULL);
    is_int(0, dev, "another thread's current device is still 0");
    is_status(KRT_OK, krt_alloc(&a1, KRT_FLOAT32, 1, shape),
              "an array on device 1");
    ok(a0.device == 0 && a1.device == 1, "arrays remember their device");
    is_status(KRT_OK, krt_stream_create(&s1), "a stream on device 1");
    krt_stream_device(&dev, s1);
    is_int(1, dev, "krt_stream_device says 1");

    /* Launches run on the current device. */
    is_status(KRT_EDEVICE, add_one(krt_grid1(1, 16), a0),
              "a launch refuses an array of device 0 on device 1");
    snprintf(msg, sizeof msg, "%s", krt_last_error());
    ok(strstr(msg, "parameter 'x' is on device 0, but the kernel runs on "
                   "device 1") != NULL, "message: %s", msg);
    {
        krt_launch_cfg cfg = krt_grid1(1, 16);
        cfg.stream = s0;
        is_status(KRT_EDEVICE, add_one(cfg, a1),
                  "a launch refuses a stream of device 0 on device 1");
    }
    is_status(KRT_EDEVICE, krt_event_record(e0, s1),
              "an event of device 0 is not recorded on device 1's stream");

    /* Copies act on the array's device; a stream must match it. */
    memset(back, 0, sizeof back);
    is_status(KRT_OK, krt_copy_to_host(back, a0, NULL),
              "copy device 0's array back while device 1 is current");
    ok(memcmp(host, back, sizeof host) == 0, "its data");
    is_status(KRT_EDEVICE, krt_copy_to_host(back, a0, s1),
              "... but not on a stream of device 1");

    /* Peer copies. */
    is_status(KRT_OK, krt_copy_device(a1, a0, NULL),
              "peer copy device 0 -> device 1");
    is_status(KRT_OK, add_one(krt_grid1(1, 16), a1), "add one on device 1");
    is_status(KRT_OK, krt_copy_device(a0, a1, s0),
              "peer copy device 1 -> device 0 on device 0's stream");
    is_status(KRT_OK, krt_copy_to_host(back, a0, s0), "copy back on s0");
    krt_stream_synchronize(s0);
    for (good = 1, i = 0; i < 16; i++)
        good &= back[i] == host[i] + 1;
    ok(good, "the data went to device 1 and back, plus one");
    is_status(KRT_OK, krt_device_can_access_peer(&can, 0, 1),
              "krt_device_can_access_peer(0, 1)");
    is_int(1, can, "the cpu's devices reach each other");
    is_status(KRT_EINVAL, krt_device_can_access_peer(&can, 1, 1),
              "a device is not its own peer");
    is_status(KRT_OK, krt_device_enable_peer_access(0),
              "enable access to device 0 from device 1");
    is_status(KRT_OK, add_one(krt_grid1(1, 16), a0),
              "now device 1 launches on device 0's array");
    is_status(KRT_EINVAL, krt_device_enable_peer_access(1),
              "the current device is not its own peer");

    /* Mapped memory is on every device. */
    is_status(KRT_OK, krt_mapped_array(&m, (void **)&mh, KRT_FLOAT32, 1, shape),
              "a mapped array (made on device 1)");
    krt_set_device(2);
    for (i = 0; i < 16; i++)
        mh[i] = 10.0f * (float)i;
    is_status(KRT_OK, add_one(krt_grid1(1, 16), m),
              "device 2 runs a kernel on it");
    krt_synchronize();
    for (good = 1, i = 0; i < 16; i++)
        good &= mh[i] == 10.0f * (float)i + 1;
    ok(good, "the host sees the kernel's writes through its pointer");

    /* A copy made on device 2 of a device 0 array. */
    is_status(KRT_OK, krt_device_array_like(&c, a0), "like a0, on device 2");
    ok(c.device == 2, "krt_device_array_like allocates on the current device");

    krt_free(c);
    krt_free(m);
    krt_free(a1);
    krt_free(a0);
    krt_event_destroy(e0);
    krt_stream_destroy(s0);
    krt_stream_destroy(s1);
    return 0;
}
