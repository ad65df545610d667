/* SPDX-License-Identifier: MIT */
/* Kernel symbols from /proc/kallsyms (untrusted text): sorted, with module names. */
#ifndef PROSPECT_SYMBOL_KSYMS_H
#define PROSPECT_SYMBOL_KSYMS_H
#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Parses a kallsyms-format file. Lines that do not parse are counted (ksyms_bad_lines), not
 * fatal. All-zero addresses (kptr_restrict) give -EACCES so the caller can advise. */
int ksyms_load(const char *path, struct ksyms **out);
/* Same from text in memory: takes ownership of the malloc'd `text`, which must have room for
 * len + 1 bytes (it is parsed in place and becomes the name arena). */
int ksyms_parse(char *text, size_t len, struct ksyms **out);
void ksyms_free(struct ksyms *ks);
size_t ksyms_count(const struct ksyms *ks);
size_t ksyms_bad_lines(const struct ksyms *ks);

struct ksym_res {
    const char *name;     /* symbol name, NULL if the address is below the first symbol */
    const char *module;   /* "ext4" for module symbols, NULL for the core kernel */
    uint64_t start;
    uint64_t end;         /* the next symbol's address (the end of this one), 0 for the last */
};
/* A kernel symbol covers [its address, next symbol's address). */
int ksyms_resolve(const struct ksyms *ks, uint64_t addr, struct ksym_res *out);
/* Address of a symbol by name (first match), 0 if absent. A linear scan: for the odd lookup,
 * not per sample. */
uint64_t ksyms_lookup(const struct ksyms *ks, const char *name);
#endif
