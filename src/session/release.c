/* SPDX-License-Identifier: MIT */
/* Releasing exited processes the report will not detail, so that a long system-wide run holds
 * the live processes and the detailed ones, not every process it ever saw (issue 19: a `run
 * -a` beside a make loop reached 952 MB in 10 minutes). Their counts stay for the report's
 * summary rows and totals, which therefore read exactly as if the processes were kept. */
#define LOG_PREFIX "release"
#include <errno.h>
#include <string.h>
#include "model/process.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "util/log.h"

/* Records this much older than the newest delivered are still possible (ordered.c delivers
 * late ones anyway), so a process is released only this long after its last record. */
#define RELEASE_GRACE_NS 1000000000ull
/* One pass over the processes at most this often (record time). */
#define RELEASE_EVERY_NS 100000000ull

bool process_shown(const struct process *p, uint64_t period_total, const struct show_limits *l)
{
    uint64_t period = p->user_period + p->kernel_period;
    double share = period_total ? 100.0 * (double)period / (double)period_total : 0.0;

    if (!process_samples(p) || share < l->min_percent)
        return false;
    return !(l->time_event && l->min_time > 0 && (double)period / 1e9 < l->min_time);
}

static bool grace_over(uint64_t then, uint64_t now)
{
    return now > then && now - then > RELEASE_GRACE_NS;
}

static bool releasable(const struct session *s, const struct process *p, uint64_t now)
{
    return p->exited && !p->tids.n && !p->is_self && grace_over(p->last_time, now) &&
           !process_shown(p, s->stats.period_total, &s->limits);
}

/* Threads whose EXIT is a grace second old leave by_tid and their process's list. */
static void forget_dead_threads(struct session *s, uint64_t now)
{
    size_t kept = 0;

    for (size_t i = 0; i < s->dead_threads.n; i++) {
        struct dead_thread d = s->dead_threads.v[i];
        struct process *p;
        if (!grace_over(d.time, now)) {
            s->dead_threads.v[kept++] = d;
            continue;
        }
        p = hashmap_get(&s->by_tid, d.tid);
        if (p && p->pid == (pid_t)d.pid) {
            process_drop_tid(p, d.tid);
            hashmap_del(&s->by_tid, d.tid);
        }
    }
    s->dead_threads.n = kept;
}

/* Adds p's counts to what remains of the released processes. 0 or -ENOMEM. */
static int tally(struct released_procs *r, const struct process *p)
{
    uint64_t samples = process_samples(p), period = p->user_period + p->kernel_period;
    size_t i;

    if (samples) {
        for (i = 0; i < r->by_comm.n && strcmp(r->by_comm.v[i].comm, p->comm); i++)
            ;
        if (i == r->by_comm.n) {
            struct comm_tally t = { .nproc = 0 };
            memcpy(t.comm, p->comm, sizeof(t.comm));
            if (vec_push(&r->by_comm, t))
                return -ENOMEM;
        }
        r->by_comm.v[i].nproc++;
        r->by_comm.v[i].samples += samples;
        r->by_comm.v[i].period += period;
        r->sampled++;
        r->samples += samples;
        r->period += period;
    }
    r->seen++;
    if (p->is_self)
        r->self_samples += samples;
    return 0;
}

/* Removes every lookup that still leads to p. */
static void forget(struct session *s, struct process *p)
{
    if (hashmap_get(&s->by_pid, (uint32_t)p->pid) == p)
        hashmap_del(&s->by_pid, (uint32_t)p->pid);
    if (hashmap_get(&s->by_tid, (uint32_t)p->pid) == p)
        hashmap_del(&s->by_tid, (uint32_t)p->pid);
    for (size_t i = 0; i < p->tids.n; i++)
        if (hashmap_get(&s->by_tid, p->tids.v[i]) == p)
            hashmap_del(&s->by_tid, p->tids.v[i]);
    for (size_t i = 0; i < SESSION_TID_CACHE; i++)
        if (s->tid_cache[i].proc == p)
            s->tid_cache[i].proc = NULL;
}

int session_release_exited(struct session *s, uint64_t now)
{
    size_t kept = 0, freed = 0;
    int err = 0;

    if (now < s->release_time + RELEASE_EVERY_NS)
        return 0;
    s->release_time = now;
    forget_dead_threads(s, now);
    /* Compacted in place: the kept processes stay in their order of appearance. */
    for (size_t i = 0; i < s->procs.n; i++) {
        struct process *p = s->procs.v[i];
        if (err || !releasable(s, p, now) || (err = tally(&s->released, p)) ||
            (err = hitstore_merge(&s->kernel_hits, &p->khits))) {
            s->procs.v[kept++] = p;
            continue;
        }
        forget(s, p);
        process_free(p);
        freed++;
    }
    s->procs.n = kept;
    if (freed) {
        size_t files = dso_cache_drop_unmapped(s->dsos);
        pr_debug("%zu exited processes released, %zu kept; %zu files no map refers to",
                 freed, kept, files);
    }
    return err;
}

int session_kernel_hits(const struct session *s, struct hitstore *out)
{
    int err;

    hitstore_init(out);
    err = hitstore_merge(out, &s->kernel_hits);
    for (size_t i = 0; !err && i < s->procs.n; i++)
        err = hitstore_merge(out, &s->procs.v[i]->khits);
    if (err)
        hitstore_release(out);
    return err;
}
