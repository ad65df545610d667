/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/hitstore.h"
#include "util/hash.h"

void hitstore_init(struct hitstore *hs)
{
    hs->slots = NULL;
    hs->cap = hs->n = 0;
}

void hitstore_release(struct hitstore *hs)
{
    free(hs->slots);
    hitstore_init(hs);
}

static struct hit *find_slot(struct hit *slots, size_t cap, uint64_t addr)
{
    size_t i = hash_u64(addr) & (cap - 1);
    while (slots[i].samples && slots[i].addr != addr)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(struct hitstore *hs)
{
    size_t ncap = hs->cap ? hs->cap * 2 : 16;   /* most maps of short processes take few hits */
    struct hit *ns = calloc(ncap, sizeof(*ns));
    if (!ns)
        return -ENOMEM;
    for (size_t i = 0; i < hs->cap; i++)
        if (hs->slots[i].samples)
            *find_slot(ns, ncap, hs->slots[i].addr) = hs->slots[i];
    free(hs->slots);
    hs->slots = ns;
    hs->cap = ncap;
    return 0;
}

int hitstore_add_n(struct hitstore *hs, uint64_t addr, uint64_t samples, uint64_t period)
{
    struct hit *h;
    if ((hs->n + 1) * 10 > hs->cap * 7 && grow(hs))
        return -ENOMEM;
    h = find_slot(hs->slots, hs->cap, addr);
    if (!h->samples) {
        h->addr = addr;
        hs->n++;
    }
    h->samples += samples;
    h->period += period;
    return 0;
}

int hitstore_add(struct hitstore *hs, uint64_t addr, uint64_t period)
{
    return hitstore_add_n(hs, addr, 1, period);
}

int hitstore_merge(struct hitstore *dst, const struct hitstore *src)
{
    for (size_t i = 0; i < src->cap; i++) {
        const struct hit *h = &src->slots[i];
        int err = h->samples ? hitstore_add_n(dst, h->addr, h->samples, h->period) : 0;
        if (err)
            return err;
    }
    return 0;
}

size_t hitstore_count(const struct hitstore *hs)
{
    return hs->n;
}

static int cmp_hit(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int hits_sort(struct hit *hits, size_t n)
{
    struct hit *tmp;
    size_t *count;
    uint64_t all_or = 0, all_and = ~0ULL;

    if (n < 2)
        return 0;
    if (n < 4096) {     /* the bucket array would cost more than the sort */
        qsort(hits, n, sizeof(*hits), cmp_hit);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        all_or |= hits[i].addr;
        all_and &= hits[i].addr;
    }
    tmp = malloc(n * sizeof(*tmp));
    count = malloc(65536 * sizeof(*count));
    if (!tmp || !count) {
        free(tmp);
        free(count);
        return -ENOMEM;
    }
    for (int shift = 0; shift < 64; shift += 16) {
        /* A digit that is the same in every key cannot reorder anything. */
        if ((((all_or ^ all_and) >> shift) & 0xffff) == 0)
            continue;
        memset(count, 0, 65536 * sizeof(*count));
        for (size_t i = 0; i < n; i++)
            count[(hits[i].addr >> shift) & 0xffff]++;
        for (size_t i = 0, sum = 0; i < 65536; i++) {
            size_t c = count[i];
            count[i] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(hits[i].addr >> shift) & 0xffff]++] = hits[i];
        memcpy(hits, tmp, n * sizeof(*hits));
    }
    free(count);
    free(tmp);
    return 0;
}

long hitstore_sorted(const struct hitstore *hs, struct hit **out)
{
    struct hit *arr;
    size_t k = 0;

    *out = NULL;
    if (!hs->n)
        return 0;
    arr = malloc(hs->n * sizeof(*arr));
    if (!arr)
        return -ENOMEM;
    for (size_t i = 0; i < hs->cap; i++)
        if (hs->slots[i].samples)
            arr[k++] = hs->slots[i];
    if (hits_sort(arr, k)) {
        free(arr);
        return -ENOMEM;
    }
    *out = arr;
    return (long)k;
}
