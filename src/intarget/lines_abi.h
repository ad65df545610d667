/* SPDX-License-Identifier: MIT */
/* The in-process counting plan of `prospect lines` (docs/lines.md, "Counting"): written by
 * Prospect (src/lines/inproc.c), applied inside the program by its hook (lines_hook.c).
 *
 * The plan directory holds:
 *   reloc     struct lines_abi_head, then code_size bytes of instrumented function copies
 *             (and their unwind table: a CIE, FDEs, a zero word, registered with the
 *             program's unwinder by __register_frame), nfix struct lines_abi_fix, nfunc
 *             struct lines_abi_func;
 *   code      the same code bytes alone, page-padded: mapped executable by the hook, so that
 *             Prospect sees (an mmap record) which process images carry the copies;
 *   counters  a page whose first 64-bit word is the next free slot, then nslots slots of
 *             ncounters 64-bit counters (each page-padded), mapped shared: each image of the
 *             program claims a slot; its threads and forked children add into it (with
 *             `lock`), Prospect sums the slots after the command ended;
 *   log       the hook's lines "<pid> ok <n>" or "<pid> fail <reason>". */
#ifndef PROSPECT_INJECT_LINES_ABI_H
#define PROSPECT_INJECT_LINES_ABI_H
#include <stdint.h>

#define LINES_ABI_MAGIC 0x31636c70u     /* "plc1" */
#define LINES_ABI_CHECK 16              /* bytes of a function's entry the hook compares */

struct lines_abi_head {
    uint32_t magic, nfix, nfunc;
    uint32_t eh_frame;                  /* code offset of the copies' .eh_frame, 0: none */
    uint64_t dev, ino;                  /* the program (st_dev, st_ino) */
    uint64_t code_size;                 /* bytes of code (the code file is page-padded) */
    uint64_t ncounters;
    uint64_t nslots;                    /* an image finding none left shares the last one */
    uint64_t flags;
};
/* Without the copies' unwind table registered, patch nothing (C++ copies that call). */
#define LINES_ABI_NEED_UNWIND 1
/* `lock incq` from the start: the program may start threads the hook does not see (clone). */
#define LINES_ABI_LOCK_ALWAYS 2

enum { LINES_FIX_PROGRAM = 0, LINES_FIX_COUNTER = 1, LINES_FIX_ADDRESS = 2 };

/* A 32-bit RIP-relative displacement at code offset `at` (its instruction ends at `end`)
 * that must reach `target`: an ELF address of the program, or counter number `target`. A
 * counter's increment is `ds incq` (LINES_ABI_UNLOCKED at `at - 4`) while its image is one
 * thread of one process, `lock incq` (LINES_ABI_LOCKED) from its first thread or fork on.
 * LINES_FIX_ADDRESS: the 8 bytes at `at` (== end) hold the program's address `target` (a
 * return address the copy pushes). */
#define LINES_ABI_UNLOCKED 0x3e
#define LINES_ABI_LOCKED 0xf0
struct lines_abi_fix {
    uint32_t at, end;
    uint32_t kind, pad;
    uint64_t target;
};

/* A function whose entry becomes `jmp copy`: its ELF address, its copy's code offset and its
 * first bytes as in the file (the hook checks them before patching). A function's return
 * sites (the instructions after its calls, where callees return) come after it, len 5. */
struct lines_abi_func {
    uint64_t vaddr;
    uint32_t copy, len;                 /* len: bytes of `bytes` to compare (>= 5) */
    uint8_t bytes[LINES_ABI_CHECK];
    uint64_t hop;                       /* not 0: a 2-byte `jmp` to this ELF address instead
                                         * (len 2), where a return site's jmp to the copy is */
};
#endif
