/* Calls work() once, forks a child that calls it twice and then execs this program again
 * ("exec" mode), which calls it three times. Exits with status 7 after reaping the child.
 * Under `prospect stat -r work`: 6 calls in three processes, the target never crashes. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void work(long n)
{
    for (long i = 0; i < n; i++)
        sink += i;
}

int main(int argc, char **argv)
{
    int status;
    pid_t pid;

    if (argc > 1 && !strcmp(argv[1], "exec")) {
        for (int i = 0; i < 3; i++)
            work(1000);
        return 0;
    }
    work(1000);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        work(1000);
        work(1000);
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        _exit(99);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child failed (status 0x%x)\n", status);
        return 1;
    }
    return 7;
}
/* SPDX-License-Identifier: MIT */
