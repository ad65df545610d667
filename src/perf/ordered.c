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

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int deliver_upto(struct ordered_queue *q, uint64_t limit)
{
    size_t i = 0;
    int ret = 0;

    if (q->q.n > 1)
        qsort(q->q.v, q->q.n, sizeof(*q->q.v), cmp_entry);
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
