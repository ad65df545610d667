/* SPDX-License-Identifier: MIT */
/* The Prospect report (seed 001): Statistics of Run, Summary of Processes, per-process USER
 * and KERNEL profiles, and the Global KERNEL Profile, in a fixed-width layout for 100 columns
 * (long names elided in the middle unless `wide`). Percentages are shares of the period (the
 * events the samples stand for, as perf's); Hits columns count samples. */
#ifndef PROSPECT_REPORT_PROSPECT_REPORT_H
#define PROSPECT_REPORT_PROSPECT_REPORT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "session/session.h"

struct ksyms;
struct cg_store;
struct cg_syms;
struct offcpu_totals;

struct report_opts {
    const char *command;          /* the profiled command line, or NULL for -a alone */
    bool system_wide;
    const char *event;            /* event name */
    const char *event_why;        /* why this event (default choice), or NULL */
    bool freq_mode;
    uint64_t freq, period;        /* what was asked */
    bool time_event;              /* periods are nanoseconds (cpu-clock, task-clock) */
    double duration;              /* seconds of profiling, 0 if unknown */
    size_t nr_cpus;
    const char *outcome;          /* "exit status 0", "killed by signal 11 (SIGSEGV)", ... */
    const char *kernel_note;      /* why kernel symbols are missing, or NULL */
    uint64_t lost_extra;          /* records dropped by the collector itself */
    unsigned top;                 /* rows per profile (0: all) */
    double min_percent;           /* processes below this share of the period are not detailed */
    double min_time;              /* ... or below this many seconds (time events) */
    const char *proc_note;        /* e.g. "3 /proc entries unreadable (pid 1: permission)" */
    bool wide;                    /* full names: do not elide them to fit 100 columns */
    /* Call graphs (run -g): a part per detailed process, from these stacks and symbols. */
    const struct cg_store *chains;
    const struct cg_syms *chain_syms;
    /* Off-CPU (--off-cpu): the Off-CPU Time section, periods in ns. */
    const struct cg_store *offcpu;
    const struct cg_syms *offcpu_syms;
    const struct offcpu_totals *offcpu_totals;
};

/* Whether a process is detailed (has samples and passes --min-percent/--min-time): the one
 * rule for the text report and its CSV/JSON export. */
bool report_process_shown(const struct process *p, const struct session *s,
                          const struct report_opts *o);

/* Writes the report. Returns 0 or -errno (out of memory, write error). */
int report_prospect(FILE *f, struct session *s, const struct ksyms *ks,
                    const struct report_opts *o);
#endif
