/* A stripped library whose hot static function comes after the last exported symbol: its
 * hits must be named "tail_entry->(end)" (built with -fno-toplevel-reorder). */
static volatile unsigned long tail_sink;

static unsigned long tail_hidden(unsigned long n);

__attribute__((noinline)) unsigned long tail_entry(unsigned long n)
{
    tail_sink = tail_hidden(n);
    return tail_sink;
}

__attribute__((noinline)) static unsigned long tail_hidden(unsigned long n)
{
    unsigned long x = tail_sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + i;
    return x;
}
/* SPDX-License-Identifier: MIT */
