/* SPDX-License-Identifier: MIT */
/* stat tables as text: within 100 columns by default (long region names elided in the
 * middle, full with -v and in CSV), one time unit per column, and means of counts that keep
 * their fraction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/stat_table.h"
#include "test.h"

static const char *const cols[] = { "task-clock", "context-switches", "cpu-migrations",
                                    "page-faults" };
#define NCOLS 4

/* A region of 100 crossings: 2 ms of wall-clock each, 900 us of task-clock, 42 page faults
 * in all (0.42 per crossing). */
static void fill(struct rc_result *r, struct rc_stat *vals)
{
    memset(r, 0, sizeof(*r));
    r->calls = r->crossings = 100;
    r->enabled = r->running = 1;
    r->wall = (struct rc_stat){ .n = 100, .total = 2e8, .min = 2e6, .max = 2e6 };
    vals[0] = (struct rc_stat){ .n = 100, .total = 9e7, .min = 9e5, .max = 9e5 };
    vals[1] = (struct rc_stat){ .n = 100, .total = 3, .min = 0, .max = 1 };
    vals[2] = (struct rc_stat){ .n = 100, .total = 0, .min = 0, .max = 0 };
    vals[3] = (struct rc_stat){ .n = 100, .total = 42, .min = 0, .max = 3 };
    r->vals = vals;
}

static char *render(struct stat_region_view *v, size_t n, const struct stat_report_opts *o)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    if (stat_report_regions(f, v, n, cols, NCOLS, o, err, sizeof(err)))
        fputs("ERROR", f);
    fclose(f);
    return buf;
}

static size_t widest_line(const char *s)
{
    size_t w = 0;
    while (*s) {
        size_t l = strcspn(s, "\n");
        if (l > w)
            w = l;
        s += l + (s[l] == '\n');
    }
    return w;
}

static const char long_a[] = "/home/someone/projects/a-rather-long-directory-name/build/"
                             "libexample.so.1:example_function_with_a_long_name";
static const char long_b[] = "stat_binout_source_file.c:120-stat_binout_source_file.c:180";

TEST(summary_fits_100_columns_and_elides_names_in_the_middle)
{
    struct rc_stat va[NCOLS], vb[NCOLS];
    struct rc_result ra, rb;
    struct stat_region_view v[2] = { { .label = long_a, .res = &ra },
                                     { .label = long_b, .res = &rb } };
    struct stat_report_opts o = { .summary = true };
    char *s;

    fill(&ra, va);
    fill(&rb, vb);
    s = render(v, 2, &o);
    CHECK(s);
    if (!s)
        return;
    CHECK(widest_line(s) <= 100);
    CHECK(strstr(s, "| /home/s...ng_name |") && strstr(s, "| stat_bi...e.c:180 |"));
    CHECK(!strstr(s, "% running"));   /* every counter ran all the time */
    free(s);
    o.full_names = true;              /* -v */
    s = render(v, 2, &o);
    CHECK(s && strstr(s, long_a) && strstr(s, long_b));
    free(s);
    o.full_names = false;
    o.csv = true;
    s = render(v, 2, &o);
    CHECK(s && strstr(s, long_a) && strstr(s, "context-switches,cpu-migrations"));
    free(s);
}

TEST(region_table_one_time_unit_per_column_and_precise_means)
{
    struct rc_stat va[NCOLS];
    struct rc_result ra;
    struct stat_region_view v = { .label = long_a, .res = &ra };
    struct stat_report_opts o = { 0 };
    char *s;

    fill(&ra, va);
    s = render(&v, 1, &o);
    CHECK(s);
    if (!s)
        return;
    CHECK(widest_line(s) <= 100);
    /* 2 ms of wall-clock and 900 us of task-clock: both rows in ms, comparable. */
    CHECK(strstr(s, "| wall-clock       | 200.000 ms | 2.000 ms |"));
    CHECK(strstr(s, "| task-clock       |  90.000 ms | 0.900 ms |"));
    CHECK(!strstr(s, " us "));
    CHECK(strstr(s, "| page-faults      |         42 |     0.42 |"));
    CHECK(strstr(s, "|     0.03 |"));   /* 3 context switches over 100 crossings */
    free(s);
    o.csv = true;
    s = render(&v, 1, &o);
    CHECK(s && strstr(s, "page-faults,42,0.420,0,3"));
    free(s);
}

/* stat --markers of a sub-microsecond region: 100000 crossings of 250 ns (25 ms in all). The
 * mean and min were "0.000" (ms, the table's one unit); each column has its own now. */
TEST(sub_microsecond_means_keep_their_digits)
{
    struct rc_stat va[NCOLS];
    struct rc_result ra;
    struct stat_region_view v = { .label = "tiny", .res = &ra };
    struct stat_report_opts o = { 0 };
    char *s;

    fill(&ra, va);
    ra.calls = ra.crossings = 100000;
    ra.wall = (struct rc_stat){ .n = 100000, .total = 2.5e7, .min = 200, .max = 4000 };
    va[0] = (struct rc_stat){ .n = 100000, .total = 2.2e7, .min = 180, .max = 3500 };
    s = render(&v, 1, &o);
    CHECK(s);
    if (!s)
        return;
    CHECK(!strstr(s, "0.000"));
    CHECK(strstr(s, "| wall-clock       | 25.000 ms | 250 ns | 200 ns | 4.000 us |"));
    CHECK(strstr(s, "| task-clock       | 22.000 ms | 220 ns | 180 ns | 3.500 us |"));
    free(s);
    o.summary = true;                 /* totals: ms, the column's largest */
    s = render(&v, 1, &o);
    CHECK(s && strstr(s, "|     25.000 |     22.000 |") && strstr(s, "|         ms |         ms |"));
    free(s);
}

TEST(modifiers_keep_the_unit)
{
    CHECK(stat_column_is_time("task-clock:u"));
    CHECK(stat_column_is_time("cpu-clock:k"));
    CHECK(!stat_column_is_time("page-faults:u"));
    CHECK(!stat_column_is_time("task-clocks"));
}

int main(void)
{
    RUN(summary_fits_100_columns_and_elides_names_in_the_middle);
    RUN(region_table_one_time_unit_per_column_and_precise_means);
    RUN(sub_microsecond_means_keep_their_digits);
    RUN(modifiers_keep_the_unit);
    return 0;
}
