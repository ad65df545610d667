// An IFUNC of the program itself: add() resolves to add_fast() when the program loads; main
// calls it 1000 times.
#include <stdio.h>

static long add_fast(long x)
{
    return x + 1;
}

static long (*pick(void))(long)
{
    return add_fast;
}

long add(long x) __attribute__((ifunc("pick")));

int main(void)
{
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += add(i);
    printf("%ld\n", s);
    return 0;
}
/* SPDX-License-Identifier: MIT */
