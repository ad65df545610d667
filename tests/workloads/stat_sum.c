/* The seed's (Perforator's) sum benchmark. SIZE is smaller to keep tests fast. Built with
 * -O2 -g: gcc inlines sum() into main (DWARF inlined_subroutine); with -DNOINLINE it stays a
 * function. Prints the sum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 1000000

#ifdef NOINLINE
__attribute__((noinline))
#endif
uint64_t sum(uint32_t *numbers)
{
    uint64_t sum = 0;
    for (int i = 0; i < SIZE; i++) {
        sum += numbers[i];
    }
    return sum;
}

int main(void)
{
    uint32_t *numbers = malloc(SIZE * sizeof(uint32_t));
    for (int i = 0; i < SIZE; i++) {
        numbers[i] = (uint32_t)i;
    }

    uint64_t result = sum(numbers);
    printf("%lu\n", (unsigned long)result);
    free(numbers);
    return 0;
}
/* SPDX-License-Identifier: MIT */
