/* SPDX-License-Identifier: MIT */
/* Turns probe crossings into per-region counter totals.
 *
 * Input: samples that carry a counter group's values (PERF_SAMPLE_READ of a group) for one
 * thread on one cpu: probe samples (a region's entry or exit) and context-switch samples. The
 * events are per-cpu inherited copies, so one thread's counter is the sum over cpus of its
 * per-cpu values; a context-switch sample fixes a cpu's value when the thread leaves it, so
 * the sum is exact at every sample even when the thread migrates.
 *
 * Semantics: a region counts from its outermost entry to the matching exit in the same thread
 * (a "crossing"); recursive entries inside add to `calls` but not to `crossings`. Each
 * crossing is scaled by its own enabled/running deltas (multiplexing).
 *
 * Lost samples: for a function (return probe), the exit's stack pointer is the entry's + 8.
 * With stack pointers, a thread whose outermost exit sample was lost is put back in step by
 * its next entry at the same or a shallower stack depth (the open crossing is dropped), and an
 * outermost exit whose inner exits were lost still closes the crossing. Counted in `resynced`.
 * The same happens, without any loss, when calls are left by longjmp or a C++ exception (no
 * return): the tracer tells the two apart by whether samples were lost. */
#ifndef PROSPECT_PROBE_REGION_COUNT_H
#define PROSPECT_PROBE_REGION_COUNT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum rc_role { RC_SWITCH, RC_ENTER, RC_EXIT };

struct rc_sample {
    int group;                 /* counter group index */
    int region;                /* for RC_ENTER/RC_EXIT */
    enum rc_role role;
    bool function;             /* a function region: an exit's sp is its entry's + 8 (the
                                * caller's after the return; the tracer adjusts exits taken
                                * at the `ret` or a tail call) */
    bool retprobe;             /* the exit is a uretprobe (kernel nesting limit applies) */
    bool idempotent;           /* an entry that is ignored when the thread is already inside
                                * (fragments of inlined code: entering another fragment
                                * from inside is not a new call) */
    uint32_t pid, tid, cpu;
    uint64_t time;             /* ns, perf clock */
    uint64_t enabled, running; /* the group's times */
    uint64_t sp;               /* user stack pointer at the probe, 0 if unknown */
    const uint64_t *values;    /* the group's counter values, in group order */
    size_t nr_values;
};

/* Statistics of one quantity over a region's crossings. */
struct rc_stat {
    uint64_t n;
    double total, min, max;
    double *all;               /* every crossing's value (for percentiles), n entries; NULL
                                * unless region_counter_keep_values was set */
    size_t cap;
    uint64_t *weights;         /* NULL, or all holds cap values in ascending order, all[i]
                                * standing for weights[i] crossings (a histogram's buckets) */
};

struct rc_result {
    pid_t pid, tid;            /* -1 for a per-region aggregate */
    uint64_t calls;            /* every entry, recursive ones included */
    uint64_t crossings;        /* completed outermost entry..exit pairs */
    uint64_t open;             /* entered but not left when tracing stopped */
    struct rc_stat wall;       /* ns between entry and exit samples */
    struct rc_stat *vals;      /* per column (groups flattened in order) */
    double enabled, running;   /* summed deltas of every group, for the percentage running */
    uint64_t scaled;           /* crossings x groups that needed multiplexing scaling */
    uint64_t deep;             /* entries past the kernel's uretprobe nesting limit */
    uint64_t reentered;        /* range starts reached again while inside (a loop head): each
                                  one a probe hit whose cost the counts include */
    uint64_t unreturned;       /* calls that ended without a return sample: left by longjmp
                                  or a C++ exception, or their samples were lost (stack
                                  pointers showed the thread had left) */
    uint64_t resynced;         /* open crossings dropped because of them */
};

struct region_counter;

/* nr_vals[g] is the number of counter values in group g's samples. NULL with errno. */
struct region_counter *region_counter_new(size_t nr_regions, size_t nr_groups,
                                          const size_t *nr_vals, size_t nr_cpus);
void region_counter_free(struct region_counter *rc);
/* Keep every crossing's values (8 bytes per quantity per crossing) so percentiles can be
 * computed; off by default, so long runs use constant memory per thread and region. */
void region_counter_keep_values(struct region_counter *rc, bool keep);
/* Feeds one sample. -EINVAL for an inconsistent sample (wrong value count, bad index). */
int region_counter_feed(struct region_counter *rc, const struct rc_sample *s);
/* A thread's image was replaced (exec): its open crossings are dropped. */
void region_counter_exec(struct region_counter *rc, uint32_t tid);

size_t region_counter_columns(const struct region_counter *rc);
/* Crossings completed so far, all regions and threads (cheap: for progress lines). */
uint64_t region_counter_crossings(const struct region_counter *rc);
/* The aggregate of region r over all threads (owned by rc, valid until the next feed). */
const struct rc_result *region_counter_total(struct region_counter *rc, int region);
/* Per-thread results of region r: fills *out with an array owned by rc; returns the count. */
size_t region_counter_threads(struct region_counter *rc, int region, const struct rc_result **out);

/* Percentile p (0..100) of a stat's crossings (nearest rank); 0 when empty or when the
 * values were not kept. */
double rc_stat_percentile(const struct rc_stat *st, double p);
double rc_stat_mean(const struct rc_stat *st);
#endif
