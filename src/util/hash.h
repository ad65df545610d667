/* SPDX-License-Identifier: MIT */
/* Small, fast hashes for open-addressing tables. */
#ifndef PROSPECT_UTIL_HASH_H
#define PROSPECT_UTIL_HASH_H
#include <stddef.h>
#include <stdint.h>

/* Finalizer of splitmix64: every input bit affects every output bit. */
static inline uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* FNV-1a over bytes. */
static inline uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    while (n--)
        h = (h ^ *b++) * 0x100000001b3ULL;
    return h;
}
#endif
