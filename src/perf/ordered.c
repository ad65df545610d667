/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/ordered.h"
#include "util/vec.h"

struct entry {
    uint64_t time;
    uint64_t seq;                 /* arrival order breaks ties: stable */
    const struct evlist *evl;
    const struct perf_event_header *h;
    bool owned;
};

struct ordered_queue {
    record_fn deliver;
    void *arg;
    VEC(struct entry) q;
    uint64_t seq;
    uint64_t round_max;           /* newest time seen in the current round */
    uint64_t prev_round_max;      /* ... in the previous one: the release limit */
    uint64_t last_delivered;
    uint64_t late;
    struct entry *tmp;            /* merge buffer */
    size_t tmp_cap;
};

struct ordered_queue *ordered_new(record_fn deliver, void *arg)
{
    struct ordered_queue *q = calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    q->deliver = deliver;
    q->arg = arg;
    return q;
}

void ordered_free(struct ordered_queue *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->q.n; i++)
        if (q->q.v[i].owned)
            free((void *)q->q.v[i].h);
    vec_free(&q->q);
    free(q->tmp);
    free(q);
}

int ordered_push(struct ordered_queue *q, const struct evlist *evl,
                 const struct perf_event_header *h, uint64_t time, bool copy)
{
    struct entry e = { .time = time, .seq = q->seq++, .evl = evl, .h = h, .owned = copy };

    if (copy) {
        void *c = malloc(h->size);
        if (!c)
            return -ENOMEM;
        memcpy(c, h, h->size);
        e.h = c;
    }
    if (vec_push(&q->q, e)) {
        if (copy)
            free((void *)e.h);
        return -ENOMEM;
    }
    if (time > q->round_max)
        q->round_max = time;
    return 0;
}

int ordered_own_range(struct ordered_queue *q, const void *lo, const void *hi)
{
    for (size_t i = 0; i < q->q.n; i++) {
        struct entry *e = &q->q.v[i];
        const uint8_t *p = (const uint8_t *)e->h;
        void *c;

        if (e->owned || p < (const uint8_t *)lo || p >= (const uint8_t *)hi)
            continue;
        if (!(c = malloc(e->h->size)))
            return -ENOMEM;
        memcpy(c, e->h, e->h->size);
        e->h = c;
        e->owned = true;
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool in_order(const struct entry *x, const struct entry *y)
{
    return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static size_t run_end(const struct entry *a, size_t i, size_t n)
{
    while (++i < n && in_order(&a[i - 1], &a[i]))
        ;
    return i;
}

/* The queue holds a few ascending runs: what the previous round left (sorted) and one run per
 * ring buffer drained since. A natural merge sort costs O(n log runs) instead of qsort's
 * O(n log n) on every round; with the whole file queued this is most of the reader's time. */
static void sort_queue(struct ordered_queue *q)
{
    size_t n = q->q.n;
    struct entry *a = q->q.v, *b;
    size_t runs;

    if (n < 2 || run_end(a, 0, n) == n)
        return;
    if (q->tmp_cap < n) {
        struct entry *t = realloc(q->tmp, n * sizeof(*t));
        if (!t) {
            qsort(a, n, sizeof(*a), cmp_entry);     /* no memory: sort in place */
            return;
        }
        q->tmp = t;
        q->tmp_cap = n;
    }
    b = q->tmp;
    do {
        size_t i = 0, out = 0;
        runs = 0;
        while (i < n) {
            size_t m = run_end(a, i, n), e = m < n ? run_end(a, m, n) : n, x = i, y = m;
            while (x < m && y < e)
                b[out++] = in_order(&a[y], &a[x]) ? a[y++] : a[x++];
            while (x < m)
                b[out++] = a[x++];
            while (y < e)
                b[out++] = a[y++];
            runs++;
            i = e;
        }
        struct entry *t = a;
        a = b;
        b = t;
    } while (runs > 1);
    if (a != q->q.v)
        memcpy(q->q.v, a, n * sizeof(*a));
}

static int deliver_upto(struct ordered_queue *q, uint64_t limit)
{
    size_t i = 0;
    int ret = 0;

    sort_queue(q);
    for (; i < q->q.n && q->q.v[i].time <= limit; i++) {
        struct entry *e = &q->q.v[i];
        if (e->time < q->last_delivered)
            q->late++;
        else
            q->last_delivered = e->time;
        ret = q->deliver(q->arg, e->evl, e->h, e->time);
        if (e->owned)
            free((void *)e->h);
        if (ret < 0) {
            i++;
            break;
        }
    }
    if (i) {
        memmove(q->q.v, q->q.v + i, (q->q.n - i) * sizeof(*q->q.v));
        q->q.n -= i;
    }
    return ret < 0 ? ret : 0;
}

int ordered_round(struct ordered_queue *q)
{
    uint64_t limit = q->prev_round_max;
    q->prev_round_max = q->round_max;
    return deliver_upto(q, limit);
}

int ordered_flush(struct ordered_queue *q)
{
    return deliver_upto(q, UINT64_MAX);
}

uint64_t ordered_late(const struct ordered_queue *q)
{
    return q->late;
}
