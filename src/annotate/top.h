/* SPDX-License-Identifier: MIT */
/* The Prospect paper's -e: the hottest routines of a profile disassembled with their hits,
 * written after the report by `prospect run --annotate N`. */
#ifndef PROSPECT_ANNOTATE_TOP_H
#define PROSPECT_ANNOTATE_TOP_H
#include <stdbool.h>
#include <stdio.h>

struct session;
struct ksyms;

struct ann_top_opts {
    unsigned top;               /* routines listed (hottest first) */
    bool wide;                  /* whole names, no 100-column cut */
    const char *title;          /* what was profiled (the command), for the header */
    const char *event;
    const struct ksyms *ks;     /* kernel symbols, or NULL: user routines only */
};

/* Writes the listings to f. 0, -ENOMEM or -EIO (write error). */
int ann_write_top(FILE *f, struct session *s, const struct ann_top_opts *o);
#endif
