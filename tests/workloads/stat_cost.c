/* Regions whose own work differs by orders of magnitude, for stat -r's probe-cost note:
 * sum10 adds 10 ints (a few ns, far less than a probe crossing), big runs a ~50 ms loop.
 * "stat_cost" calls sum10 10,000 times and big twice; "stat_cost spin SECS" calls sum10 until
 * SECS seconds have passed (a run long enough for progress lines). Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int numbers[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

__attribute__((noinline)) int sum10(const int *v)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += v[i];
    __asm__ volatile("" ::: "memory");
    return s;
}

__attribute__((noinline)) long big(long n)
{
    volatile long s = 0;
    for (long i = 0; i < n; i++)
        s += i;
    return s;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long total = 0;

    if (argc > 2) {
        double end = now() + atof(argv[2]);
        while (now() < end)
            for (int i = 0; i < 100; i++)
                total += sum10(numbers);
    } else {
        for (int i = 0; i < 10000; i++)
            total += sum10(numbers);
        for (int i = 0; i < 2; i++)
            total += big(50000000);
    }
    printf("%ld\n", total);
    return 0;
}
/* SPDX-License-Identifier: MIT */
