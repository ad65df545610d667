/* Exactly N write(2) calls (N = argv[1], default 1000): a tracepoint on sys_enter_write must
 * count each one. */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    for (long i = 0; i < n; i++)
        if (write(1, "x", 1) != 1)
            return 1;
    return 0;
}
/* SPDX-License-Identifier: MIT */
