/* A shared library for `prospect stat -r libstatlib.so:lib_work`. */
volatile long lib_sink;

__attribute__((noinline)) void lib_work(long n)
{
    for (long i = 0; i < n; i++)
        lib_sink += i;
}
/* SPDX-License-Identifier: MIT */
