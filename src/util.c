/*
 * util.c - the translator's memory and string helpers.
 *
 * One translation allocates everything (AST, types, variables, strings)
 * from a single arena that is freed at once, as QBE does: passes never free
 * individual objects, so there is no ownership to track.  A side thread
 * (side_start: the parser's second half, the range pass, the header)
 * allocates from chunks of its own, which join the arena when it is done.  StrBuf is the one
 * malloc'd exception: the emitter's output can be large and is handed to
 * the driver, which writes and frees it.  die() is for internal bugs only;
 * user errors go through diag.c.
 */
#include "kernc.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SCRATCH_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SCRATCH_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define SCRATCH_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SCRATCH_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef SCRATCH_POISON
#define SCRATCH_POISON(p, n) ((void)(p), (void)(n))
#define SCRATCH_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Chunks are chained; a request larger than a chunk gets a chunk of its
 * own.  They come straight from mmap: fresh pages are zero, so arena_alloc
 * never clears memory, and large chunks let the kernel back them with huge
 * pages (a 100,000-line file allocates most of a gigabyte: 4 KiB page
 * faults were a third of the translator's time). */
typedef struct ArenaChunk {
    struct ArenaChunk *next;
    size_t used, size;        /* of data[] */
    size_t mapped;            /* the whole mapping */
    max_align_t data[];
} ArenaChunk;

enum { ARENA_CHUNK = 4 << 20, HUGE_PAGE = 2 << 20 };

/* Each thread allocates from a chain of its own, which side_join hands to
 * the main thread's when a side thread is done (arena_join). */
static _Thread_local ArenaChunk *arena_head;
static _Thread_local bool fmt_uncached;   /* a side thread: vsnprintf's, not format_into's
                                             cache (the main thread's) */

/* n rounded up to whole huge pages */
static size_t huge_round(size_t n)
{
    return (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

static _Thread_local size_t mapped_total;   /* -ftime-report: the arena's and big buffers' bytes */

size_t mapped_bytes(void)
{
    return mapped_total;
}

/* `mapped` bytes (a multiple of HUGE_PAGE), zero, starting on a huge page:
 * mmap aligns to 4 KiB only, and an unaligned 4 MiB chunk holds one huge
 * page at most (aligned: 100,000 lines take 11K page faults, not 68K).
 * Maps one huge page more, then unmaps the ends. */
static char *huge_map(size_t mapped)
{
    char *raw = mmap(NULL, mapped + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        die("out of memory (%zu bytes)", mapped);
    char *p = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    munmap(p + mapped, (size_t)(raw + HUGE_PAGE - p));
#ifdef MADV_HUGEPAGE
    madvise(p, mapped, MADV_HUGEPAGE);   /* a hint: failure is harmless */
#endif
    return p;
}

static ArenaChunk *chunk_new(size_t n)
{
    /* a whole number of huge pages */
    size_t want = sizeof(ArenaChunk) + (n > ARENA_CHUNK - sizeof(ArenaChunk) ? n : ARENA_CHUNK - sizeof(ArenaChunk));
    size_t mapped = huge_round(want);
    ArenaChunk *c = (ArenaChunk *)huge_map(mapped);
    mapped_total += mapped;
    c->mapped = mapped;
    c->size = mapped - sizeof(ArenaChunk);
    return c;
}

void *arena_alloc(size_t n)
{
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0)
        n = align;
    if (!arena_head || arena_head->size - arena_head->used < n) {
        ArenaChunk *c = chunk_new(n);
        if (n > ARENA_CHUNK / 2 && arena_head) {
            /* a big one: keep filling the current chunk after it */
            c->next = arena_head->next;
            arena_head->next = c;
            c->used = n;
            return c->data;
        }
        c->next = arena_head;
        arena_head = c;
    }
    void *p = (char *)arena_head->data + arena_head->used;
    arena_head->used += n;
    return p;
}

static void arena_join(ArenaChunk *chunks)
{
    if (!chunks)
        return;
    ArenaChunk *last = chunks;
    for (;; last = last->next) {
        mapped_total += last->mapped;
        if (!last->next)
            break;
    }
    if (!arena_head) {
        arena_head = chunks;
        return;
    }
    /* after the current chunk, which keeps filling */
    last->next = arena_head->next;
    arena_head->next = chunks;
}

char *arena_strndup(const char *s, size_t n)
{
    char *p = arena_alloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(const char *s)
{
    return arena_strndup(s, strlen(s));
}

/* The formatter's output: cap bytes at p, len the whole text's length */
typedef struct FmtOut {
    char *p;
    size_t cap, len;
} FmtOut;

/* (the emitter's pieces are short: those of up to 16 bytes that fit are
 * copied inline, by two overlapping moves, not by a call of memcpy) */
static inline void fmt_put(FmtOut *o, const char *s, size_t n)
{
    if (n <= 16 && o->len < o->cap && o->cap - o->len > n) {
        char *d = o->p + o->len;
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
        } else if (n > 0) {
            d[0] = s[0];
            d[n / 2] = s[n / 2];
            d[n - 1] = s[n - 1];
        }
    } else if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->p + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void fmt_unsigned(FmtOut *o, unsigned long long v, bool neg)
{
    char buf[24];
    int i = (int)sizeof buf;
    do
        buf[--i] = (char)('0' + v % 10);
    while ((v /= 10));
    if (neg)
        buf[--i] = '-';
    fmt_put(o, buf + i, sizeof buf - (size_t)i);
}

/* A format compiled once (speed, issue 7: the emitter prints through a
 * few hundred formats, a million times): its literal runs and directives,
 * kept by the format's address in a small direct-mapped cache that also
 * keeps the text, so a format at a reused address (a buffer, the scratch
 * stack) is compiled again, never misread. */
enum { FMT_MAX_DIRS = 16, FMT_MAX_LEN = 240, FMT_CACHE = 1024 };

typedef enum FmtConv { FC_END, FC_S, FC_PREC_S, FC_C, FC_PCT, FC_D, FC_U } FmtConv;

typedef struct FmtDir {
    uint8_t lit_off, lit_len;  /* the literal text before it, in text[] */
    uint8_t conv;              /* FmtConv */
    uint8_t size;              /* d/u: 0 int, 1 long, 2 long long, 3 size_t */
} FmtDir;

typedef struct FmtCompiled {
    const char *fmt;           /* NULL: the slot is empty */
    uint8_t len, ndirs;
    bool general;              /* a directive this formatter leaves to vsnprintf */
    FmtDir dirs[FMT_MAX_DIRS + 1];
    char text[FMT_MAX_LEN + 1];
} FmtCompiled;

static FmtCompiled fmt_cache[FMT_CACHE];

/* fmt compiled into c; false: too long or too many directives to cache */
static bool fmt_compile(FmtCompiled *c, const char *fmt)
{
    size_t len = strlen(fmt);
    if (len > FMT_MAX_LEN)
        return false;
    memcpy(c->text, fmt, len + 1);
    c->len = (uint8_t)len;
    c->general = false;
    int nd = 0;
    const char *f = fmt, *lit = fmt;
    for (;;) {
        const char *pc = f;
        while (*pc && *pc != '%')
            pc++;
        if (nd > FMT_MAX_DIRS)
            return false;
        FmtDir *d = &c->dirs[nd];
        d->lit_off = (uint8_t)(lit - fmt);
        d->lit_len = (uint8_t)(pc - lit);
        d->size = 0;
        if (!*pc) {
            d->conv = FC_END;
            break;
        }
        f = pc + 1;
        if (f[0] == '.' && f[1] == '*' && f[2] == 's') {
            d->conv = FC_PREC_S;
            f += 3;
        } else {
            int lng = 0;
            bool z = false;
            while (*f == 'l' && lng < 2) {
                lng++;
                f++;
            }
            if (!lng && *f == 'z') {
                z = true;
                f++;
            }
            bool sized = lng || z;
            switch (*f) {
            case 's': d->conv = FC_S; break;
            case 'c': d->conv = FC_C; break;
            case '%': d->conv = FC_PCT; break;
            case 'd': case 'i': d->conv = FC_D; break;
            case 'u': d->conv = FC_U; break;
            default: c->general = true; break;
            }
            if (c->general || (sized && d->conv != FC_D && d->conv != FC_U)) {
                c->general = true;
                break;
            }
            d->size = (uint8_t)(z ? 3 : lng);
            f++;
        }
        lit = f;
        nd++;
    }
    c->ndirs = (uint8_t)nd;
    c->fmt = fmt;
    return true;
}

/* The formatter for the directives the emitter uses by the thousand (%s
 * %d %u %i %c %% %.*s, with l, ll and z), without stdio's per-call set-up;
 * a format with any other directive goes to vsnprintf.  Same contract as
 * vsnprintf: writes at most cap bytes (NUL included) and returns the
 * length of the whole text. */
static int format_into(char *dst, size_t cap, const char *fmt, va_list ap)
{
    if (fmt_uncached)
        return vsnprintf(dst, cap, fmt, ap);
    FmtCompiled *c = &fmt_cache[(((uintptr_t)fmt * UINT64_C(0x9e3779b97f4a7c15)) >> 40) % FMT_CACHE];
    if ((c->fmt != fmt || strncmp(c->text, fmt, (size_t)c->len + 1) != 0) && !fmt_compile(c, fmt)) {
        c->fmt = NULL;   /* too big to keep: vsnprintf's, the same text */
        return vsnprintf(dst, cap, fmt, ap);
    }
    if (c->general)
        return vsnprintf(dst, cap, fmt, ap);
    FmtOut o = {dst, cap, 0};
    for (int i = 0;; i++) {
        const FmtDir *d = &c->dirs[i];
        if (d->lit_len)
            fmt_put(&o, fmt + d->lit_off, d->lit_len);
        switch ((FmtConv)d->conv) {
        case FC_END:
            if (cap)
                o.p[o.len < cap ? o.len : cap - 1] = '\0';
            return o.len > INT_MAX ? -1 : (int)o.len;
        case FC_S: {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            fmt_put(&o, s, strlen(s));
            break;
        }
        case FC_PREC_S: {
            int n = va_arg(ap, int);
            const char *s = va_arg(ap, const char *);
            size_t len = 0;
            while ((n < 0 || len < (size_t)n) && s[len])
                len++;
            fmt_put(&o, s, len);
            break;
        }
        case FC_C: {
            char ch = (char)va_arg(ap, int);
            fmt_put(&o, &ch, 1);
            break;
        }
        case FC_PCT:
            fmt_put(&o, "%", 1);
            break;
        case FC_D: {
            long long v = d->size == 3 ? (long long)va_arg(ap, ptrdiff_t)
                          : d->size == 2 ? va_arg(ap, long long)
                          : d->size == 1 ? va_arg(ap, long) : va_arg(ap, int);
            fmt_unsigned(&o, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
            break;
        }
        case FC_U: {
            unsigned long long v = d->size == 3 ? va_arg(ap, size_t)
                                   : d->size == 2 ? va_arg(ap, unsigned long long)
                                   : d->size == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            fmt_unsigned(&o, v, false);
            break;
        }
        }
    }
}

/* One vsnprintf, straight into the current chunk, when the text fits (the
 * emitter's strings nearly always do); else a second into a new block. */
char *arena_printf(const char *fmt, ...)
{
    va_list ap;
    if (fmt == NULL)        /* a bug; also tells GCC's format checks so */
        die("arena_printf: NULL format");
    size_t avail = arena_head ? arena_head->size - arena_head->used : 0;
    char *dst = arena_head ? (char *)arena_head->data + arena_head->used : NULL;
    va_start(ap, fmt);
    int n = format_into(dst, avail, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("bad format '%s'", fmt);
    if ((size_t)n < avail) {
        size_t align = sizeof(max_align_t);
        size_t used = ((size_t)n + 1 + align - 1) / align * align;
        arena_head->used += used < avail ? used : avail;
        return dst;
    }
    if (avail)
        memset(dst, 0, avail);   /* the arena's free memory stays zero */
    char *p = arena_alloc((size_t)n + 1);
    va_start(ap, fmt);
    format_into(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* The scratch stack: chunks in the order they were first used, the
 * current one scratch_cur; the chunks after it are free. */
static ArenaChunk *scratch_first, *scratch_cur;
static bool scratch_active;

static void *scratch_alloc(size_t n)
{
    while (!scratch_cur || scratch_cur->size - scratch_cur->used < n) {
        if (scratch_cur && scratch_cur->next) {
            scratch_cur = scratch_cur->next;
            scratch_cur->used = 0;
            continue;
        }
        ArenaChunk *c = chunk_new(n);
        c->next = NULL;
        c->used = 0;
        SCRATCH_POISON(c->data, c->size);
        if (scratch_cur)
            scratch_cur->next = c;
        else
            scratch_first = c;
        scratch_cur = c;
    }
    void *p = (char *)scratch_cur->data + scratch_cur->used;
    scratch_cur->used += n;
    SCRATCH_UNPOISON(p, n);
    memset(p, 0, n);
    return p;
}

void *node_alloc(size_t n)
{
    if (!scratch_active)
        return arena_alloc(n);
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    return scratch_alloc(n ? n : align);
}

ScratchMark scratch_begin(void)
{
    ScratchMark m = {scratch_cur, scratch_cur ? scratch_cur->used : 0, scratch_active};
    scratch_active = true;
    return m;
}

void scratch_end(ScratchMark m)
{
    ArenaChunk *c = m.chunk;
    if (!c && scratch_first) {
        c = scratch_first;
        c->used = 0;
    } else if (c) {
        c->used = m.used;
    }
    scratch_cur = c;
    for (; c; c = c->next)
        SCRATCH_POISON((char *)c->data + c->used, c->size - c->used);
    scratch_active = m.active;
}

bool scratch_holds(const void *p)
{
    for (ArenaChunk *c = scratch_first; c; c = c->next) {
        if ((const char *)p >= (const char *)c->data && (const char *)p < (const char *)c->data + c->size)
            return true;
        if (c == scratch_cur)
            break;
    }
    return false;
}

bool scratch_suspend(void)
{
    bool was = scratch_active;
    scratch_active = false;
    return was;
}

void scratch_resume(bool active)
{
    scratch_active = active;
}

static void free_chunks(ArenaChunk *c)
{
    while (c) {
        ArenaChunk *next = c->next;
        SCRATCH_UNPOISON(c, c->mapped);
        munmap(c, c->mapped);
        c = next;
    }
}

void arena_free_all(void)
{
    free_chunks(arena_head);
    arena_head = NULL;
    free_chunks(scratch_first);
    scratch_first = scratch_cur = NULL;
    scratch_active = false;
}

/* A core is idle for a second process or thread of this translation (a
 * make -j2 or other jobs using them all: the two would share one core, no
 * faster than one): the scheduling entities runnable now, this process
 * among them, leave one of the online cores free (/proc/loadavg's fourth
 * field: the load average lags a minute behind); else the load average of
 * the last minute does. */
static bool spare_core(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2)
        return false;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        double a, b, c;
        long running, total;
        int got = fscanf(f, "%lf %lf %lf %ld/%ld", &a, &b, &c, &running, &total);
        fclose(f);
        if (got == 5)
            return running < ncpu;
    }
    double load;
    return getloadavg(&load, 1) == 1 && load < (double)(ncpu - 1);
}

int test_split(void)
{
    const char *env = getenv("KERNC_TEST_SPLIT");
    return env && env[0] >= '0' && env[0] <= '2' && !env[1] ? env[0] - '0' : -1;
}

/* speed (issue 7): work of this size is worth a second thread or process
 * (from min on, where a core is idle); KERNC_TEST_SPLIT=1 or 2 (the tests)
 * says yes at every size and load, =0 no */
bool second_core(long size, long min)
{
    int test = test_split();
    return test > 0 || (test < 0 && size >= min && spare_core());
}

static void *side_main(void *arg)
{
    SideThread *t = arg;
    fmt_uncached = true;
    t->fn(t->arg);
    t->chunks = arena_head;   /* for arena_join; this thread's are done */
    arena_head = NULL;
    return NULL;
}

bool side_start(SideThread *t, long size, long min, void (*fn)(void *), void *arg)
{
    *t = (SideThread){.fn = fn, .arg = arg};
    return second_core(size, min) && pthread_create(&t->thread, NULL, side_main, t) == 0;
}

void side_join(SideThread *t)
{
    pthread_join(t->thread, NULL);
    arena_join(t->chunks);
}

_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "kernc: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

int ptrmap_get(const PtrMap *m, const void *k)
{
    if (!m->cap)
        return -1;
    for (size_t h = ptr_hash(k) & (m->cap - 1); m->keys[h]; h = (h + 1) & (m->cap - 1))
        if (m->keys[h] == k)
            return m->vals[h];
    return -1;
}

void ptrmap_put(PtrMap *m, const void *k, int v)
{
    if (2 * (m->len + 1) > m->cap) {
        PtrMap n = {0};
        n.cap = m->cap ? 2 * m->cap : 64;
        n.keys = arena_alloc(sizeof *n.keys * n.cap);
        n.vals = arena_alloc(sizeof *n.vals * n.cap);
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i])
                ptrmap_put(&n, m->keys[i], m->vals[i]);
        *m = n;
    }
    size_t h = ptr_hash(k) & (m->cap - 1);
    while (m->keys[h] && m->keys[h] != k)
        h = (h + 1) & (m->cap - 1);
    if (!m->keys[h])
        m->len++;
    m->keys[h] = k;
    m->vals[h] = v;
}

void vec_push(PtrVec *v, void *p)
{
    if (v->len == v->cap) {
        int cap = v->cap ? v->cap * 2 : 8;
        void **items = arena_alloc(sizeof *items * (size_t)cap);
        if (v->len)
            memcpy(items, v->items, sizeof *items * (size_t)v->len);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = p;
}

/* Keeps b->s NUL-terminated at all times, so callers may print it as is.
 * Capacities are powers of two from 256; from SB_BIG on (the generated
 * code of a big file: 33 MB for 100,000 lines of CUDA), a buffer is a
 * mapping of huge pages (huge_map) instead of malloc's 4 KiB pages: a
 * 4 KiB page fault for each 4 KiB was a tenth of such a translation.  The
 * capacity says which (sb_release). */
enum { SB_BIG = 4 << 20 };

static void sb_release(char *s, size_t cap)
{
    if (cap >= SB_BIG)
        munmap(s, huge_round(cap));
    else
        free(s);
}

void sb_reserve(StrBuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s;
    if (cap >= SB_BIG) {
        s = huge_map(huge_round(cap));
        mapped_total += huge_round(cap);
        if (b->s)
            memcpy(s, b->s, b->len + 1);
        sb_release(b->s, b->cap);
    } else {
        s = realloc(b->s, cap);
        if (!s)
            die("out of memory (%zu bytes)", cap);
    }
    b->s = s;
    b->cap = cap;
}

void sb_putc(StrBuf *b, char c)
{
    sb_reserve(b, 1);
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

void sb_puts(StrBuf *b, const char *s)
{
    size_t n = strlen(s);
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
    if (fmt == NULL)        /* as in arena_printf */
        die("sb_printf: NULL format");
    size_t avail = b->s ? b->cap - b->len : 0;
    va_list again;
    va_copy(again, ap);
    int n = format_into(b->s ? b->s + b->len : NULL, avail, fmt, ap);
    if (n < 0)
        die("bad format '%s'", fmt);
    if ((size_t)n >= avail) {   /* did not fit: again, with room */
        sb_reserve(b, (size_t)n);
        format_into(b->s + b->len, (size_t)n + 1, fmt, again);
    }
    va_end(again);
    b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_free(StrBuf *b)
{
    sb_release(b->s, b->cap);
    b->s = NULL;
    b->len = b->cap = 0;
}

char *sb_take(StrBuf *b)
{
    char *s = arena_strdup(b->s ? b->s : "");
    sb_free(b);
    return s;
}

const char *path_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

uint64_t str_hash_z(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* ------------------------------------------------------------------ */
/* Suggestions                                                         */
/* ------------------------------------------------------------------ */

enum { SUGGEST_MAX = 64 };   /* longer words are not compared */

/* Twice the optimal-string-alignment distance of a and b, a change of
 * case costing 1 (half an edit); INT32_MAX when longer than SUGGEST_MAX. */
static int edit_cost(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > SUGGEST_MAX || m > SUGGEST_MAX)
        return INT32_MAX;
    int d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = 2 * (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = 2 * (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int sub = a[i - 1] == b[j - 1] ? 0
                      : tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 1
                                                                                           : 2;
            int v = d[i - 1][j - 1] + sub;
            if (d[i - 1][j] + 2 < v)
                v = d[i - 1][j] + 2;
            if (d[i][j - 1] + 2 < v)
                v = d[i][j - 1] + 2;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 2 < v)
                v = d[i - 2][j - 2] + 2;
            d[i][j] = v;
        }
    return d[n][m];
}

void suggest_init(Suggest *s, const char *want)
{
    s->want = want;
    s->best = NULL;
    s->cost = INT32_MAX;
}

void suggest_add(Suggest *s, const char *cand)
{
    if (!cand || !cand[0] || strcmp(cand, s->want) == 0)
        return;
    /* CPython's rule (suggestions.c): (n + m + 3) / 6 edits at most */
    int cutoff = (int)((strlen(s->want) + strlen(cand) + 3) / 3);
    int cost = edit_cost(s->want, cand);
    if (cost <= cutoff && cost < s->cost) {
        s->best = cand;
        s->cost = cost;
    }
}

const char *suggest_best(const Suggest *s)
{
    return s->best;
}

const char *suggest_hint(const Suggest *s)
{
    return s->best ? arena_printf("; did you mean '%s'?", s->best) : "";
}

const char *c_string(const char *s)
{
    StrBuf b = {0};
    /* a newline or another control character as an octal escape: a file
     * name in #line "a\012b.kern" stays one line */
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            sb_printf(&b, "\\%03o", (unsigned char)*s);
            continue;
        }
        if (*s == '"' || *s == '\\')
            sb_putc(&b, '\\');
        sb_putc(&b, *s);
    }
    return sb_take(&b);
}
