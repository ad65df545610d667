/* SPDX-License-Identifier: MIT */
/* `prospect annotate --source`: a listing's hits summed per source line (file, line), the
 * gprof/perf source view. */
#ifndef PROSPECT_ANNOTATE_LINEVIEW_H
#define PROSPECT_ANNOTATE_LINEVIEW_H
#include <stddef.h>
#include <stdint.h>
#include "annotate/annotate.h"

struct ann_srcrow {
    const char *file;       /* NULL: instructions without a source line */
    unsigned line;
    uint64_t samples, period;
    unsigned insns;         /* instructions of this line in the function */
};

/* One row per (file, line) with code in the listing: the function's own file (the one of its
 * first instruction with a line) first, then the others (inlined headers) by first
 * appearance, each by line; instructions without a line last. *out is malloc'd. 0 or
 * -ENOMEM. */
int ann_lineview_build(const struct ann_listing *l, struct ann_srcrow **out, size_t *n);
#endif
