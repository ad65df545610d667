/* SPDX-License-Identifier: MIT */
/* Instruction-pointer hits: address -> (samples, period sum), with ordered iteration.
 *
 * Prospect's paper stored hits in a quaternary digital trie for ordered, sparse storage. Here an
 * open-addressing hash takes inserts at O(1) and is sorted once (radix sort) when the report
 * needs address order; symbolization is then one merge walk over sorted symbols. `make bench`
 * compares this with a Judy array (the trie's descendant): bytes per address, inserts/s. */
#ifndef PROSPECT_MODEL_HITSTORE_H
#define PROSPECT_MODEL_HITSTORE_H
#include <stddef.h>
#include <stdint.h>

struct hit {
    uint64_t addr;
    uint64_t samples;
    uint64_t period;
};

struct hitstore {
    struct hit *slots;    /* empty slot: samples == 0 */
    size_t cap, n;
};

void hitstore_init(struct hitstore *hs);
void hitstore_release(struct hitstore *hs);
/* Adds one sample of `period` at addr. 0 or -ENOMEM. */
int hitstore_add(struct hitstore *hs, uint64_t addr, uint64_t period);
/* Adds `samples` samples whose periods sum to `period` at addr. 0 or -ENOMEM. */
int hitstore_add_n(struct hitstore *hs, uint64_t addr, uint64_t samples, uint64_t period);
/* Adds every hit of src into dst. 0 or -ENOMEM (dst then holds part of src). */
int hitstore_merge(struct hitstore *dst, const struct hitstore *src);
size_t hitstore_count(const struct hitstore *hs);     /* distinct addresses */
/* A malloc'd array of the distinct hits in ascending address order (NULL and 0 if empty).
 * Returns the count, or -ENOMEM. */
long hitstore_sorted(const struct hitstore *hs, struct hit **out);
/* Sorts hits by address in place (LSD radix sort, 16 bits a pass; skips constant digits). */
int hits_sort(struct hit *hits, size_t n);
#endif
