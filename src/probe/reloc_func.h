/* SPDX-License-Identifier: MIT */
/* Whole-function relocation: a copy of a function's machine code that increments a counter at
 * chosen instructions and otherwise runs as the original (DynInst's approach; decoded with
 * Zydis, lazylib/x86insn.h). The original's entry is then redirected to the copy with a
 * 5-byte `jmp` (src/intarget/lines_hook.c), so every block of the function is counted without a
 * trap, however short.
 *
 * In the copy, branches inside the function go to the copy (re-encoded with 32-bit
 * displacements), branches and calls out of it and RIP-relative operands keep their original
 * targets (fixes the hook applies where it maps the copy). A counter is `ds incq
 * counter(%rip)` (RELOC_UNLOCKED: 4 times cheaper than `lock` here), whose first byte the hook
 * turns into RELOC_LOCKED before a second thread or process can run the copy: exact with
 * threads. Where the flags it changes may still be read (a `jcc`
 * after a block start, testing flags set before it), the increment is wrapped in `pushfq` and
 * `popfq` below the red zone. The stack is otherwise as in the original at every instruction,
 * so the original function's unwind rules hold in the copy. A call returns to the original:
 * the copy jumps to the original's own call instruction (kept intact), or pushes the
 * original's return address and jumps (`push slot(%rip); jmp callee`) where that is
 * overwritten, and the return site takes a `jmp` back to the copy (5 bytes of the original's
 * own, apart from the others and its entry's, or 2 bytes of a short jmp to such 5 bytes
 * elsewhere in the original, which never runs again: struct reloc_site). Other calls
 * push an address in the copy, which only the copy's own unwind table describes
 * (src/lines/inproc_cfi.c): the caller refuses functions with calls where unwinding through
 * them must find exception tables (C++).
 *
 * Refused (-EINVAL, the reason in `why`): code that does not decode, an indirect jump other
 * than through a RIP-relative pointer (a jump table would land in the original), loop/jrcxz,
 * xbegin, a RIP-relative operand with an index, an address taken inside the function (it could
 * be jumped to later), a branch into the middle of an instruction, a counter not on an
 * instruction boundary. The caller checks that no code outside the function enters it but at
 * its entry. */
#ifndef PROSPECT_PROBE_RELOC_FUNC_H
#define PROSPECT_PROBE_RELOC_FUNC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/vec.h"

#define RELOC_UNLOCKED 0x3e         /* ds prefix: no effect in 64-bit mode */
#define RELOC_LOCKED 0xf0

/* A 32-bit RIP-relative displacement in the copy at `at`, its instruction ending at `end`,
 * that must reach `target`: an address of the program, or counter number `target` (the
 * increment's prefix byte is then at `at - 4`); with `abs`, 8 bytes at `at` that must hold
 * the program's address `target` (a return address a call of the copy pushes). */
struct reloc_fix {
    uint32_t at, end;
    bool counter, abs;
    uint64_t target;
};

/* A return site: the original's instruction after a call of the copy, where the callee
 * returns (the copy pushed the original's return address), and where a `jmp` back to the
 * copy's `copy` must go. Return addresses thus stay the original's: backtrace(), dladdr,
 * debuggers and exception tables see the program's own code. */
struct reloc_site {
    uint64_t addr;
    uint32_t copy;
    uint64_t hop;                    /* 0, or: fewer than 5 bytes are free at addr, a 2-byte
                                      * jmp goes to the 5-byte jmp at `hop` (free bytes of the
                                      * original: its calls' own, say) */
};
#define RELOC_SITE_LEN 5             /* bytes of the jmp written over a return site */
#define RELOC_HOP_LEN 2              /* jmp rel8 */

/* Where an instruction of the original went: its copy starts at `copy + pre`, after `pre`
 * bytes of counter (0, RELOC_FAST_LEN or RELOC_SLOW_LEN); the unwind table of the copy
 * (src/lines/inproc_cfi.c) gives each copied instruction its original's rules. */
struct reloc_place {
    uint64_t addr;
    uint32_t copy;
    uint8_t pre;
    bool pushed;                     /* a call made as push + jmp: rsp 8 lower from */
};                                   /* copy + pre + RELOC_PUSH_LEN to the jmp */
#define RELOC_PUSH_LEN 6             /* push disp32(%rip) */

/* The copies of several functions, one after the other. */
struct reloc_code {
    VEC(uint8_t) code;
    VEC(struct reloc_fix) fixes;
    VEC(struct reloc_place) places;   /* every instruction copied, in copy order */
    VEC(struct reloc_site) sites;
    size_t slow;                 /* counters wrapped in pushfq/popfq */
    bool calls;                  /* the last function relocated makes a call */
};

/* A counter that keeps the flags: lea -128(%rsp),%rsp (5 bytes); pushfq; incq (8); popfq;
 * lea 128(%rsp),%rsp (8). */
#define RELOC_FAST_LEN 8
#define RELOC_SLOW_LEN 23
#define RELOC_SLOW_PUSHED 6          /* offsets in it: rsp 128 lower from 5, 136 from 6, */
#define RELOC_SLOW_POPPED 15         /* 128 again from 15, as before from 23 */

struct reloc_counter {
    uint64_t addr;               /* before the instruction at this address */
    uint32_t index;
};

/* Appends the instrumented copy of the function's `n` bytes at `vaddr`, counting at `cnt`
 * (sorted by address). With `no_calls`, a function that makes a call is refused. *entry = the
 * copy's entry (offset in out->code). 0, -EINVAL with the reason in why, -ENOMEM, -ELIBACC
 * (no Zydis). On failure `out` is as before; reloc_code_truncate takes a success back. */
int reloc_function(struct reloc_code *out, const uint8_t *code, size_t n, uint64_t vaddr,
                   const struct reloc_counter *cnt, size_t ncnt, bool no_calls,
                   uint32_t *entry, char *why, size_t whylen);
/* Sizes of out, to take the functions relocated after it back. */
struct reloc_mark {
    size_t code, fixes, places, sites, slow;
};
struct reloc_mark reloc_code_mark(const struct reloc_code *rc);
void reloc_code_truncate(struct reloc_code *rc, struct reloc_mark m);
void reloc_code_release(struct reloc_code *rc);
#endif
