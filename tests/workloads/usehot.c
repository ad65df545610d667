/* Calls into libhot.so, whose hot code is hidden (static) in a stripped library. */
#include <stdio.h>
#include <stdlib.h>

unsigned long hot_lo(unsigned long x);
unsigned long hot_hi(unsigned long n);

int main(int argc, char **argv)
{
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 0) : 100, r = 0;
    for (unsigned long u = 0; u < units; u++)
        r += hot_hi(1000000) + hot_lo(u);
    printf("%lu\n", r & 1);
    return 0;
}
/* SPDX-License-Identifier: MIT */
