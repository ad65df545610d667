/* SPDX-License-Identifier: MIT */
/* Collection options shared by `run` and `record`: -a, -p, -F, -c, -e, -g, -m, --duration,
 * --cpu. Parsing and validation live here so both commands accept exactly the same syntax. */
#ifndef PROSPECT_CMD_PROFILE_OPTS_H
#define PROSPECT_CMD_PROFILE_OPTS_H
#include "cmd/options.h"
#include "perf/collect.h"

struct report_opts;

struct profile_opts {
    struct collect_opts collect;
    const char *event_str;        /* -e as given, NULL for the default */
    const char *event_args[COLLECT_MAX_EVENTS];   /* every -e (each may be a list a,b) */
    size_t nr_event_args;
    char event_why[160];          /* why the default event was chosen */
    bool freq_given, period_given;
    pid_t pids[64];
};

#define PROFILE_OPT_CPU 900
#define PROFILE_OPT_CALL_GRAPH 901
#define PROFILE_OPT_OFF_CPU 902
/* Their table entries (cmd/options.h), declared once for both commands. */
#define PROFILE_OPTDECLS \
    { 'a', "all-cpus", NULL, \
      "profile every process on the machine (with or without COMMAND)", 0, NULL, 0 }, \
    { 'e', "event", "NAME", \
      "sampling event: cpu-clock, task-clock, cycles, page-faults, a\n" \
      "tracepoint, a libpfm4 name (prospect list pmu), rNNNN,\n" \
      "PMU/term=value/ or oprofile's NAME:PERIOD[:UNITMASK[:KERNEL[:USER]]];\n" \
      "several: -e a,b or -e a -e b (docs/events.md)\n" \
      "(default: cycles where the machine counts them, else cpu-clock)", \
      OPTD_COMPLETE_EVENT, NULL, 0 }, \
    { 'F', "freq", "HZ", "samples per second per CPU (default 1000)", 0, NULL, 0 }, \
    { 'c', "count", "N", "one sample every N events instead of a frequency", 0, NULL, 0 }, \
    { 'g', NULL, NULL, "record call chains (frame pointers)", 0, NULL, 0 }, \
    { PROFILE_OPT_OFF_CPU, "off-cpu", NULL, \
      "also where threads wait: every sched:sched_switch with its call\n" \
      "chain, weighed by the time until the thread runs again", 0, NULL, 0 }, \
    { PROFILE_OPT_CALL_GRAPH, "call-graph", "MODE", \
      "fp: as -g; dwarf[,SIZE]: user registers and SIZE bytes of user\n" \
      "stack per sample (default 8192), unwound from the code's CFI, for\n" \
      "code without frame pointers", OPTD_COMPLETE_CHOICE, "fp dwarf", 0 }, \
    { 'd', "duration", "SEC", \
      "profile for SEC seconds; a COMMAND still running then is not\n" \
      "killed: prospect waits for it and exits with its status", 0, NULL, 0 }, \
    { 'm', "mmap-pages", "N", "ring buffer pages per CPU, a power of two (default 256)", \
      0, NULL, 0 }, \
    { PROFILE_OPT_CPU, "cpu", "N", "run COMMAND pinned to CPU N", 0, NULL, 0 }

void profile_opts_init(struct profile_opts *po);
/* Handles one getopt result. 0 if it was a profile option, -ENOENT if not one of ours,
 * -EINVAL after printing a usage error for a bad value. */
int profile_opts_parse(struct profile_opts *po, const char *cmd, int c, const char *arg);
/* Resolves the event (default or -e) and checks combinations; prints errors. 0 or EXIT_USAGE. */
int profile_opts_finish(struct profile_opts *po, const char *cmd);
/* After collect_run (which returned ret, with err): says in one line what went wrong. Returns
 * -1 when there is something to report or write ("partial" ends the message for a collection
 * that failed midway, e.g. "the report covers what was collected"), else the exit status to
 * return now: 1 when nothing was collected, 127/126 when the command could not be executed.
 * `doing` names the activity for a command left running ("profiling", "recording"). */
int profile_opts_collected(const struct profile_opts *po, const char *cmd, int ret,
                           const struct collect_result *res, const char *err,
                           const char *partial, const char *doing);
/* Fills the event/sampling fields of a report from the options. */
void profile_opts_report(const struct profile_opts *po, struct report_opts *ro);
/* The same for event i of -e a,b (0 is collect.event). */
void profile_opts_report_event(const struct profile_opts *po, size_t i, struct report_opts *ro);
#endif
