/* Spends its time in clock_gettime, which runs in the [vdso]. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000, acc = 0;
    struct timespec ts;
    for (unsigned long i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        acc += (unsigned long)ts.tv_nsec;
    }
    printf("%lu\n", acc & 1);
    return 0;
}
/* SPDX-License-Identifier: MIT */
