/* SPDX-License-Identifier: MIT */
/* The session: the system model built from the record stream (seed 001's "Prospect System
 * Model"). Processes with their threads and executable maps, hits per (process, map, address),
 * kernel hits per process and globally, and the statistics of the run. Fed in time order by a
 * record_fn (session_record), whichever producer the records came from. */
#ifndef PROSPECT_SESSION_SESSION_H
#define PROSPECT_SESSION_SESSION_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/process.h"
#include "perf/record.h"
#include "session/sink.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct dso;
struct dso_cache;
struct evlist;

/* Samples outside these bounds are counted (filtered) but not stored; used by reports. */
struct session_filter {
    pid_t pid, tid;               /* -1: any */
    int cpu;                      /* -1: any */
    const char *comm;             /* NULL: any */
};

struct session_stats {
    uint64_t samples, user, kernel, other;     /* other: guest/hypervisor/unknown cpumode */
    uint64_t lost, lost_records, lost_samples; /* LOST totals, LOST records, LOST_SAMPLES */
    uint64_t throttle, unthrottle;
    uint64_t filtered;
    uint64_t bad_samples;                      /* samples that failed to decode */
    uint64_t unknown_thread;                   /* samples whose tid had no history */
    uint64_t records[32];                      /* per PERF_RECORD_* type (< 32) */
    uint64_t records_other;                    /* types >= 32 */
    uint64_t first_time, last_time;            /* sample timestamps */
    uint64_t period_total;
    uint64_t period_clamped;                   /* clock samples whose period was below the
                                                  kernel's 10 µs timer floor */
};

/* Which processes the Prospect report details: samples, and a share of the session's period
 * of at least min_percent, and (time events) at least min_time seconds. */
struct show_limits {
    double min_percent, min_time;
    bool time_event;
};

/* One command's released processes (those with samples), for the report's By command rows. */
struct comm_tally {
    char comm[32];
    size_t nproc;
    uint64_t samples, period;
};

/* What remains of the processes session_release_exited freed: counts for the report. */
struct released_procs {
    size_t seen, sampled;
    uint64_t samples, period, self_samples;
    VEC(struct comm_tally) by_comm;
};

struct dead_thread {
    uint32_t pid, tid;
    uint64_t time;                /* of its EXIT record */
};

#define SESSION_MAX_SINKS 4
#define SESSION_TID_CACHE 16      /* a power of two */

struct session {
    struct dso_cache *dsos;
    VEC(struct process *) procs;  /* every incarnation, in order of appearance */
    struct hashmap by_pid;        /* pid -> current process */
    struct hashmap by_tid;        /* tid -> process owning the thread */
    struct hitstore kernel_hits;  /* released processes' kernel hits (session_kernel_hits
                                     adds the live ones': one insert per sample, not two) */
    struct session_stats stats;
    struct session_filter filter;
    pid_t self_pid;               /* Prospect's own pid when profiling live, else 0 */
    struct {                      /* a small cache of by_tid, indexed by tid: samples come
                                     in runs per CPU, interleaved in -a files */
        uint32_t tid;
        struct process *proc;     /* NULL: empty */
    } tid_cache[SESSION_TID_CACHE];
    const char *launcher_argv0;   /* the launched command's argv[0] (live), for its name */
    struct sample_sink sinks[SESSION_MAX_SINKS];  /* samples handed on (session_add_sink) */
    size_t nsinks;
    bool stacks_only;             /* only call stacks are reported: samples are counted, their
                                     per-address hits not kept (memory) */
    bool release_exited;          /* free exited processes the Prospect report can no longer
                                     detail under `limits` (memory of long -a runs); only for
                                     that report, without sinks or annotate */
    struct show_limits limits;
    struct released_procs released;
    VEC(struct dead_thread) dead_threads;   /* exited threads still in by_tid (release_exited) */
    uint64_t release_time;        /* record time of the last release pass */
};

int session_init(struct session *s);
void session_release(struct session *s);

/* Hands samples and switch records to sink too, after those added before: 0, or -ENOSPC past
 * SESSION_MAX_SINKS. */
int session_add_sink(struct session *s, struct sample_sink sink);

/* The record_fn consumers register: updates the model from one record (in time order).
 * Malformed records are counted, never fatal; returns -ENOMEM only. */
int session_record(void *session, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time);

/* Registers the command Prospect launched (pid, its argv[0]) before it execs: samples taken
 * during the exec, before the kernel's COMM record, then belong to the command rather than to
 * a nameless ":PID". 0 or -ENOMEM. */
int session_add_launcher(struct session *s, pid_t pid, const char *argv0);

struct perfdata_info;
/* The build-ids a perf.data file recorded for user-space files (HEADER_BUILD_ID): checked
 * against the files on disk, and the keys to perf's build-id cache when a file was deleted or
 * rebuilt since (see dso_cache_add_build_id). 0 or -ENOMEM. */
int session_add_build_ids(struct session *s, const struct perfdata_info *in);

/* The processes that got samples, most first (ties by pid), as a malloc'd array in *out.
 * Returns the count, or -ENOMEM. */
long session_sampled_processes(const struct session *s, struct process ***out);

/* Whether the Prospect report details p under these limits. Once p has exited its period is
 * fixed while the session's total only grows, so a false answer then stays false. */
bool process_shown(const struct process *p, uint64_t period_total, const struct show_limits *l);

/* Forgets threads that exited a grace second before `now`, then frees the exited processes
 * with no thread left and no record for that second that process_shown rejects, keeping their
 * counts in s->released. At most one pass per 100 ms of record time. 0 or -ENOMEM. */
int session_release_exited(struct session *s, uint64_t now);
/* Every kernel hit of the session (the global kernel profile's): the released processes' and
 * the live ones' khits, into `out` (initialized here; the caller releases it). 0 or -ENOMEM. */
int session_kernel_hits(const struct session *s, struct hitstore *out);

/* The process a pid currently is (after the latest exec), or NULL. */
struct process *session_find_process(struct session *s, pid_t pid);
#endif
