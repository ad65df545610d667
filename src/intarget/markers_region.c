/* SPDX-License-Identifier: MIT */
/* libprospect's region markers: per-thread counting between prospect_region_begin and _end.
 * Each thread opens its own counter group (perf_event_open, this thread, any CPU) on its first
 * region and reads it with one read() at each end; a region's aggregates (calls, crossings,
 * per quantity total/min/max and a log-linear histogram for percentiles) stay in the thread's
 * own table, so crossings take no lock. Tables are written to the channel at exit. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "prospect/region.h"
#include "intarget/markers_internal.h"

#define MAX_DEPTH 64
#define NQ (1 + MARKERS_MAX_EVENTS)     /* wall time, then the events */

struct qstat {
    uint64_t total, min, max;
    uint64_t *hist;                     /* MARKERS_BUCKETS counts, allocated on first use; 64 bits:
                                         * one bucket of a long run passes 2^32 */
};

struct region_slot {
    char *name;                         /* a copy (the key), written at exit */
    uint64_t hash;
    uint64_t calls, crossings;
    unsigned depth;                     /* how deep this thread is inside the region */
    struct qstat q[NQ];
};

struct frame {
    struct region_slot *slot;
    int outer;                          /* the region's outermost begin: a crossing */
    uint64_t v0[NQ];
};

struct thread_state {
    struct thread_state *next;
    unsigned gen;
    pid_t pid, tid;
    int fd[MARKERS_MAX_EVENTS];
    int open_err;                       /* errno of a counter that did not open, else 0 */
    unsigned nopen_err;                 /* ended threads' table: threads with open_err */
    int cputime;                        /* task-clock alone: read as the thread's CPU clock */
    struct perf_event_mmap_page *pc[MARKERS_MAX_EVENTS];   /* for rdpmc, NULL if unmapped */
    struct region_slot **tab;           /* open addressing by key */
    size_t n, cap;
    struct frame stack[MAX_DEPTH];
    unsigned depth, too_deep;
    uint64_t unmatched;
};

static __thread struct thread_state *self;
static struct thread_state *threads;
static struct thread_state *retired;    /* the tables of threads that ended, merged by name */
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static unsigned generation;
static int flushed;

static void close_counters(struct thread_state *t)
{
    for (size_t i = 0; i < markers_cfg.nev; i++) {
        if (t->pc[i]) {
            munmap(t->pc[i], (size_t)sysconf(_SC_PAGESIZE));
            t->pc[i] = NULL;
        }
        if (t->fd[i] >= 0) {
            close(t->fd[i]);
            t->fd[i] = -1;
        }
    }
}

static void thread_exit(void *arg);

static void make_key(void)
{
    if (pthread_key_create(&exit_key, thread_exit))
        exit_key = (pthread_key_t)-1;
}

static void open_counters(struct thread_state *t)
{
    const struct perf_event_attr *a0 = &markers_cfg.ev[0];
    int group = -1;

    /* task-clock is the thread's CPU time: alone, it is read with clock_gettime, a cheaper
     * system call than a counter's read (about 370 ns instead of 600 on a KVM guest). */
    if (markers_cfg.nev == 1 && a0->type == PERF_TYPE_SOFTWARE &&
        a0->config == PERF_COUNT_SW_TASK_CLOCK && !a0->exclude_user && !a0->exclude_kernel) {
        t->cputime = 1;
        return;
    }
    for (size_t i = 0; i < markers_cfg.nev; i++) {
        struct perf_event_attr a = markers_cfg.ev[i];
        a.read_format = PERF_FORMAT_GROUP;
        long fd = syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            t->open_err = errno;
            close_counters(t);
            return;
        }
        t->fd[i] = (int)fd;
        if (group < 0)
            group = (int)fd;
    }
    /* The counters' user pages: where the PMU allows user reads (cap_user_rdpmc, a hardware
     * counter scheduled), the ends read them with rdpmc instead of a system call. */
    for (size_t i = 0; i < markers_cfg.nev; i++) {
        void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, t->fd[i], 0);
        t->pc[i] = p == MAP_FAILED ? NULL : p;
    }
}

static inline uint64_t rdpmc(uint32_t counter)
{
    uint32_t lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (uint64_t)hi << 32 | lo;
}

/* The self-monitoring read of perf_event_mmap_page's comment: 0, or -1 when this counter
 * cannot be read from user space now (software event, not scheduled, not allowed). */
static int read_user(const volatile struct perf_event_mmap_page *pc, uint64_t *out)
{
    uint32_t seq, idx;
    uint64_t count;

    do {
        seq = pc->lock;
        __asm__ volatile("" ::: "memory");
        idx = pc->index;
        if (!pc->cap_user_rdpmc || !idx || !pc->pmc_width)
            return -1;
        uint64_t pmc = rdpmc(idx - 1);
        unsigned shift = 64u - pc->pmc_width;
        count = pc->offset + (uint64_t)((int64_t)(pmc << shift) >> shift);
        __asm__ volatile("" ::: "memory");
    } while (pc->lock != seq);
    *out = count;
    return 0;
}

/* Every event by rdpmc, or none (the values of one crossing come from one method). */
static int read_all_user(const struct thread_state *t, uint64_t *v)
{
    for (size_t i = 0; i < markers_cfg.nev; i++)
        if (!t->pc[i] || read_user(t->pc[i], &v[i]))
            return -1;
    return 0;
}

static struct thread_state *thread_init(void)
{
    struct thread_state *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->gen = generation;
    t->pid = getpid();
    t->tid = (pid_t)syscall(SYS_gettid);
    for (size_t i = 0; i < MARKERS_MAX_EVENTS; i++)
        t->fd[i] = -1;
    open_counters(t);
    pthread_once(&key_once, make_key);
    if (exit_key != (pthread_key_t)-1)
        pthread_setspecific(exit_key, t);
    pthread_mutex_lock(&threads_lock);
    t->next = threads;
    threads = t;
    pthread_mutex_unlock(&threads_lock);
    self = t;
    return t;
}

/* Regions are keyed by the name's text, not the caller's pointer: a buffer reused for other
 * names (snprintf into one array) or one name from two places must not mix up regions. FNV-1a
 * over the first MARKERS_MAX_NAME bytes, the part that is kept. */
static uint64_t name_hash(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < MARKERS_MAX_NAME && name[i]; i++)
        h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
    return h;
}

static bool same_name(const struct region_slot *s, const char *name, uint64_t hash)
{
    return s->hash == hash && !strncmp(s->name, name, MARKERS_MAX_NAME);
}

static size_t hash_slot(uint64_t hash, size_t cap)
{
    return (size_t)((hash * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int grow(struct thread_state *t)
{
    size_t cap = t->cap ? t->cap * 2 : 16;
    struct region_slot **tab = calloc(cap, sizeof(*tab));
    if (!tab)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->tab[i]) {
            size_t h = hash_slot(t->tab[i]->hash, cap);
            while (tab[h])
                h = (h + 1) & (cap - 1);
            tab[h] = t->tab[i];
        }
    free(t->tab);
    t->tab = tab;
    t->cap = cap;
    return 0;
}

static struct region_slot *lookup(struct thread_state *t, const char *key)
{
    uint64_t hash = name_hash(key);
    size_t h;
    if (t->cap) {
        for (h = hash_slot(hash, t->cap); t->tab[h]; h = (h + 1) & (t->cap - 1))
            if (same_name(t->tab[h], key, hash))
                return t->tab[h];
    }
    if ((t->n + 1) * 2 > t->cap && grow(t))
        return NULL;
    struct region_slot *s = calloc(1, sizeof(*s));
    size_t len = strnlen(key, MARKERS_MAX_NAME);
    if (!s || !(s->name = malloc(len + 1))) {
        free(s);
        return NULL;
    }
    memcpy(s->name, key, len);
    s->name[len] = '\0';
    s->hash = hash;
    for (h = hash_slot(hash, t->cap); t->tab[h]; h = (h + 1) & (t->cap - 1))
        ;
    t->tab[h] = s;
    t->n++;
    return s;
}

/* The events' values: the thread's CPU clock (task-clock alone), rdpmc where the PMU allows
 * it, else one read() of the group; zeros when the counters did not open. */
static void read_counters(struct thread_state *t, uint64_t *v)
{
    uint64_t buf[1 + MARKERS_MAX_EVENTS];
    size_t len = (1 + markers_cfg.nev) * 8;
    struct timespec ts;

    if (t->cputime && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        v[0] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        return;
    }
    if (t->pc[0] && read_all_user(t, v) == 0)
        return;
    if (t->fd[0] >= 0 && read(t->fd[0], buf, len) == (ssize_t)len) {
        memcpy(v, buf + 1, markers_cfg.nev * 8);
        return;
    }
    memset(v, 0, markers_cfg.nev * 8);
}

/* Wall time in ns, then the events. */
static void read_now(struct thread_state *t, uint64_t *v)
{
    struct timespec ts;

    read_counters(t, v + 1);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v[0] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

PROSPECT_API void prospect_region_enter(const char *name)
{
    struct thread_state *t = self;
    struct region_slot *s;
    struct frame *f;

    if (!name || flushed)
        return;
    if (!t || t->gen != generation)
        if (!(t = thread_init()))
            return;
    if (!(s = lookup(t, name)))
        return;
    s->calls++;
    if (t->depth >= MAX_DEPTH) {
        t->too_deep++;
        return;
    }
    f = &t->stack[t->depth++];
    f->slot = s;
    f->outer = s->depth++ == 0;
    if (f->outer)
        read_now(t, f->v0);     /* last: the bookkeeping above is not counted */
}

static void add(struct qstat *q, uint64_t v, int first)
{
    q->total += v;
    if (first || v < q->min)
        q->min = v;
    if (v > q->max)
        q->max = v;
    if (!q->hist)
        q->hist = calloc(MARKERS_BUCKETS, sizeof(*q->hist));
    if (q->hist)
        q->hist[markers_bucket(v)]++;
}

static void merge_q(struct qstat *to, const struct qstat *from, int to_empty)
{
    to->total += from->total;
    if (to_empty || from->min < to->min)
        to->min = from->min;
    if (from->max > to->max)
        to->max = from->max;
    if (from->hist && !to->hist)
        to->hist = calloc(MARKERS_BUCKETS, sizeof(*to->hist));
    for (unsigned b = 0; from->hist && to->hist && b < MARKERS_BUCKETS; b++)
        to->hist[b] += from->hist[b];
}

static void free_table(struct thread_state *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->tab[i]) {
            for (size_t q = 0; q < NQ; q++)
                free(t->tab[i]->q[q].hist);
            free(t->tab[i]->name);
            free(t->tab[i]);
        }
    free(t->tab);
    free(t);
}

/* A thread that ends gives its descriptors back and its table is merged, by name, into the
 * process's table of ended threads: a program that starts a thread per request keeps one
 * table, not one per thread it ever ran (20000 threads held 270 MB). Called with the lock. */
static void retire(struct thread_state *t)
{
    struct thread_state **pp = &threads;

    while (*pp && *pp != t)
        pp = &(*pp)->next;
    if (!*pp)
        return;             /* a table from before a fork: not this process's */
    if (!retired && !(retired = calloc(1, sizeof(*retired))))
        return;             /* kept as it is, written at exit */
    *pp = t->next;
    retired->pid = t->pid;
    retired->tid = t->pid;
    retired->unmatched += t->unmatched;
    if (t->open_err) {      /* the reader counts threads whose counters did not open */
        retired->open_err = t->open_err;
        retired->nopen_err++;
    }
    for (size_t i = 0; i < t->cap; i++) {
        struct region_slot *from = t->tab[i], *to;
        if (!from || !(to = lookup(retired, from->name)))
            continue;
        for (size_t q = 0; q < NQ; q++)
            if (from->crossings)
                merge_q(&to->q[q], &from->q[q], to->crossings == 0);
        to->calls += from->calls;
        to->crossings += from->crossings;
        to->depth += from->depth;      /* regions the thread never closed */
    }
    free_table(t);
}

static void thread_exit(void *arg)
{
    struct thread_state *t = arg;

    close_counters(t);
    if (self == t)
        self = NULL;        /* a later destructor's region starts a new table */
    pthread_mutex_lock(&threads_lock);
    if (!flushed)
        retire(t);
    pthread_mutex_unlock(&threads_lock);
}

PROSPECT_API void prospect_region_leave(const char *name)
{
    struct thread_state *t = self;
    uint64_t now[NQ], hash;
    unsigned i;

    if (!name || !t || t->gen != generation || flushed)
        return;
    read_now(t, now);           /* first: what follows is not counted */
    if (t->too_deep) {
        t->too_deep--;
        return;
    }
    /* The innermost open region of that name; regions opened inside it and not closed are
     * closed with it. */
    hash = name_hash(name);
    for (i = t->depth; i-- > 0;)
        if (same_name(t->stack[i].slot, name, hash))
            break;
    if (i == (unsigned)-1) {
        t->unmatched++;
        return;
    }
    while (t->depth > i + 1)
        t->stack[--t->depth].slot->depth--;
    struct frame *f = &t->stack[--t->depth];
    struct region_slot *s = f->slot;
    s->depth--;
    if (!f->outer)
        return;
    int first = s->crossings++ == 0;
    for (size_t q = 0; q < 1 + markers_cfg.nev; q++)
        add(&s->q[q], now[q] - f->v0[q], first);
}

static void write_slot(const struct thread_state *t, const struct region_slot *s, char *buf,
                       size_t cap)
{
    char name[MARKERS_MAX_NAME + 1];
    size_t len = strlen(s->name);

    /* The channel is line-based: a newline or other control byte in a name would end its
     * record early and lose every result, so it is written as '?'. */
    for (size_t i = 0; i <= len; i++)
        name[i] = i < len && ((unsigned char)s->name[i] < 0x20 || s->name[i] == 0x7f) ? '?'
                                                                                    : s->name[i];
    size_t n = (size_t)snprintf(buf, cap, "R %d %d %llu %llu %u %zu %zu %s\n", (int)t->pid,
                                (int)t->tid, (unsigned long long)s->calls,
                                (unsigned long long)s->crossings, s->depth,
                                1 + markers_cfg.nev, len, name);
    for (size_t q = 0; q < 1 + markers_cfg.nev && n < cap; q++) {
        const struct qstat *st = &s->q[q];
        size_t nb = 0;
        for (unsigned b = 0; st->hist && b < MARKERS_BUCKETS; b++)
            nb += st->hist[b] != 0;
        n += (size_t)snprintf(buf + n, cap - n, "Q %llu %llu %llu %zu",
                              (unsigned long long)st->total, (unsigned long long)st->min,
                              (unsigned long long)st->max, nb);
        for (unsigned b = 0; st->hist && b < MARKERS_BUCKETS && n < cap; b++)
            if (st->hist[b])
                n += (size_t)snprintf(buf + n, cap - n, " %u:%llu", b,
                                      (unsigned long long)st->hist[b]);
        if (n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "\n");
    }
    if (n < cap)
        markers_write(buf, n);
}

HIDDEN void markers_flush_all(void)
{
    size_t cap = 512 + NQ * (64 + MARKERS_BUCKETS * 26);   /* " 975:" and 20 digits */
    char *buf = malloc(cap), line[128];
    uint64_t unmatched = 0;

    if (!buf || flushed)
        goto out;
    flushed = 1;
    pthread_mutex_lock(&threads_lock);
    if (retired)
        retired->next = threads;    /* written with the live threads */
    for (struct thread_state *t = retired ? retired : threads; t; t = t->next) {
        for (unsigned k = 0; t->open_err && k < (t == retired ? t->nopen_err : 1); k++) {
            int n = snprintf(line, sizeof(line), "E %d %d %d\n", (int)t->pid, (int)t->tid,
                             t->open_err);
            markers_write(line, (size_t)n);
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->tab[i])
                write_slot(t, t->tab[i], buf, cap);
        unmatched += t->unmatched;
    }
    pthread_mutex_unlock(&threads_lock);
    if (unmatched) {
        int n = snprintf(line, sizeof(line), "M %d %llu\n", (int)getpid(),
                         (unsigned long long)unmatched);
        markers_write(line, (size_t)n);
    }
out:
    free(buf);
}

HIDDEN void markers_forget_threads(void)
{
    /* The child's copy of each table counted the parent; its counters watch parent threads. */
    for (struct thread_state *t = threads; t; t = t->next)
        close_counters(t);
    threads = NULL;
    retired = NULL;
    pthread_mutex_init(&threads_lock, NULL);
    generation++;
}
