/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "trace"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#ifdef __x86_64__
#include <asm/perf_regs.h>
#endif
#include <time.h>
#include <unistd.h>
#include "perf/evlist.h"
#include "perf/record.h"
#include "perf/ringbuf.h"
#include "probe/region_trace.h"
#include "probe/uprobe.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/proc_tasks.h"
#include "util/vec.h"

/* Ring buffer pages per cpu: 8 MiB (tens of thousands of crossing samples between drains: a
 * jump entry makes a crossing cost ~2 us, so a hot region writes a sample every microsecond),
 * at most 64 MiB over all cpus, at least 2 MiB each. */
static size_t rb_pages(size_t ncpus)
{
    size_t p = 16384 / (ncpus ? ncpus : 1);
    return p > 2048 ? 2048 : p < 512 ? 512 : p;
}
/* Records are written within microseconds of their timestamp; anything older than this at
 * the start of a drain round is complete in every buffer, so it can be processed in order. */
#define REORDER_NS 2000000ULL

enum id_kind { ID_COUNTER, ID_SWITCH, ID_PROBE };
/* pend.kind for records that are not samples */
enum { PEND_EXEC = -1, PEND_MAP_PROG = -2, PEND_MAP_TRAMP = -3 };

struct id_ent {
    uint64_t id;          /* 0 = empty slot */
    int32_t group, kind;
    int32_t col;          /* counter column in its group, -1 if not a column */
    int32_t probe;
};

struct pend {
    uint64_t time, seq, en, run, sp;
    uint32_t pid, tid, cpu;
    int32_t group, kind, probe; /* kind: ID_SWITCH, ID_PROBE, or PEND_* */
    size_t voff;
};

struct image_state {
    uint32_t pid;
    bool tramp;
};

struct region_trace {
    const struct region_list *rl;
    struct uprobe_set *ups;
    uint64_t *tp_ids;
    size_t nr_groups, *nv, ncols;
    char **colnames;
    int *cpus;
    size_t ncpus;
    int maxcpu;
    VEC(int) fds;
    VEC(int) leaders;                 /* every group leader (their group reads give the hits) */
    uint64_t *seen, *hits;            /* per group, per probe: samples arrived, hits counted */
    struct ringbuf *rbs;
    size_t nrb;
    struct id_ent *ids;
    size_t ids_cap, ids_n;
    struct evsel dec;
    VEC(struct pend) pend;
    VEC(uint64_t) pool;
    uint64_t seq;
    uint64_t *vals;
    struct region_counter *rc;
    struct region_trace_stats st;
    struct image_watch watch;         /* nprog 0: no watch */
    VEC(struct image_state) images;   /* per pid: the current image mapped a watched program */
    VEC(uint32_t) unpatched;          /* pids of images that ended without the trampoline */
};

static int ids_put(struct region_trace *rt, uint64_t id, int group, int kind, int col, int probe)
{
    if ((rt->ids_n + 1) * 2 > rt->ids_cap) {
        size_t ncap = rt->ids_cap ? rt->ids_cap * 2 : 256;
        struct id_ent *nt = calloc(ncap, sizeof(*nt));
        if (!nt)
            return -ENOMEM;
        for (size_t i = 0; i < rt->ids_cap; i++) {
            if (!rt->ids[i].id)
                continue;
            size_t j = hash_u64(rt->ids[i].id) & (ncap - 1);
            while (nt[j].id)
                j = (j + 1) & (ncap - 1);
            nt[j] = rt->ids[i];
        }
        free(rt->ids);
        rt->ids = nt;
        rt->ids_cap = ncap;
    }
    size_t j = hash_u64(id) & (rt->ids_cap - 1);
    while (rt->ids[j].id && rt->ids[j].id != id)
        j = (j + 1) & (rt->ids_cap - 1);
    if (!rt->ids[j].id)
        rt->ids_n++;
    rt->ids[j] = (struct id_ent){ id, group, kind, col, probe };
    return 0;
}

static const struct id_ent *ids_get(const struct region_trace *rt, uint64_t id)
{
    if (!rt->ids_cap || !id)
        return NULL;
    size_t j = hash_u64(id) & (rt->ids_cap - 1);
    while (rt->ids[j].id) {
        if (rt->ids[j].id == id)
            return &rt->ids[j];
        j = (j + 1) & (rt->ids_cap - 1);
    }
    return NULL;
}

static void common_attr(struct perf_event_attr *a)
{
    a->size = sizeof(*a);
    a->inherit = 1;
    a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CPU | PERF_SAMPLE_READ;
    a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING;
    a->sample_id_all = 1;
#ifdef __x86_64__
    /* The user stack pointer at each probe: a function's exit is at its entry's sp + 8, which
     * puts a thread back in step after a lost sample (region_count.h). */
    a->sample_type |= PERF_SAMPLE_REGS_USER;
    a->sample_regs_user = 1ULL << PERF_REG_X86_SP;
#endif
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;   /* comparable with clock_gettime for the reorder window */
}

/* Opens one event, records its id. Returns the fd or -errno (msg filled). */
static int open_one(struct region_trace *rt, struct perf_event_attr *a, const char *name,
                    pid_t pid, int cpu, int group_fd, int group, int kind, int col, int probe,
                    char *msg, size_t msglen)
{
    uint64_t id;
    int fd = perf_event_open_fd(a, pid, cpu, group_fd, 0);

    if (fd < 0) {
        if (kind == ID_PROBE) {
            const struct probe_point *p = &rt->rl->probes.v[probe];
            snprintf(msg, msglen, "cannot open the probe at %s:0x%llx: %s", p->path,
                     (unsigned long long)p->offset, strerror(-fd));
        } else {
            event_open_advice(-fd, a, name, msg, msglen);
        }
        return fd;
    }
    if (vec_push(&rt->fds, fd)) {
        close(fd);
        return -ENOMEM;
    }
    if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 || ids_put(rt, id, group, kind, col, probe)) {
        snprintf(msg, msglen, "cannot read the id of event '%s'", name);
        return -EIO;
    }
    return fd;
}

static bool is_sw(const struct event_spec *e, uint64_t config)
{
    return e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == config;
}

/* Group 0 always shows task-clock (on-CPU time); other groups only when asked for it. */
static bool group_has_task_clock(const struct counter_group *g, int gi)
{
    if (gi == 0)
        return true;
    for (size_t i = 0; i < g->n; i++)
        if (is_sw(&g->ev[i], PERF_COUNT_SW_TASK_CLOCK))
            return true;
    return false;
}

/* One counter group for one thread on one cpu. */
static int open_group(struct region_trace *rt, const struct counter_group *g, int gi, pid_t pid,
                      int cpu, bool attach, int *rb_fd, char *msg, size_t msglen)
{
    struct perf_event_attr a;
    bool have_cs = false, has_tc = group_has_task_clock(g, gi);
    int leader, fd, col = has_tc;
    size_t first = rt->fds.n;

    memset(&a, 0, sizeof(a));
    common_attr(&a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;                /* a command: at exec; attached: once every buffer is set */
    a.enable_on_exec = !attach;
    a.comm = gi == 0;              /* COMM records with misc COMM_EXEC tell us about exec */
    a.comm_exec = gi == 0;
    a.mmap = a.mmap2 = gi == 0 && rt->watch.nprog > 0;
    leader = open_one(rt, &a, "task-clock", pid, cpu, -1, gi, ID_COUNTER, has_tc ? 0 : -1, -1,
                      msg, msglen);
    if (leader < 0)
        return leader;
    if (vec_push(&rt->leaders, leader))
        return -ENOMEM;
    for (size_t i = 0; i < g->n; i++) {
        const struct event_spec *e = &g->ev[i];
        bool cs = is_sw(e, PERF_COUNT_SW_CONTEXT_SWITCHES);
        if (is_sw(e, PERF_COUNT_SW_TASK_CLOCK))
            continue;
        a = e->attr;
        common_attr(&a);
        a.sample_period = cs ? 1 : 0;
        if (!cs)
            a.sample_type = 0;   /* counting only */
        fd = open_one(rt, &a, e->name, pid, cpu, leader, gi, cs ? ID_SWITCH : ID_COUNTER, col++,
                      -1, msg, msglen);
        if (fd < 0)
            return fd;
        have_cs |= cs;
    }
    if (!have_cs) {
        memset(&a, 0, sizeof(a));
        common_attr(&a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a.sample_period = 1;
        fd = open_one(rt, &a, "context-switches", pid, cpu, leader, gi, ID_SWITCH, -1, -1, msg,
                      msglen);
        if (fd < 0)
            return fd;
    }
    for (size_t p = 0; p < rt->rl->probes.n; p++) {
        memset(&a, 0, sizeof(a));
        common_attr(&a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = rt->tp_ids[p];
        a.sample_period = 1;
        fd = open_one(rt, &a, "uprobe", pid, cpu, leader, gi, ID_PROBE, -1, (int)p, msg, msglen);
        if (fd < 0)
            return fd;
    }
    if (*rb_fd < 0) {
        struct ringbuf *rb = &rt->rbs[rt->nrb];
        int e = ringbuf_map(rb, leader, cpu, rb_pages(rt->ncpus));
        /* Over perf_event_mlock_kb without CAP_IPC_LOCK: smaller buffers (more may be lost). */
        for (size_t pages = 512; (e == -EPERM || e == -ENOMEM) && pages >= 16; pages /= 4)
            e = ringbuf_map(rb, leader, cpu, pages);
        if (e) {
            snprintf(msg, msglen, "cannot map the ring buffer on cpu %d: %s", cpu, strerror(-e));
            return e;
        }
        rt->nrb++;
        *rb_fd = leader;
        first++;
    }
    for (size_t i = first; i < rt->fds.n; i++)
        if (ioctl(rt->fds.v[i], PERF_EVENT_IOC_SET_OUTPUT, *rb_fd) < 0) {
            int e = errno;
            snprintf(msg, msglen, "cannot redirect events into the ring buffer: %s", strerror(e));
            return -e;
        }
    return 0;
}

/* The threads to open events on: the child, or every thread of an attached process. */
static int target_tids(pid_t pid, bool attach, pid_t **out, size_t *n)
{
    if (attach)
        return proc_task_ids(pid, out, n);
    VEC(pid_t) v = { 0 };
    *out = NULL;
    *n = 0;
    if (vec_push(&v, pid))
        return -ENOMEM;
    *out = v.v;
    *n = 1;
    return 0;
}

/* The kernel checks a probed instruction only when it installs the probe in a process that
 * maps the file: for a command, at its exec, where a refusal is silent (the region would show
 * 0 calls). So install it once in our own process first, through a per-task event on a private
 * executable mapping of the file: a refused instruction fails the open (ENOTSUPP, 524).
 * 0, or the error of the open; 0 too when the check cannot be made (the mapping fails). */
static int probe_installable(const char *path, uint64_t tp_id)
{
    struct perf_event_attr a;
    struct stat st;
    void *m = MAP_FAILED;
    int fd = open(path, O_RDONLY | O_CLOEXEC), efd, e = 0;

    if (fd < 0)
        return 0;
    if (!fstat(fd, &st) && st.st_size > 0)
        m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = tp_id;
        a.disabled = 1;
        efd = perf_event_open_fd(&a, 0, -1, -1, 0);
        if (efd >= 0)
            close(efd);
        else
            e = efd;
        munmap(m, (size_t)st.st_size);
    }
    close(fd);
    return e;
}

int region_trace_open(struct region_trace **out, const struct region_list *rl,
                      const struct counter_group *groups, size_t nr_groups, pid_t pid,
                      bool attach, const struct image_watch *watch, char *msg, size_t msglen)
{
    struct region_trace *rt = calloc(1, sizeof(*rt));
    pid_t *tids = NULL;
    size_t ntids = 0, maxnv = 0;
    int e;

    *out = NULL;
    msg[0] = '\0';
    if (!rt)
        return -ENOMEM;
    rt->rl = rl;
    if (watch)
        rt->watch = *watch;
    rt->nr_groups = nr_groups;
    rt->nv = calloc(nr_groups + 1, sizeof(size_t));
    rt->tp_ids = calloc(rl->probes.n + 1, sizeof(uint64_t));
    rt->seen = calloc(nr_groups * rl->probes.n + 1, sizeof(uint64_t));
    rt->hits = calloc(nr_groups * rl->probes.n + 1, sizeof(uint64_t));
    if (!rt->nv || !rt->tp_ids || !rt->seen || !rt->hits) {
        e = -ENOMEM;
        goto fail;
    }
    /* Columns: per group, task-clock then the group's other counters. */
    for (size_t g = 0; g < nr_groups; g++) {
        rt->nv[g] = group_has_task_clock(&groups[g], (int)g);
        for (size_t i = 0; i < groups[g].n; i++)
            rt->nv[g] += !is_sw(&groups[g].ev[i], PERF_COUNT_SW_TASK_CLOCK);
        rt->ncols += rt->nv[g];
        if (rt->nv[g] > maxnv)
            maxnv = rt->nv[g];
    }
    rt->colnames = calloc(rt->ncols + 1, sizeof(char *));
    rt->vals = calloc(maxnv + 1, sizeof(uint64_t));
    if (!rt->colnames || !rt->vals) {
        e = -ENOMEM;
        goto fail;
    }
    for (size_t g = 0, c = 0; g < nr_groups; g++) {
        if (group_has_task_clock(&groups[g], (int)g))
            rt->colnames[c++] = strdup("task-clock");
        for (size_t i = 0; i < groups[g].n; i++)
            if (!is_sw(&groups[g].ev[i], PERF_COUNT_SW_TASK_CLOCK))
                rt->colnames[c++] = strdup(groups[g].ev[i].name);
    }
    for (size_t c = 0; c < rt->ncols; c++)
        if (!rt->colnames[c]) {
            e = -ENOMEM;
            goto fail;
        }

    rt->ups = uprobe_set_new();
    if (!rt->ups) {
        e = -errno;
        snprintf(msg, msglen, "cannot create uprobes: %s", uprobe_advice(errno));
        goto fail;
    }
    for (size_t p = 0; p < rl->probes.n; p++) {
        const struct probe_point *pp = &rl->probes.v[p];
        e = uprobe_set_add(rt->ups, pp->path, pp->offset, pp->ret, &rt->tp_ids[p]);
        if (e) {
            snprintf(msg, msglen, "cannot create a uprobe at %s:0x%llx: %s", pp->path,
                     (unsigned long long)pp->offset, strerror(-e));
            goto fail;
        }
        /* (A jump slot's probe sits on a nop Prospect wrote: nothing to check.) */
        if (!pp->ret && !pp->jump && (e = probe_installable(pp->path, rt->tp_ids[p]))) {
            snprintf(msg, msglen, "the kernel refuses a uprobe on the instruction at %s:0x%llx "
                     "(region %s): %s", pp->path, (unsigned long long)pp->offset,
                     rl->regions.v[pp->region].label, e == -524 ? "it cannot be "
                     "single-stepped or emulated (a lock or segment prefix, an EVEX-encoded "
                     "instruction...)" : strerror(-e));
            goto fail;
        }
    }

    if ((e = cpus_online(&rt->cpus, &rt->ncpus)))
        goto fail;
    for (size_t i = 0; i < rt->ncpus; i++)
        if (rt->cpus[i] > rt->maxcpu)
            rt->maxcpu = rt->cpus[i];
    rt->rbs = calloc(rt->ncpus, sizeof(*rt->rbs));
    if (!rt->rbs) {
        e = -ENOMEM;
        goto fail;
    }
    if ((e = target_tids(pid, attach, &tids, &ntids))) {
        snprintf(msg, msglen, "cannot list the threads of process %d: %s", (int)pid,
                 strerror(-e));
        goto fail;
    }
    for (size_t c = 0; c < rt->ncpus; c++) {
        int rb_fd = -1;
        for (size_t t = 0; t < ntids; t++)
            for (size_t g = 0; g < nr_groups; g++) {
                e = open_group(rt, &groups[g], (int)g, tids[t], rt->cpus[c], attach, &rb_fd,
                               msg, msglen);
                /* A thread of an attached process may exit while we open: skip it. */
                if (e == -ESRCH && attach && tids[t] != pid)
                    break;
                if (e)
                    goto fail;
            }
    }
    free(tids);
    tids = NULL;
    /* Attached: start counting only now, so that no probe hit is counted before its samples
     * have a ring buffer to go to (they would be lost, and said lost). */
    for (size_t i = 0; attach && i < rt->leaders.n; i++)
        if (ioctl(rt->leaders.v[i], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 &&
            errno != ESRCH) {
            e = -errno;
            snprintf(msg, msglen, "cannot enable the counters: %s", strerror(errno));
            goto fail;
        }
    memset(&rt->dec, 0, sizeof(rt->dec));
    common_attr(&rt->dec.attr);
    rt->rc = region_counter_new(rl->regions.n, nr_groups, rt->nv, (size_t)rt->maxcpu + 1);
    if (!rt->rc) {
        e = -ENOMEM;
        goto fail;
    }
    pr_debug("%zu events on %zu cpus, %zu probe points, %zu groups", rt->fds.n, rt->ncpus,
             rl->probes.n, nr_groups);
    *out = rt;
    return 0;
fail:
    free(tids);
    region_trace_free(rt);
    return e;
}

static int add_pend(struct region_trace *rt, const struct sample *s, int group, int kind,
                    int probe, const uint64_t *vals, size_t nv, uint64_t en, uint64_t run)
{
    struct pend p = { .time = s->time, .seq = rt->seq++, .en = en, .run = run,
                      .sp = s->regs_abi && s->regs_user ? s->regs_user[0] : 0, .pid = s->pid,
                      .tid = s->tid, .cpu = s->cpu, .group = group, .kind = kind,
                      .probe = probe, .voff = rt->pool.n };
    if (nv) {
        if (vec_reserve(&rt->pool, nv))
            return -ENOMEM;
        memcpy(rt->pool.v + rt->pool.n, vals, nv * sizeof(*vals));
        rt->pool.n += nv;
    }
    return vec_push(&rt->pend, p);
}

static int on_sample(struct region_trace *rt, const struct perf_event_header *h)
{
    const struct id_ent *ie, *ve;
    const uint64_t *r;
    struct sample s;
    uint64_t nr;
    size_t nv;

    if (sample_parse(&rt->dec, h, &s) || !s.read || s.read_size < 24) {
        rt->st.bad++;
        return 0;
    }
    ie = ids_get(rt, s.id);
    if (!ie || ie->kind == ID_COUNTER || (int)s.cpu > rt->maxcpu) {
        rt->st.bad++;
        return 0;
    }
    r = s.read;
    nr = r[0];
    if (s.read_size != (3 + 2 * nr) * 8) {
        rt->st.bad++;
        return 0;
    }
    nv = rt->nv[ie->group];
    memset(rt->vals, 0, nv * sizeof(uint64_t));
    for (uint64_t i = 0; i < nr; i++) {
        ve = ids_get(rt, r[3 + 2 * i + 1]);
        if (ve && ve->group == ie->group && ve->col >= 0 && (size_t)ve->col < nv)
            rt->vals[ve->col] = r[3 + 2 * i];
    }
    rt->st.samples++;
    if (ie->kind == ID_PROBE)
        rt->seen[(size_t)ie->group * rt->rl->probes.n + (size_t)ie->probe]++;
    return add_pend(rt, &s, ie->group, ie->kind, ie->probe, rt->vals, nv, r[1], r[2]);
}

static bool same_image(const struct image_id *a, const struct rec_mmap2 *m)
{
    return a->ino == m->ino && a->maj == m->maj && a->min == m->min;
}

/* A watched program or the trampoline mapped: queued in time order with the execs. */
static int on_mmap2(struct region_trace *rt, const struct perf_event_header *h)
{
    const struct rec_mmap2 *m = (const void *)h;
    struct sample s;
    int kind = 0;

    if (!rt->watch.nprog || h->size < sizeof(*m) || (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ||
        sample_id_parse(&rt->dec, h, &s))
        return 0;
    if (same_image(&rt->watch.tramp, m))
        kind = PEND_MAP_TRAMP;
    for (size_t i = 0; i < rt->watch.nprog && !kind; i++)
        if (same_image(&rt->watch.prog[i], m))
            kind = PEND_MAP_PROG;
    if (!kind)
        return 0;
    s.pid = m->pid;
    return add_pend(rt, &s, 0, kind, -1, NULL, 0, 0, 0);
}

static struct image_state *image_find(struct region_trace *rt, uint32_t pid)
{
    for (size_t i = 0; i < rt->images.n; i++)
        if (rt->images.v[i].pid == pid)
            return &rt->images.v[i];
    return NULL;
}

/* The image of `pid` ends (exec or the end of tracing): was it patched? */
static void image_end(struct region_trace *rt, uint32_t pid)
{
    struct image_state *is = image_find(rt, pid);
    if (!is)
        return;
    if (!is->tramp && rt->unpatched.n < 256 && vec_push(&rt->unpatched, pid))
        pr_debug("out of memory: unpatched image of pid %u not listed", pid);
    *is = rt->images.v[--rt->images.n];
}

static int image_event(struct region_trace *rt, const struct pend *p)
{
    struct image_state *is;
    if (p->kind == PEND_EXEC) {
        region_counter_exec(rt->rc, p->tid);
        image_end(rt, p->pid);
        return 0;
    }
    is = image_find(rt, p->pid);
    if (p->kind == PEND_MAP_PROG && !is)
        return vec_push(&rt->images, ((struct image_state){ .pid = p->pid }));
    if (p->kind == PEND_MAP_TRAMP && is)
        is->tramp = true;
    return 0;
}

static int on_record(void *arg, const struct perf_event_header *h)
{
    struct region_trace *rt = arg;
    struct sample s;

    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        return on_sample(rt, h);
    case PERF_RECORD_COMM:
        if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && sample_id_parse(&rt->dec, h, &s) == 0)
            return add_pend(rt, &s, 0, PEND_EXEC, -1, NULL, 0, 0, 0);
        return 0;
    case PERF_RECORD_MMAP2:
        return on_mmap2(rt, h);
    case PERF_RECORD_LOST:
        if (h->size >= sizeof(struct rec_lost))
            rt->st.lost += ((const struct rec_lost *)h)->lost;
        return 0;
    case PERF_RECORD_LOST_SAMPLES:
        if (h->size >= sizeof(struct rec_lost_samples))
            rt->st.lost += ((const struct rec_lost_samples *)h)->lost;
        return 0;
    default:
        return 0;
    }
}

static int cmp_pend(const void *a, const void *b)
{
    const struct pend *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Feeds pending samples older than `limit` in time order; keeps the rest. */
static int flush(struct region_trace *rt, uint64_t limit)
{
    size_t done = 0, keep = 0;
    VEC(uint64_t) pool = { 0 };
    int e = 0;

    qsort(rt->pend.v, rt->pend.n, sizeof(*rt->pend.v), cmp_pend);
    for (; done < rt->pend.n && rt->pend.v[done].time <= limit; done++) {
        const struct pend *p = &rt->pend.v[done];
        struct rc_sample rs;

        if (p->kind < 0) {
            if ((e = image_event(rt, p)))
                return e;
            continue;
        }
        memset(&rs, 0, sizeof(rs));
        rs.group = p->group;
        rs.pid = p->pid;
        rs.tid = p->tid;
        rs.cpu = p->cpu;
        rs.time = p->time;
        rs.enabled = p->en;
        rs.running = p->run;
        rs.sp = p->sp;
        rs.values = rt->pool.v + p->voff;
        rs.nr_values = rt->nv[p->group];
        rs.role = RC_SWITCH;
        if (p->kind == ID_PROBE) {
            const struct probe_point *pp = &rt->rl->probes.v[p->probe];
            rs.role = pp->role;
            rs.region = pp->region;
            rs.function = pp->function;
            rs.retprobe = pp->uret;
            if (rs.sp && pp->role == RC_EXIT)
                rs.sp += pp->sp_adjust;   /* at a `ret` or tail call: the return's sp */
            rs.idempotent = pp->idempotent;
        }
        pr_debug2("t=%llu tid=%u cpu=%u g=%d kind=%d probe=%d en=%llu run=%llu v0=%llu sp=%llx",
                  (unsigned long long)p->time, p->tid, p->cpu, p->group, p->kind, p->probe,
                  (unsigned long long)p->en, (unsigned long long)p->run,
                  (unsigned long long)rs.values[0], (unsigned long long)p->sp);
        e = region_counter_feed(rt->rc, &rs);
        if (e == -EINVAL) {
            rt->st.bad++;
            e = 0;
        }
        if (e)
            return e;
    }
    /* Compact what is left (and its values) to the front. */
    for (size_t i = done; i < rt->pend.n; i++) {
        struct pend p = rt->pend.v[i];
        size_t nv = p.kind < 0 ? 0 : rt->nv[p.group];
        if (nv && vec_reserve(&pool, nv)) {
            vec_free(&pool);
            return -ENOMEM;
        }
        if (nv)
            memcpy(pool.v + pool.n, rt->pool.v + p.voff, nv * sizeof(uint64_t));
        p.voff = pool.n;
        pool.n += nv;
        rt->pend.v[keep++] = p;
    }
    rt->pend.n = keep;
    vec_free(&rt->pool);
    rt->pool.v = pool.v;
    rt->pool.n = pool.n;
    rt->pool.cap = pool.cap;
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int drain_all(struct region_trace *rt)
{
    for (size_t i = 0; i < rt->nrb; i++) {
        long n = ringbuf_drain(&rt->rbs[i], on_record, rt);
        if (n < 0)
            return (int)n;
    }
    return 0;
}

int region_trace_poll(struct region_trace *rt, int timeout_ms, int wake_fd)
{
    struct pollfd pfd[256];
    size_t n = rt->nrb < 255 ? rt->nrb : 255;
    uint64_t start;
    int e;

    for (size_t i = 0; i < n; i++) {
        pfd[i].fd = rt->rbs[i].fd;
        pfd[i].events = POLLIN;
        pfd[i].revents = 0;
    }
    if (wake_fd >= 0)
        pfd[n++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
    if (poll(pfd, n, timeout_ms) < 0 && errno != EINTR)
        return -errno;
    start = now_ns();
    if ((e = drain_all(rt)))
        return e;
    return flush(rt, start > REORDER_NS ? start - REORDER_NS : 0);
}

/* Each probe's hits, from the group reads of every leader (an inherited event's read includes
 * its children's counts: exited ones were added to it, live ones are summed). */
static void count_hits(struct region_trace *rt)
{
    size_t np = rt->rl->probes.n, cap = 3 + 2 * (rt->ncols + np + 8);
    uint64_t *buf = calloc(cap, sizeof(uint64_t));

    if (!buf)
        return;
    for (size_t i = 0; i < rt->leaders.n; i++) {
        ssize_t n = read(rt->leaders.v[i], buf, cap * sizeof(uint64_t));
        if (n < 24 || buf[0] > (size_t)(n / 8 - 3) / 2)
            continue;
        for (uint64_t k = 0; k < buf[0]; k++) {
            const struct id_ent *ie = ids_get(rt, buf[3 + 2 * k + 1]);
            if (ie && ie->kind == ID_PROBE)
                rt->hits[(size_t)ie->group * np + (size_t)ie->probe] += buf[3 + 2 * k];
        }
    }
    free(buf);
    for (size_t q = 0; q < rt->nr_groups * np; q++)
        if (rt->hits[q] > rt->seen[q])
            rt->st.unseen += rt->hits[q] - rt->seen[q];
}

void region_trace_unseen(const struct region_trace *rt, int r, uint64_t *entries,
                         uint64_t *exits)
{
    *entries = *exits = 0;
    for (size_t p = 0; p < rt->rl->probes.n; p++) {
        const struct probe_point *pp = &rt->rl->probes.v[p];
        uint64_t miss = rt->hits[p] > rt->seen[p] ? rt->hits[p] - rt->seen[p] : 0;
        if (pp->region != r)
            continue;
        if (pp->role == RC_ENTER)
            *entries += miss;
        else
            *exits += miss;
    }
}

int region_trace_finish(struct region_trace *rt)
{
    int e;

    /* Stop counting first (an attached process runs on): the hits read below then match the
     * samples written, which the drain below collects. */
    for (size_t i = 0; i < rt->leaders.n; i++)
        ioctl(rt->leaders.v[i], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    e = drain_all(rt);
    if (!e)
        e = flush(rt, UINT64_MAX);
    while (!e && rt->images.n)
        image_end(rt, rt->images.v[0].pid);
    if (!e)
        count_hits(rt);
    return e;
}

struct region_counter *region_trace_counter(struct region_trace *rt)
{
    return rt->rc;
}

size_t region_trace_columns(const struct region_trace *rt, const char *const **names)
{
    *names = (const char *const *)rt->colnames;
    return rt->ncols;
}

size_t region_trace_unpatched(const struct region_trace *rt, const uint32_t **pids)
{
    *pids = rt->unpatched.v;
    return rt->unpatched.n;
}

void region_trace_get_stats(const struct region_trace *rt, struct region_trace_stats *st)
{
    *st = rt->st;
    for (size_t i = 0; i < rt->nrb; i++)
        st->bad += rt->rbs[i].bad_records;
}

void region_trace_free(struct region_trace *rt)
{
    if (!rt)
        return;
    for (size_t i = 0; i < rt->nrb; i++)
        ringbuf_unmap(&rt->rbs[i]);
    free(rt->rbs);
    for (size_t i = 0; i < rt->fds.n; i++)
        close(rt->fds.v[i]);
    vec_free(&rt->fds);
    vec_free(&rt->leaders);
    free(rt->seen);
    free(rt->hits);
    /* Only now, with no perf event left on them, can the probes be deleted. */
    uprobe_set_free(rt->ups);
    region_counter_free(rt->rc);
    if (rt->colnames)
        for (size_t c = 0; c < rt->ncols; c++)
            free(rt->colnames[c]);
    free(rt->colnames);
    free(rt->vals);
    free(rt->nv);
    free(rt->tp_ids);
    free(rt->cpus);
    free(rt->ids);
    vec_free(&rt->pend);
    vec_free(&rt->pool);
    vec_free(&rt->images);
    vec_free(&rt->unpatched);
    free(rt);
}
