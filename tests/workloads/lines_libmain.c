/* Calls liblineslib.so's functions (tests/e2e/lines_gcov.sh). */
#include <stdio.h>

long lib_sum(long n);
long lib_depth(int n);

int main(void)
{
    long s = 0;
    for (int i = 0; i < 5; i++)
        s += lib_sum(1000 * i);
    s += lib_depth(9);
    printf("%ld\n", s);
    return 0;
}
/* SPDX-License-Identifier: MIT */
