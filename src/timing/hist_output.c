/* SPDX-License-Identifier: MIT */
/* Histogram summaries as a text table and as CSV. */
#include <errno.h>
#include <string.h>
#include "timing/hist_priv.h"

#define NAME_MAX_WIDTH 40

static int finish(FILE *f)
{
    return ferror(f) ? -EIO : 0;
}

int prospect_hist_write_text(FILE *f, struct prospect_hist *const *hs, size_t n,
                             enum prospect_keep keep, double hz)
{
    int w = 6;

    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(prospect_hist_name(hs[i]));
        if (l > w)
            w = l > NAME_MAX_WIDTH ? NAME_MAX_WIDTH : l;
    }
    fprintf(f, "%-*s %8s %8s %8s %8s %8s %8s %8s %10s %10s %6s %6s %6s\n", w, "series", "n",
            "min", "p50", "p90", "p99", "p99.9", "max", "mean", "MAD", "outl", "migr", "switch");
    for (size_t i = 0; i < n; i++) {
        struct prospect_hist_stats st;
        int err = prospect_hist_stats(hs[i], keep, &st);
        if (err == -ENODATA) {
            fprintf(f, "%-*.*s %8zu (no samples kept of %zu)\n", w, w, prospect_hist_name(hs[i]),
                    st.count, st.total);
            continue;
        }
        if (err)
            return err;
        fprintf(f, "%-*.*s %8zu %8llu %8llu %8llu %8llu %8llu %8llu %10.1f %10.1f %6zu %6zu %6zu\n",
                w, w, prospect_hist_name(hs[i]), st.count, (unsigned long long)st.min,
                (unsigned long long)st.p50, (unsigned long long)st.p90,
                (unsigned long long)st.p99, (unsigned long long)st.p999,
                (unsigned long long)st.max, st.mean, st.mad, st.outliers, st.migrated,
                st.switched);
    }
    if (hz > 0) {
        fprintf(f, "\nin nanoseconds (TSC at %.3f MHz):\n", hz / 1e6);
        fprintf(f, "%-*s %10s %10s %10s %10s %10s %12s\n", w, "series", "min", "p50", "p90",
                "p99", "p99.9", "max");
        for (size_t i = 0; i < n; i++) {
            struct prospect_hist_stats st;
            if (prospect_hist_stats(hs[i], keep, &st))
                continue;
            fprintf(f, "%-*.*s %10.1f %10.1f %10.1f %10.1f %10.1f %12.1f\n", w, w,
                    prospect_hist_name(hs[i]), (double)st.min * 1e9 / hz,
                    (double)st.p50 * 1e9 / hz, (double)st.p90 * 1e9 / hz,
                    (double)st.p99 * 1e9 / hz, (double)st.p999 * 1e9 / hz,
                    (double)st.max * 1e9 / hz);
        }
    }
    return finish(f);
}

static void csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int prospect_hist_write_csv(FILE *f, struct prospect_hist *const *hs, size_t n,
                            enum prospect_keep keep)
{
    fputs("series,total,count,min,p50,p90,p99,p99.9,max,mean,mad,outliers,migrated,switched\n", f);
    for (size_t i = 0; i < n; i++) {
        struct prospect_hist_stats st;
        int err = prospect_hist_stats(hs[i], keep, &st);
        csv_string(f, prospect_hist_name(hs[i]));
        if (err == -ENODATA) {
            fprintf(f, ",%zu,0,,,,,,,,,%zu,%zu,%zu\n", st.total, st.outliers, st.migrated,
                    st.switched);
            continue;
        }
        if (err)
            return err;
        fprintf(f, ",%zu,%zu,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,%.3f,%zu,%zu,%zu\n", st.total,
                st.count, (unsigned long long)st.min, (unsigned long long)st.p50,
                (unsigned long long)st.p90, (unsigned long long)st.p99,
                (unsigned long long)st.p999, (unsigned long long)st.max, st.mean, st.mad,
                st.outliers, st.migrated, st.switched);
    }
    return finish(f);
}

int prospect_hist_write_curve_csv(FILE *f, struct prospect_hist *const *hs, size_t n,
                                  enum prospect_keep keep, unsigned points)
{
    if (!points)
        points = 100;
    fputs("percentile", f);
    for (size_t i = 0; i < n; i++) {
        fputc(',', f);
        csv_string(f, prospect_hist_name(hs[i]));
    }
    fputc('\n', f);
    for (unsigned j = 0; j <= points; j++) {
        double pct = 100.0 * j / points;
        fprintf(f, "%g", pct);
        for (size_t i = 0; i < n; i++) {
            const uint64_t *v;
            size_t m;
            int err = hist_sorted(hs[i], keep, &v, &m);
            if (err)
                return err;
            if (m)
                fprintf(f, ",%llu", (unsigned long long)hist_rank(v, m, pct));
            else
                fputc(',', f);
        }
        fputc('\n', f);
    }
    return finish(f);
}
