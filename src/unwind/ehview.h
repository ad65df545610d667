/* SPDX-License-Identifier: MIT */
/* A view of a code file's .eh_frame and .eh_frame_hdr for libdw's dwarf_getcfi_elf: an ELF
 * image in memory whose section table lists just those two, the table first, over a guarded
 * read-only mapping of the file's bytes (mapguard.h).
 *  - elfutils 0.188 takes the binary search table only from an .eh_frame_hdr listed before
 *    .eh_frame; files that list it after (libLLVM-14) had every lookup scan .eh_frame.
 *  - libelf's ELF_C_READ copies a section whole into malloc'd memory; mapped, only the pages
 *    of the table and of the FDEs looked up are read in. */
#ifndef PROSPECT_UNWIND_EHVIEW_H
#define PROSPECT_UNWIND_EHVIEW_H
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

struct elf_file;

struct eh_view {
    void *base;       /* a page of headers, then the window of the file */
    size_t len;
    Elf *elf;         /* elf_memory of base */
    int guard;        /* mapguard slot */
};

/* 0, or -ENOENT when the file has no .eh_frame with bytes (or is not a 64-bit little-endian
 * file with section headers, or cannot be mapped): then libdw reads the file itself. */
int eh_view_open(const struct elf_file *ef, struct eh_view *v);
/* Did the file shrink under the mapping (its pages then read as zeros)? */
bool eh_view_damaged(const struct eh_view *v);
void eh_view_close(struct eh_view *v);
#endif
