/* SPDX-License-Identifier: MIT */
/* Code address -> source position for `prospect annotate`, from the DWARF line table and the
 * inline scopes (libdw). One handle per ELF file with DWARF, opened once per listing. */
#ifndef PROSPECT_ANNOTATE_SRCLINE_H
#define PROSPECT_ANNOTATE_SRCLINE_H
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "util/vec.h"

struct ann_src;
struct dso;

struct ann_srcpos {
    const char *file;       /* source path as the compiler wrote it (owned by the handle) */
    unsigned line;          /* 0: unknown */
    const char *inlined;    /* innermost function inlined at this address, or NULL */
};

/* Opens the DWARF of elf_path. 0, -ENODATA (no DWARF), -ENOMEM or -errno (unreadable). */
int ann_src_open(const char *elf_path, struct ann_src **out);
void ann_src_close(struct ann_src *s);
/* Prepares the lookups of one function (the one containing lo): its inlined subroutines, read
 * once. 0, -ENOENT (no function DIE there: no inlined names) or -ENOMEM. */
int ann_src_function(struct ann_src *s, uint64_t lo);
/* The line-table row covering addr (the last row at or below it in its compilation unit) and
 * the innermost inlined subroutine there (of the function last prepared). 0, or -ENOENT when
 * no unit covers addr. */
int ann_src_lookup(struct ann_src *s, uint64_t addr, struct ann_srcpos *pos);
/* Whether a compilation unit covers addr (its DWARF knows the address, with or without a
 * line for it). */
bool ann_src_covers(struct ann_src *s, uint64_t addr);

/* The inlined subroutines around addr in the function last prepared, innermost first (at most
 * max names, owned by the handle): names[0] is ann_src_lookup's `inlined`, names[1] the
 * function it was inlined into when that was inlined too, and so on. Returns the count. */
size_t ann_src_inline_chain(const struct ann_src *s, uint64_t addr, const char **names,
                            size_t max);

/* Each DSO's DWARF, opened on first use and kept: decompressing a large debug file's sections
 * (libc's) cost more than every listing of a profile when it was opened per function. */
struct ann_src_cache {
    VEC(struct ann_src_entry { struct dso *dso; struct ann_src *src; }) v;
};
/* The DSO's DWARF (its own or its separate debug file), or NULL when it has none. */
struct ann_src *ann_src_cache_get(struct ann_src_cache *c, struct dso *dso);
void ann_src_cache_release(struct ann_src_cache *c);
#endif
