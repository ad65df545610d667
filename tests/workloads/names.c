/* A busy function whose symbol the tests rename (objcopy --redefine-sym hot_name=...) to a
 * hostile name: terminal escapes, control characters, malformed UTF-8. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void hot_name(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink = sink * 31 + i;
}

int main(int argc, char **argv)
{
    hot_name(argc > 1 ? strtoul(argv[1], NULL, 0) : 300000000);
    return 0;
}
/* SPDX-License-Identifier: MIT */
