/* SPDX-License-Identifier: MIT */
/* One frame of a call stack, as samples and the unwinder produce it and the call-graph store
 * keeps it: in the model, below both, so that the unwinder never needs the store. */
#ifndef PROSPECT_MODEL_FRAME_H
#define PROSPECT_MODEL_FRAME_H
#include <stdint.h>

struct map;

/* The map of kernel frames (kernel addresses resolve through kallsyms). */
extern const struct map kernel_map;

/* Marker frames of the wall-clock view (src/offcpu/wall.h): outside every map (map NULL), at
 * addresses no user frame has (the callchain's context markers' range, never a frame). */
#define FRAME_MARK_OFFCPU ((uint64_t)-4095 + 0x100)     /* "[off-cpu]": a wait, blocked */
#define FRAME_MARK_RUNNABLE ((uint64_t)-4095 + 0x101)   /* "[runnable]": preempted, waiting */

struct frame {
    uint64_t addr;            /* the sampled ip for the leaf, return address - 1 for callers */
    const struct map *map;    /* &kernel_map, the user map, or NULL (outside every map) */
};

#endif
