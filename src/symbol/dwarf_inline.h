/* SPDX-License-Identifier: MIT */
/* Inlined copies of a function, from DWARF DW_TAG_inlined_subroutine entries (libdw). */
#ifndef PROSPECT_SYMBOL_DWARF_INLINE_H
#define PROSPECT_SYMBOL_DWARF_INLINE_H
#include <stddef.h>
#include <stdint.h>

struct addr_range {
    uint64_t lo, hi;            /* [lo, hi) ELF virtual addresses */
};

struct inline_site {
    uint64_t entry;             /* DW_AT_entry_pc, else the start of the first range listed */
    struct addr_range *ranges;  /* DW_AT_low_pc/high_pc, or every DW_AT_ranges entry */
    size_t nr_ranges;
    char *call_file;            /* DW_AT_call_file (may be NULL) */
    unsigned call_line;
    char *caller;               /* the function it was inlined into (may be NULL) */
};

/* Every inlined instance of the function named `name` (DW_AT_name or DW_AT_linkage_name of
 * its abstract origin). Returns the count (0 if none) with *out malloc'd, or -ENODATA when
 * the file has no DWARF, -errno when it cannot be read. */
long dwarf_inline_sites(const char *elf_path, const char *name, struct inline_site **out);
void inline_sites_free(struct inline_site *sites, size_t n);
#endif
