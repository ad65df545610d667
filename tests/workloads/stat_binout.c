/* Writes N blocks of binary bytes (every value 0-255, NULs included) to standard output through
 * emit(), a region to count: `prospect stat` must leave this output byte for byte as it is.
 * With a FIFO as argv[2]: then waits for a line from it, writes N blocks more and exits 7. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void emit(unsigned seed)
{
    unsigned char b[256];
    for (int i = 0; i < 256; i++)
        b[i] = (unsigned char)(i * 7 + seed);
    fwrite(b, 1, sizeof(b), stdout);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    for (int i = 0; i < n; i++)
        emit((unsigned)i);
    if (argc > 2) {
        FILE *f = fopen(argv[2], "r");
        char line[16];
        fflush(stdout);
        if (!f || !fgets(line, sizeof(line), f))
            return 1;
        for (int i = 0; i < n; i++)
            emit((unsigned)i);
        return 7;
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
