/* SPDX-License-Identifier: MIT */
/* Seed 000, section 3.1: time ten calls of sqrt(2.0) with the cycle counter and print the
 * times after the loop (printf inside the loop would disturb what it measures). The first call
 * is usually slower: caches, branch predictors and the lazy PLT binding of sqrt are cold.
 *
 *     cc -O2 sqrt_timing.c $(pkg-config --cflags --libs prospect) -lm
 */
#include <math.h>
#include <stdio.h>
#include <prospect/calibrate.h>

#define CALLS 10

int main(void)
{
    /* Through a volatile pointer so each iteration really calls libm's sqrt, as in the seed,
     * instead of the compiler folding it into one sqrtsd instruction. */
    double (*volatile fn)(double) = sqrt;
    volatile double x = 2.0;
    uint64_t ticks[CALLS];
    int migrated[CALLS];
    struct prospect_calib cal;
    const char *why = prospect_tsc_unusable();
    int err;

    if (why) {
        fprintf(stderr, "sqrt_timing: %s\n", why);
        return 1;
    }
    for (int i = 0; i < CALLS; i++) {
        uint32_t a0, a1;
        uint64_t t0 = prospect_tsc_start_aux(&a0);
        double r = fn(x);
        prospect_keep(&r);
        uint64_t t1 = prospect_tsc_end(&a1);
        ticks[i] = t1 - t0;
        migrated[i] = prospect_tsc_migrated(a0, a1);
    }
    for (int i = 0; i < CALLS; i++)
        printf(" %llu", (unsigned long long)ticks[i]);
    printf("\n");

    /* Calibrate after the loop so it does not warm anything up for the first call. */
    err = prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL);
    if (err) {
        fprintf(stderr, "sqrt_timing: %s\n", prospect_calib_strerror(err));
        return 1;
    }
    uint64_t rest = ticks[1];
    for (int i = 2; i < CALLS; i++)
        rest = ticks[i] < rest ? ticks[i] : rest;
    printf("TSC ticks per call, including the measurement floor of %llu ticks (lfence barrier).\n",
           (unsigned long long)cal.floor_aux);
    if (prospect_tsc_fallback())    /* not the reads named above: say which */
        printf("note: %s\n", prospect_tsc_fallback());
    printf("first call %llu ticks (%.0f ns net), fastest later call %llu ticks (%.0f ns net); "
           "TSC %.1f MHz (%s)\n", (unsigned long long)ticks[0],
           prospect_calib_ns(&cal, prospect_calib_net_aux(&cal, ticks[0])),
           (unsigned long long)rest, prospect_calib_ns(&cal, prospect_calib_net_aux(&cal, rest)),
           cal.hz / 1e6, prospect_hz_source_name(cal.hz_source));
    for (int i = 0; i < CALLS; i++)
        if (migrated[i])
            printf("call %d migrated between CPUs: discard it\n", i + 1);
    return 0;
}
