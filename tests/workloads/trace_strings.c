/* For tests/e2e/trace_protos.sh and trace_nest.sh: string arguments and returns of the
 * interposer's built-in functions, launched or attached.
 *   trace_strings FILE   per read(2) of stdin that returns data, one round: strlen("abc"),
 *                        strdup("x") (malloc inside), open(FILE, 0), getenv("HOME"),
 *                        strchr(FILE, 'p'), close, free; prints "LEN COPY OPENED HOME MATCH".
 *                        Exits 3 at the end of stdin (the tests check the status is its own). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char buf[256];
    if (argc != 2)
        return 2;
    while (read(0, buf, sizeof(buf)) > 0) {
        size_t n = strlen("abc");
        char *d = strdup("x");
        int fd = open(argv[1], O_RDONLY);
        const char *home = getenv("HOME");
        const char *match = strchr(argv[1], 'p');
        int len = snprintf(buf, sizeof(buf), "%zu %s %d %s %s\n", n, d ? d : "-", fd >= 0,
                           home ? home : "-", match ? match : "-");
        if (write(1, buf, (size_t)len) != len)
            return 1;
        if (fd >= 0)
            close(fd);
        free(d);
    }
    return 3;
}
/* SPDX-License-Identifier: MIT */
