/*
 * charseq.c - NumPy's fixed-width char sequences as numba-cuda 0.30 types
 * them: CharSeq for 'S<n>' (n bytes, numba's [char x n]) and
 * UnicodeCharSeq for '<U<n>' (n UCS4 code points, 4 bytes each, numba's
 * [unichr x n]); NumPy's layout, no terminator, zero-padded.
 *
 * They are array elements and record fields (from_dtype(np.dtype('S12')),
 * np.dtype([("x", np.int32), ("y", "<U12")]), CharSeq(12) and
 * UnicodeCharSeq(12) in signature strings), and values: a[i] is the n
 * units (C: struct krt_S<n> {char c[n];} / krt_U<n> {uint32_t c[n];}), so
 * a[i] = b[j] and x = a[i] copy them.  A str constant stored into a
 * UnicodeCharSeq, a bytes constant into a CharSeq, is numba's cast
 * (charseq.py's unicode_to_unicode_charseq, bytes_to_charseq): the first n
 * code points or bytes, zeros after a shorter one.  The typed tree holds
 * such a constant as an E_CONST of the target's type (text the value, ival
 * its length in bytes); C builds it with the width's krt_U<n>_from().
 * len(), the comparisons, `not` and truth follow charseq.py (kernrt_device.h's
 * krt_cs_* helpers).  The types themselves (TY_CHARSEQ, interned by unit
 * and count) are in src/types.c; their typing in src/type_charseq.c; this
 * file has their NumPy formats and C (structs, constants).
 *
 * The runtime's dtype of an array of them is KRT_BYTES_DTYPE(n) or
 * KRT_STR_DTYPE(n) (kernrt.h), their .npy descr '|S<n>' / '<U<n>'.
 */
#include "kernc.h"
#include "kernrt.h"   /* KRT_BYTES_DTYPE, KRT_STR_DTYPE */

#include <stdlib.h>
#include <string.h>

#define CHARSEQ_MAX (1 << 20)   /* units: NumPy allows more, no kernel needs them */

/* A NumPy format of a char sequence: 'S12', '|S12', 'a12' (bytes),
 * 'U12', '<U12', '=U12' (str); NULL if s is none (*bad set, and the error
 * reported, when it is one kernc refuses: big-endian, no width). */
Type *charseq_of_format(const char *s, Loc loc, bool *bad)
{
    const char *p = s;
    *bad = false;
    char order = 0;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        order = *p++;
    bool unicode = *p == 'U';
    if (*p != 'S' && *p != 'U' && *p != 'a')
        return NULL;
    p++;
    char *end;
    long n = strtol(p, &end, 10);
    if (*end != '\0' || (*p < '0' || *p > '9'))
        return NULL;
    if (order == '>' && unicode) {
        error_at(loc, "big-endian char sequences ('%s') are not supported", s);
        *bad = true;
        return NULL;
    }
    if (n < 1 || n > CHARSEQ_MAX) {
        error_at(loc, "a char sequence ('%s') needs a width from 1 to %d", s, CHARSEQ_MAX);
        *bad = true;
        return NULL;
    }
    return ty_charseq(unicode, n);
}

const char *charseq_dtype_c(const Type *t)
{
    return arena_printf("KRT_%s_DTYPE(%d)", charseq_unicode(t) ? "STR" : "BYTES", t->nelems);
}

/* The .npy descr NumPy writes: '|S12', '<U12'. */
const char *charseq_descr(const Type *t)
{
    return arena_printf("%s%d", charseq_unicode(t) ? "<U" : "|S", t->nelems);
}

/* The struct of a width, guarded (one header may meet another's); with
 * abi false also the constructor from a constant that generated code uses. */
void charseq_emit_struct(StrBuf *b, const Type *t, bool abi)
{
    const char *cn = charseq_cname(t);
    const char *unit = charseq_unicode(t) ? "uint32_t" : "char";
    sb_printf(b, "#ifndef KRT_DEFINED_%s\n#define KRT_DEFINED_%s\n", cn, cn);
    sb_printf(b, "typedef struct %s {\n    %s c[%d];\n} %s;\n", cn, unit, t->nelems, cn);
    sb_printf(b, "#endif\n");
    if (abi)
        return;
    sb_printf(b, "#ifndef KRT_DEFINED_%s_from\n#define KRT_DEFINED_%s_from\n", cn, cn);
    sb_printf(b, "/* numba's cast of a constant: its first %d units, zeros after */\n", t->nelems);
    sb_printf(b, "KRT_FN KRT_MAYBE_UNUSED %s %s_from(const %s *s, int n)\n{\n", cn, cn,
              charseq_unicode(t) ? "uint32_t" : "char");
    sb_printf(b, "    %s r;\n    for (int i = 0; i < %d; i++)\n        r.c[i] = i < n ? s[i] : 0;\n"
                 "    return r;\n}\n#endif\n", cn, t->nelems);
}

/* The code points of UTF-8 text (the lexer's encoding of a str, lone
 * surrogates included), into out (room for n); the count. */
static int utf8_decode(const char *s, size_t len, uint32_t *out)
{
    int n = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        int k;
        if (c < 0x80) { cp = c; k = 1; }
        else if (c < 0xE0) { cp = c & 0x1F; k = 2; }
        else if (c < 0xF0) { cp = c & 0x0F; k = 3; }
        else { cp = c & 0x07; k = 4; }
        for (int j = 1; j < k && i + (size_t)j < len; j++)
            cp = cp << 6 | ((unsigned char)s[i + (size_t)j] & 0x3F);
        i += (size_t)k;
        out[n++] = cp;
    }
    return n;
}

static bool hexdigit(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The units of a constant (E_CONST of a char sequence, or an E_STR when
 * unicode says how to read it): malloc'd, their count in *n. */
static uint32_t *const_units(const Node *k, bool uni, int *n)
{
    size_t len = (size_t)k->ival;
    uint32_t *cps = malloc((len + 1) * sizeof *cps);
    *n = 0;
    if (uni) {
        *n = utf8_decode(k->text, len, cps);
    } else {
        for (size_t i = 0; i < len; i++)
            cps[(*n)++] = (unsigned char)k->text[i];
    }
    return cps;
}

/* The count of units of a str (code points) or bytes constant. */
int charseq_units(const Node *str, bool unicode)
{
    int n;
    free(const_units(str, unicode, &n));
    return n;
}

/* The C literal of a constant's first max units: "XYZ" or
 * (const uint32_t *)U"XYZ"; printable ASCII as itself, the rest as escapes
 * (a hex escape ends the literal piece when a hex digit follows); their
 * count in *count. */
const char *charseq_lit_c(const Node *k, int max, int *count)
{
    bool uni = charseq_unicode(k->type);
    int n;
    uint32_t *cps = const_units(k, uni, &n);
    if (n > max)   /* numba: the first n units */
        n = max;
    StrBuf b = {0};
    sb_printf(&b, "%s\"", uni ? "(const uint32_t *)U" : "");
    bool after_hex = false;
    for (int i = 0; i < n; i++) {
        uint32_t c = cps[i];
        bool plain = c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '?';
        if (plain && after_hex && hexdigit((int)c))
            sb_printf(&b, "\" %s\"", uni ? "U" : "");
        if (plain)
            sb_putc(&b, (char)c);
        else if (uni)
            sb_printf(&b, "\\x%x", (unsigned)c);
        else
            sb_printf(&b, "\\%03o", (unsigned)c);   /* octal: never more than 3 digits */
        after_hex = !plain && uni;
    }
    sb_putc(&b, '"');
    free(cps);
    *count = n;
    return sb_take(&b);
}

/* C: krt_S12_from("XYZ", 3), krt_U12_from((const uint32_t *)U"XYZ", 3). */
const char *charseq_const_c(const Node *k)
{
    int n;
    const char *lit = charseq_lit_c(k, k->type->nelems, &n);
    return arena_printf("%s_from(%s, %d)", charseq_cname(k->type), lit, n);
}
