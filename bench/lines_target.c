/* bench_lines.sh's target: N passes through a few short lines (about 7 blocks each). */
#include <stdio.h>
#include <stdlib.h>

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
    for (long i = 0; i < n; i++)
        step(i);
    printf("%ld\n", sink);
    return 0;
}
