/*
 * npy.c - libFuzzer target for the .npy reader of `kernc run` (src/npy.c):
 * the input is a file image; it must be parsed or refused with a message,
 * and what is parsed must format back without error.
 *
 * Built by ./configure --enable-fuzz; `make fuzz-smoke` runs it for a
 * minute on fuzz/corpus-npy (generated at build time by fuzz/npy-seeds).
 */
#include "npy.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    NpyArray a = {0};
    char err[NPY_ERR_MAX];
    if (npy_parse(data, size, &a, err, sizeof err) == 0) {
        size_t len = 0;
        void *img = npy_format(&a, &len, err, sizeof err);
        if (!img)
            abort();          /* what was read must be writable */
        free(img);
        npy_free(&a);
    }
    return 0;
}
