/*
 * npy-seeds.c - writes the seed corpus of the .npy fuzz target: one .npy
 * image per dtype kernrt.h knows, in 0 to 3 dimensions, as npy_format
 * writes them (so the seeds are what NumPy writes), into the directory
 * given as the only argument.
 */
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t dtype_size[] = {
#define SIZE_(e, ct, sz, descr) sz,
    KRT_DTYPE_MAP(SIZE_)
#undef SIZE_
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: npy-seeds DIR\n");
        return 2;
    }
    int n = 0;
    for (int t = 0; t < KRT_DTYPE_COUNT; t++) {
        for (int ndim = 0; ndim <= 3; ndim++) {
            NpyArray a = {0};
            char err[NPY_ERR_MAX], path[4096];
            size_t len = 0;
            if (!npy_descr((krt_dtype)t))
                continue;
            a.dtype = (krt_dtype)t;
            a.ndim = ndim;
            a.nbytes = dtype_size[t];
            for (int d = 0; d < ndim; d++) {
                a.shape[d] = d + 2;
                a.nbytes *= (size_t)(d + 2);
            }
            a.data = calloc(1, a.nbytes);
            if (!a.data)
                return 1;
            memset(a.data, 0x01, a.nbytes);
            void *img = npy_format(&a, &len, err, sizeof err);
            free(a.data);
            if (!img) {
                fprintf(stderr, "npy-seeds: %s\n", err);
                return 1;
            }
            snprintf(path, sizeof path, "%s/dtype%d-%dd.npy", argv[1], t, ndim);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(img, 1, len, f) != len || fclose(f) != 0) {
                fprintf(stderr, "npy-seeds: cannot write %s\n", path);
                return 1;
            }
            free(img);
            n++;
        }
    }
    return n > 0 ? 0 : 1;
}
