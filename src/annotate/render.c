/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/render.h"
#include "report/csv.h"
#include "symbol/dso.h"
#include "util/strutil.h"

#define TARGET_NAME_WIDTH 40     /* text: a branch target's name, elided beyond (not --wide) */

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *const percent_names[] = {
    [ANN_PCT_LOCAL_PERIOD] = "local-period", [ANN_PCT_LOCAL_HITS] = "local-hits",
    [ANN_PCT_GLOBAL_PERIOD] = "global-period", [ANN_PCT_GLOBAL_HITS] = "global-hits",
};

int ann_percent_parse(const char *s, enum ann_percent *out)
{
    for (size_t i = 0; i < sizeof(percent_names) / sizeof(percent_names[0]); i++)
        if (!strcmp(s, percent_names[i])) {
            *out = (enum ann_percent)i;
            return 0;
        }
    return -EINVAL;
}

/* An instruction's (or line's) percent as --percent-type asks: of the function's samples or
 * of all, by period or by count. */
static double share(const struct ann_out *o, const struct ann_set *set, const struct ann_func *f,
                    uint64_t samples, uint64_t period)
{
    switch (o->percent) {
    case ANN_PCT_LOCAL_HITS: return pct(samples, f->samples);
    case ANN_PCT_GLOBAL_PERIOD: return pct(period, set->period);
    case ANN_PCT_GLOBAL_HITS: return pct(samples, set->samples);
    default: return pct(period, f->period);
    }
}

/* The instruction as shown: mnemonic and operands, a direct branch's operand as objdump writes
 * it ("11b8 <divide+0x18>"). */
static void insn_text(const struct ann_out *o, const struct ann_listing *l,
                      const struct ann_line *ln, char *buf, size_t len)
{
    const struct ann_insn *in = &ln->insn;
    char name[512], pbuf[512], ebuf[256];
    const char *shown;

    if (!in->operands[0]) {
        snprintf(buf, len, "%s", in->mnemonic);
        return;
    }
    if (!in->has_target || !ann_name_addr(l->set, l->func, in->target, name, sizeof(name))) {
        snprintf(buf, len, "%-6s %s", in->mnemonic, in->operands);
        return;
    }
    shown = str_printable(name, pbuf, sizeof(pbuf));
    if (o->fmt == REPORT_TEXT && !o->wide)
        shown = str_elide(shown, TARGET_NAME_WIDTH, ebuf, sizeof(ebuf));
    snprintf(buf, len, "%-6s %" PRIx64 " <%s>", in->mnemonic, in->target, shown);
}

void ann_insn_text(const struct ann_listing *l, const struct ann_line *ln, char *buf, size_t len)
{
    const struct ann_out whole = { .fmt = REPORT_JSON };

    insn_text(&whole, l, ln, buf, len);
}

void ann_render_begin(struct ann_out *o, const struct ann_set *set, const char *input,
                      const char *event)
{
    static const char *const cols[] = { "function", "dso", "address", "hits", "percent",
                                        "source_file", "line", "inlined", "instruction" };
    static const char *const line_cols[] = { "function", "dso", "source_file", "line", "hits",
                                             "percent", "instructions", "source" };
    char pbuf[512];

    switch (o->fmt) {
    case REPORT_CSV:
        if (o->by_line)
            csv_row(o->f, line_cols, sizeof(line_cols) / sizeof(line_cols[0]));
        else
            csv_row(o->f, cols, sizeof(cols) / sizeof(cols[0]));
        return;
    case REPORT_JSON:
        json_init(&o->j, o->f);
        json_begin_object(&o->j, NULL);
        json_str(&o->j, "input", input);
        json_str(&o->j, "event", event);
        json_u64(&o->j, "samples", set->samples);
        json_u64(&o->j, "samples_not_annotated", set->unannotated);
        json_begin_array(&o->j, "functions");
        return;
    case REPORT_TEXT:
        break;
    }
    {
        char ebuf[600];
        const char *in = str_printable(input, pbuf, sizeof(pbuf));
        fprintf(o->f, "# prospect annotate: %s, %" PRIu64 " samples of %s\n",
                o->wide ? in : str_elide(in, 40, ebuf, sizeof(ebuf)), set->samples,
                event ? event : "?");
    }
    if (set->unannotated)
        fprintf(o->f, "# %" PRIu64 " sample%s (%.1f%%) %s in code without a function symbol "
                "(user or kernel): not annotated\n", set->unannotated,
                set->unannotated == 1 ? "" : "s", pct(set->unannotated, set->samples),
                set->unannotated == 1 ? "is" : "are");
    if (o->by_line)
        fprintf(o->f, "# Per source line: Hits are the samples of the line's instructions; a "
                "line with code\n# but no samples shows 0, a line without code nothing.\n");
    if (o->percent == ANN_PCT_LOCAL_PERIOD)
        fprintf(o->f, "# Percent: of the function's samples (period-weighted, as perf "
                "annotate); Hits: samples.\n");
    else
        fprintf(o->f, "# Percent: of %s samples (%s, --percent-type %s); Hits: samples.\n",
                o->percent == ANN_PCT_LOCAL_HITS ? "the function's" : "all the",
                o->percent == ANN_PCT_GLOBAL_PERIOD ? "period-weighted" : "counted",
                percent_names[o->percent]);
    fprintf(o->f,
        "# Skid: a sample names the instruction that was about to run when the interrupt came,\n"
        "# so the time of a slow instruction shows on the one after it. On this VM the hits of a\n"
        "# div land on the next instruction: read a hot instruction right after a div (or a\n"
        "# load that misses) as the cost of that one. '>' marks where jumps inside the\n"
        "# function land; 'v' and '^' mark such jumps (forward, backward).\n");
}

/* Cuts at a character boundary (printable UTF-8: one column per character). */
const char *ann_cut_text(const char *s, size_t width, char *buf, size_t len)
{
    size_t cols = 0, i = 0;

    if (str_width(s) <= width)
        return s;
    if (width < 4 || len < 4)
        return "...";
    for (; s[i] && i + 4 < len; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && ++cols > width - 3)
            break;
    }
    memcpy(buf, s, i);
    memcpy(buf + i, "...", 4);
    return buf;
}

/* The "file:line" line above an instruction run, with the line's text when the file is
 * found (cut to 100 columns unless --wide), and the inlined function. */
static void source_heading(struct ann_out *o, const struct ann_listing *l,
                           const struct ann_line *ln, int indent)
{
    char pbuf[512], fbuf[512], cbuf[ANN_SOURCE_LINE_MAX + 8], head[1100];
    const char *text = o->text ? ann_source_line(o->text, ln->file, ln->line) : NULL;
    const char *chain[8];
    size_t nc = 0;
    int n;

    n = snprintf(head, sizeof(head), "%*s%s:%u", indent, "",
                 str_printable(path_basename(ln->file), pbuf, sizeof(pbuf)), ln->line);
    /* The inline chain, innermost first: "(inlined f < g)" is f inlined into g, itself
     * inlined into the listed function. */
    if (ln->inlined && l->src)
        nc = ann_src_inline_chain(l->src, ln->insn.addr, chain, 8);
    if (ln->inlined && !nc) {
        chain[0] = ln->inlined;
        nc = 1;
    }
    for (size_t i = 0; i < nc && n > 0 && (size_t)n < sizeof(head); i++)
        n += snprintf(head + n, sizeof(head) - (size_t)n, "%s%s", i ? " < " : "  (inlined ",
                      str_printable(chain[i], fbuf, sizeof(fbuf)));
    if (nc && n > 0 && (size_t)n < sizeof(head))
        n += snprintf(head + n, sizeof(head) - (size_t)n, ")");
    if (text && n > 0 && (size_t)n < sizeof(head)) {
        while (*text == ' ')
            text++;
        if (*text)
            snprintf(head + n, sizeof(head) - (size_t)n, "   %s", text);
    }
    fprintf(o->f, "%s\n", o->wide ? head : ann_cut_text(head, 100, cbuf, sizeof(cbuf)));
}

/* --asm-raw: the instruction's bytes in hex, as objdump, padded to 7 bytes' width. */
static void raw_bytes(FILE *f, const struct ann_insn *in)
{
    size_t n = in->size < sizeof(in->bytes) ? in->size : sizeof(in->bytes);

    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x ", in->bytes[i]);
    for (size_t i = n; i < 7; i++)
        fputs("   ", f);
    fputs("  ", f);
}

struct line_sum {
    const char *file;
    unsigned line;
    uint64_t samples, period;
};

static int cmp_line_sum(const void *a, const void *b)
{
    const struct line_sum *x = a, *y = b;
    if (x->period != y->period)
        return x->period < y->period ? 1 : -1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return strcmp(x->file, y->file);
}

/* -l: the source lines of the function's samples, hottest first, as perf annotate's "Sorted
 * summary" ("  82.99 file.c:12"): the sum of each line's instructions above 0.5%. */
static void line_summary(struct ann_out *o, const struct ann_set *set,
                         const struct ann_listing *l)
{
    struct line_sum *v = calloc(l->n ? l->n : 1, sizeof(*v));
    char pbuf[512];
    size_t n = 0;

    if (!v)
        return;                 /* the listing is still shown, without its summary */
    for (size_t i = 0; i < l->n; i++) {
        const struct ann_line *ln = &l->lines[i];
        size_t k = 0;
        /* As perf: instructions at 0.5% or less of the function are left out. */
        if (!ln->samples || !ln->file || share(o, set, l->func, ln->samples, ln->period) <= 0.5)
            continue;
        while (k < n && !(v[k].line == ln->line && !strcmp(v[k].file, ln->file)))
            k++;
        if (k == n)
            v[n++] = (struct line_sum){ ln->file, ln->line, 0, 0 };
        v[k].samples += ln->samples;
        v[k].period += ln->period;
    }
    qsort(v, n, sizeof(*v), cmp_line_sum);
    fprintf(o->f, "# Sorted summary of the source lines:\n");
    for (size_t k = 0; k < n; k++)
        fprintf(o->f, "# %8.2f %s:%u\n", share(o, set, l->func, v[k].samples, v[k].period),
                str_printable(path_basename(v[k].file), pbuf, sizeof(pbuf)), v[k].line);
    free(v);
}

static void text_listing(struct ann_out *o, const struct ann_set *set,
                         const struct ann_listing *l)
{
    const struct ann_func *f = l->func;
    char pbuf[512], text[512];
    const char *prev_file = NULL;
    unsigned prev_line = 0, aw = 4;
    const char *prev_inl = NULL;

    /* Hex digits of the highest address (16 for kernel code: a shift by 64 is undefined). */
    for (uint64_t a = f->start + f->size; aw < 16 && a >> (4 * aw); )
        aw++;
    ann_render_heading(o, set, f);
    if (l->code_path && strcmp(l->code_path, ann_func_dso(f)))
        fprintf(o->f, "# code read from %s (the file as profiled)\n",
                str_printable(l->code_path, pbuf, sizeof(pbuf)));
    if (o->no_source)
        ;
    else if (!l->has_source && !f->kernel)
        ann_render_no_lines(o, f);
    else
        ann_render_source_notes(o, l);
    if (o->print_line && !o->no_source && l->has_source)
        line_summary(o, set, l);
    if (l->off_insn_samples)
        fprintf(o->f, "# %" PRIu64 " samples fell between instruction starts (code that does "
                "not decode from the symbol's start)\n", l->off_insn_samples);
    fprintf(o->f, " Percent    Hits  %*s  %s%s\n", (int)aw + 1, "Address",
            o->asm_raw ? "Bytes                  " : "", "Instruction");
    for (size_t i = 0; i < l->n; i++) {
        const struct ann_line *ln = &l->lines[i];
        const struct ann_insn *in = &ln->insn;
        char mark = ' ';

        if (!o->no_source && ln->file && (ln->line != prev_line || ln->inlined != prev_inl ||
                         !prev_file || strcmp(ln->file, prev_file))) {
            source_heading(o, l, ln, 18 + (int)aw);
            prev_file = ln->file;
            prev_line = ln->line;
            prev_inl = ln->inlined;
        }
        if (in->jump && in->has_target && in->target >= f->start &&
            in->target < f->start + f->size)
            mark = in->target > in->addr ? 'v' : '^';
        insn_text(o, l, ln, text, sizeof(text));
        if (ln->samples)
            fprintf(o->f, "%8.2f %7" PRIu64, share(o, set, f, ln->samples, ln->period),
                    ln->samples);
        else
            fprintf(o->f, "%8s %7s", "", "");
        fprintf(o->f, "  %*" PRIx64 ":%c%c ", (int)aw, in->addr, ln->jump_target ? '>' : ' ',
                mark);
        if (o->asm_raw)
            raw_bytes(o->f, in);
        fprintf(o->f, "%s\n", text);
    }
}

static void csv_listing(struct ann_out *o, const struct ann_set *set,
                        const struct ann_listing *l)
{
    const struct ann_func *f = l->func;
    char addr[32], text[512];

    for (size_t i = 0; i < l->n; i++) {
        const struct ann_line *ln = &l->lines[i];
        snprintf(addr, sizeof(addr), "%#" PRIx64, ln->insn.addr);
        insn_text(o, l, ln, text, sizeof(text));
        csv_field(o->f, f->name, false);
        csv_field(o->f, ann_func_dso(f), false);
        csv_field(o->f, addr, false);
        csv_u64(o->f, ln->samples, false);
        csv_double(o->f, share(o, set, f, ln->samples, ln->period), 2, false);
        csv_field(o->f, ln->file ? ln->file : "", false);
        if (ln->line)
            csv_u64(o->f, ln->line, false);
        else
            csv_field(o->f, "", false);
        csv_field(o->f, ln->inlined ? ln->inlined : "", false);
        csv_field(o->f, text, true);
    }
}

void ann_json_func_head(struct ann_out *o, const struct ann_set *set, const struct ann_func *f)
{
    json_begin_object(&o->j, NULL);
    json_str(&o->j, "function", f->name);
    json_str(&o->j, "dso", ann_func_dso(f));
    json_u64(&o->j, "start", f->start);
    json_u64(&o->j, "size", f->size);
    json_u64(&o->j, "samples", f->samples);
    json_double(&o->j, "percent_of_all", pct(f->samples, set->samples), 2);
}

static void json_listing(struct ann_out *o, const struct ann_set *set,
                         const struct ann_listing *l)
{
    char text[512];

    ann_json_func_head(o, set, l->func);
    json_u64(&o->j, "samples_between_instructions", l->off_insn_samples);
    json_begin_array(&o->j, "instructions");
    for (size_t i = 0; i < l->n; i++) {
        const struct ann_line *ln = &l->lines[i];
        insn_text(o, l, ln, text, sizeof(text));
        json_begin_object(&o->j, NULL);
        json_u64(&o->j, "address", ln->insn.addr);
        json_u64(&o->j, "hits", ln->samples);
        json_double(&o->j, "percent", share(o, set, l->func, ln->samples, ln->period), 2);
        json_str(&o->j, "source_file", ln->file);
        json_u64(&o->j, "line", ln->line);
        json_str(&o->j, "inlined", ln->inlined);
        if (ln->inlined && l->src) {
            const char *chain[16];
            size_t nc = ann_src_inline_chain(l->src, ln->insn.addr, chain, 16);
            json_begin_array(&o->j, "inline_chain");
            for (size_t k = 0; k < nc; k++)
                json_str(&o->j, NULL, chain[k]);
            json_end_array(&o->j);
        }
        json_str(&o->j, "instruction", text);
        json_bool(&o->j, "jump_target", ln->jump_target);
        json_end_object(&o->j);
    }
    json_end_array(&o->j);
    json_end_object(&o->j);
}

/* Printable text as "# " lines of at most 100 columns, broken at spaces. */
static void print_wrapped(FILE *f, const char *s)
{
    while (*s) {
        size_t n = strlen(s), cut = n;
        if (n > 98) {
            for (cut = 98; cut > 0 && s[cut] != ' '; cut--)
                ;
            if (!cut)
                cut = 98;
        }
        fprintf(f, "# %.*s\n", (int)cut, s);
        s += cut;
        while (*s == ' ')
            s++;
    }
}

void ann_render_heading(struct ann_out *o, const struct ann_set *set, const struct ann_func *f)
{
    char pbuf[512], fbuf[512], nbuf[600], dbuf[600], tail[80];
    const char *name = str_printable(f->name, pbuf, sizeof(pbuf));
    const char *dso = str_printable(ann_func_dso(f), fbuf, sizeof(fbuf));
    size_t nw, tw;

    snprintf(tail, sizeof(tail), "  (%" PRIu64 " sample%s, %.2f%% of all)", f->samples,
             f->samples == 1 ? "" : "s", pct(f->samples, set->samples));
    if (!o->wide) {
        /* 100 columns: the path keeps up to 20 (a short one whole), the name the rest (at
         * least 30), then the path what the name left. */
        size_t pw = str_width(dso), keep = pw < 20 ? pw : 20;
        tw = strlen(tail) + 2;
        if (str_width(name) + tw + pw > 100)
            name = str_elide(name, 100 - tw - keep > 30 ? 100 - tw - keep : 30, nbuf,
                             sizeof(nbuf));
        nw = str_width(name);
        if (*dso && nw + tw + pw > 100)
            dso = str_elide(dso, 100 - nw - tw > 10 ? 100 - nw - tw : 10, dbuf, sizeof(dbuf));
    }
    fprintf(o->f, "\n%s%s%s%s\n", name, *dso ? "  " : "", dso, tail);
}

void ann_render_no_lines(struct ann_out *o, const struct ann_func *f)
{
    char pbuf[512], ebuf[600];
    const char *dso = str_printable(ann_func_dso(f), pbuf, sizeof(pbuf));

    const char *base = strrchr(dso, '/');

    /* The heading names the whole path: the file's name is enough here. */
    base = o->wide || !base ? dso : base + 1;
    fprintf(o->f, "# no DWARF line information for %s: no source lines (build with -g)\n",
            o->wide ? base : str_elide(base, 32, ebuf, sizeof(ebuf)));
}

void ann_render_listing(struct ann_out *o, const struct ann_set *set,
                        const struct ann_listing *l)
{
    uint8_t bid[BUILD_ID_MAX];
    size_t blen = 0;

    /* Sources found nowhere here may come from debuginfod, asked for this build. */
    if (o->text) {
        if (l->func->kernel || dso_build_id(l->func->dso, bid, &blen))
            blen = 0;
        ann_sources_set_build(o->text, bid, blen);
    }
    if (o->by_line) {
        ann_render_lines(o, set, l);
        return;
    }
    switch (o->fmt) {
    case REPORT_TEXT: text_listing(o, set, l); break;
    case REPORT_CSV: csv_listing(o, set, l); break;
    case REPORT_JSON: json_listing(o, set, l); break;
    }
}

void ann_render_skipped(struct ann_out *o, const struct ann_set *set, const struct ann_func *f,
                        const char *why)
{
    char pbuf[512], wbuf[512];

    if (o->fmt == REPORT_TEXT) {
        char head[700];
        const char *w = str_printable(why, wbuf, sizeof(wbuf));
        snprintf(head, sizeof(head), "%s  (%" PRIu64 " sample%s, %.2f%% of all): not annotated:",
                 str_printable(f->name, pbuf, sizeof(pbuf)), f->samples,
                 f->samples == 1 ? "" : "s", pct(f->samples, set->samples));
        if (o->wide || str_width(head) + 1 + str_width(w) <= 100)
            fprintf(o->f, "\n%s %s\n", head, w);
        else                    /* the reason on "# " lines of 100 columns, cut at spaces */
            fprintf(o->f, "\n%s\n", head), print_wrapped(o->f, w);
    } else if (o->fmt == REPORT_JSON) {
        ann_json_func_head(o, set, f);
        json_str(&o->j, "error", why);
        json_end_object(&o->j);
    }
}

int ann_render_end(struct ann_out *o)
{
    if (o->fmt == REPORT_JSON) {
        json_end_array(&o->j);
        json_end_object(&o->j);
        json_finish(&o->j);
    }
    return fflush(o->f) || ferror(o->f) ? -EIO : 0;
}
