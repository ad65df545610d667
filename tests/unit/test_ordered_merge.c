/* SPDX-License-Identifier: MIT */
/* The ordered queue's merge of per-buffer runs: time order, ties in arrival order, across
 * rounds that leave records behind. */
#include <stdlib.h>
#include "test.h"
#include "perf/ordered.h"

#define MAXN 4096
struct log { uint64_t t[MAXN]; uintptr_t tag[MAXN]; int n; };

static int collect(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time)
{
    struct log *l = arg;
    if (l->n < MAXN) {
        l->t[l->n] = time;
        l->tag[l->n++] = (uintptr_t)h;
    }
    return 0;
}

static struct perf_event_header hdrs[MAXN];

TEST(runs_merge_in_time_order_ties_stable)
{
    struct log *l = calloc(1, sizeof(*l));
    struct ordered_queue *q = ordered_new(collect, l);
    int k = 0;

    /* Three "ring buffers" drained one after the other, each ascending; times collide. */
    for (int cpu = 0; cpu < 3; cpu++)
        for (int i = 0; i < 300; i++)
            CHECK(ordered_push(q, NULL, &hdrs[k++], (uint64_t)(i * 3 + cpu % 2), false) == 0);
    CHECK(ordered_flush(q) == 0);
    CHECK_EQ_U64(l->n, 900);
    for (int i = 1; i < l->n; i++) {
        CHECK(l->t[i - 1] <= l->t[i]);
        if (l->t[i - 1] == l->t[i])
            CHECK(l->tag[i - 1] < l->tag[i]);   /* arrival order among equals */
    }
    CHECK_EQ_U64(ordered_late(q), 0);
    ordered_free(q);
    free(l);
}

TEST(rounds_with_leftovers_stay_ordered)
{
    struct log *l = calloc(1, sizeof(*l));
    struct ordered_queue *q = ordered_new(collect, l);
    int k = 0;
    uint64_t base = 0;

    for (int round = 0; round < 20; round++) {
        /* two cpus per round, overlapping in time with the previous round's tail */
        for (int cpu = 0; cpu < 2; cpu++)
            for (int i = 0; i < 50; i++)
                CHECK(ordered_push(q, NULL, &hdrs[k++], base + (uint64_t)(i * 2 + cpu), false) == 0);
        base += 80;
        CHECK(ordered_round(q) == 0);
    }
    CHECK(ordered_flush(q) == 0);
    CHECK_EQ_U64(l->n, 2000);
    for (int i = 1; i < l->n; i++)
        CHECK(l->t[i - 1] <= l->t[i]);
    ordered_free(q);
    free(l);
}

int main(void)
{
    RUN(runs_merge_in_time_order_ties_stable);
    RUN(rounds_with_leftovers_stay_ordered);
    return 0;
}
