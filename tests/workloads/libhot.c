/* A shared library whose hot code is a static function between two exported ones. After
 * `strip --strip-all` only the dynamic symbols remain, so Prospect must name hits in the static
 * function with the bracket "hot_lo->hot_hi". */
static volatile unsigned long hot_sink;

__attribute__((noinline)) unsigned long hot_lo(unsigned long x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) static unsigned long hot_hidden(unsigned long n)
{
    unsigned long x = hot_sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + i;
    return x;
}

__attribute__((noinline)) unsigned long hot_hi(unsigned long n)
{
    hot_sink = hot_hidden(n);
    return hot_sink;
}
/* SPDX-License-Identifier: MIT */
