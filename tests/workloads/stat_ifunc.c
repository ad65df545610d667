// memcpy and strlen (libc) and cos (libm) 1000 times each through the libraries, where all
// three are IFUNCs on x86_64: build with -fno-builtin (and volatile sizes) so gcc calls them.
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    static char src[256] = "the quick brown fox jumps over the lazy dog", dst[256];
    volatile size_t n = sizeof(src);
    volatile double x = 0.5;
    size_t total = 0;
    double c = 0;

    for (int i = 0; i < 1000; i++) {
        memcpy(dst, src, n);
        total += strlen(dst);
        c += cos(x + i);
    }
    printf("%zu %.3f\n", total, c);
    return 0;
}
/* SPDX-License-Identifier: MIT */
