/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include "perf/record.h"
#include "report/sample_seq.h"
#include "session/session.h"

static int seq_sample(void *arg, struct process *p, const struct sample *smp, uint64_t period)
{
    struct sample_seq *q = arg;
    struct seq_sample s = { (uint32_t)q->cs->last, smp->tid, smp->time, period };

    (void)p;
    if (q->broken)
        return 0;
    /* The store counts every sample it takes: one more than ours, or this one is not there. */
    if (q->cs->samples != q->v.n + 1) {
        q->broken = true;
        return 0;
    }
    return vec_push(&q->v, s) ? -ENOMEM : 0;
}

struct sample_sink sample_seq_sink(struct sample_seq *q)
{
    return (struct sample_sink){ .sample = seq_sample, .arg = q };
}

const struct sample_seq *sample_seq_for(const struct sample_seq *q, const struct cg_store *cs)
{
    return q && !q->broken && q->cs == cs && q->v.n == cs->samples ? q : NULL;
}

void sample_seq_release(struct sample_seq *q)
{
    vec_free(&q->v);
}

const char *sample_seq_thread_name(const struct sample_seq *q, uint32_t tid,
                                   const struct process *p)
{
    const char *name = q->names ? thread_tally_comm(q->names, (pid_t)tid) : NULL;
    return name && *name ? name : p->comm;
}
