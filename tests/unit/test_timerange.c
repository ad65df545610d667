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
    RUN(bad_ranges_are_refused);
    return 0;
}
