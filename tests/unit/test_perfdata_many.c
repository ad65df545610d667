/* SPDX-License-Identifier: MIT */
/* Several perf.data files read as one (perfdata_open_many): the parts of one recording, with
 * two events told apart by ids that differ between the files, add up; files with other events
 * and stdin among several are refused with the file named. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "perf/perfdata.h"
#include "perf/perfdata_write.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
            PERF_SAMPLE_PERIOD)

static struct perf_event_attr attr_of(uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.size = sizeof(a);
    a.sample_period = 1000;
    a.sample_type = ST;
    a.sample_id_all = 1;
    return a;
}

static const char *tmp_path(const char *name, char *buf, size_t len)
{
    const char *dir = getenv("TEST_TMP");
    snprintf(buf, len, "%s/%s", dir ? dir : "/tmp", name);
    unlink(buf);
    return buf;
}

/* A file of the events cpu-clock (id a) and, unless nr == 1, page-faults (id b): n samples of
 * each, at times t, t+1, ...; a build id for `dso`. 0, or -1 when a step failed. */
static int write_part(const char *path, size_t nr, uint64_t a, uint64_t b, int n, uint64_t t,
                       const char *dso)
{
    struct perf_event_attr at[2] = { attr_of(PERF_COUNT_SW_CPU_CLOCK),
                                     attr_of(PERF_COUNT_SW_PAGE_FAULTS) };
    const char *names[2] = { "cpu-clock", "page-faults" };
    uint64_t ids[2] = { a, b };
    struct perfdata_write_meta meta = { .hostname = "h" };
    struct perfdata_writer *w;
    struct perfdata_error e;
    struct evlist evl;
    uint8_t bid[20] = { 1, 2, 3 };

    int bad = 0;

    evlist_init(&evl);
    for (size_t i = 0; i < nr; i++) {
        struct evsel *sel = evlist_add(&evl, &at[i], names[i]);
        bad |= !sel || evsel_add_id(sel, ids[i]);
    }
    bad |= evlist_finalize(&evl) || perfdata_writer_open(path, &evl, &w, &e);
    if (bad) {
        evlist_release(&evl);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < nr; k++) {
            uint64_t rec[6] = { 0, ids[k], 0x1000 + (uint64_t)i, 42 | (42ULL << 32),
                                t + (uint64_t)i, 1000 };
            struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48 };
            memcpy(rec, &h, sizeof(h));
            bad |= perfdata_writer_write(w, (struct perf_event_header *)rec);
        }
    bad |= perfdata_writer_round(w);
    bad |= perfdata_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, dso, bid, 20);
    bad |= perfdata_writer_close(w, &meta, &e);
    evlist_release(&evl);
    return bad ? -1 : 0;
}

struct per_event {
    const struct evlist *evl;
    uint64_t samples[2], unknown;
};

static int count(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                 uint64_t time)
{
    struct per_event *c = arg;
    const struct evsel *sel;

    (void)time;
    if (h->type != PERF_RECORD_SAMPLE)
        return 0;
    c->evl = evl;
    sel = evlist_evsel_for(evl, h);
    if (!sel)
        c->unknown++;
    else
        c->samples[sel->idx]++;
    return 0;
}

TEST(parts_of_one_recording_add_up)
{
    char p1[512], p2[512];
    const char *paths[2] = { tmp_path("many1.data", p1, sizeof(p1)),
                             tmp_path("many2.data", p2, sizeof(p2)) };
    struct per_event c = { 0 };
    struct perfdata *pd;
    struct perfdata_error e;
    const struct perfdata_info *in;

    CHECK(write_part(paths[0], 2, 7, 8, 3, 100, "/bin/a") == 0);
    CHECK(write_part(paths[1], 2, 17, 18, 5, 200, "/bin/b") == 0);     /* another run's ids */
    CHECK(perfdata_open_many(paths, 2, &pd, &e) == 0);
    CHECK(perfdata_process(pd, count, &c, 0, &e) == 0);
    CHECK(c.evl == perfdata_evlist(pd));           /* every record through the first's */
    CHECK_EQ_U64(c.unknown, 0);
    CHECK_EQ_U64(c.samples[0], 8);
    CHECK_EQ_U64(c.samples[1], 8);
    CHECK_EQ_U64(perfdata_stats(pd)->nr_samples, 16);
    CHECK_EQ_U64(perfdata_stats(pd)->evsel_samples[1], 8);
    CHECK_EQ_U64(perfdata_stats(pd)->first_sample_time, 100);
    CHECK_EQ_U64(perfdata_stats(pd)->last_sample_time, 204);
    CHECK_EQ_U64(perfdata_stats(pd)->by_type[PERF_RECORD_FINISHED_ROUND_], 2);
    in = perfdata_info(pd);
    CHECK(in->has_sample_time && in->first_sample_time == 100 && in->last_sample_time == 204);
    CHECK_EQ_U64(in->nr_build_ids, 2);
    CHECK_STR(in->build_ids[1].path, "/bin/b");
    perfdata_close(pd);
}

TEST(other_events_and_stdin_are_refused)
{
    char p1[512], p2[512], line[1024];
    const char *paths[2] = { tmp_path("many3.data", p1, sizeof(p1)),
                             tmp_path("many4.data", p2, sizeof(p2)) };
    const char *with_stdin[2] = { p1, "-" };
    struct perfdata *pd;
    struct perfdata_error e;

    CHECK(write_part(paths[0], 2, 7, 8, 1, 100, "/bin/a") == 0);
    CHECK(write_part(paths[1], 1, 7, 0, 1, 200, "/bin/a") == 0);
    CHECK(perfdata_open_many(paths, 2, &pd, &e) == -EINVAL);
    CHECK(pd == NULL);
    perfdata_error_str(&e, line, sizeof(line));
    CHECK(strstr(line, "many4.data: recorded with other events than"));
    CHECK(perfdata_open_many(with_stdin, 2, &pd, &e) == -EINVAL);
    perfdata_error_str(&e, line, sizeof(line));
    CHECK(strstr(line, "standard input cannot be one of several inputs"));
    CHECK(perfdata_open_many(paths, 1, &pd, &e) == 0);     /* one is perfdata_open */
    perfdata_close(pd);
}

int main(void)
{
    RUN(parts_of_one_recording_add_up);
    RUN(other_events_and_stdin_are_refused);
    return 0;
}
