/* SPDX-License-Identifier: MIT */
/* The HTML page's timeline data: every sample's thread and time, kept at the resolution of
 * HTML_TL_BUCKETS equal slices of the recording, as runs of (slice, thread, call path, count)
 * (docs/html.md, "The data"). The page draws each thread's sample density from them and
 * aggregates any time range and thread as it aggregates the stacks. */
#ifndef PROSPECT_HTML_TIMELINE_H
#define PROSPECT_HTML_TIMELINE_H
#include <stddef.h>
#include <stdint.h>
#include "callgraph/stacks.h"
#include "html/paths.h"
#include "util/obuf.h"

#define HTML_TL_BUCKETS 1000u

/* Where the samples come from (the report's sample sequence, through the command): sample i's
 * stack (index in the store's stacks), thread and time, in the order they were taken. */
struct html_times {
    size_t n;
    void (*at)(const void *arg, size_t i, uint32_t *stack, uint32_t *tid, uint64_t *time);
    /* Thread tid's name (its latest command), never NULL. */
    const char *(*thread_name)(const void *arg, uint32_t tid, const struct process *p);
    const void *arg;
    /* Off-CPU waits (sched_switch), or nwaits 0: wait i's thread, switch-out and switch-in. */
    size_t nwaits;
    void (*wait_at)(const void *arg, size_t i, uint32_t *tid, uint64_t *start, uint64_t *end);
    const void *wait_arg;
};

struct html_thread {
    uint32_t tid, proc, name;   /* proc: index in html_paths.procs; name: in its strs */
    uint64_t samples;           /* the page's thread filter lists the busiest first */
};

struct html_timeline {
    uint64_t t0, span;        /* first sample time and last - first, ns */
    struct html_thread *thr;
    size_t nthr;
    uint64_t *keys;           /* slice << 54 | thread << 32 | node, sorted */
    size_t nkeys;
    uint64_t *off;            /* ns waited per slice, one row of buckets per thread that
                                 waited (off_row), or NULL: no waits */
    uint32_t *off_row;        /* per thread: its row in off + 1, 0: none */
    size_t off_rows, off_cap;
    uint64_t off_dropped;     /* ns of waits not in off: outside the samples' time, or of
                                 threads without samples */
};

/* Builds tl from the samples of tm over p (built from cs); thread names go to p->strs.
 * 0, -ENOMEM, or -ERANGE (more threads than the encoding holds). */
int html_timeline_build(struct html_timeline *tl, struct html_paths *p, const struct cg_store *cs,
                        const struct html_times *tm);
/* Spreads tm's waits over the slices of tl's threads (tl built). 0 or -ENOMEM. */
int html_timeline_waits(struct html_timeline *tl, const struct html_times *tm);
/* tl's off-CPU members (off_dropped, off), each after a comma. */
void html_timeline_write_waits(struct obuf *ob, const struct html_timeline *tl);
/* The "tl" member of the page's data, after a comma. */
void html_timeline_write(struct obuf *ob, const struct html_timeline *tl);
void html_timeline_release(struct html_timeline *tl);
#endif
