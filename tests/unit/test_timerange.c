/* SPDX-License-Identifier: MIT */
/* perf's --time forms (util/timerange.c): the e2e suite compares the samples kept with perf
 * script's; these pin the parsing itself and perf's rounding of percent slices. */
#include <errno.h>
#include "test.h"
#include "util/timerange.h"

TEST(seconds_are_exact_to_the_nanosecond)
{
    struct timerange tr;
    char why[256];

    CHECK(timerange_parse("11414.120371,11414.5", &tr, why, sizeof(why)) == 0);
    CHECK_EQ_U64(tr.n, 1);
    CHECK_EQ_U64(tr.start[0], 11414120371000ull);
    CHECK_EQ_U64(tr.end[0], 11414500000000ull);
    CHECK(timerange_has(&tr, 11414120371000ull));
    CHECK(!timerange_has(&tr, 11414120370999ull));
    CHECK(timerange_has(&tr, 11414500000000ull));     /* perf's stop is inclusive */
    CHECK(!timerange_has(&tr, 11414500000001ull));
}

TEST(open_ends_and_several_ranges)
{
    struct timerange tr;
    char why[256];

    CHECK(timerange_parse(",2 5,", &tr, why, sizeof(why)) == 0);
    CHECK_EQ_U64(tr.n, 2);
    CHECK(timerange_has(&tr, 1));
    CHECK(!timerange_has(&tr, 3000000000ull));
    CHECK(timerange_has(&tr, 99000000000ull));
}

TEST(percent_slices_as_perf_rounds_them)
{
    struct timerange tr;
    char why[256];

    CHECK(timerange_parse("10%/2", &tr, why, sizeof(why)) == 0);
    timerange_place(&tr, 1000, 2000);
    CHECK_EQ_U64(tr.start[0], 1100);
    CHECK_EQ_U64(tr.end[0], 1199);                      /* the next slice's first ns is not in */
    CHECK(timerange_parse("0%-10%,90%-100%", &tr, why, sizeof(why)) == 0);
    timerange_place(&tr, 1000, 2000);
    CHECK_EQ_U64(tr.n, 2);
    CHECK_EQ_U64(tr.end[1], 2000);                      /* 100%: the last sample stays */
}

/* perf's edges, the same for report and script (both call perf_time__ranges_skip_sample). */
TEST(perf_edges_for_report_and_script)
{
    struct timerange tr;
    char why[256];

    CHECK(timerange_parse("10.5,11", &tr, why, sizeof(why)) == 0);
    CHECK(timerange_has(&tr, 0));                       /* a sample without a time is kept */
    CHECK(timerange_parse("1,2 5,", &tr, why, sizeof(why)) == 0);
    CHECK(timerange_has(&tr, 0) && !timerange_has(&tr, 3000000000ull));
    CHECK(timerange_parse("0%-50%,50%-100%", &tr, why, sizeof(why)) == 0);
    timerange_place(&tr, 1000, 2000);
    CHECK_EQ_U64(tr.end[0], 1499);                      /* 50%'s ns is the second slice's */
    CHECK_EQ_U64(tr.start[1], 1500);
    CHECK(!timerange_has(&tr, 999) && timerange_has(&tr, 2000) && !timerange_has(&tr, 2001));
    CHECK(timerange_parse("50%/3", &tr, why, sizeof(why)) == -EINVAL);     /* past 100% */
    CHECK(timerange_parse("1.0123456789,", &tr, why, sizeof(why)) == -EINVAL); /* as perf */
    CHECK(timerange_parse("1,2,3", &tr, why, sizeof(why)) == -EINVAL);
    CHECK(timerange_parse("10%/1", &tr, why, sizeof(why)) == 0);
    CHECK(timerange_place(&tr, 0, 0) == -ENODATA);      /* no header times (a pipe) */
}

TEST(bad_ranges_are_refused)
{
    struct timerange tr;
    char why[256];

    CHECK(timerange_parse("5,2", &tr, why, sizeof(why)) == -EINVAL);
    CHECK(timerange_parse("abc", &tr, why, sizeof(why)) == -EINVAL);
    CHECK(timerange_parse("1.5", &tr, why, sizeof(why)) == -EINVAL);
    CHECK(timerange_parse("120%/1", &tr, why, sizeof(why)) == -EINVAL);
    CHECK(timerange_parse("10%/0", &tr, why, sizeof(why)) == -EINVAL);
    CHECK(timerange_parse("", &tr, why, sizeof(why)) == -EINVAL);
}

int main(void)
{
    RUN(seconds_are_exact_to_the_nanosecond);
    RUN(open_ends_and_several_ranges);
    RUN(percent_slices_as_perf_rounds_them);
    RUN(perf_edges_for_report_and_script);
    RUN(bad_ranges_are_refused);
    return 0;
}
