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
 * so the original function's unwind rules hold in the copy; but return addresses pushed by
 * the copy's calls point into the copy, which no unwind table describes: the caller refuses
 * functions with calls where unwinding through them must work (C++ exceptions).
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
 * increment's prefix byte is then at `at - 4`). */
struct reloc_fix {
    uint32_t at, end;
    bool counter;
    uint64_t target;
};

/* The copies of several functions, one after the other. */
struct reloc_code {
    VEC(uint8_t) code;
    VEC(struct reloc_fix) fixes;
    size_t slow;                 /* counters wrapped in pushfq/popfq */
};

struct reloc_counter {
    uint64_t addr;               /* before the instruction at this address */
    uint32_t index;
};

/* Appends the instrumented copy of the function's `n` bytes at `vaddr`, counting at `cnt`
 * (sorted by address). With `no_calls`, a function that makes a call is refused. *entry = the
 * copy's entry (offset in out->code). 0, -EINVAL with the reason in why, -ENOMEM, -ELIBACC
 * (no Zydis). On failure `out` is as before. */
int reloc_function(struct reloc_code *out, const uint8_t *code, size_t n, uint64_t vaddr,
                   const struct reloc_counter *cnt, size_t ncnt, bool no_calls,
                   uint32_t *entry, char *why, size_t whylen);
void reloc_code_release(struct reloc_code *rc);
#endif
