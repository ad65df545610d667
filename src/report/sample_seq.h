/* SPDX-License-Identifier: MIT */
/* Every on-CPU sample in the order the session took it (time order): its thread, time, period
 * and the call-graph store's stack it went to. The per-thread exports read it: pprof's tid
 * labels, speedscope's chronological profiles (the store alone keeps distinct stacks). */
#ifndef PROSPECT_REPORT_SAMPLE_SEQ_H
#define PROSPECT_REPORT_SAMPLE_SEQ_H
#include <stdbool.h>
#include <stdint.h>
#include "callgraph/stacks.h"
#include "report/thread_tally.h"
#include "session/sink.h"
#include "util/vec.h"

struct seq_sample {
    uint32_t stack;           /* index in the store's stacks */
    uint32_t tid;
    uint64_t time, period;
};

struct sample_seq {
    const struct cg_store *cs;  /* its sink is added before this one */
    const struct thread_tally *names;   /* the threads' names (COMM records), or NULL */
    VEC(struct seq_sample) v;
    bool broken;              /* a sample the store did not count: the sequence is unusable */
};

/* The sink to add right after cs's own (the capture step's, cg_capture_sink). */
struct sample_sink sample_seq_sink(struct sample_seq *q);
/* The sequence, when it is whole and matches cs (the store it was taken from), else NULL. */
const struct sample_seq *sample_seq_for(const struct sample_seq *q, const struct cg_store *cs);
void sample_seq_release(struct sample_seq *q);
/* Thread tid's name: its latest command name, else its process's command. */
const char *sample_seq_thread_name(const struct sample_seq *q, uint32_t tid,
                                   const struct process *p);
#endif
