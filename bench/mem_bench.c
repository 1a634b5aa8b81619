/*
 * mem_bench.c - what a block of threads in flight costs in memory on the
 * CPU backend, which keeps each thread's live state in a frame
 * (kernel->frame_bytes per thread) and the block's shared memory in one
 * buffer (kernel->shared_bytes).
 *
 *   mem_bench reduce|matmul THREADS
 *
 * launches one block of THREADS threads (1 or 1024; matmul: a square
 * block, so 1 x 1 or 32 x 32) of the reduction or the tiled matmul and
 * prints "MEM name threads frame_bytes shared_bytes peak_kib anon_kib":
 * the peak resident set (getrusage) and the resident anonymous memory
 * after the launch, counted page by page (/proc/self/smaps_rollup; -1
 * where there is none).  The second one is the precise figure: since Linux
 * 6.2 the counters behind the peak are per-CPU and only folded every 32 or
 * more pages, so the peak moves in steps of 128 KiB, more than a
 * reduction's frames weigh, and file-backed pages of the libraries vary
 * from run to run with address randomisation; frames and shared memory are
 * anonymous, and the runtime keeps a block's buffers for the next launch,
 * so they are still resident after it.  bench/run subtracts the 1-thread
 * figures from the 1024-thread ones: both processes allocate the same
 * arrays, start the same thread pool and hold the same shared buffer, so
 * what remains is the memory the extra threads cost.
 *
 * The kernels are bench/reduce.kern and examples/matmul.kern with their
 * block size raised (bench/run writes reduce1024.kern, TPB = 1024, and
 * matmul32.kern, TPB = 32): the shipped ones index shared arrays by the
 * thread index and are only valid with 256-thread blocks.  A 1024-thread
 * result is checked; a 1-thread one is not (its tree reduction and its
 * tile loop read shared slots that no thread wrote, as they would on a GPU).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <kernrt.h>
#include "reduce1024.kern.h"
#include "matmul32.kern.h"

#define REDUCE_TPB 1024                 /* TPB in reduce1024.kern */
#define REDUCE_N (REDUCE_TPB * 16)
#define MATMUL_TPB 32                   /* TPB in matmul32.kern */

static float host[3][REDUCE_N];          /* the inputs and the output */

static int run_reduce(unsigned threads, int *bad)
{
    krt_array dx, dpartial;
    double want = 0;
    float sum;

    for (long i = 0; i < REDUCE_N; i++) {
        host[0][i] = (float)(i % 1000) / 1000;
        want += host[0][i];
    }
    KRT_TRY(krt_to_device(&dx, host[0], KRT_FLOAT32, 1, (int64_t[]){REDUCE_N}, NULL));
    KRT_TRY(krt_alloc(&dpartial, KRT_FLOAT32, 1, (int64_t[]){1}));
    KRT_TRY(block_sum(krt_grid1(1, threads), dx, dpartial));
    KRT_TRY(krt_copy_to_host(&sum, dpartial, NULL));
    if (threads == REDUCE_TPB && fabs(sum - want) > 1e-4 * want)
        *bad = 1;
    krt_free(dx);
    krt_free(dpartial);
    return KRT_OK;
}

static int run_matmul(unsigned threads, int *bad)
{
    const int64_t shape[2] = {MATMUL_TPB, MATMUL_TPB};
    const unsigned side = threads == 1 ? 1 : MATMUL_TPB;
    float (*a)[MATMUL_TPB] = (float (*)[MATMUL_TPB])host[0];
    float (*b)[MATMUL_TPB] = (float (*)[MATMUL_TPB])host[1];
    float (*c)[MATMUL_TPB] = (float (*)[MATMUL_TPB])host[2];
    krt_array da, db, dc;

    for (int i = 0; i < MATMUL_TPB; i++)
        for (int j = 0; j < MATMUL_TPB; j++) {
            a[i][j] = (float)((i + 2 * j) % 7) / 4;
            b[i][j] = (float)((3 * i + j) % 5) - 2;
        }
    KRT_TRY(krt_to_device(&da, a, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_to_device(&db, b, KRT_FLOAT32, 2, shape, NULL));
    KRT_TRY(krt_alloc(&dc, KRT_FLOAT32, 2, shape));
    KRT_TRY(fast_matmul(krt_grid2(1, 1, side, side), da, db, dc));
    KRT_TRY(krt_copy_to_host(c, dc, NULL));
    for (int i = 0; i < MATMUL_TPB && side == MATMUL_TPB; i++)
        for (int j = 0; j < MATMUL_TPB; j++) {
            double want = 0;
            for (int k = 0; k < MATMUL_TPB; k++)
                want += (double)a[i][k] * b[k][j];
            if (fabs(c[i][j] - want) > 1e-4 * (1 + fabs(want)))
                *bad = 1;
        }
    krt_free(da);
    krt_free(db);
    krt_free(dc);
    return KRT_OK;
}

/* Resident anonymous memory in KiB, summed over the page tables by the
 * kernel (Linux 4.14 and later), or -1. */
static long anon_rss_kib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kib = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Anonymous: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static const struct {
    const char *name;
    const krt_kernel *kernel;
    int (*run)(unsigned threads, int *bad);
} mem_benches[] = {
    {"reduce", &block_sum__kernel, run_reduce},
    {"matmul", &fast_matmul__kernel, run_matmul},
};

int main(int argc, char **argv)
{
    unsigned threads = argc == 3 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
    struct rusage ru;
    int bad = 0;

    for (size_t i = 0; argc == 3 && i < sizeof mem_benches / sizeof *mem_benches; i++) {
        if (strcmp(argv[1], mem_benches[i].name) != 0)
            continue;
        if (threads != 1 && threads != 1024)
            break;
        int status = mem_benches[i].run(threads, &bad);
        if (status != KRT_OK) {
            fprintf(stderr, "mem_bench: %s: %s: %s\n", argv[1], krt_status_name(status),
                    krt_last_error());
            return 1;
        }
        if (bad) {
            fprintf(stderr, "mem_bench: %s: wrong result with %u threads\n", argv[1], threads);
            return 1;
        }
        if (getrusage(RUSAGE_SELF, &ru) != 0) {
            perror("mem_bench: getrusage");
            return 1;
        }
        printf("MEM %s %u %zu %zu %ld %ld\n", argv[1], threads,
               mem_benches[i].kernel->frame_bytes, mem_benches[i].kernel->shared_bytes,
               ru.ru_maxrss, anon_rss_kib());
        return 0;
    }
    fprintf(stderr, "usage: mem_bench reduce|matmul 1|1024\n");
    return 2;
}
