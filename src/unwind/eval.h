/* SPDX-License-Identifier: MIT */
/* Evaluation of the DWARF expressions libdw hands over for a frame (CFA and register rules)
 * against the registers of the frame below and the sample's copy of the user stack. */
#ifndef PROSPECT_UNWIND_EVAL_H
#define PROSPECT_UNWIND_EVAL_H
#include <stddef.h>
#include <stdint.h>
#include "unwind/cfi.h"

/* The user stack as sampled: len bytes from address base. */
struct uw_stack {
    uint64_t base;
    const uint8_t *buf;
    uint64_t len;
};

/* Reads the 8 bytes at addr from the stack copy. 0, or -EFAULT when outside it. */
int uw_stack_read(const struct uw_stack *s, uint64_t addr, uint64_t *out);

/* Evaluates n ops; `cfa` is DW_OP_call_frame_cfa's value (NULL when evaluating the CFA).
 * 0, -EFAULT (memory outside the copy), -ENOENT (an unknown register), -EINVAL (an op that is
 * not supported or a malformed expression). */
int uw_eval(const struct uw_op *ops, size_t n, const struct uw_regs *regs,
            const struct uw_stack *stk, const uint64_t *cfa, uint64_t *out);
#endif
