/* SPDX-License-Identifier: MIT */
#include <asm/perf_regs.h>
#include <errno.h>
#include "unwind/regs.h"

/* perf's index of each DWARF register. */
static const uint8_t perf_index[DW_NREGS] = {
    [DW_RAX] = PERF_REG_X86_AX, [DW_RDX] = PERF_REG_X86_DX, [DW_RCX] = PERF_REG_X86_CX,
    [DW_RBX] = PERF_REG_X86_BX, [DW_RSI] = PERF_REG_X86_SI, [DW_RDI] = PERF_REG_X86_DI,
    [DW_RBP] = PERF_REG_X86_BP, [DW_RSP] = PERF_REG_X86_SP, [DW_R8] = PERF_REG_X86_R8,
    [DW_R9] = PERF_REG_X86_R9, [DW_R10] = PERF_REG_X86_R10, [DW_R11] = PERF_REG_X86_R11,
    [DW_R12] = PERF_REG_X86_R12, [DW_R13] = PERF_REG_X86_R13, [DW_R14] = PERF_REG_X86_R14,
    [DW_R15] = PERF_REG_X86_R15, [DW_RIP] = PERF_REG_X86_IP,
};

int uw_regs_from_sample(uint64_t mask, const uint64_t *words, struct uw_regs *regs)
{
    regs->valid = 0;
    for (int d = 0; d < DW_NREGS; d++) {
        unsigned bit = perf_index[d];
        if (!(mask >> bit & 1))
            continue;
        /* The sample holds the masked registers in bit order. */
        regs->r[d] = words[__builtin_popcountll(mask & ((1ULL << bit) - 1))];
        regs->valid |= 1u << d;
    }
    if (!uw_reg_known(regs, DW_RIP) || !uw_reg_known(regs, DW_RSP))
        return -EINVAL;
    return 0;
}
