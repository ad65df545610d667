/* SPDX-License-Identifier: MIT */
/* The wall-clock view (report --wall): where threads spent their time, on CPU or not, in one
 * store weighed in ns. On-CPU stacks come from a clock event's samples (cpu-clock or
 * task-clock: their period is ns); a wait's stack gets a "[off-cpu]" leaf, the time a
 * preempted thread waited to run again a "[runnable]" leaf (model/frame.h's marker frames). */
#ifndef PROSPECT_OFFCPU_WALL_H
#define PROSPECT_OFFCPU_WALL_H
#include <stdbool.h>
#include "callgraph/stacks.h"

struct evsel;
struct offcpu;

/* Whether sel's sample periods are ns (cpu-clock, task-clock): the on-CPU side of the view. */
bool wall_clock_event(const struct evsel *sel);

/* out = on's stacks as they are, then oc's waits and runnable times with their marker leaf.
 * on may be NULL. 0 or -ENOMEM (out is then empty). */
int wall_merge(const struct cg_store *on, const struct offcpu *oc, struct cg_store *out);
#endif
