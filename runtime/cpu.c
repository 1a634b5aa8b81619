/*
 * cpu.c - the CPU backend: device memory is host memory, and a launch runs
 * the kernel's CPU function once per block on a persistent pool of threads.
 *
 * The pool is created on the first launch: KRT_CPU_THREADS threads in all
 * (default: one per online core), of which the launching thread is one, so
 * the pool holds that number minus one workers.  A launch is a job: the
 * launcher publishes it, wakes as many workers as there are blocks beyond
 * the first (each worker waits on its own event: a short spin, then a
 * semaphore, a futex on Linux; so a launch creates no thread, makes no system
 * call when launches follow each other, and wakes no idle worker
 * needlessly), runs blocks itself, then waits until the last helper signals
 * "done".  Blocks are handed out by an atomic counter, so they run in
 * parallel and in any order, as on a GPU.  Each thread owns a 64-byte-aligned shared-memory buffer and a frame
 * buffer (kernel->frame_bytes per thread of the block) that it reuses from
 * block to block; the launcher grows them before waking anyone, so a worker
 * never allocates.  Shared memory is not zeroed between blocks: CUDA does not
 * zero it either.
 *
 * A cooperative kernel (one with a grid sync, krt_kernel.cooperative) runs
 * in phases: its CPU function returns at each grid sync with the sync's
 * number in *block->resume (kernc makes the function resumable there, see
 * src/emit_*.c), so one phase runs every unfinished block, in parallel on the
 * pool, up to its next grid sync, and the next phase starts only when the
 * whole phase is done: that is the grid-wide barrier, with no thread ever
 * blocked.  Every block keeps its own shared memory and frames alive across
 * the phases, in one buffer allocated for the launch (the cooperative limit,
 * KRT_CPU_COOP_BUDGET, bounds it).
 *
 * Launches run one at a time, serialised by the pool's lock.  A kernel
 * reports an error through *block->error or krt_cpu_fail(); the first
 * failing block wins, no further blocks start, and the launch returns its
 * status.
 *
 * A kernel translated without -g has no bounds checks, so it can write
 * anywhere; the runtime keeps its own state out of reach and turns the
 * faults it can catch into a status.  Block shared memory and thread frames
 * are mappings of their own (mmap), each between two PROT_NONE guard
 * regions, never next to malloc'd runtime state, with the data placed
 * against the guard that follows it, so an overrun of shared memory or of
 * the frames faults at once.  While a thread runs a block, a SIGSEGV,
 * SIGBUS or SIGFPE on it is caught (a handler installed once, on an
 * alternate signal stack so that a stack overflow is caught too) and
 * leaves the block with siglongjmp: the launch fails with KRT_EKERNEL,
 * naming the kernel and the block, and the pool goes on.  A fault anywhere
 * else goes to the handler that was installed before, or kills the process
 * as it would have.
 *
 * Streams: each stream is a FIFO of tasks (copies, launches, host functions,
 * event records and waits) run in order by the stream's own thread, so the
 * host returns as soon as a task is queued; a launch task runs on the same
 * pool as any launch.  The default stream (NULL) is the legacy one: its
 * copies and launches first wait until every stream has drained (an atomic
 * count of pending tasks makes that free when streams are idle), then run
 * on the calling thread.  One lock (krt_sched) guards every queue and event
 * and one condition variable announces every completed task; that is
 * simpler than per-object signalling, and tasks are coarse.  An event is a
 * pair of counters: records issued and records completed, plus the time of
 * the latest completion; waits and queries compare the two.
 *
 * Devices: the host is one device, or KRT_CPU_DEVICES of them that share
 * its memory and its pool (so that multi-device programs and their checks
 * can be tested without GPUs); a peer copy is a copy, mapped memory is
 * ordinary aligned memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "backend.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define KRT_CPU_ALIGN 64
#define KRT_CPU_MAX_THREADS 1024
/* Cooperative grids: every block's shared and frame memory stays alive
 * across grid barriers, so the co-resident limit is a memory budget. */
#define KRT_CPU_COOP_MAX_BLOCKS 65535u
#define KRT_CPU_COOP_BUDGET ((uint64_t)1 << 30)

static size_t krt_cpu_round(size_t n)
{
    return (n + KRT_CPU_ALIGN - 1) & ~(size_t)(KRT_CPU_ALIGN - 1);
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* Wait until every stream has run the tasks queued so far (the default
 * stream's rule); defined with the streams below. */
static void krt_cpu_drain(void);
typedef struct krt_cpu_stream krt_cpu_stream;
static int krt_cpu_enqueue_copy(krt_cpu_stream *s, void *dst,
                                const void *src, size_t bytes);

/* KRT_CPU_DEVICES: how many devices the host poses as (init reads it). */
#define KRT_CPU_MAX_DEVICES 64
static int krt_cpu_ndevices = 1;

static int krt_cpu_init(void)
{
    const char *env = getenv("KRT_CPU_DEVICES");
    char *end;
    long n;

    if (env != NULL && *env != '\0') {
        errno = 0;
        n = strtol(env, &end, 10);
        if (errno != 0 || *end != '\0' || n < 1 || n > KRT_CPU_MAX_DEVICES)
            return krt__error(KRT_EINVAL,
                              "KRT_CPU_DEVICES='%s': expected a number of "
                              "devices from 1 to %d",
                              env, KRT_CPU_MAX_DEVICES);
        krt_cpu_ndevices = (int)n;
    }
    return KRT_OK;
}

static int krt_cpu_alloc(void **ptr, size_t bytes)
{
    /* Round up so that vector loads at the tail stay inside the block. */
    if (posix_memalign(ptr, KRT_CPU_ALIGN, krt_cpu_round(bytes)) != 0) {
        *ptr = NULL;
        return krt__error(KRT_ENOMEM, "cannot allocate %zu bytes", bytes);
    }
    return KRT_OK;
}

/* Queued tasks may still use the memory: wait for them, as cudaFree. */
static int krt_cpu_free(void *ptr)
{
    krt_cpu_drain();
    free(ptr);
    return KRT_OK;
}

static int krt_cpu_copy(void *dst, const void *src, size_t bytes,
                        krt_stream *stream)
{
    if (stream != NULL)
        return krt_cpu_enqueue_copy(stream->impl, dst, src, bytes);
    krt_cpu_drain();
    memmove(dst, src, bytes);
    return KRT_OK;
}

/* krt_free_async saw the work that used ptr finish: nothing to wait for. */
static int krt_cpu_release(void *ptr)
{
    free(ptr);
    return KRT_OK;
}

/* Every device is the host: a peer copy is a copy. */
static int krt_cpu_copy_peer(void *dst, int dst_dev, const void *src,
                             int src_dev, size_t bytes, krt_stream *stream)
{
    (void)dst_dev;
    (void)src_dev;
    return krt_cpu_copy(dst, src, bytes, stream);
}

/* ------------------------------------------------------------------ */
/* The pool                                                            */
/* ------------------------------------------------------------------ */

typedef struct krt_cpu_job {
    const krt_kernel *kernel;
    krt_launch_cfg cfg;
    void **args;
    uint64_t nblocks;
    size_t static_bytes;             /* rounded: dyn_shared starts there */
    size_t shared_total, frame_total;  /* per block: static + dynamic, frames */
    uint64_t chunk;                  /* blocks taken per grab of next */
    /* On a cache line of its own: every worker bumps it, and a line shared
     * with fields they only read would bounce between cores. */
    _Alignas(64) _Atomic uint64_t next;   /* next block to hand out */
    _Alignas(64) _Atomic int error;       /* first error wins */
    /* Cooperative launches: block b's memory at coop_mem + b * coop_stride
     * (shared, then dynamic shared, then frames at coop_frame), its resume
     * point resume[b]; phase 0 starts every block, a later phase resumes
     * those that stopped at a grid sync (resume[b] != 0). */
    char *coop_mem;
    size_t coop_stride, coop_frame;
    int *resume;
    unsigned phase;
    uint64_t error_block;            /* written by the winner only */
    char message[512];               /* the winner's krt_cpu_fail text */
} krt_cpu_job;

/* A one-waiter event on a counter: the waiter spins a short while (a launch
 * often follows a launch), then sleeps on a semaphore; the signaller posts
 * only to a waiter that sleeps, so the fast path makes no system call.  The
 * state says "asleep until the counter leaves OLD" as 2 * OLD + 1, and a
 * signaller moving the counter from P wakes only a sleeper on 2 * P + 1: a
 * late signaller of an earlier launch can never wake the waiter of a later
 * one.  The handshake (seq_cst store, then load, on both sides) guarantees
 * that either the waiter sees the new value or the signaller sees it asleep. */
#define KRT_PARK_AWAKE ((uint64_t)0)
#define KRT_PARK_WOKEN ((uint64_t)2)
#define KRT_PARK_SLEEPING(old) (2 * (uint64_t)(old) + 1)

typedef struct krt_cpu_event {
    _Atomic uint64_t state;
    sem_t sem;
} krt_cpu_event;

#define KRT_CPU_SPIN_NS 50000        /* how long a waiter spins first */

static inline void krt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint64_t krt_cpu_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Return once *word != old. */
static void krt_cpu_park(krt_cpu_event *p, _Atomic uint64_t *word,
                         uint64_t old)
{
    uint64_t deadline = 0, expected;
    unsigned i;

    for (i = 1;; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != old)
            return;
        krt_cpu_relax();
        if ((i & 255) == 0) {
            uint64_t t = krt_cpu_now_ns();
            if (deadline == 0)
                deadline = t + KRT_CPU_SPIN_NS;
            else if (t > deadline)
                break;
            /* Let a thread that has work run when cores are oversubscribed. */
            sched_yield();
        }
    }
    atomic_store(&p->state, KRT_PARK_SLEEPING(old));
    if (atomic_load(word) != old) {
        expected = KRT_PARK_SLEEPING(old);
        if (atomic_compare_exchange_strong(&p->state, &expected,
                                           KRT_PARK_AWAKE))
            return;
        /* The signaller saw us asleep and posts: consume that post. */
    }
    while (sem_wait(&p->sem) != 0 && errno == EINTR)
        ;
    atomic_store(&p->state, KRT_PARK_AWAKE);
}

/* Set *word = value and wake the waiter if it sleeps on the old value. */
static void krt_cpu_unpark(krt_cpu_event *p, _Atomic uint64_t *word,
                           uint64_t value)
{
    uint64_t prev = atomic_exchange(word, value);
    uint64_t expected = KRT_PARK_SLEEPING(prev);

    if (atomic_load(&p->state) == expected &&
        atomic_compare_exchange_strong(&p->state, &expected, KRT_PARK_WOKEN))
        sem_post(&p->sem);
}

/* ---- memory a kernel may overrun ---- */

/* Bytes of PROT_NONE before and after each region: larger than a stride
 * a kernel is likely to jump over in one step past its end. */
#define KRT_CPU_GUARD ((size_t)64 * 1024)

/* One mapping: guard, cap bytes of pages, guard.  A use of n bytes takes
 * the last n (rounded) of the pages, krt_cpu_tail, so that it ends where
 * the second guard starts. */
typedef struct krt_cpu_guarded {
    char *base;                      /* the whole mapping; NULL: none */
    size_t len;
    char *end;                       /* where the second guard starts */
    size_t cap;
} krt_cpu_guarded;

/* NULL for a region not mapped yet (a cooperative launch, which has its
 * own, leaves the workers' alone). */
static char *krt_cpu_tail(const krt_cpu_guarded *g, size_t bytes)
{
    if (g->end == NULL)
        return NULL;
    return g->end - krt_cpu_round(bytes > 0 ? bytes : 1);
}

static size_t krt_cpu_page(void)
{
    static size_t page;

    if (page == 0) {
        long n = sysconf(_SC_PAGESIZE);
        page = n > 0 ? (size_t)n : 4096;
    }
    return page;
}

static void krt_cpu_unmap(krt_cpu_guarded *g)
{
    if (g->base != NULL)
        munmap(g->base, g->len);
    memset(g, 0, sizeof *g);
}

/* Map g for at least bytes (> 0); g is left as it was on failure. */
static int krt_cpu_map(krt_cpu_guarded *g, size_t bytes, const char *what)
{
    size_t page = krt_cpu_page(), cap = krt_cpu_round(bytes);
    size_t body = (cap + page - 1) / page * page, len = body + 2 * KRT_CPU_GUARD;
    char *base;

    if (body < cap || len < body)
        return krt__error(KRT_ENOMEM, "cannot allocate %zu bytes of %s",
                          bytes, what);
    base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return krt__error(KRT_ENOMEM, "cannot allocate %zu bytes of %s: %s",
                          bytes, what, strerror(errno));
    if (mprotect(base + KRT_CPU_GUARD, body, PROT_READ | PROT_WRITE) != 0) {
        munmap(base, len);
        return krt__error(KRT_ENOMEM, "cannot allocate %zu bytes of %s: %s",
                          bytes, what, strerror(errno));
    }
    krt_cpu_unmap(g);
    g->base = base;
    g->len = len;
    g->cap = body;
    g->end = base + KRT_CPU_GUARD + body;
    return KRT_OK;
}

/* ---- faults inside a kernel ---- */

/* The block this thread runs, while it runs it. */
typedef struct krt_cpu_trap {
    sigjmp_buf env;
    volatile sig_atomic_t armed;
    int signo;
    void *addr;
} krt_cpu_trap;

static _Thread_local krt_cpu_trap *krt_cpu_trap_cur;
static _Thread_local int krt_cpu_altstack_done;
static struct sigaction krt_cpu_old_action[3];
static const int krt_cpu_fault_signals[3] = {SIGSEGV, SIGBUS, SIGFPE};
static pthread_once_t krt_cpu_trap_once = PTHREAD_ONCE_INIT;
static pthread_key_t krt_cpu_altstack_key;

static void krt_cpu_on_fault(int sig, siginfo_t *info, void *uc)
{
    krt_cpu_trap *t = krt_cpu_trap_cur;
    const struct sigaction *old = NULL;
    int i;

    if (t != NULL && t->armed) {
        t->armed = 0;
        t->signo = sig;
        t->addr = info != NULL ? info->si_addr : NULL;
        siglongjmp(t->env, 1);
    }
    /* Not a kernel's: as if this handler had never been installed. */
    for (i = 0; i < 3; i++)
        if (krt_cpu_fault_signals[i] == sig)
            old = &krt_cpu_old_action[i];
    if (old != NULL && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
        old->sa_sigaction(sig, info, uc);
    } else if (old != NULL && old->sa_handler != SIG_DFL &&
               old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    } else {
        /* returning re-executes the faulting instruction: default action */
        signal(sig, SIG_DFL);
    }
}

static void krt_cpu_altstack_free(void *stack)
{
    stack_t off;

    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    munmap(stack, (size_t)SIGSTKSZ * 4);
}

static void krt_cpu_trap_install(void)
{
    struct sigaction sa;
    int i;

    pthread_key_create(&krt_cpu_altstack_key, krt_cpu_altstack_free);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = krt_cpu_on_fault;
    /* NODEFER: siglongjmp leaves the handler without restoring the mask,
     * so the signal must not be blocked while it runs. */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < 3; i++)
        sigaction(krt_cpu_fault_signals[i], &sa, &krt_cpu_old_action[i]);
}

/* Once per thread that runs blocks: an alternate signal stack, unless the
 * thread has one (the program's own), freed when the thread exits. */
static void krt_cpu_trap_thread(void)
{
    stack_t cur, st;
    void *mem;

    pthread_once(&krt_cpu_trap_once, krt_cpu_trap_install);
    if (krt_cpu_altstack_done)
        return;
    krt_cpu_altstack_done = 1;
    if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return;
    mem = mmap(NULL, (size_t)SIGSTKSZ * 4, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return;
    memset(&st, 0, sizeof st);
    st.ss_sp = mem;
    st.ss_size = (size_t)SIGSTKSZ * 4;
    if (sigaltstack(&st, NULL) != 0) {
        munmap(mem, st.ss_size);
        return;
    }
    pthread_setspecific(krt_cpu_altstack_key, mem);
}

/* Run one block; 0, or the signal that ended it (details in *t).  Apart,
 * so that nothing of the caller lives across the sigsetjmp. */
static int krt_cpu_run_block(const krt_kernel *k, const krt_cpu_block *blk,
                             void **args, krt_cpu_trap *t)
{
    if (sigsetjmp(t->env, 0) != 0)
        return t->signo;
    t->armed = 1;
    k->cpu(blk, args);
    t->armed = 0;
    return 0;
}

/* The signals a thread of ours leaves unblocked: the faults of its own
 * instructions, which cannot be handled on another thread. */
static void krt_cpu_thread_sigmask(sigset_t *set)
{
    int i;

    sigfillset(set);
    for (i = 0; i < 3; i++)
        sigdelset(set, krt_cpu_fault_signals[i]);
}

/* Aligned to a cache line: a spinning worker polls its own `go` only. */
typedef struct krt_cpu_worker {
    _Alignas(64) pthread_t thread;
    krt_cpu_event park;
    _Atomic uint64_t go;             /* the launch to join (its generation) */
    krt_cpu_guarded shared;
    krt_cpu_guarded frame;
} krt_cpu_worker;

static struct {
    pthread_mutex_t lock;            /* one job at a time */
    int started;
    int nthreads;                    /* workers + the launching thread */
    krt_cpu_worker *workers;         /* [0] is the launching thread's slot */
    krt_cpu_job *job;                /* published before the wake-ups */
    uint64_t gen;                    /* launches that used helpers */
    _Atomic int pending;             /* helpers still running the job */
    _Atomic uint64_t done_gen;       /* gen of the last job finished */
    krt_cpu_event done;              /* the launcher waits here */
} krt_pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* krt_cpu_fail's text, on the thread that runs the failing block. */
static _Thread_local char krt_cpu_fail_msg[512];

static int krt_cpu_status_valid(int status)
{
    return status < 0 && status > -KRT_STATUS_COUNT_;
}

int krt_cpu_fail(const krt_cpu_block *block, int status, const char *message)
{
    if (!krt_cpu_status_valid(status))
        status = KRT_EKERNEL;
    if (block != NULL && block->error != NULL && *block->error == KRT_OK) {
        *block->error = status;
        snprintf(krt_cpu_fail_msg, sizeof krt_cpu_fail_msg, "%s",
                 message != NULL ? message : "");
    }
    return status;
}

/* Run blocks of job until none is left (or one failed). */
static void krt_cpu_run(krt_cpu_job *job, krt_cpu_worker *w)
{
    const krt_kernel *k = job->kernel;
    krt_dim3 g = job->cfg.grid;
    uint64_t b, end = 0, plane = (uint64_t)g.x * g.y;
    krt_cpu_block blk;
    int err, no_resume = 0;
    unsigned ndone = 1;

    blk.block_dim = job->cfg.block;
    blk.grid_dim = g;
    krt_cpu_trap trap;
    int sig;

    blk.shared = krt_cpu_tail(&w->shared, job->shared_total);
    blk.dyn_shared = blk.shared ? blk.shared + job->static_bytes : NULL;
    blk.dyn_shared_bytes = job->cfg.shared_bytes;
    blk.frame = krt_cpu_tail(&w->frame, job->frame_total);
    blk.error = &err;
    blk.resume = &no_resume;
    blk.nbx = 1;
    blk.ndone = &ndone;
    krt_cpu_trap_thread();
    memset(&trap, 0, sizeof trap);
    krt_cpu_trap_cur = &trap;

    /* Blocks are taken `chunk` at a time: one atomic add per block costs
     * more than a small block's work once two cores contend for it. */
    for (b = 0;; b++) {
        /* the first failing block wins: none starts after it */
        if (atomic_load_explicit(&job->error, memory_order_relaxed) != KRT_OK)
            break;
        if (b >= end) {
            b = atomic_fetch_add_explicit(&job->next, job->chunk, memory_order_relaxed);
            if (b >= job->nblocks)
                break;
            end = b + job->chunk < job->nblocks ? b + job->chunk : job->nblocks;
        }
        if (job->resume != NULL) {
            char *m = job->coop_mem + b * job->coop_stride;
            if (job->phase > 0 && job->resume[b] == 0)
                continue;            /* finished in an earlier phase */
            blk.shared = m;
            blk.dyn_shared = m + job->static_bytes;
            blk.frame = m + job->coop_frame;
            blk.resume = &job->resume[b];
        }
        blk.block_idx.x = (unsigned)(b % g.x);
        blk.block_idx.y = (unsigned)(b / g.x % g.y);
        blk.block_idx.z = (unsigned)(b / plane);
        /* the rest of the grab along x: a kernel may run them in one call */
        blk.nbx = 1;
        if (job->resume == NULL) {
            uint64_t row = g.x - blk.block_idx.x;
            blk.nbx = (unsigned)(end - b < row ? end - b : row);
        }
        ndone = 1;
        err = KRT_OK;
        krt_cpu_fail_msg[0] = '\0';
        sig = krt_cpu_run_block(k, &blk, job->args, &trap);
        if (sig != 0) {
            err = KRT_EKERNEL;
            snprintf(krt_cpu_fail_msg, sizeof krt_cpu_fail_msg,
                     "%s at address %p while running the kernel (an "
                     "out-of-bounds access? translate with kernc -g for "
                     "bounds checks)",
                     sig == SIGSEGV ? "memory fault (SIGSEGV)"
                     : sig == SIGBUS ? "bus error (SIGBUS)"
                                     : "arithmetic fault (SIGFPE)",
                     trap.addr);
        }
        if (err != KRT_OK) {
            int expected = KRT_OK;
            int status = krt_cpu_status_valid(err) ? err : KRT_EKERNEL;
            if (atomic_compare_exchange_strong(&job->error, &expected,
                                               status)) {
                job->error_block = b;
                memcpy(job->message, krt_cpu_fail_msg, sizeof job->message);
            }
            break;
        }
        if (ndone > 1 && ndone <= blk.nbx)
            b += ndone - 1;
    }
    krt_cpu_trap_cur = NULL;
}

static void *krt_cpu_worker_main(void *arg)
{
    krt_cpu_worker *w = arg;
    uint64_t seen = 0;

    for (;;) {
        krt_cpu_park(&w->park, &w->go, seen);
        seen = atomic_load_explicit(&w->go, memory_order_acquire);
        krt_cpu_run(krt_pool.job, w);
        if (atomic_fetch_sub_explicit(&krt_pool.pending, 1,
                                      memory_order_acq_rel) == 1)
            krt_cpu_unpark(&krt_pool.done, &krt_pool.done_gen, seen);
    }
    return NULL;
}

/* KRT_CPU_THREADS, or the number of online cores. */
static int krt_cpu_thread_count(int *out)
{
    const char *env = getenv("KRT_CPU_THREADS");
    char *end;
    long n;

    if (env != NULL && *env != '\0') {
        errno = 0;
        n = strtol(env, &end, 10);
        if (errno != 0 || *end != '\0' || n < 1 || n > KRT_CPU_MAX_THREADS)
            return krt__error(KRT_EINVAL,
                              "KRT_CPU_THREADS='%s': expected a number of "
                              "threads from 1 to %d",
                              env, KRT_CPU_MAX_THREADS);
    } else {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
        if (n > KRT_CPU_MAX_THREADS)
            n = KRT_CPU_MAX_THREADS;
    }
    *out = (int)n;
    return KRT_OK;
}

/* Start the workers; called under krt_pool.lock.  If the system refuses
 * threads, the pool keeps those it got (at least the launching thread). */
static int krt_cpu_start(void)
{
    int n = 1, i;

    KRT_TRY(krt_cpu_thread_count(&n));
    if (posix_memalign((void **)&krt_pool.workers, 64,
                       (size_t)n * sizeof *krt_pool.workers) != 0)
        return krt__error(KRT_ENOMEM, "cannot allocate the thread pool");
    memset(krt_pool.workers, 0, (size_t)n * sizeof *krt_pool.workers);
    if (sem_init(&krt_pool.done.sem, 0, 0) != 0) {
        free(krt_pool.workers);
        krt_pool.workers = NULL;
        return krt__error(KRT_EINTERNAL, "sem_init: %s", strerror(errno));
    }
    krt_pool.nthreads = 1;
    for (i = 1; i < n; i++) {
        krt_cpu_worker *w = &krt_pool.workers[i];
        pthread_attr_t attr;
        sigset_t all, old;
        int failed;

        if (sem_init(&w->park.sem, 0, 0) != 0)
            break;
        /* Workers take no signals: those belong to the program's threads;
         * only the faults of their own kernels come to them. */
        krt_cpu_thread_sigmask(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        failed = pthread_create(&w->thread, &attr, krt_cpu_worker_main, w);
        pthread_attr_destroy(&attr);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (failed) {
            sem_destroy(&w->park.sem);
            break;
        }
        krt_pool.nthreads++;
    }
    krt_pool.started = 1;
    return KRT_OK;
}

/* Make w's buffers hold shared and frame bytes (never NULL afterwards). */
static int krt_cpu_reserve(krt_cpu_worker *w, size_t shared, size_t frame)
{
    shared = krt_cpu_round(shared > 0 ? shared : 1);
    frame = krt_cpu_round(frame > 0 ? frame : 1);
    if (shared > w->shared.cap)
        KRT_TRY(krt_cpu_map(&w->shared, shared, "shared memory"));
    if (frame > w->frame.cap)
        KRT_TRY(krt_cpu_map(&w->frame, frame, "thread frames"));
    return KRT_OK;
}

static int krt_cpu_kernel_limits(const krt_kernel *k, size_t *static_shared,
                                 unsigned *max_threads)
{
    if (k->cpu == NULL)
        return krt__error(KRT_ENOCODE,
                          "kernel was not compiled for the cpu backend (no "
                          "CPU code: translate it with kernc --target c)");
    *static_shared = k->shared_bytes;
    *max_threads = KRT_MAX_BLOCK_THREADS;
    return KRT_OK;
}

/* Run every block of job once on the launching thread and `helpers`
 * workers; returns when all are done. */
static void krt_cpu_run_pooled(krt_cpu_job *job, int helpers)
{
    int i;

    atomic_store(&job->next, 0);
    if (helpers > 0) {
        krt_pool.job = job;
        krt_pool.gen++;
        atomic_store(&krt_pool.pending, helpers);
        for (i = 1; i <= helpers; i++)
            krt_cpu_unpark(&krt_pool.workers[i].park,
                           &krt_pool.workers[i].go, krt_pool.gen);
    }
    krt_cpu_run(job, &krt_pool.workers[0]);
    if (helpers > 0) {
        krt_cpu_park(&krt_pool.done, &krt_pool.done_gen, krt_pool.gen - 1);
        krt_pool.job = NULL;
    }
}

/* A cooperative launch: phases until every block has finished (see the
 * opening comment); shared is the static + dynamic shared bytes of one
 * block, frame its frames' bytes. */
static int krt_cpu_run_cooperative(krt_cpu_job *job, int helpers,
                                   size_t shared, size_t frame)
{
    uint64_t b, stride, bytes;
    krt_cpu_guarded coop;
    int more;

    job->coop_frame = krt_cpu_round(shared > 0 ? shared : 1);
    stride = job->coop_frame + krt_cpu_round(frame > 0 ? frame : 1);
    bytes = stride * job->nblocks;
    if (bytes / stride != job->nblocks || (size_t)bytes != bytes)
        return krt__error(KRT_ENOMEM, "cooperative launch: %llu blocks are "
                          "too many to keep in memory",
                          (unsigned long long)job->nblocks);
    job->coop_stride = (size_t)stride;
    job->resume = calloc((size_t)job->nblocks, sizeof *job->resume);
    if (job->resume == NULL)
        return krt__error(KRT_ENOMEM, "cooperative launch: no memory");
    memset(&coop, 0, sizeof coop);
    if (krt_cpu_map(&coop, (size_t)bytes, "cooperative block memory") != KRT_OK) {
        free(job->resume);
        job->resume = NULL;
        return KRT_ENOMEM;
    }
    job->coop_mem = krt_cpu_tail(&coop, (size_t)bytes);
    for (job->phase = 0;; job->phase++) {
        krt_cpu_run_pooled(job, helpers);
        if (atomic_load(&job->error) != KRT_OK)
            break;
        more = 0;
        for (b = 0; b < job->nblocks && !more; b++)
            more = job->resume[b] != 0;
        if (!more)
            break;
    }
    krt_cpu_unmap(&coop);
    free(job->resume);
    job->coop_mem = NULL;
    job->resume = NULL;
    return KRT_OK;
}

static int krt_cpu_launch_locked(const krt_kernel *k,
                                 const krt_launch_cfg *cfg, void **args)
{
    krt_cpu_job job;
    uint64_t threads = (uint64_t)cfg->block.x * cfg->block.y * cfg->block.z;
    size_t shared, frame;
    int helpers, i;

    if (!krt_pool.started)
        KRT_TRY(krt_cpu_start());
    memset(&job, 0, sizeof job);
    job.kernel = k;
    job.cfg = *cfg;
    job.args = args;
    job.nblocks = (uint64_t)cfg->grid.x * cfg->grid.y * cfg->grid.z;
    job.static_bytes = krt_cpu_round(k->shared_bytes);
    atomic_init(&job.next, 0);
    atomic_init(&job.error, KRT_OK);
    /* about 16 grabs per thread: balance stays good, contention low */
    job.chunk = job.nblocks / (16u * (unsigned)krt_pool.nthreads);
    if (job.chunk < 1)
        job.chunk = 1;
    if (job.chunk > 64)
        job.chunk = 64;

    /* The launching thread runs blocks too: wake one helper per extra block
     * at most. */
    helpers = krt_pool.nthreads - 1;
    if ((uint64_t)helpers > job.nblocks - 1)
        helpers = (int)(job.nblocks - 1);
    shared = job.static_bytes + cfg->shared_bytes;
    frame = k->frame_bytes * (size_t)threads;
    if (k->frame_bytes != 0 && frame / k->frame_bytes != threads)
        return krt__error(KRT_ENOMEM, "thread frames are too large");
    job.shared_total = shared;
    job.frame_total = frame;
    if (k->cooperative) {
        KRT_TRY(krt_cpu_run_cooperative(&job, helpers, shared, frame));
    } else {
        for (i = 0; i <= helpers; i++)
            KRT_TRY(krt_cpu_reserve(&krt_pool.workers[i], shared, frame));
        krt_cpu_run_pooled(&job, helpers);
    }

    if (job.error != KRT_OK) {
        uint64_t b = job.error_block, plane = (uint64_t)cfg->grid.x *
                                              cfg->grid.y;
        return krt__error(job.error, "block (%u, %u, %u): %s",
                          (unsigned)(b % cfg->grid.x),
                          (unsigned)(b / cfg->grid.x % cfg->grid.y),
                          (unsigned)(b / plane),
                          job.message[0] != '\0' ? job.message
                                                 : krt_strerror(job.error));
    }
    return KRT_OK;
}


static int krt_cpu_launch_pooled(const krt_kernel *k,
                                 const krt_launch_cfg *cfg, void **args)
{
    int status;

    pthread_mutex_lock(&krt_pool.lock);
    status = krt_cpu_launch_locked(k, cfg, args);
    pthread_mutex_unlock(&krt_pool.lock);
    return status;
}

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */

enum krt_cpu_task_kind {
    KRT_TASK_COPY,
    KRT_TASK_HOST,                   /* a host function */
    KRT_TASK_LAUNCH,
    KRT_TASK_RECORD,                 /* complete record n of an event */
    KRT_TASK_WAIT                    /* wait until record n completed */
};

typedef struct krt_cpu_ev {
    uint64_t issued;                 /* records issued so far */
    uint64_t completed;              /* the highest record completed */
    uint64_t time_ns;                /* when that record completed */
    int refs;                        /* the handle + tasks naming it */
} krt_cpu_ev;

typedef struct krt_cpu_task {
    struct krt_cpu_task *next;
    int kind;
    union {
        struct {
            void *dst;
            const void *src;
            size_t bytes;
        } copy;
        struct {
            void (*fn)(void *);
            void *arg;
        } host;
        struct {
            const krt_kernel *k;
            krt_launch_cfg cfg;
            void **args;             /* into the task's own allocation */
        } launch;
        struct {
            krt_cpu_ev *ev;
            uint64_t n;
        } event;
    } u;
} krt_cpu_task;

struct krt_cpu_stream {
    pthread_t thread;
    pthread_cond_t wake;             /* a task arrived, or closing */
    krt_cpu_task *head, *tail;       /* head runs; popped when done */
    int pending;                     /* queued or running */
    int closing;
    int error;                       /* first failing task, until reported */
    char message[512];
    krt_cpu_stream *next;
};

static struct {
    pthread_mutex_t lock;            /* queues, events, the stream list */
    pthread_cond_t done;             /* broadcast when any task completes */
    krt_cpu_stream *streams;
    _Atomic long pending;            /* tasks pending on all streams */
} krt_sched = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0};

static void krt_cpu_drain(void)
{
    if (atomic_load_explicit(&krt_sched.pending, memory_order_acquire) == 0)
        return;
    pthread_mutex_lock(&krt_sched.lock);
    while (atomic_load(&krt_sched.pending) > 0)
        pthread_cond_wait(&krt_sched.done, &krt_sched.lock);
    pthread_mutex_unlock(&krt_sched.lock);
}

/* Called with krt_sched.lock held. */
static void krt_cpu_ev_release(krt_cpu_ev *ev)
{
    if (--ev->refs == 0)
        free(ev);
}

static void krt_cpu_ev_complete(krt_cpu_ev *ev, uint64_t n)
{
    if (n >= ev->completed) {
        ev->completed = n;
        ev->time_ns = krt_cpu_now_ns();
    }
}

static void krt_cpu_push(krt_cpu_stream *s, krt_cpu_task *t)
{
    t->next = NULL;
    pthread_mutex_lock(&krt_sched.lock);
    if (s->tail != NULL)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    s->pending++;
    atomic_fetch_add(&krt_sched.pending, 1);
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&krt_sched.lock);
}

static krt_cpu_task *krt_cpu_task_new(int kind, size_t extra)
{
    krt_cpu_task *t = calloc(1, sizeof *t + extra);

    if (t == NULL) {
        krt__error(KRT_ENOMEM, "no memory to queue work on a stream");
        return NULL;
    }
    t->kind = kind;
    return t;
}

static int krt_cpu_enqueue_copy(krt_cpu_stream *s, void *dst,
                                const void *src, size_t bytes)
{
    krt_cpu_task *t = krt_cpu_task_new(KRT_TASK_COPY, 0);

    if (t == NULL)
        return KRT_ENOMEM;
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.bytes = bytes;
    krt_cpu_push(s, t);
    return KRT_OK;
}

/* The bytes a launch argument occupies (CUDA copies them at launch). */
static size_t krt_cpu_arg_size(const krt_param *p)
{
    if (p->kind == KRT_PARAM_TUPLE)
        return p->ndim > 0 ? (size_t)p->ndim : 0;
    if (p->kind == KRT_PARAM_RECORD)   /* rec: its device address */
        return sizeof(void *);
    return p->kind == KRT_PARAM_ARRAY ? sizeof(krt_view)
                                      : krt_dtype_size(p->dtype);
}

static int krt_cpu_enqueue_launch(krt_cpu_stream *s, const krt_kernel *k,
                                  const krt_launch_cfg *cfg, void **args)
{
    size_t ptrs = krt_cpu_round(sizeof(krt_cpu_task)), off, size;
    krt_cpu_task *t;
    char *base;
    int i;

    off = krt_cpu_round(ptrs + (size_t)k->nparams * sizeof(void *));
    for (i = 0; i < k->nparams; i++) {
        size = krt_cpu_arg_size(&k->params[i]);
        if (size == 0)
            return krt__error(KRT_EINVAL, "parameter '%s' has an invalid "
                              "dtype %d", k->params[i].name,
                              (int)k->params[i].dtype);
        off += krt_cpu_round(size);
    }
    t = krt_cpu_task_new(KRT_TASK_LAUNCH, off - sizeof *t);
    if (t == NULL)
        return KRT_ENOMEM;
    base = (char *)t;
    t->u.launch.k = k;
    t->u.launch.cfg = *cfg;
    t->u.launch.args = (void **)(base + ptrs);
    off = krt_cpu_round(ptrs + (size_t)k->nparams * sizeof(void *));
    for (i = 0; i < k->nparams; i++) {
        size = krt_cpu_arg_size(&k->params[i]);
        memcpy(base + off, args[i], size);
        t->u.launch.args[i] = base + off;
        off += krt_cpu_round(size);
    }
    krt_cpu_push(s, t);
    return KRT_OK;
}

/* Run one task on its stream's thread (not a WAIT); the message of a
 * failure goes to msg. */
static int krt_cpu_task_run(krt_cpu_task *t, char *msg, size_t msglen)
{
    int status = KRT_OK;

    switch (t->kind) {
    case KRT_TASK_COPY:
        memmove(t->u.copy.dst, t->u.copy.src, t->u.copy.bytes);
        break;
    case KRT_TASK_HOST:
        t->u.host.fn(t->u.host.arg);
        break;
    case KRT_TASK_LAUNCH:
        status = krt_cpu_launch_pooled(t->u.launch.k, &t->u.launch.cfg,
                                       t->u.launch.args);
        if (status != KRT_OK)
            snprintf(msg, msglen, "kernel '%s' (queued on a stream): %s",
                     t->u.launch.k->name ? t->u.launch.k->name : "?",
                     krt__message());
        break;
    default:
        break;
    }
    return status;
}

static void *krt_cpu_stream_main(void *arg)
{
    krt_cpu_stream *s = arg;
    krt_cpu_task *t;
    char msg[512];
    int status;

    pthread_mutex_lock(&krt_sched.lock);
    for (;;) {
        while (s->head == NULL && !s->closing)
            pthread_cond_wait(&s->wake, &krt_sched.lock);
        if (s->head == NULL)
            break;
        t = s->head;
        status = KRT_OK;
        if (t->kind == KRT_TASK_WAIT) {
            while (t->u.event.ev->completed < t->u.event.n)
                pthread_cond_wait(&krt_sched.done, &krt_sched.lock);
        } else if (t->kind != KRT_TASK_RECORD) {
            pthread_mutex_unlock(&krt_sched.lock);
            status = krt_cpu_task_run(t, msg, sizeof msg);
            pthread_mutex_lock(&krt_sched.lock);
        }
        if (t->kind == KRT_TASK_RECORD)
            krt_cpu_ev_complete(t->u.event.ev, t->u.event.n);
        if (t->kind == KRT_TASK_RECORD || t->kind == KRT_TASK_WAIT)
            krt_cpu_ev_release(t->u.event.ev);
        if (status != KRT_OK && s->error == KRT_OK) {
            s->error = status;
            memcpy(s->message, msg, sizeof s->message);
        }
        s->head = t->next;
        if (s->head == NULL)
            s->tail = NULL;
        s->pending--;
        atomic_fetch_sub(&krt_sched.pending, 1);
        pthread_cond_broadcast(&krt_sched.done);
        free(t);
    }
    pthread_mutex_unlock(&krt_sched.lock);
    return NULL;
}

static int krt_cpu_stream_create(krt_stream *h)
{
    krt_cpu_stream *s = calloc(1, sizeof *s);
    sigset_t all, old;
    int failed;

    if (s == NULL)
        return krt__error(KRT_ENOMEM, "no memory for a stream");
    if (pthread_cond_init(&s->wake, NULL) != 0) {
        free(s);
        return krt__error(KRT_EINTERNAL, "pthread_cond_init failed");
    }
    /* The stream's thread takes no signals, as the pool's workers. */
    krt_cpu_thread_sigmask(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    failed = pthread_create(&s->thread, NULL, krt_cpu_stream_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed) {
        pthread_cond_destroy(&s->wake);
        free(s);
        return krt__error(KRT_ENOMEM, "cannot start a stream thread: %s",
                          strerror(failed));
    }
    pthread_mutex_lock(&krt_sched.lock);
    s->next = krt_sched.streams;
    krt_sched.streams = s;
    pthread_mutex_unlock(&krt_sched.lock);
    h->impl = s;
    return KRT_OK;
}

/* Report (once) the error a task of s raised; called with the lock. */
static int krt_cpu_take_error(krt_cpu_stream *s)
{
    int status = s->error;

    if (status != KRT_OK) {
        krt__error(status, "%s", s->message);
        s->error = KRT_OK;
    }
    return status;
}

/* Waits for the stream's work, then returns the error it left, if any. */
static int krt_cpu_stream_destroy(krt_stream *h)
{
    krt_cpu_stream *s = h->impl, **p;
    int status;

    pthread_mutex_lock(&krt_sched.lock);
    s->closing = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&krt_sched.lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_lock(&krt_sched.lock);
    for (p = &krt_sched.streams; *p != NULL; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    status = krt_cpu_take_error(s);
    pthread_mutex_unlock(&krt_sched.lock);
    pthread_cond_destroy(&s->wake);
    free(s);
    h->impl = NULL;
    return status;
}

static int krt_cpu_stream_synchronize(krt_stream *h)
{
    krt_cpu_stream *s = h->impl;
    int status;

    pthread_mutex_lock(&krt_sched.lock);
    while (s->pending > 0)
        pthread_cond_wait(&krt_sched.done, &krt_sched.lock);
    status = krt_cpu_take_error(s);
    pthread_mutex_unlock(&krt_sched.lock);
    return status;
}

static int krt_cpu_stream_query(krt_stream *h)
{
    krt_cpu_stream *s = h->impl;
    int busy;

    pthread_mutex_lock(&krt_sched.lock);
    busy = s->pending > 0;
    pthread_mutex_unlock(&krt_sched.lock);
    return busy ? KRT_ENOTREADY : KRT_OK;
}

static int krt_cpu_host_fn(krt_stream *h, void (*fn)(void *), void *arg)
{
    krt_cpu_task *t;

    if (h == NULL) {
        krt_cpu_drain();
        fn(arg);
        return KRT_OK;
    }
    t = krt_cpu_task_new(KRT_TASK_HOST, 0);
    if (t == NULL)
        return KRT_ENOMEM;
    t->u.host.fn = fn;
    t->u.host.arg = arg;
    krt_cpu_push(h->impl, t);
    return KRT_OK;
}

static int krt_cpu_event_create(krt_event *h)
{
    krt_cpu_ev *ev = calloc(1, sizeof *ev);

    if (ev == NULL)
        return krt__error(KRT_ENOMEM, "no memory for an event");
    ev->refs = 1;
    h->impl = ev;
    return KRT_OK;
}

/* Tasks still naming the event keep it alive until they have run. */
static int krt_cpu_event_destroy(krt_event *h)
{
    pthread_mutex_lock(&krt_sched.lock);
    krt_cpu_ev_release(h->impl);
    pthread_mutex_unlock(&krt_sched.lock);
    h->impl = NULL;
    return KRT_OK;
}

static int krt_cpu_event_record(krt_event *h, krt_stream *s)
{
    krt_cpu_ev *ev = h->impl;
    krt_cpu_task *t;
    uint64_t n;

    if (s == NULL) {
        krt_cpu_drain();
        pthread_mutex_lock(&krt_sched.lock);
        krt_cpu_ev_complete(ev, ++ev->issued);
        pthread_cond_broadcast(&krt_sched.done);
        pthread_mutex_unlock(&krt_sched.lock);
        return KRT_OK;
    }
    t = krt_cpu_task_new(KRT_TASK_RECORD, 0);
    if (t == NULL)
        return KRT_ENOMEM;
    pthread_mutex_lock(&krt_sched.lock);
    n = ++ev->issued;
    ev->refs++;
    pthread_mutex_unlock(&krt_sched.lock);
    t->u.event.ev = ev;
    t->u.event.n = n;
    krt_cpu_push(s->impl, t);
    return KRT_OK;
}

static int krt_cpu_event_synchronize(krt_event *h)
{
    krt_cpu_ev *ev = h->impl;
    uint64_t n;

    pthread_mutex_lock(&krt_sched.lock);
    n = ev->issued;
    while (ev->completed < n)
        pthread_cond_wait(&krt_sched.done, &krt_sched.lock);
    pthread_mutex_unlock(&krt_sched.lock);
    return KRT_OK;
}

static int krt_cpu_event_query(krt_event *h)
{
    krt_cpu_ev *ev = h->impl;
    int busy;

    pthread_mutex_lock(&krt_sched.lock);
    busy = ev->completed < ev->issued;
    pthread_mutex_unlock(&krt_sched.lock);
    return busy ? KRT_ENOTREADY : KRT_OK;
}

static int krt_cpu_stream_wait_event(krt_stream *s, krt_event *h)
{
    krt_cpu_ev *ev = h->impl;
    krt_cpu_task *t;
    uint64_t n;

    t = krt_cpu_task_new(KRT_TASK_WAIT, 0);
    if (t == NULL)
        return KRT_ENOMEM;
    pthread_mutex_lock(&krt_sched.lock);
    n = ev->issued;
    if (s == NULL || ev->completed >= n) {
        /* The default stream's later work runs on the host: wait here. */
        while (ev->completed < n)
            pthread_cond_wait(&krt_sched.done, &krt_sched.lock);
        pthread_mutex_unlock(&krt_sched.lock);
        free(t);
        return KRT_OK;
    }
    ev->refs++;
    pthread_mutex_unlock(&krt_sched.lock);
    t->u.event.ev = ev;
    t->u.event.n = n;
    krt_cpu_push(s->impl, t);
    return KRT_OK;
}

static int krt_cpu_event_elapsed_ms(float *ms, krt_event *start,
                                    krt_event *end)
{
    krt_cpu_ev *a = start->impl, *b = end->impl;
    int status = KRT_OK;

    pthread_mutex_lock(&krt_sched.lock);
    if (a->completed < a->issued || b->completed < b->issued)
        status = KRT_ENOTREADY;
    else
        *ms = (float)((double)(int64_t)(b->time_ns - a->time_ns) / 1e6);
    pthread_mutex_unlock(&krt_sched.lock);
    return status;
}

/* ------------------------------------------------------------------ */
/* Launch entries, synchronisation                                     */
/* ------------------------------------------------------------------ */

/* On a stream: queued with copies of the arguments.  On the default
 * stream: after every stream's work, on this thread. */
static int krt_cpu_launch(const krt_kernel *k, const krt_launch_cfg *cfg,
                          void **args)
{
    if (cfg->stream != NULL)
        return krt_cpu_enqueue_launch(cfg->stream->impl, k, cfg, args);
    krt_cpu_drain();
    return krt_cpu_launch_pooled(k, cfg, args);
}

/* Wait for every stream, and for a default-stream launch running on
 * another thread (waiting for the pool's lock waits for it). */
static int krt_cpu_synchronize(void)
{
    krt_cpu_stream *s;
    int status = KRT_OK;

    krt_cpu_drain();
    pthread_mutex_lock(&krt_pool.lock);
    pthread_mutex_unlock(&krt_pool.lock);
    pthread_mutex_lock(&krt_sched.lock);
    for (s = krt_sched.streams; s != NULL && status == KRT_OK; s = s->next)
        status = krt_cpu_take_error(s);
    pthread_mutex_unlock(&krt_sched.lock);
    return status;
}

/* 256 threads a block, fewer for a small n (a CPU thread is not free). */
static int krt_cpu_forall_block(const krt_kernel *k, int64_t n,
                                unsigned *block)
{
    size_t shared;
    unsigned max;

    KRT_TRY(krt_cpu_kernel_limits(k, &shared, &max));
    *block = n >= 256 ? 256u : (unsigned)((n + 31) / 32 * 32);
    return KRT_OK;
}

static int krt_cpu_max_cooperative(const krt_kernel *k, krt_dim3 block,
                                   size_t shared_bytes, unsigned *blocks)
{
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    uint64_t per_block = krt_cpu_round(k->shared_bytes) +
                         krt_cpu_round(shared_bytes) +
                         krt_cpu_round(k->frame_bytes * threads);
    uint64_t n = per_block == 0 ? KRT_CPU_COOP_MAX_BLOCKS
                                : KRT_CPU_COOP_BUDGET / per_block;

    *blocks = n > KRT_CPU_COOP_MAX_BLOCKS ? KRT_CPU_COOP_MAX_BLOCKS
                                          : (unsigned)n;
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* Pinned host memory: plain aligned memory (krt.c keeps the books)    */
/* ------------------------------------------------------------------ */

static int krt_cpu_host_alloc(void **p, size_t bytes)
{
    return krt_cpu_alloc(p, bytes);
}

static int krt_cpu_host_free(void *p)
{
    free(p);
    return KRT_OK;
}

static int krt_cpu_mapped_alloc(void **host, void **dev, size_t bytes)
{
    KRT_TRY(krt_cpu_alloc(host, bytes));
    *dev = *host;
    return KRT_OK;
}

static int krt_cpu_host_register(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    return KRT_OK;
}

static int krt_cpu_host_unregister(void *p)
{
    (void)p;
    return KRT_OK;
}

/* ------------------------------------------------------------------ */
/* Devices: the host, KRT_CPU_DEVICES times                            */
/* ------------------------------------------------------------------ */

static int krt_cpu_device_count(int *count)
{
    *count = krt_cpu_ndevices;
    return KRT_OK;
}

/* The "model name" line of /proc/cpuinfo, else a generic name. */
static void krt_cpu_model(char *name, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    snprintf(name, len, "CPU (kernc cpu backend)");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            char *v = colon + 1, *nl;
            while (*v == ' ' || *v == '\t')
                v++;
            if ((nl = strchr(v, '\n')) != NULL)
                *nl = '\0';
            if (*v != '\0')
                snprintf(name, len, "%s", v);
            break;
        }
    }
    fclose(f);
}

/* What a GPU would report, with the host's numbers where a host has them:
 * CUDA's limits (the launch checks enforce them here too), the pool's
 * threads as multiprocessors, physical memory. */
static int krt_cpu_device_props(int dev, krt_device_props *p)
{
    long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    int threads = 1;

    (void)dev;
    krt_cpu_model(p->name, sizeof p->name);
    p->is_cpu = 1;
    if (krt_cpu_thread_count(&threads) != KRT_OK)
        threads = 1;
    p->multiprocessor_count = threads;
    if (pages > 0 && page > 0)
        p->total_memory = (size_t)pages * (size_t)page;
    if (avail > 0 && page > 0)
        p->free_memory = (size_t)avail * (size_t)page;
    p->warp_size = 32;
    p->max_threads_per_block = (int)KRT_MAX_BLOCK_THREADS;
    p->max_block_dim[0] = 1024;
    p->max_block_dim[1] = 1024;
    p->max_block_dim[2] = 64;
    p->max_grid_dim[0] = 2147483647;
    p->max_grid_dim[1] = 65535;
    p->max_grid_dim[2] = 65535;
    p->shared_memory_per_block = KRT_MAX_SHARED_BYTES;
    p->shared_memory_per_block_optin = KRT_MAX_SHARED_BYTES;
    p->shared_memory_per_multiprocessor = KRT_MAX_SHARED_BYTES;
    p->max_threads_per_multiprocessor = (int)KRT_MAX_BLOCK_THREADS;
#ifdef _SC_LEVEL2_CACHE_SIZE
    {
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (l2 > 0)
            p->l2_cache_bytes = (size_t)l2;
    }
#endif
    p->integrated = 1;
    p->can_map_host_memory = 1;
    p->unified_addressing = 1;
    p->concurrent_kernels = 0;       /* launches take turns on the pool */
    p->async_engine_count = 1;       /* stream copies run on their own thread */
    p->cooperative_launch = 1;
    return KRT_OK;
}

static int krt_cpu_set_device(int dev)
{
    (void)dev;                       /* one memory, one pool for all */
    return KRT_OK;
}

static int krt_cpu_can_access_peer(int *can, int dev, int peer)
{
    (void)dev;
    (void)peer;
    *can = 1;
    return KRT_OK;
}

static int krt_cpu_enable_peer(int peer)
{
    (void)peer;
    return KRT_OK;
}

const krt_backend krt__cpu_backend = {
    .name = "cpu",
    .id = KRT_BACKEND_CPU,
    .host_visible = 1,
    .init = krt_cpu_init,
    .alloc = krt_cpu_alloc,
    .free = krt_cpu_free,
    .release = krt_cpu_release,
    .copy_to_device = krt_cpu_copy,
    .copy_to_host = krt_cpu_copy,
    .copy_device = krt_cpu_copy,
    .kernel_limits = krt_cpu_kernel_limits,
    .launch = krt_cpu_launch,
    .synchronize = krt_cpu_synchronize,
    .stream_create = krt_cpu_stream_create,
    .stream_destroy = krt_cpu_stream_destroy,
    .stream_synchronize = krt_cpu_stream_synchronize,
    .stream_query = krt_cpu_stream_query,
    .stream_wait_event = krt_cpu_stream_wait_event,
    .host_fn = krt_cpu_host_fn,
    .event_create = krt_cpu_event_create,
    .event_destroy = krt_cpu_event_destroy,
    .event_record = krt_cpu_event_record,
    .event_synchronize = krt_cpu_event_synchronize,
    .event_query = krt_cpu_event_query,
    .event_elapsed_ms = krt_cpu_event_elapsed_ms,
    .device_count = krt_cpu_device_count,
    .device_props = krt_cpu_device_props,
    .set_device = krt_cpu_set_device,
    .can_access_peer = krt_cpu_can_access_peer,
    .enable_peer = krt_cpu_enable_peer,
    .copy_peer = krt_cpu_copy_peer,
    .mapped_alloc = krt_cpu_mapped_alloc,
    .host_alloc = krt_cpu_host_alloc,
    .host_free = krt_cpu_host_free,
    .host_register = krt_cpu_host_register,
    .host_unregister = krt_cpu_host_unregister,
    .forall_block = krt_cpu_forall_block,
    .max_cooperative = krt_cpu_max_cooperative,
    .launch_cooperative = krt_cpu_launch,
};
