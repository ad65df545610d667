/* Region markers: THREADS threads (argv[1], default 2) each cross "outer" N times (argv[2],
 * default 1000) with "inner" nested inside it and "outer" re-entered inside itself (counted
 * once per crossing, from its outermost begin). Prints whether Prospect was counting. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <prospect/region.h>

static volatile unsigned long sink;
static long crossings = 1000;

static void *work(void *arg)
{
    (void)arg;
    for (long i = 0; i < crossings; i++) {
        prospect_region_begin("outer");
        prospect_region_begin("inner");
        for (int k = 0; k < 2000; k++)
            sink += (unsigned long)k;
        prospect_region_end("inner");
        prospect_region_begin("outer");     /* recursion: a call, not a new crossing */
        prospect_region_end("outer");
        prospect_region_end("outer");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2;
    pthread_t t[64];

    if (argc > 2)
        crossings = atol(argv[2]);
    if (n < 1 || n > 64)
        return 2;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, work, NULL))
            return 1;
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("markers %s\n", prospect_markers_on ? "on" : "off");
    return 3;   /* a status of its own, passed through by stat */
}
/* SPDX-License-Identifier: MIT */
