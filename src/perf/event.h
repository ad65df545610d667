/* SPDX-License-Identifier: MIT */
/* Event names -> perf_event_attr, and failures of perf_event_open -> advice. */
#ifndef PROSPECT_PERF_EVENT_H
#define PROSPECT_PERF_EVENT_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct event_spec {
    struct perf_event_attr attr;   /* type, config, config1/2 and exclude_* set; no sampling */
    char name[128];                /* canonical name as printed in reports */
    uint64_t period;               /* from "NAME:PERIOD", 0 when not given */
    char note[512];                /* how a name was mapped (oprofile's generic names), for the
                                    * report's header; "" when it was used as is */
};

/* Parses an event as users write it (docs/events.md):
 *   generic names       cycles, instructions, cpu-clock, task-clock, page-faults, ...
 *   cache events        L1-dcache-load-misses, LLC-loads, dTLB-load-misses, ...
 *   tracepoints         sched:sched_switch
 *   raw                 r01c2
 *   PMU terms           cpu/event=0xc0,umask=0/u, software/config=0/ (sysfs formats)
 *   libpfm4 names       RETIRED_INSTRUCTIONS:u, pmu::EVENT:UMASK (this CPU's PMU model)
 *   modifiers           cycles:u, cycles:k
 *   oprofile specs      NAME:PERIOD[:UNITMASK[:KERNEL[:USER]]], CPU_CLK_UNHALTED:100000,
 *                       L2_LINES_IN:100000:0xf0; oprofile's generic names are mapped to this
 *                       CPU's equivalent (out->note says to which)
 * Returns 0, or -EINVAL / -ENOENT with a one-line reason in err: a name this CPU's PMU lacks
 * gets suggestions from its own list. */
int event_parse(const char *str, struct event_spec *out, char *err, size_t errlen);

/* Explains a failed perf_event_open(attr) (err is a positive errno) as advice a person can act
 * on: paranoid level and the sysctl, CAP_PERFMON, "no hardware counters here", ... */
void event_open_advice(int err, const struct perf_event_attr *attr, const char *name,
                       char *buf, size_t len);
/* The same, knowing whether the event was for every process (pid -1: needs paranoid <= 0). */
void event_open_advice_for(int err, const struct perf_event_attr *attr, const char *name,
                           bool system_wide, char *buf, size_t len);
/* The same for an event on process pid (-1: every process): a permission error on another
 * user's process says so, since no perf_event_paranoid value allows that. */
void event_open_advice_pid(int err, const struct perf_event_attr *attr, const char *name,
                           pid_t pid, char *buf, size_t len);

/* True if the event opens on this machine for the calling thread (a probe open, then close). */
bool event_available(const struct perf_event_attr *attr);

/* The default sampling event: hardware cycles where the machine counts them, else cpu-clock.
 * `why` says which was chosen and why, for the report. */
void event_default_sampling(struct event_spec *out, char *why, size_t whylen);

/* The generic names this parser knows, for `prospect list`. kind: "hardware", "software",
 * "cache". Calls fn for each; stops if it returns non-zero. */
void event_foreach_generic(const char *kind, int (*fn)(void *arg, const char *name,
                           const struct perf_event_attr *attr), void *arg);

/* A one-line description of a generic or cache event name ("" when unknown), for `list`. */
void event_describe(const char *name, char *buf, size_t len);

/* Directory of tracefs events ("/sys/kernel/tracing/events" or the debugfs one), or NULL. */
const char *event_tracefs_dir(void);
/* The same directory only if tracefs is mounted already (never mounts it), or NULL: for
 * completion, which only looks. */
const char *event_tracefs_dir_mounted(void);

/* Thin perf_event_open(2) wrapper: returns the fd or -errno. */
int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
                       unsigned long flags);
#endif
