/* Many short-lived threads (argv[1], one after another), each crossing "t" once and leaving
 * "open" unclosed: the library must keep one table for the ended threads, not one per thread.
 * Prints its own peak RSS in KiB. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <prospect/region.h>

static void *work(void *arg)
{
    (void)arg;
    prospect_region_begin("open");
    prospect_region_begin("t");
    prospect_region_end("t");
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    struct rusage ru;

    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, work, NULL) || pthread_join(t, NULL))
            return 1;
    }
    getrusage(RUSAGE_SELF, &ru);
    printf("maxrss_kb %ld\n", ru.ru_maxrss);
    return 0;
}
/* SPDX-License-Identifier: MIT */
