/*
 * cpucheck.c - the CPU backend's run-time checks of synchronisation, for
 * kernels translated with kernc -g: barrier divergence, and the race
 * detector of kernc -g --racecheck.  Nothing here runs for a kernel
 * translated without them: the calls are in the generated code only then.
 *
 * Barrier divergence (krt_cpu_barrier).  The CPU version of a kernel runs a
 * block's threads region by region (src/emit_cpu.c); a thread that does not
 * reach a barrier (it is masked by a thread-dependent `if`, or has left a
 * loop the others go on with) simply waits in its frame's state, so a
 * divergent barrier never hangs there, where a GPU hangs or corrupts shared
 * memory.  At each barrier the generated code calls krt_cpu_barrier with the
 * threads' states: a thread still live but not running there is marked with
 * the barrier's line (its frame's krt_missed); when such a thread later
 * reaches a barrier, or exits (seen at a later barrier or at the end of the
 * kernel), the launch fails (KRT_EKERNEL) naming the barrier it missed, the
 * threads that missed it and where they were instead.  A thread that had
 * returned before the barrier is not waited for: barriers wait only for
 * the live threads of a block (the early `if i >= n: return`).
 *
 * The race detector (krt_rc_*).  Shadow memory for the block's shared memory
 * (static and dynamic), one record per byte: the last writer and up to two
 * readers of the current barrier interval, each with its thread, its line
 * and the interval it happened in.  Every checked access of the kernel
 * (kernc -g's krt_cpu_pick, which becomes krt_rc_pick under --racecheck)
 * passes its address here; those outside the block's shared memory are not
 * tracked.  A barrier (syncthreads, its _count/_and/_or forms, a grid sync)
 * starts a new interval for the block; syncwarp one for each warp, so two
 * lanes of a warp separated by a syncwarp do not race, as compute-sanitizer's
 * racecheck treats warp-synchronous code since Volta (without the syncwarp,
 * lanes of one warp race as any two threads do).  Atomics are not races.
 * Two accesses of different threads to one byte in one interval, at least
 * one a plain write, fail the launch with both lines and both threads.  The
 * state is per host thread (a block runs on one host thread between two
 * grid syncs) and kept from block to block: interval numbers only grow, so
 * a new block needs no clearing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernrt.h"

/* Thread states, as kernrt_device.h defines them for the generated code. */
enum { KRT_CK_RUNNING = 0, KRT_CK_RETURNED = -1 };

static void krt_ck_tid(const krt_cpu_block *b, unsigned t, unsigned *x, unsigned *y,
                       unsigned *z)
{
    *x = t % b->block_dim.x;
    *y = t / b->block_dim.x % b->block_dim.y;
    *z = t / b->block_dim.x / b->block_dim.y;
}

/* Append the threads t (0 <= t < n) with sel[t] to buf as ranges of
 * consecutive linear indices, "(16,0,0)-(31,0,0), (40,0,0)", at most four. */
static void krt_ck_ranges(const krt_cpu_block *b, const unsigned char *sel, unsigned n,
                          char *buf, size_t size)
{
    size_t len = strlen(buf);
    unsigned t = 0, shown = 0;
    unsigned x, y, z;

    while (t < n) {
        if (!sel[t]) {
            t++;
            continue;
        }
        unsigned lo = t;
        while (t < n && sel[t])
            t++;
        if (shown == 4) {
            snprintf(buf + len, size - len, ", ...");
            return;
        }
        krt_ck_tid(b, lo, &x, &y, &z);
        len += (size_t)snprintf(buf + len, size - len, "%s(%u,%u,%u)", shown ? ", " : "", x, y, z);
        if (len >= size)
            return;
        if (t - 1 > lo) {
            krt_ck_tid(b, t - 1, &x, &y, &z);
            len += (size_t)snprintf(buf + len, size - len, "-(%u,%u,%u)", x, y, z);
            if (len >= size)
                return;
        }
        shown++;
    }
}

int krt_cpu_barrier(const krt_cpu_block *b, int *state, int *missed, size_t stride,
                    const char *file, int line, const char *what)
{
    unsigned n = b->block_dim.x * b->block_dim.y * b->block_dim.z, t;
    int bad = 0;

    if (*b->error != KRT_OK)
        return *b->error;
    if (what != NULL) {
        /* a barrier that no thread reached did not happen (every thread
         * skipped it together, e.g. by a uniform `continue`) */
        for (t = 0; t < n; t++)
            if (*(int *)((char *)state + (size_t)t * stride) == KRT_CK_RUNNING)
                break;
        if (t == n)
            return KRT_OK;
    }
    for (t = 0; t < n; t++) {
        int st = *(int *)((char *)state + (size_t)t * stride);
        int *m = (int *)((char *)missed + (size_t)t * stride);
        if (st == KRT_CK_RUNNING || st == KRT_CK_RETURNED || what == NULL) {
            if (*m != 0 && bad == 0)
                bad = *m;    /* here, or gone, without the barrier it missed */
        } else if (*m == 0) {
            *m = line;       /* live, waiting elsewhere: misses this one */
        }
    }
    if (bad == 0)
        return KRT_OK;

    /* the barrier at line `bad` was missed by threads that are here now
     * or have exited since */
    unsigned char *here = calloc(n, 1), *gone = calloc(n, 1);
    unsigned nhere = 0, ngone = 0;
    char msg[900], a[256] = "", c[256] = "";
    if (here == NULL || gone == NULL) {
        free(here);
        free(gone);
        return krt_cpu_fail(b, KRT_EKERNEL, "barrier divergence (no memory for the details)");
    }
    for (t = 0; t < n; t++) {
        int st = *(int *)((char *)state + (size_t)t * stride);
        int m = *(int *)((char *)missed + (size_t)t * stride);
        if (m != bad)
            continue;
        if (what != NULL && st == KRT_CK_RUNNING)
            here[t] = 1, nhere++;
        else if (what == NULL || st == KRT_CK_RETURNED)
            gone[t] = 1, ngone++;
    }
    size_t len = (size_t)snprintf(msg, sizeof msg,
                                  "%s:%d: barrier divergence: not every live thread of the "
                                  "block reached this barrier: ", file, bad);
    if (nhere > 0) {
        snprintf(a, sizeof a, "%u thread%s ", nhere, nhere == 1 ? "" : "s");
        krt_ck_ranges(b, here, n, a, sizeof a);
        if (bad == line)
            len += (size_t)snprintf(msg + len, sizeof msg - len,
                                    "%s reached it only in a later iteration", a);
        else
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s at the %s at %s:%d instead",
                                    a, nhere == 1 ? "was" : "were", what, file, line);
    }
    if (ngone > 0 && len < sizeof msg) {
        snprintf(c, sizeof c, "%u thread%s ", ngone, ngone == 1 ? "" : "s");
        krt_ck_ranges(b, gone, n, c, sizeof c);
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s exited without reaching it",
                                nhere > 0 ? "; " : "", c);
    }
    if (len < sizeof msg)
        snprintf(msg + len, sizeof msg - len, " (on a GPU: a hang or corrupted shared memory)");
    free(here);
    free(gone);
    return krt_cpu_fail(b, KRT_EKERNEL, msg);
}

/* ------------------------------------------------------------------ */
/* The race detector                                                   */
/* ------------------------------------------------------------------ */

/* One access: the thread (linear index), its line, the block interval
 * and its warp's interval when it happened (interval 0: none). */
typedef struct krt_rc_acc {
    uint32_t epoch, wepoch;
    uint32_t tid;
    int32_t line;
} krt_rc_acc;

typedef struct krt_rc_cell {
    krt_rc_acc w, r1, r2;
} krt_rc_cell;

typedef struct krt_rc_state {
    krt_rc_cell *shadow;
    size_t cap;                 /* cells allocated */
    const char *base, *dyn;     /* the block's shared memory, dynamic part */
    size_t static_bytes, dyn_bytes;
    uint32_t counter;           /* the last interval number handed out */
    uint32_t epoch;             /* the block's current interval */
    uint32_t *wepoch;           /* each warp's current interval */
    size_t nwarps, wcap;
} krt_rc_state;

static _Thread_local krt_rc_state krt_rc;

static uint32_t krt_rc_next(void)
{
    if (++krt_rc.counter == 0) {  /* 2^32 intervals on this thread: start over */
        memset(krt_rc.shadow, 0, krt_rc.cap * sizeof *krt_rc.shadow);
        krt_rc.counter = 1;
    }
    return krt_rc.counter;
}

int krt_rc_begin(const krt_cpu_block *b, size_t static_bytes)
{
    size_t need = static_bytes + b->dyn_shared_bytes;
    size_t warps = ((size_t)b->block_dim.x * b->block_dim.y * b->block_dim.z + 31) / 32;

    krt_rc.base = b->shared;
    krt_rc.dyn = b->dyn_shared;
    krt_rc.static_bytes = static_bytes;
    krt_rc.dyn_bytes = b->dyn_shared_bytes;
    if (need > krt_rc.cap) {
        krt_rc_cell *s = calloc(need, sizeof *s);
        if (s == NULL) {
            krt_rc.static_bytes = krt_rc.dyn_bytes = 0;
            return krt_cpu_fail(b, KRT_ENOMEM, "racecheck: no memory for the shadow of shared memory");
        }
        free(krt_rc.shadow);
        krt_rc.shadow = s;
        krt_rc.cap = need;
    }
    if (warps > krt_rc.wcap) {
        uint32_t *w = calloc(warps, sizeof *w);
        if (w == NULL) {
            krt_rc.static_bytes = krt_rc.dyn_bytes = 0;
            return krt_cpu_fail(b, KRT_ENOMEM, "racecheck: no memory");
        }
        free(krt_rc.wepoch);
        krt_rc.wepoch = w;
        krt_rc.wcap = warps;
    }
    krt_rc.nwarps = warps;
    krt_rc.epoch = krt_rc_next();
    for (size_t i = 0; i < warps; i++)
        krt_rc.wepoch[i] = krt_rc_next();
    return KRT_OK;
}

void krt_rc_sync(const krt_cpu_block *b)
{
    (void)b;
    krt_rc.epoch = krt_rc_next();
}

void krt_rc_syncwarp(const krt_cpu_block *b)
{
    (void)b;
    for (size_t i = 0; i < krt_rc.nwarps; i++)
        krt_rc.wepoch[i] = krt_rc_next();
}

/* Do access a (of another thread) and the access of thread u now happen
 * in one interval? */
static int krt_rc_concurrent(const krt_rc_acc *a, uint32_t u)
{
    if (a->epoch != krt_rc.epoch || a->tid == u)
        return 0;
    if (a->tid / 32 == u / 32 && a->wepoch != krt_rc.wepoch[u / 32])
        return 0;  /* the warp synchronised in between */
    return 1;
}

static void krt_rc_report(const krt_cpu_block *b, const char *kind, const char *prior_kind,
                          const krt_rc_acc *prior, uint32_t u, int line, const char *file,
                          const char *array, size_t offset, int is_dyn)
{
    char msg[768];
    unsigned x, y, z, px, py, pz;

    krt_ck_tid(b, u, &x, &y, &z);
    krt_ck_tid(b, prior->tid, &px, &py, &pz);
    snprintf(msg, sizeof msg,
             "%s:%d: racecheck: %s-after-%s hazard on shared memory%s%s%s (byte %zu of the "
             "block's %s shared memory): %s by thread (%u,%u,%u) at %s:%d, %s by thread "
             "(%u,%u,%u) at %s:%d, with no barrier between them",
             file, line, kind, prior_kind, array ? " '" : "", array ? array : "",
             array ? "'" : "", offset, is_dyn ? "dynamic" : "static", kind, x, y, z, file, line,
             prior_kind, px, py, pz, file, (int)prior->line);
    krt_cpu_fail(b, KRT_EKERNEL, msg);
}

void krt_rc_access(const krt_cpu_block *b, const void *p, size_t size, int kind,
                   krt_dim3 tid, const char *array, const char *file, int line)
{
    const char *c = p;
    size_t off;
    int is_dyn = 0;

    if (*b->error != KRT_OK || kind == KRT_RC_ATOMIC)
        return;
    if (krt_rc.static_bytes && c >= krt_rc.base && c + size <= krt_rc.base + krt_rc.static_bytes) {
        off = (size_t)(c - krt_rc.base);
    } else if (krt_rc.dyn_bytes && c >= krt_rc.dyn && c + size <= krt_rc.dyn + krt_rc.dyn_bytes) {
        off = krt_rc.static_bytes + (size_t)(c - krt_rc.dyn);
        is_dyn = 1;
    } else {
        return;  /* not shared memory: not tracked */
    }
    uint32_t u = (tid.z * b->block_dim.y + tid.y) * b->block_dim.x + tid.x;
    krt_rc_acc now = {krt_rc.epoch, krt_rc.wepoch[u / 32], u, line};
    size_t shown = is_dyn ? off - krt_rc.static_bytes : off;
    for (size_t i = 0; i < size; i++) {
        krt_rc_cell *cell = &krt_rc.shadow[off + i];
        if (kind == KRT_RC_WRITE) {
            if (krt_rc_concurrent(&cell->w, u)) {
                krt_rc_report(b, "write", "write", &cell->w, u, line, file, array, shown, is_dyn);
                return;
            }
            const krt_rc_acc *r = krt_rc_concurrent(&cell->r1, u) ? &cell->r1
                                  : krt_rc_concurrent(&cell->r2, u) ? &cell->r2
                                                                     : NULL;
            if (r != NULL) {
                krt_rc_report(b, "write", "read", r, u, line, file, array, shown, is_dyn);
                return;
            }
            cell->w = now;
        } else {
            if (krt_rc_concurrent(&cell->w, u)) {
                krt_rc_report(b, "read", "write", &cell->w, u, line, file, array, shown, is_dyn);
                return;
            }
            /* keep two readers of this interval that are different threads */
            if (cell->r1.epoch != krt_rc.epoch || cell->r1.tid == u)
                cell->r1 = now;
            else if (cell->r2.epoch != krt_rc.epoch || cell->r2.tid == u)
                cell->r2 = now;
        }
    }
}
