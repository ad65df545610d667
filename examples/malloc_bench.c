/* SPDX-License-Identifier: MIT */
/* Seed 004: the malloc microbenchmark. Per-call cycles for thousands of calls, read with start
 * and end barriers, pinned to one CPU, summarized as percentiles and drawn as seed 004's
 * percentile curve (percentile of calls on x, cycles on y), one series per allocator/size mix.
 *
 *     malloc_bench [-n CALLS] [-c CPU] [-b lfence|cpuid] [-o curve.svg] [--csv summary.csv]
 *
 * The default CPU is the highest one this process may run on: like the seed, leave CPU 0 to
 * the operating system. `prospect check --cpu N` says how quiet that CPU is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <prospect/calibrate.h>
#include <prospect/histogram.h>

/* The sizes seed 004's ltrace of QEMU showed most often. */
static const size_t ltrace_mix[] = { 144, 128, 40, 128, 144, 40, 40, 128 };

/* A trivial bump allocator: the floor any malloc could reach. */
static unsigned char arena[64 << 20];
static size_t arena_used;

static void *bump_alloc(size_t n)
{
    size_t at = (arena_used + 15) & ~(size_t)15;
    if (at + n > sizeof(arena))
        return NULL;
    arena_used = at + n;
    return arena + at;
}

enum alloc_kind { GLIBC, BUMP };

struct series {
    const char *name;
    enum alloc_kind kind;
    const size_t *sizes;
    size_t nsizes;
};

static long thread_switches(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru))
        return 0;
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Times `calls` allocations; each sample is flagged when the call migrated. */
static int run_series(const struct series *s, struct prospect_hist *h, void **ptrs, size_t calls,
                      enum prospect_barrier mode, long *switches)
{
    long sw0 = thread_switches();
    arena_used = 0;
    for (size_t i = 0; i < calls; i++) {
        size_t size = s->sizes[i % s->nsizes];
        uint32_t a0, a1;
        uint64_t t0, t1;
        void *p;
        if (mode == PROSPECT_BARRIER_CPUID) {
            a0 = prospect_tsc_cpu();
            t0 = prospect_tsc_start_cpuid();
            p = s->kind == BUMP ? bump_alloc(size) : malloc(size);
            t1 = prospect_tsc_end_cpuid(&a1);
        } else {
            t0 = prospect_tsc_start_aux(&a0);
            p = s->kind == BUMP ? bump_alloc(size) : malloc(size);
            t1 = prospect_tsc_end(&a1);
        }
        if (!p)
            return -ENOMEM;
        ptrs[i] = p;
        if (prospect_hist_add(h, t1 - t0, a0 != a1 ? PROSPECT_SAMPLE_MIGRATED : 0))
            return -ENOMEM;
    }
    *switches = thread_switches() - sw0;
    if (s->kind == GLIBC)
        for (size_t i = 0; i < calls; i++)
            free(ptrs[i]);
    return 0;
}

static int default_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set))
        return 0;
    for (int c = CPU_SETSIZE - 1; c > 0; c--)
        if (CPU_ISSET(c, &set))
            return c;
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: malloc_bench [-n CALLS] [-c CPU] [-b lfence|cpuid] [-o curve.svg] "
                    "[--csv summary.csv]\n");
    return 2;
}

int main(int argc, char **argv)
{
    static const size_t sz16[] = { 16 }, sz4k[] = { 4096 };
    const struct series series[] = {
        { "glibc malloc 16 B", GLIBC, sz16, 1 },
        { "glibc malloc 40-144 B (seed 004 mix)", GLIBC, ltrace_mix,
          sizeof(ltrace_mix) / sizeof(ltrace_mix[0]) },
        { "glibc malloc 4 KiB", GLIBC, sz4k, 1 },
        { "bump allocator 16 B", BUMP, sz16, 1 },
    };
    enum { NSERIES = sizeof(series) / sizeof(series[0]) };
    struct prospect_hist *h[NSERIES] = { 0 };
    long switches[NSERIES] = { 0 };
    size_t calls = 5000;
    int cpu = default_cpu(), rc = 1;
    const char *svg = NULL, *csv = NULL;
    enum prospect_barrier mode = PROSPECT_BARRIER_LFENCE;
    struct prospect_calib cal;
    cpu_set_t set;
    void **ptrs = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!v)
            return usage();
        i++;
        if (!strcmp(a, "-n")) {
            calls = strtoul(v, &end, 10);
            if (*end || calls == 0 || calls > 10000000)
                return usage();
        } else if (!strcmp(a, "-c")) {
            cpu = (int)strtol(v, &end, 10);
            if (*end || cpu < 0 || cpu >= CPU_SETSIZE)
                return usage();
        } else if (!strcmp(a, "-b")) {
            if (!strcmp(v, "cpuid"))
                mode = PROSPECT_BARRIER_CPUID;
            else if (strcmp(v, "lfence"))
                return usage();
        } else if (!strcmp(a, "-o")) {
            svg = v;
        } else if (!strcmp(a, "--csv")) {
            csv = v;
        } else {
            return usage();
        }
    }

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set)) {
        fprintf(stderr, "malloc_bench: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
        return 1;
    }
    int err = prospect_calibrate(&cal, mode, NULL);
    if (err) {
        fprintf(stderr, "malloc_bench: %s\n", prospect_calib_strerror(err));
        return 1;
    }
    printf("pinned to CPU %d; %s barrier: empty pair floor %llu ticks (median %llu); "
           "TSC %.1f MHz (%s)\n", cpu, prospect_barrier_name(mode),
           (unsigned long long)cal.floor_aux, (unsigned long long)cal.floor_aux_median, cal.hz / 1e6,
           prospect_hz_source_name(cal.hz_source));
    if (prospect_tsc_fallback())    /* not the documented reads: say which */
        printf("note: %s\n", prospect_tsc_fallback());

    /* Keep freed memory in the heap between passes (see the warm-up below). */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    ptrs = calloc(calls, sizeof(*ptrs));
    if (!ptrs)
        goto out;
    for (int s = 0; s < NSERIES; s++) {
        h[s] = prospect_hist_new(series[s].name);
        if (!h[s])
            goto out;
        /* An untimed pass first: the heap pages it touches stay mapped (no trimming), so the
         * timed pass measures malloc rather than first-touch page faults. */
        struct prospect_hist *warm = prospect_hist_new("warm-up");
        long ignored;
        if (!warm || run_series(&series[s], warm, ptrs, calls, mode, &ignored)) {
            prospect_hist_free(warm);
            goto out;
        }
        prospect_hist_free(warm);
        if (run_series(&series[s], h[s], ptrs, calls, mode, &switches[s])) {
            fprintf(stderr, "malloc_bench: out of memory\n");
            goto out;
        }
    }

    printf("\nper-call ticks, %zu calls per series (migrated calls dropped; outl = MAD outliers):\n",
           calls);
    if (prospect_hist_write_text(stdout, h, NSERIES, PROSPECT_KEEP_UNFLAGGED, cal.hz))
        goto out;
    printf("\ncontext switches during each series:");
    for (int s = 0; s < NSERIES; s++)
        printf(" %ld", switches[s]);
    printf(" (each one is a slow outlier, seed 000's realcc argument)\n");

    if (svg) {
        struct prospect_svg_opts o = { "malloc: cycles per call by percentile", "TSC ticks per call",
                                       PROSPECT_KEEP_UNFLAGGED, 0, 0, 0 };
        FILE *f = fopen(svg, "w");
        if (!f || prospect_hist_write_svg(f, h, NSERIES, &o) || fclose(f)) {
            fprintf(stderr, "malloc_bench: cannot write %s\n", svg);
            goto out;
        }
        printf("percentile curves written to %s\n", svg);
    }
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f || prospect_hist_write_csv(f, h, NSERIES, PROSPECT_KEEP_UNFLAGGED) || fclose(f)) {
            fprintf(stderr, "malloc_bench: cannot write %s\n", csv);
            goto out;
        }
    }
    rc = 0;
out:
    for (int s = 0; s < NSERIES; s++)
        prospect_hist_free(h[s]);
    free(ptrs);
    return rc;
}
