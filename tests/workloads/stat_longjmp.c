/* leave(i) is left by siglongjmp (from the function it calls) for every odd i, and returns for
 * every even i; main calls it N times (argv[1], default 20) and prints the sum. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static sigjmp_buf jb;
volatile long sink;

__attribute__((noinline)) void bail_out(long x)
{
    sink += x;
    if (x & 1)
        siglongjmp(jb, 1);
}

__attribute__((noinline)) long leave(long x)
{
    bail_out(x);
    return sink + 1;
}

int main(int argc, char **argv)
{
    volatile long n = argc > 1 ? atol(argv[1]) : 20, i = 0, s = 0, jumped = 0;
    if (sigsetjmp(jb, 1))
        jumped++;
    while (i < n) {
        long x = i++;
        s += leave(x);
    }
    printf("%ld %ld\n", s, jumped);
    return 0;
}
/* SPDX-License-Identifier: MIT */
