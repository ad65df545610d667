/* prospect lines: a program that dies of SIGSEGV after a known loop: the counts up to the
 * crash are printed, and the exit status is the signal's (128 + 11). */
static volatile long sink;

int main(void)
{
    volatile int *p = 0;
    for (int i = 0; i < 10; i++)
        sink += i;                      /* L:body */
    *p = 1;                             /* L:crash */
    return 0;
}
/* SPDX-License-Identifier: MIT */
