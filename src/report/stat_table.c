/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/csv.h"
#include "report/stat_table.h"
#include "util/vec.h"

bool stat_column_is_time(const char *name)
{
    /* "task-clock:u" counts nanoseconds too: the modifier does not change the unit. */
    static const char *const t[] = { "task-clock", "cpu-clock", "wall-clock" };
    size_t len = strcspn(name, ":");

    for (size_t i = 0; i < 3; i++)
        if (len == strlen(t[i]) && !strncmp(name, t[i], len))
            return true;
    return false;
}

#define STAT_WIDTH 100   /* text output fits this many columns by default */
#define STAT_MIN_LABEL 16

/* A grid of strings rendered as a text box or as CSV. */
struct grid {
    size_t cols;
    VEC(char *) cells;
};

static int grid_add(struct grid *g, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d || vec_push(&g->cells, d)) {
        free(d);
        return -ENOMEM;
    }
    return 0;
}

static void grid_free(struct grid *g)
{
    for (size_t i = 0; i < g->cells.n; i++)
        free(g->cells.v[i]);
    vec_free(&g->cells);
}

static size_t utf8_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* Width of one line of a cell (up to '\n' or the end). */
static size_t line_width(const char *s)
{
    size_t w = 0;
    for (; *s && *s != '\n'; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* Byte offset of the character that starts at display column `col` of s. */
static size_t offset_of(const char *s, size_t col)
{
    size_t i = 0, w = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) == 0x80)
            continue;
        if (w++ == col)
            return i;
    }
    return i;
}

/* s shortened to `max` columns by replacing its middle with "..." (the ends of a region name
 * say the most: the file or library, and the line or function). */
static void elide(const char *s, size_t max, char *out, size_t outlen)
{
    size_t w = utf8_width(s), head, tail;

    if (w <= max || max < 5) {
        snprintf(out, outlen, "%s", s);
        return;
    }
    head = (max - 3) / 2;
    tail = max - 3 - head;
    snprintf(out, outlen, "%.*s...%s", (int)offset_of(s, head), s, s + offset_of(s, w - tail));
}

static void rule(FILE *f, const size_t *w, size_t cols)
{
    for (size_t c = 0; c < cols; c++) {
        fputc('+', f);
        for (size_t i = 0; i < w[c] + 2; i++)
            fputc('-', f);
    }
    fputs("+\n", f);
}

static void cell(FILE *f, const char *s, size_t w, bool left)
{
    size_t len = strcspn(s, "\n"), pad = w - line_width(s);
    fputs("| ", f);
    if (!left)
        for (size_t i = 0; i < pad; i++)
            fputc(' ', f);
    fwrite(s, 1, len, f);
    if (left)
        for (size_t i = 0; i < pad; i++)
            fputc(' ', f);
    fputc(' ', f);
}

/* Row 0 is the header; a header cell may hold two lines ("context-\nswitches"). The first
 * column is left-aligned and, unless `full`, elided to keep the table within STAT_WIDTH;
 * numbers are right-aligned. CSV (with o->sep, ',' by default) has one line per row. */
static void grid_print(FILE *f, const struct grid *g, const struct stat_report_opts *o)
{
    size_t rows = g->cells.n / g->cols, w[64] = { 0 }, cols = g->cols < 64 ? g->cols : 64;
    size_t total = 1;
    bool two = false;
    char buf[512];

    if (o->csv) {
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++) {
                const char *s = g->cells.v[r * g->cols + c];
                char *nl = strchr(s, '\n');
                if (nl)   /* a two-line header is one name in CSV */
                    snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(nl - s), s,
                             nl[-1] == '-' ? "" : " ", nl + 1);
                csv_field_sep(f, nl ? buf : s, o->sep ? o->sep : ',', c + 1 == cols);
            }
        return;
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            const char *s = g->cells.v[r * g->cols + c], *nl = strchr(s, '\n');
            size_t l = line_width(s);
            if (nl) {
                two = true;
                if (utf8_width(nl + 1) > l)
                    l = utf8_width(nl + 1);
            }
            if (l > w[c])
                w[c] = l;
        }
    for (size_t c = 0; c < cols; c++)
        total += w[c] + 3;
    if (!o->full_names && total > STAT_WIDTH) {
        size_t floor = line_width(g->cells.v[0]) > STAT_MIN_LABEL ? line_width(g->cells.v[0])
                                                                   : STAT_MIN_LABEL;
        size_t over = total - STAT_WIDTH;
        if (w[0] > floor)
            w[0] = w[0] - floor > over ? w[0] - over : floor;
    }
    rule(f, w, cols);
    for (size_t line = 0; line < (two ? 2u : 1u); line++) {
        for (size_t c = 0; c < cols; c++) {
            const char *s = g->cells.v[c], *nl = strchr(s, '\n');
            cell(f, line == 0 ? s : nl ? nl + 1 : "", w[c], c == 0);
        }
        fputs("|\n", f);
    }
    rule(f, w, cols);
    for (size_t r = 1; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            const char *s = g->cells.v[r * g->cols + c];
            if (c == 0 && utf8_width(s) > w[0]) {
                elide(s, w[0], buf, sizeof(buf));
                s = buf;
            }
            cell(f, s, w[c], c == 0);
        }
        fputs("|\n", f);
    }
    rule(f, w, cols);
}

/* A column header for the text table: long hyphenated names on two lines, the unit below
 * the name ("task-clock\nms"). CSV joins the lines again. */
static void header_name(char *buf, size_t len, const char *name, const char *unit)
{
    size_t n = strlen(name), best = 0;

    for (size_t i = 1; n > 10 && i + 1 < n; i++)   /* the hyphen nearest the middle */
        if (name[i] == '-' && (!best || (i > n / 2 ? i - n / 2 : n / 2 - i) <
                                        (best > n / 2 ? best - n / 2 : n / 2 - best)))
            best = i;
    if (best)
        snprintf(buf, len, "%.*s\n%s%s%s", (int)best + 1, name, name + best + 1,
                 unit ? " " : "", unit ? unit : "");
    else if (unit)
        snprintf(buf, len, "%s\n%s", name, unit);
    else
        snprintf(buf, len, "%s", name);
}

/* Time unit for a column, chosen from the largest time it shows: one unit for every time row
 * of it, so wall-clock and task-clock compare at a glance, and a sub-microsecond mean beside a
 * total of seconds is not 0.000. */
static const char *time_unit(double max_ns, double *div)
{
    if (max_ns >= 1e9) { *div = 1e9; return "s"; }
    if (max_ns >= 1e6) { *div = 1e6; return "ms"; }
    if (max_ns >= 1e3) { *div = 1e3; return "us"; }
    *div = 1;
    return "ns";
}

/* Counts are whole numbers, but a mean of counts is not: 0.42 page faults per crossing is
 * information that "0" would lose. */
static void fmt_val(char *buf, size_t len, double v, bool time, double div, bool csv)
{
    bool whole = v == floor(v);
    if (csv)
        snprintf(buf, len, time || whole ? "%.0f" : "%.3f", v);
    else if (time)
        snprintf(buf, len, div == 1 ? "%.0f" : "%.3f", v / div);   /* ns are whole */
    else
        snprintf(buf, len, whole || v >= 1000 ? "%.0f" : "%.2f", v);
}

/* A row's cells: total, mean, min, max and (detail) p50, p99. */
static void column_values(const struct rc_stat *st, bool detail, double vals[6])
{
    vals[0] = st->total;
    vals[1] = rc_stat_mean(st);
    vals[2] = st->min;
    vals[3] = st->max;
    vals[4] = detail ? rc_stat_percentile(st, 50) : 0;
    vals[5] = detail ? rc_stat_percentile(st, 99) : 0;
}

static double pct_running(const struct rc_result *r)
{
    /* A thread's enabled time is the latest of its per-CPU counter copies' clocks, which start
     * a little apart (attach mode opens them one by one); its running time is their sum. So
     * running can exceed enabled by that skew: that is all-running, not more than 100%. Counts
     * are scaled only when running falls short (region_count.c), so this is display only. */
    double p = r->enabled > 0 ? 100.0 * r->running / r->enabled : 100.0;
    return p > 100.0 ? 100.0 : p;
}

/* Value of a sort key for a region: -EINVAL if the key names nothing. */
static int sort_value(const struct stat_region_view *v, const char *key, const char *const *cols,
                      size_t ncols, double *out)
{
    if (!strcmp(key, "calls")) {
        *out = v->res ? (double)v->res->calls : 0;
        return 0;
    }
    if (!strcmp(key, "crossings")) {
        *out = v->res ? (double)v->res->crossings : 0;
        return 0;
    }
    if (!strcmp(key, "wall-clock") || !strcmp(key, "time-elapsed")) {
        *out = v->res ? v->res->wall.total : 0;
        return 0;
    }
    for (size_t c = 0; c < ncols; c++)
        if (!strcmp(key, cols[c])) {
            *out = v->res ? v->res->vals[c].total : 0;
            return 0;
        }
    return -EINVAL;
}

struct sort_ctx {
    const char *key;
    const char *const *cols;
    size_t ncols;
    bool reverse;
};

static int cmp_views(const void *a, const void *b, void *arg)
{
    const struct stat_region_view *x = a, *y = b;
    const struct sort_ctx sort_ctx = *(const struct sort_ctx *)arg;
    double vx = 0, vy = 0;
    int r;

    if (!strcmp(sort_ctx.key, "region")) {
        r = strcmp(x->label, y->label);
    } else {
        sort_value(x, sort_ctx.key, sort_ctx.cols, sort_ctx.ncols, &vx);
        sort_value(y, sort_ctx.key, sort_ctx.cols, sort_ctx.ncols, &vy);
        r = vx < vy ? -1 : vx > vy;
        if (!r)
            r = strcmp(x->label, y->label);
    }
    return sort_ctx.reverse ? -r : r;
}

/* One region as a table: a row per quantity, columns total/mean/min/max(/p50/p99). */
static int region_table(FILE *f, const struct stat_region_view *v, const struct rc_result *res,
                        const char *title, const char *const *cols, size_t ncols,
                        const struct stat_report_opts *o, bool *csv_header_done)
{
    static const char *const hdr[] = { "event", "total", "mean", "min", "max", "p50", "p99" };
    size_t nh = o->detail ? 7 : 5;
    struct grid g = { .cols = nh + (o->csv ? 1 : 0) };
    char buf[64], name[160], shown[STAT_WIDTH];
    double tmax[6] = { 0 }, div[6];
    const char *unit[6];
    int e = 0;

    if (o->csv) {
        e |= grid_add(&g, "region");
    } else {
        /* The counts after the name must stay on screen: a long name gives way. */
        elide(title, o->full_names ? strlen(title) : STAT_WIDTH - 60, shown, sizeof(shown));
        fprintf(f, "%s: %llu call%s, %llu crossing%s", o->full_names ? title : shown, (unsigned long long)res->calls,
                res->calls == 1 ? "" : "s", (unsigned long long)res->crossings,
                res->crossings == 1 ? "" : "s");
        if (res->open)
            fprintf(f, ", %llu still inside at the end", (unsigned long long)res->open);
        if (res->crossings && res->scaled)
            fprintf(f, " (counters running %.1f%% of the time: scaled)", pct_running(res));
        fputc('\n', f);
        if (v->missing) {
            fputs("  (not found: no probes placed)\n\n", f);
            return 0;
        }
    }
    for (size_t c = 0; c <= ncols; c++)
        if (c == 0 || stat_column_is_time(cols[c - 1])) {
            const struct rc_stat *st = c == 0 ? &res->wall : &res->vals[c - 1];
            double vals[6];
            column_values(st, o->detail, vals);
            for (size_t i = 0; st->n && i < 6; i++)
                tmax[i] = vals[i] > tmax[i] ? vals[i] : tmax[i];
        }
    for (size_t i = 0; i < 6; i++)
        unit[i] = time_unit(tmax[i], &div[i]);
    for (size_t i = 0; i < nh; i++)
        e |= grid_add(&g, hdr[i]);
    if (o->csv && *csv_header_done) {   /* one CSV stream: a single header line */
        for (size_t i = 0; i < g.cells.n; i++)
            free(g.cells.v[i]);
        g.cells.n = 0;
    }
    *csv_header_done = true;
    for (size_t c = 0; c <= ncols && !e; c++) {
        const struct rc_stat *st = c == 0 ? &res->wall : &res->vals[c - 1];
        const char *cn = c == 0 ? "wall-clock" : cols[c - 1];
        bool time = stat_column_is_time(cn);
        double vals[6];

        column_values(st, o->detail, vals);
        if (o->csv) {
            e |= grid_add(&g, title);
            snprintf(name, sizeof(name), "%s%s", cn, time ? " (ns)" : "");
            e |= grid_add(&g, name);
        } else {
            e |= grid_add(&g, cn);      /* a time's unit is in its cells, one per column */
        }
        for (size_t i = 0; i + 1 < nh; i++) {
            if (!st->n)
                snprintf(buf, sizeof(buf), "%s", o->csv ? "" : "-");
            else
                fmt_val(buf, sizeof(buf), vals[i], time, div[i], o->csv);
            if (st->n && time && !o->csv) {
                size_t l = strlen(buf);
                snprintf(buf + l, sizeof(buf) - l, " %s", unit[i]);
            }
            e |= grid_add(&g, buf);
        }
    }
    if (!e)
        grid_print(f, &g, o);
    grid_free(&g);
    if (!o->csv)
        fputc('\n', f);
    return e ? -ENOMEM : 0;
}

static int summary_row(struct grid *g, const char *label, const struct rc_result *r,
                       const char *const *cols, size_t ncols, const struct stat_report_opts *o,
                       bool running, const double *div)
{
    char buf[64];
    int e = grid_add(g, label);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->calls);
    e |= grid_add(g, buf);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->crossings);
    e |= grid_add(g, buf);
    fmt_val(buf, sizeof(buf), r->wall.total, true, div[0], o->csv);
    e |= grid_add(g, buf);
    for (size_t c = 0; c < ncols; c++) {
        fmt_val(buf, sizeof(buf), r->vals[c].total, stat_column_is_time(cols[c]), div[c + 1],
                o->csv);
        e |= grid_add(g, buf);
    }
    if (running) {
        snprintf(buf, sizeof(buf), "%.1f", pct_running(r));
        e |= grid_add(g, buf);
    }
    return e;
}

/* The largest total of column c (0: wall-clock, then the events) over the summary's rows. */
static double summary_max(const struct stat_region_view *v, size_t n, size_t c, bool threads)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct rc_stat *st = c ? &v[i].res->vals[c - 1] : &v[i].res->wall;
        m = st->total > m ? st->total : m;
        for (size_t t = 0; threads && t < v[i].nthreads; t++) {
            st = c ? &v[i].threads[t].vals[c - 1] : &v[i].threads[t].wall;
            m = st->total > m ? st->total : m;
        }
    }
    return m;
}

/* One row per region. Text: a unit per time column, long names on two header lines, and
 * "% running" only when a counter was not running all the time (it says 100.0 otherwise),
 * so the default table fits STAT_WIDTH columns. CSV keeps every column, in ns. */
static int summary_table(FILE *f, const struct stat_region_view *v, size_t n,
                         const char *const *cols, size_t ncols, const struct stat_report_opts *o)
{
    bool running = o->csv;
    struct grid g = { 0 };
    char buf[160];
    double *div = calloc(ncols + 1, sizeof(*div));
    int e = 0;

    if (!div)
        return -ENOMEM;

    for (size_t i = 0; i < n && !running; i++)
        running = v[i].res->crossings && pct_running(v[i].res) < 99.95;
    g.cols = 4 + ncols + running;
    e |= grid_add(&g, "region");
    e |= grid_add(&g, "calls");
    e |= grid_add(&g, "crossings");
    for (size_t c = 0; c <= ncols; c++) {
        const char *cn = c == 0 ? "wall-clock" : cols[c - 1];
        bool time = stat_column_is_time(cn);
        const char *unit = time_unit(summary_max(v, n, c, o->per_thread), &div[c]);
        if (o->csv)
            snprintf(buf, sizeof(buf), "%s%s", cn, time ? " (ns)" : "");
        else
            header_name(buf, sizeof(buf), cn, time ? unit : NULL);
        e |= grid_add(&g, buf);
    }
    if (running)
        e |= grid_add(&g, o->csv ? "% running" : "running\n%");
    for (size_t i = 0; i < n && !e; i++) {
        e |= summary_row(&g, v[i].label, v[i].res, cols, ncols, o, running, div);
        for (size_t t = 0; o->per_thread && t < v[i].nthreads && !e; t++) {
            snprintf(buf, sizeof(buf), "%s [tid %d]", v[i].label, (int)v[i].threads[t].tid);
            e |= summary_row(&g, buf, &v[i].threads[t], cols, ncols, o, running, div);
        }
    }
    if (!e)
        grid_print(f, &g, o);
    grid_free(&g);
    free(div);
    return e ? -ENOMEM : 0;
}

int stat_sort_key_check(const char *key, const char *const *cols, size_t ncols, char *err,
                        size_t errlen)
{
    struct stat_region_view none = { 0 };
    double d;
    size_t used;

    if (!strcmp(key, "region") || sort_value(&none, key, cols, ncols, &d) == 0)
        return 0;
    used = (size_t)snprintf(err, errlen, "unknown sort key '%s' (use region, calls, crossings, "
                            "wall-clock", key);
    for (size_t c = 0; c < ncols && used < errlen; c++)
        used += (size_t)snprintf(err + used, errlen - used, ", %s", cols[c]);
    if (used < errlen)
        snprintf(err + used, errlen - used, ")");
    return -EINVAL;
}

int stat_report_regions(FILE *f, struct stat_region_view *v, size_t n, const char *const *cols,
                        size_t ncols, const struct stat_report_opts *o, char *err, size_t errlen)
{
    bool scaled = false, hdr_done = false;
    int e = 0;

    if (o->sort_key && stat_sort_key_check(o->sort_key, cols, ncols, err, errlen))
        return -EINVAL;
    if (o->sort_key || o->reverse) {
        struct sort_ctx ctx = { o->sort_key ? o->sort_key : "region", cols, ncols, o->reverse };
        qsort_r(v, n, sizeof(*v), cmp_views, &ctx);
    }
    if (o->summary) {
        e = summary_table(f, v, n, cols, ncols, o);
    } else {
        for (size_t i = 0; i < n && !e; i++) {
            char title[300];
            snprintf(title, sizeof(title), "%s", v[i].label);
            e = region_table(f, &v[i], v[i].res, title, cols, ncols, o, &hdr_done);
            for (size_t t = 0; o->per_thread && t < v[i].nthreads && !e; t++) {
                snprintf(title, sizeof(title), "%s [pid %d tid %d]", v[i].label,
                         (int)v[i].threads[t].pid, (int)v[i].threads[t].tid);
                e = region_table(f, &v[i], &v[i].threads[t], title, cols, ncols, o, &hdr_done);
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        scaled |= v[i].res && v[i].res->scaled;
    if (scaled && !o->csv)
        fprintf(f, "note: counters were multiplexed; each crossing was scaled by its own "
                   "enabled/running times\n");
    return e;
}

static double pct_of(const struct pc_value *v)
{
    return v->enabled ? 100.0 * (double)v->running / (double)v->enabled : 0.0;
}

/* The rate perf prints after a count: per second of task-clock (CPU time) when one was
 * counted, else per second of wall-clock time. */
static void rate(char *buf, size_t len, double count, double per_ns)
{
    double r = per_ns > 0 ? count / (per_ns / 1e9) : 0;
    const char *u = "";
    if (r >= 1e9) { r /= 1e9; u = "G"; }
    else if (r >= 1e6) { r /= 1e6; u = "M"; }
    else if (r >= 1e3) { r /= 1e3; u = "K"; }
    snprintf(buf, len, "%8.3f %s/sec", r, u);
}

static void program_csv(FILE *f, const struct stat_program_view *v, char sep)
{
    static const char *const hdr[] = { "event", "value", "unit", "enabled_ns", "running_ns",
                                       "pct_running", "variation_pct" };
    char b[64];

    for (size_t i = 0; i < 7; i++)
        csv_field_sep(f, hdr[i], sep, i == 6);
    for (size_t i = 0; i < v->n; i++) {
        const struct pc_value *x = &v->vals[i];
        csv_field_sep(f, v->names[i], sep, false);
        snprintf(b, sizeof(b), "%.0f", x->scaled);
        csv_field_sep(f, x->counted ? b : "<not counted>", sep, false);
        csv_field_sep(f, stat_column_is_time(v->names[i]) ? "ns" : "", sep, false);
        fprintf(f, "%llu%c%llu%c%.1f%c", (unsigned long long)x->enabled, sep,
                (unsigned long long)x->running, sep, pct_of(x), sep);
        if (v->var)
            fprintf(f, "%.2f", v->var[i]);
        fputc('\n', f);
    }
    fprintf(f, "wall-clock%c%.0f%cns%c%c%c%c", sep, v->wall_ns, sep, sep, sep, sep, sep);
    if (v->var)
        fprintf(f, "%.2f", v->wall_var);
    fputc('\n', f);
    if (v->user_s >= 0)
        fprintf(f, "user-time%c%.0f%cns%c%c%c%c\nsystem-time%c%.0f%cns%c%c%c%c\n", sep,
                v->user_s * 1e9, sep, sep, sep, sep, sep, sep, v->sys_s * 1e9, sep, sep, sep,
                sep, sep);
}

void stat_report_program(FILE *f, const struct stat_program_view *v,
                         const struct stat_report_opts *o)
{
    char sep = o->sep ? o->sep : ',';
    double per_ns = 0;
    bool scaled = false;

    if (o->csv) {
        program_csv(f, v, sep);
        return;
    }
    for (size_t i = 0; i < v->n && per_ns <= 0; i++)
        if (stat_column_is_time(v->names[i]) && v->vals[i].counted)
            per_ns = v->vals[i].scaled;
    if (per_ns <= 0)
        per_ns = v->wall_ns;
    fprintf(f, "\n Counter stats for '%s'", v->command);
    if (v->runs > 1)
        fprintf(f, " (%u runs)", v->runs);
    fputs(":\n\n", f);
    for (size_t i = 0; i < v->n; i++) {
        const struct pc_value *x = &v->vals[i];
        bool time = stat_column_is_time(v->names[i]);
        char r[48];
        if (!x->counted) {
            fprintf(f, "  %18s      %s\n", "<not counted>", v->names[i]);
            continue;
        }
        if (time) {
            fprintf(f, "  %18.3f msec %-24s", x->scaled / 1e6, v->names[i]);
            snprintf(r, sizeof(r), "%8.3f CPUs utilized", v->wall_ns > 0 ? x->scaled /
                     v->wall_ns : 0);
        } else {
            fprintf(f, "  %18.0f      %-24s", x->scaled, v->names[i]);
            rate(r, sizeof(r), x->scaled, per_ns);
        }
        fprintf(f, v->var || x->running < x->enabled ? " # %-22s" : " # %s", r);
        if (v->var)
            fprintf(f, "  ( +- %5.2f%% )", v->var[i]);
        if (x->running < x->enabled) {
            fprintf(f, "  (%.2f%%)", pct_of(x));
            scaled = true;
        }
        fputc('\n', f);
    }
    fprintf(f, "\n  %18.9f seconds time elapsed", v->wall_ns / 1e9);
    if (v->var)
        fprintf(f, "  ( +- %5.2f%% )", v->wall_var);
    fputc('\n', f);
    if (v->user_s >= 0)
        fprintf(f, "\n  %18.9f seconds user\n  %18.9f seconds sys\n", v->user_s, v->sys_s);
    fputc('\n', f);
    if (scaled)
        fprintf(f, "note: counters with (N%%) were multiplexed (running N%% of the time) and are "
                   "scaled estimates\n");
}

void stat_report_interval(FILE *f, double t_s, const char *const *names,
                          const struct pc_value *vals, size_t n,
                          const struct stat_report_opts *o, bool header)
{
    char sep = o->sep ? o->sep : ',', b[64];

    if (header && o->csv) {
        static const char *const h[] = { "time", "event", "value", "unit", "enabled_ns",
                                          "running_ns", "pct_running" };
        for (size_t i = 0; i < 7; i++)
            csv_field_sep(f, h[i], sep, i == 6);
    } else if (header) {
        fprintf(f, "#%13s %18s %-4s %s\n", "time", "counts", "unit", "event");
    }
    for (size_t i = 0; i < n; i++) {
        const struct pc_value *x = &vals[i];
        bool time = stat_column_is_time(names[i]);
        if (o->csv) {
            snprintf(b, sizeof(b), "%.9f", t_s);
            csv_field_sep(f, b, sep, false);
            csv_field_sep(f, names[i], sep, false);
            snprintf(b, sizeof(b), "%.0f", x->scaled);
            csv_field_sep(f, x->counted ? b : "<not counted>", sep, false);
            fprintf(f, "%s%c%llu%c%llu%c%.1f\n", time ? "ns" : "", sep,
                    (unsigned long long)x->enabled, sep, (unsigned long long)x->running, sep,
                    pct_of(x));
        } else if (!x->counted) {
            fprintf(f, "%14.6f %18s %-4s %s\n", t_s, "<not counted>", "", names[i]);
        } else {
            fprintf(f, time ? "%14.6f %18.3f %-4s %s\n" : "%14.6f %18.0f %-4s %s\n", t_s,
                    time ? x->scaled / 1e6 : x->scaled, time ? "msec" : "", names[i]);
        }
    }
}
