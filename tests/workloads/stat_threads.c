/* 4 threads each call region_work() 1000 times (4000 crossings in all, often at once). */
#include <pthread.h>
#include <stdio.h>

volatile long sink;

__attribute__((noinline)) void region_work(long x)
{
    for (int i = 0; i < 50; i++)
        sink += x + i;
}

static void *thread_main(void *arg)
{
    for (long i = 0; i < 1000; i++)
        region_work(i);
    return arg;
}

int main(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, thread_main, NULL))
            return 1;
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}
/* SPDX-License-Identifier: MIT */
