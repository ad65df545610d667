/* SPDX-License-Identifier: MIT */
/* A profiling command's sample sinks wired in one call: call stacks (the capture step, user
 * stacks unwound or completed by one unwinder) and off-CPU waits, beside the session's hits. */
#ifndef PROSPECT_CMD_SINKS_H
#define PROSPECT_CMD_SINKS_H
#include <stdbool.h>
#include "callgraph/capture.h"

struct cg_store;
struct offcpu;
struct session;

struct profile_sinks {
    struct unwinder *unwind;      /* shared by both stores' captures; NULL: chains as recorded */
    struct cg_capture chains;     /* samples -> the call-stack store */
};

/* Adds to s the sinks of chains and oc (either may be NULL), with a new unwinder when
 * `unwind`. 0, -ENOMEM, or -ENOSPC (more sinks than the session takes). */
int profile_sinks_wire(struct profile_sinks *ps, struct session *s, struct cg_store *chains,
                       struct offcpu *oc, bool unwind);
/* The samples are in: what unwinding holds per DSO is not kept through the output. */
void profile_sinks_done(struct profile_sinks *ps);
void profile_sinks_release(struct profile_sinks *ps);
/* The one-line error for profile_sinks_wire's err. */
const char *profile_sinks_strerror(int err);
#endif
