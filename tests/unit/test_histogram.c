/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "test.h"
#include "prospect/histogram.h"

static struct prospect_hist *hist_of(const char *name, const uint64_t *v, size_t n)
{
    struct prospect_hist *h = prospect_hist_new(name);
    for (size_t i = 0; h && i < n; i++)
        if (prospect_hist_add(h, v[i], 0)) {
            prospect_hist_free(h);
            return NULL;
        }
    return h;
}

TEST(percentiles_of_one_to_ten)
{
    uint64_t v[] = { 7, 3, 10, 1, 5, 2, 9, 4, 8, 6 };
    struct prospect_hist *h = hist_of("x", v, 10);
    struct prospect_hist_stats st;
    CHECK(h);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_ALL, &st) == 0);
    CHECK_EQ_U64(st.count, 10);
    CHECK_EQ_U64(st.min, 1);
    CHECK_EQ_U64(st.p50, 5);
    CHECK_EQ_U64(st.p90, 9);
    CHECK_EQ_U64(st.p99, 10);
    CHECK_EQ_U64(st.p999, 10);
    CHECK_EQ_U64(st.max, 10);
    CHECK(st.mean == 5.5);
    CHECK(st.mad == 2);     /* |x-5| sorted: 0 1 1 2 2 3 3 4 4 5, 5th is 2 */
    CHECK_EQ_U64(st.outliers, 0);
    prospect_hist_free(h);
}

TEST(percentiles_of_one_to_thousand)
{
    struct prospect_hist *h = prospect_hist_new("k");
    struct prospect_hist_stats st;
    uint64_t p;
    CHECK(h);
    /* Added in a scrambled order (37 is coprime with 1000). */
    for (unsigned i = 0; i < 1000; i++)
        CHECK(prospect_hist_add(h, (i * 37) % 1000 + 1, 0) == 0);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_ALL, &st) == 0);
    CHECK_EQ_U64(st.p50, 500);
    CHECK_EQ_U64(st.p90, 900);
    CHECK_EQ_U64(st.p99, 990);
    CHECK_EQ_U64(st.p999, 999);
    CHECK(st.mad == 250);
    CHECK(st.mean == 500.5);
    CHECK(prospect_hist_percentile(h, PROSPECT_KEEP_ALL, 0, &p) == 0);
    CHECK_EQ_U64(p, 1);
    CHECK(prospect_hist_percentile(h, PROSPECT_KEEP_ALL, 100, &p) == 0);
    CHECK_EQ_U64(p, 1000);
    CHECK(prospect_hist_percentile(h, PROSPECT_KEEP_ALL, 25.05, &p) == 0);
    CHECK_EQ_U64(p, 251);
    CHECK(prospect_hist_percentile(h, PROSPECT_KEEP_ALL, 100.5, &p) == -EINVAL);
    CHECK(prospect_hist_percentile(h, PROSPECT_KEEP_ALL, NAN, &p) == -EINVAL);
    prospect_hist_free(h);
}

TEST(seed000_cold_call_is_a_mad_outlier)
{
    /* Seed 000's sample run: MAD is 0, so the mean-absolute-deviation fallback applies:
     * threshold = 101 + 3.5 * 1.253314 * 1.9 = 109.3. */
    uint64_t v[] = { 120, 101, 101, 101, 101, 101, 101, 101, 101, 101 };
    struct prospect_hist *h = hist_of("sqrt", v, 10);
    struct prospect_hist_stats st;
    CHECK(h);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_CLEAN, &st) == 0);
    CHECK_EQ_U64(st.outliers, 1);
    CHECK(fabs(st.outlier_threshold - 109.334) < 0.01);
    CHECK_EQ_U64(st.count, 9);
    CHECK_EQ_U64(st.max, 101);
    CHECK(st.mad == 0);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_ALL, &st) == 0);
    CHECK_EQ_U64(st.max, 120);
    CHECK_EQ_U64(st.count, 10);
    prospect_hist_free(h);
}

TEST(mad_rule_with_nonzero_mad)
{
    /* median 6, MAD 3: threshold 6 + 3.5 * 3 / 0.6745 = 21.57, so only 1000 goes. */
    uint64_t v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000 };
    struct prospect_hist *h = hist_of("m", v, 11);
    struct prospect_hist_stats st;
    CHECK(h);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_ALL, &st) == 0);
    CHECK(st.mad == 3);
    CHECK(fabs(st.outlier_threshold - 21.5667) < 0.001);
    CHECK_EQ_U64(st.outliers, 1);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_CLEAN, &st) == 0);
    CHECK_EQ_U64(st.count, 10);
    CHECK_EQ_U64(st.max, 10);
    /* A stricter cutoff of 0.5 modified z-scores: 6 + 0.5 * 3 / 0.6745 = 8.22. */
    CHECK(prospect_hist_set_cutoff(h, 0.5) == 0);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_CLEAN, &st) == 0);
    CHECK_EQ_U64(st.max, 8);
    CHECK_EQ_U64(st.outliers, 3);
    CHECK(prospect_hist_set_cutoff(h, 0) == -EINVAL);
    prospect_hist_free(h);
}

TEST(flagged_samples_are_counted_and_dropped)
{
    struct prospect_hist *h = prospect_hist_new("f");
    struct prospect_hist_stats st;
    CHECK(h);
    for (int i = 0; i < 8; i++)
        CHECK(prospect_hist_add(h, 50, 0) == 0);
    CHECK(prospect_hist_add(h, 90000, PROSPECT_SAMPLE_MIGRATED) == 0);
    CHECK(prospect_hist_add(h, 70000, PROSPECT_SAMPLE_SWITCHED) == 0);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_UNFLAGGED, &st) == 0);
    CHECK_EQ_U64(st.total, 10);
    CHECK_EQ_U64(st.count, 8);
    CHECK_EQ_U64(st.migrated, 1);
    CHECK_EQ_U64(st.switched, 1);
    CHECK_EQ_U64(st.outliers, 0);
    CHECK_EQ_U64(st.max, 50);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_ALL, &st) == 0);
    CHECK_EQ_U64(st.max, 90000);
    /* Adding after a query refreshes the sorted views. */
    CHECK(prospect_hist_add(h, 10, 0) == 0);
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_CLEAN, &st) == 0);
    CHECK_EQ_U64(st.min, 10);
    prospect_hist_free(h);
}

TEST(empty_histogram_has_no_data)
{
    struct prospect_hist *h = prospect_hist_new(NULL);
    struct prospect_hist_stats st;
    uint64_t p;
    CHECK(h);
    CHECK_STR(prospect_hist_name(h), "");
    CHECK(prospect_hist_stats(h, PROSPECT_KEEP_ALL, &st) == -ENODATA);
    CHECK(prospect_hist_percentile(h, PROSPECT_KEEP_CLEAN, 50, &p) == -ENODATA);
    prospect_hist_free(h);
}

static char *render(int which, struct prospect_hist *const *hs, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct prospect_svg_opts o = { "t<1>", NULL, PROSPECT_KEEP_ALL, 0, 0, 0 };
    int err;
    if (!f)
        return NULL;
    err = which == 0 ? prospect_hist_write_csv(f, hs, n, PROSPECT_KEEP_ALL)
        : which == 1 ? prospect_hist_write_text(f, hs, n, PROSPECT_KEEP_ALL, 2e9)
        : which == 2 ? prospect_hist_write_curve_csv(f, hs, n, PROSPECT_KEEP_ALL, 4)
        : prospect_hist_write_svg(f, hs, n, &o);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

TEST(csv_text_and_curve_output)
{
    uint64_t v[] = { 7, 3, 10, 1, 5, 2, 9, 4, 8, 6 };
    struct prospect_hist *hs[2] = { hist_of("a \"b\"", v, 10), prospect_hist_new("empty") };
    char *s;
    CHECK(hs[0] && hs[1]);
    s = render(0, hs, 2);
    CHECK(s);
    CHECK_STR(s, "series,total,count,min,p50,p90,p99,p99.9,max,mean,mad,outliers,migrated,switched\n"
                 "\"a \"\"b\"\"\",10,10,1,5,9,10,10,10,5.500,2.000,0,0,0\n"
                 "\"empty\",0,0,,,,,,,,,0,0,0\n");
    free(s);
    s = render(2, hs, 1);
    CHECK(s);
    CHECK_STR(s, "percentile,\"a \"\"b\"\"\"\n0,1\n25,3\n50,5\n75,8\n100,10\n");
    free(s);
    s = render(1, hs, 2);
    CHECK(s);
    CHECK(strstr(s, "p99.9"));
    CHECK(strstr(s, "a \"b\"        10        1        5        9       10       10       10        5.5        2.0      0      0      0\n"));
    CHECK(strstr(s, "no samples kept"));
    CHECK(strstr(s, "in nanoseconds (TSC at 2000.000 MHz)"));
    free(s);
    prospect_hist_free(hs[0]);
    prospect_hist_free(hs[1]);
}

TEST(svg_has_one_polyline_per_series_and_escapes_names)
{
    uint64_t v[] = { 7, 3, 10, 1, 5, 2, 9, 4, 8, 6 };
    struct prospect_hist *hs[3] = { hist_of("<a&b>", v, 10), hist_of("c", v, 5),
                                    hist_of("d", v, 1) };
    char *s;
    CHECK(hs[0] && hs[1] && hs[2]);
    s = render(3, hs, 3);
    CHECK(s);
    CHECK(count_of(s, "<polyline class=\"series\"") == 3);
    CHECK(count_of(s, "class=\"legend\"") == 3);
    CHECK(strstr(s, "&lt;a&amp;b&gt;"));
    CHECK(!strstr(s, "<a&b>"));
    CHECK(strstr(s, "t&lt;1&gt;"));
    CHECK(strstr(s, "percentile of calls"));
    CHECK(strstr(s, "</svg>\n"));
    free(s);
    for (int i = 0; i < 3; i++)
        prospect_hist_free(hs[i]);
}

/* --log-y (prospect replay): decades from 1 to the power of ten above the largest value, and
 * values placed by their logarithm: on the default 500-pixel chart the plot runs from y = 445
 * (1) to y = 40 (1000), so 10 sits a third of the way up, at 310. */
TEST(svg_log_y_marks_decades)
{
    uint64_t v[] = { 1, 10, 100, 1000 };
    struct prospect_hist *h = hist_of("log", v, 4);
    struct prospect_svg_opts o = { "log", NULL, PROSPECT_KEEP_ALL, 0, 0, 0 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(h && f);
    CHECK(prospect_hist_write_svg_log(f, &h, 1, &o) == 0);
    fclose(f);
    CHECK(strstr(buf, ">1</text>") && strstr(buf, ">10</text>") && strstr(buf, ">100</text>") &&
          strstr(buf, ">1000</text>"));
    CHECK(!strstr(buf, ">500</text>") && !strstr(buf, ">10000</text>"));
    CHECK(strstr(buf, ",445.0 "));
    CHECK(strstr(buf, ",310.0 "));
    CHECK(strstr(buf, ",40.0\""));
    free(buf);
    prospect_hist_free(h);
}

int main(void)
{
    RUN(percentiles_of_one_to_ten);
    RUN(percentiles_of_one_to_thousand);
    RUN(seed000_cold_call_is_a_mad_outlier);
    RUN(mad_rule_with_nonzero_mad);
    RUN(flagged_samples_are_counted_and_dropped);
    RUN(empty_histogram_has_no_data);
    RUN(csv_text_and_curve_output);
    RUN(svg_has_one_polyline_per_series_and_escapes_names);
    RUN(svg_log_y_marks_decades);
    return 0;
}
