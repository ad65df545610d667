/* SPDX-License-Identifier: MIT */
/* Function extents from a file's call-frame information: each function compiled with unwind
 * tables has an FDE in .eh_frame (or .debug_frame) giving its [start, end). A stripped file
 * keeps them, so they bound the functions no symbol names (symtab.c's bracket parts,
 * annotate's listings of symbol-less code). */
#ifndef PROSPECT_SYMBOL_ELF_FDE_H
#define PROSPECT_SYMBOL_ELF_FDE_H
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct elf_fde {
    uint64_t lo, hi;        /* [lo, hi): one FDE's code, ELF virtual addresses */
};

/* Every FDE of e's .eh_frame and .debug_frame, sorted by lo, duplicates dropped, in a
 * malloc'd array (NULL when none). Unreadable entries are skipped. 0 or -ENOMEM. */
int elf_read_fdes(Elf *e, struct elf_fde **out, size_t *n);
#endif
