/* SPDX-License-Identifier: MIT */
/* Seed 003 (alignment): two threads increment two fields of one global struct,
 * with cache-line alignment: each thread's counter on its own line.
 * The seed cloned a child with CLONE_VM and never waited for it; here the second thread is a
 * pthread that main joins, the counters are volatile (so an optimizing compiler keeps every
 * increment in memory, as the seed's unoptimized build did), and the loop count is argv[1]
 * (default the seed's 100000 x 100000). Prints the counters' addresses and the elapsed time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Each field on a cache line of its own: the two threads never share a line. */
#define CACHE_LINE_SIZE 64
struct shared_data {
    volatile unsigned int num_proc1 __attribute__((aligned(CACHE_LINE_SIZE)));
    volatile unsigned int num_proc2 __attribute__((aligned(CACHE_LINE_SIZE)));
};

static struct shared_data shared;
static long loop_i = 100000, loop_j = 100000;

__attribute__((noinline)) static void proc1_loop(void)
{
    for (long i = 0; i < loop_i; i++)
        for (long j = 0; j < loop_j; j++)
            shared.num_proc1++;
}

__attribute__((noinline)) static void proc2_loop(void)
{
    for (long i = 0; i < loop_i; i++)
        for (long j = 0; j < loop_j; j++)
            shared.num_proc2++;
}

static void *child(void *arg)
{
    (void)arg;
    printf("child: shared %p %p\n", (void *)&shared.num_proc1, (void *)&shared.num_proc2);
    proc2_loop();
    return NULL;
}

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    pthread_t tid;

    if (argc > 1 && (loop_i = atol(argv[1])) <= 0) {
        fprintf(stderr, "usage: %s [OUTER_LOOPS]\n", argv[0]);
        return 2;
    }
    printf("main: shared %p %p\n", (void *)&shared.num_proc1, (void *)&shared.num_proc2);
    fflush(stdout);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (pthread_create(&tid, NULL, child, NULL)) {
        perror("pthread_create");
        return 1;
    }
    proc1_loop();
    pthread_join(tid, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("alignment: %.3f s for 2 x %ld increments\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
           loop_i * loop_j);
    return 0;
}
