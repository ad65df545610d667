/* SPDX-License-Identifier: MIT */
/* Hit storage measured: Prospect's open-addressing hit store (sorted once by radix sort) and a
 * JudyL array (ordered by construction), on the same address stream: a skewed mix of user and
 * kernel addresses as a system-wide profile produces. Prints inserts/s, bytes per distinct
 * address and the time to visit every address in order. */
#include <Judy.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "model/hitstore.h"
#include "util/hash.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    const size_t n = 10 * 1000 * 1000, distinct = 200000;
    uint64_t *addrs = malloc(n * sizeof(*addrs)), sum = 0;
    struct hitstore hs;
    struct hit *sorted;
    Pvoid_t judy = NULL;
    double t0, t_hs_ins, t_hs_walk, t_j_ins, t_j_walk;
    Word_t idx, mem;
    PWord_t pv;

    /* Skewed: a few hot addresses take most samples (as real profiles do). */
    for (size_t i = 0; i < n; i++) {
        uint64_t r = hash_u64(i), k = (r % distinct) * (r % distinct) / distinct;
        uint64_t base = k % 3 == 0 ? 0xffffffff81000000ULL : k % 3 == 1 ? 0x555555554000ULL
                                                                          : 0x7f0000000000ULL;
        addrs[i] = base + k * 7;
    }
    hitstore_init(&hs);
    t0 = now();
    for (size_t i = 0; i < n; i++)
        hitstore_add(&hs, addrs[i], 1);
    t_hs_ins = now() - t0;
    t0 = now();
    long cnt = hitstore_sorted(&hs, &sorted);
    for (long i = 0; i < cnt; i++)
        sum += sorted[i].samples;
    t_hs_walk = now() - t0;

    t0 = now();
    for (size_t i = 0; i < n; i++) {
        JLI(pv, judy, addrs[i]);
        (*pv)++;
    }
    t_j_ins = now() - t0;
    t0 = now();
    idx = 0;
    uint64_t jsum = 0;
    JLF(pv, judy, idx);
    while (pv) {
        jsum += *pv;
        JLN(pv, judy, idx);
    }
    t_j_walk = now() - t0;
    JLMU(mem, judy);

    printf("hit storage: %zu samples over %ld distinct addresses (sums %llu / %llu)\n", n, cnt,
           (unsigned long long)sum, (unsigned long long)jsum);
    printf("  %-28s %14s %14s %8s\n", "", "hitstore", "JudyL", "ratio");
    printf("  %-28s %14.1f %14.1f %8.2f\n", "inserts (M/s)", n / t_hs_ins / 1e6, n / t_j_ins / 1e6,
           (n / t_hs_ins) / (n / t_j_ins));
    printf("  %-28s %14.1f %14.1f %8.2f\n", "bytes per distinct address",
           (double)hs.cap * sizeof(struct hit) / (double)cnt, (double)mem / (double)cnt,
           ((double)hs.cap * sizeof(struct hit)) / (double)mem);
    printf("  %-28s %14.2f %14.2f %8.2f\n", "ordered walk (ms)", t_hs_walk * 1e3, t_j_walk * 1e3,
           t_hs_walk / t_j_walk);
    printf("  (hitstore keeps samples and period: 24 bytes a slot; JudyL here keeps a count only)\n");
    free(sorted);
    hitstore_release(&hs);
    JudyLFreeArray(&judy, PJE0);
    free(addrs);
    return 0;
}
