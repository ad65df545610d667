/* All its time in main itself (no calls): the symbol a report of a deleted or rebuilt copy of
 * this program must still name. argv[1]: rounds of 100 million iterations (default 3).
 * -DREBUILT puts 8 KiB of another function where main was (.text.startup is linked before the
 * rest of .text), so a report that wrongly reads the rebuilt file names that function. */
#include <stdlib.h>

#ifdef REBUILT
__attribute__((section(".text.startup"), used, noinline)) void rebuilt_filler(void)
{
    __asm__ volatile(".fill 8192, 1, 0x90");
}
#endif

int main(int argc, char **argv)
{
    volatile unsigned long sink = 0;
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 3;

    for (unsigned long i = 0; i < rounds * 100000000UL; i++)
        sink += i;
    return (int)(sink & 0);
}
/* SPDX-License-Identifier: MIT */
