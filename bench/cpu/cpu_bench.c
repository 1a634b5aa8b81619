/*
 * cpu_bench.c - bench/cpu's driver: each kernel of bench/cpu/*.kern on
 * libkernrt's CPU backend against the same work in plain C (ref.c at
 * $CC -O2, one thread) and in OpenMP C (ref.c at -O3 -fopenmp, all
 * cores), every result checked equal to the plain loop's (the inputs are
 * small integers, so every float sum is exact in any order).
 *
 *   cpu_bench time [SCALE]         every kernel: best of BENCH_RUNS after a
 *                                  warm-up, copies not timed; prints
 *                                  "TIME name units kernrt_ms plain_ms omp_ms
 *                                  sum kernrt_cpu_ms" (sum: of the kernel's
 *                                  output, as numba_bench.py prints it;
 *                                  plain_ms and omp_ms -1 under
 *                                  CPU_BENCH_KERNEL_ONLY; kernrt_cpu_ms:
 *                                  the least CPU time of a run, all
 *                                  threads together)
 *   cpu_bench one NAME WHICH SCALE one kernel, one run of WHICH (kernel or
 *                                  plain) after a warm-up, the run between
 *                                  callgrind's collection toggles (bench/run
 *                                  runs it under valgrind
 *                                  --tool=callgrind --collect-atstart=no);
 *                                  prints "UNITS name units"
 *
 * SCALE divides the default sizes (16M elements; matmul 512x512; 2-D
 * 4096x4096); units are what a kernel's cost is counted per: elements,
 * multiply-adds (matmul), samples (montecarlo).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include <kernrt.h>
#include "bench.h"
#include "ref.h"

#include "saxpy.kern.h"
#include "ew2d.kern.h"
#include "gridstride.kern.h"
#include "ndiff.kern.h"
#include "matmul.kern.h"
#include "scan.kern.h"
#include "reduce.kern.h"
#include "stencil.kern.h"
#include "histogram.kern.h"
#include "montecarlo.kern.h"
#include "warpsum.kern.h"

#define TRY(e)                                                                       \
    do {                                                                             \
        int st_ = (e);                                                               \
        if (st_ != KRT_OK) {                                                         \
            fprintf(stderr, "cpu_bench: %s: %s: %s\n", #e, krt_status_name(st_),     \
                    krt_last_error());                                               \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

enum { PLAIN, OMP };

/* One kernel: prep (inputs, sizes), reset (mutable inputs to their start),
 * kernel (launch + synchronise), fetch (the device result to the host),
 * ref (plain or OpenMP into the host reference), check (0: equal). */
typedef struct Bench {
    const char *name;
    void (*prep)(int64_t scale);
    void (*reset)(void);
    void (*kernel)(void);
    void (*fetch)(void);
    void (*ref)(int which);
    int (*check)(void);
    double (*sum)(void);
    int64_t units;
} Bench;

static int64_t n, rows, cols;
static float *fx, *fy, *fy0, *fout, *fref;
static double *da, *db, *dout, *dref;
static int32_t *ix, *iout, *iref;
static int64_t *hits, *hits_ref;
static krt_xoroshiro128p_state *states_host, *states_ref;
static krt_array A0, A1, A2;

static void *xalloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "cpu_bench: out of memory\n");
        exit(1);
    }
    return p;
}

static int cmp_f(const float *a, const float *b, int64_t m)
{
    for (int64_t i = 0; i < m; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "cpu_bench: element %lld: %.9g, want %.9g\n", (long long)i, a[i], b[i]);
            return 1;
        }
    return 0;
}

static int cmp_d(const double *a, const double *b, int64_t m)
{
    for (int64_t i = 0; i < m; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "cpu_bench: element %lld: %.17g, want %.17g\n", (long long)i, a[i], b[i]);
            return 1;
        }
    return 0;
}

static int cmp_i32(const int32_t *a, const int32_t *b, int64_t m)
{
    for (int64_t i = 0; i < m; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "cpu_bench: element %lld: %d, want %d\n", (long long)i, a[i], b[i]);
            return 1;
        }
    return 0;
}

static void small_floats(float *p, int64_t m, int mod)
{
    for (int64_t i = 0; i < m; i++)
        p[i] = (float)((i * 7 + 3) % mod);
}

static unsigned blocks(int64_t m, unsigned tpb)
{
    return (unsigned)((m + tpb - 1) / tpb);
}

/* ---- saxpy and gridstride: y = 2 x + y, y in place ---- */

static void axpy_prep(int64_t scale)
{
    n = 16 * 1024 * 1024 / scale;
    fx = xalloc(n * sizeof *fx);
    fy = xalloc(n * sizeof *fy);
    fy0 = xalloc(n * sizeof *fy0);
    fref = xalloc(n * sizeof *fref);
    small_floats(fx, n, 13);
    small_floats(fy0, n, 11);
    TRY(krt_to_device(&A0, fx, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    TRY(krt_to_device(&A1, fy0, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
}
static void axpy_reset(void)
{
    TRY(krt_copy_to_device(A1, fy0, NULL));
    memcpy(fref, fy0, n * sizeof *fref);
}
static void saxpy_k(void)
{
    TRY(saxpy(krt_grid1(blocks(n, 256), 256), A0, A1, 2.0f));
    TRY(krt_synchronize());
}
static void gridstride_k(void)
{
    TRY(gridstride(krt_grid1(1024, 256), A0, A1, 2.0f));
    TRY(krt_synchronize());
}
static void axpy_fetch(void) { TRY(krt_copy_to_host(fy, A1, NULL)); }
static void saxpy_r(int w) { (w == OMP ? saxpy_omp : saxpy_plain)(fx, fref, 2.0f, n); }
static void gridstride_r(int w) { (w == OMP ? gridstride_omp : gridstride_plain)(fx, fref, 2.0f, n); }
static int axpy_check(void) { return cmp_f(fy, fref, n); }

/* ---- ew2d ---- */

static void ew2d_prep(int64_t scale)
{
    rows = 4096 / (scale >= 16 ? 4 : scale >= 4 ? 2 : 1);
    cols = 16 * 1024 * 1024 / scale / rows;
    n = rows * cols;
    da = xalloc(n * sizeof *da);
    db = xalloc(n * sizeof *db);
    dout = xalloc(n * sizeof *dout);
    dref = xalloc(n * sizeof *dref);
    for (int64_t i = 0; i < n; i++) {
        da[i] = (double)(i % 17);
        db[i] = (double)(i % 5);
    }
    TRY(krt_alloc(&A0, KRT_FLOAT64, 2, (int64_t[]){rows, cols}));
    TRY(krt_to_device(&A1, da, KRT_FLOAT64, 2, (int64_t[]){rows, cols}, NULL));
    TRY(krt_to_device(&A2, db, KRT_FLOAT64, 2, (int64_t[]){rows, cols}, NULL));
}
static void nothing(void) {}
static void ew2d_k(void)
{
    TRY(ew2d(krt_grid2(blocks(rows, 16), blocks(cols, 16), 16, 16), A0, A1, A2, 3.0));
    TRY(krt_synchronize());
}
static void ew2d_fetch(void) { TRY(krt_copy_to_host(dout, A0, NULL)); }
static void ew2d_r(int w) { (w == OMP ? ew2d_omp : ew2d_plain)(dref, da, db, 3.0, rows, cols); }
static int ew2d_check(void) { return cmp_d(dout, dref, n); }

/* ---- float in, float out of the same size: ndiff, stencil ---- */

static void f2_prep(int64_t scale)
{
    n = 16 * 1024 * 1024 / scale;
    fx = xalloc(n * sizeof *fx);
    fout = xalloc(n * sizeof *fout);
    fref = xalloc(n * sizeof *fref);
    small_floats(fx, n, 29);
    TRY(krt_to_device(&A0, fx, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    TRY(krt_alloc(&A1, KRT_FLOAT32, 1, (int64_t[]){n}));
}
static void ndiff_k(void)
{
    TRY(ndiff(krt_grid1(blocks(n, 256), 256), A0, A1));
    TRY(krt_synchronize());
}
static void stencil_k(void)
{
    TRY(stencil(krt_grid1(blocks(n, 128), 128), A0, A1));
    TRY(krt_synchronize());
}
static void f2_fetch(void) { TRY(krt_copy_to_host(fout, A1, NULL)); }
static void ndiff_r(int w) { (w == OMP ? ndiff_omp : ndiff_plain)(fx, fref, n); }
static void stencil_r(int w) { (w == OMP ? stencil_omp : stencil_plain)(fx, fref, n); }
static int f2_check(void) { return cmp_f(fout, fref, n); }

/* ---- matmul: n x n, n a multiple of 16 ---- */

static int64_t side;
static void matmul_prep(int64_t scale)
{
    side = scale >= 64 ? 128 : scale >= 8 ? 256 : 512;
    n = side * side * side;
    int64_t m = side * side;
    fx = xalloc(m * sizeof *fx);
    fy = xalloc(m * sizeof *fy);
    fout = xalloc(m * sizeof *fout);
    fref = xalloc(m * sizeof *fref);
    small_floats(fx, m, 5);
    small_floats(fy, m, 3);
    TRY(krt_to_device(&A0, fx, KRT_FLOAT32, 2, (int64_t[]){side, side}, NULL));
    TRY(krt_to_device(&A1, fy, KRT_FLOAT32, 2, (int64_t[]){side, side}, NULL));
    TRY(krt_alloc(&A2, KRT_FLOAT32, 2, (int64_t[]){side, side}));
}
static void matmul_k(void)
{
    unsigned g = blocks(side, 16);
    TRY(matmul(krt_grid2(g, g, 16, 16), A0, A1, A2));
    TRY(krt_synchronize());
}
static void matmul_fetch(void) { TRY(krt_copy_to_host(fout, A2, NULL)); }
static void matmul_r(int w) { (w == OMP ? matmul_omp : matmul_plain)(fx, fy, fref, side); }
static int matmul_check(void) { return cmp_f(fout, fref, side * side); }

/* ---- scan and histogram: int32 ---- */

static void i_prep(int64_t scale)
{
    n = 16 * 1024 * 1024 / scale;
    ix = xalloc(n * sizeof *ix);
    iout = xalloc(n * sizeof *iout);
    iref = xalloc(n * sizeof *iref);
    for (int64_t i = 0; i < n; i++)
        ix[i] = (int32_t)((i * 2654435761u) >> 7 & 1023);
    TRY(krt_to_device(&A0, ix, KRT_INT32, 1, (int64_t[]){n}, NULL));
    TRY(krt_alloc(&A1, KRT_INT32, 1, (int64_t[]){n}));
}
static void scan_k(void)
{
    TRY(scan(krt_grid1(blocks(n, 256), 256), A0, A1));
    TRY(krt_synchronize());
}
static void scan_fetch(void) { TRY(krt_copy_to_host(iout, A1, NULL)); }
static void scan_r(int w) { (w == OMP ? scan_omp : scan_plain)(ix, iref, n); }
static int scan_check(void) { return cmp_i32(iout, iref, n); }

static void hist_reset(void)
{
    static const int32_t zero[16];
    memset(iref, 0, 16 * sizeof *iref);
    TRY(krt_free(A1));
    TRY(krt_to_device(&A1, zero, KRT_INT32, 1, (int64_t[]){16}, NULL));
}
static void hist_k(void)
{
    TRY(histogram(krt_grid1(1024, 256), A0, A1));
    TRY(krt_synchronize());
}
static void hist_fetch(void) { TRY(krt_copy_to_host(iout, A1, NULL)); }
static void hist_r(int w) { (w == OMP ? histogram_omp : histogram_plain)(ix, iref, n); }
static int hist_check(void) { return cmp_i32(iout, iref, 16); }

/* ---- reduce: 256-thread blocks, 16 elements a thread ---- */

static int64_t nblocks;
static void reduce_prep(int64_t scale)
{
    n = 16 * 1024 * 1024 / scale;
    nblocks = n / (256 * 16);
    fx = xalloc(n * sizeof *fx);
    fout = xalloc(nblocks * sizeof *fout);
    fref = xalloc(nblocks * sizeof *fref);
    small_floats(fx, n, 9);
    TRY(krt_to_device(&A0, fx, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    TRY(krt_alloc(&A1, KRT_FLOAT32, 1, (int64_t[]){nblocks}));
}
static void reduce_k(void)
{
    TRY(reduce(krt_grid1((unsigned)nblocks, 256), A0, A1));
    TRY(krt_synchronize());
}
static void reduce_fetch(void) { TRY(krt_copy_to_host(fout, A1, NULL)); }
static void reduce_r(int w) { (w == OMP ? reduce_omp : reduce_plain)(fx, fref, n, 256 * 16); }
static int reduce_check(void)
{
    /* the blocks sum strided slices, the loop chunks: compare the totals */
    double a = 0, b = 0;
    for (int64_t i = 0; i < nblocks; i++) {
        a += fout[i];
        b += fref[i];
    }
    if (a != b) {
        fprintf(stderr, "cpu_bench: reduce: total %.17g, want %.17g\n", a, b);
        return 1;
    }
    return 0;
}

/* ---- warpsum ---- */

static void warpsum_prep(int64_t scale)
{
    n = 16 * 1024 * 1024 / scale;
    fx = xalloc(n * sizeof *fx);
    fout = xalloc(n / 32 * sizeof *fout);
    fref = xalloc(n / 32 * sizeof *fref);
    small_floats(fx, n, 23);
    TRY(krt_to_device(&A0, fx, KRT_FLOAT32, 1, (int64_t[]){n}, NULL));
    TRY(krt_alloc(&A1, KRT_FLOAT32, 1, (int64_t[]){n / 32}));
}
static void warpsum_k(void)
{
    TRY(warpsum(krt_grid1(blocks(n, 256), 256), A0, A1));
    TRY(krt_synchronize());
}
static void warpsum_fetch(void) { TRY(krt_copy_to_host(fout, A1, NULL)); }
static void warpsum_r(int w) { (w == OMP ? warpsum_omp : warpsum_plain)(fx, fref, n); }
static int warpsum_check(void) { return cmp_f(fout, fref, n / 32); }

/* ---- montecarlo: 128-thread blocks ---- */

static int64_t nstates, samples;
static void mc_prep(int64_t scale)
{
    nstates = 16384 / (scale >= 16 ? 4 : 1);
    samples = 16 * 1024 * 1024 / scale / nstates;
    n = nstates * samples;
    states_host = xalloc(nstates * sizeof *states_host);
    states_ref = xalloc(nstates * sizeof *states_ref);
    hits = xalloc(nstates * sizeof *hits);
    hits_ref = xalloc(nstates * sizeof *hits_ref);
    TRY(krt_create_xoroshiro128p_states(&A0, nstates, 42, 0, NULL));
    TRY(krt_copy_to_host(states_host, A0, NULL));
    TRY(krt_alloc(&A1, KRT_INT64, 1, (int64_t[]){nstates}));
}
static void mc_reset(void)
{
    TRY(krt_copy_to_device(A0, states_host, NULL));
    memcpy(states_ref, states_host, nstates * sizeof *states_ref);
}
static void mc_k(void)
{
    TRY(montecarlo(krt_grid1(blocks(nstates, 128), 128), A0, samples, A1));
    TRY(krt_synchronize());
}
static void mc_fetch(void) { TRY(krt_copy_to_host(hits, A1, NULL)); }
static void mc_r(int w) { (w == OMP ? montecarlo_omp : montecarlo_plain)(states_ref, nstates, samples, hits_ref); }
static int mc_check(void)
{
    for (int64_t i = 0; i < nstates; i++)
        if (hits[i] != hits_ref[i]) {
            fprintf(stderr, "cpu_bench: montecarlo: state %lld: %lld hits, want %lld\n",
                    (long long)i, (long long)hits[i], (long long)hits_ref[i]);
            return 1;
        }
    return 0;
}

/* The sum of a kernel's output (after fetch), as numba_bench.py prints
 * it: bench/cpu/run checks the two equal. */
static double sum_f(const float *p, int64_t m)
{
    double t = 0;
    for (int64_t i = 0; i < m; i++)
        t += p[i];
    return t;
}
static double axpy_sum(void) { return sum_f(fy, n); }
static double ew2d_sum(void)
{
    double t = 0;
    for (int64_t i = 0; i < n; i++)
        t += dout[i];
    return t;
}
static double f2_sum(void) { return sum_f(fout, n); }
static double matmul_sum(void) { return sum_f(fout, side * side); }
static double scan_sum(void)
{
    double t = 0;
    for (int64_t i = 0; i < n; i++)
        t += iout[i];
    return t;
}
static double reduce_sum(void) { return sum_f(fout, nblocks); }
static double hist_sum(void)
{
    double t = 0;
    for (int i = 0; i < 16; i++)
        t += iout[i];
    return t;
}
static double mc_sum(void)
{
    double t = 0;
    for (int64_t i = 0; i < nstates; i++)
        t += (double)hits[i];
    return t;
}
static double warpsum_sum(void) { return sum_f(fout, n / 32); }

static Bench benches[] = {
    {"saxpy", axpy_prep, axpy_reset, saxpy_k, axpy_fetch, saxpy_r, axpy_check, axpy_sum, 0},
    {"ew2d", ew2d_prep, nothing, ew2d_k, ew2d_fetch, ew2d_r, ew2d_check, ew2d_sum, 0},
    {"gridstride", axpy_prep, axpy_reset, gridstride_k, axpy_fetch, gridstride_r, axpy_check, axpy_sum, 0},
    {"ndiff", f2_prep, nothing, ndiff_k, f2_fetch, ndiff_r, f2_check, f2_sum, 0},
    {"matmul", matmul_prep, nothing, matmul_k, matmul_fetch, matmul_r, matmul_check, matmul_sum, 0},
    {"scan", i_prep, nothing, scan_k, scan_fetch, scan_r, scan_check, scan_sum, 0},
    {"reduce", reduce_prep, nothing, reduce_k, reduce_fetch, reduce_r, reduce_check, reduce_sum, 0},
    {"stencil", f2_prep, nothing, stencil_k, f2_fetch, stencil_r, f2_check, f2_sum, 0},
    {"histogram", i_prep, hist_reset, hist_k, hist_fetch, hist_r, hist_check, hist_sum, 0},
    {"montecarlo", mc_prep, mc_reset, mc_k, mc_fetch, mc_r, mc_check, mc_sum, 0},
    {"warpsum", warpsum_prep, nothing, warpsum_k, warpsum_fetch, warpsum_r, warpsum_check, warpsum_sum, 0},
};
#define NBENCH ((int)(sizeof benches / sizeof benches[0]))

static void release(void)
{
    krt_free(A0);
    krt_free(A1);
    krt_free(A2);
    memset(&A0, 0, sizeof A0);
    memset(&A1, 0, sizeof A1);
    memset(&A2, 0, sizeof A2);
}

/* Kernel, plain and OpenMP from the same start; 0: all equal. */
static int checked(const Bench *b)
{
    b->reset();
    b->kernel();
    b->fetch();
    b->reset();
    b->ref(OMP);
    if (b->check()) {
        fprintf(stderr, "cpu_bench: %s: the OpenMP result differs from the kernel's\n", b->name);
        return 1;
    }
    b->reset();
    b->kernel();
    b->fetch();
    b->reset();
    b->ref(PLAIN);
    if (b->check()) {
        fprintf(stderr, "cpu_bench: %s: the kernel's result differs from the plain loop's\n", b->name);
        return 1;
    }
    return 0;
}

/* The process's CPU time (every thread's), in ms. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The best wall-clock time of BENCH_RUNS runs; *cpu: the least CPU time
 * of one (all threads together: with n threads, about n times less wall
 * than CPU time when they really ran side by side; more CPU time than
 * with one thread is what running in parallel cost). */
static double best_of(void (*fn)(void), void (*reset)(void), double *cpu)
{
    double best = 1e30, bcpu = 1e30;
    for (int r = 0; r <= BENCH_RUNS; r++) {
        reset();
        double c0 = cpu_ms(), t0 = bench_ms();
        fn();
        double t = bench_ms() - t0, c = cpu_ms() - c0;
        if (r && t < best)   /* run 0 warms up */
            best = t;
        if (r && c < bcpu)
            bcpu = c;
    }
    *cpu = bcpu;
    return best;
}

static const Bench *cur;
static void plain_run(void) { cur->ref(PLAIN); }
static void omp_run(void) { cur->ref(OMP); }

int main(int argc, char **argv)
{
    int status = 0;
    if (argc >= 2 && strcmp(argv[1], "time") == 0) {
        int64_t scale = argc > 2 ? atoll(argv[2]) : 1;
        for (int i = 0; i < NBENCH; i++) {
            const Bench *b = cur = &benches[i];
            if (argc > 3 && strcmp(argv[3], b->name) != 0)
                continue;
            b->prep(scale);
            if (checked(b)) {
                printf("FAILED %s\n", b->name);
                status = 1;
                release();
                continue;
            }
            /* the kernel's output (checked() fetched it last) */
            b->reset();
            b->kernel();
            b->fetch();
            double sum = b->sum();
            double kc, pc, oc;
            double k = best_of(b->kernel, b->reset, &kc);
            /* CPU_BENCH_KERNEL_ONLY: the kernel only */
            int only = getenv("CPU_BENCH_KERNEL_ONLY") != NULL;
            double p = only ? -1 : best_of(plain_run, b->reset, &pc);
            double o = only ? -1 : best_of(omp_run, b->reset, &oc);
            printf("TIME %s %lld %.3f %.3f %.3f %.17g %.3f\n", b->name, (long long)n, k, p, o, sum, kc);
            fflush(stdout);
            release();
        }
        return status;
    }
    if (argc == 5 && strcmp(argv[1], "one") == 0) {
        for (int i = 0; i < NBENCH; i++) {
            const Bench *b = &benches[i];
            if (strcmp(argv[2], b->name) != 0)
                continue;
            int kern = strcmp(argv[3], "kernel") == 0;
            b->prep(atoll(argv[4]));
            b->reset();
            if (kern) b->kernel(); else b->ref(PLAIN);
            b->reset();
            CALLGRIND_TOGGLE_COLLECT;
            if (kern) b->kernel(); else b->ref(PLAIN);
            CALLGRIND_TOGGLE_COLLECT;
            if (kern) {
                b->fetch();
                b->reset();
                b->ref(PLAIN);
                if (b->check())
                    return 1;
            }
            printf("UNITS %s %lld\n", b->name, (long long)n);
            return 0;
        }
        fprintf(stderr, "cpu_bench: no kernel '%s'\n", argv[2]);
        return 2;
    }
    fprintf(stderr, "usage: cpu_bench time [SCALE [NAME]] | cpu_bench one NAME kernel|plain SCALE\n");
    return 2;
}
