/* SPDX-License-Identifier: MIT */
/* A profile as one self-contained HTML page (report --format html, run --html): the page's
 * script and style inline, the data as JSON inside it, no request made when it opens
 * (docs/html.md). Views: summary, call tree top-down and bottom-up, functions with caller and
 * callee, flame graph (flame/assets/flame.js, the SVG's own behaviour), source and assembly
 * of the hottest functions (html/source.h), timeline (threads' samples over time,
 * html/timeline.h). */
#ifndef PROSPECT_HTML_HTML_H
#define PROSPECT_HTML_HTML_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "html/source.h"
#include "html/timeline.h"

struct html_opts {
    const char *title;        /* NULL: "Prospect profile" */
    const char *input;        /* the perf.data path, or the command run; may be NULL */
    const char *event;        /* may be NULL */
    const char *command;      /* the recorded command line; may be NULL */
    bool by_period;           /* weights are the stacks' periods in ns (off-CPU waits) */
    uint64_t duration_ns;     /* first to last sample, 0: unknown */
    unsigned nr_cpus;         /* 0: unknown */
    const char *const *notes; /* shown in the summary (lost samples, stripped files...) */
    size_t nnotes;
    const struct html_source_req *source;  /* the source and assembly view's listings, or NULL */
    const struct html_times *times;   /* every sample's thread and time, for the timeline;
                                         NULL: no timeline (ignored with by_period) */
};

/* Writes the page for the stacks of cs (symbolized by cy) in one buffered pass. 0, -ENOMEM
 * or -EIO. */
int html_write(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
               const struct html_opts *o);
#endif
