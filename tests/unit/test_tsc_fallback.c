/* The reads cycles.h uses without rdtscp, forced with the tests-only PROSPECT_TSC_FALLBACK
 * switch (set before the first read: each translation unit detects once), so they are covered
 * on CPUs that do have rdtscp too. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "prospect/calibrate.h"

static const char *unusable;

/* Pins this thread to the CPU it runs on, so the kernel's sched_getcpu() is the oracle. */
static int pin_here(void)
{
    cpu_set_t set;
    int cpu = sched_getcpu();
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

TEST(fallback_is_reported)
{
    const char *note = prospect_tsc_fallback();
    CHECK(note && strstr(note, "no rdtscp") && strstr(note, "getcpu"));
    CHECK(!(prospect_tsc_features() & (PROSPECT_TSC_HAS_RDTSCP | PROSPECT_TSC_HAS_RDPID)));
}

TEST(fallback_reads_are_ordered_and_give_the_cpu)
{
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int cpu = pin_here();
    if (unusable)
        SKIP(unusable);
    CHECK(cpu >= 0);
    uint64_t t0 = prospect_tsc_start_aux(&a0);
    uint64_t t1 = prospect_tsc_end(&a1);
    uint64_t t2 = prospect_rdtscp(&a2);
    a3 = prospect_tsc_cpu();
    uint64_t t3 = prospect_tsc_start_cpuid();
    uint64_t t4 = prospect_tsc_end_cpuid(&a3);
    CHECK(t0 < t1 && t1 <= t2 && t2 <= t3 && t3 < t4);
    CHECK_EQ_U64(prospect_aux_cpu(a0), (uint64_t)cpu);
    CHECK_EQ_U64(prospect_aux_cpu(a1), (uint64_t)cpu);
    CHECK_EQ_U64(prospect_aux_cpu(a2), (uint64_t)cpu);
    CHECK_EQ_U64(prospect_aux_cpu(a3), (uint64_t)cpu);
    CHECK(!prospect_tsc_migrated(a0, a1));
}

/* libprospect's calibration is another translation unit: it detects the same fallback. */
TEST(fallback_calibrates_both_barriers)
{
    struct prospect_calib cal;
    struct prospect_calib_opts o = { 200, 5, 1 };
    if (unusable)
        SKIP(unusable);
    CHECK(prospect_calibrate(&cal, PROSPECT_BARRIER_LFENCE, NULL) == 0);
    CHECK(cal.floor > 0 && cal.floor_aux > 0 && cal.hz > 1e6);
    CHECK(prospect_calibrate(&cal, PROSPECT_BARRIER_CPUID, &o) == 0);
    CHECK(cal.floor > 0);
}

int main(void)
{
    if (setenv("PROSPECT_TSC_FALLBACK", "getcpu", 1))
        return 1;
    unusable = prospect_tsc_unusable();
    RUN(fallback_is_reported);
    RUN(fallback_reads_are_ordered_and_give_the_cpu);
    RUN(fallback_calibrates_both_barriers);
    return 0;
}
