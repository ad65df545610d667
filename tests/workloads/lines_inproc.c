/* prospect lines' in-process counters (tests/e2e/lines_inproc.sh): the same counter hit by
 * four threads at once (a lost increment would show), a forked child adding into the parent's
 * counters, recursion, longjmp out of nested calls, a signal handler, a C11 thread, a switch
 * (its jump table keeps the function on uprobes), and a loop whose counter must keep the flags
 * (a second conditional jump testing flags set before its block). Loops are written on
 * several lines so that gcov and Prospect count them alike. Exit status 5. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

static volatile long sink;
static jmp_buf env;
static volatile sig_atomic_t handled;
static pthread_barrier_t start;         /* the four threads count at the same time */

static void spin(long n)
{
    for (long i = 0; i < n; i++)          /* L:spin_for */
        sink += i;                        /* L:spin_body */
}

static void *worker(void *arg)
{
    pthread_barrier_wait(&start);
    spin((long)arg);                      /* L:worker */
    return NULL;
}

static int c11_worker(void *arg)
{
    spin((long)arg);                      /* L:c11 */
    return 0;
}

static long fib(int n)
{
    if (n < 2)                            /* L:fib_if */
        return n;                         /* L:fib_base */
    return fib(n - 1) + fib(n - 2);       /* L:fib_step */
}

static void deep(int depth)
{
    if (depth == 0)                       /* L:deep_if */
        longjmp(env, 1);                  /* L:deep_jump */
    deep(depth - 1);                      /* L:deep_step */
}

static void on_usr1(int sig)
{
    (void)sig;
    for (int i = 0; i < 10; i++)          /* L:handler_for */
        handled++;                        /* L:handler_body */
}

static int kind(int x)
{
    switch (x % 9) {
    case 0:
        return 10;                        /* L:case0 */
    case 1:
        return 11;                        /* L:case1 */
    case 2:
        return 12;                        /* L:case2 */
    case 3:
        return 13;                        /* L:case3 */
    case 4:
        return 14;                        /* L:case4 */
    case 5:
        return 15;                        /* L:case5 */
    case 6:
        return 16;                        /* L:case6 */
    case 7:
        return 17;                        /* L:case7 */
    default:
        return 18;                        /* L:case_default */
    }
}

int main(void)
{
    pthread_t t[4];
    thrd_t c11;
    volatile int jumps = 0;
    long s = 0;
    pid_t pid;

    pthread_barrier_init(&start, NULL, 4);
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)200000L);   /* L:create */
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    thrd_create(&c11, c11_worker, (void *)1000L);
    thrd_join(c11, NULL);
    pid = fork();
    if (pid == 0) {                       /* L:ifchild */
        spin(5000);                       /* L:child_spin */
        exit(0);                          /* gcov's counts are written at exit */
    }
    waitpid(pid, NULL, 0);
    printf("fib %ld\n", fib(15));         /* L:fib_call */
    setjmp(env);                          /* L:setjmp */
    if (jumps < 50) {                     /* L:jump_if */
        jumps++;                          /* L:jumped */
        deep(jumps % 7);
    }
    signal(SIGUSR1, on_usr1);
    for (int i = 0; i < 20; i++)          /* L:raise_for */
        raise(SIGUSR1);                   /* L:raise */
    for (int i = 0; i < 100; i++)
        s += kind(i);                     /* L:kind */
    printf("jumps %d handled %d kinds %ld\n", jumps, (int)handled, s);
    return 5;
}
/* SPDX-License-Identifier: MIT */
