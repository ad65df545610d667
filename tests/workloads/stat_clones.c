// gcc -O2 clones for `prospect stat -r NAME`. busy() reads one field of the struct it is passed
// by pointer and its address is never taken, so IPA-SRA passes that field instead and emits
// only busy.isra.0; scale() is always called with the constant 7, so IPA-CP emits only
// scale.constprop.0. Each runs 1000 times. tally and its copy tally.constprop.0 run 500 times
// each: 1000 calls of tally in all.
#include <stdio.h>
#include <stdlib.h>

struct job {
    long n, pad[7];
};

static __attribute__((noinline)) long busy(const struct job *j)
{
    long s = 0;
    for (long i = 0; i < j->n; i++)
        s += i ^ (s >> 3);
    return s;
}

static __attribute__((noinline)) long scale(long x, long k)
{
    long s = 0;
    for (long i = 0; i < x; i++)
        s += (i * k) ^ (s >> 2);
    return s;
}

/* A function and its copy under the name gcc would give it, deterministically (gcc's own
 * choice to clone a function that keeps its original depends on its heuristics). */
static __attribute__((noinline)) long tally(long x)
{
    return x * 3 + (x >> 2);
}

static long tally_copy(long x) __asm__("tally.constprop.0");
static __attribute__((noinline)) long tally_copy(long x)
{
    return x * 5 + (x >> 3);
}

int main(int argc, char **argv)
{
    struct job j = { .n = argc > 1 ? atol(argv[1]) : 100 };
    long sum = 0;
    for (long i = 0; i < 1000; i++) {
        j.n += i & 1;
        sum += busy(&j) + scale(j.n + (i & 3), 7);
        sum += i & 1 ? tally(i) : tally_copy(i);
    }
    printf("%ld\n", sum);
    return 0;
}
/* SPDX-License-Identifier: MIT */
