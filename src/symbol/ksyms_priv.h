/* SPDX-License-Identifier: MIT */
/* The parsed kallsyms table, shared by the text parser (ksyms.c) and its binary form
 * (ksyms_bin.c). */
#ifndef PROSPECT_SYMBOL_KSYMS_PRIV_H
#define PROSPECT_SYMBOL_KSYMS_PRIV_H
#include <stddef.h>
#include <stdint.h>

struct ksym {
    uint64_t addr;
    const char *name;
    const char *module;   /* NULL for the core kernel */
    uint32_t order;       /* line order, for a stable sort */
    char type;
};

struct ksyms {
    char *buf;            /* the names (and for a binary form, the whole file) */
    struct ksym *v;
    size_t n, bad;
    char **mods;          /* ksyms_load: the module names, each once */
    size_t nmods;
    /* A binary form (ksyms_bin.c) is used in place, mapped: v is NULL and these point into
     * the mapping. */
    void *map;
    size_t map_len;
    const uint64_t *addr;         /* sorted */
    const uint32_t *name_off, *mod, *mod_off;
    const char *blob;
};
/* Unmaps a binary form's mapping (ksyms_bin.c). */
void ksyms_bin_release(struct ksyms *ks);
#endif
