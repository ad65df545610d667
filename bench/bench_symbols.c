/* SPDX-License-Identifier: MIT */
/* Symbol benchmarks: kallsyms load, ELF symbol load, and resolving many sorted addresses by one
 * merge walk (dso_resolve_sorted) versus a binary search per address (dso_resolve). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "symbol/dso.h"
#include "symbol/ksyms.h"

#define RUNS 5

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), dcmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    const char *lib = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/libc.so.6";
    double t[RUNS], walk[RUNS], search[RUNS];
    size_t n = 2000000, count = 0;
    uint64_t *va = malloc(n * sizeof(*va));
    struct symres *out = malloc(n * sizeof(*out));
    struct ksyms *ks;

    if (!va || !out)
        return 1;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        if (ksyms_load("/proc/kallsyms", &ks))
            return printf("kallsyms: not readable\n"), 1;
        t[r] = now_ms() - t0;
        count = ksyms_count(ks);
        ksyms_free(ks);
    }
    printf("kallsyms load: %zu text symbols, median %.1f ms\n", count, median(t, RUNS));

    for (int r = 0; r < RUNS; r++) {
        struct dso_cache *c = dso_cache_new();
        struct dso *d = dso_cache_get(c, DSO_FILE, lib, NULL, 0, 0);
        double t0 = now_ms();
        dso_load(d);
        t[r] = now_ms() - t0;
        if (r == 0) {
            /* n distinct ascending addresses spread over the first 1.5 MB of the library */
            for (size_t i = 0; i < n; i++)
                va[i] = 0x26000 + i * 3 / 4;
        }
        t0 = now_ms();
        dso_resolve_sorted(d, va, n, out);
        walk[r] = now_ms() - t0;
        t0 = now_ms();
        for (size_t i = 0; i < n; i++)
            dso_resolve(d, va[i], &out[i]);
        search[r] = now_ms() - t0;
        dso_cache_free(c);
    }
    printf("%s: load median %.1f ms (%s)\n", lib, median(t, RUNS), "symbols + PLT");
    printf("resolve %zu sorted addresses: merge walk %.1f ms, binary search %.1f ms, ratio %.2f\n",
           n, median(walk, RUNS), median(search, RUNS), median(search, RUNS) / median(walk, RUNS));
    free(va);
    free(out);
    return 0;
}
