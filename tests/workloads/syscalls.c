/* A syscall-heavy loop: most samples land in the kernel (read/write on a pipe). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 400000;
    int fds[2];
    char buf[64] = {0};
    if (pipe(fds))
        return 1;
    for (unsigned long i = 0; i < n; i++) {
        if (write(fds[1], buf, sizeof(buf)) != sizeof(buf) ||
            read(fds[0], buf, sizeof(buf)) != sizeof(buf))
            return 1;
    }
    printf("done\n");
    return 0;
}
/* SPDX-License-Identifier: MIT */
