/* SPDX-License-Identifier: MIT */
/* `prospect lines` output formats (docs/lines.md). */
#ifndef PROSPECT_LINES_RENDER_H
#define PROSPECT_LINES_RENDER_H
#include <stdio.h>
#include "lines/count.h"
#include "lines/lines.h"

struct lines_report {
    const struct lines_plan *plan;
    const struct lines_count *counts;   /* sorted by (file, line) */
    size_t n;
    const char *source_dir;             /* --source-dir, or NULL */
    const struct lines_cost *cost;
};

/* A source file's text (malloc'd, *len bytes): the path as DWARF names it, else under dir
 * (--source-dir; may be NULL). A regular file only; NULL if none is found. */
char *lines_source_read(const char *path, const char *dir, size_t *len);

/* The gprof listing per file: source with counts in the margin, Top 10 Lines, Execution
 * Summary; a header with what a count means and the probes' cost. */
void lines_render_text(FILE *f, const struct lines_report *r);
/* file,line,count,mark (mark: "~" upper bound, "?" optimized code, or empty) */
void lines_render_csv(FILE *f, const struct lines_report *r);
void lines_render_json(FILE *f, const struct lines_report *r);
/* A path with `.`, `..` and doubled slashes taken out as text ("/a/b/../x.c": "/a/x.c"). */
void lines_plain_path(const char *in, char *out, size_t len);
/* lcov's tracefile (genhtml, lcov --summary read it). 0 or -ENOMEM. */
int lines_render_lcov(FILE *f, const struct lines_report *r);
#endif
