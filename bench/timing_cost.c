/* SPDX-License-Identifier: MIT */
/* What one start/end pair costs here, for each way of reading time: median and minimum TSC
 * ticks of an empty pair (nothing measured between the reads), and the same in ns. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <prospect/calibrate.h>

enum kind { BARE_RDTSC, BARE_RDTSCP, LFENCE, LFENCE_AUX, CPUID, CLOCK_MONO, CLOCK_RAW, NKINDS };
static const char *const names[NKINDS] = {
    "rdtsc; rdtsc (bare, unserialized)", "rdtscp; rdtscp (bare)",
    "lfence: lfence;rdtsc .. rdtscp;lfence", "lfence+aux: rdtscp;lfence .. rdtscp;lfence",
    "cpuid (Paoloni): cpuid;rdtsc .. rdtscp;cpuid", "clock_gettime(CLOCK_MONOTONIC) pair",
    "clock_gettime(CLOCK_MONOTONIC_RAW) pair",
};

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t one(enum kind k)
{
    struct timespec ts;
    uint32_t a;
    uint64_t t0, t1;
    switch (k) {
    case BARE_RDTSC: t0 = prospect_rdtsc(); t1 = prospect_rdtsc(); break;
    case BARE_RDTSCP: t0 = prospect_rdtscp(&a); t1 = prospect_rdtscp(&a); break;
    case LFENCE: t0 = prospect_tsc_start(); t1 = prospect_tsc_end(&a); break;
    case LFENCE_AUX: t0 = prospect_tsc_start_aux(&a); t1 = prospect_tsc_end(&a); break;
    case CPUID: t0 = prospect_tsc_start_cpuid(); t1 = prospect_tsc_end_cpuid(&a); break;
    /* A clock_gettime pair is timed from outside, between two fenced TSC reads, minus the
     * empty fenced pair measured separately. */
    case CLOCK_MONO:
    case CLOCK_RAW: {
        clockid_t id = k == CLOCK_MONO ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_RAW;
        t0 = prospect_tsc_start();
        clock_gettime(id, &ts);
        clock_gettime(id, &ts);
        t1 = prospect_tsc_end(&a);
        break;
    }
    default: return 0;
    }
    return t1 - t0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    uint64_t *d = malloc(sizeof(*d) * (size_t)n), lfence_med = 0;
    struct prospect_calib cal;
    cpu_set_t set;
    int cpu = 0, err;

    if (!d || n < 100)
        return 1;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpu = c;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
    err = prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL);
    if (err) {
        fprintf(stderr, "bench: %s\n", prospect_calib_strerror(err));
        return 1;
    }
    double hz_cpuid = prospect_tsc_hz_cpuid(), hz_meas;
    if (prospect_tsc_measure_hz(100, &hz_meas))
        hz_meas = 0;
    printf("CPU %d; TSC %.3f MHz (%s); measured over 100 ms against CLOCK_MONOTONIC_RAW: "
           "%.3f MHz; CPUID 0x15/0x16: %s\n", cpu, cal.hz / 1e6,
           prospect_hz_source_name(cal.hz_source), hz_meas / 1e6,
           hz_cpuid > 0 ? "present" : "not enumerated");
    printf("calibrated floor (lfence): min %llu, median %llu ticks; counter step %llu\n\n",
           (unsigned long long)cal.floor, (unsigned long long)cal.floor_median,
           (unsigned long long)cal.step);
    if (prospect_tsc_fallback())    /* the rows below name the rdtscp reads: say what ran */
        printf("note: %s\n\n", prospect_tsc_fallback());
    printf("%-46s %12s %9s %10s %11s %8s\n", "one empty start/end pair", "median ticks", "min",
           "median ns", "cost/pair", "pairs");
    for (int k = 0; k < NKINDS; k++) {
        int m = k == CPUID ? (n / 100 > 1000 ? n / 100 : 1000) : n;
        if (m > n)
            m = n;
        for (int i = 0; i < 1000 && i < m; i++)
            one((enum kind)k);      /* warm-up */
        /* Wall cost per pair, including barrier work outside the measured interval (Paoloni's
         * cpuid runs before the start read and after the end read). */
        uint64_t w0 = prospect_tsc_start();
        for (int i = 0; i < m; i++)
            d[i] = one((enum kind)k);
        uint64_t w1 = prospect_tsc_end(NULL);
        double cost_ns = prospect_calib_ns(&cal, (w1 - w0) / (uint64_t)m);
        qsort(d, (size_t)m, sizeof(*d), cmp);
        uint64_t med = d[m / 2], min = d[0];
        if (k == LFENCE)
            lfence_med = med;
        if (k == CLOCK_MONO || k == CLOCK_RAW) {
            /* Report one clock_gettime call: (pair - fenced reads) / 2. */
            med = med > lfence_med ? (med - lfence_med) / 2 : 0;
            min = min > cal.floor ? (min - cal.floor) / 2 : 0;
        }
        printf("%-46s %12llu %9llu %10.1f %8.1f ns %8d\n", names[k], (unsigned long long)med,
               (unsigned long long)min, prospect_calib_ns(&cal, med), cost_ns, m);
    }
    printf("\nmedian/min: ticks between the two reads (what a measurement includes);\n"
           "cost/pair: wall time per start+end, barriers outside the interval included;\n"
           "clock_gettime rows: a measurement made with two calls includes about one call, so\n"
           "median/min give one call: (fenced pair of calls - fenced reads) / 2.\n");
    free(d);
    return 0;
}
