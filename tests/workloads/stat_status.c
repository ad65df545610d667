/* Exits with the status given as argv[1], or kills itself with signal -N; calls never_called()
 * only when asked, so a region on it stays at zero calls. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

volatile int sink;

__attribute__((noinline)) void never_called(void)
{
    sink++;
}

__attribute__((noinline)) void called_once(void)
{
    sink += 2;
}

int main(int argc, char **argv)
{
    int v = argc > 1 ? atoi(argv[1]) : 0;
    called_once();
    if (argc > 2 && !strcmp(argv[2], "call"))
        never_called();
    if (v < 0)
        raise(-v);
    return v;
}
/* SPDX-License-Identifier: MIT */
