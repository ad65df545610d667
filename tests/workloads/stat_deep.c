/* Recursion deeper than the kernel's uretprobe nesting limit (64): deep(100) makes 101 calls. */
#include <stdlib.h>

__attribute__((noinline)) long deep(long n)
{
    long r;
    if (n == 0)
        return 0;
    r = deep(n - 1) + 1;
    __asm__ volatile("" : "+r"(r));   /* keeps the call from becoming a loop */
    return r;
}

int main(int argc, char **argv)
{
    return (int)(deep(argc > 1 ? atol(argv[1]) : 100) & 1) ^ 1;
}
/* SPDX-License-Identifier: MIT */
