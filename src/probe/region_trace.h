/* SPDX-License-Identifier: MIT */
/* Live region tracing: uprobes on every region's entry and exit, each a sampling member of a
 * counter group, so every crossing sample carries the group's counter values (PERF_SAMPLE_READ
 * with PERF_FORMAT_GROUP). No ptrace, no stop of the target: the kernel handles the probe and
 * writes one record per crossing into a per-cpu ring buffer.
 *
 * Layout, per cpu and per counter group g:
 *   leader  task-clock (always counts: a software event keeps the group schedulable)
 *   members the user's counters of group g, then context-switches with sample_period=1 (its
 *           samples fix a cpu's values when the thread leaves it; see region_count.h), then one
 *           tracepoint event per probe point (sample_period=1).
 * Every event has attr.inherit, so threads and child processes are followed; events are per
 * cpu because inherited per-task events cannot be mmapped. */
#ifndef PROSPECT_PROBE_REGION_TRACE_H
#define PROSPECT_PROBE_REGION_TRACE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "perf/event.h"
#include "probe/region.h"
#include "probe/region_count.h"

struct counter_group {
    struct event_spec *ev;      /* the user's counters (task-clock is added as leader) */
    size_t n;
};

struct region_trace;

struct region_trace_stats {
    uint64_t samples, lost, bad;
    uint64_t unseen;            /* probe hits the kernel counted whose samples never arrived
                                 * (known after region_trace_finish): a full ring buffer
                                 * reports its losses only with the next record written, and
                                 * when the program ends first there is none */
};

/* Jump entries (jump_entry.h) work only in process images where the entry hook ran: those map
 * the trampoline. With a watch, every image that maps one of `prog` but not `tramp` is counted
 * as unpatched (from MMAP2 records; device numbers as MMAP2 gives them). */
struct image_id {
    uint32_t maj, min;
    uint64_t ino;
};
#define IMAGE_WATCH_MAX 16
struct image_watch {
    struct image_id prog[IMAGE_WATCH_MAX];
    size_t nprog;
    struct image_id tramp;
};

/* Creates the probes and opens every event on `pid` (a launched child stopped before exec:
 * counting starts at exec; or a running process with `attach`). The column order of results
 * is, per group: task-clock, then the group's other counters. On failure returns -errno with
 * a message (open advice, probe creation failure) in `msg`. */
int region_trace_open(struct region_trace **out, const struct region_list *rl,
                      const struct counter_group *groups, size_t nr_groups, pid_t pid,
                      bool attach, const struct image_watch *watch, char *msg, size_t msglen);
/* Waits up to timeout_ms for data (or for `wake_fd` to become readable, e.g. a pidfd; -1 for
 * none) and processes what arrived. 0 or -errno. */
int region_trace_poll(struct region_trace *rt, int timeout_ms, int wake_fd);
/* Stops counting, drains everything left and processes it (call after the target exited or
 * when detaching), then compares each probe's hit count with the samples that arrived. */
int region_trace_finish(struct region_trace *rt);
/* Region r's entry and exit probe hits whose samples never arrived (counter group 0, which
 * gives calls and crossings; after region_trace_finish). */
void region_trace_unseen(const struct region_trace *rt, int r, uint64_t *entries,
                         uint64_t *exits);
/* Results; owned by rt. */
struct region_counter *region_trace_counter(struct region_trace *rt);
/* Column names (task-clock first in each group), owned by rt. */
size_t region_trace_columns(const struct region_trace *rt, const char *const **names);
void region_trace_get_stats(const struct region_trace *rt, struct region_trace_stats *st);
/* With a watch: the pids of images of a watched program that did not map the trampoline (the
 * first 256). Owned by rt. */
size_t region_trace_unpatched(const struct region_trace *rt, const uint32_t **pids);
/* Closes every event and deletes every probe: the target keeps running unchanged. */
void region_trace_free(struct region_trace *rt);
#endif
