/*
 * coop.c - krt_forall and cooperative launches on the CPU backend: the
 * configurations forall picks, the co-resident limit (65535 blocks, fewer
 * when each block's shared and frame memory is large), a cooperative
 * launch that fits runs every block once, and one that does not fit is
 * refused with KRT_ECOOPERATIVE before anything runs.
 */
#include <stdatomic.h>
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

static _Atomic int runs;

static void count_cpu(const krt_cpu_block *b, void **args)
{
    (void)b;
    (void)args;
    atomic_fetch_add(&runs, 1);
}

static const krt_kernel count_k = {"count", "coop.kern", 0, NULL, count_cpu,
                                   NULL, 0, 0, 0, NULL};
/* 1000 bytes of static shared memory and 4 KiB per thread. */
static const krt_kernel heavy_k = {"heavy", "coop.kern", 0, NULL, count_cpu,
                                   NULL, 1000, 4096, 0, NULL};
static const krt_kernel gpu_k = {"gpu_only", "coop.kern", 0, NULL, NULL,
                                 NULL, 0, 0, 0, NULL};

int main(void)
{
    krt_launch_cfg cfg;
    krt_dim3 b256 = {256, 1, 1}, b2048 = {2048, 1, 1};
    unsigned max = 0, heavy = 0;

    krt_set_backend("cpu");
    plan(23);

    is_status(KRT_OK, krt_forall(&cfg, &count_k, 1000), "forall(1000)");
    ok(cfg.block.x == 256 && cfg.grid.x == 4 && cfg.grid.y == 1 &&
           cfg.block.y == 1 && cfg.stream == NULL && cfg.shared_bytes == 0,
       "256 threads in 4 blocks");
    is_status(KRT_OK, krt_forall(&cfg, &count_k, 10), "forall(10)");
    ok(cfg.block.x == 32 && cfg.grid.x == 1, "one warp for 10 threads");
    is_status(KRT_OK, krt_forall(&cfg, &count_k, 257), "forall(257)");
    ok(cfg.block.x == 256 && cfg.grid.x == 2, "two blocks for 257 threads");
    is_status(KRT_EINVAL, krt_forall(&cfg, &count_k, 0), "forall(0)");
    is_status(KRT_EINVAL, krt_forall(&cfg, &count_k, -5), "forall(-5)");
    is_status(KRT_EINVAL, krt_forall(&cfg, NULL, 10), "forall of NULL");
    is_status(KRT_ENOCODE, krt_forall(&cfg, &gpu_k, 10),
              "forall of a kernel without CPU code");
    runs = 0;
    krt_forall(&cfg, &count_k, 100000);
    is_status(KRT_OK, krt_launch(&count_k, cfg, NULL), "launch forall");
    is_int(cfg.grid.x, runs, "every block ran");

    is_status(KRT_OK, krt_max_cooperative_grid(&max, &count_k, b256, 0),
              "krt_max_cooperative_grid");
    is_int(65535, max, "65535 blocks of a light kernel");
    is_status(KRT_OK, krt_max_cooperative_grid(&heavy, &heavy_k, b256, 1024),
              "the limit of a heavy kernel");
    ok(heavy > 0 && heavy < max && (unsigned long long)heavy * 256 * 4096 <=
                                       (1ull << 30),
       "fewer blocks when each keeps 1 MiB alive (%u)", heavy);
    is_status(KRT_EBLOCKSIZE, krt_max_cooperative_grid(&max, &count_k, b2048,
                                                       0),
              "a block of 2048 threads");
    is_status(KRT_ESHARED, krt_max_cooperative_grid(&max, &heavy_k, b256,
                                                    48 * 1024),
              "too much shared memory");

    runs = 0;
    is_status(KRT_OK, krt_launch_cooperative(&count_k, krt_grid1(500, 64),
                                             NULL),
              "a cooperative launch that fits");
    is_int(500, runs, "every block ran once");
    runs = 0;
    is_status(KRT_ECOOPERATIVE,
              krt_launch_cooperative(
                  &heavy_k, krt_with_shared(krt_grid1(heavy + 1, 256), 1024),
                  NULL),
              "one block too many");
    ok(strstr(krt_last_error(), "heavy") != NULL &&
           strstr(krt_last_error(), "resident") != NULL,
       "message: %s", krt_last_error());
    is_int(0, runs, "nothing ran");
    return 0;
}
