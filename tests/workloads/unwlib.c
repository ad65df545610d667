/* libunwlib.so for tests/e2e/callgraph_unwind.sh: built -O2 -fomit-frame-pointer and
 * stripped, so only .eh_frame can unwind through it and its static helper has no name but the
 * bracket between its dynamic neighbours. */
static volatile unsigned long lib_sink;

__attribute__((noinline)) static void lib_helper(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        lib_sink += i * 3;
}

void lib_before(void) { lib_sink++; }

void lib_work(unsigned long n)
{
    lib_helper(n);
    lib_helper(n / 2);
    __asm__ volatile("");
}

void lib_after(void) { lib_sink--; }
/* SPDX-License-Identifier: MIT */
