/* prospect/cycles.h: serialized reads of the x86-64 time-stamp counter (TSC), for timing small
 * pieces of your own code in cycles (seed 000's realcc(), seed 004's rdtsc_s()/rdtsc_e()).
 *
 * What is where:
 *   - This header is self-contained (header-only, C99 and C++): the start/end reads, the CPU id
 *     that the end read returns, the TSC-invariance check and the CPUID frequency. Reads must be
 *     inline: a function call would add its own cost and reordering to every measurement.
 *   - libprospect (`pkg-config --cflags --libs prospect`) holds what runs once or off the hot
 *     path: calibration (floor, counter step, frequency; <prospect/calibrate.h>) and the
 *     histogram/percentile/SVG module (<prospect/histogram.h>).
 *
 * Usage:
 *     uint32_t cpu0, cpu1;
 *     uint64_t t0 = prospect_tsc_start_aux(&cpu0);    // or prospect_tsc_start()
 *     work();
 *     uint64_t t1 = prospect_tsc_end(&cpu1);
 *     if (prospect_tsc_migrated(cpu0, cpu1)) ...      // the two reads ran on different CPUs
 *
 * Barriers (enum prospect_barrier):
 *   LFENCE (default)  start: lfence; rdtsc        end: rdtscp; lfence
 *   CPUID (Paoloni)   start: cpuid; rdtsc         end: rdtscp; cpuid
 * LFENCE keeps earlier instructions from finishing after the start read and later ones from
 * starting before the end read, at a cost of tens of cycles. CPUID fully serializes, but a
 * hypervisor traps it (microseconds per pair in a VM), which swamps small measurements.
 * The compiler may still move register-only arithmetic across a read: keep the measured result
 * observable with prospect_keep(&result).
 */
#ifndef PROSPECT_CYCLES_H
#define PROSPECT_CYCLES_H

#include <stdint.h>
#if !defined(__x86_64__)
#error "prospect/cycles.h reads the x86-64 time-stamp counter; this target is not x86-64"
#endif
#include <cpuid.h>

#ifdef __cplusplus
extern "C" {
#endif

enum prospect_barrier {
    PROSPECT_BARRIER_LFENCE = 0,    /* lfence; rdtsc ... rdtscp; lfence (default) */
    PROSPECT_BARRIER_CPUID = 1      /* cpuid; rdtsc ... rdtscp; cpuid (Paoloni, 2010) */
};

/* Bare rdtsc, not serialized: the CPU may execute it early or late relative to nearby code. */
static inline uint64_t prospect_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Bare rdtscp: waits for earlier instructions to execute; *aux (may be NULL) gets TSC_AUX. */
static inline uint64_t prospect_rdtscp(uint32_t *aux)
{
    uint32_t lo, hi, a;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* Start read, default barrier: lfence; rdtsc. */
static inline uint64_t prospect_tsc_start(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Start read that also returns TSC_AUX (the CPU id), to detect migration: rdtscp; lfence.
 * rdtscp waits for earlier instructions; the lfence keeps the measured code from starting early. */
static inline uint64_t prospect_tsc_start_aux(uint32_t *aux)
{
    uint32_t lo, hi, a;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* End read, default barrier: rdtscp; lfence. *aux (may be NULL) gets TSC_AUX. */
static inline uint64_t prospect_tsc_end(uint32_t *aux)
{
    uint32_t lo, hi, a;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* Paoloni's start: cpuid (leaf 0, fully serializing); rdtsc. */
static inline uint64_t prospect_tsc_start_cpuid(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xorl %%eax, %%eax\n\tcpuid\n\trdtsc"
                         : "=a"(lo), "=d"(hi) : : "rbx", "rcx", "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Paoloni's end: rdtscp; cpuid. *aux (may be NULL) gets TSC_AUX. */
static inline uint64_t prospect_tsc_end_cpuid(uint32_t *aux)
{
    uint32_t lo, hi, a;
    __asm__ __volatile__("rdtscp\n\tmovl %%eax, %0\n\tmovl %%edx, %1\n\tmovl %%ecx, %2\n\t"
                         "xorl %%eax, %%eax\n\tcpuid"
                         : "=r"(lo), "=r"(hi), "=r"(a) : : "rax", "rbx", "rcx", "rdx", "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* The start/end reads for a barrier chosen at run time (a constant mode folds away). */
static inline uint64_t prospect_tsc_start_mode(enum prospect_barrier mode)
{
    return mode == PROSPECT_BARRIER_CPUID ? prospect_tsc_start_cpuid() : prospect_tsc_start();
}

static inline uint64_t prospect_tsc_end_mode(enum prospect_barrier mode, uint32_t *aux)
{
    return mode == PROSPECT_BARRIER_CPUID ? prospect_tsc_end_cpuid(aux) : prospect_tsc_end(aux);
}

/* Linux stores (node << 12) | cpu in TSC_AUX. */
static inline unsigned prospect_aux_cpu(uint32_t aux) { return aux & 0xfffu; }
static inline unsigned prospect_aux_node(uint32_t aux) { return aux >> 12; }

/* True when the start and end reads ran on different CPUs: the measurement includes a
 * migration (and so at least one context switch) and should be flagged or dropped. */
static inline int prospect_tsc_migrated(uint32_t aux_start, uint32_t aux_end)
{
    return aux_start != aux_end;
}

/* Keeps a computed value observable so the compiler cannot drop or move the measured work. */
static inline void prospect_keep(const void *p)
{
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* NULL when the TSC can be used for timing here, else a sentence saying why not: the TSC must
 * be invariant (CPUID 0x80000007 EDX bit 8: constant rate across P-, C- and T-states) and
 * rdtscp must exist (CPUID 0x80000001 EDX bit 27) for the end read. */
static inline const char *prospect_tsc_unusable(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return "the CPU does not report whether its TSC is invariant (no CPUID leaf 0x80000007); "
               "cycle counts may not be comparable: use clock_gettime(CLOCK_MONOTONIC_RAW)";
    __get_cpuid(0x80000001u, &a, &b, &c, &d);
    if (!(d & (1u << 27)))
        return "the CPU has no rdtscp instruction (CPUID 0x80000001 EDX bit 27 clear); "
               "use clock_gettime(CLOCK_MONOTONIC_RAW)";
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    if (!(d & (1u << 8)))
        return "the TSC is not invariant (CPUID 0x80000007 EDX bit 8 clear): its rate changes "
               "with frequency and sleep states, so cycle counts are not comparable; "
               "use clock_gettime(CLOCK_MONOTONIC_RAW)";
    return 0;
}

/* The TSC frequency in Hz as the CPU enumerates it, or 0 when it does not:
 * CPUID 0x15 (TSC/crystal ratio and crystal Hz); when the crystal Hz is not given, the
 * nominal base frequency from CPUID 0x16 (the TSC runs at the base frequency on those parts). */
static inline double prospect_tsc_hz_cpuid(void)
{
    unsigned a, b, c, d, max = __get_cpuid_max(0, 0);
    if (max < 0x15u)
        return 0;
    __cpuid_count(0x15u, 0, a, b, c, d);
    if (a == 0 || b == 0)
        return 0;
    if (c != 0)
        return (double)c * (double)b / (double)a;
    if (max < 0x16u)
        return 0;
    __cpuid_count(0x16u, 0, a, b, c, d);
    return (a & 0xffffu) ? (double)(a & 0xffffu) * 1e6 : 0;
}

/* Ticks to nanoseconds at `hz` ticks per second (from prospect_calibrate() or the CPUID). */
static inline double prospect_cycles_to_ns(uint64_t ticks, double hz)
{
    return hz > 0 ? (double)ticks * 1e9 / hz : 0;
}

#ifdef __cplusplus
}
#endif
#endif
