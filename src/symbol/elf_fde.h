/* SPDX-License-Identifier: MIT */
/* Function extents from a file's call-frame information: each function compiled with unwind
 * tables has an FDE in .eh_frame (or .debug_frame) giving its [start, end). A stripped file
 * keeps them, so they bound the functions no symbol names (symtab.c's bracket parts,
 * annotate's listings of symbol-less code). */
#ifndef PROSPECT_SYMBOL_ELF_FDE_H
#define PROSPECT_SYMBOL_ELF_FDE_H
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_fde {
    uint64_t lo, hi;        /* [lo, hi): one FDE's code, ELF virtual addresses */
    /* .eh_frame: an FDE whose CIE says it names an LSDA (the function's exception table:
     * landing pads) and whose pointer is not null. lsda: its address, 0 when unreadable;
     * pers: the CIE's personality routine, or with pers_ind (DW_EH_PE_indirect) the address
     * of a pointer to it. */
    bool has_lsda;
    uint8_t pers_ind;
    uint64_t lsda, pers;
};

/* Every FDE of e's .eh_frame and .debug_frame, sorted by lo, duplicates dropped (the one
 * naming an LSDA kept), in a malloc'd array (NULL when none). Unreadable entries are skipped.
 * 0 or -ENOMEM. */
int elf_read_fdes(Elf *e, struct elf_fde **out, size_t *n);
#endif
