/* A process started outside Prospect: tells the test it runs (by writing to the FIFO in argv[1])
 * and spins in spin_outside() until killed. */
#include <fcntl.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void spin_outside(void)
{
    for (unsigned long i = 0; i < 1000000; i++)
        sink = sink * 31 + i;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        int fd = open(argv[1], O_WRONLY);
        if (fd < 0 || write(fd, "ready\n", 6) != 6)
            return 1;
        close(fd);
    }
    for (;;)
        spin_outside();
}
/* SPDX-License-Identifier: MIT */
