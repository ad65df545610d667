/* Two flows of control on the same counted code, the second made by a raw clone() (shared
 * memory, its own process: not pthread_create, thrd_create or fork, which the in-process hook
 * wraps). Each runs spin()'s loop 300000 times; docs/lines.md: the program imports clone, so
 * its counters are `lock`ed from the start and none of the racing increments is lost. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define STACK (1 << 20)

static volatile long sink;

static void spin(long n)
{
    for (long i = 0; i < n; i++)        /* L:spin_for */
        sink += i;                      /* L:spin_body */
}

static int flow(void *arg)
{
    (void)arg;
    spin(300000);
    return 0;
}

int main(void)
{
    char *stack = malloc(STACK);
    pid_t pid;
    int st = 0;
    if (!stack)
        return 1;
    pid = clone(flow, stack + STACK, CLONE_VM | SIGCHLD, NULL);
    if (pid < 0)
        return 1;
    spin(300000);
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 1;
    printf("two flows done\n");
    free(stack);
    return 6;
}
/* SPDX-License-Identifier: MIT */
