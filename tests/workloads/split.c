/* Three noinline functions doing 50/30/20 of the work: the report's shares must match. It
 * times itself ("elapsed_s X" on stdout) so `make bench` can read the slowdown a profiler
 * causes. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define SPIN(n) do { unsigned long x = sink; for (unsigned long i = 0; i < (n); i++) \
                     x = x * 6364136223846793005UL + i; sink = x; } while (0)

__attribute__((noinline)) void work_fifty(unsigned long n) { SPIN(n * 5); }
__attribute__((noinline)) void work_thirty(unsigned long n) { SPIN(n * 3); }
__attribute__((noinline)) void work_twenty(unsigned long n) { SPIN(n * 2); }

int main(int argc, char **argv)
{
    /* Units of work: the default takes about 3 s of CPU here. */
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 0) : 300;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (unsigned long u = 0; u < units; u++) {
        work_fifty(200000);
        work_thirty(200000);
        work_twenty(200000);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("done %lu\nelapsed_s %.6f\n", sink & 1,
           (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
/* SPDX-License-Identifier: MIT */
