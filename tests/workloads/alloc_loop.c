/* Samples in glibc's allocator, whose functions have several names at one address (free, cfree,
 * __libc_free...): N rounds (default 3,000,000) of malloc, a memset and free. Built with
 * -fno-builtin so the pair is not optimized away. usage: alloc_loop [N] */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 3000000;

    for (long i = 0; i < n; i++) {
        char *p = malloc(64 + (size_t)(i & 255));
        if (!p)
            return 1;
        memset(p, 1, 16);
        free(p);
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
