/* SPDX-License-Identifier: MIT */
/* x86_64 user registers as perf samples them (PERF_SAMPLE_REGS_USER) and as DWARF numbers
 * them (the CFI's columns). */
#ifndef PROSPECT_UNWIND_REGS_H
#define PROSPECT_UNWIND_REGS_H
#include <stdbool.h>
#include <stdint.h>
#include "perf/sample_regs.h"

/* The registers a sample carries, in the order uw_regs_from_sample reads them. */
#define UNWIND_X86_64_REGS_MASK PERF_X86_64_USER_REGS_MASK

/* DWARF register numbers (System V x86_64 psABI): 0-15 the general registers, 16 the return
 * address column (rip). */
enum {
    DW_RAX, DW_RDX, DW_RCX, DW_RBX, DW_RSI, DW_RDI, DW_RBP, DW_RSP,
    DW_R8, DW_R9, DW_R10, DW_R11, DW_R12, DW_R13, DW_R14, DW_R15, DW_RIP,
    DW_NREGS
};

struct uw_regs {
    uint64_t r[DW_NREGS];
    uint32_t valid;               /* bit n: r[n] is known */
};

/* Fills regs from a sample's user registers (`words`: one per bit of `mask`, in bit order).
 * -EINVAL when ip or sp is missing from the mask (nothing can be unwound). */
int uw_regs_from_sample(uint64_t mask, const uint64_t *words, struct uw_regs *regs);

static inline bool uw_reg_known(const struct uw_regs *r, int n)
{
    return n >= 0 && n < DW_NREGS && (r->valid >> n & 1);
}
#endif
