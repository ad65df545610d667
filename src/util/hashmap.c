/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include "util/hash.h"
#include "util/hashmap.h"

void hashmap_init(struct hashmap *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}

void hashmap_release(struct hashmap *m)
{
    free(m->keys);
    free(m->vals);
    hashmap_init(m);
}

static size_t slot_of(const struct hashmap *m, uint64_t key)
{
    size_t i = hash_u64(key) & (m->cap - 1);
    while (m->vals[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

void *hashmap_get(const struct hashmap *m, uint64_t key)
{
    return m->cap ? m->vals[slot_of(m, key)] : NULL;
}

static int grow(struct hashmap *m)
{
    struct hashmap nm;
    nm.cap = m->cap ? m->cap * 2 : 64;
    nm.n = 0;
    nm.keys = calloc(nm.cap, sizeof(*nm.keys));
    nm.vals = calloc(nm.cap, sizeof(*nm.vals));
    if (!nm.keys || !nm.vals) {
        free(nm.keys);
        free(nm.vals);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i]) {
            size_t j = slot_of(&nm, m->keys[i]);
            nm.keys[j] = m->keys[i];
            nm.vals[j] = m->vals[i];
            nm.n++;
        }
    }
    hashmap_release(m);
    *m = nm;
    return 0;
}

int hashmap_put(struct hashmap *m, uint64_t key, void *val)
{
    size_t i;
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
        return -ENOMEM;
    i = slot_of(m, key);
    if (!m->vals[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void hashmap_del(struct hashmap *m, uint64_t key)
{
    size_t i, j;
    if (!m->cap)
        return;
    i = slot_of(m, key);
    if (!m->vals[i])
        return;
    m->vals[i] = NULL;
    m->n--;
    /* Backward-shift deletion keeps probe chains intact without tombstones. */
    for (j = (i + 1) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1)) {
        size_t home = hash_u64(m->keys[j]) & (m->cap - 1);
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->vals[j] = NULL;
            i = j;
        }
    }
}
