/*
 * status.c - statuses, their names and texts, dtypes and launch helpers:
 * the parts of libkernrt that need no backend.
 *
 * Every status in KRT_STATUS_MAP must have a distinct negative value, a
 * "KRT_E<NAME>" name and the map's message; codes outside the map get the
 * fallback text.  The expected names are spelled out here rather than taken
 * from the same macro, so a typo in the runtime's table shows.
 */
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

static const struct {
    int code;
    const char *name;
    const char *text;
} statuses[] = {
    {KRT_OK, "KRT_OK", "success"},
    {KRT_EINVAL, "KRT_EINVAL", "invalid argument"},
    {KRT_ENOMEM, "KRT_ENOMEM", "out of memory"},
    {KRT_ENULLARRAY, "KRT_ENULLARRAY", "array is null or was freed"},
    {KRT_EDTYPE, "KRT_EDTYPE", "array has the wrong dtype"},
    {KRT_ENDIM, "KRT_ENDIM", "array has the wrong number of dimensions"},
    {KRT_ELAYOUT, "KRT_ELAYOUT", "array is not C-contiguous"},
    {KRT_ESHAPE, "KRT_ESHAPE", "array shapes do not match"},
    {KRT_ELAUNCH, "KRT_ELAUNCH", "invalid launch configuration"},
    {KRT_EBLOCKSIZE, "KRT_EBLOCKSIZE",
     "too many threads per block (at most 1024)"},
    {KRT_ESHARED, "KRT_ESHARED", "too much shared memory for one block"},
    {KRT_ENOBACKEND, "KRT_ENOBACKEND", "backend not available"},
    {KRT_ENODEVICE, "KRT_ENODEVICE", "no CUDA device"},
    {KRT_ENOCODE, "KRT_ENOCODE", "kernel was not compiled for this backend"},
    {KRT_ECUDA, "KRT_ECUDA", "CUDA error"},
    {KRT_EKERNEL, "KRT_EKERNEL", "error raised inside a kernel"},
    {KRT_EIO, "KRT_EIO", "input/output error"},
    {KRT_EBACKENDMIX, "KRT_EBACKENDMIX", "array belongs to another backend"},
    {KRT_EINTERNAL, "KRT_EINTERNAL", "internal error"},
    {KRT_ENOTREADY, "KRT_ENOTREADY", "work is still pending"},
    {KRT_ECOOPERATIVE, "KRT_ECOOPERATIVE",
     "grid too large for a cooperative launch"},
    {KRT_EDEVICE, "KRT_EDEVICE",
     "array, stream or event belongs to another device"},
    {KRT_EBOUNDS, "KRT_EBOUNDS", "outside the buffer or array"},
    {KRT_EEXCEPTION, "KRT_EEXCEPTION", "exception raised in a kernel"},   /* dev, issue 9 */
};
#define NSTATUS (sizeof statuses / sizeof statuses[0])

static const struct {
    krt_dtype t;
    size_t size;
    const char *name;
} dtypes[] = {
    {KRT_BOOL, 1, "bool"},       {KRT_INT8, 1, "int8"},
    {KRT_INT16, 2, "int16"},     {KRT_INT32, 4, "int32"},
    {KRT_INT64, 8, "int64"},     {KRT_UINT8, 1, "uint8"},
    {KRT_UINT16, 2, "uint16"},   {KRT_UINT32, 4, "uint32"},
    {KRT_UINT64, 8, "uint64"},   {KRT_FLOAT32, 4, "float32"},
    {KRT_FLOAT64, 8, "float64"}, {KRT_XOROSHIRO128P, 16, "xoroshiro128p"},
    {KRT_FLOAT16, 2, "float16"},
    {KRT_COMPLEX64, 8, "complex64"}, {KRT_COMPLEX128, 16, "complex128"},
    {KRT_BFLOAT16, 2, "bfloat16"},
};
#define NDTYPE (sizeof dtypes / sizeof dtypes[0])

int main(void)
{
    size_t i, j;
    int distinct = 1;
    krt_launch_cfg cfg;

    plan(2 + 3 * NSTATUS + 1 + 4 + 2 * NDTYPE + 4 + 5);

    is_int(KRT_STATUS_COUNT_, (long long)NSTATUS,
           "every status of KRT_STATUS_MAP is tested");
    is_string("no error", krt_last_error(),
              "krt_last_error before any failure");

    for (i = 0; i < NSTATUS; i++) {
        is_int(-(int)i, statuses[i].code, "%s is %d", statuses[i].name,
               -(int)i);
        is_string(statuses[i].name, krt_status_name(statuses[i].code),
                  "krt_status_name(%s)", statuses[i].name);
        is_string(statuses[i].text, krt_strerror(statuses[i].code),
                  "krt_strerror(%s)", statuses[i].name);
        for (j = 0; j < i; j++)
            if (statuses[j].code == statuses[i].code)
                distinct = 0;
    }
    ok(distinct, "status codes are distinct");

    is_string("unknown status", krt_strerror(1), "krt_strerror(1)");
    is_string("unknown status", krt_strerror(-KRT_STATUS_COUNT_),
              "krt_strerror past the last code");
    is_string("KRT_E?", krt_status_name(-1000), "krt_status_name(-1000)");
    is_string("KRT_E?", krt_status_name(7), "krt_status_name(7)");

    for (i = 0; i < NDTYPE; i++) {
        is_int((long long)dtypes[i].size, (long long)krt_dtype_size(dtypes[i].t),
               "krt_dtype_size(%s)", dtypes[i].name);
        is_string(dtypes[i].name, krt_dtype_name(dtypes[i].t),
                  "krt_dtype_name(%s)", dtypes[i].name);
    }
    is_int(0, (long long)krt_dtype_size(KRT_DTYPE_COUNT),
           "krt_dtype_size of an invalid dtype");
    is_int(0, (long long)krt_dtype_size((krt_dtype)-1),
           "krt_dtype_size of a negative dtype");
    is_string("?", krt_dtype_name(KRT_DTYPE_COUNT),
              "krt_dtype_name of an invalid dtype");
    /* the codes below KRT_DTYPE_COUNT that a row has (the others: size 0) */
    j = 0;
    for (i = 0; i < (size_t)KRT_DTYPE_COUNT; i++)
        j += krt_dtype_size((krt_dtype)i) != 0;
    is_int((long long)NDTYPE, (long long)j, "every dtype is tested");

    cfg = krt_grid1(10, 256);
    ok(cfg.grid.x == 10 && cfg.grid.y == 1 && cfg.grid.z == 1 &&
           cfg.block.x == 256 && cfg.block.y == 1 && cfg.block.z == 1 &&
           cfg.shared_bytes == 0 && cfg.stream == NULL,
       "krt_grid1");
    cfg = krt_grid2(3, 4, 16, 8);
    ok(cfg.grid.x == 3 && cfg.grid.y == 4 && cfg.grid.z == 1 &&
           cfg.block.x == 16 && cfg.block.y == 8 && cfg.block.z == 1,
       "krt_grid2");
    cfg = krt_grid3(2, 3, 4, 5, 6, 7);
    ok(cfg.grid.x == 2 && cfg.grid.y == 3 && cfg.grid.z == 4 &&
           cfg.block.x == 5 && cfg.block.y == 6 && cfg.block.z == 7 &&
           cfg.shared_bytes == 0,
       "krt_grid3");
    cfg = krt_with_shared(cfg, 4096);
    is_int(4096, (long long)cfg.shared_bytes, "krt_with_shared sets bytes");
    ok(cfg.grid.z == 4 && cfg.block.z == 7,
       "krt_with_shared keeps the dimensions");
    return 0;
}
