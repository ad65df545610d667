/* SPDX-License-Identifier: MIT */
/* Sorting many sequences of numbers that share long prefixes (folded stacks as ranks of their
 * frames: "comm;main;..." all start alike): multikey quicksort (Bentley & Sedgewick) looks at
 * each element of a shared prefix a few times, where qsort's comparisons read the whole prefix
 * on every one. */
#ifndef PROSPECT_UTIL_SEQSORT_H
#define PROSPECT_UTIL_SEQSORT_H
#include <stddef.h>
#include <stdint.h>

struct seqsort_item {
    uint32_t *seq;            /* elements from 1 (0 is kept for the end) */
    uint32_t n;
    uint64_t val;             /* the caller's, carried along */
};

/* Sorts v lexicographically (a sequence before its extensions); equal sequences end up
 * adjacent, in no set order. */
void seqsort(struct seqsort_item *v, size_t n);
#endif
