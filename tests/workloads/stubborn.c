/* Survives SIGINT: acknowledges each one on the FIFO argv[1] (after first writing "ready"),
 * and keeps running. A second Ctrl-C must make Prospect stop profiling without it. With a
 * second argument it exits with status 3 right after the first acknowledgement (a program
 * that catches SIGINT and ends by itself); with the second argument "die" it does not catch
 * SIGINT (default action, even when started with it ignored) and dies of it. */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int fd;
static int exit_after;

static void on_int(int sig)
{
    (void)sig;
    if (write(fd, "got\n", 4) != 4)
        _exit(1);
    if (exit_after)
        _exit(3);
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    exit_after = argc > 2;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = argc > 2 && !strcmp(argv[2], "die") ? SIG_DFL : on_int;
    sigaction(SIGINT, &sa, NULL);
    fd = open(argv[1], O_WRONLY);
    if (fd < 0 || write(fd, "ready\n", 6) != 6)
        return 1;
    for (;;)
        pause();
}
/* SPDX-License-Identifier: MIT */
