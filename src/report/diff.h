/* SPDX-License-Identifier: MIT */
/* prospect diff: two profiles compared per symbol, as perf diff (its default, delta-abs): each
 * (shared object, symbol)'s self share of the old and of the new profile, and the change. */
#ifndef PROSPECT_REPORT_DIFF_H
#define PROSPECT_REPORT_DIFF_H
#include <stdbool.h>
#include <stdio.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"

struct diff_side {
    const struct cg_store *cs;
    const struct cg_syms *cy;
    const char *path;
};

struct diff_opts {
    bool csv;                 /* old_percent,new_percent,delta,shared_object,symbol rows */
    bool wide;                /* no eliding to 100 columns */
    const char *event;        /* for the header, may be NULL */
};

/* Rows sorted by |delta| (then by new share, then name); shares of each side's total period,
 * where the sampled function is the leaf of the stack. 0 or -ENOMEM/-EIO. */
int report_diff(FILE *f, const struct diff_side *old, const struct diff_side *nw,
                const struct diff_opts *o);
#endif
