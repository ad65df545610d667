/* Calls into libtail.so, whose hot code sits after its last exported symbol. */
#include <stdio.h>
#include <stdlib.h>

unsigned long tail_entry(unsigned long n);

int main(int argc, char **argv)
{
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 0) : 100, r = 0;
    for (unsigned long u = 0; u < units; u++)
        r += tail_entry(1000000);
    printf("%lu\n", r & 1);
    return 0;
}
/* SPDX-License-Identifier: MIT */
