/* SPDX-License-Identifier: MIT */
/* prospect/histogram.h: execution-time histograms of per-call measurements (libprospect).
 *
 * Add one sample per measured call, then ask for percentiles and write a table, a CSV or an
 * SVG percentile curve (seed 004's plot: percentile of calls on x, cycles on y, one line per
 * series):
 *     struct prospect_hist *h = prospect_hist_new("malloc 16B");
 *     for (...) prospect_hist_add(h, t1 - t0, migrated ? PROSPECT_SAMPLE_MIGRATED : 0);
 *     prospect_hist_write_text(stdout, &h, 1, PROSPECT_KEEP_CLEAN, 0);
 *     prospect_hist_free(h);
 *
 * Definitions (so results are exact and reproducible):
 *   - percentile p (0 < p <= 100) is the nearest-rank value: the ceil(p/100 * n)-th smallest
 *     sample; p = 0 gives the minimum. p50 is the median used everywhere below.
 *   - MAD is the median (nearest rank) of |x - p50|.
 *   - A sample is a MAD outlier when it is slower than the median by more than `cutoff`
 *     (default 3.5) modified z-scores: x > p50 + cutoff * MAD / 0.6745. When MAD is 0 (most
 *     samples identical, usual for tiny code) the mean absolute deviation D replaces it:
 *     x > p50 + cutoff * 1.253314 * D (Iglewicz & Hoaglin's rule and its usual fallback).
 *     Only slow outliers are flagged: interference (interrupts, context switches, cache misses
 *     caused by others) only ever adds time, which is seed 000's "realcc" argument.
 *   - Samples the caller flags (migrated between CPUs, hit by a context switch) are not used
 *     to find MAD outliers.
 * Functions return 0 or -errno (NULL with errno for constructors); they never print except
 * to the FILE they are given.
 */
#ifndef PROSPECT_HISTOGRAM_H
#define PROSPECT_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PROSPECT_API
#define PROSPECT_API __attribute__((visibility("default")))
#endif

/* Sample flags, set by the caller. */
#define PROSPECT_SAMPLE_MIGRATED 0x1u   /* start and end read on different CPUs */
#define PROSPECT_SAMPLE_SWITCHED 0x2u   /* a context switch happened during the call */

/* Which samples statistics are computed over. */
enum prospect_keep {
    PROSPECT_KEEP_ALL = 0,          /* every sample */
    PROSPECT_KEEP_UNFLAGGED = 1,    /* without migrated/switched samples */
    PROSPECT_KEEP_CLEAN = 2         /* without flagged samples and MAD outliers */
};

struct prospect_hist_stats {
    size_t total;                   /* samples added */
    size_t count;                   /* samples the figures below are over */
    size_t migrated, switched;      /* flagged by the caller */
    size_t outliers;                /* MAD outliers among unflagged samples */
    double outlier_threshold;       /* unflagged samples above this are MAD outliers */
    uint64_t min, p50, p90, p99, p999, max;
    double mean, mad;
};

struct prospect_hist;

PROSPECT_API struct prospect_hist *prospect_hist_new(const char *name);
PROSPECT_API void prospect_hist_free(struct prospect_hist *h);
PROSPECT_API const char *prospect_hist_name(const struct prospect_hist *h);
/* Appends one sample; flags: PROSPECT_SAMPLE_*. Returns 0 or -ENOMEM. */
PROSPECT_API int prospect_hist_add(struct prospect_hist *h, uint64_t value, unsigned flags);
PROSPECT_API size_t prospect_hist_count(const struct prospect_hist *h);
/* The modified z-score cutoff for MAD outliers (default 3.5). -EINVAL unless > 0. */
PROSPECT_API int prospect_hist_set_cutoff(struct prospect_hist *h, double cutoff);

/* Summary figures over the `keep` samples. -ENODATA when none remain. */
PROSPECT_API int prospect_hist_stats(struct prospect_hist *h, enum prospect_keep keep,
                                     struct prospect_hist_stats *st);
/* Nearest-rank percentile pct in [0, 100] of the `keep` samples. -EINVAL, -ENODATA. */
PROSPECT_API int prospect_hist_percentile(struct prospect_hist *h, enum prospect_keep keep,
                                          double pct, uint64_t *out);

/* A table, one row per series: n, min, p50, p90, p99, p99.9, max, mean, MAD, flagged and
 * outlier counts; with hz > 0 a second block gives the same percentiles in nanoseconds. */
PROSPECT_API int prospect_hist_write_text(FILE *f, struct prospect_hist *const *hs, size_t n,
                                          enum prospect_keep keep, double hz);
/* The same figures as CSV with a header row. Series names are quoted. */
PROSPECT_API int prospect_hist_write_csv(FILE *f, struct prospect_hist *const *hs, size_t n,
                                         enum prospect_keep keep);
/* The percentile curves as CSV: "percentile,<series>..." and `points` rows (0: 100). */
PROSPECT_API int prospect_hist_write_curve_csv(FILE *f, struct prospect_hist *const *hs,
                                               size_t n, enum prospect_keep keep,
                                               unsigned points);

struct prospect_svg_opts {
    const char *title;              /* NULL: no title */
    const char *y_label;            /* NULL: "cycles" */
    enum prospect_keep keep;
    unsigned width, height;         /* 0: 800 x 500 */
    double y_max;                   /* 0: twice the largest p90 of the series, so the slow
                                       tail (page faults, interrupts) runs off the top as in
                                       seed 004's plots */
};

/* An SVG chart: percentile of calls (0-100) on x, value on y, one polyline per series
 * (class "series"), axes with ticks, and a legend. opts may be NULL. */
PROSPECT_API int prospect_hist_write_svg(FILE *f, struct prospect_hist *const *hs, size_t n,
                                         const struct prospect_svg_opts *opts);
/* The same with a logarithmic y axis from 1 to the power of ten above the slowest sample (when
 * opts->y_max is 0), decades marked: the fast calls and the slow tail in one chart
 * (`prospect replay --log-y`). A function of its own so struct prospect_svg_opts keeps its
 * size (ABI). */
PROSPECT_API int prospect_hist_write_svg_log(FILE *f, struct prospect_hist *const *hs, size_t n,
                                             const struct prospect_svg_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
