/* A hot loop with a division, for `prospect annotate` against `perf annotate`: divide() spends
 * its time on one `div` (whose samples skid onto the next instruction on this VM), mix() on
 * cheap arithmetic (inlined from mix_step), so two symbols have hits. argv[1] scales the work. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long divide(unsigned long n, unsigned long d)
{
    unsigned long acc = 0;
    for (unsigned long i = 1; i <= n; i++)
        acc += (i * 7 + acc) / (d + (i & 7));
    return acc;
}

/* Inlined into mix(): its instructions carry its name in the listing. */
static inline __attribute__((always_inline)) unsigned long mix_step(unsigned long h,
                                                                   unsigned long i)
{
    return (h ^ i) * 0x9e3779b97f4a7c15ul + (h >> 7);
}

__attribute__((noinline)) unsigned long mix(unsigned long n)
{
    unsigned long h = 0;
    for (unsigned long i = 0; i < n; i++)
        h = mix_step(h, i);
    return h;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000;
    sink = divide(n, 3);
    sink += mix(n);
    return 0;
}
/* SPDX-License-Identifier: MIT */
