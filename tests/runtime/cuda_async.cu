/*
 * cuda_async.cu - the CUDA backend's streams, events, async and pinned
 * transfers, krt_forall, cooperative launches and RNG, with __global__
 * functions and descriptors written by hand as kernc's .cu output does:
 * a spinning kernel shows that a launch on a stream returns at once and
 * that queries say "not ready", an event orders two streams, a cooperative
 * kernel syncs its grid, and draws made on the GPU match numba's
 * (bit-identical for next and the uniforms; the normals go through CUDA's
 * logf/cosf, as numba-cuda's do, so they are compared within 2 ulp of the
 * CPU reference).  Build with nvcc -cudart shared.  Without a device:
 * "1..0 # SKIP no CUDA device".
 */
#include <cooperative_groups.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "kernrt.h"
#include "kernrt_random.h"
#include "runtime/rng_ref.h"
#include "tap/basic.h"

__global__ void spin_fill(krt_view out, long long cycles, float value)
{
    long long start = clock64();
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    while (clock64() - start < cycles)
        ;
    if (i < out.shape[0])
        *(float *)(out.data + i * out.strides[0]) = value;
}

__global__ void add_one(krt_view dst, krt_view src)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < dst.shape[0])
        *(float *)(dst.data + i * dst.strides[0]) =
            *(float *)(src.data + i * src.strides[0]) + 1;
}

/* Every block adds to a counter, the grid syncs, then every block reads
 * the total: only a real grid barrier gives gridDim.x everywhere. */
__global__ void grid_total(krt_view counter, krt_view seen)
{
    cooperative_groups::grid_group g = cooperative_groups::this_grid();
    if (threadIdx.x == 0)
        atomicAdd((int *)counter.data, 1);
    g.sync();
    if (threadIdx.x == 0)
        ((int *)seen.data)[blockIdx.x] = *(volatile int *)counter.data;
}

__global__ void draws(krt_view states, krt_view out, int func)
{
    int t = threadIdx.x;
    if (t >= 2)
        return;
    int64_t idx = t == 0 ? 0 : 3;
    for (int i = 0; i < RNG_REF_NDRAWS; i++) {
        uint64_t *o = (uint64_t *)(out.data + t * out.strides[0] +
                                   i * out.strides[1]);
        float f;
        double d;
        *o = 0;
        switch (func) {
        case 0: *o = krt_xoroshiro128p_next(states, idx); break;
        case 1: f = krt_xoroshiro128p_uniform_float32(states, idx);
                memcpy(o, &f, 4); break;
        case 2: d = krt_xoroshiro128p_uniform_float64(states, idx);
                memcpy(o, &d, 8); break;
        case 3: f = krt_xoroshiro128p_normal_float32(states, idx);
                memcpy(o, &f, 4); break;
        default: d = krt_xoroshiro128p_normal_float64(states, idx);
                 memcpy(o, &d, 8); break;
        }
    }
}

static const krt_param spin_params[] = {
    {"out", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"cycles", KRT_PARAM_SCALAR, KRT_INT64, 0, 0},
    {"value", KRT_PARAM_SCALAR, KRT_FLOAT32, 0, 0}};
static const krt_kernel spin_k = {"spin_fill", "t.kern", 3, spin_params,
                                  NULL, (const void *)spin_fill, 0, 0, 0, NULL};
static const krt_param add_params[] = {
    {"dst", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1},
    {"src", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 1}};
static const krt_kernel add_k = {"add_one", "t.kern", 2, add_params, NULL,
                                 (const void *)add_one, 0, 0, 0, NULL};
static const krt_param total_params[] = {
    {"counter", KRT_PARAM_ARRAY, KRT_INT32, 1, 1},
    {"seen", KRT_PARAM_ARRAY, KRT_INT32, 1, 1}};
static const krt_kernel total_k = {"grid_total", "t.kern", 2, total_params,
                                   NULL, (const void *)grid_total, 0, 0, 0, NULL};
static const krt_param draw_params[] = {
    {"states", KRT_PARAM_ARRAY, KRT_XOROSHIRO128P, 1, 1},
    {"out", KRT_PARAM_ARRAY, KRT_UINT64, 2, 1},
    {"func", KRT_PARAM_SCALAR, KRT_INT32, 0, 0}};
static const krt_kernel draw_k = {"draws", "t.kern", 3, draw_params, NULL,
                                  (const void *)draws, 0, 0, 0, NULL};

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

static uint64_t ref_bits(int f, int r, int i)
{
    switch (f) {
    case 0: return rng_ref_next[r][i];
    case 1: return rng_ref_uniform_float32[r][i];
    case 2: return rng_ref_uniform_float64[r][i];
    case 3: return rng_ref_normal_float32[r][i];
    default: return rng_ref_normal_float64[r][i];
    }
}

int main(void)
{
    enum { N = 1 << 16 };
    float *pin;
    static float back[N];
    static uint64_t bits[2][RNG_REF_NDRAWS];
    krt_stream *s1, *s2;
    krt_event *e0, *e1;
    krt_array x, y, cnt, seen, st, out;
    krt_view vx, vy, vc, vs, vst, vout;
    long long cycles = 200000000;    /* ~100 ms at 2 GHz */
    float value = 3.0f, ms = 0;
    int func, f, r, i, bad, zero = 0;
    unsigned maxc = 0;
    int64_t n = N, one = 1, nseen, oshape[] = {2, RNG_REF_NDRAWS};
    krt_launch_cfg cfg;
    double t;
    void *sargs[] = {&vx, &cycles, &value}, *aargs[] = {&vy, &vx},
         *targs[] = {&vc, &vs}, *dargs[] = {&vst, &vout, &func};

    if (krt_set_backend("cuda") != KRT_OK)
        skip_all("no CUDA device");
    plan(27);

    is_status(KRT_OK, krt_host_alloc((void **)&pin, N * sizeof(float)),
              "pinned buffer");
    is_status(KRT_OK, krt_stream_create(&s1), "stream 1");
    is_status(KRT_OK, krt_stream_create(&s2), "stream 2");
    krt_event_create(&e0);
    krt_event_create(&e1);
    krt_alloc(&x, KRT_FLOAT32, 1, &n);
    krt_alloc(&y, KRT_FLOAT32, 1, &n);
    krt_check_array(&spin_k, 0, &x, &vx);
    krt_check_array(&add_k, 0, &y, &vy);

    cfg = krt_grid1(N / 256, 256);
    cfg.stream = s1;
    krt_event_record(e0, s1);
    t = now_ms();
    is_status(KRT_OK, krt_launch(&spin_k, cfg, sargs), "spin on s1");
    ok(now_ms() - t < 50, "the launch returned at once");
    is_status(KRT_ENOTREADY, krt_stream_query(s1), "s1 is busy");
    krt_event_record(e1, s1);
    is_status(KRT_ENOTREADY, krt_event_query(e1), "e1 is pending");
    krt_stream_wait_event(s2, e1);
    cfg.stream = s2;
    is_status(KRT_OK, krt_launch(&add_k, cfg, aargs), "s2: y = x + 1");
    is_status(KRT_OK, krt_copy_to_host(pin, y, s2), "async copy to pinned");
    is_status(KRT_OK, krt_stream_synchronize(s2), "synchronize s2");
    for (bad = 0, i = 0; i < N; i++)
        bad += pin[i] != 4.0f;
    ok(bad == 0, "s2 ran after s1's kernel (%d wrong)", bad);
    is_status(KRT_OK, krt_event_elapsed_ms(&ms, e0, e1), "elapsed");
    ok(ms > 1, "the spin took %.2f ms", ms);

    is_status(KRT_OK, krt_copy_to_device(x, pin, s1), "async copy in");
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    krt_copy_to_host(back, x, NULL);
    ok(memcmp(back, pin, sizeof back) == 0, "copied in");

    is_status(KRT_OK, krt_forall(&cfg, &add_k, N), "forall by occupancy");
    ok(cfg.block.x >= 32 && cfg.block.x <= 1024 &&
           (uint64_t)cfg.grid.x * cfg.block.x >= N,
       "%u blocks of %u", cfg.grid.x, cfg.block.x);

    krt_to_device(&cnt, &zero, KRT_INT32, 1, &one, NULL);
    krt_check_array(&total_k, 0, &cnt, &vc);
    is_status(KRT_OK, krt_max_cooperative_grid(&maxc, &total_k,
                                               krt_grid1(1, 128).block, 0),
              "krt_max_cooperative_grid");
    nseen = (int64_t)maxc + 1;
    krt_alloc(&seen, KRT_INT32, 1, &nseen);
    krt_check_array(&total_k, 1, &seen, &vs);
    is_status(KRT_OK, krt_launch_cooperative(&total_k,
                                             krt_grid1(maxc, 128), targs),
              "cooperative launch of the largest grid");
    {
        static int seen_h[1 << 20];
        krt_copy_to_host(seen_h, seen, NULL);
        for (bad = 0, i = 0; i < (int)maxc; i++)
            bad += seen_h[i] != (int)maxc;
        ok(bad == 0, "every block saw all %u blocks after g.sync()", maxc);
    }
    is_status(KRT_ECOOPERATIVE,
              krt_launch_cooperative(&total_k, krt_grid1(maxc + 1, 128),
                                     targs),
              "one block more is refused");

    krt_alloc(&out, KRT_UINT64, 2, oshape);
    krt_check_array(&draw_k, 1, &out, &vout);
    for (f = 0; f < 5; f++) {
        func = f;
        krt_create_xoroshiro128p_states(&st, RNG_REF_DRAW_STATES,
                                        RNG_REF_DRAW_SEED, 0, s1);
        krt_check_array(&draw_k, 0, &st, &vst);
        cfg = krt_grid1(1, 32);
        cfg.stream = s1;
        krt_launch(&draw_k, cfg, dargs);
        krt_copy_to_host(bits, out, s1);
        krt_stream_synchronize(s1);
        for (bad = 0, r = 0; r < 2; r++)
            for (i = 0; i < RNG_REF_NDRAWS; i++) {
                uint64_t want = ref_bits(f, r, i), got = bits[r][i];
                uint64_t d = got > want ? got - want : want - got;
                bad += f < 3 ? d != 0 : d > 2;
            }
        ok(bad == 0, "GPU draws of function %d match numba (%d off)", f, bad);
        krt_free(st);
    }

    krt_free(out);
    krt_free(cnt);
    krt_free(seen);
    krt_free(x);
    krt_free(y);
    krt_event_destroy(e0);
    krt_event_destroy(e1);
    krt_stream_destroy(s1);
    krt_stream_destroy(s2);
    krt_host_free(pin);
    return 0;
}
