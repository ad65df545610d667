/* SPDX-License-Identifier: MIT */
/* Machine-code checks for jump entries (see jump_entry.h): can a function's first bytes be
 * replaced by a 5-byte `jmp` and its first instructions run elsewhere? Decoded with Zydis
 * (lazylib/x86insn.h).
 *
 * A prefix is movable when its whole instructions cover at least 5 bytes inside the function,
 * none transfers control except conditional jumps out of the prefix (`test; jle out` starts
 * many functions), and each other reference to the instruction pointer is a RIP-relative
 * memory operand with a 32-bit displacement. Moving is safe only when no code jumps into the middle of the prefix:
 * the function must have no indirect jump (a jump table could land there), and the caller
 * checks every direct branch and RIP-relative address of the program with
 * jump_code_branch_targets, and the symbols. */
#ifndef PROSPECT_PROBE_JUMP_CODE_H
#define PROSPECT_PROBE_JUMP_CODE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JUMP_MIN_LEN 5
#define JUMP_MAX_FIX 4
#define JUMP_MAX_STUB 48

/* The moved instructions as they run in the stub: copies, except that a conditional jump is
 * re-encoded with a 32-bit displacement; every RIP-relative displacement (memory operands and
 * jump targets) is rewritten for the stub's address by the entry hook. */
struct jump_prefix {
    unsigned len;                 /* bytes moved: whole instructions, >= JUMP_MIN_LEN */
    unsigned stub_len;
    uint8_t stub[JUMP_MAX_STUB];
    unsigned nfix;                /* RIP-relative displacements to rewrite */
    struct {
        unsigned disp_off;        /* offset of the 32-bit displacement in the stub */
        unsigned insn_end;        /* offset of the end of its instruction there (RIP base) */
        uint64_t target;          /* the address it refers to (ELF vaddr) */
    } fix[JUMP_MAX_FIX];
};

/* `code` holds the function's `size` bytes, at ELF address `vaddr`. 0, or -EINVAL with the
 * reason in `why` ("its first instruction is a return", ...), -ENOMEM. */
int jump_code_prefix(const uint8_t *code, size_t size, uint64_t vaddr, struct jump_prefix *out,
                     char *why, size_t whylen);
/* Can control fall through the end of `n` bytes of code at `vaddr`? No when the last
 * instruction is a jmp, a ret, ud2 or int3; for a direct call, *call_target is set (the caller
 * knows whether the callee returns; 0 otherwise). Code that does not decode: true. */
bool jump_code_falls_through(const uint8_t *code, size_t n, uint64_t vaddr,
                             uint64_t *call_target);
/* The same for bytes that end with a function's `ret`: the ret may be the last instruction
 * moved (it runs the same in the stub). */
int jump_code_prefix_to_ret(const uint8_t *code, size_t size, uint64_t vaddr,
                            struct jump_prefix *out, char *why, size_t whylen);
/* Where to jump from to see a function's `ret` at `ret_addr` without a single-step: the start
 * of the instructions just before it that, with it, cover at least JUMP_MIN_LEN bytes
 * (*point), none transferring control; *sp_delta is how much they move the stack pointer
 * before the ret (pops, push, add/sub/lea of %rsp; any other change of %rsp refuses).
 * `code`: the function's `n` bytes at `start`. 0, or -EINVAL with the reason, -ENOMEM. */
int jump_code_exit_point(const uint8_t *code, size_t n, uint64_t start, uint64_t ret_addr,
                         uint64_t *point, int64_t *sp_delta, char *why, size_t whylen);
/* For a point inside a function (`code`: the function's `n` bytes at `start`): the function
 * decodes from its start, `point` is an instruction boundary, and no indirect jump could land
 * in the bytes moved there. 0, or -EINVAL with the reason, -ENOMEM. */
int jump_code_check_function(const uint8_t *code, size_t n, uint64_t start, uint64_t point,
                             char *why, size_t whylen);
/* Linear sweep over `n` bytes of code at `vaddr`: calls fn(arg, target) for the target of
 * every direct jump and call and every RIP-relative address (`lea f+3(%rip)` takes an address
 * that may be jumped to later). Undecodable bytes are skipped one at a time. 0 or -errno. */
int jump_code_branch_targets(const uint8_t *code, size_t n, uint64_t vaddr,
                             void (*fn)(void *arg, uint64_t target), void *arg);

/* A function's code: its body, and the cold part gcc may have split off ("f.cold"). */
struct code_part {
    const uint8_t *code;
    size_t n;
    uint64_t vaddr;
};
#define CODE_MAX_EXITS 64
/* The function's exits, found by decoding every part: each return instruction, and each
 * unconditional jump that leaves the parts or goes back to the function's entry (a tail call;
 * the stack is then as at the entry). Jumps within the parts, jump tables (`jmp *t(,%r,8)`,
 * or `jmp *%r` right after `add %x,%r`) are not exits; a jump through the GOT is. -EINVAL
 * with the reason in `why` when the exits cannot be known: code that does not decode, a
 * conditional jump out of the function, another indirect jump, more than CODE_MAX_EXITS;
 * -ENOMEM. */
int jump_code_exits(const struct code_part *parts, size_t nparts, uint64_t entry,
                    uint64_t *exits, size_t *nexits, char *why, size_t whylen);
#endif
