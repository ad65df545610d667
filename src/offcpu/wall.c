/* SPDX-License-Identifier: MIT */
/* The wall-clock view: on-CPU stacks and off-CPU time, marked, in one store. */
#include <errno.h>
#include <stdlib.h>
#include "offcpu/offcpu.h"
#include "offcpu/wall.h"
#include "perf/evlist.h"

bool wall_clock_event(const struct evsel *sel)
{
    return sel && sel->attr.type == PERF_TYPE_SOFTWARE &&
           (sel->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
            sel->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Every stack of `from` into out, below a marker leaf when mark is not 0. */
static int add_store(struct cg_store *out, const struct cg_store *from, uint64_t mark,
                     struct frame **buf, size_t *cap)
{
    for (size_t i = 0; i < from->nstacks; i++) {
        const struct cg_stack *st = &from->stacks[i];
        uint32_t k = 0;
        int err;

        if (st->n + 1 > *cap) {
            struct frame *v = realloc(*buf, (st->n + 1) * sizeof(*v));
            if (!v)
                return -ENOMEM;
            *buf = v;
            *cap = st->n + 1;
        }
        if (mark)
            (*buf)[k++] = (struct frame){ mark, NULL };
        for (uint32_t j = 0; j < st->n; j++)
            (*buf)[k++] = *cg_frame_at(from, st->off + j);
        out->tid = st->tid;
        if ((err = cg_store_add_whole(out, st->proc, *buf, k, st->samples, st->period)))
            return err;
    }
    return 0;
}

int wall_merge(const struct cg_store *on, const struct offcpu *oc, struct cg_store *out)
{
    struct frame *buf = NULL;
    size_t cap = 0;
    int err = 0;

    cg_store_init(out);
    if (on)
        err = add_store(out, on, 0, &buf, &cap);
    if (!err)
        err = add_store(out, &oc->stacks, FRAME_MARK_OFFCPU, &buf, &cap);
    if (!err)
        err = add_store(out, &oc->runnable, FRAME_MARK_RUNNABLE, &buf, &cap);
    free(buf);
    if (err)
        cg_store_release(out);
    return err;
}
