/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/srcline.h"
#include "annotate/srcline_report.h"
#include "report/csv.h"
#include "report/json.h"
#include "session/symbolize.h"
#include "symbol/dso.h"
#include "util/strutil.h"
#include "util/vec.h"

struct sl_row {
    const char *name;           /* base name of the file, "??", or kernel "sym+off" */
    const char *path;           /* full source path, or NULL */
    unsigned line;
    uint64_t samples, period;
};

struct sl_ctx {
    const struct flat_opts *o;
    VEC(struct sl_row) rows;
    VEC(char *) owned;          /* kernel names made here */
    struct ann_src_cache dwarf;
    uint64_t samples, period;   /* of the rows kept (--dso) */
};

static bool dso_wanted(const struct sl_ctx *c, struct dso *dso)
{
    const char *want = c->o->dso;
    return !want || (dso && (!strcmp(dso_path(dso), want) || !strcmp(dso_short_name(dso), want)));
}

static int add_hit(void *arg, const struct sym_hit *h)
{
    struct sl_ctx *c = arg;
    struct sl_row r = { .name = "??", .samples = h->samples, .period = h->period };

    if (h->kernel) {
        char *n;
        if (c->o->dso)
            return 0;
        if (h->sym && asprintf(&n, "%s+%" PRIu64, h->sym, h->addr - h->sym_start) >= 0) {
            if (vec_push(&c->owned, n)) {
                free(n);
                return -ENOMEM;
            }
            r.name = n;
        } else if (!h->sym) {
            r.name = "[kernel]";
        } else {
            return -ENOMEM;
        }
    } else if (!dso_wanted(c, h->dso)) {
        return 0;
    } else if (h->dso && dso_kind(h->dso) == DSO_FILE) {
        struct ann_src *src = ann_src_cache_get(&c->dwarf, h->dso);
        struct ann_srcpos p;
        /* Line 0 (code of no source line, e.g. gcc's jump tables) keeps its file: perf
         * shows "file.c:0" too. */
        if (src && ann_src_lookup(src, h->addr, &p) == 0) {
            r.path = p.file;
            r.name = path_basename(p.file);
            r.line = p.line;
        }
    }
    c->samples += h->samples;
    c->period += h->period;
    return vec_push(&c->rows, r);
}

static int row_key_cmp(const void *a, const void *b)
{
    const struct sl_row *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : x->line < y->line ? -1 : x->line > y->line;
}

static int row_period_cmp(const void *a, const void *b)
{
    const struct sl_row *x = a, *y = b;
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    return row_key_cmp(a, b);
}

/* One row per name:line, hottest first. */
static void merge_rows(struct sl_ctx *c)
{
    size_t w = 0;

    if (c->rows.n > 1)
        qsort(c->rows.v, c->rows.n, sizeof(*c->rows.v), row_key_cmp);
    for (size_t i = 0; i < c->rows.n; i++) {
        if (w && !row_key_cmp(&c->rows.v[w - 1], &c->rows.v[i])) {
            c->rows.v[w - 1].samples += c->rows.v[i].samples;
            c->rows.v[w - 1].period += c->rows.v[i].period;
        } else {
            c->rows.v[w++] = c->rows.v[i];
        }
    }
    c->rows.n = w;
    if (w > 1)
        qsort(c->rows.v, w, sizeof(*c->rows.v), row_period_cmp);
}

static void row_label(const struct sl_row *r, char *buf, size_t len)
{
    char pbuf[512];
    const char *n = str_printable(r->name, pbuf, sizeof(pbuf));
    if (r->path || !strcmp(r->name, "??"))
        snprintf(buf, len, "%s:%u", n, r->line);
    else
        snprintf(buf, len, "%s", n);
}

static void print_text(FILE *f, const struct flat_opts *o, const struct sl_row *rows,
                       size_t n, size_t shown, uint64_t samples, uint64_t period)
{
    const char *sep = o->separator;
    char label[600], ev[128];

    fprintf(f, "# Samples: %" PRIu64 "  of event '%s'\n", samples,
            str_printable(o->event ? o->event : "?", ev, sizeof(ev)));
    fprintf(f, "# Event count (approx.): %" PRIu64 "\n#\n# Overhead%s  Source:Line\n"
            "# ........%s  ...........\n#\n", period, o->show_nr_samples ? "  Samples" : "",
            o->show_nr_samples ? "  ......." : "");
    for (size_t i = 0; i < shown; i++) {
        double pct = period ? 100.0 * (double)rows[i].period / (double)period : 0;
        row_label(&rows[i], label, sizeof(label));
        if (sep && o->show_nr_samples)
            fprintf(f, "%.2f%%%s%" PRIu64 "%s%s\n", pct, sep, rows[i].samples, sep, label);
        else if (sep)
            fprintf(f, "%.2f%%%s%s\n", pct, sep, label);
        else if (o->show_nr_samples)
            fprintf(f, "%9.2f%%  %7" PRIu64 "  %s\n", pct, rows[i].samples, label);
        else
            fprintf(f, "%9.2f%%  %s\n", pct, label);
    }
    if (shown < n)
        fprintf(f, "#\n# %zu rows below %.2f%% not shown\n", n - shown, o->percent_limit);
}

static void print_machine(FILE *f, const struct flat_opts *o, const struct sl_row *rows,
                          size_t n, size_t shown, uint64_t samples, uint64_t period)
{
    struct json j;
    char label[600];

    if (o->fmt == REPORT_CSV) {
        fputs("overhead,samples,period,srcline,source_file,line\n", f);
    } else {
        json_init(&j, f);
        json_begin_object(&j, NULL);
        json_str(&j, "event", o->event);
        json_u64(&j, "samples", samples);
        json_u64(&j, "period", period);
        json_str(&j, "percentage", o->relative ? "relative" : "absolute");
        json_begin_array(&j, "rows");
    }
    for (size_t i = 0; i < shown; i++) {
        double pct = period ? 100.0 * (double)rows[i].period / (double)period : 0;
        row_label(&rows[i], label, sizeof(label));
        if (o->fmt == REPORT_CSV) {
            csv_double(f, pct, 4, false);
            csv_u64(f, rows[i].samples, false);
            csv_u64(f, rows[i].period, false);
            csv_field(f, label, false);
            csv_field(f, rows[i].path ? rows[i].path : "", false);
            if (rows[i].line)
                csv_u64(f, rows[i].line, true);
            else
                csv_field(f, "", true);
            continue;
        }
        json_begin_object(&j, NULL);
        json_double(&j, "overhead", pct, 4);
        json_u64(&j, "samples", rows[i].samples);
        json_u64(&j, "period", rows[i].period);
        json_str(&j, "srcline", label);
        json_str(&j, "source_file", rows[i].path);
        json_u64(&j, "line", rows[i].line);
        json_end_object(&j);
    }
    if (o->fmt == REPORT_JSON) {
        json_end_array(&j);
        json_u64(&j, "hidden_rows", n - shown);
        json_end_object(&j);
        json_finish(&j);
    }
}

int report_srcline(FILE *f, struct session *s, const struct ksyms *ks,
                   const struct flat_opts *o)
{
    struct sl_ctx c = { .o = o };
    uint64_t samples, period;
    size_t shown;
    int err = 0;

    for (size_t i = 0; i < s->procs.n && !err; i++) {
        struct process *p = s->procs.v[i];
        err = symbolize_user(p, add_hit, &c);
        if (!err)
            err = symbolize_kernel(&p->khits, p, ks, add_hit, &c);
    }
    if (!err) {
        merge_rows(&c);
        /* As the flat table: absolute shares of every sample unless --percentage relative. */
        samples = o->relative ? c.samples : o->total_period ? o->total_samples : s->stats.samples;
        period = o->relative ? c.period : o->total_period ? o->total_period
                                                            : s->stats.period_total;
        for (shown = 0; shown < c.rows.n; shown++)
            if (period && 100.0 * (double)c.rows.v[shown].period / (double)period <
                          o->percent_limit)
                break;
        if (o->fmt == REPORT_TEXT)
            print_text(f, o, c.rows.v, c.rows.n, shown, samples, period);
        else
            print_machine(f, o, c.rows.v, c.rows.n, shown, samples, period);
        err = ferror(f) ? -EIO : 0;
    }
    for (size_t i = 0; i < c.owned.n; i++)
        free(c.owned.v[i]);
    vec_free(&c.owned);
    ann_src_cache_release(&c.dwarf);
    vec_free(&c.rows);
    return err;
}
