/* Runs until killed, calling tick() in a loop every millisecond (in argv[1] threads, default
 * just the main thread): a target for `prospect stat -p`. Prints "ready PID" once all threads
 * run; the test kills it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile long sink;
static pthread_barrier_t started;

__attribute__((noinline)) void tick(long x)
{
    sink += x;
}

static void *loop(void *arg)
{
    struct timespec ts = { 0, 1000000 };   /* keeps the CPU mostly idle */
    if (arg)
        pthread_barrier_wait(&started);
    for (long i = 0;; i++) {
        tick(i);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    pthread_t t;
    if (n > 0) {
        pthread_barrier_init(&started, NULL, (unsigned)n + 1);
        for (int i = 0; i < n; i++)
            if (pthread_create(&t, NULL, loop, &started))
                return 1;
        pthread_barrier_wait(&started);
    }
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    if (n > 0)
        pause();
    loop(NULL);
    return 0;
}
/* SPDX-License-Identifier: MIT */
