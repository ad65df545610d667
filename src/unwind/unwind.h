/* SPDX-License-Identifier: MIT */
/* User-space unwinding at report time, the one place a sample's frames come from when the
 * kernel's frame-pointer chain is not the whole answer:
 *  - DWARF mode (the sample carries user registers and a copy of the user stack, perf's
 *    --call-graph dwarf): the user frames are unwound from the DSOs' CFI; the kernel frames of
 *    the chain stay in front.
 *  - Frame-pointer chains: a sampled function that has not set up its frame (a frameless leaf,
 *    a prologue or epilogue) hides its caller from the kernel's walk; the CFI says when, and
 *    the direct call before the next return address names the hidden caller. */
#ifndef PROSPECT_UNWIND_UNWIND_H
#define PROSPECT_UNWIND_UNWIND_H
#include <stddef.h>
#include <stdint.h>

struct frame;
struct process;
struct sample;
struct unwinder;

#define UNWIND_MAX_FRAMES 127        /* perf's default max_stack */

/* Why DWARF unwinds ended, counted for -v and the tests. */
struct unwind_stats {
    uint64_t dwarf_samples;          /* samples unwound from their stack copy */
    uint64_t frames;                 /* user frames those gave */
    uint64_t end_of_stack;           /* reached the outermost frame (RA undefined or 0) */
    uint64_t snapshot_end;           /* the next return address lay beyond the copy */
    uint64_t no_map;                 /* a PC outside every file map (JIT, anonymous code) */
    uint64_t no_cfi;                 /* no CFI for the PC (or its file is missing) */
    uint64_t bad_rule;               /* an expression that could not be evaluated */
    uint64_t no_progress;            /* the stack pointer did not grow: stopped a loop */
    uint64_t max_depth;
    uint64_t bad_regs;               /* registers without ip or sp (a mask that does not fit) */
    uint64_t bad_dyn_size;           /* a dyn_size larger than the copy (clamped) */
    uint64_t leaf_fixed;             /* frame-pointer chains given their hidden caller */
    uint64_t fp_frames;              /* DWARF unwinds: frames found by rbp where no CFI was */
};

struct unwinder *unwinder_new(void);
void unwinder_free(struct unwinder *uw);
/* Frees what unwinding holds per DSO (CFI, its file views, cached rules and call sites) once
 * the last sample is in: symbol resolution and output then do not hold it too. The statistics
 * stay; a later sample opens what it needs again. */
void unwinder_drop_cfi(struct unwinder *uw);
const struct unwind_stats *unwinder_stats(const struct unwinder *uw);
/* The statistics in one line at -v (why unwinds ended). */
void unwinder_log_stats(const struct unwinder *uw);

/* The call-out of cg_capture_sample (callgraph/capture.h): *frames holds the *n frames built from the sample's call
 * chain (leaf first, kernel frames marked with kernel_map); replaces their user part by
 * the DWARF unwind when the sample carries a stack copy, or adds the hidden caller to a
 * frame-pointer chain. *frames may be reallocated (capacity *cap). 1 when the frames changed, 0 when
 * not, -ENOMEM. */
int unwind_sample(struct unwinder *uw, struct process *p, const struct sample *smp,
                  struct frame **frames, size_t *cap, uint32_t *n);
#endif
