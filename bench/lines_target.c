/* SPDX-License-Identifier: MIT */
/* bench_lines.sh's target: N passes through a few short lines (about 9 blocks each). Prints
 * the loop's own duration, so start-up and probe setup and removal are not measured. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

static long step(long i)
{
    long r = i * 3;
    if (r & 1)
        sink += r;
    else
        sink -= 1;
    return r;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        step(i);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("loop_ns %lld sink %ld\n",
           (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec), sink);
    return 0;
}
