/* SPDX-License-Identifier: MIT */
/* prospect/calibrate.h: what one TSC measurement costs and how long a tick is (libprospect).
 *
 * Run once at start-up, outside the measured loop:
 *     struct prospect_calib cal;
 *     int err = prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL);
 *     if (err) { fprintf(stderr, "%s\n", prospect_calib_strerror(err)); exit(1); }
 *     ... ticks = t1 - t0;
 *     net = prospect_calib_net(&cal, ticks);     // floor subtracted (on request);
 *                                                // prospect_calib_net_aux() after start_aux
 *     ns  = prospect_calib_ns(&cal, net);
 */
#ifndef PROSPECT_CALIBRATE_H
#define PROSPECT_CALIBRATE_H

#include <stdint.h>
#include "prospect/cycles.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PROSPECT_API
#define PROSPECT_API __attribute__((visibility("default")))
#endif

enum prospect_hz_source {
    PROSPECT_HZ_CPUID = 1,          /* CPUID 0x15/0x16 */
    PROSPECT_HZ_CALIBRATED = 2      /* measured against CLOCK_MONOTONIC_RAW */
};

struct prospect_calib {
    enum prospect_barrier mode;     /* the barrier the floor was measured with */
    uint64_t floor;                 /* minimum ticks of an empty start/end pair in that mode */
    uint64_t floor_median;          /* median of the same pairs (the typical overhead) */
    uint64_t floor_aux;             /* the same when the start read returns the CPU */
    uint64_t floor_aux_median;      /* (prospect_tsc_start_aux(): rdtscp;lfence costs more) */
    uint64_t step;                  /* counter granularity: gcd of back-to-back read deltas */
    double hz;                      /* TSC ticks per second */
    enum prospect_hz_source hz_source;
};

struct prospect_calib_opts {
    unsigned pairs;                 /* empty pairs for the floor; 0: 20000 (2000 for CPUID) */
    unsigned interval_ms;           /* frequency calibration interval; 0: 20 ms */
    int force_measure;              /* measure the frequency even when the CPUID gives it */
};

/* Measures floor, step and frequency for `mode` (opts may be NULL). Returns 0, or -ENOTSUP when
 * the TSC cannot be used for timing (prospect_tsc_unusable() says why), or -EIO when the clock
 * misbehaves. Busy-waits for about interval_ms; does not change the thread's CPU affinity. */
PROSPECT_API int prospect_calibrate(struct prospect_calib *cal, enum prospect_barrier mode,
                                    const struct prospect_calib_opts *opts);

/* Measures the TSC frequency over a busy interval of `ms` milliseconds against
 * CLOCK_MONOTONIC_RAW (the kernel's unadjusted clock). Returns 0 or -errno. */
PROSPECT_API int prospect_tsc_measure_hz(unsigned ms, double *hz);

/* A sentence for an error returned by prospect_calibrate(). */
PROSPECT_API const char *prospect_calib_strerror(int err);

/* "cpuid" or "calibrated". */
PROSPECT_API const char *prospect_hz_source_name(enum prospect_hz_source src);

/* "lfence" or "cpuid". */
PROSPECT_API const char *prospect_barrier_name(enum prospect_barrier mode);

/* Ticks minus the floor (0 when below it): the cost of the measured code alone. */
static inline uint64_t prospect_calib_net(const struct prospect_calib *cal, uint64_t ticks)
{
    return ticks > cal->floor ? ticks - cal->floor : 0;
}

/* The same for measurements started with prospect_tsc_start_aux(). */
static inline uint64_t prospect_calib_net_aux(const struct prospect_calib *cal, uint64_t ticks)
{
    return ticks > cal->floor_aux ? ticks - cal->floor_aux : 0;
}

/* Ticks to nanoseconds with the calibrated frequency. */
static inline double prospect_calib_ns(const struct prospect_calib *cal, uint64_t ticks)
{
    return prospect_cycles_to_ns(ticks, cal->hz);
}

#ifdef __cplusplus
}
#endif
#endif
