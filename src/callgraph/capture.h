/* SPDX-License-Identifier: MIT */
/* The capture step between samples and the call-graph store: a sample's frames from the
 * kernel's call chain (context markers, return addresses made call sites), the process's maps
 * and the unwinder (a stack copy's DWARF unwind, the caller a frameless leaf hides), handed to
 * the store as one stack. The store itself knows frames only. */
#ifndef PROSPECT_CALLGRAPH_CAPTURE_H
#define PROSPECT_CALLGRAPH_CAPTURE_H
#include <stddef.h>
#include <stdint.h>
#include "model/frame.h"
#include "session/sink.h"

struct cg_store;
struct process;
struct sample;
struct unwinder;

struct cg_capture {
    struct cg_store *store;   /* where the stacks go */
    struct unwinder *unwind;  /* when set, user frames are unwound or completed there
                                 (src/unwind/): owned by the caller */
    struct frame *frames;     /* the sample being captured */
    size_t cap;
};

void cg_capture_init(struct cg_capture *c, struct cg_store *store, struct unwinder *unwind);
void cg_capture_release(struct cg_capture *c);

/* Adds one sample of process p to the store, weighing `period`: its call chain (hypervisor
 * and guest frames left out), or its ip alone when it has none. 0, -EINVAL (the store's
 * frames were dropped) or -ENOMEM. */
int cg_capture_sample(struct cg_capture *c, struct process *p, const struct sample *smp,
                      uint64_t period);

/* The sink (session_add_sink) that captures every kept sample, as cg_capture_sample. */
struct sample_sink cg_capture_sink(struct cg_capture *c);
#endif
