/* SPDX-License-Identifier: MIT */
/* Call stacks of samples (built by callgraph/capture.h): every distinct
 * (process, frames) once, with its samples and period. Frames are kept as addresses in the map
 * they were in when the sample was taken (maps change), and symbolized only at report time,
 * once per distinct frame (callgraph/resolve.h). Reports (folded stacks, the Children/Self
 * table) walk the distinct stacks, never the samples. */
#ifndef PROSPECT_CALLGRAPH_STACKS_H
#define PROSPECT_CALLGRAPH_STACKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

struct map;
struct process;

struct cg_stack {
    const struct process *proc;
    uint32_t off;             /* first frame (the leaf) in cg_store.ids */
    uint32_t n;               /* frames, leaf first */
    int32_t tid;              /* the thread, in a per_thread store; else 0 */
    uint64_t samples, period;
};

/* Frames are stored once per distinct (address, map) in uniq; a stack is the 32-bit indexes
 * of its frames in ids: a quarter of the memory of the frames themselves, and symbols are
 * resolved per distinct frame (callgraph/resolve.h). */
struct cg_store {
    uint32_t *ids;            /* every distinct stack's frames, back to back: indexes in uniq */
    size_t nframes, cap_frames;
    struct frame *uniq;       /* every distinct frame once, in the order first seen */
    size_t nuniq, cap_uniq;
    uint32_t *uniq_table;     /* open addressing over uniq: index + 1, 0 empty */
    size_t uniq_table_cap;
    struct cg_stack *stacks;
    size_t nstacks, cap_stacks;
    uint64_t *table;          /* open addressing: hash's low half << 32 | stack index + 1,
                                 0 empty (the tag spares a visit to stacks on a miss) */
    size_t table_cap;
    struct frame *scratch;    /* the stack being copied (cg_store_add_stack, truncate) */
    size_t cap_scratch;
    uint64_t samples, period;
    size_t last;              /* the stack the latest add went to (index in stacks) */
    bool frames_dropped;      /* cg_store_drop_frames: stacks and counts only */
    uint32_t recent[64];      /* by a hash of the process: the stack its latest add went to,
                                 + 1 (samples of a thread repeat their stack, or its callers) */
    bool per_thread;          /* stacks kept per (process, thread, frames): --sort tid */
    int32_t tid;              /* the thread of the next adds (0 unless per_thread, or copied
                                 from a per_thread store's stack) */
};

void cg_store_init(struct cg_store *cs);
void cg_store_release(struct cg_store *cs);
/* Every stack is in: frees the tables that find a stack or frame again (a fifth of the
 * store) and the arrays' room to grow. A later add makes them again. */
void cg_store_seal(struct cg_store *cs);

/* Symbols are resolved (callgraph/resolve.h) and the report reads symbols only (every one but
 * pprof's): frees the frames (ids and distinct frames), keeping the stacks, their lengths and
 * counts. cg_frame_at must not be called after; adding fails with -EINVAL. */
void cg_store_drop_frames(struct cg_store *cs);

/* Adds n frames (leaf first) of process p as one sample weighing period (callgraph/capture.h
 * builds them from a sample). 0, -EINVAL after cg_store_drop_frames, or -ENOMEM. */
int cg_store_add_frames(struct cg_store *cs, const struct process *p, const struct frame *f,
                        uint32_t n, uint64_t period);

/* Adds stack st of store `from` (may be cs itself) as one sample weighing period. */
int cg_store_add_stack(struct cg_store *cs, const struct cg_store *from,
                       const struct cg_stack *st, uint64_t period);

/* Adds n frames of process p as one stack of `samples` samples weighing `period` in all (a
 * stack copied whole from another store). 0, -EINVAL after cg_store_drop_frames, -ENOMEM. */
int cg_store_add_whole(struct cg_store *cs, const struct process *p, const struct frame *f,
                       uint32_t n, uint64_t samples, uint64_t period);

/* perf's --max-stack N: a copy of `in` whose stacks keep at most max frames, equal results
 * merged. outer: the sampled frame and the max outermost callers (perf report's Children and
 * caller trees), else the max innermost frames (perf script's). 0 or -ENOMEM. */
int cg_store_truncate(const struct cg_store *in, uint32_t max, bool outer, struct cg_store *out);

/* Frame i of the store (a stack's frames are st->off .. st->off + st->n - 1). */
static inline const struct frame *cg_frame_at(const struct cg_store *cs, size_t i)
{
    return &cs->uniq[cs->ids[i]];
}
#endif
