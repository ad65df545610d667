/* SPDX-License-Identifier: MIT */
/* Calibration of TSC measurements: floor, counter step and frequency. Part of libprospect, so
 * it depends on libc only (no src/util). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "prospect/calibrate.h"

#define DEFAULT_PAIRS        20000u
#define DEFAULT_PAIRS_CPUID  2000u      /* cpuid traps in VMs: ~10 us per pair */
#define DEFAULT_INTERVAL_MS  20u
#define STEP_READS           2000u

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t ts_ns(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* One (TSC, clock) correspondence: the clock read bracketed by two TSC reads, best of a few
 * tries so that an interrupt between the reads does not skew it. */
static int tsc_clock_pair(uint64_t *tsc, int64_t *ns)
{
    uint64_t best_width = UINT64_MAX;

    for (int i = 0; i < 8; i++) {
        struct timespec ts;
        uint64_t a = prospect_tsc_start();
        if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts))
            return -errno;
        uint64_t b = prospect_tsc_end(NULL);
        if (b < a)
            continue;
        if (b - a < best_width) {
            best_width = b - a;
            *tsc = a + (b - a) / 2;
            *ns = ts_ns(&ts);
        }
    }
    return best_width == UINT64_MAX ? -EIO : 0;
}

int prospect_tsc_measure_hz(unsigned ms, double *hz)
{
    uint64_t t0, t1;
    int64_t n0, n1;
    int err;

    if (ms == 0)
        return -EINVAL;
    err = tsc_clock_pair(&t0, &n0);
    if (err)
        return err;
    /* Busy-wait rather than sleep: a sleeping CPU may change state, and we want the interval
     * to end promptly after the deadline. */
    do {
        err = tsc_clock_pair(&t1, &n1);
        if (err)
            return err;
    } while (n1 - n0 < (int64_t)ms * 1000000);
    if (t1 <= t0)
        return -EIO;
    *hz = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
    return 0;
}

/* Minimum and median of `pairs` empty pairs; aux: start with the CPU-returning read. */
static int measure_floor(enum prospect_barrier mode, int aux, unsigned pairs, uint64_t *min,
                         uint64_t *median)
{
    uint64_t *d = malloc(pairs * sizeof(*d));
    unsigned n = 0;

    if (!d)
        return -ENOMEM;
    for (unsigned i = 0; i < pairs; i++) {
        uint32_t a0 = 0, a1 = 0;
        uint64_t t0, t1;
        if (mode == PROSPECT_BARRIER_CPUID) {
            if (aux)
                a0 = prospect_tsc_cpu();
            t0 = prospect_tsc_start_cpuid();
            t1 = prospect_tsc_end_cpuid(&a1);
        } else if (aux) {
            t0 = prospect_tsc_start_aux(&a0);
            t1 = prospect_tsc_end(&a1);
        } else {
            t0 = prospect_tsc_start();
            t1 = prospect_tsc_end(&a1);
        }
        if ((aux && a0 != a1) || t1 < t0)
            continue;       /* migrated: TSCs of two CPUs are not a measurement */
        d[n++] = t1 - t0;
    }
    if (n == 0) {
        free(d);
        return -EIO;
    }
    qsort(d, n, sizeof(*d), cmp_u64);
    *min = d[0];
    *median = d[(n - 1) / 2];
    free(d);
    return 0;
}

static uint64_t measure_step(void)
{
    uint64_t g = 0, prev = prospect_rdtsc();

    for (unsigned i = 0; i < STEP_READS; i++) {
        uint64_t t = prospect_rdtsc();
        if (t > prev)
            g = gcd_u64(g, t - prev);
        prev = t;
    }
    return g ? g : 1;
}

int prospect_calibrate(struct prospect_calib *cal, enum prospect_barrier mode,
                       const struct prospect_calib_opts *opts)
{
    struct prospect_calib_opts o = {0, 0, 0};
    double hz;
    int err;

    if (opts)
        o = *opts;
    if (mode != PROSPECT_BARRIER_LFENCE && mode != PROSPECT_BARRIER_CPUID)
        return -EINVAL;
    if (prospect_tsc_unusable())
        return -ENOTSUP;
    if (!o.pairs)
        o.pairs = mode == PROSPECT_BARRIER_CPUID ? DEFAULT_PAIRS_CPUID : DEFAULT_PAIRS;
    if (!o.interval_ms)
        o.interval_ms = DEFAULT_INTERVAL_MS;

    cal->mode = mode;
    err = measure_floor(mode, 0, o.pairs, &cal->floor, &cal->floor_median);
    if (!err)
        err = measure_floor(mode, 1, o.pairs, &cal->floor_aux, &cal->floor_aux_median);
    if (err)
        return err;
    cal->step = measure_step();
    hz = o.force_measure ? 0 : prospect_tsc_hz_cpuid();
    if (hz > 0) {
        cal->hz = hz;
        cal->hz_source = PROSPECT_HZ_CPUID;
        return 0;
    }
    err = prospect_tsc_measure_hz(o.interval_ms, &hz);
    if (err)
        return err;
    cal->hz = hz;
    cal->hz_source = PROSPECT_HZ_CALIBRATED;
    return 0;
}

const char *prospect_calib_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case -ENOTSUP: {
        const char *why = prospect_tsc_unusable();
        return why ? why : "the TSC cannot be used for timing on this machine";
    }
    case -ENOMEM:
        return "out of memory";
    case -EINVAL:
        return "invalid barrier mode or interval";
    case -EIO:
        return "the TSC or CLOCK_MONOTONIC_RAW went backwards during calibration";
    default:
        return "calibration failed";
    }
}

const char *prospect_hz_source_name(enum prospect_hz_source src)
{
    return src == PROSPECT_HZ_CPUID ? "cpuid" : src == PROSPECT_HZ_CALIBRATED ? "calibrated" : "unknown";
}

const char *prospect_barrier_name(enum prospect_barrier mode)
{
    return mode == PROSPECT_BARRIER_CPUID ? "cpuid" : "lfence";
}
