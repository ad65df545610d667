/* SPDX-License-Identifier: MIT */
/* The markers channel as Prospect reads it: records merged per region name across threads,
 * histograms checked against crossings, and damaged input named by offset. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "markers/read.h"
#include "intarget/markers_wire.h"

static int channel(const char *records)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    int fd = markers_channel_create(&a, 1);
    if (fd >= 0 && write(fd, records, strlen(records)) != (ssize_t)strlen(records)) {
        close(fd);
        return -1;
    }
    return fd;
}

TEST(buckets_hold_their_values)
{
    static const uint64_t v[] = { 0, 1, 15, 16, 17, 31, 32, 1000, 123456789, ~0ull };
    for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
        unsigned b = markers_bucket(v[i]);
        CHECK(b < MARKERS_BUCKETS);
        CHECK(markers_bucket_low(b) <= v[i]);
        CHECK(b + 1 == MARKERS_BUCKETS || markers_bucket_low(b + 1) > v[i]);
    }
}

TEST(threads_merge_per_region)
{
    struct markers_result r;
    char err[256];
    int fd = channel("R 10 11 3 3 0 2 4 loop\nQ 30 5 20 2 5:1 21:2\nQ 30 5 20 2 5:1 21:2\n"
                     "R 10 12 2 1 0 2 4 loop\nQ 7 7 7 1 7:1\nQ 7 7 7 1 7:1\n"
                     "E 10 13 13\nM 10 2\n");
    CHECK(fd >= 0);
    CHECK(markers_read(fd, 1, true, &r, err, sizeof(err)) == 0);
    CHECK_EQ_U64(r.n, 1);
    CHECK_STR(r.r[0].name, "loop");
    CHECK_EQ_U64(r.r[0].res.calls, 5);
    CHECK_EQ_U64(r.r[0].res.crossings, 4);
    CHECK_EQ_U64(r.r[0].res.vals[0].n, 4);
    CHECK(r.r[0].res.vals[0].total == 37 && r.r[0].res.vals[0].min == 5 &&
          r.r[0].res.vals[0].max == 20);
    CHECK(rc_stat_percentile(&r.r[0].res.vals[0], 100) <= 20);
    CHECK_EQ_U64(r.open_errors, 1);
    CHECK_EQ_U64(r.first_errno, EACCES);
    CHECK_EQ_U64(r.unmatched, 2);
    markers_result_free(&r);
    close(fd);
}

/* 100M crossings (two threads of 50M): the percentiles come from the merged histogram, not
 * from an array of every crossing (skipped past 64M, it printed p50 = p99 = 0). */
TEST(percentiles_of_many_crossings)
{
    struct markers_result r;
    char err[256];
    int fd = channel("R 10 11 50000000 50000000 0 2 1 x\n"
                     "Q 650000000 5 21 2 5:25000000 21:25000000\n"
                     "Q 650000000 5 21 2 5:25000000 21:25000000\n"
                     "R 10 12 50000000 50000000 0 2 1 x\n"
                     "Q 650000000 5 21 2 5:25000000 21:25000000\n"
                     "Q 650000000 5 21 2 5:25000000 21:25000000\n");
    CHECK(fd >= 0);
    CHECK(markers_read(fd, 1, true, &r, err, sizeof(err)) == 0);
    CHECK_EQ_U64(r.r[0].res.vals[0].n, 100000000);
    CHECK(rc_stat_percentile(&r.r[0].res.vals[0], 50) == 5);
    CHECK(rc_stat_percentile(&r.r[0].res.vals[0], 50.0001) == 21);
    CHECK(rc_stat_percentile(&r.r[0].res.vals[0], 99) == 21);
    CHECK(rc_stat_percentile(&r.r[0].res.wall, 1) == 5);
    markers_result_free(&r);
    close(fd);
    /* One bucket past 2^32 (a long run): counts are 64-bit on both sides. */
    fd = channel("R 10 11 5000000001 5000000001 0 2 1 y\n"
                 "Q 25000000005 5 5 1 5:5000000001\nQ 25000000005 5 5 1 5:5000000001\n");
    CHECK(fd >= 0);
    CHECK(markers_read(fd, 1, true, &r, err, sizeof(err)) == 0);
    CHECK_EQ_U64(r.r[0].res.crossings, 5000000001ull);
    CHECK(rc_stat_percentile(&r.r[0].res.vals[0], 99) == 5);
    markers_result_free(&r);
    close(fd);
}

TEST(damaged_records_name_the_offset)
{
    struct markers_result r;
    char err[256];
    /* A histogram that does not add up to the crossings. */
    int fd = channel("R 10 11 3 3 0 2 4 loop\nQ 30 5 20 1 5:1\nQ 30 5 20 1 5:1\n");
    CHECK(fd >= 0);
    CHECK(markers_read(fd, 1, false, &r, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "bad counter record at offset"));
    close(fd);
    /* Cut in the middle of a record. */
    CHECK((fd = channel("R 10 11 3 3 0 2 4 lo")) >= 0);
    CHECK(markers_read(fd, 1, false, &r, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "truncated record at offset"));
    close(fd);
    /* A name longer than it says, a bucket out of range. */
    CHECK((fd = channel("R 10 11 1 1 0 2 3 loop\nQ 1 1 1 1 1:1\nQ 1 1 1 1 1:1\n")) >= 0);
    CHECK(markers_read(fd, 1, false, &r, err, sizeof(err)) == -EINVAL);
    close(fd);
    CHECK((fd = channel("R 10 11 1 1 0 2 4 loop\nQ 1 1 1 1 99999:1\nQ 1 1 1 1 1:1\n")) >= 0);
    CHECK(markers_read(fd, 1, false, &r, err, sizeof(err)) == -EINVAL);
    close(fd);
}

TEST(channel_is_sealed_and_inheritable)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    int fd = markers_channel_create(&a, 1);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, 0) == -1 && errno == EPERM);          /* F_SEAL_SHRINK */
    CHECK(!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    close(fd);
}

int main(void)
{
    RUN(buckets_hold_their_values);
    RUN(threads_merge_per_region);
    RUN(percentiles_of_many_crossings);
    RUN(damaged_records_name_the_offset);
    RUN(channel_is_sealed_and_inheritable);
    return 0;
}
