/* prospect lines: the program execs itself ("again"), keeping its environment or ("clean")
 * with an empty one (no LD_PRELOAD: that image runs without Prospect's entry hook). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

static void spin(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;                      /* L:body */
}

int main(int argc, char **argv)
{
    char *args[] = { argv[0], "again", NULL };
    char *noenv[] = { NULL };

    if (argc > 1 && !strcmp(argv[1], "again")) {
        spin(10);
        return 0;
    }
    spin(5);
    if (argc > 1 && !strcmp(argv[1], "clean"))
        execve("/proc/self/exe", args, noenv);
    else
        execv("/proc/self/exe", args);
    return 1;
}
/* SPDX-License-Identifier: MIT */
