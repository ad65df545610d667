/* prospect lines at -O2 against gcov: the fib (a recursive call gcc turns into a loop)
 * and the collatz loop (a branch gcc may turn into a cmov, a loop whose test it rotates). */
#include <stdio.h>
#include <stdlib.h>

static long fib(long n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

static long collatz(long n)
{
    long steps = 0;
    while (n != 1) {
        if (n % 2 == 0)
            n = n / 2;
        else
            n = 3 * n + 1;
        steps++;
    }
    return steps;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 25, total = 0;
    for (long i = 1; i < 3000; i++)
        total += collatz(i);
    printf("fib(%ld)=%ld collatz %ld\n", n, fib(n), total);
    return 0;
}
/* SPDX-License-Identifier: MIT */
