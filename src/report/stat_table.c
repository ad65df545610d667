#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/csv.h"
#include "report/stat_table.h"
#include "util/vec.h"

bool stat_column_is_time(const char *name)
{
    return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock") ||
           !strcmp(name, "wall-clock");
}

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

static void rule(FILE *f, const size_t *w, size_t cols)
{
    for (size_t c = 0; c < cols; c++) {
        fputc('+', f);
        for (size_t i = 0; i < w[c] + 2; i++)
            fputc('-', f);
    }
    fputs("+\n", f);
}

/* Row 0 is the header. The first column is left-aligned, numbers right-aligned. */
static void grid_print(FILE *f, const struct grid *g, bool csv)
{
    size_t rows = g->cells.n / g->cols, w[64] = { 0 }, cols = g->cols < 64 ? g->cols : 64;

    if (csv) {
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                csv_field(f, g->cells.v[r * g->cols + c], c + 1 == cols);
        return;
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            size_t l = utf8_width(g->cells.v[r * g->cols + c]);
            if (l > w[c])
                w[c] = l;
        }
    rule(f, w, cols);
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            const char *s = g->cells.v[r * g->cols + c];
            size_t pad = w[c] - utf8_width(s);
            fputs("| ", f);
            if (c > 0)
                for (size_t i = 0; i < pad; i++)
                    fputc(' ', f);
            fputs(s, f);
            if (c == 0)
                for (size_t i = 0; i < pad; i++)
                    fputc(' ', f);
            fputc(' ', f);
        }
        fputs("|\n", f);
        if (r == 0)
            rule(f, w, cols);
    }
    rule(f, w, cols);
}

/* Time unit for a row, chosen from its largest value. */
static const char *time_unit(double max_ns, double *div)
{
    if (max_ns >= 1e9) { *div = 1e9; return "s"; }
    if (max_ns >= 1e6) { *div = 1e6; return "ms"; }
    if (max_ns >= 1e3) { *div = 1e3; return "us"; }
    *div = 1;
    return "ns";
}

static void fmt_val(char *buf, size_t len, double v, bool time, double div, bool csv)
{
    if (csv)
        snprintf(buf, len, time ? "%.0f" : "%.0f", v);
    else if (time)
        snprintf(buf, len, "%.3f", v / div);
    else
        snprintf(buf, len, "%.0f", v);
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
    char buf[64], name[160];
    int e = 0;

    if (o->csv) {
        e |= grid_add(&g, "region");
    } else {
        fprintf(f, "%s: %llu call%s, %llu crossing%s", title, (unsigned long long)res->calls,
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
        double div = 1;
        const char *unit = time ? time_unit(st->max, &div) : NULL;
        double vals[6] = { st->total, rc_stat_mean(st), st->min, st->max, 0, 0 };

        if (o->detail) {
            vals[4] = rc_stat_percentile(st, 50);
            vals[5] = rc_stat_percentile(st, 99);
        }
        if (o->csv) {
            e |= grid_add(&g, title);
            snprintf(name, sizeof(name), "%s%s", cn, time ? " (ns)" : "");
        } else {
            snprintf(name, sizeof(name), "%s%s%s%s", cn, time ? " (" : "", time ? unit : "",
                     time ? ")" : "");
        }
        e |= grid_add(&g, name);
        for (size_t i = 0; i + 1 < nh; i++) {
            if (!st->n)
                snprintf(buf, sizeof(buf), "%s", o->csv ? "" : "-");
            else
                fmt_val(buf, sizeof(buf), vals[i], time, div, o->csv);
            e |= grid_add(&g, buf);
        }
    }
    if (!e)
        grid_print(f, &g, o->csv);
    grid_free(&g);
    if (!o->csv)
        fputc('\n', f);
    return e ? -ENOMEM : 0;
}

static int summary_row(struct grid *g, const char *label, const struct rc_result *r,
                       const char *const *cols, size_t ncols, const struct stat_report_opts *o)
{
    char buf[64];
    int e = grid_add(g, label);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->calls);
    e |= grid_add(g, buf);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->crossings);
    e |= grid_add(g, buf);
    fmt_val(buf, sizeof(buf), r->wall.total, true, 1e6, o->csv);
    e |= grid_add(g, buf);
    for (size_t c = 0; c < ncols; c++) {
        fmt_val(buf, sizeof(buf), r->vals[c].total, stat_column_is_time(cols[c]), 1e6, o->csv);
        e |= grid_add(g, buf);
    }
    snprintf(buf, sizeof(buf), "%.1f", pct_running(r));
    e |= grid_add(g, buf);
    return e;
}

static int summary_table(FILE *f, const struct stat_region_view *v, size_t n,
                         const char *const *cols, size_t ncols, const struct stat_report_opts *o)
{
    struct grid g = { .cols = 4 + ncols + 1 };
    char buf[160];
    int e = 0;

    e |= grid_add(&g, "region");
    e |= grid_add(&g, "calls");
    e |= grid_add(&g, "crossings");
    e |= grid_add(&g, o->csv ? "wall-clock (ns)" : "wall-clock (ms)");
    for (size_t c = 0; c < ncols; c++) {
        bool time = stat_column_is_time(cols[c]);
        snprintf(buf, sizeof(buf), "%s%s", cols[c], time ? (o->csv ? " (ns)" : " (ms)") : "");
        e |= grid_add(&g, buf);
    }
    e |= grid_add(&g, "% running");
    for (size_t i = 0; i < n && !e; i++) {
        e |= summary_row(&g, v[i].label, v[i].res, cols, ncols, o);
        for (size_t t = 0; o->per_thread && t < v[i].nthreads && !e; t++) {
            snprintf(buf, sizeof(buf), "%s [tid %d]", v[i].label, (int)v[i].threads[t].tid);
            e |= summary_row(&g, buf, &v[i].threads[t], cols, ncols, o);
        }
    }
    if (!e)
        grid_print(f, &g, o->csv);
    grid_free(&g);
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

void stat_report_program(FILE *f, const char *command, const char *const *names,
                         const struct pc_value *vals, size_t n, const char *const *unsupported,
                         size_t nunsup, double wall_ns, bool csv)
{
    bool scaled = false;

    if (csv) {
        fputs("event,value,unit,enabled_ns,running_ns,pct_running\n", f);
        for (size_t i = 0; i < n; i++) {
            bool time = stat_column_is_time(names[i]);
            csv_field(f, names[i], false);
            fprintf(f, "%.0f,%s,%llu,%llu,%.1f\n", vals[i].scaled, time ? "ns" : "",
                    (unsigned long long)vals[i].enabled, (unsigned long long)vals[i].running,
                    vals[i].enabled ? 100.0 * (double)vals[i].running / (double)vals[i].enabled
                                    : 0.0);
        }
        for (size_t i = 0; i < nunsup; i++) {
            csv_field(f, unsupported[i], false);
            fputs("<not supported>,,,,\n", f);
        }
        fprintf(f, "wall-clock,%.0f,ns,,,\n", wall_ns);
        return;
    }
    fprintf(f, "\n Counter stats for '%s' (whole program):\n\n", command);
    for (size_t i = 0; i < n; i++) {
        const struct pc_value *v = &vals[i];
        bool time = stat_column_is_time(names[i]);
        if (!v->counted) {
            fprintf(f, "  %18s      %-24s\n", "<not counted>", names[i]);
            continue;
        }
        if (time)
            fprintf(f, "  %18.3f msec %-24s", v->scaled / 1e6, names[i]);
        else
            fprintf(f, "  %18.0f      %-24s", v->scaled, names[i]);
        if (time && wall_ns > 0)
            fprintf(f, " # %8.3f CPUs utilized", v->scaled / wall_ns);
        if (v->running < v->enabled) {
            fprintf(f, " (%.2f%% running: scaled)", 100.0 * (double)v->running /
                    (double)v->enabled);
            scaled = true;
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < nunsup; i++)
        fprintf(f, "  %18s      %-24s\n", "<not supported>", unsupported[i]);
    fprintf(f, "\n  %18.9f seconds wall-clock elapsed\n\n", wall_ns / 1e9);
    if (scaled)
        fprintf(f, "note: some counters were multiplexed and are scaled estimates "
                   "(value x enabled / running)\n");
}
