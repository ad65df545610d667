/* SPDX-License-Identifier: MIT */
/* `prospect annotate --source`: hits per source line with the text (text, CSV, JSON), and the
 * notes on where source files were found. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/lineview.h"
#include "annotate/render.h"
#include "report/csv.h"
#include "symbol/dso.h"
#include "util/strutil.h"

#define MAX_NOTED_FILES 4
#define GAP_SHOWN 8          /* lines without code between two with code shown up to this */
#define CONTEXT_BEFORE 2     /* lines shown above the first line with code */

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void ann_render_source_notes(struct ann_out *o, const struct ann_listing *l)
{
    const char *seen[MAX_NOTED_FILES];
    size_t n = 0;
    char a[512], b[512];

    if (!o->text)
        return;
    for (size_t i = 0; i < l->n && n < MAX_NOTED_FILES; i++) {
        const char *file = l->lines[i].file, *where;
        bool dup = false;
        if (!file)
            continue;
        for (size_t k = 0; k < n && !dup; k++)
            dup = seen[k] == file || !strcmp(seen[k], file);
        if (dup)
            continue;
        seen[n++] = file;
        where = ann_source_where(o->text, file);
        if (!where) {
            char ea[600];
            const char *pa = str_printable(file, a, sizeof(a));
            fprintf(o->f, "# source not found: %s (see --source-dir, --prefix-map)\n",
                    o->wide ? pa : str_elide(pa, 46, ea, sizeof(ea)));
        }
        else if (strcmp(where, file)) {
            char ea[600], eb[600];
            const char *pa = str_printable(file, a, sizeof(a)), *pb = str_printable(where, b,
                                                                                  sizeof(b));
            if (!o->wide) {     /* two paths in 100 columns: each elided in its middle */
                pa = str_elide(pa, 40, ea, sizeof(ea));
                pb = str_elide(pb, 40, eb, sizeof(eb));
            }
            fprintf(o->f, "# source %s read from %s\n", pa, pb);
        }
    }
}

static void text_row(struct ann_out *o, const struct ann_listing *l, const char *file,
                     unsigned line, const struct ann_srcrow *r)
{
    char cbuf[ANN_SOURCE_LINE_MAX + 8];
    const char *text = o->text ? ann_source_line(o->text, file, line) : NULL;

    if (r && r->samples)
        fprintf(o->f, "%8.2f %7" PRIu64, pct(r->period, l->func->period), r->samples);
    else if (r)
        fprintf(o->f, "%8s %7s", "", "0");
    else
        fprintf(o->f, "%8s %7s", "", "");
    fprintf(o->f, " %6u  %s\n", line,
            text ? (o->wide ? text : ann_cut_text(text, 100 - 25, cbuf, sizeof(cbuf))) : "");
}

static void text_lines(struct ann_out *o, const struct ann_set *set, const struct ann_listing *l,
                       const struct ann_srcrow *rows, size_t n)
{
    const struct ann_func *f = l->func;
    char pbuf[512];

    ann_render_heading(o, set, f);
    if (!l->has_source) {
        if (f->kernel)
            fprintf(o->f, "# kernel code: no source lines (no kernel DWARF is read)\n");
        else
            ann_render_no_lines(o, f);
        return;
    }
    ann_render_source_notes(o, l);
    fprintf(o->f, " Percent    Hits   Line  Source\n");
    for (size_t i = 0; i < n; i++) {
        const struct ann_srcrow *r = &rows[i];
        bool first = i == 0 || !rows[i - 1].file || !r->file ||
                     strcmp(rows[i - 1].file, r->file);
        if (!r->file) {
            fprintf(o->f, "%8.2f %7" PRIu64 "  (no line: %u instructions)\n",
                    pct(r->period, f->period), r->samples, r->insns);
            continue;
        }
        if (first) {
            unsigned from = r->line > CONTEXT_BEFORE ? r->line - CONTEXT_BEFORE : 1;
            char ebuf[600];
            const char *shown = str_printable(r->file, pbuf, sizeof(pbuf));
            fprintf(o->f, "%s%25s%s\n", i ? "\n" : "", "",
                    o->wide ? shown : str_elide(shown, 100 - 25, ebuf, sizeof(ebuf)));
            for (unsigned ln = from; ln < r->line && o->text &&
                 ann_source_line(o->text, r->file, ln); ln++)
                text_row(o, l, r->file, ln, NULL);
        } else if (o->text && ann_source_line(o->text, r->file, r->line)) {
            unsigned prev = rows[i - 1].line;
            if (r->line - prev - 1 <= GAP_SHOWN)
                for (unsigned ln = prev + 1; ln < r->line; ln++)
                    text_row(o, l, r->file, ln, NULL);
            else
                fprintf(o->f, "%25s...\n", "");
        }
        text_row(o, l, r->file, r->line, r);
    }
}

static void csv_lines(struct ann_out *o, const struct ann_listing *l,
                      const struct ann_srcrow *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct ann_srcrow *r = &rows[i];
        const char *text = o->text ? ann_source_line(o->text, r->file, r->line) : NULL;
        csv_field(o->f, l->func->name, false);
        csv_field(o->f, ann_func_dso(l->func), false);
        csv_field(o->f, r->file ? r->file : "", false);
        if (r->line)
            csv_u64(o->f, r->line, false);
        else
            csv_field(o->f, "", false);
        csv_u64(o->f, r->samples, false);
        csv_double(o->f, pct(r->period, l->func->period), 2, false);
        csv_u64(o->f, r->insns, false);
        csv_field(o->f, text ? text : "", true);
    }
}

static void json_lines(struct ann_out *o, const struct ann_set *set, const struct ann_listing *l,
                       const struct ann_srcrow *rows, size_t n)
{
    const struct ann_func *f = l->func;

    ann_json_func_head(o, set, f);
    json_begin_array(&o->j, "lines");
    for (size_t i = 0; i < n; i++) {
        const struct ann_srcrow *r = &rows[i];
        json_begin_object(&o->j, NULL);
        json_str(&o->j, "source_file", r->file);
        json_u64(&o->j, "line", r->line);
        json_u64(&o->j, "hits", r->samples);
        json_double(&o->j, "percent", pct(r->period, f->period), 2);
        json_u64(&o->j, "instructions", r->insns);
        json_str(&o->j, "source", o->text ? ann_source_line(o->text, r->file, r->line) : NULL);
        json_end_object(&o->j);
    }
    json_end_array(&o->j);
    json_end_object(&o->j);
}

void ann_render_lines(struct ann_out *o, const struct ann_set *set, const struct ann_listing *l)
{
    struct ann_srcrow *rows;
    size_t n;

    if (ann_lineview_build(l, &rows, &n)) {
        fprintf(o->f, "# %s: out of memory\n", l->func->name);
        return;
    }
    switch (o->fmt) {
    case REPORT_TEXT: text_lines(o, set, l, rows, n); break;
    case REPORT_CSV: csv_lines(o, l, rows, n); break;
    case REPORT_JSON: json_lines(o, set, l, rows, n); break;
    }
    free(rows);
}
