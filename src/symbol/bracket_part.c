/* SPDX-License-Identifier: MIT */
/* A stripped DSO's brackets split at its FDE starts: the code between two exported symbols is
 * most often many local functions, and each one's unwind-table entry bounds it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/elf_fde.h"
#include "symbol/symtab.h"

int symtab_read_parts(struct symtab *t, Elf *e)
{
    struct elf_fde *f;
    size_t n;
    int err = elf_read_fdes(e, &f, &n);

    if (err || !n)
        return err;
    /* The starts only, in place: lo is ascending and unique. */
    uint64_t *starts = (uint64_t *)f;
    for (size_t i = 0; i < n; i++)
        starts[i] = f[i].lo;
    uint64_t *shrunk = realloc(starts, n * sizeof(*starts));
    t->parts = shrunk ? shrunk : starts;
    t->nparts = n;
    return 0;
}

/* Index of the first part start >= addr. */
static size_t first_at_or_above(const struct symtab *t, uint64_t addr)
{
    size_t lo = 0, hi = t->nparts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->parts[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The interned "gap+0xOFF" of the part starting at start. */
static const char *part_name(struct symtab *t, const char *gap, uint64_t start, uint64_t base)
{
    char *name = hashmap_get(&t->part_names, start);

    if (name)
        return name;
    if (asprintf(&name, "%s+%#" PRIx64, gap, start - base) < 0)
        return NULL;
    if (hashmap_put(&t->part_names, start, name)) {
        free(name);
        return NULL;
    }
    return name;
}

int symtab_bracket_part(struct symtab *t, long idx, uint64_t addr, struct symres *out)
{
    uint64_t lo = idx >= 0 ? t->syms[idx].start + t->syms[idx].size : 0;
    uint64_t hi = (size_t)(idx + 1) < t->n ? t->syms[idx + 1].start : UINT64_MAX;
    uint64_t base = idx >= 0 ? t->syms[idx].start : 0, start = lo, end = hi;
    const struct symres *c = &t->last_part;
    size_t first, k;
    const char *name;

    if (c->name && t->last_part_idx == idx && addr >= c->gap_start &&
        (!c->gap_end || addr < c->gap_end)) {
        *out = *c;
        return 0;
    }
    first = first_at_or_above(t, lo);
    /* Whole when the gap holds fewer than two functions: the first FDE's part takes the
     * padding before it. */
    if (first + 1 >= t->nparts || t->parts[first + 1] >= hi)
        return 0;
    k = first_at_or_above(t, addr + 1);
    if (k > first + 1)              /* parts[k - 1] <= addr: a later function's part */
        start = t->parts[k - 1];
    else
        k = first + 1;
    if (k < t->nparts && t->parts[k] < hi)
        end = t->parts[k];
    if (!(name = part_name(t, out->name, start, base)))
        return -ENOMEM;
    out->name = name;
    out->start = start;
    out->gap_start = start;
    out->gap_end = end == UINT64_MAX ? 0 : end;
    t->last_part = *out;
    t->last_part_idx = idx;
    return 0;
}

void symtab_release_parts(struct symtab *t)
{
    for (size_t i = 0; i < t->part_names.cap; i++)
        if (t->part_names.vals && t->part_names.vals[i])
            free(t->part_names.vals[i]);
    hashmap_release(&t->part_names);
    free(t->parts);
    t->parts = NULL;
    t->nparts = 0;
}
