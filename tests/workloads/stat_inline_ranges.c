/* checked_sum() is inlined into main twice (at -O2 -g) with a cold error path that gcc moves
 * to main.cold: each inlined instance then has DW_AT_ranges (several fragments), not just
 * low_pc/high_pc. Called 5 times in all: 3 + 2. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, cold)) void report_negative(long i)
{
    fprintf(stderr, "negative value at %ld\n", i);
    exit(3);
}

static inline __attribute__((always_inline)) long checked_sum(const long *a, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (__builtin_expect(a[i] < 0, 0))
            report_negative(i);
        s += a[i];
    }
    return s;
}

int main(int argc, char **argv)
{
    long v[64], total = 0;
    for (int i = 0; i < 64; i++)
        v[i] = i + argc;
    for (int r = 0; r < 3; r++)
        total += checked_sum(v, 64);
    if (argc > 0)
        v[0] = argc;
    for (int r = 0; r < 2; r++)
        total += checked_sum(v + 1, 63);
    printf("%ld\n", total);
    return argv[0] == NULL;
}
/* SPDX-License-Identifier: MIT */
