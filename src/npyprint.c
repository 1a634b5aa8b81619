/*
 * npyprint.c - an array as NumPy's str() prints it, for `kernc run`.
 *
 * NumPy's default print options: line width 75, arrays of more than 1000
 * elements summarised with 3 items at each end of every long axis ("..."),
 * floats in "maxprec" mode (each value's shortest round-trip digits, at most
 * 8 after the point, aligned on the point and padded on the right), or in
 * scientific notation when the shown values span too much (largest >= 1e8,
 * smallest nonzero < 1e-4, or a ratio over 1000); integers right-aligned;
 * booleans " True"/"False".  The layout follows numpy/core/arrayprint.py
 * (_formatArray, _extendLine, FloatingFormat.fillFormat): the widths come
 * from the elements that are shown, rows wrap before column 75 with a
 * hanging indent, nested rows are separated by one newline per axis left.
 * Only kernrt.h's dtype table is used, as in npy.c.
 */
#include "npy.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRINT_LINEWIDTH 75
#define PRINT_THRESHOLD 1000
#define PRINT_EDGEITEMS 3
#define PRINT_PRECISION 8

typedef struct Buf {
    char *s;
    size_t len, cap;
    bool failed;
} Buf;

static void buf_putn(Buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (ns == NULL) {
            b->failed = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_puts(Buf *b, const char *s)
{
    buf_putn(b, s, strlen(s));
}

static void buf_spaces(Buf *b, int n)
{
    for (int i = 0; i < n; i++)
        buf_putn(b, " ", 1);
}

/* ---- elements ---- */

static bool is_float(krt_dtype t)
{
    return t == KRT_FLOAT32 || t == KRT_FLOAT64 || t == KRT_FLOAT16 || t == KRT_BFLOAT16;
}

static double elem_double(const NpyArray *a, int64_t i)
{
    if (a->dtype == KRT_FLOAT32)
        return ((const float *)a->data)[i];
    if (a->dtype == KRT_FLOAT16)
        return krt_half_to_double(((const krt_half *)a->data)[i]);
    if (a->dtype == KRT_BFLOAT16)
        return krt_bfloat16_to_double(((const krt_bfloat16 *)a->data)[i]);
    return ((const double *)a->data)[i];
}

/* An integer element as text (any width, signed or not). */
static void elem_int_text(const NpyArray *a, int64_t i, char *out, size_t n)
{
    const void *d = a->data;
    switch (a->dtype) {
    case KRT_INT8: snprintf(out, n, "%d", ((const int8_t *)d)[i]); break;
    case KRT_INT16: snprintf(out, n, "%d", ((const int16_t *)d)[i]); break;
    case KRT_INT32: snprintf(out, n, "%d", ((const int32_t *)d)[i]); break;
    case KRT_INT64: snprintf(out, n, "%lld", (long long)((const int64_t *)d)[i]); break;
    case KRT_UINT8: snprintf(out, n, "%u", ((const uint8_t *)d)[i]); break;
    case KRT_UINT16: snprintf(out, n, "%u", ((const uint16_t *)d)[i]); break;
    case KRT_UINT32: snprintf(out, n, "%u", ((const uint32_t *)d)[i]); break;
    case KRT_UINT64:
        snprintf(out, n, "%llu", (unsigned long long)((const uint64_t *)d)[i]);
        break;
    case KRT_BOOL: snprintf(out, n, "%s", ((const uint8_t *)d)[i] ? " True" : "False"); break;
    case KRT_COMPLEX64:   /* complex: each element as Python's repr (run_complex.c) */
        run_complex_repr(out, n, ((const float *)d)[2 * i], ((const float *)d)[2 * i + 1], true);
        break;
    case KRT_COMPLEX128:
        run_complex_repr(out, n, ((const double *)d)[2 * i], ((const double *)d)[2 * i + 1], false);
        break;
    default: {
        /* xoroshiro128p states: (s0, s1), as NumPy prints a record */
        const uint64_t *s = (const uint64_t *)d + 2 * i;
        snprintf(out, n, "(%llu, %llu)", (unsigned long long)s[0], (unsigned long long)s[1]);
        break;
    }
    }
}

/* The shortest digits that read back as the same value of the element's
 * type (dragon4's "unique"), as "%.{p}e" text in buf; returns p. */
static bool reads_back(const char *buf, double x, krt_dtype t)
{
    if (t == KRT_FLOAT16)   /* float16: the same binary16 value */
        return krt_half_bits_from_double(strtod(buf, NULL)) == krt_half_bits_from_double(x);
    if (t == KRT_BFLOAT16)   /* bfloat16: the same value */
        return krt_bfloat16_bits_from_double(strtod(buf, NULL)) == krt_bfloat16_bits_from_double(x);
    return t == KRT_FLOAT32 ? strtof(buf, NULL) == (float)x : strtod(buf, NULL) == x;
}

static int shortest_e(double x, krt_dtype f32, char *buf, size_t n)
{
    int p = 1;
    for (; p < 17; p++) {
        snprintf(buf, n, "%.*e", p - 1, x);
        if (reads_back(buf, x, f32))
            break;
    }
    if (p == 17)
        snprintf(buf, n, "%.16e", x);
    return p;
}

/* Positional, unique, at most PRINT_PRECISION fractional digits, trailing
 * zeros trimmed but the point kept: "1.", "-0.25", "3.14159274". */
static void positional(double x, krt_dtype f32, char *out, size_t n)
{
    char e[64];
    int p = shortest_e(x, f32, e, sizeof e);
    int exp = atoi(strchr(e, 'e') + 1);
    int frac = p - 1 - exp;
    if (frac < 0)
        frac = 0;
    if (frac > PRINT_PRECISION)
        frac = PRINT_PRECISION;
    snprintf(out, n, "%.*f", frac, x);
    if (strchr(out, '.') == NULL) {
        strncat(out, ".", n - strlen(out) - 1);
    } else {
        size_t len = strlen(out);
        while (len > 0 && out[len - 1] == '0')
            out[--len] = '\0';
    }
}

/* Scientific, unique, at most PRINT_PRECISION fractional digits: the
 * mantissa's integer and fractional digits and the exponent. */
static void scientific(double x, krt_dtype f32, char *ip, char *fp, int *exp, size_t n)
{
    char e[64];
    int p = shortest_e(x, f32, e, sizeof e);
    if (p - 1 > PRINT_PRECISION)
        snprintf(e, sizeof e, "%.*e", PRINT_PRECISION, x);
    char *epos = strchr(e, 'e');
    *exp = atoi(epos + 1);
    *epos = '\0';
    char *dot = strchr(e, '.');
    if (dot != NULL) {
        *dot = '\0';
        snprintf(fp, n, "%s", dot + 1);
        size_t len = strlen(fp);
        while (len > 0 && fp[len - 1] == '0')
            fp[--len] = '\0';
    } else {
        fp[0] = '\0';
    }
    snprintf(ip, n, "%s", e);
}

/* ---- the format of one array: widths from the shown elements ---- */

typedef struct Format {
    krt_dtype dtype;
    bool exp_format;
    int pad_left, pad_right;          /* floats: around the point */
    int precision, exp_size;          /* scientific */
    int width;                        /* integers, booleans */
} Format;

/* Calls fn on the flat index of every element that is shown. */
typedef struct Shown {
    const NpyArray *a;
    bool summary;
} Shown;

static int axis_count(const Shown *sh, int axis)
{
    int64_t n = sh->a->shape[axis];
    return sh->summary && n > 2 * PRINT_EDGEITEMS ? 2 * PRINT_EDGEITEMS : (int)n;
}

static int64_t axis_index(const Shown *sh, int axis, int k)
{
    int64_t n = sh->a->shape[axis];
    if (sh->summary && n > 2 * PRINT_EDGEITEMS && k >= PRINT_EDGEITEMS)
        return n - 2 * PRINT_EDGEITEMS + k;
    return k;
}

static void each_shown(const Shown *sh, int axis, int64_t base,
                       void (*fn)(void *, int64_t), void *ctx)
{
    const NpyArray *a = sh->a;
    if (axis == a->ndim) {
        fn(ctx, base);
        return;
    }
    for (int k = 0; k < axis_count(sh, axis); k++)
        each_shown(sh, axis + 1, base * a->shape[axis] + axis_index(sh, axis, k), fn, ctx);
}

typedef struct FillCtx {
    const NpyArray *a;
    Format *f;
    int pass;                         /* 0: range, 1: sizes */
    double max_abs, min_abs;
    bool any_nonzero, any_finite, any_nan, any_neginf, any_inf;
} FillCtx;

/* str: unit k of a char sequence at p: a byte, or a UCS4 code point */
static uint32_t cs_unit(const unsigned char *p, size_t k, bool uni)
{
    uint32_t c = 0;
    if (uni)
        memcpy(&c, p + k * 4, 4);
    else
        c = p[k];
    return c;
}

/* str: Python's repr of element i of an 'S<n>' or '<U<n>' array, trailing
 * NULs dropped as NumPy does (b'ab', 'héllo'); NumPy pads none. */
static void charseq_repr(const NpyArray *a, int64_t i, Buf *out)
{
    size_t n = KRT_CHARSEQ_COUNT(a->dtype);
    bool uni = ((int)a->dtype & 0xff) == KRT_STR;
    const unsigned char *p = (const unsigned char *)a->data + (size_t)i * n * (uni ? 4 : 1);
    size_t len = n;
    while (len > 0 && cs_unit(p, len - 1, uni) == 0)
        len--;
    bool sq = false, dq = false;
    for (size_t k = 0; k < len; k++) {
        uint32_t c = cs_unit(p, k, uni);
        sq |= c == '\'';
        dq |= c == '"';
    }
    char q = sq && !dq ? '"' : '\'';
    char t[16];
    buf_puts(out, uni ? "" : "b");
    buf_putn(out, &q, 1);
    for (size_t k = 0; k < len; k++) {
        uint32_t c = cs_unit(p, k, uni);
        if (c == '\\' || c == (uint32_t)q)
            snprintf(t, sizeof t, "\\%c", (char)c);
        else if (c == '\t' || c == '\n' || c == '\r')
            snprintf(t, sizeof t, "\\%c", c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        else if (c < 0x20 || c == 0x7f || (!uni && c > 0x7f) || (uni && c >= 0x80 && c < 0xa0))
            snprintf(t, sizeof t, "\\x%02x", (unsigned)c);
        else if (uni && ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff))
            snprintf(t, sizeof t, c > 0xffff ? "\\U%08x" : "\\u%04x", (unsigned)c);
        else if (c < 0x80)
            snprintf(t, sizeof t, "%c", (char)c);
        else if (c < 0x800)
            snprintf(t, sizeof t, "%c%c", (char)(0xC0 | c >> 6), (char)(0x80 | (c & 0x3F)));
        else if (c < 0x10000)
            snprintf(t, sizeof t, "%c%c%c", (char)(0xE0 | c >> 12), (char)(0x80 | (c >> 6 & 0x3F)),
                     (char)(0x80 | (c & 0x3F)));
        else
            snprintf(t, sizeof t, "%c%c%c%c", (char)(0xF0 | c >> 18),
                     (char)(0x80 | (c >> 12 & 0x3F)), (char)(0x80 | (c >> 6 & 0x3F)),
                     (char)(0x80 | (c & 0x3F)));
        buf_puts(out, t);
    }
    buf_putn(out, &q, 1);
}

static void fill_one(void *p, int64_t i)
{
    FillCtx *c = p;
    Format *f = c->f;
    if (KRT_DTYPE_IS_CHARSEQ(c->a->dtype))   /* str: no padding */
        return;
    if (!is_float(c->a->dtype)) {
        char t[64];
        elem_int_text(c->a, i, t, sizeof t);
        int len = (int)strlen(t);
        if (len > f->width)
            f->width = len;
        return;
    }
    double x = elem_double(c->a, i);
    krt_dtype f32 = c->a->dtype;
    if (!isfinite(x)) {
        if (c->pass == 0) {
            c->any_nan = c->any_nan || isnan(x);
            c->any_inf = c->any_inf || isinf(x);
            c->any_neginf = c->any_neginf || (isinf(x) && x < 0);
        }
        return;
    }
    if (c->pass == 0) {
        c->any_finite = true;
        if (x != 0) {
            double ax = fabs(x);
            if (!c->any_nonzero || ax > c->max_abs)
                c->max_abs = ax;
            if (!c->any_nonzero || ax < c->min_abs)
                c->min_abs = ax;
            c->any_nonzero = true;
        }
        return;
    }
    if (f->exp_format) {
        char ip[64], fp[64];
        int exp;
        scientific(x, f32, ip, fp, &exp, sizeof ip);
        char es[16];
        snprintf(es, sizeof es, "%d", exp < 0 ? -exp : exp);
        int el = (int)strlen(es) < 2 ? 2 : (int)strlen(es);
        if (el > f->exp_size)
            f->exp_size = el;
        if ((int)strlen(fp) > f->precision)
            f->precision = (int)strlen(fp);
        if ((int)strlen(ip) > f->pad_left)
            f->pad_left = (int)strlen(ip);
    } else {
        char t[512];
        positional(x, f32, t, sizeof t);
        const char *dot = strchr(t, '.');
        int left = (int)(dot - t), right = (int)strlen(dot + 1);
        if (left > f->pad_left)
            f->pad_left = left;
        if (right > f->pad_right)
            f->pad_right = right;
    }
}

static void fill_format(const Shown *sh, Format *f)
{
    memset(f, 0, sizeof *f);
    f->dtype = sh->a->dtype;
    FillCtx c = {sh->a, f, 0, 0, 0, false, false, false, false, false};
    each_shown(sh, 0, 0, fill_one, &c);
    if (!is_float(f->dtype))
        return;
    if (c.any_nonzero &&
        (c.max_abs >= 1e8 || c.min_abs < 0.0001 || c.max_abs / c.min_abs > 1000.0))
        f->exp_format = true;
    c.pass = 1;
    if (c.any_finite)
        each_shown(sh, 0, 0, fill_one, &c);
    if (f->exp_format)
        f->pad_right = f->exp_size + 2 + f->precision;
    if (c.any_nan || c.any_inf) {
        int offset = f->pad_right + 1;
        int inflen = 3 + (c.any_neginf ? 1 : 0);
        if (3 - offset > f->pad_left)
            f->pad_left = 3 - offset;
        if (inflen - offset > f->pad_left)
            f->pad_left = inflen - offset;
    }
}

static void format_elem(const NpyArray *a, const Format *f, int64_t i, Buf *out)
{
    char t[512];
    if (KRT_DTYPE_IS_CHARSEQ(a->dtype)) {   /* str */
        charseq_repr(a, i, out);
        return;
    }
    if (!is_float(a->dtype)) {
        elem_int_text(a, i, t, sizeof t);
        buf_spaces(out, f->width - (int)strlen(t));
        buf_puts(out, t);
        return;
    }
    double x = elem_double(a, i);
    krt_dtype f32 = a->dtype;
    if (!isfinite(x)) {
        const char *s = isnan(x) ? "nan" : x < 0 ? "-inf" : "inf";
        buf_spaces(out, f->pad_left + f->pad_right + 1 - (int)strlen(s));
        buf_puts(out, s);
        return;
    }
    if (f->exp_format) {
        char ip[64], fp[64];
        int exp;
        scientific(x, f32, ip, fp, &exp, sizeof ip);
        buf_spaces(out, f->pad_left - (int)strlen(ip));
        buf_puts(out, ip);
        buf_puts(out, ".");
        buf_puts(out, fp);
        for (int k = (int)strlen(fp); k < f->precision; k++)
            buf_puts(out, "0");
        snprintf(t, sizeof t, "e%c%0*d", exp < 0 ? '-' : '+', f->exp_size, exp < 0 ? -exp : exp);
        buf_puts(out, t);
        return;
    }
    positional(x, f32, t, sizeof t);
    const char *dot = strchr(t, '.');
    int left = (int)(dot - t), right = (int)strlen(dot + 1);
    buf_spaces(out, f->pad_left - left);
    buf_puts(out, t);
    buf_spaces(out, f->pad_right - right);
}

/* ---- layout (numpy's _formatArray) ---- */

typedef struct Layout {
    const Shown *sh;
    const Format *f;
} Layout;

/* _extendLine: start a new line (the hanging indent) when the word would
 * pass the width, unless the line holds nothing but the indent. */
/* The characters of UTF-8 text, as Python counts a str's length (str: a
 * '<U<n>' element's repr holds more bytes than characters). */
static size_t text_len(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

static void extend_line(Buf *s, Buf *line, const char *word, int width, const char *indent)
{
    bool wrap = (int)(text_len(line->s, line->len) + text_len(word, strlen(word))) > width &&
                line->len > strlen(indent);
    if (wrap) {
        size_t n = line->len;
        while (n > 0 && line->s[n - 1] == ' ')
            n--;
        buf_putn(s, line->s, n);
        buf_puts(s, "\n");
        line->len = 0;
        buf_puts(line, indent);
    }
    buf_puts(line, word);
}

static void recurse(const Layout *L, int axis, int64_t base, const char *indent, int width,
                    Buf *out)
{
    const NpyArray *a = L->sh->a;
    int axes_left = a->ndim - axis;
    size_t ilen = strlen(indent);
    char *next_indent = malloc(ilen + 2);
    if (next_indent == NULL) {
        out->failed = true;
        return;
    }
    memcpy(next_indent, indent, ilen);
    next_indent[ilen] = ' ';
    next_indent[ilen + 1] = '\0';
    int n = axis_count(L->sh, axis);
    bool summary = L->sh->summary && a->shape[axis] > 2 * PRINT_EDGEITEMS;
    Buf s = {0};
    if (axes_left == 1) {
        int elem_width = width - 1;
        Buf line = {0};
        buf_puts(&line, indent);
        for (int k = 0; k < n; k++) {
            if (summary && k == PRINT_EDGEITEMS) {
                extend_line(&s, &line, "...", elem_width, indent);
                buf_puts(&line, " ");
            }
            Buf word = {0};
            buf_puts(&word, "");
            format_elem(a, L->f, base * a->shape[axis] + axis_index(L->sh, axis, k), &word);
            extend_line(&s, &line, word.s, elem_width, indent);
            free(word.s);
            if (k + 1 < n)
                buf_puts(&line, " ");
        }
        buf_putn(&s, line.s, line.len);
        free(line.s);
    } else {
        for (int k = 0; k < n; k++) {
            if (summary && k == PRINT_EDGEITEMS) {
                buf_puts(&s, indent);
                buf_puts(&s, "...");
                for (int j = 0; j < axes_left - 1; j++)
                    buf_puts(&s, "\n");
            }
            Buf nested = {0};
            recurse(L, axis + 1, base * a->shape[axis] + axis_index(L->sh, axis, k),
                    next_indent, width - 1, &nested);
            buf_puts(&s, indent);
            if (nested.s)
                buf_puts(&s, nested.s);
            out->failed = out->failed || nested.failed;
            free(nested.s);
            if (k + 1 < n)
                for (int j = 0; j < axes_left - 1; j++)
                    buf_puts(&s, "\n");
        }
    }
    buf_puts(out, "[");
    if (s.s && s.len >= ilen)
        buf_puts(out, s.s + ilen);
    buf_puts(out, "]");
    out->failed = out->failed || s.failed;
    free(s.s);
    free(next_indent);
}

char *npy_str(const NpyArray *a, bool whole)
{
    if (KRT_DTYPE_IS_RECORD(a->dtype)) {   /* rec: not printed field by field */
        int64_t n = 1;
        for (int d = 0; d < a->ndim; d++)
            n *= a->shape[d];
        const char *descr = a->descr ? a->descr : "?";
        size_t len = strlen(descr) + 64;
        char *s = malloc(len);
        if (s)
            snprintf(s, len, "<%lld record%s of dtype %s>", (long long)n, n == 1 ? "" : "s",
                     descr);
        return s;
    }
    Buf out = {0};
    buf_puts(&out, "");
    int64_t size = 1;
    for (int d = 0; d < a->ndim; d++)
        size *= a->shape[d];
    Shown sh = {a, !whole && size > PRINT_THRESHOLD};
    Format f;
    if (size == 0) {
        buf_puts(&out, "[]");
    } else if (a->ndim == 0) {
        fill_format(&sh, &f);
        f.pad_left = f.pad_right = 0;
        f.width = 0;
        format_elem(a, &f, 0, &out);
        /* a 0-d boolean prints without the padding of " True" */
        if (a->dtype == KRT_BOOL && out.s[0] == ' ')
            memmove(out.s, out.s + 1, out.len--);
    } else {
        fill_format(&sh, &f);
        Layout L = {&sh, &f};
        recurse(&L, 0, 0, " ", PRINT_LINEWIDTH, &out);
    }
    if (out.failed) {
        free(out.s);
        return NULL;
    }
    return out.s;
}
