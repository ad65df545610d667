/* SPDX-License-Identifier: MIT */
/* One x86-64 instruction decoded with Zydis (loaded on first use, src/lazylib/zydis.c), and
 * the questions Prospect's code asks of it: branch kind, direct target, RIP-relative operand,
 * text in AT&T or Intel syntax. Shared by annotate, lines, the unwinder's call-site check
 * and jump-entry relocation so that they all see the same instruction boundaries. */
#ifndef PROSPECT_LAZYLIB_X86INSN_H
#define PROSPECT_LAZYLIB_X86INSN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <Zydis/Zydis.h>

struct x86_insn {
    uint64_t addr;                     /* where it is (ELF vaddr) */
    const uint8_t *bytes;              /* its first byte, in the caller's buffer */
    ZydisDecodedInstruction d;
    ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];   /* visible operands first */
};

/* A 64-bit decoder: 0, or -ELIBACC when libZydis cannot be loaded. */
int x86_decoder_init(ZydisDecoder *dec);
/* Decodes the instruction at code[0..n) (address addr): false when the bytes do not decode. */
bool x86_decode(const ZydisDecoder *dec, const uint8_t *code, size_t n, uint64_t addr,
                struct x86_insn *out);

bool x86_is_jump(const struct x86_insn *in);         /* jmp, jcc, loop, jrcxz */
bool x86_is_uncond_jump(const struct x86_insn *in);  /* jmp (near or far) */
bool x86_is_call(const struct x86_insn *in);
bool x86_is_ret(const struct x86_insn *in);          /* near ret (c3, c2 imm16) */
bool x86_is_iret(const struct x86_insn *in);
bool x86_is_int(const struct x86_insn *in);          /* int, int1, int3, into */
/* Any transfer of control: the above, far ret, syscall/sysenter and their returns. */
bool x86_is_control(const struct x86_insn *in);
/* A branch or call to an immediate (relative) address: its destination. */
bool x86_direct_target(const struct x86_insn *in, uint64_t *target);
/* The single visible operand of an indirect jmp/call, or NULL. */
const ZydisDecodedOperand *x86_indirect_operand(const struct x86_insn *in);
/* The index of the first visible `disp(%rip)` memory operand without an index register, or -1;
 * *addr is the address it refers to. */
int x86_rip_operand(const struct x86_insn *in, uint64_t *addr);
/* Does the instruction name %rip in any other way (a RIP-relative operand with an index)? */
bool x86_uses_rip(const struct x86_insn *in);
/* Does it write %rsp (explicitly or implicitly: push, pop, call...)? */
bool x86_writes_sp(const struct x86_insn *in);

enum x86_syntax { X86_ATT, X86_INTEL };
/* A formatter for text as objdump writes it: AT&T or Intel, hex immediates. 0 or -ELIBACC. */
int x86_formatter_init(ZydisFormatter *f, enum x86_syntax syntax);
/* The instruction's mnemonic (with its prefixes: "lock cmpxchg", "rep stosb") and operands. */
void x86_text(const ZydisFormatter *f, const struct x86_insn *in, char *mnemonic, size_t ml,
              char *operands, size_t ol);
#endif
