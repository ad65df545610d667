/* Tells the test it runs (FIFO in argv[1]), then waits for a signal. Used for Ctrl-C tests. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd = open(argv[1], O_WRONLY);
    if (fd < 0 || write(fd, "ready\n", 6) != 6)
        return 1;
    close(fd);
    for (;;)
        pause();
}
/* SPDX-License-Identifier: MIT */
