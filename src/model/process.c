/* SPDX-License-Identifier: MIT */
/* Processes and their address-space maps. */
#define LOG_PREFIX "process"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/frame.h"
#include "model/process.h"
#include "symbol/dso.h"
#include "util/log.h"

/* No map of any process: its address is the sentinel of kernel frames. */
const struct map kernel_map;

struct process *process_new(pid_t pid, const char *comm)
{
    struct process *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->pid = pid;
    p->ppid = -1;
    snprintf(p->comm, sizeof(p->comm), "%s", comm);
    hitstore_init(&p->unmapped);
    hitstore_init(&p->khits);
    return p;
}

struct process *process_next(const struct process *old, pid_t pid, const char *comm)
{
    struct process *p = process_new(pid, comm);

    if (p && old) {
        p->incarnation = old->incarnation + 1;
        p->ppid = old->ppid;
    }
    return p;
}

void process_drop_tid(struct process *p, uint32_t tid)
{
    for (size_t i = 0; i < p->tids.n; i++)
        if (p->tids.v[i] == tid) {
            p->tids.v[i] = p->tids.v[--p->tids.n];
            return;
        }
}

static void map_free(struct map *m)
{
    if (!m)
        return;
    hitstore_release(&m->hits);
    dso_unhold(m->dso);
    free(m);
}

void process_free(struct process *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->maps.n; i++)
        map_free(p->maps.v[i]);
    for (size_t i = 0; i < p->retired.n; i++)
        map_free(p->retired.v[i]);
    vec_free(&p->maps);
    vec_free(&p->retired);
    vec_free(&p->tids);
    hitstore_release(&p->unmapped);
    hitstore_release(&p->khits);
    free(p);
}

static struct map *map_new(uint64_t start, uint64_t end, uint64_t pgoff, struct dso *dso,
                           uint32_t prot, uint32_t flags)
{
    struct map *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->start = start;
    m->end = end;
    m->pgoff = pgoff;
    m->dso = dso;
    dso_hold(dso);
    m->prot = prot;
    m->flags = flags;
    hitstore_init(&m->hits);
    return m;
}

/* Retires a map: it keeps its hits for the report but no longer takes new ones. Maps without
 * hits (nor call-stack frames) are simply freed. */
static int retire(struct process *p, struct map *m)
{
    if (!hitstore_count(&m->hits) && !m->in_stack) {
        map_free(m);
        return 0;
    }
    if (vec_push(&p->retired, m)) {
        map_free(m);
        return -ENOMEM;
    }
    return 0;
}

/* Index of the first map whose end is above addr. */
static size_t lower_bound(const struct process *p, uint64_t addr)
{
    size_t lo = 0, hi = p->maps.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->maps.v[mid]->end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int process_add_map(struct process *p, uint64_t start, uint64_t len, uint64_t pgoff,
                    struct dso *dso, uint32_t prot, uint32_t flags)
{
    uint64_t end = start + len;
    struct map *m;
    size_t i;
    int err = 0;

    if (len == 0 || end < start)
        return -EINVAL;
    p->last_map = NULL;
    /* The new mapping replaces whatever overlapped it; uncovered parts of old maps survive as
     * new pieces (their earlier hits stay with the retired original). */
    i = lower_bound(p, start);
    while (i < p->maps.n && p->maps.v[i]->start < end) {
        struct map *old = p->maps.v[i];
        struct map *left = NULL, *right = NULL;

        if (old->start < start)
            left = map_new(old->start, start, old->pgoff, old->dso, old->prot, old->flags);
        if (old->end > end)
            right = map_new(end, old->end, old->pgoff + (end - old->start), old->dso,
                            old->prot, old->flags);
        if ((old->start < start && !left) || (old->end > end && !right)) {
            map_free(left);
            map_free(right);
            return -ENOMEM;
        }
        memmove(&p->maps.v[i], &p->maps.v[i + 1], (p->maps.n - i - 1) * sizeof(*p->maps.v));
        p->maps.n--;
        err = retire(p, old);
        if (left) {
            if (vec_reserve(&p->maps, 1))
                return -ENOMEM;
            memmove(&p->maps.v[i + 1], &p->maps.v[i], (p->maps.n - i) * sizeof(*p->maps.v));
            p->maps.v[i++] = left;
            p->maps.n++;
        }
        if (right) {
            if (vec_reserve(&p->maps, 1))
                return -ENOMEM;
            memmove(&p->maps.v[i + 1], &p->maps.v[i], (p->maps.n - i) * sizeof(*p->maps.v));
            p->maps.v[i] = right;
            p->maps.n++;
            break;
        }
        if (err)
            return err;
    }
    m = map_new(start, end, pgoff, dso, prot, flags);
    if (!m || vec_reserve(&p->maps, 1)) {
        map_free(m);
        return -ENOMEM;
    }
    i = lower_bound(p, start);
    memmove(&p->maps.v[i + 1], &p->maps.v[i], (p->maps.n - i) * sizeof(*p->maps.v));
    p->maps.v[i] = m;
    p->maps.n++;
    return err;
}

struct map *process_find_map(struct process *p, uint64_t addr)
{
    size_t i;
    if (p->last_map && addr >= p->last_map->start && addr < p->last_map->end)
        return p->last_map;
    i = lower_bound(p, addr);
    if (i < p->maps.n && p->maps.v[i]->start <= addr) {
        p->last_map = p->maps.v[i];
        return p->last_map;
    }
    return NULL;
}

int process_copy_maps(struct process *dst, const struct process *src)
{
    for (size_t i = 0; i < src->maps.n; i++) {
        const struct map *m = src->maps.v[i];
        int err = process_add_map(dst, m->start, m->end - m->start, m->pgoff, m->dso, m->prot,
                                  m->flags);
        if (err)
            return err;
    }
    return 0;
}

int process_retire_all_maps(struct process *p)
{
    int err = 0;
    for (size_t i = 0; i < p->maps.n; i++)
        if (retire(p, p->maps.v[i]))
            err = -ENOMEM;
    p->maps.n = 0;
    p->last_map = NULL;
    return err;
}
