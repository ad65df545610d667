/* A shared library for `prospect lines -f liblineslib.so:lib_sum` (tests/e2e/lines_gcov.sh):
 * a loop on one line, a branch, recursion. */
long lib_sum(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) s += i & 1 ? i : 1;
    if (s > 100)
        s -= 100;
    return s;
}

long lib_depth(int n)
{
    if (n <= 0)
        return 0;
    return 1 + lib_depth(n - 1);
}
/* SPDX-License-Identifier: MIT */
