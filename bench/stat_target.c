/* SPDX-License-Identifier: MIT */
/* Benchmark target for bench_stat.sh: calls a region of a few instructions N times.
 *   stat_target N leaf       region_leaf(): first instruction a RIP-relative mov, which the
 *                            kernel must single-step out of line after the uprobe's int3
 *   stat_target N prologue   region_prologue(): a non-leaf function; gcc -O2 starts it
 *                            with the call (or a push), which the kernel emulates */
#include <stdlib.h>
#include <string.h>

volatile long sink, sink2;

__attribute__((noinline)) void region_leaf(long x)
{
    sink += x;
}

__attribute__((noinline)) void helper(long x)
{
    sink2 += x;
}

__attribute__((noinline)) void region_prologue(long x)
{
    helper(x);
    sink += x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (argc > 2 && !strcmp(argv[2], "prologue"))
        for (long i = 0; i < n; i++)
            region_prologue(i);
    else
        for (long i = 0; i < n; i++)
            region_leaf(i);
    return 0;
}
