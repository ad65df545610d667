/* Benchmark target for bench_stat.sh: calls a region of a few instructions N times. */
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) void region(long x)
{
    sink += x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    for (long i = 0; i < n; i++)
        region(i);
    return 0;
}
