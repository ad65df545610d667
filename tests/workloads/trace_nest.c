/* For tests/e2e/trace_nest.sh: library calls made inside others and string arguments.
 *   trace_nest FILE N   N rounds of: fopen(FILE, "r") (malloc inside), strdup("nested")
 *                       (malloc inside), strlen of it, free, fclose; then open(FILE, 0),
 *                       close, once. Prints the last strlen. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t n = 0;
    if (argc != 3)
        return 2;
    for (long i = 0; i < atol(argv[2]); i++) {
        FILE *f = fopen(argv[1], "r");
        char *s = strdup("nested");
        n = strlen(s);
        free(s);
        if (f)
            fclose(f);
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd >= 0)
        close(fd);
    printf("%zu\n", n);
    return 0;
}
/* SPDX-License-Identifier: MIT */
