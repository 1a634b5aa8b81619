/*
 * npy.c - the NumPy .npy format for `kernc run` (see npy.h).
 *
 * A .npy file is a magic string, a version, a header length, a header that
 * is the repr() of a Python dict {'descr': '<f4', 'fortran_order': False,
 * 'shape': (3,), } padded with spaces, and the raw data.  The header is
 * parsed here by a small recursive-descent reader of exactly the literals
 * NumPy writes (strings, True/False, tuples of integers), not by pattern
 * matching, so keys in any order, either quote style and odd spacing all
 * work, and anything else gets a message naming the offending offset.
 * Files are written byte for byte as NumPy 1.24 writes them (sorted keys,
 * room for the growth axis, 64-byte aligned data), so tools that compare
 * files see no difference.
 */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c assumes a little-endian host"
#endif

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64                  /* NumPy's ARRAY_ALIGN */
#define NPY_GROWTH_DIGITS 21          /* NumPy's GROWTH_AXIS_MAX_DIGITS */

/* One row per dtype, indexed by code: the descr NumPy writes and the
 * element size. */
static const struct {
    const char *descr;
    size_t size;
} npy_types[KRT_DTYPE_COUNT] = {
#define NPY_ROW_(e, stype, size, descr) [KRT_##e] = {descr, size},
    KRT_DTYPE_MAP(NPY_ROW_)
#undef NPY_ROW_
};

static const char *npy_type_name(krt_dtype t)
{
    static const char *const names[KRT_DTYPE_COUNT] = {
#define NPY_NAME_(e, code, numba, numpy, ...) [KRT_##e] = numpy,
        KRT_SCALAR_TYPES(NPY_NAME_)
#undef NPY_NAME_
        [KRT_XOROSHIRO128P] = KRT_XOROSHIRO128P_NAME,
    };
    return names[t];
}

static int npy_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int npy_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err != NULL && errlen > 0)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* str: a char sequence's descr, '|S12' or '<U12' (NumPy's; '=U12' and
 * 'S12' read as well): 1 and *t, 0 if format is none, -1 if big-endian. */
static int npy_charseq(const char *format, krt_dtype *t)
{
    char order = format[0], kind = format[1];
    if ((order != '<' && order != '>' && order != '|' && order != '=') ||
        (kind != 'S' && kind != 'U') || format[2] < '1' || format[2] > '9')
        return 0;
    char *end;
    unsigned long n = strtoul(format + 2, &end, 10);
    if (*end != '\0' || n > (1u << 20))
        return 0;
    if (kind == 'U' && order == '>')
        return -1;
    *t = kind == 'U' ? KRT_STR_DTYPE(n) : KRT_BYTES_DTYPE(n);
    return 1;
}

static size_t npy_charseq_size(krt_dtype t)
{
    return KRT_CHARSEQ_COUNT(t) * KRT_CHARSEQ_UNIT(t);
}

const char *npy_descr(krt_dtype t)
{
    if (KRT_DTYPE_IS_RECORD(t))   /* rec: the NpyArray's own */
        return NULL;
    if (KRT_DTYPE_IS_CHARSEQ(t)) {   /* str: a few at a time (a record's fields) */
        static char bufs[8][32];
        static unsigned next;
        char *b = bufs[next++ % 8];
        snprintf(b, sizeof bufs[0], "%s%zu", ((int)t & 0xff) == KRT_STR ? "<U" : "|S",
                 KRT_CHARSEQ_COUNT(t));
        return b;
    }
    if ((int)t < 0 || t >= KRT_DTYPE_COUNT)
        return NULL;
    return npy_types[t].descr;
}

/* Dtypes that NumPy describes as structured: the descr is then a list, and
 * is written (and recognised) in exactly NumPy's repr of it. */
static const struct {
    krt_dtype dtype;
    const char *repr;
} npy_structured[] = {
    /* numba.cuda.random.xoroshiro128p_dtype */
    {KRT_XOROSHIRO128P, "[('s0', '<u8'), ('s1', '<u8')]"},
};
#define NPY_NSTRUCTURED (sizeof npy_structured / sizeof npy_structured[0])

void npy_free(NpyArray *a)
{
    free(a->data);
    a->data = NULL;
    free(a->descr);
    a->descr = NULL;
    a->nbytes = 0;
}

/* ------------------------------------------------------------------ */
/* Header parsing                                                      */
/* ------------------------------------------------------------------ */

typedef struct NpyHeader {
    const char *s;                    /* header text (not NUL-terminated) */
    size_t len, pos;
    char *err;
    size_t errlen;
} NpyHeader;

static int hdr_fail(NpyHeader *h, const char *what)
{
    if (h->pos >= h->len)
        return npy_fail(h->err, h->errlen, "bad header: %s at end of header", what);
    int near = 0;
    while (near < 12 && h->pos + (size_t)near < h->len &&
           (unsigned char)h->s[h->pos + (size_t)near] >= ' ')
        near++;
    return npy_fail(h->err, h->errlen, "bad header: %s at offset %zu (near '%.*s')",
                    what, h->pos, near, h->s + h->pos);
}

static void hdr_space(NpyHeader *h)
{
    while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' ||
                               h->s[h->pos] == '\n' || h->s[h->pos] == '\r'))
        h->pos++;
}

static bool hdr_accept(NpyHeader *h, char c)
{
    hdr_space(h);
    if (h->pos < h->len && h->s[h->pos] == c) {
        h->pos++;
        return true;
    }
    return false;
}

/* A Python string literal in ' or " quotes, without escapes (NumPy never
 * writes any in the keys and descrs it can represent). */
static int hdr_string(NpyHeader *h, char *out, size_t outlen)
{
    hdr_space(h);
    if (h->pos >= h->len || (h->s[h->pos] != '\'' && h->s[h->pos] != '"'))
        return hdr_fail(h, "expected a string");
    char quote = h->s[h->pos++];
    size_t start = h->pos;
    while (h->pos < h->len && h->s[h->pos] != quote) {
        if (h->s[h->pos] == '\\' || h->s[h->pos] == '\n')
            return hdr_fail(h, "unsupported character in string");
        h->pos++;
    }
    if (h->pos >= h->len)
        return hdr_fail(h, "unterminated string");
    size_t n = h->pos - start;
    h->pos++;
    if (n >= outlen) {
        h->pos = start;
        return hdr_fail(h, "string too long");
    }
    memcpy(out, h->s + start, n);
    out[n] = '\0';
    return 0;
}

static int hdr_bool(NpyHeader *h, bool *out)
{
    hdr_space(h);
    static const struct { const char *word; bool value; } words[] = {
        {"True", true}, {"False", false},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (h->len - h->pos >= n && memcmp(h->s + h->pos, words[i].word, n) == 0) {
            h->pos += n;
            *out = words[i].value;
            return 0;
        }
    }
    return hdr_fail(h, "expected True or False");
}

/* A non-negative integer (Python 2 files may carry an 'L' suffix). */
static int hdr_int(NpyHeader *h, int64_t *out)
{
    hdr_space(h);
    if (h->pos >= h->len || h->s[h->pos] < '0' || h->s[h->pos] > '9')
        return hdr_fail(h, "expected a non-negative integer");
    int64_t v = 0;
    while (h->pos < h->len && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
        int d = h->s[h->pos] - '0';
        if (v > (INT64_MAX - d) / 10)
            return hdr_fail(h, "dimension too large");
        v = v * 10 + d;
        h->pos++;
    }
    if (h->pos < h->len && h->s[h->pos] == 'L')
        h->pos++;
    *out = v;
    return 0;
}

/* A structured descr: NumPy's list of (name, format[, shape]), a format a
 * scalar descr, '|Vn' padding (with an empty name) or a nested list;
 * rewritten in NumPy's own spelling into out (to be compared with
 * npy_structured, or with a record's descr by `kernc run`), its itemsize
 * (the sum of the entries, padding included) added to *size. */
static int hdr_fields_r(NpyHeader *h, char *out, size_t outlen, size_t *n, uint64_t *size,
                        int depth)
{
#define NPY_PUT(...)                                                         \
    do {                                                                     \
        if (*n < outlen)                                                     \
            *n += (size_t)snprintf(out + *n, outlen - *n, __VA_ARGS__);      \
    } while (0)
    if (depth > 8)
        return npy_fail(h->err, h->errlen, "structured dtype nested too deeply");
    if (!hdr_accept(h, '['))
        return hdr_fail(h, "expected '['");
    NPY_PUT("[");
    for (int i = 0; !hdr_accept(h, ']'); i++) {
        char name[64], format[64];
        if (!hdr_accept(h, '('))
            return hdr_fail(h, "expected '(' in a structured descr");
        if (hdr_string(h, name, sizeof name) != 0)
            return -1;
        if (!hdr_accept(h, ','))
            return hdr_fail(h, "expected ',' in a structured descr");
        NPY_PUT("%s('%s', ", i ? ", " : "", name);
        uint64_t fsize = 0;
        hdr_space(h);
        if (h->pos < h->len && h->s[h->pos] == '[') {
            if (hdr_fields_r(h, out, outlen, n, &fsize, depth + 1) != 0)
                return -1;
        } else {
            if (hdr_string(h, format, sizeof format) != 0)
                return -1;
            char order = format[0];
            int t = -1;
            if (format[1] == 'V' && order == '|' && name[0] == '\0') {
                char *end;
                unsigned long v = strtoul(format + 2, &end, 10);
                if (*end != '\0' || v == 0 || v > (1u << 20))
                    return npy_fail(h->err, h->errlen, "unsupported padding '%s' in a "
                                    "structured dtype", format);
                fsize = v;
            } else if (npy_charseq(format, &(krt_dtype){0}) != 0) {   /* str */
                krt_dtype cs;
                if (npy_charseq(format, &cs) < 0)
                    return npy_fail(h->err, h->errlen, "big-endian data ('%s') is not "
                                    "supported", format);
                fsize = npy_charseq_size(cs);
                NPY_PUT("'%s'", npy_descr(cs));
                goto field_done;
            } else {
                for (int k = 0; k < KRT_DTYPE_COUNT && order != '>'; k++)
                    if (k != KRT_XOROSHIRO128P && npy_types[k].descr &&
                        strcmp(format + 1, npy_types[k].descr + 1) == 0 &&
                        (order == npy_types[k].descr[0] || order == '=' ||
                         (order == '<' && npy_types[k].size == 1)))
                        t = k;
                if (t < 0)
                    return npy_fail(h->err, h->errlen, "unsupported field format '%s' of "
                                    "field '%s' in a structured dtype", format, name);
                fsize = npy_types[t].size;
            }
            NPY_PUT("'%s'", t >= 0 ? npy_types[t].descr : format);
        }
    field_done:;
        bool comma = hdr_accept(h, ',');
        if (comma && hdr_accept(h, ')')) {
            /* (name, format,) */
        } else if (comma) {
            /* a subarray: (n,) or (n, m, ...) */
            if (!hdr_accept(h, '('))
                return hdr_fail(h, "expected a shape tuple in a structured descr");
            NPY_PUT(", (");
            for (int d = 0;; d++) {
                int64_t dim = 0;
                if (hdr_int(h, &dim) != 0)
                    return -1;
                if (dim == 0 || (uint64_t)dim > (1u << 20))
                    return npy_fail(h->err, h->errlen, "unsupported subarray extent in a "
                                    "structured dtype");
                fsize *= (uint64_t)dim;
                NPY_PUT("%s%lld", d ? ", " : "", (long long)dim);
                bool comma = hdr_accept(h, ',');
                if (hdr_accept(h, ')')) {
                    NPY_PUT("%s)", d == 0 ? "," : "");
                    break;
                }
                if (!comma)
                    return hdr_fail(h, "expected ',' or ')' in a subarray shape");
            }
            if (!hdr_accept(h, ')'))
                return hdr_fail(h, "expected ')' in a structured descr");
        } else if (!hdr_accept(h, ')')) {
            return hdr_fail(h, "expected ')' in a structured descr");
        }
        NPY_PUT(")");
        *size += fsize;
        if (*size > ((uint64_t)1 << 24))
            return npy_fail(h->err, h->errlen, "structured dtype too large");
        if (hdr_accept(h, ']'))
            break;
        if (!hdr_accept(h, ','))
            return hdr_fail(h, "expected ',' or ']' in a structured descr");
    }
    NPY_PUT("]");
    if (*n + 1 >= outlen)
        return npy_fail(h->err, h->errlen, "structured dtype too long");
    return 0;
#undef NPY_PUT
}

static int hdr_fields(NpyHeader *h, char *out, size_t outlen, uint64_t *size)
{
    size_t n = 0;
    *size = 0;
    out[0] = '\0';
    return hdr_fields_r(h, out, outlen, &n, size, 0);
}

/* '(' [int (',' int)* [',']] ')' */
static int hdr_shape(NpyHeader *h, NpyArray *a)
{
    if (!hdr_accept(h, '('))
        return hdr_fail(h, "expected a tuple for 'shape'");
    a->ndim = 0;
    if (hdr_accept(h, ')'))
        return 0;
    for (;;) {
        int64_t dim = 0;
        if (hdr_int(h, &dim) != 0)
            return -1;
        if (a->ndim == KRT_MAX_NDIM)
            return npy_fail(h->err, h->errlen,
                            "array has more than %d dimensions (kernc supports at most %d)",
                            KRT_MAX_NDIM, KRT_MAX_NDIM);
        a->shape[a->ndim++] = dim;
        if (hdr_accept(h, ')'))
            return 0;
        if (!hdr_accept(h, ','))
            return hdr_fail(h, "expected ',' or ')' in 'shape'");
        if (hdr_accept(h, ')'))
            return 0;
    }
}

/* descr -> dtype: the byte order must be little-endian, native or
 * irrelevant (one-byte types). */
static int hdr_dtype(NpyHeader *h, const char *descr, NpyArray *a, uint64_t rsize)
{
    if (descr[0] == '[') {
        for (size_t i = 0; i < NPY_NSTRUCTURED; i++) {
            if (strcmp(descr, npy_structured[i].repr) == 0) {
                a->dtype = npy_structured[i].dtype;
                return 0;
            }
        }
        /* rec: any other is a record of that itemsize */
        a->descr = strdup(descr);
        if (a->descr == NULL)
            return npy_fail(h->err, h->errlen, "out of memory");
        a->dtype = KRT_RECORD_DTYPE(rsize);
        return 0;
    }
    char order = descr[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return npy_fail(h->err, h->errlen,
                        "bad header: descr '%s' has no byte-order character", descr);
    int cs = npy_charseq(descr, &a->dtype);   /* str: '|S12', '<U12' */
    if (cs < 0)
        return npy_fail(h->err, h->errlen, "big-endian data ('%s') is not supported", descr);
    if (cs > 0)
        return 0;
    for (int t = 0; t < KRT_DTYPE_COUNT; t++) {
        if (!npy_types[t].descr || strcmp(descr + 1, npy_types[t].descr + 1) != 0)
            continue;
        /* Void types ('|V16') take no byte order; wider numbers need one.
         * bfloat16: '<V2' is what np.save writes for ml_dtypes.bfloat16
         * (and '|V2' what it writes again after np.load). */
        if (descr[1] == 'V' && order != '|' && !(t == KRT_BFLOAT16 && order == '<'))
            break;
        if (descr[1] != 'V' && npy_types[t].size > 1 && (order == '>' || order == '|'))
            return npy_fail(h->err, h->errlen,
                            order == '>' ? "big-endian data ('%s') is not supported"
                                         : "bad header: descr '%s' lacks a byte order",
                            descr);
        a->dtype = (krt_dtype)t;
        return 0;
    }
    char names[256] = "";
    for (int t = 0; t < KRT_DTYPE_COUNT; t++)
        if (t != KRT_XOROSHIRO128P && npy_types[t].descr)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ",
                     npy_type_name((krt_dtype)t));
    return npy_fail(h->err, h->errlen,
                    "unsupported dtype '%s' (kernc supports %sand xoroshiro128p states)",
                    descr, names);
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static int hdr_parse(NpyHeader *h, NpyArray *a, bool *fortran_out)
{
    unsigned seen = 0;
    bool fortran = false;
    char key[32], descr[4096];
    uint64_t rsize = 0;

    if (!hdr_accept(h, '{'))
        return hdr_fail(h, "expected '{'");
    while (!hdr_accept(h, '}')) {
        hdr_space(h);
        size_t key_pos = h->pos;
        if (hdr_string(h, key, sizeof key) != 0)
            return -1;
        if (!hdr_accept(h, ':'))
            return hdr_fail(h, "expected ':' after a key");
        unsigned bit;
        if (strcmp(key, "descr") == 0) {
            bit = KEY_DESCR;
            hdr_space(h);
            if (h->pos < h->len && h->s[h->pos] == '[') {
                if (hdr_fields(h, descr, sizeof descr, &rsize) != 0)
                    return -1;
            } else if (hdr_string(h, descr, sizeof descr) != 0) {
                return -1;
            }
        } else if (strcmp(key, "fortran_order") == 0) {
            bit = KEY_FORTRAN;
            if (hdr_bool(h, &fortran) != 0)
                return -1;
        } else if (strcmp(key, "shape") == 0) {
            bit = KEY_SHAPE;
            if (hdr_shape(h, a) != 0)
                return -1;
        } else {
            h->pos = key_pos;
            return hdr_fail(h, "unexpected key");
        }
        if (seen & bit) {
            h->pos = key_pos;
            return hdr_fail(h, "duplicate key");
        }
        seen |= bit;
        if (hdr_accept(h, '}'))
            break;
        if (!hdr_accept(h, ','))
            return hdr_fail(h, "expected ',' or '}'");
    }
    hdr_space(h);
    if (h->pos != h->len)
        return hdr_fail(h, "unexpected text after the dict");
    static const struct { unsigned bit; const char *name; } keys[] = {
        {KEY_DESCR, "descr"}, {KEY_FORTRAN, "fortran_order"}, {KEY_SHAPE, "shape"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!(seen & keys[i].bit))
            return npy_fail(h->err, h->errlen, "bad header: no '%s' key", keys[i].name);
    *fortran_out = fortran;
    return hdr_dtype(h, descr, a, rsize);
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

static uint32_t npy_le(const unsigned char *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

void npy_reorder(void *dst, const void *src, int ndim, const int64_t *shape, size_t size,
                 bool to_fortran)
{
    /* walk the C order of shape; the F offset of the same element moves
     * by the F strides (the first index fastest) */
    int64_t fstride[KRT_MAX_NDIM], idx[KRT_MAX_NDIM] = {0}, n = 1;
    for (int d = 0; d < ndim; d++) {
        fstride[d] = d ? fstride[d - 1] * shape[d - 1] : 1;
        n *= shape[d];
    }
    const char *s = src;
    char *t = dst;
    for (int64_t c = 0; c < n; c++) {
        int64_t f = 0;
        for (int d = 0; d < ndim; d++)
            f += idx[d] * fstride[d];
        if (to_fortran)
            memcpy(t + (size_t)f * size, s + (size_t)c * size, size);
        else
            memcpy(t + (size_t)c * size, s + (size_t)f * size, size);
        for (int d = ndim - 1; d >= 0 && ++idx[d] == shape[d]; d--)
            idx[d] = 0;
    }
}

int npy_parse(const void *buf, size_t len, NpyArray *out, char *err, size_t errlen)
{
    const unsigned char *p = buf;
    memset(out, 0, sizeof *out);

    if (len < NPY_MAGIC_LEN || memcmp(p, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return npy_fail(err, errlen, "not a .npy file (bad magic)");
    if (len < NPY_MAGIC_LEN + 2)
        return npy_fail(err, errlen, "truncated header: the file ends after the magic");
    int major = p[6], minor = p[7];
    int lenbytes;
    if (major == 1 && minor == 0)
        lenbytes = 2;
    else if ((major == 2 || major == 3) && minor == 0)
        lenbytes = 4;
    else
        return npy_fail(err, errlen, "unsupported .npy format version %d.%d", major, minor);
    size_t start = NPY_MAGIC_LEN + 2 + (size_t)lenbytes;
    if (len < start)
        return npy_fail(err, errlen, "truncated header: the file ends in the header length");
    size_t hlen = npy_le(p + NPY_MAGIC_LEN + 2, lenbytes);
    if (len - start < hlen)
        return npy_fail(err, errlen,
                        "truncated header: it should be %zu bytes, the file holds %zu",
                        hlen, len - start);
    for (size_t i = 0; i < hlen; i++)
        if (p[start + i] == '\0' || p[start + i] >= 0x80)
            return npy_fail(err, errlen, "bad header: unexpected byte 0x%02x at offset %zu",
                            p[start + i], i);

    NpyHeader h = {(const char *)p + start, hlen, 0, err, errlen};
    bool fortran = false;
    if (hdr_parse(&h, out, &fortran) != 0)
        return -1;

    /* NumPy's rule ("array is too big"): the nonzero dimensions times the
     * item size must fit in an npy_intp, even when another dimension is 0,
     * so that every C-order stride is representable. */
    size_t size = KRT_DTYPE_IS_RECORD(out->dtype)    ? KRT_RECORD_ITEMSIZE(out->dtype)
                  : KRT_DTYPE_IS_CHARSEQ(out->dtype) ? npy_charseq_size(out->dtype)   /* str */
                                                     : npy_types[out->dtype].size;
    uint64_t count = 1, extent = size;
    for (int i = 0; i < out->ndim; i++) {
        uint64_t d = (uint64_t)out->shape[i];
        if (d != 0 && extent > (uint64_t)INT64_MAX / d)
            return npy_fail(err, errlen, "bad header: the shape is too large");
        extent *= d != 0 ? d : 1;
        count *= d;
    }
    uint64_t nbytes = count * size;
    size_t have = len - start - hlen;
    if (have < nbytes)
        return npy_fail(err, errlen,
                        "truncated data: the header promises %llu bytes "
                        "(%llu elements of %s), the file holds %zu",
                        (unsigned long long)nbytes, (unsigned long long)count,
                        npy_type_name(out->dtype), have);
    out->nbytes = (size_t)nbytes;
    out->data = malloc(out->nbytes ? out->nbytes : 1);
    if (out->data == NULL)
        return npy_fail(err, errlen, "out of memory for %zu bytes", out->nbytes);
    if (fortran && out->ndim > 1)   /* fortran_order: True, kept in C order */
        npy_reorder(out->data, p + start + hlen, out->ndim, out->shape, size, false);
    else
        memcpy(out->data, p + start + hlen, out->nbytes);
    /* NumPy reads any nonzero byte of a bool array as True; a C bool must
     * hold 0 or 1, or `not x` in a kernel computes garbage. */
    if (out->dtype == KRT_BOOL) {
        unsigned char *b = out->data;
        for (size_t i = 0; i < out->nbytes; i++)
            b[i] = b[i] != 0;
    }
    return 0;
}

int npy_read(const char *path, NpyArray *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return npy_fail(err, errlen, "%s: %s", path, strerror(errno));
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            unsigned char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return npy_fail(err, errlen, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return npy_fail(err, errlen, "%s: %s", path, strerror(saved));
    }
    char msg[NPY_ERR_MAX];
    int rc = npy_parse(buf, len, out, msg, sizeof msg);
    free(buf);
    if (rc != 0)
        return npy_fail(err, errlen, "%s: %s", path, msg);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

void *npy_format(const NpyArray *a, size_t *len, char *err, size_t errlen)
{
    bool rec = KRT_DTYPE_IS_RECORD(a->dtype);   /* rec: its descr comes with it */
    if (rec && a->descr == NULL)
        return npy_fail(err, errlen, "a record array without its descr"), NULL;
    bool cs = KRT_DTYPE_IS_CHARSEQ(a->dtype);   /* str */
    if (!rec && !cs && ((int)a->dtype < 0 || a->dtype >= KRT_DTYPE_COUNT))
        return npy_fail(err, errlen, "invalid dtype %d", (int)a->dtype), NULL;
    if (a->ndim < 0 || a->ndim > KRT_MAX_NDIM)
        return npy_fail(err, errlen, "invalid number of dimensions %d", a->ndim), NULL;

    /* repr(shape): "()", "(3,)", "(2, 3)". */
    char shape[KRT_MAX_NDIM * 24 + 4];
    size_t n = 0;
    shape[n++] = '(';
    for (int i = 0; i < a->ndim; i++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%lld", i ? ", " : "",
                              (long long)a->shape[i]);
    if (a->ndim == 1)
        shape[n++] = ',';
    shape[n++] = ')';
    shape[n] = '\0';

    /* NumPy writes a structured descr as its list, a plain one quoted. */
    char descr[4096];
    if (rec)
        snprintf(descr, sizeof descr, "%s", a->descr);
    else if (cs)
        snprintf(descr, sizeof descr, "'%s'", npy_descr(a->dtype));
    else
        snprintf(descr, sizeof descr, "'%s'", npy_types[a->dtype].descr);
    for (size_t i = 0; i < NPY_NSTRUCTURED && !rec; i++)
        if (npy_structured[i].dtype == a->dtype)
            snprintf(descr, sizeof descr, "%s", npy_structured[i].repr);
    char dict[sizeof shape + sizeof descr + 64];
    int dn = snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': %s, }",
                      descr, shape);
    if (a->ndim > 0) {
        /* NumPy leaves room for the first axis to grow to 21 digits. */
        char first[24];
        int fd = snprintf(first, sizeof first, "%lld", (long long)a->shape[0]);
        for (int i = fd; i < NPY_GROWTH_DIGITS; i++)
            dict[dn++] = ' ';
        dict[dn] = '\0';
    }
    size_t hlen = (size_t)dn + 1;                               /* + '\n' */
    size_t pad = NPY_ALIGN - ((NPY_MAGIC_LEN + 2 + 2 + hlen) % NPY_ALIGN);
    size_t header = NPY_MAGIC_LEN + 2 + 2 + hlen + pad;

    unsigned char *buf = malloc(header + a->nbytes);
    if (buf == NULL)
        return npy_fail(err, errlen, "out of memory"), NULL;
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)((hlen + pad) & 0xff);
    buf[9] = (unsigned char)((hlen + pad) >> 8);
    memcpy(buf + 10, dict, (size_t)dn);
    memset(buf + 10 + dn, ' ', pad);
    buf[header - 1] = '\n';
    if (a->nbytes)
        memcpy(buf + header, a->data, a->nbytes);
    *len = header + a->nbytes;
    return buf;
}

int npy_write(const char *path, const NpyArray *a, char *err, size_t errlen)
{
    size_t len;
    void *buf = npy_format(a, &len, err, errlen);
    if (buf == NULL)
        return -1;

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (tmp == NULL) {
        free(buf);
        return npy_fail(err, errlen, "%s: out of memory", path);
    }
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(buf);
        free(tmp);
        return npy_fail(err, errlen, "%s: %s", path, strerror(e));
    }
    FILE *f = fdopen(fd, "wb");
    bool ok = f != NULL && fwrite(buf, 1, len, f) == len;
    int e = errno;
    if (f != NULL) {
        if (fclose(f) != 0 && ok) {
            ok = false;
            e = errno;
        }
    } else {
        close(fd);
    }
    /* mkstemp makes the file 0600; an output file gets the usual mode. */
    if (ok) {
        mode_t mask = umask(0);
        umask(mask);
        chmod(tmp, 0666 & ~mask);
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok)
        unlink(tmp);
    free(buf);
    free(tmp);
    if (!ok)
        return npy_fail(err, errlen, "%s: %s", path, strerror(e));
    return 0;
}
