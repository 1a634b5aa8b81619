/*
 * npytool.c - makes and checks .npy files for tests/run.sh, so that the test
 * suite needs no Python.  It is deliberately a second, independent
 * implementation of the format (not a user of src/npy.c): the tests then
 * compare two readings of NumPy's documentation, and the files it writes are
 * byte for byte what NumPy 1.24 writes (checked against numpy.save).
 *
 *   npytool make FILE DTYPE SHAPE VALUES [--fortran] [--version N]
 *   npytool check FILE DTYPE SHAPE VALUES [TOLERANCE]
 *   npytool dump FILE
 *
 * DTYPE is a NumPy descr without byte order (f4 f8 i1 i2 i4 i8 u1 u2 u4 u8
 * b1), SHAPE is "N", "NxM" or "NxMxK", VALUES one of: range (the flat index
 * i), const:V, affine:A,B (A*i+B), list:V1,V2,... (one per element).
 * check exits 0 when the file has that dtype, shape and values (floats
 * within TOLERANCE, default 1e-6 relative), else prints the first
 * difference and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static const struct {
    const char *name;
    char kind;
    int size;
} types[] = {
    {"b1", 'b', 1}, {"i1", 'i', 1}, {"i2", 'i', 2}, {"i4", 'i', 4}, {"i8", 'i', 8},
    {"u1", 'u', 1}, {"u2", 'u', 2}, {"u4", 'u', 4}, {"u8", 'u', 8},
    {"f4", 'f', 4}, {"f8", 'f', 8},
};

static void fail(const char *msg, const char *arg)
{
    fprintf(stderr, "npytool: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static int find_type(const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, name) == 0)
            return (int)i;
    fail("unknown dtype", name);
    return -1;
}

static int parse_shape(const char *s, long long *shape)
{
    int n = 0;
    char *end;
    for (;;) {
        if (n == 4)
            fail("too many dimensions", s);
        shape[n++] = strtoll(s, &end, 10);
        if (end == s)
            fail("bad shape", s);
        if (*end == '\0')
            return n;
        if (*end != 'x')
            fail("bad shape", s);
        s = end + 1;
    }
}

/* The value of element i according to the VALUES spec, as text so that
 * 64-bit integers keep every bit. */
static const char *value_of(const char *spec, long long i, char *buf, size_t n)
{
    if (strcmp(spec, "range") == 0) {
        snprintf(buf, n, "%lld", i);
    } else if (strncmp(spec, "const:", 6) == 0) {
        snprintf(buf, n, "%s", spec + 6);
    } else if (strncmp(spec, "affine:", 7) == 0) {
        double a, b;
        if (sscanf(spec + 7, "%lf,%lf", &a, &b) != 2)
            fail("bad affine spec", spec);
        snprintf(buf, n, "%.17g", a * (double)i + b);
    } else if (strncmp(spec, "list:", 5) == 0) {
        const char *p = spec + 5;
        for (long long k = 0; k < i; k++) {
            p = strchr(p, ',');
            if (p == NULL)
                fail("list too short", spec);
            p++;
        }
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= n)
            fail("bad list", spec);
        memcpy(buf, p, len);
        buf[len] = '\0';
    } else {
        fail("bad values spec", spec);
    }
    return buf;
}

static void store(unsigned char *p, int t, const char *text)
{
    union { int64_t i; uint64_t u; float f; double d; unsigned char b[8]; } v;
    memset(&v, 0, sizeof v);
    switch (types[t].kind) {
    case 'f':
        if (types[t].size == 4)
            v.f = strtof(text, NULL);
        else
            v.d = strtod(text, NULL);
        break;
    case 'u':
        v.u = strtoull(text, NULL, 0);
        break;
    case 'b':
        v.u = strcmp(text, "0") != 0 && strcmp(text, "false") != 0;
        break;
    default:
        v.i = strtoll(text, NULL, 0);
        break;
    }
    memcpy(p, v.b, (size_t)types[t].size);    /* little-endian host */
}

static int cmd_make(int argc, char **argv)
{
    if (argc < 6)
        fail("usage: make FILE DTYPE SHAPE VALUES [--fortran] [--version N]", NULL);
    int t = find_type(argv[3]);
    long long shape[4];
    int ndim = parse_shape(argv[4], shape);
    int fortran = 0, version = 1;
    for (int i = 6; i < argc; i++) {
        if (strcmp(argv[i], "--fortran") == 0)
            fortran = 1;
        else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc)
            version = atoi(argv[++i]);
        else
            fail("unknown option", argv[i]);
    }

    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': %s, 'shape': (",
                     types[t].size == 1 ? '|' : '<', types[t].name, fortran ? "True" : "False");
    for (int d = 0; d < ndim; d++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld", d ? ", " : "", shape[d]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", ndim == 1 ? "," : "");
    char first[32];
    int fl = snprintf(first, sizeof first, "%lld", shape[fortran ? ndim - 1 : 0]);
    while (fl++ < 21)
        dict[n++] = ' ';
    int prefix = version == 1 ? 10 : 12;
    int hlen = n + 1;
    int pad = 64 - (prefix + hlen) % 64;

    FILE *f = fopen(argv[2], "wb");
    if (f == NULL)
        fail("cannot create", argv[2]);
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(version, f);
    fputc(0, f);
    unsigned total = (unsigned)(hlen + pad);
    fputc((int)(total & 0xff), f);
    fputc((int)((total >> 8) & 0xff), f);
    if (version != 1) {
        fputc(0, f);
        fputc(0, f);
    }
    fwrite(dict, 1, (size_t)n, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);

    long long count = 1;
    for (int d = 0; d < ndim; d++)
        count *= shape[d];
    for (long long i = 0; i < count; i++) {
        unsigned char buf[8];
        char text[64];
        store(buf, t, value_of(argv[5], i, text, sizeof text));
        fwrite(buf, 1, (size_t)types[t].size, f);
    }
    if (fclose(f) != 0)
        fail("write failed", argv[2]);
    return 0;
}

/* Read FILE: returns the data and fills type index, ndim, shape. */
static unsigned char *load(const char *path, int *t, int *ndim, long long *shape, long long *count)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail("cannot open", path);
    unsigned char pre[12];
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
        fail("not a .npy file", path);
    size_t hlen = pre[8] | (size_t)pre[9] << 8;
    if (pre[6] != 1) {
        if (fread(pre + 10, 1, 2, f) != 2)
            fail("truncated", path);
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    char *h = calloc(1, hlen + 1);
    if (h == NULL || fread(h, 1, hlen, f) != hlen)
        fail("truncated header", path);
    const char *d = strstr(h, "'descr': '");
    const char *s = strstr(h, "'shape': (");
    if (d == NULL || s == NULL || strstr(h, "'fortran_order': False") == NULL)
        fail("unexpected header", h);
    char name[3] = {d[11], d[12], 0};
    *t = find_type(name);
    *ndim = 0;
    *count = 1;
    for (s += 10; *s != ')';) {
        char *end;
        shape[(*ndim)++] = strtoll(s, &end, 10);
        *count *= shape[*ndim - 1];
        s = end;
        while (*s == ',' || *s == ' ')
            s++;
    }
    free(h);
    size_t nbytes = (size_t)(*count * types[*t].size);
    unsigned char *data = malloc(nbytes + 1);
    if (data == NULL || fread(data, 1, nbytes, f) != nbytes)
        fail("truncated data", path);
    fclose(f);
    return data;
}

static double as_double(const unsigned char *p, int t)
{
    union { int8_t i1; int16_t i2; int32_t i4; int64_t i8; uint8_t u1; uint16_t u2;
            uint32_t u4; uint64_t u8; float f4; double f8; unsigned char b[8]; } v;
    memcpy(v.b, p, (size_t)types[t].size);
    switch (types[t].kind) {
    case 'f': return types[t].size == 4 ? v.f4 : v.f8;
    case 'b': case 'u':
        return types[t].size == 1 ? v.u1 : types[t].size == 2 ? v.u2
             : types[t].size == 4 ? v.u4 : (double)v.u8;
    default:
        return types[t].size == 1 ? v.i1 : types[t].size == 2 ? v.i2
             : types[t].size == 4 ? v.i4 : (double)v.i8;
    }
}

static void print_value(const unsigned char *p, int t)
{
    uint64_t u = 0;
    int64_t i = 0;
    memcpy(&u, p, (size_t)types[t].size);
    if (types[t].kind == 'f')
        printf("%.9g\n", as_double(p, t));
    else if (types[t].kind == 'i') {
        int sh = 64 - 8 * types[t].size;
        i = (int64_t)(u << sh) >> sh;
        printf("%lld\n", (long long)i);
    } else
        printf("%llu\n", (unsigned long long)u);
}

static int cmd_check(int argc, char **argv)
{
    if (argc < 6)
        fail("usage: check FILE DTYPE SHAPE VALUES [TOLERANCE]", NULL);
    int want_t = find_type(argv[3]);
    long long want_shape[4];
    int want_ndim = parse_shape(argv[4], want_shape);
    double tol = argc > 6 ? strtod(argv[6], NULL) : 1e-6;

    int t, ndim;
    long long shape[4], count;
    unsigned char *data = load(argv[2], &t, &ndim, shape, &count);
    if (t != want_t) {
        printf("%s: dtype %s, expected %s\n", argv[2], types[t].name, types[want_t].name);
        return 1;
    }
    if (ndim != want_ndim || memcmp(shape, want_shape, sizeof(long long) * (size_t)ndim) != 0) {
        printf("%s: shape differs from %s\n", argv[2], argv[4]);
        return 1;
    }
    for (long long i = 0; i < count; i++) {
        unsigned char want[8];
        char text[64];
        store(want, t, value_of(argv[5], i, text, sizeof text));
        const unsigned char *got = data + i * types[t].size;
        int same;
        if (types[t].kind == 'f') {
            double a = as_double(want, t), b = as_double(got, t);
            same = (isnan(a) && isnan(b)) || a == b || fabs(a - b) <= tol * fmax(1.0, fabs(a));
        } else {
            same = memcmp(want, got, (size_t)types[t].size) == 0;
        }
        if (!same) {
            printf("%s: element %lld is ", argv[2], i);
            fflush(stdout);
            print_value(got, t);
            printf("  expected ");
            print_value(want, t);
            return 1;
        }
    }
    free(data);
    return 0;
}

static int cmd_dump(int argc, char **argv)
{
    if (argc < 3)
        fail("usage: dump FILE", NULL);
    int t, ndim;
    long long shape[4], count;
    unsigned char *data = load(argv[2], &t, &ndim, shape, &count);
    for (long long i = 0; i < count; i++)
        print_value(data + i * types[t].size, t);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "make") == 0)
        return cmd_make(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return cmd_check(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "dump") == 0)
        return cmd_dump(argc, argv);
    fail("usage: npytool make|check|dump ...", NULL);
    return 2;
}
