/* Works a little, then dies of SIGSEGV: the report must still be printed. */
#include <stdio.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) void before_crash(void)
{
    for (unsigned long i = 0; i < 50000000; i++)
        sink = sink * 31 + i;
}

int main(void)
{
    before_crash();
    volatile int *p = NULL;
    *p = 1;
    return 0;
}
/* SPDX-License-Identifier: MIT */
