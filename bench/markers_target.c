/* SPDX-License-Identifier: MIT */
/* bench_markers.sh's target: unit() is one region, marked in the code and also a function
 * `stat -r unit` can probe; it runs N times (argv[1]) and prints the loop's own time per call
 * (process start and the tools' setup are outside it). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <prospect/region.h>

static volatile unsigned long sink;

__attribute__((noinline)) void unit(void);
__attribute__((noinline)) void unit(void)
{
    prospect_region_begin("unit");
    sink++;
    prospect_region_end("unit");
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1;
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        unit();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.1f\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
                     (double)(n > 0 ? n : 1));
    return 0;
}
