/* tests/modules.sh: four modules in one program: a/kernels.kern and
 * b/kernels.kern (one base name, kernels of their own names), and
 * a/same.kern and b/same.kern (the same kernel and ufunc names), built with
 * --module-name ma and mb.  Prints one line per check, "ok" or "not ok". */
#include <kernrt.h>
#include <stdio.h>

#include "a_kernels.kern.h"
#include "b_kernels.kern.h"
#include "ma.kern.h"
#include "mb.kern.h"

static int failed;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok" : "not ok", what);
    failed |= !ok;
}

static int run(float *out, int which)
{
    float h[4] = {1, 2, 3, 4};
    krt_array d, r;
    KRT_TRY(krt_to_device(&d, h, KRT_FLOAT32, 1, KRT_SHAPE(4), NULL));
    KRT_TRY(krt_alloc(&r, KRT_FLOAT32, 1, KRT_SHAPE(4)));
    krt_launch_cfg cfg = krt_grid1(1, 4);
    switch (which) {
    case 0: KRT_TRY(scale(cfg, d)); break;
    case 1: KRT_TRY(shift(cfg, d)); break;
    case 2: KRT_TRY(ma_work(cfg, d)); break;
    case 3: KRT_TRY(mb_work(cfg, d)); break;
    case 4: KRT_TRY(ma_op_f4(d, r, NULL)); break;
    case 5: KRT_TRY(mb_op_f4(d, r, NULL)); break;
    }
    KRT_TRY(krt_copy_to_host(out, which >= 4 ? r : d, NULL));
    krt_free(d);
    krt_free(r);
    return KRT_OK;
}

int main(void)
{
    float o[4];
    check(run(o, 0) == KRT_OK && o[3] == 8, "a/kernels.kern: scale");
    check(run(o, 1) == KRT_OK && o[3] == 5, "b/kernels.kern: shift");
    check(run(o, 2) == KRT_OK && o[3] == 40, "a/same.kern --module-name ma: ma_work");
    check(run(o, 3) == KRT_OK && o[3] == 1, "b/same.kern --module-name mb: mb_work");
    check(run(o, 4) == KRT_OK && o[3] == 104, "a/same.kern: the ufunc ma_op_f4");
    check(run(o, 5) == KRT_OK && o[3] == 4000, "b/same.kern: the ufunc mb_op_f4");
    check(krt_module_ma.nkernels >= 1 && krt_module_mb.nkernels >= 1 &&
              krt_module_ma.kernels[0] == &ma_work__kernel &&
              krt_module_mb.kernels[0] == &mb_work__kernel,
          "krt_module_ma and krt_module_mb hold their own kernels");
    check(krt_module_kernels.nkernels == 1 && krt_module_kernels.kernels[0] == &scale__kernel,
          "krt_module_kernels: the first header's (a/kernels.kern)");
    check(krt_ufuncs_ma.nufuncs == 1 && krt_ufuncs_mb.nufuncs == 1, "the ufunc tables");
    return failed;
}
