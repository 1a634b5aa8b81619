/*
 * run_complex.c - complex scalars in `kernc run`: reading a command-line
 * literal as Python's complex() reads a string ("1+2j", "(1-2.5j)", "3j",
 * "2", "inf+nanj") and printing a value as Python's repr prints a complex
 * ("(1+2j)", "2j", "(nan+infj)"; a complex64 part with the fewest digits
 * that read back as float32, as NumPy prints its scalars).
 */
#include "kernc.h"
#include "npy.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One real number at *p (digits, a point, an exponent, inf, nan, with no
 * sign); false if none. */
static bool real_at(const char **p, double *v)
{
    const char *s = *p;
    char *end;
    if (*s == '+' || *s == '-' || isspace((unsigned char)*s))
        return false;
    *v = strtod(s, &end);
    if (end == s)
        return false;
    *p = end;
    return true;
}

bool run_complex_parse(const char *text, double *re, double *im)
{
    size_t n = strlen(text);
    const char *s = text;
    char buf[128];
    if (n >= sizeof buf)
        return false;
    if (n >= 2 && text[0] == '(' && text[n - 1] == ')') {   /* Python's repr: (1+2j) */
        memcpy(buf, text + 1, n - 2);
        buf[n - 2] = '\0';
        s = buf;
    }
    double a, b;
    int sign = 1;
    *re = *im = 0;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!real_at(&s, &a)) {
        if (*s != 'j' && *s != 'J')
            return false;
        a = 1;   /* "j", "-j" */
    }
    if ((*s == 'j' || *s == 'J') && s[1] == '\0') {   /* a pure imaginary: 2j */
        *im = sign * a;
        return true;
    }
    *re = sign * a;
    if (*s == '\0')
        return true;
    if (*s != '+' && *s != '-')
        return false;
    sign = *s++ == '-' ? -1 : 1;
    if (!real_at(&s, &b))
        b = 1;   /* "1+j" */
    if ((*s != 'j' && *s != 'J') || s[1] != '\0')
        return false;
    *im = sign * b;
    return true;
}

/* Python's repr of one part, without ".0" (format 'r'): the shortest
 * digits that read back, positional for exponents -4..15. */
static void part_repr(char *out, size_t n, double d, bool f32, bool sign)
{
    if (isnan(d)) {
        snprintf(out, n, "%snan", sign ? "+" : "");
        return;
    }
    if (isinf(d)) {
        snprintf(out, n, "%sinf", d < 0 ? "-" : sign ? "+" : "");
        return;
    }
    char buf[64];
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        if (f32 ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d)
            break;
    }
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp >= -4 && exp < 16) {
        int decimals = prec - 1 - exp;
        snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, d);
    } else {   /* 1e+20: no trailing zeros in the mantissa */
        char *e = strchr(buf, 'e'), *z = e;
        while (z > buf && z[-1] == '0')
            z--;
        if (z > buf && z[-1] == '.')
            z--;
        memmove(z, e, strlen(e) + 1);
    }
    if (snprintf(out, n, "%s%s", sign && !signbit(d) ? "+" : "", buf) >= (int)n)
        out[n - 1] = '\0';   /* never: a part is at most 25 characters */
}

void run_complex_repr(char *out, size_t n, double re, double im, bool f32)
{
    char r[64], i[64];
    part_repr(i, sizeof i, im, f32, false);
    if (re == 0 && !signbit(re)) {
        if (snprintf(out, n, "%sj", i) >= (int)n)
            out[n - 1] = '\0';
        return;
    }
    part_repr(r, sizeof r, re, f32, false);
    part_repr(i, sizeof i, im, f32, true);
    if (snprintf(out, n, "(%s%sj)", r, i) >= (int)n)
        out[n - 1] = '\0';
}
