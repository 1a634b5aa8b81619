/*
 * gpu_hypot.c - host program for gpu_hypot.kern (@vectorize): a (rows, cols)
 * float32 array against a row of cols values, which broadcasts down the
 * rows, then float64 with a host scalar.
 */
#include <math.h>
#include <stdio.h>

#include <kernrt.h>
#include "gpu_hypot.kern.h"

#define ROWS 300
#define COLS 200

static float x[ROWS][COLS], y[COLS], out[ROWS][COLS];
static double xd[COLS], outd[COLS];

static int run(int *bad)
{
    krt_array dx, dy, dout, dxd, doutd, three;
    double three_value = 3.0;

    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            x[i][j] = (float)(i - j) * 0.5f;
    for (int j = 0; j < COLS; j++) {
        y[j] = (float)j * 0.25f;
        xd[j] = j * 1.5;
    }
    KRT_TRY(krt_to_device(&dx, x, KRT_FLOAT32, 2, (int64_t[]){ROWS, COLS}, NULL));
    KRT_TRY(krt_to_device(&dy, y, KRT_FLOAT32, 1, (int64_t[]){COLS}, NULL));
    KRT_TRY(krt_alloc(&dout, KRT_FLOAT32, 2, (int64_t[]){ROWS, COLS}));
    KRT_TRY(gpu_hypot_f4(dx, dy, dout, NULL));
    KRT_TRY(krt_copy_to_host(out, dout, NULL));
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            if (out[i][j] != sqrtf(x[i][j] * x[i][j] + y[j] * y[j])) {
                if (++*bad < 5)
                    fprintf(stderr, "gpu_hypot: out[%d][%d] = %g\n", i, j, out[i][j]);
            }

    /* float64, with a host scalar for y */
    KRT_TRY(krt_to_device(&dxd, xd, KRT_FLOAT64, 1, (int64_t[]){COLS}, NULL));
    KRT_TRY(krt_alloc(&doutd, KRT_FLOAT64, 1, (int64_t[]){COLS}));
    KRT_TRY(krt_host_scalar(&three, KRT_FLOAT64, &three_value));
    KRT_TRY(gpu_hypot_f8(dxd, three, doutd, NULL));
    KRT_TRY(krt_copy_to_host(outd, doutd, NULL));
    for (int j = 0; j < COLS; j++)
        if (outd[j] != sqrt(xd[j] * xd[j] + 9.0))
            ++*bad;
    KRT_TRY(krt_free(dx));
    KRT_TRY(krt_free(dy));
    KRT_TRY(krt_free(dout));
    KRT_TRY(krt_free(dxd));
    KRT_TRY(krt_free(doutd));
    return KRT_OK;
}

int main(void)
{
    int bad = 0, status = run(&bad);

    if (status != KRT_OK) {
        fprintf(stderr, "gpu_hypot: %s: %s\n", krt_status_name(status), krt_last_error());
        return 1;
    }
    printf("gpu_hypot: %s (%s backend)\n", bad ? "FAILED" : "ok", krt_backend_name());
    return bad != 0;
}
