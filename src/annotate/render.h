/* SPDX-License-Identifier: MIT */
/* Rendering annotated functions: text (perf annotate's columns, source lines interleaved),
 * CSV (one row per instruction) and JSON. */
#ifndef PROSPECT_ANNOTATE_RENDER_H
#define PROSPECT_ANNOTATE_RENDER_H
#include <stdbool.h>
#include <stdio.h>
#include "annotate/annotate.h"
#include "annotate/source.h"
#include "report/format.h"
#include "report/json.h"

/* perf annotate's --percent-type: the share of the function's or of every sample, by period
 * or by hits. */
enum ann_percent { ANN_PCT_LOCAL_PERIOD, ANN_PCT_LOCAL_HITS, ANN_PCT_GLOBAL_PERIOD,
                   ANN_PCT_GLOBAL_HITS };

/* perf's spelling ("local-period"...) -> *out; -EINVAL for another. */
int ann_percent_parse(const char *s, enum ann_percent *out);

struct ann_out {
    FILE *f;
    enum report_format fmt;
    bool wide;                  /* text: whole names (else branch targets elided to fit) */
    bool by_line;               /* --source: hits per source line instead of per instruction */
    struct ann_sources *text;   /* source text to show (may be NULL: file:line only) */
    bool no_source;             /* --no-source: no file:line lines at all, as perf */
    bool asm_raw;               /* --asm-raw: each instruction's bytes too, as objdump */
    bool print_line;            /* -l: a sorted summary of the hot source lines first */
    enum ann_percent percent;
    struct json j;
};

/* Starts the output: the text header (what the numbers mean, skid), the CSV header row or the
 * JSON document. input and event name the profile. */
void ann_render_begin(struct ann_out *o, const struct ann_set *set, const char *input,
                      const char *event);
/* One function's listing. */
void ann_render_listing(struct ann_out *o, const struct ann_set *set,
                        const struct ann_listing *l);
/* A function that could not be listed, with the reason (text: a line; CSV: nothing; JSON: an
 * entry with "error"). */
void ann_render_skipped(struct ann_out *o, const struct ann_set *set, const struct ann_func *f,
                        const char *why);
/* Text: a listing's first line, "NAME  FILE  (N samples, P% of all)", within 100 columns
 * unless --wide (the name elided to leave the path 20 columns, then the path). */
void ann_render_heading(struct ann_out *o, const struct ann_set *set, const struct ann_func *f);
/* Text: the note that a file has no line table (its path elided unless --wide). */
void ann_render_no_lines(struct ann_out *o, const struct ann_func *f);
/* --source: one function's hits per source line, with the text (render_source.c). */
void ann_render_lines(struct ann_out *o, const struct ann_set *set, const struct ann_listing *l);
/* JSON: opens a function's object with its name, dso, start, size, samples and share (the
 * instruction and per-line views both start this way). */
void ann_json_func_head(struct ann_out *o, const struct ann_set *set, const struct ann_func *f);
/* Text: "# source ..." lines saying where a listing's source files were read from when not at
 * their recorded path, and which were not found (at most a few). */
void ann_render_source_notes(struct ann_out *o, const struct ann_listing *l);
/* Cuts printable text to at most width columns, ending it with "..." when cut. */
const char *ann_cut_text(const char *s, size_t width, char *buf, size_t len);
/* An instruction as the listings show it, branch targets named in full ("jmp 11b8 <f+0x18>"). */
void ann_insn_text(const struct ann_listing *l, const struct ann_line *ln, char *buf, size_t len);
/* Ends the output; returns -EIO on a write error. */
int ann_render_end(struct ann_out *o);
#endif
