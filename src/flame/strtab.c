/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flame/strtab.h"
#include "util/hash.h"

void strtab_init(struct strtab *t)
{
    memset(t, 0, sizeof(*t));
}

void strtab_release(struct strtab *t)
{
    free(t->arena);
    free(t->off);
    free(t->table);
    memset(t, 0, sizeof(*t));
}

static int grow_table(struct strtab *t)
{
    size_t cap = t->table_cap ? t->table_cap * 2 : 1024;
    uint32_t *tab = calloc(cap, sizeof(*tab));

    if (!tab)
        return -ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        const char *s = strtab_get(t, (uint32_t)i);
        size_t j = hash_bytes(s, strlen(s)) & (cap - 1);
        while (tab[j])
            j = (j + 1) & (cap - 1);
        tab[j] = (uint32_t)i + 1;
    }
    free(t->table);
    t->table = tab;
    t->table_cap = cap;
    return 0;
}

int strtab_intern(struct strtab *t, const char *s, uint32_t *idx)
{
    size_t len = strlen(s), j;

    if ((t->n + 1) * 2 > t->table_cap && grow_table(t))
        return -ENOMEM;
    for (j = hash_bytes(s, len) & (t->table_cap - 1); t->table[j];
         j = (j + 1) & (t->table_cap - 1)) {
        if (!strcmp(strtab_get(t, t->table[j] - 1), s)) {
            *idx = t->table[j] - 1;
            return 0;
        }
    }
    if (t->n >= UINT32_MAX - 1)
        return -ENOMEM;
    if (t->len + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + len + 1)
            cap *= 2;
        char *a = realloc(t->arena, cap);
        if (!a)
            return -ENOMEM;
        t->arena = a;
        t->cap = cap;
    }
    if (t->n == t->cap_off) {
        size_t cap = t->cap_off ? t->cap_off * 2 : 256;
        size_t *o = realloc(t->off, cap * sizeof(*o));
        if (!o)
            return -ENOMEM;
        t->off = o;
        t->cap_off = cap;
    }
    memcpy(t->arena + t->len, s, len + 1);
    t->off[t->n] = t->len;
    t->len += len + 1;
    t->table[j] = (uint32_t)++t->n;
    *idx = (uint32_t)t->n - 1;
    return 0;
}
