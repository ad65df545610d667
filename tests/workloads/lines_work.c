/* prospect lines: known trip counts (tests/e2e/lines.sh computes each line's count from the
 * markers), recursion, threads, a function never run, a child process. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static __thread volatile long sink;      /* per thread: the output is the same every run */

static void loop(int n)
{                                       /* L:loop_open */
    for (int i = 0; i < n; i++)         /* L:loop_for */
        sink += i;                      /* L:loop_body */
}                                       /* L:loop_close */

static long rec(int d)
{                                       /* L:rec_open */
    if (d == 0)                         /* L:rec_if */
        return 0;                       /* L:rec_base */
    return 1 + rec(d - 1);              /* L:rec_step */
}

static void never(void)
{                                       /* L:never_open */
    sink = -1;                          /* L:never_body */
}

static void *worker(void *arg)
{
    loop((int)(long)arg);               /* L:worker_call */
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[4];
    int i = 0;
    pid_t p;

    (void)argv;
    loop(10);                           /* L:main_loop10 */
    sink += rec(7);                     /* L:main_rec */
    if (argc > 5)                       /* L:main_if */
        never();                        /* L:main_never */
    while (i < 3)                       /* L:main_while */
        i++;                            /* L:main_inc */
    for (i = 0; i < 4; i++)             /* L:main_for1 */
        pthread_create(&t[i], NULL, worker, (void *)100L); /* L:main_create */
    for (i = 0; i < 4; i++)             /* L:main_for2 */
        pthread_join(t[i], NULL);       /* L:main_join */
    p = fork();                         /* L:main_fork */
    if (p == 0) {                       /* L:main_ifchild */
        loop(1000);                     /* L:child_loop */
        exit(0);                        /* L:child_exit */
    }
    waitpid(p, NULL, 0);                /* L:main_wait */
    printf("%ld\n", sink);              /* L:main_print */
    return 3;                           /* L:main_ret */
}
/* SPDX-License-Identifier: MIT */
