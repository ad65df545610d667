/* SPDX-License-Identifier: MIT */
/* Function disassembly for `prospect annotate`: Zydis (x86-64, lazylib/x86insn.h) over a function's bytes, one
 * entry per instruction, with direct branch targets decoded so the listing can name them. */
#ifndef PROSPECT_ANNOTATE_DISASM_H
#define PROSPECT_ANNOTATE_DISASM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ann_syntax { ANN_ATT, ANN_INTEL };

struct ann_insn {
    uint64_t addr;            /* ELF virtual address */
    uint8_t size;
    uint8_t bytes[16];        /* the first min(size, 16) bytes of its code (--asm-raw) */
    bool bad;                 /* bytes that do not decode: one "(bad)" byte */
    bool jump, call;          /* control transfers (conditional jumps too) */
    bool has_target;          /* a direct jump or call: target is its destination */
    uint64_t target;
    char mnemonic[32];
    char operands[160];
};

/* Decodes n bytes of code at vaddr in a linear sweep (undecodable bytes become one-byte "(bad)"
 * entries, as objdump shows them). *out is malloc'd. Returns the count, -ENOMEM, or -ELIBACC
 * when libZydis cannot be loaded. */
long ann_disasm(const uint8_t *code, size_t n, uint64_t vaddr, enum ann_syntax syntax,
                struct ann_insn **out);
#endif
