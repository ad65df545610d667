/* SPDX-License-Identifier: MIT */
/* pprof's profile.proto (github.com/google/pprof, proto/profile.proto), gzipped: what go tool
 * pprof, Pyroscope and Parca read. */
#ifndef PROSPECT_REPORT_PPROF_H
#define PROSPECT_REPORT_PPROF_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "report/sample_seq.h"

struct pprof_opts {
    const char *event;        /* the sampled event's name (NULL: "events") */
    bool time_event;          /* cpu-clock, task-clock: the period is nanoseconds ("cpu") */
    bool off_cpu;             /* the period is the nanoseconds waited ("off-cpu") */
    bool wall;                /* with off_cpu: ns on CPU and off it (report --wall: "wall") */
    uint64_t period;          /* between samples (the event's unit); 0: unknown */
    uint64_t duration_ns;     /* first to last sample; 0: unknown */
    const uint8_t *kernel_build_id;   /* may be NULL */
    size_t kernel_build_id_len;
    const struct sample_seq *seq;     /* the samples' threads (NULL: per process only) */
};

/* One sample per distinct stack, or per distinct (stack, thread) with seq (values: samples,
 * then the summed period), locations per distinct (map, address), functions per symbol,
 * mappings with their build ids; the stack's command and pid as labels, with seq also tid and
 * thread (its name: its latest command name). 0 or -ENOMEM/-EIO. */
int report_pprof(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                 const struct pprof_opts *o);
#endif
