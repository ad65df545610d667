/* SPDX-License-Identifier: MIT */
/* Off-CPU time by stack: where threads wait. A sched:sched_switch sample (taken in the thread
 * being switched out, with its call chain) opens a wait; the thread's next switch-in ends it
 * (a PERF_RECORD_SWITCH "in" record of that thread, or a sched_switch sample whose raw
 * next_pid is the thread, whichever comes first in time order); the wait's length in ns is
 * added to the stack it blocked in. A switch-out of a thread still runnable (prev_state R:
 * preempted) is no wait: the thread wanted the CPU (the time until it runs again is counted
 * apart, preempted_ns: runnable, not running); nor is an exiting thread's last switch
 * (prev_state X or Z, seen in -a files). Waits that never end (the thread exited,
 * recording stopped) are counted, not weighed. */
#ifndef PROSPECT_OFFCPU_OFFCPU_H
#define PROSPECT_OFFCPU_OFFCPU_H
#include <stdbool.h>
#include <stdint.h>
#include "callgraph/capture.h"
#include "callgraph/stacks.h"
#include "perf/tp_format.h"
#include "session/sink.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct evsel;
struct process;
struct sample;

/* An ended wait, for a timeline (offcpu.waits_only). */
struct offcpu_wait {
    uint32_t tid;
    uint64_t start, end;          /* switch-out and switch-in times, ns */
};

struct offcpu {
    const struct evsel *sel;      /* the sched:sched_switch event; NULL: any of that name */
    /* Where the raw prev_state and next_pid are: the file's (or tracefs') format, else the
     * usual 64-bit layout. A field the format lacks is not read. */
    struct tp_field prev_state, next_pid;
    bool has_prev_state, has_next_pid;
    struct cg_store stacks;       /* ended waits: samples = waits, period = ns off CPU */
    struct cg_store opened;       /* stacks of open waits (deduplicated), by index */
    bool keep_runnable;           /* the wall-clock view: preemptions' stacks too (runnable) */
    struct cg_store runnable;     /* with keep_runnable: period = ns runnable, not running */
    struct cg_capture capture;    /* switch-outs -> opened; its unwinder set by the caller */
    struct hashmap threads;       /* tid -> struct offcpu_thread * */
    uint64_t waits, preempted, unended, ns;
    uint64_t preempted_ns;        /* preempted until switched in again: runnable, not running */
    uint64_t exited;              /* last switch-outs of exiting threads (X, Z): no wait */
    uint64_t switch_ins;          /* switch-in records seen */
    uint64_t ns_hidden;           /* ns of the waits of threads the report's filters hide */
    /* The HTML page's timeline: each ended wait's thread and times in wait_log, in the order
     * they end; no stacks captured or stored. */
    bool waits_only;
    VEC(struct offcpu_wait) wait_log;
};

/* Whether an event is the scheduler's switch tracepoint (by name, as perf and Prospect write
 * it). */
bool offcpu_is_switch_event(const struct evsel *sel);

/* Whether the samples of sel are switch-outs for oc. */
bool offcpu_wants(const struct offcpu *oc, const struct evsel *sel);

void offcpu_init(struct offcpu *oc, const struct evsel *sel);
/* Reads the raw fields where sched_switch's format text (len bytes) puts them: 0, -ENOENT
 * when it lacks prev_state or next_pid (that one is then not read), -EINVAL when a line is
 * malformed (the usual layout stays). */
int offcpu_use_format(struct offcpu *oc, const char *format, size_t len);
/* What the format's missing fields cost the report, for a note; NULL when none is missing. */
const char *offcpu_format_gap(const struct offcpu *oc);
/* offcpu_use_format, then the note a command prints about it (a malformed format, or
 * offcpu_format_gap's), or NULL. */
const char *offcpu_apply_format(struct offcpu *oc, const char *format, size_t len);
void offcpu_release(struct offcpu *oc);

/* A sched_switch sample (fully decoded) of process p: opens p's thread's wait; its raw
 * next_pid, when present, ends that thread's wait. 0 or -ENOMEM. */
int offcpu_sample(struct offcpu *oc, struct process *p, const struct sample *smp);
/* The same for a sample the report's filters (--pid, --comm...) hide: its raw next_pid still
 * ends a shown thread's wait, and its own wait counts in ns_hidden only (the total that
 * absolute percentages are of). 0 or -ENOMEM. */
int offcpu_sample_hidden(struct offcpu *oc, const struct sample *smp);
/* Thread tid runs again at `time` (a switch-in record): ends its wait. 0 or -ENOMEM. */
int offcpu_switch_in(struct offcpu *oc, uint32_t tid, uint64_t time);
/* The sink (session_add_sink) that claims oc's switch-outs (offcpu_wants) and takes them
 * (offcpu_sample, offcpu_sample_hidden) and the switch-in records (offcpu_switch_in). */
struct sample_sink offcpu_sink(struct offcpu *oc);
/* Counts the waits still open (after the last record). */
void offcpu_finish(struct offcpu *oc);
#endif
