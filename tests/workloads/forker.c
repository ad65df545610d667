/* fork + exec of a second program (argv[1..]), then some work of its own: both processes must
 * appear in the report, each with its own profile. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void parent_work(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 2862933555777941757UL + i;
    sink = x;
}

int main(int argc, char **argv)
{
    int st;
    pid_t pid;
    if (argc < 2) {
        fprintf(stderr, "usage: forker PROGRAM [ARGS]\n");
        return 2;
    }
    pid = fork();
    if (pid == 0) {
        execv(argv[1], argv + 1);
        _exit(127);
    }
    parent_work(150000000);
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 1;
    return WEXITSTATUS(st);
}
/* SPDX-License-Identifier: MIT */
