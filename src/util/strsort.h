/* Sorting many strings that share long prefixes (folded stacks: "comm;main;..."): multikey
 * quicksort (Bentley & Sedgewick) looks at each character of a shared prefix a few times,
 * where qsort's strcmp reads the whole prefix on every comparison. */
#ifndef PROSPECT_UTIL_STRSORT_H
#define PROSPECT_UTIL_STRSORT_H
#include <stddef.h>
#include <stdint.h>

struct strsort_item {
    const char *s;            /* NUL-terminated, no NUL inside */
    size_t len;
    uint64_t val;             /* the caller's, carried along */
};

/* Sorts v in strcmp's order (unsigned bytes); equal strings end up adjacent, in no set order. */
void strsort(struct strsort_item *v, size_t n);
#endif
