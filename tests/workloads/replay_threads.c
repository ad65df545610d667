/* For tests/e2e/replay.sh: three threads allocating seed 004's sizes (144, 128, calloc(5, 8)),
 * a realloc, frees in the same thread, and blocks the main thread frees after the workers
 * end (frees across threads). Build with -O0 -fno-builtin so every call stays a call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20
#define WORKERS 3

static void *kept[WORKERS][ROUNDS];

static void *worker(void *arg)
{
    long w = (long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        void *a = malloc(144), *b = malloc(128), *c = calloc(5, 8);
        b = realloc(b, 200 + (size_t)i);
        free(b);
        free(c);
        kept[w][i] = a;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    void *first = malloc(40);
    for (long w = 0; w < WORKERS; w++)
        if (pthread_create(&t[w], NULL, worker, (void *)w))
            return 1;
    for (int w = 0; w < WORKERS; w++)
        pthread_join(t[w], NULL);
    for (int w = 0; w < WORKERS; w++)
        for (int i = 0; i < ROUNDS; i++)
            free(kept[w][i]);
    free(first);
    free(NULL);
    puts("done");
    return 0;
}
/* SPDX-License-Identifier: MIT */
