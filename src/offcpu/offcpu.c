/* SPDX-License-Identifier: MIT */
/* Off-CPU waits: open at a switch-out sample, weighed at the thread's switch-in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "offcpu/offcpu.h"
#include "perf/evlist.h"
#include "perf/record.h"

struct offcpu_thread {
    bool open;
    bool runnable;                /* preempted: open until it runs again, but no wait */
    bool hidden;                  /* the filters hide the thread: its wait is not stored */
    uint64_t since;               /* switch-out time */
    size_t stack;                 /* in oc->opened */
};

/* sched_switch's usual raw layout (64-bit kernels since Linux 4.x), for files and machines
 * without its format: after the 8 common bytes, prev_comm[16], prev_pid, prev_prio, long
 * prev_state, next_comm[16], next_pid, next_prio. */
static const struct tp_field USUAL_PREV_STATE = { 32, 8, true }, USUAL_NEXT_PID = { 56, 4, true };
/* The task-state bits of prev_state; none set (R, or R+ = TASK_REPORT_MAX) is a preemption.
 * EXIT_DEAD (X) and EXIT_ZOMBIE (Z): the thread is exiting, its last switch. */
#define TASK_STATE_BITS 0xffu
#define TASK_EXIT_BITS 0x30u

bool offcpu_is_switch_event(const struct evsel *sel)
{
    return sel && sel->attr.type == PERF_TYPE_TRACEPOINT && sel->name &&
           !strcmp(sel->name, "sched:sched_switch");
}

bool offcpu_wants(const struct offcpu *oc, const struct evsel *sel)
{
    return oc->sel ? sel == oc->sel : offcpu_is_switch_event(sel);
}

void offcpu_init(struct offcpu *oc, const struct evsel *sel)
{
    memset(oc, 0, sizeof(*oc));
    oc->sel = sel;
    oc->prev_state = USUAL_PREV_STATE;
    oc->next_pid = USUAL_NEXT_PID;
    oc->has_prev_state = oc->has_next_pid = true;
    cg_store_init(&oc->stacks);
    cg_store_init(&oc->opened);
    cg_store_init(&oc->runnable);
    cg_capture_init(&oc->capture, &oc->opened, NULL);
    hashmap_init(&oc->threads);
}

int offcpu_use_format(struct offcpu *oc, const char *format, size_t len)
{
    struct tp_field state, next;
    int es = tp_format_field(format, len, "prev_state", &state);
    int en = tp_format_field(format, len, "next_pid", &next);

    if (es == -EINVAL || en == -EINVAL)
        return -EINVAL;
    oc->has_prev_state = !es;
    oc->has_next_pid = !en;
    if (!es)
        oc->prev_state = state;
    if (!en)
        oc->next_pid = next;
    return es || en ? -ENOENT : 0;
}

const char *offcpu_format_gap(const struct offcpu *oc)
{
    if (!oc->has_prev_state && !oc->has_next_pid)
        return "sched_switch's format has neither prev_state nor next_pid: every switch-out "
               "counts as a wait, ended only by switch-in records";
    if (!oc->has_prev_state)
        return "sched_switch's format has no prev_state: preemptions count as waits";
    if (!oc->has_next_pid)
        return "sched_switch's format has no next_pid: waits end only at switch-in records";
    return NULL;
}

const char *offcpu_apply_format(struct offcpu *oc, const char *format, size_t len)
{
    if (offcpu_use_format(oc, format, len) == -EINVAL)
        return "sched_switch's format is malformed: its raw fields are read where 64-bit "
               "Linux puts them";
    return offcpu_format_gap(oc);
}

void offcpu_release(struct offcpu *oc)
{
    for (size_t i = 0; i < oc->threads.cap; i++)
        free(oc->threads.vals[i]);
    hashmap_release(&oc->threads);
    cg_store_release(&oc->stacks);
    cg_store_release(&oc->opened);
    cg_store_release(&oc->runnable);
    cg_capture_release(&oc->capture);
    vec_free(&oc->wait_log);
    memset(oc, 0, sizeof(*oc));
}

static int end_wait(struct offcpu *oc, uint32_t tid, uint64_t time)
{
    struct offcpu_thread *t = hashmap_get(&oc->threads, tid);
    const struct cg_stack *st;

    if (!t || !t->open || time < t->since)
        return 0;
    t->open = false;
    if (t->runnable) {            /* runnable, not running: time lost to other threads */
        if (t->hidden)
            return 0;
        oc->preempted_ns += time - t->since;
        if (!oc->keep_runnable)
            return 0;
        st = &oc->opened.stacks[t->stack];
        return cg_store_add_stack(&oc->runnable, &oc->opened, st, time - t->since);
    }
    if (t->hidden) {
        oc->ns_hidden += time - t->since;
        return 0;
    }
    oc->waits++;
    oc->ns += time - t->since;
    if (oc->waits_only) {
        struct offcpu_wait w = { tid, t->since, time };
        return vec_push(&oc->wait_log, w) ? -ENOMEM : 0;
    }
    st = &oc->opened.stacks[t->stack];
    return cg_store_add_stack(&oc->stacks, &oc->opened, st, time - t->since);
}

int offcpu_switch_in(struct offcpu *oc, uint32_t tid, uint64_t time)
{
    oc->switch_ins++;
    return end_wait(oc, tid, time);
}

/* Thread tid's state, made on first use; NULL on -ENOMEM. */
static struct offcpu_thread *thread_of(struct offcpu *oc, uint32_t tid)
{
    struct offcpu_thread *t = hashmap_get(&oc->threads, tid);

    if (t)
        return t;
    if (!(t = calloc(1, sizeof(*t))))
        return NULL;
    if (hashmap_put(&oc->threads, tid, t)) {
        free(t);
        return NULL;
    }
    return t;
}

/* A preemption: the thread is runnable from now until it runs again (preempted_ns). */
static int open_runnable(struct offcpu *oc, struct process *p, const struct sample *smp)
{
    struct offcpu_thread *t = thread_of(oc, smp->tid);

    if (!t)
        return -ENOMEM;
    if (t->open && !t->hidden && !t->runnable)
        oc->unended++;        /* a wait whose switch-in was not seen */
    t->open = t->runnable = true;
    t->hidden = !p;
    t->since = smp->time;
    if (p && oc->keep_runnable) {
        int err = cg_capture_sample(&oc->capture, p, smp, 0);
        if (err)
            return err;
        t->stack = oc->opened.last;
    }
    return 0;
}

static int sample(struct offcpu *oc, struct process *p, const struct sample *smp)
{
    struct offcpu_thread *t;
    int64_t next, state;
    int err;

    if (oc->has_next_pid && !tp_field_read(&oc->next_pid, smp->raw, smp->raw_size, &next) &&
        next > 0 && next <= UINT32_MAX && (err = end_wait(oc, (uint32_t)next, smp->time)))
        return err;
    if (oc->has_prev_state && !tp_field_read(&oc->prev_state, smp->raw, smp->raw_size, &state)) {
        if (!((uint64_t)state & TASK_STATE_BITS)) {
            if (p)
                oc->preempted++;
            return open_runnable(oc, p, smp);
        }
        if ((uint64_t)state & TASK_EXIT_BITS) {
            if (p)
                oc->exited++;
            return 0;
        }
    }
    if (!(t = thread_of(oc, smp->tid)))
        return -ENOMEM;
    if (t->open && !t->hidden && !t->runnable)
        oc->unended++;        /* switched out twice: the switch-in between was not seen */
    t->runnable = false;
    t->hidden = !p;
    if (p && !oc->waits_only) {
        if ((err = cg_capture_sample(&oc->capture, p, smp, 0)))
            return err;
        t->stack = oc->opened.last;
    }
    t->open = true;
    t->since = smp->time;
    return 0;
}

int offcpu_sample(struct offcpu *oc, struct process *p, const struct sample *smp)
{
    return sample(oc, p, smp);
}

int offcpu_sample_hidden(struct offcpu *oc, const struct sample *smp)
{
    return sample(oc, NULL, smp);
}

void offcpu_finish(struct offcpu *oc)
{
    for (size_t i = 0; i < oc->threads.cap; i++) {
        struct offcpu_thread *t = oc->threads.vals[i];
        if (t && t->open) {
            oc->unended += !t->hidden && !t->runnable;
            t->open = false;
        }
    }
}

static bool sink_claims(void *oc, const struct evsel *sel)
{
    return offcpu_wants(oc, sel);
}

static int sink_claimed(void *oc, struct process *p, const struct sample *smp)
{
    return offcpu_sample(oc, p, smp);
}

static int sink_claimed_hidden(void *oc, const struct sample *smp)
{
    return offcpu_sample_hidden(oc, smp);
}

static int sink_switch_in(void *oc, uint32_t tid, uint64_t time)
{
    return offcpu_switch_in(oc, tid, time);
}

struct sample_sink offcpu_sink(struct offcpu *oc)
{
    return (struct sample_sink){ .claims = sink_claims, .claimed = sink_claimed,
                                 .claimed_hidden = sink_claimed_hidden,
                                 .switch_in = sink_switch_in, .arg = oc };
}
