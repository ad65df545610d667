/* SPDX-License-Identifier: MIT */
/* Closing many perf events at once (see close_many.h). */
#include <pthread.h>
#include <unistd.h>
#include "perf/close_many.h"

#define MAX_CLOSERS 64

struct closer {
    const int *fds;
    size_t n;
    size_t next;        /* the next fd to close, taken atomically */
};

static void *close_some(void *arg)
{
    struct closer *c = arg;
    size_t i;
    while ((i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->n)
        if (c->fds[i] >= 0)
            close(c->fds[i]);
    return NULL;
}

void perf_close_many(const int *fds, size_t n, unsigned threads)
{
    struct closer c = { fds, n, 0 };
    pthread_t tid[MAX_CLOSERS];
    unsigned started = 0;
    if (threads > MAX_CLOSERS)
        threads = MAX_CLOSERS;
    if (threads > n)
        threads = (unsigned)n;
    /* This thread closes too: threads - 1 helpers. */
    while (started + 1 < threads && !pthread_create(&tid[started], NULL, close_some, &c))
        started++;
    close_some(&c);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}
