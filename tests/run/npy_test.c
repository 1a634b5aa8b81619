/*
 * npy_test.c - unit tests of src/npy.c (TAP): a round trip of every dtype,
 * the exact bytes NumPy writes (header layout and 64-byte alignment), the
 * other format versions, and a precise error for every kind of bad file.
 * Built with src/npy.c and tests/tap/basic.c; needs no libkernrt.
 */
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "tap/basic.h"

/* np.save(f, np.arange(3, dtype=np.float32)) with NumPy 1.24, the header
 * as text (the data follows). */
static const char numpy_f4_header[] =
    "\x93NUMPY\x01\x00v\x00"
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
    "                              "
    "                              "
    "\n";

static const size_t dtype_size[KRT_DTYPE_COUNT] = {
#define SIZE_(e, ct, sz, descr) [KRT_##e] = sz,
    KRT_DTYPE_MAP(SIZE_)
#undef SIZE_
};

/* A .npy image with the given header dict (v1.0) followed by len bytes. */
static size_t image(unsigned char *buf, const char *dict, const void *data, size_t len)
{
    size_t hlen = strlen(dict);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, hlen);
    memcpy(buf + 10 + hlen, data, len);
    return 10 + hlen + len;
}

/* Parse an image that must fail; check the message contains want. */
static void parse_fails(const void *buf, size_t len, const char *want, const char *what)
{
    NpyArray a;
    char err[NPY_ERR_MAX] = "";
    int rc = npy_parse(buf, len, &a, err, sizeof err);
    if (!ok(rc == -1 && strstr(err, want) != NULL, "%s", what))
        diag("got rc %d, message '%s', wanted '%s'", rc, err, want);
    if (rc == 0)
        npy_free(&a);
}

static void dict_fails(const char *dict, const char *want, const char *what)
{
    unsigned char buf[1024];
    static const unsigned char data[64];
    parse_fails(buf, image(buf, dict, data, sizeof data), want, what);
}

/* rec: a structured descr other than the states' is a record: its dtype
 * KRT_RECORD_DTYPE(itemsize), its descr in NumPy's spelling. */
static void dict_record(const char *dict, size_t itemsize, const char *descr, const char *what)
{
    unsigned char buf[1024];
    static const unsigned char data[256];   /* two records of up to 128 bytes */
    char err[NPY_ERR_MAX];
    NpyArray a;
    if (2 * itemsize > sizeof data)
        bail("dict_record: itemsize %zu is over %zu", itemsize, sizeof data / 2);
    int rc = npy_parse(buf, image(buf, dict, data, 2 * itemsize), &a, err, sizeof err);
    ok(rc == 0 && a.dtype == KRT_RECORD_DTYPE(itemsize) && a.descr &&
           strcmp(a.descr, descr) == 0 && a.nbytes == 2 * itemsize,
       "%s", what);
    if (rc != 0)
        diag("%s", err);
    else
        npy_free(&a);
}

/* issue 9: a fortran_order file is read into C order */
static void test_fortran(void)
{
    unsigned char buf[1024];
    static const int32_t f[6] = {0, 3, 1, 4, 2, 5};   /* [[0, 1, 2], [3, 4, 5]] in F order */
    char err[NPY_ERR_MAX];
    NpyArray a;
    int rc = npy_parse(buf, image(buf, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }\n",
                                  f, sizeof f), &a, err, sizeof err);
    bool good = rc == 0 && a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3 && a.nbytes == 24;
    for (int i = 0; good && i < 6; i++)
        good = ((const int32_t *)a.data)[i] == i;
    ok(good, "a fortran_order file is read into C order");
    if (rc != 0)
        diag("%s", err);
    else
        npy_free(&a);
    int32_t back[6];
    npy_reorder(back, (const int32_t[]){0, 1, 2, 3, 4, 5}, 2, (const int64_t[]){2, 3}, 4, true);
    ok(memcmp(back, f, sizeof f) == 0, "npy_reorder: C order to F order");
}

static void test_round_trip(void)
{
    static const int64_t shapes[][3] = {{7, 0, 0}, {3, 5, 0}, {2, 3, 4}};
    static const int ndims[] = {1, 2, 3};
    for (int t = 0; t < KRT_DTYPE_COUNT; t++) {
        if (dtype_size[t] == 0)   /* a code no row has yet */
            continue;
        for (int s = 0; s < 3; s++) {
            NpyArray a = {(krt_dtype)t, ndims[s], {0}, NULL, 0, NULL};
            int64_t n = 1;
            for (int d = 0; d < a.ndim; d++)
                n *= a.shape[d] = shapes[s][d];
            size_t size = dtype_size[t];
            a.nbytes = (size_t)n * size;
            a.data = malloc(a.nbytes);
            for (size_t i = 0; i < a.nbytes; i++)
                ((unsigned char *)a.data)[i] = (unsigned char)(i * 37 + (size_t)t);
            if (t == KRT_BOOL)
                for (size_t i = 0; i < a.nbytes; i++)
                    ((unsigned char *)a.data)[i] &= 1;

            size_t len;
            char err[NPY_ERR_MAX];
            unsigned char *img = npy_format(&a, &len, err, sizeof err);
            size_t header = len - a.nbytes;
            NpyArray b;
            int rc = img ? npy_parse(img, len, &b, err, sizeof err) : -1;
            ok(img != NULL && header % 64 == 0 && img[header - 1] == '\n' &&
                   img[8] + 256 * img[9] == (int)header - 10,
               "%s ndim %d: header is 64-byte aligned and ends in a newline",
               npy_descr(a.dtype), a.ndim);
            ok(rc == 0 && b.dtype == a.dtype && b.ndim == a.ndim &&
                   memcmp(b.shape, a.shape, sizeof(int64_t) * (size_t)a.ndim) == 0 &&
                   b.nbytes == a.nbytes && memcmp(a.data, b.data, a.nbytes) == 0,
               "%s ndim %d: round trip keeps dtype, shape and data", npy_descr(a.dtype),
               a.ndim);
            if (rc == 0)
                npy_free(&b);
            free(img);
            npy_free(&a);
        }
    }
}

static void test_numpy_bytes(void)
{
    float v[3] = {0, 1, 2};
    NpyArray a = {KRT_FLOAT32, 1, {3}, v, sizeof v, NULL};
    size_t len;
    char err[NPY_ERR_MAX];
    unsigned char *img = npy_format(&a, &len, err, sizeof err);
    size_t hlen = sizeof numpy_f4_header - 1;
    is_int(128, (long long)hlen, "the NumPy reference header is 128 bytes");
    ok(img != NULL && len == hlen + sizeof v && memcmp(img, numpy_f4_header, hlen) == 0 &&
           memcmp(img + hlen, v, sizeof v) == 0,
       "float32 (3,) is written byte for byte as numpy.save writes it");
    free(img);

    /* A 0-d array and an empty one, as NumPy writes them. */
    double x = 4.5;
    NpyArray z = {KRT_FLOAT64, 0, {0}, &x, sizeof x, NULL};
    img = npy_format(&z, &len, err, sizeof err);
    ok(img != NULL && strstr((char *)img + 10, "'shape': (), }") != NULL && (len - 8) % 64 == 0,
       "0-d array: shape () and no growth padding");
    NpyArray back;
    ok(img != NULL && npy_parse(img, len, &back, err, sizeof err) == 0 && back.ndim == 0 &&
           back.nbytes == 8 && memcmp(back.data, &x, 8) == 0,
       "0-d array reads back");
    npy_free(&back);
    free(img);
    NpyArray e = {KRT_INT32, 2, {0, 5}, NULL, 0, NULL};
    img = npy_format(&e, &len, err, sizeof err);
    ok(img != NULL && npy_parse(img, len, &back, err, sizeof err) == 0 && back.ndim == 2 &&
           back.shape[0] == 0 && back.shape[1] == 5 && back.nbytes == 0,
       "empty (0, 5) array reads back");
    npy_free(&back);
    free(img);
}

/* numba's xoroshiro128p_dtype is structured in NumPy: the descr is a list. */
static void test_structured(void)
{
    static const char numpy_states[] =
        "\x93NUMPY\x01\x00v\x00"
        "{'descr': [('s0', '<u8'), ('s1', '<u8')], 'fortran_order': False, 'shape': (2,), }"
        "                                   \n";
    uint64_t words[4] = {1, 2, 3, 0xfedcba9876543210u};
    NpyArray a = {KRT_XOROSHIRO128P, 1, {2}, words, sizeof words, NULL};
    size_t len;
    char err[NPY_ERR_MAX];
    unsigned char *img = npy_format(&a, &len, err, sizeof err);
    size_t hlen = sizeof numpy_states - 1;
    ok(img != NULL && hlen == 128 && len == hlen + sizeof words &&
           memcmp(img, numpy_states, hlen) == 0,
       "xoroshiro128p states are written with NumPy's structured descr");
    NpyArray b;
    int rc = img ? npy_parse(img, len, &b, err, sizeof err) : -1;
    ok(rc == 0 && b.dtype == KRT_XOROSHIRO128P && b.nbytes == sizeof words &&
           memcmp(b.data, words, sizeof words) == 0,
       "and read back as KRT_XOROSHIRO128P");
    if (rc == 0)
        npy_free(&b);
    free(img);

    unsigned char buf[256];
    size_t n = image(buf, "{'descr': [(\"s0\", \"<u8\"), (\"s1\", \"<u8\"),], "
                          "'fortran_order': False, 'shape': (1,)}\n", words, 16);
    rc = npy_parse(buf, n, &b, err, sizeof err);
    ok(rc == 0 && b.dtype == KRT_XOROSHIRO128P, "structured descr in other quotes, trailing comma");
    if (rc == 0)
        npy_free(&b);
    n = image(buf, "{'descr': '|V16', 'fortran_order': False, 'shape': (1,)}\n", words, 16);
    rc = npy_parse(buf, n, &b, err, sizeof err);
    ok(rc == 0 && b.dtype == KRT_XOROSHIRO128P, "raw void '|V16' is read as states");
    if (rc == 0)
        npy_free(&b);
    dict_record("{'descr': [('s0', '<u4'), ('s1', '<u4')], 'fortran_order': False, 'shape': (2,)}\n",
                8, "[('s0', '<u4'), ('s1', '<u4')]", "other structured dtypes are records");
    dict_record("{'descr': [('s0', '<u8', (2,))], 'fortran_order': False, 'shape': (2,)}\n",
                16, "[('s0', '<u8', (2,))]", "sub-array fields");
    dict_record("{'descr': [(\"a\", \"|i1\"), ('', '|V3'), ('n', [('x', '<f4'), ('y', '<i2', (2, 1))])],"
                " 'fortran_order': False, 'shape': (2,)}\n", 12,
                "[('a', '|i1'), ('', '|V3'), ('n', [('x', '<f4'), ('y', '<i2', (2, 1))])]",
                "nested records, padding, 2-D sub-arrays");
}

static void test_versions(void)
{
    int16_t v[2] = {-7, 300};
    const char *dict = "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i2\"}  \n";
    unsigned char buf[256];
    NpyArray a;
    char err[NPY_ERR_MAX];
    for (int version = 2; version <= 3; version++) {
        size_t hlen = strlen(dict);
        memcpy(buf, "\x93NUMPY", 6);
        buf[6] = (unsigned char)version;
        buf[7] = 0;
        buf[8] = (unsigned char)hlen;
        buf[9] = buf[10] = buf[11] = 0;
        memcpy(buf + 12, dict, hlen);
        memcpy(buf + 12 + hlen, v, sizeof v);
        int rc = npy_parse(buf, 12 + hlen + sizeof v, &a, err, sizeof err);
        ok(rc == 0 && a.dtype == KRT_INT16 && a.ndim == 1 && a.shape[0] == 2 &&
               memcmp(a.data, v, sizeof v) == 0,
           "version %d.0, keys in another order, double quotes", version);
        if (rc == 0)
            npy_free(&a);
        else
            diag("%s", err);
    }
    size_t n = image(buf, "{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 1L), }\n",
                     "\x01\x02", 2);
    int rc = npy_parse(buf, n, &a, err, sizeof err);
    ok(rc == 0 && a.dtype == KRT_UINT8 && a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 1,
       "Python 2 long suffixes in the shape");
    if (rc == 0)
        npy_free(&a);
    n = image(buf, "{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }\n",
              "\0\0\0\0\0\0\xf0\x3f", 8);
    rc = npy_parse(buf, n, &a, err, sizeof err);
    ok(rc == 0 && a.dtype == KRT_FLOAT64 && *(double *)a.data == 1.0, "native byte order '='");
    if (rc == 0)
        npy_free(&a);
    n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n",
              "\0\0\x80\x3f\x99\x99", 6);
    rc = npy_parse(buf, n, &a, err, sizeof err);
    ok(rc == 0 && *(float *)a.data == 1.0f, "trailing bytes after the data are ignored, as NumPy does");
    if (rc == 0)
        npy_free(&a);
}

static void test_errors(void)
{
    unsigned char buf[256];
    parse_fails("hello world", 11, "bad magic", "bad magic");
    parse_fails("", 0, "bad magic", "empty file");
    parse_fails("\x93NUMPY", 6, "truncated header", "file ends after the magic");
    parse_fails("\x93NUMPY\x01\x00\x10", 9, "truncated header", "file ends in the header length");
    parse_fails("\x93NUMPY\x04\x00\x10\x00", 10, "unsupported .npy format version 4.0",
                "unknown version");
    memcpy(buf, numpy_f4_header, 100);
    parse_fails(buf, 100, "truncated header: it should be 118 bytes, the file holds 90",
                "header cut short");
    memcpy(buf, numpy_f4_header, 128);
    memcpy(buf + 128, "\0\0\0\0\0\0\x80\x3f", 8);
    parse_fails(buf, 136, "truncated data: the header promises 12 bytes (3 elements of float32), "
                          "the file holds 8",
                "data cut short");

    dict_fails("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n",
               "big-endian data ('>f4') is not supported", "big-endian refused");
    dict_fails("{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }\n",
               "unsupported dtype '<f16'", "long double refused");
    dict_fails("{'descr': '<c32', 'fortran_order': False, 'shape': (2,), }\n",
               "unsupported dtype '<c32'", "complex256 refused");
    dict_fails("{'descr': [('a', '|O')], 'fortran_order': False, 'shape': (2,), }\n",
               "unsupported field format '|O' of field 'a'", "object fields refused");
    dict_fails("{'descr': [('a', '>i4')], 'fortran_order': False, 'shape': (2,), }\n",
               "unsupported field format '>i4'", "big-endian fields refused");
    dict_fails("{'descr': '<V16', 'fortran_order': False, 'shape': (2,), }\n",
               "unsupported dtype '<V16'", "void dtype with a byte order refused");
    dict_fails("{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }\n",
               "no byte-order character", "descr without byte order");
    dict_fails("{'descr': '<f4', 'fortran_order': False, }\n", "bad header: no 'shape' key",
               "missing key");
    dict_fails("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n",
               "bad header: duplicate key at offset 17", "duplicate key");
    dict_fails("{'descr': '<f4', 'colour': 1, 'fortran_order': False, 'shape': (2,)}\n",
               "bad header: unexpected key at offset 17", "unknown key");
    dict_fails("{'descr': '<f4', 'fortran_order': False, 'shape': (2,) \n",
               "bad header: expected ',' or '}' at end of header", "unclosed dict");
    dict_fails("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}\n",
               "bad header: expected True or False at offset 34 (near 'Maybe, 'shap')", "bad boolean");
    dict_fails("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}\n",
               "bad header: expected a non-negative integer at offset 54 (near '-1)}')", "negative dimension");
    dict_fails("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}\n",
               "bad header: expected a tuple for 'shape'", "shape is a list");
    dict_fails("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1)}\n",
               "more than 4 dimensions", "too many dimensions");
    dict_fails("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, "
               "99999999999)}\n",
               "the shape is too large", "shape overflows");
    dict_fails("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x\n",
               "unexpected text after the dict", "junk after the dict");
    dict_fails("{'descr': '<f4\n", "unsupported character in string", "string broken by newline");
    dict_fails("garbage", "bad header: expected '{' at offset 0", "not a dict");
    size_t n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", "", 0);
    buf[20] = 0xc3;
    parse_fails(buf, n, "bad header: unexpected byte 0xc3 at offset 10", "non-ASCII header byte");
}

static void test_files(void)
{
    char dir[] = "/tmp/npy_test_XXXXXX";
    if (mkdtemp(dir) == NULL)
        sysbail("mkdtemp");
    char path[128], err[NPY_ERR_MAX];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    uint32_t v[4] = {1, 2, 3, 0xffffffffu};
    NpyArray a = {KRT_UINT32, 2, {2, 2}, v, sizeof v, NULL};
    ok(npy_write(path, &a, err, sizeof err) == 0, "npy_write writes a file");
    struct stat st;
    ok(stat(path, &st) == 0 && st.st_size == 128 + 16, "the file is 128 + 16 bytes");
    NpyArray b;
    int rc = npy_read(path, &b, err, sizeof err);
    ok(rc == 0 && b.dtype == KRT_UINT32 && b.ndim == 2 && memcmp(b.data, v, sizeof v) == 0,
       "npy_read reads it back");
    if (rc == 0)
        npy_free(&b);

    char missing[160];
    snprintf(missing, sizeof missing, "%s/nope.npy", dir);
    rc = npy_read(missing, &b, err, sizeof err);
    ok(rc == -1 && strstr(err, "nope.npy: No such file or directory") != NULL,
       "missing file: the message names it");
    snprintf(missing, sizeof missing, "%s/no/such/dir/a.npy", dir);
    rc = npy_write(missing, &a, err, sizeof err);
    ok(rc == -1 && strstr(err, "No such file or directory") != NULL,
       "write into a missing directory fails with a message");

    FILE *f = fopen(path, "wb");
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fclose(f);
    rc = npy_read(path, &b, err, sizeof err);
    ok(rc == -1 && strncmp(err, path, strlen(path)) == 0 && strstr(err, "truncated header"),
       "read errors start with the path");
    unlink(path);
    ok(rmdir(dir) == 0, "no temporary file is left behind");
}

/* npy_str against what NumPy 1.24 prints (str(a)) for the same array. */
static void str_is(krt_dtype t, int ndim, const int64_t *shape, const void *data, bool whole,
                   const char *want, const char *what)
{
    NpyArray a = {0};
    a.dtype = t;
    a.ndim = ndim;
    size_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= (size_t)(a.shape[d] = shape[d]);
    a.nbytes = n * dtype_size[t];
    a.data = (void *)data;
    char *got = npy_str(&a, whole);
    if (!ok(got != NULL && strcmp(got, want) == 0, "npy_str: %s", what))
        diag("got:\n%s\nwanted:\n%s", got ? got : "(null)", want);
    free(got);
}

static void test_str(void)
{
    static float f4[30];
    static double f8[2000];
    static int64_t i8[2000];
    for (int i = 0; i < 30; i++)
        f4[i] = (float)i;
    for (int i = 0; i < 2000; i++) {
        f8[i] = i;
        i8[i] = i;
    }
    str_is(KRT_FLOAT32, 1, (int64_t[]){10}, f4, false, "[0. 1. 2. 3. 4. 5. 6. 7. 8. 9.]",
           "float32 integers: the point kept, zeros trimmed");
    str_is(KRT_FLOAT32, 1, (int64_t[]){30}, f4, false,
           "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n"
           " 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]",
           "rows wrap before column 75 with a hanging indent");
    str_is(KRT_FLOAT64, 1, (int64_t[]){2000}, f8, false,
           "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]",
           "more than 1000 elements: 3 at each end; a ratio over 1000 is scientific");
    str_is(KRT_INT64, 1, (int64_t[]){2000}, i8, false, "[   0    1    2 ... 1997 1998 1999]",
           "integers right-aligned to the widest shown");
    str_is(KRT_INT64, 2, (int64_t[]){2, 1000}, i8, false,
           "[[   0    1    2 ...  997  998  999]\n [1000 1001 1002 ... 1997 1998 1999]]",
           "2-D, summarised along the long axis only");
    str_is(KRT_FLOAT64, 1, (int64_t[]){3}, (double[]){0, 1.5, 2.25}, false, "[0.   1.5  2.25]",
           "floats aligned on the point, padded on the right");
    str_is(KRT_FLOAT64, 2, (int64_t[]){2, 3}, f8, false, "[[0. 1. 2.]\n [3. 4. 5.]]", "2-D");
    str_is(KRT_FLOAT64, 3, (int64_t[]){2, 2, 2}, (double[]){0, 0, 0, 0, 0, 0, 0, 0}, false,
           "[[[0. 0.]\n  [0. 0.]]\n\n [[0. 0.]\n  [0. 0.]]]",
           "3-D: a blank line between the 2-D blocks");
    str_is(KRT_BOOL, 1, (int64_t[]){2}, (uint8_t[]){1, 0}, false, "[ True False]", "booleans");
    str_is(KRT_FLOAT32, 1, (int64_t[]){2}, (float[]){0.1f, 1.0f / 3}, false,
           "[0.1        0.33333334]", "float32: the shortest digits that read back as float32");
    str_is(KRT_FLOAT64, 1, (int64_t[]){3}, (double[]){1, NAN, -INFINITY}, false,
           "[  1.  nan -inf]", "nan and -inf widen the column");
    str_is(KRT_FLOAT64, 1, (int64_t[]){2}, (double[]){1e-5, 1}, false, "[1.e-05 1.e+00]",
           "a value under 1e-4: scientific");
    str_is(KRT_FLOAT64, 1, (int64_t[]){2}, (double[]){1.5e-5, -2}, false,
           "[ 1.5e-05 -2.0e+00]", "scientific: fractions padded with zeros, sign room");
    str_is(KRT_UINT8, 1, (int64_t[]){0}, NULL, false, "[]", "an empty array");
    NpyArray big = {0};
    big.dtype = KRT_INT64;
    big.ndim = 1;
    big.shape[0] = 2000;
    big.data = i8;
    char *whole = npy_str(&big, true);
    ok(whole != NULL && strstr(whole, "...") == NULL && strstr(whole, " 1000 1001 ") != NULL &&
           strncmp(whole, "[   0    1", 10) == 0,
       "npy_str: whole prints every element");
    free(whole);
}

/* str: NumPy's char sequences, '|S<n>' and '<U<n>' (numba's CharSeq and
 * UnicodeCharSeq): their dtypes, NumPy's header, record fields of them,
 * their str(). */
static void test_charseq(void)
{
    static const char numpy_u3[] =
        "\x93NUMPY\x01\x00v\x00"
        "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }"
        "                                                            \n";
    uint32_t u[6] = {'a', 'b', 0, 'x', 0, 0};
    NpyArray a = {KRT_STR_DTYPE(3), 1, {2}, u, sizeof u, NULL};
    size_t len;
    char err[NPY_ERR_MAX];
    unsigned char *img = npy_format(&a, &len, err, sizeof err);
    size_t hlen = sizeof numpy_u3 - 1;
    ok(img != NULL && len == hlen + sizeof u && memcmp(img, numpy_u3, hlen) == 0,
       "'<U3' is written with NumPy's header");
    NpyArray b;
    int rc = img ? npy_parse(img, len, &b, err, sizeof err) : -1;
    ok(rc == 0 && b.dtype == KRT_STR_DTYPE(3) && b.nbytes == sizeof u &&
           memcmp(b.data, u, sizeof u) == 0,
       "and read back as KRT_STR_DTYPE(3)");
    if (rc == 0)
        npy_free(&b);
    free(img);
    unsigned char buf[512];
    static const char s4[12] = "a\0b\0\0\0\0\0'q\0\0";
    size_t n = image(buf, "{'descr': '|S4', 'fortran_order': False, 'shape': (3,)}\n", s4, 12);
    rc = npy_parse(buf, n, &b, err, sizeof err);
    ok(rc == 0 && b.dtype == KRT_BYTES_DTYPE(4) && b.nbytes == 12, "'|S4' is KRT_BYTES_DTYPE(4)");
    char *got = rc == 0 ? npy_str(&b, false) : NULL;
    if (!ok(got && strcmp(got, "[b'a\\x00b' b'' b\"'q\"]") == 0,
            "npy_str of bytes: reprs, trailing NULs dropped"))
        diag("got %s", got ? got : "(null)");
    free(got);
    if (rc == 0)
        npy_free(&b);
    uint32_t e[9] = {'a', 'b', 0, 0xe9, 0, 0, 0, 0, 0};
    NpyArray c = {KRT_STR_DTYPE(3), 1, {3}, e, sizeof e, NULL};
    got = npy_str(&c, false);
    if (!ok(got && strcmp(got, "['ab' '\xc3\xa9' '']") == 0, "npy_str of str"))
        diag("got %s", got ? got : "(null)");
    free(got);
    static uint32_t wide[72];
    for (int i = 0; i < 72; i++)
        wide[i] = 0xe9;
    NpyArray w = {KRT_STR_DTYPE(6), 1, {12}, wide, sizeof wide, NULL};
    got = npy_str(&w, false);
    const char *e6 = "'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9'";
    char want[512];
    snprintf(want, sizeof want, "[%s %s %s %s %s %s %s %s\n %s %s %s %s]", e6, e6, e6, e6, e6, e6,
             e6, e6, e6, e6, e6, e6);
    if (!ok(got && strcmp(got, want) == 0, "npy_str of str: lines wrap by characters, not bytes"))
        diag("got %s", got ? got : "(null)");
    free(got);
    dict_record("{'descr': [('x', '<i4'), ('y', '<U12'), ('z', '|S5')], 'fortran_order': False, "
                "'shape': (2,)}\n", 57, "[('x', '<i4'), ('y', '<U12'), ('z', '|S5')]",
                "record fields of char sequences");
    dict_fails("{'descr': '>U3', 'fortran_order': False, 'shape': (1,)}\n", "big-endian",
               "big-endian '>U3' is refused");
}

int main(void)
{
    plan_lazy();
    test_str();
    test_round_trip();
    test_numpy_bytes();
    test_structured();
    test_charseq();
    test_versions();
    test_errors();
    test_fortran();
    test_files();
    return 0;
}
