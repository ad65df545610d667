/* SPDX-License-Identifier: MIT */
/* The percentile-curve chart of seed 004 as standalone SVG: percentile of calls on x, value on
 * y, one polyline per series, axes with ticks and a legend. */
#include <errno.h>
#include <math.h>
#include "timing/hist_priv.h"

#define MARGIN_L 80
#define MARGIN_R 20
#define MARGIN_T 40
#define MARGIN_B 55
#define CURVE_POINTS 500

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* Control characters are not allowed in XML 1.0. */
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        }
    }
}

/* A round tick step (1, 2 or 5 times a power of ten) giving about `ticks` ticks up to max. */
static double nice_step(double max, int ticks)
{
    double raw = max / ticks, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* Where v sits on the y axis, 0 (bottom) to 1 (top); on a log axis values below 1 sit at 1. */
static double y_frac(double v, double ymax, int log_y)
{
    if (!log_y)
        return v / ymax;
    return v <= 1 ? 0 : log10(v) / log10(ymax);
}

/* The chart; log_y: a logarithmic y axis (prospect_hist_write_svg_log). */
static int write_svg(FILE *f, struct prospect_hist *const *hs, size_t n,
                     const struct prospect_svg_opts *opts, int log_y)
{
    struct prospect_svg_opts o = { NULL, NULL, PROSPECT_KEEP_ALL, 0, 0, 0 };
    double ymax, step, pw, ph;
    int err;

    if (opts)
        o = *opts;
    if (!o.width)
        o.width = 800;
    if (!o.height)
        o.height = 500;
    if (o.width < MARGIN_L + MARGIN_R + 100 || o.height < MARGIN_T + MARGIN_B + 100)
        return -EINVAL;
    if (!o.y_label)
        o.y_label = "cycles";
    ymax = o.y_max;
    if (!(ymax > 0)) {
        ymax = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t p;
            err = prospect_hist_percentile(hs[i], o.keep, log_y ? 100 : 90, &p);
            if (err && err != -ENODATA)
                return err;
            if (!err && (log_y ? 1.0 : 2.0) * (double)p > ymax)
                ymax = (log_y ? 1.0 : 2.0) * (double)p;
        }
        if (ymax <= 0)
            ymax = 1;
    }
    if (log_y) {
        /* Whole decades from 1: the axis runs to the next power of ten. */
        ymax = pow(10, ceil(log10(ymax < 10 ? 10 : ymax)));
        step = 10;
    } else {
        step = nice_step(ymax, 5);
        ymax = ceil(ymax / step) * step;
    }
    pw = o.width - MARGIN_L - MARGIN_R;
    ph = o.height - MARGIN_T - MARGIN_B;

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
               "viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"12\">\n",
            o.width, o.height, o.width, o.height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    if (o.title) {
        fprintf(f, "<text x=\"%u\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">",
                o.width / 2);
        xml_text(f, o.title);
        fputs("</text>\n", f);
    }
    /* Grid, ticks and tick labels. */
    fputs("<g class=\"axes\" stroke=\"#ccc\">\n", f);
    for (int p = 0; p <= 100; p += 10) {
        double x = MARGIN_L + pw * p / 100;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, MARGIN_T, x,
                MARGIN_T + ph);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\" "
                   "fill=\"black\">%d</text>\n", x, MARGIN_T + ph + 16, p);
    }
    for (double v = log_y ? 1 : 0; v <= ymax * 1.001 + (log_y ? 0 : step / 2);
         v = log_y ? v * step : v + step) {
        double y = MARGIN_T + ph - ph * y_frac(v, ymax, log_y);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", MARGIN_L, y,
                MARGIN_L + pw, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" stroke=\"none\" "
                   "fill=\"black\">%.10g</text>\n", MARGIN_L - 6, y + 4, v);
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
               "stroke=\"black\"/>\n</g>\n", MARGIN_L, MARGIN_T, pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%u\" text-anchor=\"middle\">percentile of calls</text>\n",
            MARGIN_L + pw / 2, o.height - 12);
    fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">",
            MARGIN_T + ph / 2);
    xml_text(f, o.y_label);
    fputs("</text>\n", f);

    /* A white box behind the legend keeps it readable over the grid. */
    if (n)
        fprintf(f, "<rect class=\"legend-box\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999\"/>\n", MARGIN_L + 6,
                MARGIN_T + 4, pw * 0.6, 18.0 * (double)n + 6);
    /* One polyline per series; values above the axis are drawn at the top edge. */
    for (size_t i = 0; i < n; i++) {
        const uint64_t *v;
        size_t m;
        const char *color = palette[i % (sizeof(palette) / sizeof(palette[0]))];
        err = hist_sorted(hs[i], o.keep, &v, &m);
        if (err)
            return err;
        fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                   "points=\"", color);
        for (int j = 0; m && j <= CURVE_POINTS; j++) {
            double pct = 100.0 * j / CURVE_POINTS, val = (double)hist_rank(v, m, pct);
            if (val > ymax)
                val = ymax;
            fprintf(f, "%s%.1f,%.1f", j ? " " : "", MARGIN_L + pw * pct / 100,
                    MARGIN_T + ph - ph * y_frac(val, ymax, log_y));
        }
        fputs("\"><title>", f);
        xml_text(f, prospect_hist_name(hs[i]));
        fputs("</title></polyline>\n", f);
        /* Legend entry, top left where rising curves leave room. */
        double ly = MARGIN_T + 18 + 18 * (double)i;
        fprintf(f, "<g class=\"legend\"><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                   "stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%.1f\">",
                MARGIN_L + 12, ly - 4, MARGIN_L + 36, ly - 4, color, MARGIN_L + 42, ly);
        xml_text(f, prospect_hist_name(hs[i]));
        fprintf(f, " (n=%zu)</text></g>\n", m);
    }
    fputs("</svg>\n", f);
    return ferror(f) ? -EIO : 0;
}

int prospect_hist_write_svg(FILE *f, struct prospect_hist *const *hs, size_t n,
                            const struct prospect_svg_opts *opts)
{
    return write_svg(f, hs, n, opts, 0);
}

int prospect_hist_write_svg_log(FILE *f, struct prospect_hist *const *hs, size_t n,
                                const struct prospect_svg_opts *opts)
{
    return write_svg(f, hs, n, opts, 1);
}
