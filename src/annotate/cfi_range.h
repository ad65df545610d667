/* SPDX-License-Identifier: MIT */
/* Function extents of code no symbol covers (a program stripped of every symbol, as Debian's
 * gzip), from the file's call-frame information: each function compiled with unwind tables
 * has an .eh_frame FDE giving its [start, end) (symbol/elf_fde.h). */
#ifndef PROSPECT_ANNOTATE_CFI_RANGE_H
#define PROSPECT_ANNOTATE_CFI_RANGE_H
#include <stddef.h>
#include <stdint.h>
#include "symbol/elf_fde.h"
#include "util/vec.h"

struct dso;

struct ann_cfi_entry {
    struct dso *dso;
    struct elf_fde *fdes;       /* sorted by lo; none: no .eh_frame (or unreadable) */
    size_t nfdes;
};

struct ann_cfi_cache {
    VEC(struct ann_cfi_entry) v;
};

/* The FDE range holding the ELF virtual address addr of dso's file: 0, -ENOENT (no CFI there,
 * or the file is unreadable), -ENOMEM. */
int ann_cfi_range(struct ann_cfi_cache *c, struct dso *dso, uint64_t addr, uint64_t *lo,
                  uint64_t *hi);
void ann_cfi_cache_release(struct ann_cfi_cache *c);
#endif
