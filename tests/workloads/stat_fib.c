/* Recursive fib: main calls fib(15) twice. fib(n) makes 2*F(n+1)-1 calls, so 1973 per
 * outermost call: 3946 calls and 2 outermost entries. Built at -O0 so gcc keeps both
 * recursive calls. */
#include <stdio.h>

__attribute__((noinline)) long fib(long n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

int main(void)
{
    printf("%ld %ld\n", fib(15), fib(15));
    return 0;
}
/* SPDX-License-Identifier: MIT */
