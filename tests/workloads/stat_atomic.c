/* bump() starts with a lock-prefixed add at -O2, an instruction the kernel refuses to put a
 * uprobe on. main calls it 10 times and prints the counter. */
#include <stdio.h>

int counter;

__attribute__((noinline)) void bump(void)
{
    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        bump();
    printf("%d\n", counter);
    return 0;
}
/* SPDX-License-Identifier: MIT */
