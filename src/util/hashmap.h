/* SPDX-License-Identifier: MIT */
/* u64 -> pointer map with open addressing (tids -> threads, pids -> processes). */
#ifndef PROSPECT_UTIL_HASHMAP_H
#define PROSPECT_UTIL_HASHMAP_H
#include <stddef.h>
#include <stdint.h>

struct hashmap {
    uint64_t *keys;
    void **vals;          /* NULL marks an empty slot: values must be non-NULL */
    size_t cap, n;
};

void hashmap_init(struct hashmap *m);
void hashmap_release(struct hashmap *m);
void *hashmap_get(const struct hashmap *m, uint64_t key);
/* Inserts or replaces. 0 or -ENOMEM. */
int hashmap_put(struct hashmap *m, uint64_t key, void *val);
/* Removes key if present. */
void hashmap_del(struct hashmap *m, uint64_t key);
#endif
