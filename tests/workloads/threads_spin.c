/* Three named threads spinning 1, 2 and 3 units of argv[1] iterations each, for per-thread
 * reports (`report --sort tid`): each thread renames itself, as servers' workers do. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long unit = 20000000;

static void *worker(void *arg)
{
    long k = (long)arg;
    char name[16];

    snprintf(name, sizeof(name), "worker-%ld", k);
    pthread_setname_np(pthread_self(), name);
    for (unsigned long i = 0; i < k * unit; i++)
        sink = sink * 31 + i;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[3];

    if (argc > 1)
        unit = strtoul(argv[1], NULL, 0);
    for (long k = 0; k < 3; k++)
        if (pthread_create(&t[k], NULL, worker, (void *)(k + 1)))
            return 1;
    for (int k = 0; k < 3; k++)
        pthread_join(t[k], NULL);
    return 0;
}
/* SPDX-License-Identifier: MIT */
