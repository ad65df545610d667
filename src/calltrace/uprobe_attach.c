/* SPDX-License-Identifier: MIT */
/* Tracing a running process's library calls with uprobes (see uprobe_attach.h). */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "calltrace/anyfunc.h"
#include "calltrace/callfmt.h"
#include "calltrace/protoconf.h"
#include "calltrace/uprobe_attach.h"
#include "calltrace/uprobe_str.h"
#include "intarget/calltrace_abi.h"
#include "perf/close_many.h"
#include "perf/event.h"
#include "perf/ringbuf.h"
#include "probe/uprobe.h"
#include "symbol/dso.h"
#include "symbol/elf_code.h"
#include "symbol/ifunc.h"
#include "util/hashmap.h"
#include "util/launch.h"
#include "util/vec.h"

#define RING_PAGES 256
#define MAX_CPUS 1024
#define MAX_DEPTH 32
/* Samples newer than this are kept for the next round: another cpu's earlier sample may not be
 * read yet, and a thread's entry and return must be paired in time order. */
#define HOLD_NS 2000000ull
/* Raw tracepoint data: common fields (8 bytes), then the probe's address fields (entry: the
 * probed address; return: function and return address), then the fetch arguments in order,
 * packed: the entry's five u64 and the function's number (u32), the return's value and it. */
#define ENTRY_ARGS_OFF 16
#define RET_ARGS_OFF 24
#define ENTRY_FETCH "a0=%%di:u64 a1=%%si:u64 a2=%%dx:u64 a3=%%cx:u64 ra=+0(%%sp):u64 fn=\\%u:u32"
#define RET_FETCH "rv=%%ax:u64 fn=\\%u:u32"
#define RET_STR_FETCH " rs=+0(%%ax):string"
#define NFN (CT_NFUNCS + CT_ANY_MAX)
/* Two tracefs events, every entry probe in one and every return probe in the other: closing
 * and removing an event costs a kernel grace period (40-100 ms here, one after the other), so
 * an event per probe made a detach take ~1 s. A hit names its function by its `fn` argument. */
enum { EV_ENTRY, EV_RET, NEV };
static const char *const ev_name[NEV] = { "calls", "returns" };

struct sample {
    uint64_t time;
    uint32_t pid, tid;
    unsigned func;
    bool ret;
    uint64_t v[5];          /* entry: a0..a3, return address; return: value */
    uint8_t str[CT_ANY_NARGS][CT_USTR_SLOT];  /* entry: the fetched string arguments */
};

struct frame {
    unsigned func;
    uint64_t t0, args[4], ra;
    uint8_t str[CT_ANY_NARGS][CT_USTR_SLOT];
};

struct thread {
    uint32_t pid;
    unsigned depth;
    struct frame f[MAX_DEPTH];
};

struct attach {
    struct ct_attach_opts *o;
    unsigned sbits, nsbits;     /* argument registers fetched as strings (uprobe_str.h) */
    bool rstr;                  /* the return probe fetches the string %ax points to */
    uint64_t ev_id[NEV];        /* tracepoint ids of the two events */
    bool has_ev[NEV];
    bool probed[NFN];           /* functions with probes: the only `fn` values a hit may carry */
    VEC(int) fds;
    struct ringbuf rb[MAX_CPUS];
    int ncpu;
    VEC(struct sample) pend;
    VEC(struct ct_call) out;
    struct hashmap threads;     /* tid -> struct thread * */
    uint32_t procs[4096];       /* pid of each "ring" given to callers */
    unsigned nprocs;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The libc the process maps (the built-ins are libc's). 0 or -ENOENT. */
static int find_libc(pid_t pid, char *out, size_t len)
{
    char p[64], line[4352];
    FILE *f;
    int e = -ENOENT;
    snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(p, "re")))
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        char *path = strchr(line, '/'), *base;
        if (!path || !strstr(line, " r-xp "))
            continue;
        path[strcspn(path, "\n")] = 0;
        base = strrchr(path, '/') + 1;
        if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5)) {
            snprintf(out, len, "%s", path);
            e = 0;
            break;
        }
    }
    fclose(f);
    return e;
}

/* The entry and return probes of function number f at path:off. A place probed already (the
 * same function named twice) keeps its first number. */
static int add_pair(struct attach *a, struct uprobe_set *us, const char *path, uint64_t off,
                    unsigned f)
{
    char fetch[256];
    for (int ev = 0; ev < NEV; ev++) {
        snprintf(fetch, sizeof(fetch), ev == EV_RET ? RET_FETCH : ENTRY_FETCH, f);
        if (ev == EV_ENTRY)
            ct_ustr_fetch_args(a->sbits, fetch, sizeof(fetch));
        else if (a->rstr)
            snprintf(fetch + strlen(fetch), sizeof(fetch) - strlen(fetch), RET_STR_FETCH);
        int e = uprobe_set_append(us, ev_name[ev], path, off, ev == EV_RET, fetch,
                                  &a->ev_id[ev]);
        if (e == -EEXIST)
            return 0;
        if (e)
            return e;
        a->has_ev[ev] = true;
    }
    a->probed[f] = true;
    return 0;
}

static int add_probes(struct attach *a, struct uprobe_set *us, const char *libc, char *err,
                      size_t errlen)
{
    struct dso_cache *cache = dso_cache_new();
    struct dso *dso;
    int e = 0;
    if (!cache)
        return -ENOMEM;
    dso = dso_cache_get(cache, DSO_FILE, libc, NULL, 0, a->o->pid);
    if (!dso || dso_load(dso)) {
        snprintf(err, errlen, "cannot read the symbols of %s", libc);
        dso_cache_free(cache);
        return -EINVAL;
    }
    for (unsigned f = 0; f < CT_NFUNCS && !e; f++) {
        struct symbol_match m;
        uint64_t off;
        if (!(a->o->mask & (1ull << f)))
            continue;
        if (dso_find_symbols(dso, ct_func_name(f), &m, 1) < 1) {
            snprintf(err, errlen, "%s has no symbol %s", libc, ct_func_name(f));
            e = -ENOENT;
            break;
        }
        if (elf_symbol_is_ifunc(libc, m.start) == 1) {
            snprintf(err, errlen, "%s is an IFUNC in libc (its implementation depends on the "
                     "CPU): -p does not trace it yet", ct_func_name(f));
            e = -ENOTSUP;
            break;
        }
        if ((e = elf_vaddr_to_offset(libc, m.start, &off))) {
            snprintf(err, errlen, "%s: no file offset for %s", libc, ct_func_name(f));
            break;
        }
        if ((e = add_pair(a, us, libc, off, f))) {
            snprintf(err, errlen, "cannot create a uprobe on %s:%s: %s", libc, ct_func_name(f),
                     strerror(-e));
            break;
        }
    }
    dso_cache_free(cache);
    return e;
}

/* The functions without a prototype (src/calltrace/anyfunc.h), in whatever file has them. */
static int add_any_probes(struct attach *a, struct uprobe_set *us, char *err, size_t errlen)
{
    unsigned n;
    const struct ct_any_fn *fn = ct_any_fns(&n);
    for (unsigned i = 0; i < n; i++) {
        int e = add_pair(a, us, fn[i].path, fn[i].off, CT_NFUNCS + i);
        if (e) {
            snprintf(err, errlen, "cannot create a uprobe on %s:%s: %s", fn[i].path,
                     fn[i].name, strerror(-e));
            return e;
        }
    }
    return 0;
}

/* Opens every probe event on thread tid, per cpu, into that cpu's ring. */
static int open_thread(struct attach *a, int tid)
{
    for (unsigned i = 0; i < NEV; i++)
        for (int cpu = 0; cpu < a->ncpu && a->has_ev[i]; cpu++) {
            struct perf_event_attr at = { 0 };
            int fd;
            at.size = sizeof(at);
            at.type = PERF_TYPE_TRACEPOINT;
            at.config = a->ev_id[i];
            at.sample_period = 1;
            at.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
            at.inherit = 1;             /* threads it creates (and children: filtered) */
            at.use_clockid = 1;
            at.clockid = CLOCK_MONOTONIC;
            /* The executable mappings, as they are made, for the callers' names (one event
             * per cpu is enough). */
            at.mmap = at.mmap2 = i == 0;
            /* Woken at a quarter full, not per sample: a wake-up per hit doubled its cost. */
            at.watermark = 1;
            at.wakeup_watermark = RING_PAGES * 4096 / 4;
            fd = perf_event_open_fd(&at, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
            if (fd == -ESRCH)
                return 0;               /* the thread ended meanwhile */
            if (fd == -ENODEV || fd == -EINVAL) {
                if (a->rb[cpu].fd < 0)
                    continue;           /* an offline cpu */
            }
            if (fd < 0)
                return fd;
            if (vec_push(&a->fds, fd)) {
                close(fd);
                return -ENOMEM;
            }
            if (a->rb[cpu].base) {
                if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, a->rb[cpu].fd))
                    return -errno;
            } else {
                int e = ringbuf_map(&a->rb[cpu], fd, cpu, RING_PAGES);
                if (e)
                    return e;
            }
        }
    return 0;
}

/* Every thread of the process, until a scan finds no new one. */
static int open_threads(struct attach *a)
{
    struct hashmap seen;
    int e = 0;
    bool more = true;
    hashmap_init(&seen);
    while (more && !e) {
        char p[64];
        struct dirent *de;
        DIR *d;
        more = false;
        snprintf(p, sizeof(p), "/proc/%d/task", (int)a->o->pid);
        if (!(d = opendir(p))) {
            e = -errno;
            break;
        }
        while ((de = readdir(d)) && !e) {
            long tid = strtol(de->d_name, NULL, 10);
            if (tid <= 0 || hashmap_get(&seen, (uint64_t)tid))
                continue;
            if ((e = hashmap_put(&seen, (uint64_t)tid, (void *)1)))
                break;
            more = true;
            e = open_thread(a, (int)tid);
        }
        closedir(d);
    }
    hashmap_release(&seen);
    return e;
}

static uint32_t proc_ring(struct attach *a, uint32_t pid);

/* PERF_RECORD_MMAP2 (perf_event.h's layout, without the build-id variant). */
struct mmap2_rec {
    struct perf_event_header h;
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    uint32_t maj, min;
    uint64_t ino, ino_generation;
    uint32_t prot, flags;
    char filename[];
};

static int on_mmap2(struct attach *a, const struct perf_event_header *h)
{
    const struct mmap2_rec *m = (const void *)h;
    size_t fix = offsetof(struct mmap2_rec, filename);
    int e;
    if (h->size <= fix || !(m->prot & PROT_EXEC) || (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
        return 0;
    if (!a->o->follow && m->pid != (uint32_t)a->o->pid)
        return 0;
    char path[4096];
    size_t n = h->size - fix;
    if (n >= sizeof(path))
        n = sizeof(path) - 1;
    memcpy(path, m->filename, n);
    path[n] = 0;
    uint32_t ring = proc_ring(a, m->pid);
    if (a->o->callers_lock)
        pthread_mutex_lock(a->o->callers_lock);
    e = ct_callers_add_map(a->o->callers, ring, m->pid, m->start, m->len, m->pgoff, m->maj, m->min,
                           m->ino, path);
    if (a->o->callers_lock)
        pthread_mutex_unlock(a->o->callers_lock);
    return e;
}

static int on_record(void *arg, const struct perf_event_header *h)
{
    struct attach *a = arg;
    const uint8_t *p = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size;
    struct sample s = { 0 };
    uint32_t rawsz;
    uint16_t type;
    if (h->type == PERF_RECORD_LOST) {
        if (end - p >= 16) {
            uint64_t n;
            memcpy(&n, p + 8, 8);
            a->o->lost += n;
        }
        return 0;
    }
    if (h->type == PERF_RECORD_MMAP2)
        return on_mmap2(a, h);
    if (h->type != PERF_RECORD_SAMPLE || end - p < 20)
        return 0;
    memcpy(&s.pid, p, 4);
    memcpy(&s.tid, p + 4, 4);
    memcpy(&s.time, p + 8, 8);
    memcpy(&rawsz, p + 16, 4);
    p += 20;
    if (rawsz > (size_t)(end - p) || rawsz < 8)
        return 0;
    memcpy(&type, p, 2);
    uint32_t fn;
    if (a->has_ev[EV_RET] && type == a->ev_id[EV_RET]) {
        if (rawsz < RET_ARGS_OFF + 12 + (a->rstr ? 4u : 0u))
            return 0;
        s.ret = true;
        memcpy(&s.v[0], p + RET_ARGS_OFF, 8);
        memcpy(&fn, p + RET_ARGS_OFF + 8, 4);
        if (a->rstr)        /* the returned string, in the first string slot */
            ct_ustr_take(p, rawsz, RET_ARGS_OFF + 12, s.v[0], s.str[0]);
    } else if (a->has_ev[EV_ENTRY] && type == a->ev_id[EV_ENTRY]) {
        if (rawsz < ENTRY_ARGS_OFF + 44 + 4 * a->nsbits)
            return 0;
        memcpy(s.v, p + ENTRY_ARGS_OFF, 40);
        memcpy(&fn, p + ENTRY_ARGS_OFF + 40, 4);
        for (unsigned i = 0, j = 0; i < CT_ANY_NARGS; i++)
            if (a->sbits & (1u << i))
                ct_ustr_take(p, rawsz, ENTRY_ARGS_OFF + 44 + 4 * j, s.v[i], s.str[j]), j++;
    } else {
        return 0;
    }
    if (fn >= NFN || !a->probed[fn])
        return 0;
    s.func = fn;
    if (!a->o->follow && s.pid != (uint32_t)a->o->pid)
        return 0;
    return vec_push(&a->pend, s) ? -ENOMEM : 0;
}

static int cmp_sample(const void *x, const void *y)
{
    const struct sample *a = x, *b = y;
    return a->time < b->time ? -1 : a->time > b->time;
}

static uint32_t proc_ring(struct attach *a, uint32_t pid)
{
    for (unsigned i = 0; i < a->nprocs; i++)
        if (a->procs[i] == pid)
            return i;
    if (a->nprocs == sizeof(a->procs) / sizeof(a->procs[0]))
        return 0;
    a->procs[a->nprocs] = pid;
    if (a->o->callers_lock)
        pthread_mutex_lock(a->o->callers_lock);
    ct_callers_ring(a->o->callers, a->nprocs, pid, 0);
    if (a->o->callers_lock)
        pthread_mutex_unlock(a->o->callers_lock);
    return a->nprocs++;
}

/* Pairs samples up to `upto` (time) per thread and hands the calls over. */
static int process(struct attach *a, uint64_t upto)
{
    size_t n = 0;
    int e = 0;
    if (a->pend.n > 1)
        qsort(a->pend.v, a->pend.n, sizeof(*a->pend.v), cmp_sample);
    a->out.n = 0;
    for (; n < a->pend.n && a->pend.v[n].time <= upto; n++) {
        const struct sample *s = &a->pend.v[n];
        struct thread *t = hashmap_get(&a->threads, s->tid);
        if (!t) {
            if (!(t = calloc(1, sizeof(*t))) || hashmap_put(&a->threads, s->tid, t)) {
                free(t);
                return -ENOMEM;
            }
            t->pid = s->pid;
        }
        if (!s->ret) {
            if (t->depth < MAX_DEPTH) {
                t->f[t->depth] = (struct frame){ s->func, s->time,
                                                 { s->v[0], s->v[1], s->v[2], s->v[3] },
                                                 s->v[4], { { 0 } } };
                if (a->nsbits)
                    memcpy(t->f[t->depth].str, s->str, sizeof(s->str));
            }
            t->depth++;
            continue;
        }
        /* A return without its entry: the call was under way at attach. */
        if (!t->depth)
            continue;
        t->depth--;
        if (t->depth >= MAX_DEPTH || t->f[t->depth].func != s->func) {
            a->o->lost++;
            continue;
        }
        const struct frame *f = &t->f[t->depth];
        struct ct_call k = { 0 };
        k.pid = s->pid;
        k.tid = s->tid;
        k.func = s->func;
        k.t0 = f->t0;
        k.t1 = s->time;
        memcpy(k.args, f->args, sizeof(k.args));
        k.ret = s->v[0];
        k.caller = f->ra;
        k.ring = proc_ring(a, s->pid);
        if (a->nsbits)
            ct_ustr_to_call(&k, a->sbits, f->str);
        if (a->rstr)
            ct_ustr_ret_to_call(&k, s->str[0]);
        if (vec_push(&a->out, k))
            return -ENOMEM;
    }
    if (n && n < a->pend.n)
        memmove(a->pend.v, a->pend.v + n, (a->pend.n - n) * sizeof(*a->pend.v));
    a->pend.n -= n;
    a->o->calls += a->out.n;
    if (a->out.n && a->o->on_batch)
        e = a->o->on_batch(a->o->arg, a->out.v, a->out.n);
    return e;
}

static int drain(struct attach *a)
{
    for (int cpu = 0; cpu < a->ncpu; cpu++)
        if (a->rb[cpu].base) {
            long r = ringbuf_drain(&a->rb[cpu], on_record, a);
            if (r < 0)
                return (int)r;
        }
    return 0;
}

int ct_attach_uprobes(struct ct_attach_opts *o, char *err, size_t errlen)
{
    struct attach *a = calloc(1, sizeof(*a));
    struct uprobe_set *us = NULL;
    char libc[4096];
    int e;

    if (!a)
        return -ENOMEM;
    a->o = o;
    a->sbits = ct_proto_string_args(o->mask, &a->rstr);
    a->nsbits = (unsigned)__builtin_popcount(a->sbits);
    hashmap_init(&a->threads);
    a->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
    if (a->ncpu < 1 || a->ncpu > MAX_CPUS)
        a->ncpu = a->ncpu < 1 ? 1 : MAX_CPUS;
    for (int c = 0; c < MAX_CPUS; c++)
        a->rb[c].fd = -1;
    if (kill(o->pid, 0) && errno == ESRCH) {
        snprintf(err, errlen, "no process %d", (int)o->pid);
        e = -ESRCH;
        goto out;
    }
    if (o->elf) {
        snprintf(libc, sizeof(libc), "%s", o->elf);
    } else if (o->mask && (e = find_libc(o->pid, libc, sizeof(libc)))) {
        snprintf(err, errlen, "process %d maps no libc (a static program?): nothing to probe",
                 (int)o->pid);
        goto out;
    }
    if (!(us = uprobe_set_new())) {
        e = -errno;
        snprintf(err, errlen, "%s", uprobe_advice(errno));
        goto out;
    }
    if ((o->mask && (e = add_probes(a, us, libc, err, errlen))) ||
        (e = add_any_probes(a, us, err, errlen)))
        goto out;
    if (o->ring0_named)
        a->procs[a->nprocs++] = (uint32_t)o->pid;
    if ((e = open_threads(a))) {
        snprintf(err, errlen, "cannot open the probe events on process %d: %s", (int)o->pid,
                 strerror(-e));
        goto out;
    }
    o->start_ns = now_ns();
    if (o->launch && (e = launch_go(o->launch))) {
        snprintf(err, errlen, "cannot run the command: %s", strerror(-e));
        waitpid(o->pid, &o->wstatus, 0);
        goto out;
    }
    if (o->launch)
        proc_ring(a, (uint32_t)o->pid);     /* its maps now, after the exec, for callers */
    if (o->attached)
        o->attached(o->arg);
    bool forwarded = false;
    for (;;) {
        if (*o->stop && !o->launch)
            break;
        if (*o->stop && !forwarded) {
            kill(o->pid, (int)*o->stop);    /* a launched command gets the signal, once */
            forwarded = true;
        }
        if (forwarded && o->stops && *o->stops >= 2) {
            o->abandoned = true;
            break;
        }
        struct pollfd pf[MAX_CPUS];
        int np = 0;
        for (int c = 0; c < a->ncpu; c++)
            if (a->rb[c].base)
                pf[np++] = (struct pollfd){ a->rb[c].fd, POLLIN, 0 };
        poll(pf, (nfds_t)np, 10);
        if ((e = drain(a)) || (e = process(a, now_ns() - HOLD_NS)))
            break;
        if (o->launch) {
            if (waitpid(o->pid, &o->wstatus, WNOHANG) == o->pid)
                break;
        } else if (kill(o->pid, 0) && errno == ESRCH) {
            break;
        }
    }
    /* Detach: stop the events, take what they wrote, then close them and delete the probes. */
    for (size_t i = 0; i < a->fds.n; i++)
        ioctl(a->fds.v[i], PERF_EVENT_IOC_DISABLE, 0);
    if (!e && !(e = drain(a)))
        e = process(a, UINT64_MAX);
    if (e)
        snprintf(err, errlen, "collecting the calls failed: %s", strerror(-e));
out:
    for (int c = 0; c < MAX_CPUS; c++)
        if (a->rb[c].base)
            ringbuf_unmap(&a->rb[c]);
    /* A thread per event: each event's last close waits a kernel grace period. */
    perf_close_many(a->fds.v, a->fds.n, NEV);
    vec_free(&a->fds);
    uprobe_set_free(us);
    vec_free(&a->pend);
    vec_free(&a->out);
    for (size_t i = 0; i < a->threads.cap; i++)
        free(a->threads.vals ? a->threads.vals[i] : NULL);
    hashmap_release(&a->threads);
    free(a);
    return e;
}
