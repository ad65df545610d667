/* Hot code inlined (built -O2 -g -fno-omit-frame-pointer): main -> outer (a real function) ->
 * middle -> inner, both always inlined into outer, the loop in inner. Without inline frames
 * every sample is in outer; with them, in inner inlined in middle inlined in outer.
 * usage: cg_inline ROUNDS */
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) void inner(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i ^ (i >> 3);
}

static inline __attribute__((always_inline)) void middle(unsigned long n)
{
    inner(n);
    sink++;
}

__attribute__((noinline)) static void outer(unsigned long n)
{
    middle(n);
    sink++;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 100;
    for (long r = 0; r < rounds; r++)
        outer(1000000);
    return 0;
}
/* SPDX-License-Identifier: MIT */
