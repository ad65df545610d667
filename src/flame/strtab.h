/* SPDX-License-Identifier: MIT */
/* Interned strings numbered in order of first appearance (pprof's string table, speedscope's
 * frame list, flame graph frame names): each distinct string stored once. */
#ifndef PROSPECT_FLAME_STRTAB_H
#define PROSPECT_FLAME_STRTAB_H
#include <stddef.h>
#include <stdint.h>

struct strtab {
    char *arena;              /* the strings, NUL-terminated, back to back */
    size_t len, cap;
    size_t *off;              /* string i starts at arena + off[i] */
    size_t n, cap_off;
    uint32_t *table;          /* open addressing: index + 1, 0 empty */
    size_t table_cap;
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);
/* The index of s, added when new. 0 or -ENOMEM. */
int strtab_intern(struct strtab *t, const char *s, uint32_t *idx);
static inline const char *strtab_get(const struct strtab *t, uint32_t i)
{
    return t->arena + t->off[i];
}
#endif
