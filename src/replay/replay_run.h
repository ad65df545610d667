/* SPDX-License-Identifier: MIT */
/* Runs a replay program in a child process against one allocator: the embedded replay child
 * (src/intarget/replay_child.c) exec'd from a sealed memfd with LD_PRELOAD set, pinned to one CPU, the
 * program in a second memfd, the per-call ticks and peak RSS back over a pipe. */
#ifndef PROSPECT_REPLAY_RUN_H
#define PROSPECT_REPLAY_RUN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "replay/allocator.h"
#include "replay/replay_prog.h"
#include "intarget/replay_wire.h"

struct replay_run_opts {
    int cpu;                    /* pinned to this CPU */
    unsigned warmup, repeat;    /* untimed passes, timed passes (>= 1) */
    bool dump;                  /* bring back the executed-call log */
    bool cpuid;                 /* cpuid barriers instead of lfence */
};

struct replay_result {
    struct rp_res_hdr hdr;      /* floor, hz, where malloc came from, base RSS */
    uint64_t *ticks;            /* repeat x nops net ticks (RP_CYCLES_MIGRATED flag bit) */
    struct rp_dump *dump;       /* nops entries with opts.dump, else NULL */
    uint64_t peak_rss_kb;       /* the child's VmHWM after the last pass */
};

/* 0, or -errno with msg saying what went wrong (the child's own message, its death). */
int replay_run(const struct replay_prog *p, const struct replay_alloc *a,
               const struct replay_run_opts *o, struct replay_result *res, char *msg,
               size_t len);
void replay_result_release(struct replay_result *res);
#endif
