/* A hot loop that a linear sweep from the function's start does not decode: two bytes after
 * an unconditional jump (never run) read as the start of a 10-byte `movabs`, which swallows
 * the loop's 8 bytes. annotate's listing shows no instruction at the loop's addresses; its
 * --source view must still put every sample on this file's lines. */
#include <stdlib.h>

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
    unsigned long acc = 0;
    __asm__ volatile("jmp 1f\n\t"
                     ".byte 0x48, 0xb8\n"
                     "1:\n\t"
                     "add %%rcx, %0\n\t"
                     "dec %%rcx\n\t"
                     "jnz 1b\n\t"
                     : "+r"(acc), "+c"(n) : : "cc");
    return acc;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300000000UL;
    return (int)(spin(n) & 1);
}
/* SPDX-License-Identifier: MIT */
