/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include "test.h"
#include "perf/ordered.h"

struct log { uint64_t times[16]; int n; };

static int collect(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time)
{
    struct log *l = arg;
    if (l->n < 16)
        l->times[l->n++] = time;
    return 0;
}

static struct perf_event_header hdr = { .type = PERF_RECORD_SAMPLE, .size = 8 };

TEST(rounds_release_only_previous_round)
{
    struct log l = {0};
    struct ordered_queue *q = ordered_new(collect, &l);
    CHECK(q);
    /* Round 1: cpu0 wrote 10, 30; cpu1 wrote 20. Nothing may be released yet. */
    ordered_push(q, NULL, &hdr, 10, true);
    ordered_push(q, NULL, &hdr, 30, true);
    ordered_push(q, NULL, &hdr, 20, false);
    CHECK(ordered_round(q) == 0);
    CHECK(l.n == 0);
    /* Round 2: a late record from cpu1 at 25 must still come before 30. */
    ordered_push(q, NULL, &hdr, 25, true);
    ordered_push(q, NULL, &hdr, 40, true);
    CHECK(ordered_round(q) == 0);
    CHECK(l.n == 4);
    CHECK(l.times[0] == 10 && l.times[1] == 20 && l.times[2] == 25 && l.times[3] == 30);
    CHECK(ordered_flush(q) == 0);
    CHECK(l.n == 5 && l.times[4] == 40);
    CHECK(ordered_late(q) == 0);
    ordered_free(q);
}

TEST(time_zero_records_come_first)
{
    struct log l = {0};
    struct ordered_queue *q = ordered_new(collect, &l);
    ordered_push(q, NULL, &hdr, 5, true);
    ordered_push(q, NULL, &hdr, 0, true);
    ordered_flush(q);
    CHECK(l.n == 2 && l.times[0] == 0 && l.times[1] == 5);
    ordered_free(q);
}

TEST(free_with_pending_records_does_not_leak)
{
    struct log l = {0};
    struct ordered_queue *q = ordered_new(collect, &l);
    ordered_push(q, NULL, &hdr, 7, true);
    ordered_free(q);   /* ASan's leak check is the assertion */
    CHECK(l.n == 0);
}

int main(void)
{
    RUN(rounds_release_only_previous_round);
    RUN(time_zero_records_come_first);
    RUN(free_with_pending_records_does_not_leak);
    return 0;
}
