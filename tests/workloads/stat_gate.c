/* Waits for a go before calling crossing() N times, so a test can stop Prospect first:
 *   stat_gate READY_FIFO GO_FIFO N
 * writes a line to READY_FIFO (kept open until it exits: EOF there means it ended), reads a line
 * from GO_FIFO, then runs. */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) void crossing(long x)
{
    sink += x;
}

int main(int argc, char **argv)
{
    FILE *ready, *go;
    char line[16];
    long n;

    if (argc < 4 || !(ready = fopen(argv[1], "w")))
        return 2;
    fputs("ready\n", ready);
    fflush(ready);
    if (!(go = fopen(argv[2], "r")) || !fgets(line, sizeof(line), go))
        return 2;
    n = atol(argv[3]);
    for (long i = 0; i < n; i++)
        crossing(i);
    return 0;
}
/* SPDX-License-Identifier: MIT */
