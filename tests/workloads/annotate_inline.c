/* Two levels of inlining for prospect annotate's inline chains: leaf() inlined into mid(),
 * mid() into top(). argv[1] scales the work. */
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long leaf(unsigned long x)
{
    return x * 2654435761u ^ (x >> 3);
}

static inline __attribute__((always_inline)) unsigned long mid(unsigned long x)
{
    return leaf(x) + leaf(x + 1);
}

__attribute__((noinline)) unsigned long top(unsigned long n)
{
    unsigned long h = 0;
    for (unsigned long i = 0; i < n; i++)
        h += mid(h + i);
    return h;
}

int main(int argc, char **argv)
{
    sink = top(argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000);
    return 0;
}
/* SPDX-License-Identifier: MIT */
