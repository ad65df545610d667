/* SPDX-License-Identifier: MIT */
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
 * Without rdtscp (some VMs hide it; CPUID 0x80000001 EDX bit 27 clear) the end reads become
 * lfence; rdtsc; lfence and rdtsc; cpuid, and the CPU id comes from rdpid (CPUID 7.0 ECX bit 22)
 * or else getcpu(), read before the start read and after the end read, outside the interval.
 * prospect_tsc_fallback() says so; print it once. With rdtscp the reads are unchanged.
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
#include <stdlib.h>     /* getenv: the tests' PROSPECT_TSC_FALLBACK switch */

/* glibc declares getcpu() (2.29+) only under _GNU_SOURCE; the same declaration again is allowed. */
#ifdef __cplusplus
extern "C" {
#endif
#ifdef __THROW
extern int getcpu(unsigned int *, unsigned int *) __THROW;
#else
extern int getcpu(unsigned int *, unsigned int *);
#endif
#ifdef __cplusplus
}
#endif

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

/* What the CPU offers for the end read and the CPU id, detected once per translation unit
 * with CPUID (0x80000001 EDX bit 27: RDTSCP; 7.0 ECX bit 22: RDPID) and cached.
 * PROSPECT_TSC_FALLBACK is for tests only: "1" hides rdtscp, "getcpu" hides rdtscp and rdpid,
 * so the fallback reads below can be covered on CPUs that have the instructions. */
#define PROSPECT_TSC_HAS_RDTSCP 1u
#define PROSPECT_TSC_HAS_RDPID 2u
#define PROSPECT_TSC_DETECTED_ 0x80000000u

/* Out of line and cold: the reads inline only the cached load and a branch. */
static __attribute__((noinline, cold, unused)) unsigned prospect_tsc_detect_(void)
{
    unsigned a, b, c, d, f = PROSPECT_TSC_DETECTED_, max = __get_cpuid_max(0, 0);
    const char *force = getenv("PROSPECT_TSC_FALLBACK");
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d) && (d & (1u << 27)))
        f |= PROSPECT_TSC_HAS_RDTSCP;
    if (max >= 7u) {
        __cpuid_count(7u, 0, a, b, c, d);
        if (c & (1u << 22))
            f |= PROSPECT_TSC_HAS_RDPID;
    }
    if (force && force[0])
        f &= ~(PROSPECT_TSC_HAS_RDTSCP | (force[0] == 'g' ? PROSPECT_TSC_HAS_RDPID : 0u));
    return f;
}

/* PROSPECT_TSC_HAS_* bits for this CPU (cached: one load after the first call). */
static inline unsigned prospect_tsc_features(void)
{
    static unsigned cached;
    unsigned f = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (__builtin_expect(f == 0, 0)) {
        f = prospect_tsc_detect_();
        __atomic_store_n(&cached, f, __ATOMIC_RELAXED);
    }
    return f;
}

static inline int prospect_tsc_has_rdtscp_(void)
{
    return (prospect_tsc_features() & PROSPECT_TSC_HAS_RDTSCP) != 0;
}

/* Without rdtscp: rdpid reads the same TSC_AUX; else getcpu() (vDSO) gives cpu and node, put
 * in TSC_AUX's (node << 12) | cpu form. Callers keep it outside the timed interval; out of line
 * so that the rdtscp path's register use stays as before. */
static __attribute__((noinline, unused)) uint32_t prospect_tsc_cpu_fallback_(void)
{
    unsigned cpu = 0, node = 0;
    if (prospect_tsc_features() & PROSPECT_TSC_HAS_RDPID) {
        uint64_t a;
        __asm__ __volatile__(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(a)); /* rdpid %rax */
        return (uint32_t)a;
    }
    if (getcpu(&cpu, &node))
        return 0;
    return (node << 12) | cpu;
}

/* The CPU id in TSC_AUX form ((node << 12) | cpu), with no TSC read kept:
 * rdtscp, else rdpid, else getcpu(). */
static inline uint32_t prospect_tsc_cpu(void)
{
    uint32_t lo, hi, a;
    if (!prospect_tsc_has_rdtscp_())
        return prospect_tsc_cpu_fallback_();
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    (void)lo;
    (void)hi;
    return a;
}

/* Bare rdtscp: waits for earlier instructions to execute; *aux (may be NULL) gets TSC_AUX.
 * Without rdtscp: lfence; rdtsc, then the CPU id (see prospect_tsc_cpu()). */
static inline uint64_t prospect_rdtscp(uint32_t *aux)
{
    uint32_t lo, hi, a;
    if (!prospect_tsc_has_rdtscp_()) {
        __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
        if (aux)
            *aux = prospect_tsc_cpu_fallback_();
        return ((uint64_t)hi << 32) | lo;
    }
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* Start read, default barrier: lfence; rdtsc. The feature load before it (outside the interval)
 * makes the first end read not pay the CPUID detection inside the interval. */
static inline uint64_t prospect_tsc_start(void)
{
    uint32_t lo, hi;
    (void)prospect_tsc_features();
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Start read that also returns TSC_AUX (the CPU id), to detect migration: rdtscp; lfence.
 * rdtscp waits for earlier instructions; the lfence keeps the measured code from starting early.
 * Without rdtscp: the CPU id first (rdpid or getcpu(), before the interval), then
 * lfence; rdtsc; lfence. */
static inline uint64_t prospect_tsc_start_aux(uint32_t *aux)
{
    uint32_t lo, hi, a;
    if (!prospect_tsc_has_rdtscp_()) {
        a = prospect_tsc_cpu_fallback_();
        __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    } else {
        __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    }
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* End read, default barrier: rdtscp; lfence. *aux (may be NULL) gets TSC_AUX.
 * Without rdtscp: lfence; rdtsc; lfence, then the CPU id (after the interval). On AMD lfence is
 * dispatch-serializing when MSR C001_1029 bit 1 is set, which Linux does. */
static inline uint64_t prospect_tsc_end(uint32_t *aux)
{
    uint32_t lo, hi, a;
    if (!prospect_tsc_has_rdtscp_()) {
        __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
        if (aux)
            *aux = prospect_tsc_cpu_fallback_();
        return ((uint64_t)hi << 32) | lo;
    }
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(a) : : "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* Paoloni's start: cpuid (leaf 0, fully serializing); rdtsc. */
static inline uint64_t prospect_tsc_start_cpuid(void)
{
    uint32_t lo, hi;
    (void)prospect_tsc_features();
    __asm__ __volatile__("xorl %%eax, %%eax\n\tcpuid\n\trdtsc"
                         : "=a"(lo), "=d"(hi) : : "rbx", "rcx", "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Paoloni's end: rdtscp; cpuid. *aux (may be NULL) gets TSC_AUX.
 * Without rdtscp: rdtsc; cpuid (the paper's ordering for CPUs without it), then the CPU id. */
static inline uint64_t prospect_tsc_end_cpuid(uint32_t *aux)
{
    uint32_t lo, hi, a;
    if (!prospect_tsc_has_rdtscp_()) {
        __asm__ __volatile__("rdtsc\n\tmovl %%eax, %0\n\tmovl %%edx, %1\n\t"
                             "xorl %%eax, %%eax\n\tcpuid"
                             : "=r"(lo), "=r"(hi) : : "rax", "rbx", "rcx", "rdx", "memory");
        if (aux)
            *aux = prospect_tsc_cpu_fallback_();
        return ((uint64_t)hi << 32) | lo;
    }
    __asm__ __volatile__("rdtscp\n\tmovl %%eax, %0\n\tmovl %%edx, %1\n\tmovl %%ecx, %2\n\t"
                         "xorl %%eax, %%eax\n\tcpuid"
                         : "=r"(lo), "=r"(hi), "=r"(a) : : "rax", "rbx", "rcx", "rdx", "memory");
    if (aux)
        *aux = a;
    return ((uint64_t)hi << 32) | lo;
}

/* NULL when rdtscp exists, else a line saying which fallback reads are in use (to print once:
 * what is measured changed). */
static inline const char *prospect_tsc_fallback(void)
{
    unsigned f = prospect_tsc_features();
    if (f & PROSPECT_TSC_HAS_RDTSCP)
        return 0;
    return f & PROSPECT_TSC_HAS_RDPID
        ? "no rdtscp: end reads are lfence;rdtsc;lfence (cpuid: rdtsc;cpuid), CPU id from rdpid"
        : "no rdtscp: end reads are lfence;rdtsc;lfence (cpuid: rdtsc;cpuid), CPU id from getcpu";
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
 * be invariant (CPUID 0x80000007 EDX bit 8: constant rate across P-, C- and T-states).
 * A CPU without rdtscp is usable: see prospect_tsc_fallback(). */
static inline const char *prospect_tsc_unusable(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return "the CPU does not report whether its TSC is invariant (no CPUID leaf 0x80000007); "
               "cycle counts may not be comparable: use clock_gettime(CLOCK_MONOTONIC_RAW)";
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
