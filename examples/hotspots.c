/* SPDX-License-Identifier: MIT */
/* The demo workload: user-space hot spots with a known split, a syscall-heavy phase, and a
 * child process, so one report shows every section of the Prospect report. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void compute_hot(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + i;
    sink = x;
}

__attribute__((noinline)) void compute_warm(unsigned long n)
{
    compute_hot(n / 2);
}

__attribute__((noinline)) void talk_to_kernel(unsigned long n)
{
    int fds[2];
    char buf[256] = {0};
    if (pipe(fds))
        return;
    for (unsigned long i = 0; i < n; i++)
        if (write(fds[1], buf, sizeof(buf)) < 0 || read(fds[0], buf, sizeof(buf)) < 0)
            break;
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    pid_t child = fork();
    if (child == 0) {
        compute_warm(200000000);
        _exit(0);
    }
    compute_hot(300000000);
    talk_to_kernel(200000);
    waitpid(child, NULL, 0);
    printf("hotspots: done\n");
    return 0;
}
