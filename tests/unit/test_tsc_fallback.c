/* SPDX-License-Identifier: MIT */
/* The reads cycles.h uses without rdtscp, forced with the tests-only PROSPECT_TSC_FALLBACK
 * switch (set before the first read: each translation unit detects once), so they are covered
 * on CPUs that do have rdtscp too. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
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

/* The rdpid path, in a fresh process (the choice is cached): "1" hides rdtscp only.
 * Exit status 0 when rdpid gives the pinned CPU at both ends. */
static int rdpid_child(void)
{
    uint32_t a0, a1;
    int cpu = pin_here();
    const char *note = prospect_tsc_fallback();
    if (cpu < 0 || !note || !strstr(note, "rdpid"))
        return 1;
    unsigned f = prospect_tsc_features();
    if ((f & PROSPECT_TSC_HAS_RDTSCP) || !(f & PROSPECT_TSC_HAS_RDPID))
        return 2;
    uint64_t t0 = prospect_tsc_start_aux(&a0);
    uint64_t t1 = prospect_tsc_end(&a1);
    if (t1 <= t0 || prospect_aux_cpu(a0) != (unsigned)cpu || prospect_aux_cpu(a1) != (unsigned)cpu)
        return 3;
    return prospect_aux_cpu(prospect_tsc_cpu()) == (unsigned)cpu ? 0 : 4;
}

TEST(fallback_rdpid_gives_the_cpu)
{
    unsigned a, b, c = 0, d;
    int status;
    if (__get_cpuid_max(0, 0) < 7u)
        SKIP("the CPU has no CPUID leaf 7, so no rdpid");
    __cpuid_count(7u, 0, a, b, c, d);
    if (!(c & (1u << 22)))
        SKIP("the CPU has no rdpid (CPUID 7.0 ECX bit 22 clear): the getcpu path covers it");
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        setenv("PROSPECT_TSC_FALLBACK", "1", 1);
        execl("/proc/self/exe", "test_tsc_fallback", "rdpid", (char *)NULL);
        _exit(127);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ_U64(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "rdpid"))
        return rdpid_child();
    if (setenv("PROSPECT_TSC_FALLBACK", "getcpu", 1))
        return 1;
    unusable = prospect_tsc_unusable();
    RUN(fallback_is_reported);
    RUN(fallback_reads_are_ordered_and_give_the_cpu);
    RUN(fallback_calibrates_both_barriers);
    RUN(fallback_rdpid_gives_the_cpu);
    return 0;
}
