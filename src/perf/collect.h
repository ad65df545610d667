/* SPDX-License-Identifier: MIT */
/* Live collection: opens the sampling events (per CPU), launches the command or attaches,
 * drains the ring buffers with poll() until the end, and hands every record to two outlets:
 * `raw` in the order read (for a perf.data writer) and `ordered` in time order (for a session).
 * Prospect's "periodic flush" is the poll timeout; the final drain loses nothing written. */
#ifndef PROSPECT_PERF_COLLECT_H
#define PROSPECT_PERF_COLLECT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "perf/event.h"
#include "perf/evlist.h"
#include "perf/record.h"

#define COLLECT_DEFAULT_FREQ 1000

/* The kernel's cpu-clock/task-clock timers never fire more often than every 10 µs, whatever
 * period was asked; samples still carry the asked period, so consumers clamp it. */
#define CLOCK_EVENT_MIN_PERIOD_NS 10000

#define COLLECT_MAX_EVENTS 8

struct collect_opts {
    struct event_spec event;      /* the sampling event (parsed by the caller) */
    struct event_spec more_events[COLLECT_MAX_EVENTS - 1];   /* -e a,b: the others, each an
                                                                evsel of its own */
    size_t nr_more_events;
    uint64_t freq;                /* samples/s per CPU (attr.freq); 0: the default (1000 Hz,
                                     or every event for a tracepoint) */
    uint64_t period;              /* fixed sampling period */
    bool system_wide;             /* -a: every process on every CPU */
    const pid_t *pids;            /* -p: attach to these processes (all threads) */
    size_t nr_pids;
    char *const *argv;            /* command to launch, or NULL */
    double duration;              /* seconds; 0: until the command exits / SIGINT */
    bool return_at_duration;      /* when duration ends before the command, return at once
                                     (result->running) instead of waiting for its exit */
    size_t mmap_pages;            /* per-CPU data pages (power of two); 0: default */
    bool callchain;               /* PERF_SAMPLE_CALLCHAIN */
    bool off_cpu;                 /* also sched:sched_switch, every one, with call chain, raw
                                     fields and switch records (src/offcpu/) */
    uint32_t stack_user;          /* --call-graph dwarf: bytes of user stack per sample (with
                                     the user registers, kernel chain only); 0: none */
    int pin_cpu;                  /* -1: no pinning of the launched command */
};

struct collect_outlets {
    int (*raw)(void *arg, const struct perf_event_header *h);   /* optional */
    int (*round_end)(void *arg);                                 /* optional, after each round */
    void *raw_arg;
    record_fn ordered;                                           /* optional */
    void *ordered_arg;
    /* Optional: called with the launched command's pid before it is released to exec. */
    int (*launched)(void *arg, pid_t pid);
};

struct collect_result {
    struct evlist evlist;         /* the opened events (attrs, ids): owned, collect_release() */
    pid_t child;                  /* the launched command, 0 if none */
    int child_status;             /* waitpid status of the command */
    bool child_ran;               /* the command was exec'ed (not 127/126) */
    int exec_errno;               /* why exec failed, when !child_ran */
    int stop_signal;              /* SIGINT/SIGTERM received by Prospect, else 0 */
    bool abandoned;               /* a second signal ended profiling while the command ran on */
    uint64_t start_ns, end_ns;    /* CLOCK_MONOTONIC around the profiled interval; start_ns
                                     stays 0 when setup failed before collecting anything */
    uint64_t records, bad_records;
    size_t nr_cpus;
    uint64_t attached_threads;    /* -p: threads found */
    uint64_t proc_unreadable;     /* -a/-p: /proc entries that could not be read */
    pid_t proc_first_unreadable;
    bool kernel_excluded;         /* the kernel could not be sampled (not permitted): user only */
    bool running;                 /* return_at_duration: the command runs on, not yet waited for */
};

/* Runs a whole collection. On failure returns -errno with a one-line message in err (for a
 * perf_event_open failure, advice a person can act on). A command that could not be executed
 * is not a failure here: result->child_ran is false and exec_errno says why. */
int collect_run(const struct collect_opts *opts, const struct collect_outlets *out,
                struct collect_result *result, char *err, size_t errlen);
void collect_release(struct collect_result *result);

/* Set by the command's SIGINT/SIGTERM handler to the signal number: collection passes it on to
 * the launched command and ends when the command does (or at once without a command). A second
 * signal ends collection at once and leaves the command running (result->abandoned). */
#include <signal.h>
extern volatile sig_atomic_t collect_stop_signal;
extern volatile sig_atomic_t collect_stop_count;   /* signals received, +1 each */

/* Installs the SIGINT/SIGTERM/SIGHUP handler that sets the two variables above: the one way
 * commands that collect stop it. */
void collect_install_stop_handlers(void);

/* The exit status a collecting command returns, by the shell's convention: the launched
 * command's status (128+N for a death by signal N, and for a command left running after a
 * second signal); 0 without a command (a signal is the normal end of -a or -p). */
int collect_exit_status(const struct collect_result *r);

/* Fills attr sampling settings shared by `run` and `record` (sample_type, freq/period, mmap,
 * comm, task, sample_id_all, build ids ...). */
void collect_setup_attr(const struct collect_opts *opts, struct perf_event_attr *attr);
/* The same for one of the events (its own period). */
void collect_setup_attr_for(const struct collect_opts *opts, const struct event_spec *ev,
                            struct perf_event_attr *attr);
#endif
