/*
 * npy.h - reading and writing NumPy .npy files (format versions 1.0, 2.0 and
 * 3.0), for `kernc run`, which takes kernel inputs as .npy files and writes
 * the arrays back as .npy after the launch.
 *
 * Only what a kernel parameter can hold is accepted: little-endian (or
 * byte-order-free) scalars of the dtypes of kernrt.h (and numba's structured
 * xoroshiro128p state dtype, and records: any other structured dtype of
 * those, nested, with sub-arrays, as KRT_RECORD_DTYPE(itemsize) and its
 * descr), C order, at most KRT_MAX_NDIM dimensions.  Everything else is refused with a message that
 * says what is wrong with the file (bad magic, bad header, truncated data,
 * Fortran order, unsupported dtype), never with a crash.  This module depends
 * on kernrt.h's dtype table only, not on the runtime library.
 */
#ifndef KERNC_NPY_H
#define KERNC_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernrt.h"

/* A host array in C order: what a .npy file holds. */
typedef struct NpyArray {
    krt_dtype dtype;
    int ndim;                         /* 0 (a 0-d array) .. KRT_MAX_NDIM */
    int64_t shape[KRT_MAX_NDIM];
    void *data;                       /* malloc'd; nbytes long (may be NULL if 0) */
    size_t nbytes;
    char *descr;                      /* rec: a record's descr as NumPy writes it
                                         (dtype KRT_RECORD_DTYPE); malloc'd */
} NpyArray;

/* Room for any message these functions write into their err buffer. */
#define NPY_ERR_MAX 512

/* Parse a whole .npy image held in memory.  On success fills *out (with a
 * copy of the data in C order, also of a fortran_order file; bool bytes
 * made 0 or 1 as NumPy reads them) and returns 0; on failure writes a
 * message (without the file name) into err and returns -1. */
int npy_parse(const void *buf, size_t len, NpyArray *out, char *err, size_t errlen);
/* Copy the ndim/shape elements of size bytes each between C order and
 * Fortran order: src in C order into dst in F order (to_fortran), or src
 * in F order into dst in C order. */
void npy_reorder(void *dst, const void *src, int ndim, const int64_t *shape, size_t size,
                 bool to_fortran);

/* Read a .npy file.  Messages start with the path. */
int npy_read(const char *path, NpyArray *out, char *err, size_t errlen);

/* The .npy v1.0 image of an array as NumPy writes it: header padded with
 * spaces to a multiple of 64 bytes, ending in '\n'.  Returns a malloc'd
 * buffer and its length in *len, or NULL (with err) on failure. */
void *npy_format(const NpyArray *a, size_t *len, char *err, size_t errlen);

/* Write an array to path, through a temporary file renamed into place, so
 * that a failed write leaves no partial file. */
int npy_write(const char *path, const NpyArray *a, char *err, size_t errlen);

/* The NumPy descr of a dtype ("<f4"), NULL for an invalid one. */
const char *npy_descr(krt_dtype t);

/* npyprint.c: the text NumPy's str() gives the array with its default
 * print options (line width 75; more than 1000 elements summarised with
 * "...", unless whole), without a final newline.  malloc'd; NULL when out
 * of memory. */
char *npy_str(const NpyArray *a, bool whole);

/* Release the data of an array (a zeroed array is fine). */
void npy_free(NpyArray *a);

/* run_complex.c: Python's repr of a complex (f32: of complex64 parts),
 * for kernc run's printing of scalars and arrays. */
void run_complex_repr(char *out, size_t n, double re, double im, bool f32);

#endif /* KERNC_NPY_H */
