/* Calls leaf() N times (argv[1], default 1000): a leaf function whose first instruction the
 * kernel cannot emulate (a RIP-relative load at -O2), so a uprobe on it single-steps.
 * With "env" as argv[2] it first prints LD_PRELOAD as the program sees it; with "clearenv" it
 * calls leaf() N times, then execs itself with an empty environment, which calls it N times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void leaf(long x)
{
    sink += x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    if (argc > 2 && !strcmp(argv[2], "env")) {
        const char *p = getenv("LD_PRELOAD");
        printf("LD_PRELOAD=%s\n", p ? p : "");
    }
    for (long i = 0; i < n; i++)
        leaf(i);
    if (argc > 2 && !strcmp(argv[2], "clearenv")) {
        char *none[] = { NULL };
        execle("/proc/self/exe", argv[0], argv[1], (char *)NULL, none);
        return 99;
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
