/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <time.h>
#include "test.h"
#include "prospect/calibrate.h"

static const char *unusable;

TEST(reads_are_ordered)
{
    uint32_t a0 = 0, a1 = 0;
    uint64_t t0, t1, t2, t3;
    if (unusable)
        SKIP(unusable);
    t0 = prospect_tsc_start_aux(&a0);
    t1 = prospect_tsc_end(&a1);
    CHECK(t1 > t0);
    t2 = prospect_tsc_start();
    t3 = prospect_tsc_end(NULL);
    CHECK(t3 > t2 && t2 >= t1);
    /* Linux puts the CPU number in TSC_AUX; it matches the scheduler's view. */
    CHECK(prospect_aux_cpu(a1) < 4096);
    CHECK(!prospect_tsc_migrated(7, 7) && prospect_tsc_migrated(7, 8));
}

/* The CPUID detection agrees with the kernel's flags; the fallback is named only without it. */
TEST(rdtscp_detection_matches_cpuinfo)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int flag = 0;
    if (!f)
        SKIP("/proc/cpuinfo not readable");
    while (!flag && fgets(line, sizeof(line), f))
        flag = !strncmp(line, "flags", 5) && strstr(line, " rdtscp");
    fclose(f);
    CHECK(!!(prospect_tsc_features() & PROSPECT_TSC_HAS_RDTSCP) == flag);
    CHECK((prospect_tsc_fallback() == NULL) == flag);
}

TEST(calibration_lfence_gives_floor_step_and_frequency)
{
    struct prospect_calib cal;
    if (unusable) {
        CHECK(prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL) == -ENOTSUP);
        SKIP(unusable);
    }
    CHECK(prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL) == 0);
    CHECK(cal.floor > 0);
    CHECK(cal.floor <= cal.floor_median);
    CHECK(cal.floor_aux > 0);
    CHECK(cal.floor_aux <= cal.floor_aux_median);
    CHECK_EQ_U64(prospect_calib_net_aux(&cal, cal.floor_aux + 7), 7);
    CHECK(cal.step >= 1);
    CHECK(cal.hz > 1e6);
    CHECK(cal.hz_source == PROSPECT_HZ_CPUID || cal.hz_source == PROSPECT_HZ_CALIBRATED);
    CHECK_EQ_U64(prospect_calib_net(&cal, cal.floor + 5), 5);
    CHECK_EQ_U64(prospect_calib_net(&cal, 0), 0);
}

TEST(calibration_cpuid_mode_gives_floor)
{
    struct prospect_calib cal;
    struct prospect_calib_opts o = { 200, 5, 1 };
    if (unusable)
        SKIP(unusable);
    CHECK(prospect_calibrate(&cal, PROSPECT_BARRIER_CPUID, &o) == 0);
    CHECK(cal.mode == PROSPECT_BARRIER_CPUID);
    CHECK(cal.floor > 0);
    CHECK(cal.hz_source == PROSPECT_HZ_CALIBRATED);
    CHECK(prospect_calibrate(&cal, (enum prospect_barrier)7, &o) == -EINVAL);
}

/* A CLOCK_MONOTONIC_RAW reading and the TSC at the same moment: the midpoint of the tightest
 * of several TSC-bracketed clock reads, so a preemption at the wrong moment cannot skew it. */
static void clock_and_tsc(double *ns, uint64_t *tsc)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        struct timespec ts;
        uint64_t a = prospect_tsc_start();
        clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
        uint64_t b = prospect_tsc_end(NULL);
        if (b - a < best) {
            best = b - a;
            *ns = ts.tv_sec * 1e9 + ts.tv_nsec;
            *tsc = a + (b - a) / 2;
        }
    }
}

/* The conversion is right: over a fresh 50 ms busy interval, TSC ticks / hz agree with the
 * kernel's CLOCK_MONOTONIC_RAW within 1%. This checks correctness, not speed; up to three
 * attempts so that a badly timed preemption on a loaded machine is not taken for an error. */
TEST(frequency_matches_kernel_clock_within_one_percent)
{
    struct prospect_calib cal;
    double tsc_ns = 0, clk_ns = 0;
    if (unusable)
        SKIP(unusable);
    CHECK(prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL) == 0);
    for (int attempt = 0; attempt < 3; attempt++) {
        double n0, n1;
        uint64_t t0, t1;
        clock_and_tsc(&n0, &t0);
        do
            clock_and_tsc(&n1, &t1);
        while (n1 - n0 < 50e6);
        clk_ns = n1 - n0;
        tsc_ns = prospect_calib_ns(&cal, t1 - t0);
        if (fabs(tsc_ns - clk_ns) <= 0.01 * clk_ns)
            break;
        printf("# attempt %d: tsc %.0f ns vs clock %.0f ns (hz %.0f from %s)\n", attempt + 1,
               tsc_ns, clk_ns, cal.hz, prospect_hz_source_name(cal.hz_source));
    }
    CHECK(fabs(tsc_ns - clk_ns) <= 0.01 * clk_ns);
}

TEST(measure_hz_rejects_zero_interval)
{
    double hz;
    CHECK(prospect_tsc_measure_hz(0, &hz) == -EINVAL);
}

TEST(cycles_to_ns)
{
    CHECK(prospect_cycles_to_ns(2300, 2.3e9) == 1000.0);
    CHECK(prospect_cycles_to_ns(5, 0) == 0);
    CHECK_STR(prospect_barrier_name(PROSPECT_BARRIER_CPUID), "cpuid");
    CHECK_STR(prospect_barrier_name(PROSPECT_BARRIER_LFENCE), "lfence");
    CHECK(strstr(prospect_calib_strerror(-EIO), "backwards"));
}

int main(void)
{
    unusable = prospect_tsc_unusable();
    RUN(reads_are_ordered);
    RUN(rdtscp_detection_matches_cpuinfo);
    RUN(calibration_lfence_gives_floor_step_and_frequency);
    RUN(calibration_cpuid_mode_gives_floor);
    RUN(frequency_matches_kernel_clock_within_one_percent);
    RUN(measure_hz_rejects_zero_interval);
    RUN(cycles_to_ns);
    return 0;
}
