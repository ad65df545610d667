/* SPDX-License-Identifier: MIT */
/* speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json): one
 * "sampled" profile per thread with its samples in time order (from the sample sequence), or
 * per process with one sample per distinct stack (off-CPU waits, cut or expanded stacks);
 * frames shared. */
#ifndef PROSPECT_REPORT_SPEEDSCOPE_H
#define PROSPECT_REPORT_SPEEDSCOPE_H
#include <stdbool.h>
#include <stdio.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "report/sample_seq.h"

struct speedscope_opts {
    const char *name;         /* the file's name in speedscope (e.g. the input path) */
    bool time_event;          /* weights are the period in nanoseconds, else sample counts */
    const struct sample_seq *seq;     /* the samples in time order, or NULL */
};

/* Profiles ordered by weight, heaviest first (the one speedscope opens). 0 or -ENOMEM/-EIO. */
int report_speedscope(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct speedscope_opts *o);
#endif
