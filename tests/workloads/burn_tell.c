/* Burns argv[2] ms of its own CPU time in burn(), then writes its pid to the FIFO in argv[1]
 * and keeps burning until killed: a test knows samples exist once it reads the pid. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void burn(void)
{
    for (unsigned long i = 0; i < 100000; i++)
        sink = sink * 31 + i;
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    char msg[32];
    int fd;

    if (argc < 3)
        return 2;
    while (cpu_ms() < atof(argv[2]))
        burn();
    snprintf(msg, sizeof(msg), "%d\n", (int)getpid());
    fd = open(argv[1], O_WRONLY);
    if (fd < 0 || write(fd, msg, strlen(msg)) != (ssize_t)strlen(msg))
        return 1;
    close(fd);
    for (;;)
        burn();
}
/* SPDX-License-Identifier: MIT */
