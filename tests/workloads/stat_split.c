/* sw() has a jump table whose case 6 is moved by gcc into sw.cold; case 5 falls through into it.
 * A jump point at case 5 would move bytes that hold the case 6 target: it must be refused.
 * The test's line range is marked in the code below. */
#include <setjmp.h>
#include <stdio.h>
volatile int sink;
jmp_buf jb;
__attribute__((noinline, noreturn, cold)) void bail(int x) { sink = x; longjmp(jb, 1); }
__attribute__((noinline)) int sw(int k, int x)
{
    switch (k) {
    case 0: return x + 11;
    case 1: return x * 3;
    case 2: return x ^ 0x55;
    case 3: return x - sink;
    case 4: return x << 2;
    case 5:
        x += 5;                 /* REGION-START falls through into case 6 */
    case 6:
        x ^= sink;
        bail(x);                /* REGION-END */
    }
    return 0;
}
int main(void)
{
    volatile int t = 0, i = 0;
    setjmp(jb);
    while (i < 70) { int k = i++; t += sw(k % 7, k); }
    printf("%d %d\n", t, sink);
    return 0;
}
/* SPDX-License-Identifier: MIT */
