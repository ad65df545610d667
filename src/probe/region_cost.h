/* SPDX-License-Identifier: MIT */
/* What the probes cost a region's crossings, for `stat -r`'s note when that cost is large
 * against the region (a 10-int sum, a hot malloc): counts stay right, times are inflated and
 * the run is stretched. An estimate from reference costs measured on the development VM (docs/
 * stat.md "Cost and skew") for the way the region is entered, never more than the shortest
 * crossing this run measured (a crossing cannot hold more probe handling than its own time). */
#ifndef PROSPECT_PROBE_REGION_COST_H
#define PROSPECT_PROBE_REGION_COST_H
#include <stdbool.h>
#include <stdint.h>
#include "probe/region.h"

enum region_entry_kind {
    REGION_ENTRY_JUMP,       /* a jump entry: the uprobe sits on the trampoline's nop */
    REGION_ENTRY_EMULATED,   /* a uprobe on an instruction the kernel emulates (push, call,
                              * jmp, jcc, nop) */
    REGION_ENTRY_STEPPED,    /* a uprobe whose instruction is single-stepped out of line */
};

struct region_cost {
    enum region_entry_kind kind;
    double inside_ns;        /* probe handling inside each crossing's times (the skew) */
    double per_crossing_ns;  /* what one crossing costs the program, inside and outside */
    double share;            /* inside_ns / the mean crossing task-clock */
};

/* A region is noted when at least this share of its mean time is probe handling. */
#define REGION_COST_NOTE_SHARE 0.25

/* How one probe point is entered (a jump, else the probed instruction's first bytes decide). */
enum region_entry_kind region_probe_kind(const struct probe_point *p);
/* How region `region` of rl is entered (the costliest of its entry probes). */
enum region_entry_kind region_entry_kind(const struct region_list *rl, int region);
/* Fills *out from the crossing task-clock mean and minimum (ns); true when the note applies
 * (share >= REGION_COST_NOTE_SHARE). False, *out zeroed but kind, when there was no crossing. */
bool region_cost_estimate(enum region_entry_kind kind, double mean_ns, double min_ns,
                          struct region_cost *out);
/* "entered by a jump", "emulated uprobe", "single-stepped uprobe". */
const char *region_entry_kind_name(enum region_entry_kind kind);
#endif
