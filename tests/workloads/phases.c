/* Two threads that alternate between two functions, phase_a then phase_b, for argv[1] rounds
 * of argv[2] iterations each: the order of their samples in time is known (a, b, a, b...), for
 * the per-thread outputs that keep it (report --format speedscope). */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long rounds = 6, iters = 20000000;

__attribute__((noinline)) static void phase_a(void)
{
    for (unsigned long i = 0; i < iters; i++)
        sink = sink * 31 + i;
}

__attribute__((noinline)) static void phase_b(void)
{
    for (unsigned long i = 0; i < iters; i++)
        sink = sink * 37 + i;
}

static void *worker(void *arg)
{
    (void)arg;
    for (unsigned long r = 0; r < rounds; r++) {
        phase_a();
        phase_b();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;

    if (argc > 2) {
        rounds = strtoul(argv[1], NULL, 0);
        iters = strtoul(argv[2], NULL, 0);
    }
    if (pthread_create(&t, NULL, worker, NULL))
        return 1;
    worker(NULL);
    return pthread_join(t, NULL) != 0;
}
/* SPDX-License-Identifier: MIT */
