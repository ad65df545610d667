/* prospect lines against gcov on the constructs gcov counts per iteration: loops written on
 * one line (for, while with its condition only), ?: on one line, a do-while on one line,
 * recursion, a switch, a goto, threads and a forked child. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

static long span(const char *p) { long n = 0; while (p[n]) n++; return n; }

static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static void *worker(void *arg)
{
    long s = 0;
    for (long i = 0; i < (long)arg; i++) s += i & 1 ? i : -i;
    sink += s;
    return NULL;
}

static int pick(int x)
{
    switch (x & 3) {
    case 0: return 1;
    case 1: sink++; /* fall through */
    case 2: return 2;
    default: sink += 3; break;
    }
    return 3;
}

int main(void)
{
    pthread_t t[3];
    long s = 0;
    int k = 0;
    for (long i = 0; i < 100000; i++) s += i;
    s += span("hello, gcov!!");
    do k++; while (k < 7);
    s += fib(12);
    for (int i = 0; i < 40; i++)
        s += pick(i);
again:
    if (++k < 12)
        goto again;
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)(1000 * (i + 1)));
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 25; i++) s ^= i;
        exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("%ld %d %ld\n", s, k, sink);
    return 0;
}
/* SPDX-License-Identifier: MIT */
