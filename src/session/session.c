/* SPDX-License-Identifier: MIT */
/* Updates the system model from the record stream. */
#define LOG_PREFIX "session"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "model/process.h"
#include "perf/collect.h"
#include "perf/evlist.h"
#include "perf/perfdata.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "util/log.h"
#include "util/strutil.h"

int session_init(struct session *s)
{
    memset(s, 0, sizeof(*s));
    hashmap_init(&s->by_pid);
    hashmap_init(&s->by_tid);
    hitstore_init(&s->kernel_hits);
    s->filter.pid = s->filter.tid = -1;
    s->filter.cpu = -1;
    s->dsos = dso_cache_new();
    return s->dsos ? 0 : -ENOMEM;
}

void session_release(struct session *s)
{
    for (size_t i = 0; i < s->procs.n; i++)
        process_free(s->procs.v[i]);
    vec_free(&s->procs);
    hashmap_release(&s->by_pid);
    hashmap_release(&s->by_tid);
    hitstore_release(&s->kernel_hits);
    vec_free(&s->released.by_comm);
    vec_free(&s->dead_threads);
    dso_cache_free(s->dsos);
    memset(s, 0, sizeof(*s));
}

int session_add_sink(struct session *s, struct sample_sink sink)
{
    if (s->nsinks == SESSION_MAX_SINKS)
        return -ENOSPC;
    s->sinks[s->nsinks++] = sink;
    return 0;
}

int session_add_build_ids(struct session *s, const struct perfdata_info *in)
{
    for (size_t i = 0; i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *b = &in->build_ids[i];
        uint16_t mode = b->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;
        int err;
        /* Kernel entries key the kallsyms copies (report.c); [vdso] is this kernel's own. */
        if ((mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER) ||
            b->path[0] != '/')
            continue;
        err = dso_cache_add_build_id(s->dsos, b->path, b->id, b->size);
        if (err == -ENOMEM)
            return err;
    }
    return 0;
}

struct process *session_find_process(struct session *s, pid_t pid)
{
    return hashmap_get(&s->by_pid, (uint32_t)pid);
}

/* Creates the next incarnation of pid (first sighting, exec, or pid reuse after exit). */
static struct process *new_process(struct session *s, pid_t pid, const char *comm)
{
    struct process *old = session_find_process(s, pid), *p;
    char unknown[24];

    if (!comm) {
        snprintf(unknown, sizeof(unknown), pid == 0 ? "swapper" : ":%d", (int)pid);
        comm = unknown;
    }
    p = process_next(old, pid, comm);
    if (!p)
        return NULL;
    p->is_self = s->self_pid && pid == s->self_pid;
    p->is_idle = pid == 0;
    if (vec_push(&s->procs, p) || hashmap_put(&s->by_pid, (uint32_t)pid, p) ||
        hashmap_put(&s->by_tid, (uint32_t)pid, p)) {
        /* The process may already be in procs; it is freed with the session then. */
        if (!s->procs.n || s->procs.v[s->procs.n - 1] != p)
            process_free(p);
        return NULL;
    }
    return p;
}

int session_add_launcher(struct session *s, pid_t pid, const char *argv0)
{
    struct process *p = new_process(s, pid, path_basename(argv0));
    if (!p)
        return -ENOMEM;
    p->is_launcher = true;
    return 0;
}

/* by_tid: tid is a thread of p besides its leader. */
static int map_thread(struct session *s, uint32_t tid, struct process *p)
{
    struct process *old = hashmap_get(&s->by_tid, tid);

    if (old == p)
        return 0;
    if (old && old->pid != (pid_t)tid)
        process_drop_tid(old, tid);     /* reused before its EXIT was seen */
    if (vec_push(&p->tids, tid) || hashmap_put(&s->by_tid, tid, p))
        return -ENOMEM;
    return 0;
}

static struct process *process_of(struct session *s, pid_t pid)
{
    struct process *p = session_find_process(s, pid);
    return p ? p : new_process(s, pid, NULL);
}

static int on_comm(struct session *s, const struct perf_event_header *h)
{
    const struct rec_comm *r = (const void *)h;
    const char *comm = record_string(h);
    struct process *p;

    if (!comm || h->size < sizeof(*r))
        return 1;
    p = session_find_process(s, (pid_t)r->pid);
    if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
        if (p && p->is_launcher) {
            /* Prospect's own child becoming the command: one process, the command's name. */
            p->is_launcher = false;
            snprintf(p->comm, sizeof(p->comm), "%s", comm);
            return process_retire_all_maps(p);
        }
        /* exec: a new image with a new name; the old one keeps its hits under its old name. */
        if (p) {
            p->execed = p->exited = true;
        }
        p = new_process(s, (pid_t)r->pid, comm);
        return p ? 0 : -ENOMEM;
    }
    if (!p)
        return new_process(s, (pid_t)r->pid, comm) ? 0 : -ENOMEM;
    if (r->tid != r->pid)
        return map_thread(s, r->tid, p);
    snprintf(p->comm, sizeof(p->comm), "%s", comm);
    return 0;
}

static int on_fork(struct session *s, const struct perf_event_header *h)
{
    const struct rec_fork *r = (const void *)h;
    struct process *parent, *child;

    if (r->pid != r->tid) {
        /* A new thread in an existing process. */
        struct process *p = process_of(s, (pid_t)r->pid);
        if (!p)
            return -ENOMEM;
        return map_thread(s, r->tid, p);
    }
    parent = hashmap_get(&s->by_tid, r->ptid);
    if (!parent)
        parent = session_find_process(s, (pid_t)r->ppid);
    child = session_find_process(s, (pid_t)r->pid);
    if (child && child != parent)
        child->exited = true;           /* pid reuse */
    child = new_process(s, (pid_t)r->pid, parent ? parent->comm : NULL);
    if (!child)
        return -ENOMEM;
    child->ppid = (pid_t)r->ppid;
    child->first_time = r->time;
    if (parent)
        return process_copy_maps(child, parent);
    return 0;
}

static int on_exit_record(struct session *s, const struct perf_event_header *h)
{
    const struct rec_fork *r = (const void *)h;
    struct process *p = hashmap_get(&s->by_tid, r->tid);

    if (r->pid == r->tid && p && p->pid == (pid_t)r->pid) {
        p->exited = true;
        p->last_time = r->time;
    }
    if (!s->release_exited)
        return 0;
    /* Late samples of the thread may still come (same timestamp): its tid leaves by_tid only
     * a grace second later. */
    if (r->pid != r->tid && p && p->pid == (pid_t)r->pid) {
        struct dead_thread d = { .pid = r->pid, .tid = r->tid, .time = r->time };
        if (vec_push(&s->dead_threads, d))
            return -ENOMEM;
    }
    return session_release_exited(s, r->time);
}

static enum dso_kind kind_of_path(const char *path)
{
    /* "//anon" is the kernel's name for anonymous memory, not a path. */
    if (path[0] == '/' && strcmp(path, "//anon") && !str_starts(path, "/anon_hugepage"))
        return DSO_FILE;
    if (!strcmp(path, "[vdso]"))
        return DSO_VDSO;
    return DSO_ANON;
}

static int on_mmap(struct session *s, const struct perf_event_header *h)
{
    const char *path = record_string(h);
    uint64_t start, len, pgoff;
    uint32_t pid, prot = PROT_READ | PROT_EXEC, flags = 0;
    const uint8_t *bid = NULL;
    size_t bid_len = 0;
    struct process *p;
    struct dso *dso;

    if (!path)
        return 1;
    if (h->type == PERF_RECORD_MMAP2) {
        const struct rec_mmap2 *r = (const void *)h;
        pid = r->pid; start = r->start; len = r->len; pgoff = r->pgoff;
        prot = r->prot; flags = r->flags;
        if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && r->build_id_size <= BUILD_ID_MAX) {
            bid = r->build_id;
            bid_len = r->build_id_size;
        }
    } else {
        const struct rec_mmap *r = (const void *)h;
        pid = r->pid; start = r->start; len = r->len; pgoff = r->pgoff;
        if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
            prot = PROT_READ;
    }
    /* Kernel and module maps (pid -1) are resolved through kallsyms; data maps hold no code. */
    if (pid == (uint32_t)-1 || (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
        !(prot & PROT_EXEC))
        return 0;
    p = process_of(s, (pid_t)pid);
    if (!p)
        return -ENOMEM;
    if (kind_of_path(path) == DSO_FILE && !bid && h->type == PERF_RECORD_MMAP2) {
        const struct rec_mmap2 *r = (const void *)h;
        dso = dso_cache_get_mapped(s->dsos, path, r->maj, r->min, r->ino);
    } else {
        dso = dso_cache_get(s->dsos, kind_of_path(path), path, bid, bid_len, (pid_t)pid);
    }
    if (!dso)
        return -ENOMEM;
    int err = process_add_map(p, start, len, pgoff, dso, prot, flags);
    return err == -EINVAL ? 1 : err;
}

static bool filtered_out(const struct session *s, const struct sample *smp, const struct process *p)
{
    const struct session_filter *f = &s->filter;
    return (f->pid >= 0 && (pid_t)smp->pid != f->pid) ||
           (f->tid >= 0 && (pid_t)smp->tid != f->tid) ||
           (f->cpu >= 0 && smp->cpu != (uint32_t)f->cpu) ||
           (f->comm && strcmp(f->comm, p->comm));
}

static bool is_clock_event(const struct perf_event_attr *a)
{
    return a->type == PERF_TYPE_SOFTWARE &&
           (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The sink that takes sel's samples instead of the profiles (off-CPU's switch-outs), or NULL. */
static const struct sample_sink *claiming_sink(const struct session *s, const struct evsel *sel)
{
    for (size_t i = 0; i < s->nsinks; i++)
        if (s->sinks[i].claims && s->sinks[i].claims(s->sinks[i].arg, sel))
            return &s->sinks[i];
    return NULL;
}

/* A kept sample to every sink that takes them, decoded in full once (for the call chain); a
 * chain that does not decode leaves the fixed fields. */
static int sample_to_sinks(const struct session *s, const struct evsel *sel,
                           const struct perf_event_header *h, struct process *p,
                           const struct sample *fixed)
{
    const struct sample *smp = NULL;
    struct sample full;
    int err = 0;

    for (size_t i = 0; i < s->nsinks && !err; i++) {
        const struct sample_sink *k = &s->sinks[i];
        if (!k->sample)
            continue;
        if (!smp)
            smp = sample_parse(sel, h, &full) ? fixed : &full;
        err = k->sample(k->arg, p, smp, fixed->period);
    }
    return err;
}

/* The process owning thread tid: from the cache, else by_tid (NULL if unknown). */
static struct process *cached_process(struct session *s, uint32_t tid)
{
    unsigned i = tid & (SESSION_TID_CACHE - 1);
    if (s->tid_cache[i].proc && s->tid_cache[i].tid == tid)
        return s->tid_cache[i].proc;
    return hashmap_get(&s->by_tid, tid);
}

static int on_sample(struct session *s, const struct evlist *evl, const struct perf_event_header *h)
{
    const struct evsel *sel = evlist_evsel_for(evl, h);
    struct sample smp;
    struct process *p;
    struct map *m;
    int err;

    /* The fixed fields first (the cheap decoder); call chains only when they are kept. */
    if (!sel || sample_parse_fixed(sel, h, &smp)) {
        s->stats.bad_samples++;
        return 0;
    }
    p = cached_process(s, smp.tid);
    if (!p || p->pid != (pid_t)smp.pid) {
        p = session_find_process(s, (pid_t)smp.pid);
        if (!p) {
            s->stats.unknown_thread++;
            p = new_process(s, (pid_t)smp.pid, NULL);
            if (!p)
                return -ENOMEM;
        }
    }
    if (smp.period < CLOCK_EVENT_MIN_PERIOD_NS && is_clock_event(&sel->attr)) {
        /* The timer really fired every 10 µs at most, whatever period the sample says. */
        smp.period = CLOCK_EVENT_MIN_PERIOD_NS;
        s->stats.period_clamped++;
    }
    s->tid_cache[smp.tid & (SESSION_TID_CACHE - 1)].tid = smp.tid;
    s->tid_cache[smp.tid & (SESSION_TID_CACHE - 1)].proc = p;
    const struct sample_sink *claim = claiming_sink(s, sel);
    if (filtered_out(s, &smp, p)) {
        s->stats.filtered++;
        /* A hidden thread's switch-out still ends the wait of the thread it switches to (in
         * -a files), and its own wait is part of the total the shares are of. */
        struct sample full;
        if (claim && claim->claimed_hidden && !sample_parse(sel, h, &full))
            return claim->claimed_hidden(claim->arg, &full);
        return 0;
    }
    if (claim) {
        /* E.g. a switch-out: an off-CPU wait, not an on-CPU hit. Undecodable: counted as bad. */
        struct sample full;
        if (sample_parse(sel, h, &full)) {
            s->stats.bad_samples++;
            return 0;
        }
        return claim->claimed ? claim->claimed(claim->arg, p, &full) : 0;
    }
    s->stats.samples++;
    s->stats.period_total += smp.period;
    if (!s->stats.first_time || smp.time < s->stats.first_time)
        s->stats.first_time = smp.time;
    if (smp.time > s->stats.last_time)
        s->stats.last_time = smp.time;
    if (!p->first_time)
        p->first_time = smp.time;
    if (smp.time > p->last_time)
        p->last_time = smp.time;
    if ((err = sample_to_sinks(s, sel, h, p, &smp)))
        return err;

    switch (smp.cpumode) {
    case PERF_RECORD_MISC_KERNEL:
        s->stats.kernel++;
        p->kernel_samples++;
        p->kernel_period += smp.period;
        if (s->stacks_only)
            return 0;
        return hitstore_add(&p->khits, smp.ip, smp.period);
    case PERF_RECORD_MISC_USER:
        s->stats.user++;
        p->user_samples++;
        p->user_period += smp.period;
        if (s->stacks_only)
            return 0;
        m = process_find_map(p, smp.ip);
        return hitstore_add(m ? &m->hits : &p->unmapped, smp.ip, smp.period);
    default:
        s->stats.other++;
        p->other_samples++;
        return 0;
    }
}

/* A thread switched in (the record's sample_id names it) ends its off-CPU wait. */
static int on_switch(struct session *s, const struct evlist *evl,
                     const struct perf_event_header *h, uint64_t time)
{
    const struct evsel *sel = evlist_evsel_for(evl, h);
    struct sample id;
    bool wanted = false;
    int err = 0;

    for (size_t i = 0; i < s->nsinks; i++)
        wanted |= s->sinks[i].switch_in != NULL;
    if (!wanted || (h->misc & PERF_RECORD_MISC_SWITCH_OUT) || !sel ||
        sample_id_parse(sel, h, &id))
        return 0;
    for (size_t i = 0; i < s->nsinks && !err; i++)
        if (s->sinks[i].switch_in)
            err = s->sinks[i].switch_in(s->sinks[i].arg, id.tid, id.time ? id.time : time);
    return err;
}

int session_record(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time)
{
    struct session *s = arg;
    int ret = 0;

    /* Anything but a sample may change which process a tid belongs to. */
    if (h->type != PERF_RECORD_SAMPLE)
        memset(s->tid_cache, 0, sizeof(s->tid_cache));

    if (h->type < 32)
        s->stats.records[h->type]++;
    else
        s->stats.records_other++;
    if (h->size < record_min_size(h->type))
        return 0;   /* counted above; a short record carries nothing usable */
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        ret = on_sample(s, evl, h);
        break;
    case PERF_RECORD_COMM:
        ret = on_comm(s, h);
        break;
    case PERF_RECORD_FORK:
        ret = on_fork(s, h);
        break;
    case PERF_RECORD_EXIT:
        ret = on_exit_record(s, h);
        break;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
        ret = on_mmap(s, h);
        break;
    case PERF_RECORD_LOST:
        s->stats.lost += ((const struct rec_lost *)h)->lost;
        s->stats.lost_records++;
        break;
    case PERF_RECORD_LOST_SAMPLES:
        s->stats.lost_samples += ((const struct rec_lost_samples *)h)->lost;
        break;
    case PERF_RECORD_THROTTLE:
        s->stats.throttle++;
        break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
        ret = on_switch(s, evl, h, time);
        break;
    case PERF_RECORD_UNTHROTTLE:
        s->stats.unthrottle++;
        break;
    default:
        break;
    }
    if (ret > 0) {
        pr_debug("malformed %s record ignored", record_type_name(h->type));
        ret = 0;
    }
    return ret;
}

static int cmp_by_samples(const void *a, const void *b)
{
    const struct process *x = *(const struct process *const *)a;
    const struct process *y = *(const struct process *const *)b;
    uint64_t nx = process_samples(x), ny = process_samples(y);
    if (nx != ny)
        return nx > ny ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

long session_sampled_processes(const struct session *s, struct process ***out)
{
    struct process **v = calloc(s->procs.n + 1, sizeof(*v));
    size_t n = 0;

    *out = NULL;
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < s->procs.n; i++)
        if (process_samples(s->procs.v[i]))
            v[n++] = s->procs.v[i];
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_by_samples);
    *out = v;
    return (long)n;
}
