/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "probe/region_count.h"
#include "util/hash.h"

/* The kernel stops hijacking return addresses past this many pending uretprobes per task
 * (MAX_URETPROBE_DEPTH): deeper entries get no return sample. */
#define URETPROBE_DEPTH_MAX 64
#define MIGRATION_GAP_NS 50000.0

struct thread {
    uint32_t pid, tid;
    uint64_t *snap;       /* per group, per cpu: values..., enabled, running */
    uint64_t *entry;      /* per group, per region: values..., enabled, running, time */
    int *depth;           /* per group, per region */
    uint64_t *outer_sp;   /* per group, per region: stack pointer of the outermost open entry */
    int *uret_depth;      /* per group */
    struct rc_result *res;/* per region */
};

struct region_counter {
    size_t nr_regions, nr_groups, nr_cpus, ncols;
    size_t *nv, *snap_off, *entry_off, *col_off;
    size_t snap_words, entry_words;
    struct thread **tab;  /* open addressing by tid */
    size_t tab_cap, nr_threads;
    struct rc_result *totals;  /* per region, rebuilt on demand */
    struct rc_result *per_thread; /* scratch for region_counter_threads */
    bool keep;                 /* keep every crossing's values */
    uint64_t *scratch;
};

static int stat_add(struct rc_stat *st, double v, bool keep)
{
    if (keep && st->n == st->cap) {
        size_t nc = st->cap ? st->cap * 2 : 16;
        double *na = realloc(st->all, nc * sizeof(*na));
        if (!na)
            return -ENOMEM;
        st->all = na;
        st->cap = nc;
    }
    if (keep)
        st->all[st->n] = v;
    if (!st->n || v < st->min)
        st->min = v;
    if (!st->n || v > st->max)
        st->max = v;
    st->n++;
    st->total += v;
    return 0;
}

static int stat_merge(struct rc_stat *dst, const struct rc_stat *src)
{
    if (src->all && !src->weights) {
        for (uint64_t i = 0; i < src->n; i++)
            if (stat_add(dst, src->all[i], true))
                return -ENOMEM;
        return 0;
    }
    if (!src->n)
        return 0;
    if (!dst->n || src->min < dst->min)
        dst->min = src->min;
    if (!dst->n || src->max > dst->max)
        dst->max = src->max;
    dst->n += src->n;
    dst->total += src->total;
    return 0;
}

static void result_release(struct rc_result *r, size_t ncols)
{
    free(r->wall.all);
    if (r->vals)
        for (size_t c = 0; c < ncols; c++)
            free(r->vals[c].all);
    free(r->vals);
    memset(r, 0, sizeof(*r));
}

static int result_init(struct rc_result *r, size_t ncols, pid_t pid, pid_t tid)
{
    memset(r, 0, sizeof(*r));
    r->pid = pid;
    r->tid = tid;
    r->vals = calloc(ncols ? ncols : 1, sizeof(*r->vals));
    return r->vals ? 0 : -ENOMEM;
}

double rc_stat_mean(const struct rc_stat *st)
{
    return st->n ? st->total / (double)st->n : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double rc_stat_percentile(const struct rc_stat *st, double p)
{
    size_t rank;
    if (!st->n || !st->all)
        return 0;
    if (st->weights) {          /* nearest rank over weighted values, already in order */
        uint64_t r = (uint64_t)ceil(p / 100.0 * (double)st->n), cum = 0;
        for (size_t i = 0; i < st->cap; i++)
            if ((cum += st->weights[i]) >= (r ? r : 1))
                return st->all[i];
        return st->cap ? st->all[st->cap - 1] : 0;
    }
    qsort(st->all, st->n, sizeof(double), cmp_double);
    rank = (size_t)ceil(p / 100.0 * (double)st->n);
    if (rank < 1)
        rank = 1;
    if (rank > st->n)
        rank = st->n;
    return st->all[rank - 1];
}

struct region_counter *region_counter_new(size_t nr_regions, size_t nr_groups,
                                          const size_t *nr_vals, size_t nr_cpus)
{
    struct region_counter *rc = calloc(1, sizeof(*rc));
    size_t maxnv = 0;

    if (!rc)
        return NULL;
    rc->nr_regions = nr_regions;
    rc->nr_groups = nr_groups;
    rc->nr_cpus = nr_cpus ? nr_cpus : 1;
    rc->nv = calloc(nr_groups + 1, sizeof(size_t));
    rc->snap_off = calloc(nr_groups + 1, sizeof(size_t));
    rc->entry_off = calloc(nr_groups + 1, sizeof(size_t));
    rc->col_off = calloc(nr_groups + 1, sizeof(size_t));
    rc->tab_cap = 64;
    rc->tab = calloc(rc->tab_cap, sizeof(*rc->tab));
    if (!rc->nv || !rc->snap_off || !rc->entry_off || !rc->col_off || !rc->tab) {
        region_counter_free(rc);
        errno = ENOMEM;
        return NULL;
    }
    for (size_t g = 0; g < nr_groups; g++) {
        rc->nv[g] = nr_vals[g];
        rc->snap_off[g] = rc->snap_words;
        rc->snap_words += rc->nr_cpus * (nr_vals[g] + 2);
        rc->entry_off[g] = rc->entry_words;
        rc->entry_words += nr_regions * (nr_vals[g] + 3);
        rc->col_off[g] = rc->ncols;
        rc->ncols += nr_vals[g];
        if (nr_vals[g] > maxnv)
            maxnv = nr_vals[g];
    }
    rc->scratch = calloc(maxnv + 2, sizeof(uint64_t));
    if (!rc->scratch) {
        region_counter_free(rc);
        errno = ENOMEM;
        return NULL;
    }
    return rc;
}

void region_counter_keep_values(struct region_counter *rc, bool keep)
{
    rc->keep = keep;
}

static void thread_free(struct region_counter *rc, struct thread *t)
{
    if (!t)
        return;
    if (t->res)
        for (size_t r = 0; r < rc->nr_regions; r++)
            result_release(&t->res[r], rc->ncols);
    free(t->res);
    free(t->snap);
    free(t->entry);
    free(t->depth);
    free(t->outer_sp);
    free(t->uret_depth);
    free(t);
}

static void free_aggregates(struct region_counter *rc)
{
    if (rc->totals)
        for (size_t r = 0; r < rc->nr_regions; r++)
            result_release(&rc->totals[r], rc->ncols);
    free(rc->totals);
    rc->totals = NULL;
    free(rc->per_thread);   /* shallow copies of thread results */
    rc->per_thread = NULL;
}

void region_counter_free(struct region_counter *rc)
{
    if (!rc)
        return;
    free_aggregates(rc);
    for (size_t i = 0; i < rc->tab_cap && rc->tab; i++)
        thread_free(rc, rc->tab[i]);
    free(rc->tab);
    free(rc->nv);
    free(rc->snap_off);
    free(rc->entry_off);
    free(rc->col_off);
    free(rc->scratch);
    free(rc);
}

static struct thread **tab_slot(struct thread **tab, size_t cap, uint32_t tid)
{
    size_t i = hash_u64(tid) & (cap - 1);
    while (tab[i] && tab[i]->tid != tid)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

static int tab_grow(struct region_counter *rc)
{
    size_t ncap = rc->tab_cap * 2;
    struct thread **nt = calloc(ncap, sizeof(*nt));
    if (!nt)
        return -ENOMEM;
    for (size_t i = 0; i < rc->tab_cap; i++)
        if (rc->tab[i])
            *tab_slot(nt, ncap, rc->tab[i]->tid) = rc->tab[i];
    free(rc->tab);
    rc->tab = nt;
    rc->tab_cap = ncap;
    return 0;
}

static struct thread *thread_get(struct region_counter *rc, uint32_t pid, uint32_t tid)
{
    struct thread **slot = tab_slot(rc->tab, rc->tab_cap, tid), *t;

    if (*slot)
        return *slot;
    if ((rc->nr_threads + 1) * 2 > rc->tab_cap) {
        if (tab_grow(rc))
            return NULL;
        slot = tab_slot(rc->tab, rc->tab_cap, tid);
    }
    t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->pid = pid;
    t->tid = tid;
    t->snap = calloc(rc->snap_words + 1, sizeof(uint64_t));
    t->entry = calloc(rc->entry_words + 1, sizeof(uint64_t));
    t->depth = calloc(rc->nr_groups * rc->nr_regions + 1, sizeof(int));
    t->outer_sp = calloc(rc->nr_groups * rc->nr_regions + 1, sizeof(uint64_t));
    t->uret_depth = calloc(rc->nr_groups + 1, sizeof(int));
    t->res = calloc(rc->nr_regions + 1, sizeof(*t->res));
    if (!t->snap || !t->entry || !t->depth || !t->outer_sp || !t->uret_depth || !t->res) {
        thread_free(rc, t);
        return NULL;
    }
    for (size_t r = 0; r < rc->nr_regions; r++)
        if (result_init(&t->res[r], rc->ncols, (pid_t)pid, (pid_t)tid)) {
            thread_free(rc, t);
            return NULL;
        }
    *slot = t;
    rc->nr_threads++;
    return t;
}

/* The thread's current counter totals for group g: values summed over cpus, running summed,
 * enabled the largest (a per-cpu copy's enabled time runs whenever the thread runs). */
static void thread_totals(struct region_counter *rc, struct thread *t, int g, uint64_t *out)
{
    size_t nv = rc->nv[g];
    memset(out, 0, (nv + 2) * sizeof(*out));
    for (size_t c = 0; c < rc->nr_cpus; c++) {
        const uint64_t *s = t->snap + rc->snap_off[g] + c * (nv + 2);
        for (size_t i = 0; i < nv; i++)
            out[i] += s[i];
        if (s[nv] > out[nv])
            out[nv] = s[nv];
        out[nv + 1] += s[nv + 1];
    }
}

static int crossing_done(struct region_counter *rc, struct thread *t, int g, int r,
                         const uint64_t *now, uint64_t time)
{
    size_t nv = rc->nv[g];
    const uint64_t *e = t->entry + rc->entry_off[g] + (size_t)r * (nv + 3);
    struct rc_result *res = &t->res[r];
    double den = (double)(now[nv] - e[nv]), drun = (double)(now[nv + 1] - e[nv + 1]);
    double scale = 1;

    /* A migration alone leaves a gap of a microsecond or two (the thread runs a little on
     * the old cpu after its switch-out sample): not multiplexing, not scaled. Multiplexing
     * rotates groups every few milliseconds, so it shows as a much larger gap. */
    if (drun > 0 && den - drun > MIGRATION_GAP_NS && drun < den * 0.99) {
        scale = den / drun;
        res->scaled++;
    }
    for (size_t i = 0; i < nv; i++)
        if (stat_add(&res->vals[rc->col_off[g] + i], (double)(now[i] - e[i]) * scale, rc->keep))
            return -ENOMEM;
    /* Every group's times: a hardware group that was multiplexed shows in % running. */
    res->enabled += den;
    res->running += drun;
    if (g == 0) {
        res->crossings++;
        if (stat_add(&res->wall, (double)(time - e[nv + 2]), rc->keep))
            return -ENOMEM;
    }
    return 0;
}

/* With the outermost open entry at stack pointer osp: does this sample show that frame has
 * returned? A new entry at the same or a shallower depth (sp >= osp), or an exit above the
 * frame's own return (sp > osp + 8). The stack grows down. */
static bool lost_exit(const struct rc_sample *s, uint64_t osp)
{
    return s->role == RC_ENTER ? s->sp >= osp : s->sp > osp + 8;
}

int region_counter_feed(struct region_counter *rc, const struct rc_sample *s)
{
    struct thread *t;
    size_t nv;
    uint64_t *snap, *now = rc->scratch, *osp;
    int *depth;

    if (s->group < 0 || (size_t)s->group >= rc->nr_groups || s->cpu >= rc->nr_cpus ||
        s->nr_values != rc->nv[s->group])
        return -EINVAL;
    if (s->role != RC_SWITCH && (s->region < 0 || (size_t)s->region >= rc->nr_regions))
        return -EINVAL;
    free_aggregates(rc);
    t = thread_get(rc, s->pid, s->tid);
    if (!t)
        return -ENOMEM;
    nv = rc->nv[s->group];
    snap = t->snap + rc->snap_off[s->group] + s->cpu * (nv + 2);
    memcpy(snap, s->values, nv * sizeof(uint64_t));
    snap[nv] = s->enabled;
    snap[nv + 1] = s->running;
    if (s->role == RC_SWITCH)
        return 0;

    thread_totals(rc, t, s->group, now);
    depth = &t->depth[(size_t)s->group * rc->nr_regions + (size_t)s->region];
    osp = &t->outer_sp[(size_t)s->group * rc->nr_regions + (size_t)s->region];
    if (s->function && s->sp && *osp && *depth > 0 && lost_exit(s, *osp)) {
        /* The outermost frame is gone and its exit sample was lost: drop the open crossing. */
        t->uret_depth[s->group] -= *depth < t->uret_depth[s->group] ? *depth
                                                                   : t->uret_depth[s->group];
        if (s->group == 0) {
            t->res[s->region].resynced++;
            t->res[s->region].unreturned += (uint64_t)*depth;
        }
        *depth = 0;
        if (s->role == RC_EXIT)
            return 0;       /* an exit of a frame whose entry we never saw */
    }
    if (s->role == RC_ENTER) {
        if (s->idempotent && *depth > 0) {
            if (s->group == 0)
                t->res[s->region].reentered++;
            return 0;
        }
        if (s->group == 0)
            t->res[s->region].calls++;
        if (s->retprobe) {
            if (t->uret_depth[s->group] >= URETPROBE_DEPTH_MAX) {
                if (s->group == 0)
                    t->res[s->region].deep++;
                return 0;
            }
            t->uret_depth[s->group]++;
        }
        if ((*depth)++ == 0) {
            uint64_t *e = t->entry + rc->entry_off[s->group] + (size_t)s->region * (nv + 3);
            *osp = s->sp;
            memcpy(e, now, (nv + 2) * sizeof(uint64_t));
            e[nv + 2] = s->time;
        }
        return 0;
    }
    if (s->retprobe && t->uret_depth[s->group] > 0)
        t->uret_depth[s->group]--;
    if (*depth == 0)        /* an exit without an entry: attached mid-call, or a jump target */
        return 0;
    if (s->function && s->sp && *osp && s->sp == *osp + 8 && *depth > 1) {
        /* The outermost frame returns; exits of inner calls were lost. */
        t->uret_depth[s->group] -= *depth - 1 < t->uret_depth[s->group]
                                   ? *depth - 1 : t->uret_depth[s->group];
        if (s->group == 0)
            t->res[s->region].unreturned += (uint64_t)(*depth - 1);
        *depth = 1;
    }
    if (--*depth > 0)
        return 0;
    return crossing_done(rc, t, s->group, s->region, now, s->time);
}

void region_counter_exec(struct region_counter *rc, uint32_t tid)
{
    struct thread *t = *tab_slot(rc->tab, rc->tab_cap, tid);
    if (!t)
        return;
    memset(t->depth, 0, rc->nr_groups * rc->nr_regions * sizeof(int));
    memset(t->uret_depth, 0, rc->nr_groups * sizeof(int));
}

size_t region_counter_columns(const struct region_counter *rc)
{
    return rc->ncols;
}

static int build_aggregates(struct region_counter *rc)
{
    if (rc->totals)
        return 0;
    rc->totals = calloc(rc->nr_regions + 1, sizeof(*rc->totals));
    if (!rc->totals)
        return -ENOMEM;
    for (size_t r = 0; r < rc->nr_regions; r++) {
        struct rc_result *tot = &rc->totals[r];
        if (result_init(tot, rc->ncols, -1, -1))
            return -ENOMEM;
        for (size_t i = 0; i < rc->tab_cap; i++) {
            struct thread *t = rc->tab[i];
            const struct rc_result *tr;
            if (!t)
                continue;
            tr = &t->res[r];
            tot->calls += tr->calls;
            tot->crossings += tr->crossings;
            tot->scaled += tr->scaled;
            tot->deep += tr->deep;
            tot->reentered += tr->reentered;
            tot->resynced += tr->resynced;
            tot->unreturned += tr->unreturned;
            tot->enabled += tr->enabled;
            tot->running += tr->running;
            tot->open += t->depth[r] > 0;
            if (stat_merge(&tot->wall, &tr->wall))
                return -ENOMEM;
            for (size_t c = 0; c < rc->ncols; c++)
                if (stat_merge(&tot->vals[c], &tr->vals[c]))
                    return -ENOMEM;
        }
    }
    return 0;
}

uint64_t region_counter_crossings(const struct region_counter *rc)
{
    uint64_t n = 0;
    for (size_t i = 0; i < rc->tab_cap; i++)
        for (size_t r = 0; rc->tab[i] && r < rc->nr_regions; r++)
            n += rc->tab[i]->res[r].crossings;
    return n;
}

const struct rc_result *region_counter_total(struct region_counter *rc, int region)
{
    if (region < 0 || (size_t)region >= rc->nr_regions || build_aggregates(rc))
        return NULL;
    return &rc->totals[region];
}

static int cmp_tid(const void *a, const void *b)
{
    const struct rc_result *x = a, *y = b;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

size_t region_counter_threads(struct region_counter *rc, int region, const struct rc_result **out)
{
    size_t n = 0;

    *out = NULL;
    if (region < 0 || (size_t)region >= rc->nr_regions)
        return 0;
    free(rc->per_thread);
    rc->per_thread = calloc(rc->nr_threads + 1, sizeof(*rc->per_thread));
    if (!rc->per_thread)
        return 0;
    for (size_t i = 0; i < rc->tab_cap; i++) {
        struct thread *t = rc->tab[i];
        if (t && t->res[region].calls) {
            rc->per_thread[n] = t->res[region];
            rc->per_thread[n].open = t->depth[region] > 0;
            n++;
        }
    }
    qsort(rc->per_thread, n, sizeof(*rc->per_thread), cmp_tid);
    *out = rc->per_thread;
    return n;
}
