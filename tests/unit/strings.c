/*
 * tests/unit/strings.c - src/util.c's string building: arena_printf and
 * sb_printf format the emitter's directives (%s %d %u %c %% %.*s, with l,
 * ll and z) themselves and every other format through vsnprintf; both
 * must give exactly what snprintf gives, texts longer than the room left
 * in an arena chunk or a StrBuf included, and leave the arena's memory
 * zeroed.  Also the scratch stack of node_alloc (marks nest, memory is
 * reused and zeroed).  Built with src/util.c alone.
 */
#include "kernc.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap/basic.h"

/* util.c's die_at, for a broken format, aborts: never reached here. */

#define SAME(fmt, ...)                                                       \
    do {                                                                     \
        char want[512];                                                      \
        snprintf(want, sizeof want, fmt, __VA_ARGS__);                       \
        is_string(want, arena_printf(fmt, __VA_ARGS__), "arena_printf(\"%s\")", fmt); \
        StrBuf b = {0};                                                      \
        sb_puts(&b, "<");                                                    \
        sb_printf(&b, fmt, __VA_ARGS__);                                     \
        char w2[520];                                                        \
        snprintf(w2, sizeof w2, "<%s", want);                                \
        is_string(w2, b.s, "sb_printf(\"%s\")", fmt);                        \
        sb_free(&b);                                                         \
    } while (0)

int main(void)
{
    plan_lazy();
    SAME("%s", "plain");
    SAME("a %s b %s c", "x", "");
    SAME("%d %d %d", 0, -1, INT_MIN);
    SAME("%u %u", 0u, UINT_MAX);
    SAME("%ld %lu", LONG_MIN, ULONG_MAX);
    SAME("%lld %llu", LLONG_MIN, ULLONG_MAX);
    SAME("%zu %zd", (size_t)SIZE_MAX, (ptrdiff_t)-5);
    SAME("%i%c%%", 42, 'q');
    SAME("[%.*s]", 3, "abcdef");
    SAME("[%.*s]", 10, "ab");
    SAME("%s=%.17g", "pi", 3.141592653589793);     /* through vsnprintf */
    SAME("%5d|%-4s|%02x", 7, "ab", 10);
    SAME("%s %d %.3f", "mixed", 3, 0.5);           /* falls back after %s %d */
    /* 17 directives and a format of 300 bytes: past what util.c compiles
     * and caches (formatted the same, without its cache) */
    SAME("%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
         13, 14, 15, 16, 17);
    SAME("%s.........................................................................."
         "..........................................................................."
         "..........................................................................."
         "...........................................................................%d",
         "long", 5);
    /* one buffer, two formats: the cache by address must see the change */
    {
        char fmt[32];
        strcpy(fmt, "<%s|%d>");
        SAME(fmt, "a", 1);
        strcpy(fmt, "[%d:%s]");
        SAME(fmt, 2, "b");
        strcpy(fmt, "<%s|%d>x");
        SAME(fmt, "c", 3);
    }

    /* longer than any room: a StrBuf grows, the arena takes a block */
    static char big[200000];
    memset(big, 'k', sizeof big - 1);
    StrBuf b = {0};
    for (int i = 0; i < 5; i++)
        sb_printf(&b, "%s%d", big, i);
    ok(b.len == 5 * (sizeof big - 1 + 1) && b.s[b.len] == '\0' &&
       b.s[sizeof big - 1] == '0' && b.s[b.len - 1] == '4', "sb_printf: 1 MB in five pieces");
    sb_free(&b);
    int long_ok = 1;
    for (int i = 0; i < 64; i++) {       /* fills several 4 MB chunks */
        char *s = arena_printf("%s-%d", big, i);
        long_ok &= strlen(s) == sizeof big - 1 + 1 + (i < 10 ? 1 : 2);
        unsigned char *z = arena_alloc(64);
        for (int j = 0; j < 64; j++)
            long_ok &= z[j] == 0;
    }
    ok(long_ok, "arena_printf: texts past the end of a chunk; arena_alloc still zeroed");

    /* the scratch stack */
    unsigned char *perm = node_alloc(32);
    ScratchMark m = scratch_begin();
    unsigned char *a = node_alloc(32);
    memset(a, 0xff, 32);
    ScratchMark inner = scratch_begin();
    unsigned char *c = node_alloc(32);
    memset(c, 0xee, 32);
    scratch_end(inner);
    unsigned char *c2 = node_alloc(32);
    ok(c2 == c && c2[0] == 0 && c2[31] == 0, "scratch: an inner mark's memory is reused, zeroed");
    bool was = scratch_suspend();
    unsigned char *kept = node_alloc(32);
    scratch_resume(was);
    scratch_end(m);
    unsigned char *a2 = node_alloc(32);
    ok(a2 != a, "scratch: outside a mark, node_alloc is the arena's");
    ScratchMark again = scratch_begin();
    unsigned char *a3 = node_alloc(32);
    ok(a3 == a && a3[0] == 0, "scratch: the outer mark's memory is given back too");
    scratch_end(again);
    ok(perm[0] == 0 && kept[0] == 0 && kept != a, "scratch: memory taken while suspended is the arena's");
    arena_free_all();
    return 0;
}
