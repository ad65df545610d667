/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "collect"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "perf/collect.h"
#include "perf/ordered.h"
#include "perf/proc_synth.h"
#include "perf/ringbuf.h"
#include "perf/sample_regs.h"
#include "util/cpu_pin.h"
#include "util/launch.h"
#include "util/log.h"
#include "util/strutil.h"

#define DEFAULT_PAGES 256
#define POLL_MS 100

volatile sig_atomic_t collect_stop_signal;
volatile sig_atomic_t collect_stop_count;

static void on_stop_signal(int sig)
{
    collect_stop_signal = sig;
    collect_stop_count++;
}

void collect_install_stop_handlers(void)
{
    struct sigaction sa;
    /* Counted from here: a signal between this and collect_run's loop stops the run (reset
     * there, it was lost: a `record -a` stopped during set-up ran its whole --duration). */
    collect_stop_signal = 0;
    collect_stop_count = 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int collect_exit_status(const struct collect_result *r)
{
    if (!r->child)
        return 0;
    if (r->abandoned)
        return 128 + r->stop_signal;
    return launch_exit_code(r->child_status);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void collect_setup_attr(const struct collect_opts *o, struct perf_event_attr *a)
{
    collect_setup_attr_for(o, &o->event, a);
}

void collect_setup_attr_for(const struct collect_opts *o, const struct event_spec *ev,
                            struct perf_event_attr *a)
{
    *a = ev->attr;
    a->size = sizeof(*a);
    a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    if (o->callchain)
        a->sample_type |= PERF_SAMPLE_CALLCHAIN;
    if (o->stack_user) {
        /* perf's DWARF mode: registers and a stack copy for the user part, unwound at report
         * time; the kernel's chain then holds the kernel part only. */
        a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = PERF_X86_64_USER_REGS_MASK;
        a->sample_stack_user = o->stack_user;
        a->exclude_callchain_user = 1;
        /* perf's unwinder reads .eh_frame_hdr through the maps: the read-only ones too. */
        a->mmap_data = 1;
    }
    if (ev->period || o->period) {
        a->freq = 0;
        a->sample_period = ev->period ? ev->period : o->period;
    } else if (!o->freq && a->type == PERF_TYPE_TRACEPOINT) {
        /* A tracepoint is an event worth seeing each time, as perf samples it. */
        a->freq = 0;
        a->sample_period = 1;
    } else {
        a->freq = 1;
        a->sample_freq = o->freq ? o->freq : COLLECT_DEFAULT_FREQ;
    }
    /* The period is in each sample only when it varies (a frequency), as perf does: with a
     * fixed period, the kernel takes PERF_SAMPLE_PERIOD on a software event or tracepoint as
     * a request to sample every occurrence (page-faults:10 gave one sample per fault). The
     * readers use attr.sample_period instead. */
    if (a->freq)
        a->sample_type |= PERF_SAMPLE_PERIOD;
    /* A tracepoint's fields, as perf records them (perf report crashes on tracepoint samples
     * without them; off-CPU reads sched_switch's next_pid). */
    if (a->type == PERF_TYPE_TRACEPOINT)
        a->sample_type |= PERF_SAMPLE_RAW;
    a->mmap = 1;
    a->mmap2 = 1;
    a->comm = 1;
    a->comm_exec = 1;
    a->task = 1;
    a->sample_id_all = 1;
    /* Not attr.build_id: on this kernel one such event leaves the MMAP2 build-id flag set in
     * other sessions' records, and a concurrent `perf record` then aborts. MMAP2's inode
     * identifies the mapped file instead. */
    a->build_id = 0;
    a->watermark = 1;
    a->wakeup_watermark = 64 * 1024;
    if (o->stack_user) {
        /* 8 KiB samples would wake the collector every 8 samples, in the measured task's
         * context: a quarter of the buffer instead (perf wakes at half). */
        uint64_t bytes = (uint64_t)(o->mmap_pages ? o->mmap_pages : DEFAULT_PAGES) * 4096;
        if (bytes / 4 > a->wakeup_watermark)
            a->wakeup_watermark = (uint32_t)(bytes / 4 < (1u << 20) ? bytes / 4 : 1u << 20);
    }
    if (o->system_wide) {
        a->inherit = 0;
        a->disabled = 0;
        a->enable_on_exec = 0;
    } else {
        a->inherit = 1;
        /* For a launched command, counting starts at exec: Prospect's own fork is not sampled. */
        a->disabled = o->argv && !o->nr_pids;
        a->enable_on_exec = a->disabled;
    }
}

struct drain_ctx {
    const struct collect_outlets *out;
    struct ordered_queue *q;
    const struct evlist *evl;
    uint64_t records;
};

static uint64_t record_time(const struct evlist *evl, const struct perf_event_header *h)
{
    const struct evsel *sel = evlist_evsel_for(evl, h);
    struct sample s;

    if (!sel)
        sel = evl->nr ? &evl->sel[0] : NULL;
    if (!sel)
        return 0;
    if (h->type == PERF_RECORD_SAMPLE)
        return sample_parse_fixed(sel, h, &s) ? 0 : s.time;
    if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
        if (h->size >= sizeof(struct rec_fork))
            return ((const struct rec_fork *)h)->time;
    }
    return sample_id_parse(sel, h, &s) ? 0 : s.time;
}

static int on_raw_record(void *arg, const struct perf_event_header *h)
{
    struct drain_ctx *c = arg;
    int err;

    c->records++;
    if (c->out->raw && (err = c->out->raw(c->out->raw_arg, h)) < 0)
        return err;
    if (c->q)
        return ordered_push(c->q, c->evl, h, record_time(c->evl, h), true);
    return 0;
}

static int drain_all(struct evlist *evl, struct drain_ctx *c)
{
    for (size_t i = 0; i < evl->nr_rbs; i++) {
        long n = ringbuf_drain(evl->rbs[i], on_raw_record, c);
        if (n < 0)
            return (int)n;
    }
    if (c->out->round_end) {
        int err = c->out->round_end(c->out->raw_arg);
        if (err < 0)
            return err;
    }
    return c->q ? ordered_round(c->q) : 0;
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0)
        return (int)fd;
#endif
    return -1;
}

/* The threads of each -p process, as targets for per-thread events. */
static int attach_targets(const pid_t *pids, size_t n, pid_t **out, size_t *nout, char *err,
                          size_t errlen)
{
    pid_t *t = NULL;
    size_t cnt = 0;

    for (size_t i = 0; i < n; i++) {
        char dir[64];
        DIR *d;
        struct dirent *de;
        snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pids[i]);
        d = opendir(dir);
        if (!d) {
            snprintf(err, errlen, "cannot attach to process %d: %s", (int)pids[i],
                     errno == ENOENT ? "no such process" : strerror(errno));
            free(t);
            return errno == ENOENT ? -ESRCH : -errno;
        }
        while ((de = readdir(d))) {
            uint64_t tid;
            pid_t *nt;
            if (parse_u64(de->d_name, &tid) || tid > INT32_MAX)
                continue;
            nt = realloc(t, (cnt + 1) * sizeof(*t));
            if (!nt) {
                closedir(d);
                free(t);
                return -ENOMEM;
            }
            t = nt;
            t[cnt++] = (pid_t)tid;
        }
        closedir(d);
    }
    *out = t;
    *nout = cnt;
    return 0;
}

static int on_synth(void *arg, const struct perf_event_header *h)
{
    return on_raw_record(arg, h);
}

/* -e a,b: every event after the first, as evsels of their own (samples carry ids). */
static int add_more_events(struct evlist *evl, const struct collect_opts *o, bool user_only)
{
    for (size_t i = 0; i < o->nr_more_events; i++) {
        struct perf_event_attr a;
        collect_setup_attr_for(o, &o->more_events[i], &a);
        if (user_only) {
            a.exclude_kernel = 1;
            a.exclude_hv = 1;
        }
        if (!evlist_add(evl, &a, o->more_events[i].name))
            return -ENOMEM;
    }
    return 0;
}

/* --off-cpu: sched:sched_switch after the sampling event, each switch-out sampled with its
 * call chain and raw fields, and switch records (the switch-ins that end waits). The first
 * event alone reports maps, comms and tasks. 0, -ENOMEM, or -errno with err said. */
static int add_offcpu_event(struct evlist *evl, const struct perf_event_attr *first,
                            char *err, size_t errlen)
{
    struct event_spec sw;
    struct perf_event_attr a;
    char why[256];

    if (event_parse("sched:sched_switch", &sw, why, sizeof(why))) {
        snprintf(err, errlen, "--off-cpu needs the sched:sched_switch tracepoint: %s", why);
        return -ENOENT;
    }
    a = *first;
    a.type = sw.attr.type;
    a.config = sw.attr.config;
    a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
    a.freq = 0;
    a.sample_period = 1;
    a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 0;
    a.context_switch = 1;
    return evlist_add(evl, &a, sw.name) ? 0 : -ENOMEM;
}

static int reopen(struct collect_result *res, const struct perf_event_attr *attr,
                  const struct collect_opts *o, const pid_t *targets, size_t ntargets,
                  const int *cpus, size_t ncpus, char *err, size_t errlen)
{
    int ret;

    evlist_release(&res->evlist);
    evlist_init(&res->evlist);
    if (!evlist_add(&res->evlist, attr, o->event.name) ||
        add_more_events(&res->evlist, o, true))
        return -ENOMEM;
    if (o->off_cpu && (ret = add_offcpu_event(&res->evlist, attr, err, errlen)))
        return ret;
    return evlist_open(&res->evlist, targets, ntargets, cpus, ncpus, err, errlen);
}

int collect_run(const struct collect_opts *o, const struct collect_outlets *out,
                struct collect_result *res, char *err, size_t errlen)
{
    struct perf_event_attr attr;
    struct drain_ctx dc = { .out = out };
    int *cpus = NULL, pidfd = -1, ret;
    struct launch l = { .pid = -1, .go_fd = -1, .err_fd = -1 };
    size_t ncpus = 0, ntargets = 1;
    pid_t *targets = NULL, sw_target = -1;
    struct pollfd *pfds = NULL;
    uint64_t deadline = 0;
    bool child_done = false;
    int stops = 0;

    memset(res, 0, sizeof(*res));
    evlist_init(&res->evlist);
    err[0] = '\0';
    ret = cpus_online(&cpus, &ncpus);
    if (ret) {
        snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(-ret));
        return ret;
    }
    res->nr_cpus = ncpus;
    collect_setup_attr(o, &attr);
    if (!evlist_add(&res->evlist, &attr, o->event.name) ||
        add_more_events(&res->evlist, o, false)) {
        ret = -ENOMEM;
        goto out;
    }
    if (o->off_cpu && (ret = add_offcpu_event(&res->evlist, &attr, err, errlen)))
        goto out;
    if (o->nr_pids) {
        ret = attach_targets(o->pids, o->nr_pids, &targets, &ntargets, err, errlen);
        if (ret)
            goto out;
        res->attached_threads = ntargets;
    }
    if (o->argv) {
        /* The child waits before exec until the events are open on it. */
        ret = launch_prepare(&l, o->argv);
        if (ret) {
            snprintf(err, errlen, "cannot start the command: %s", strerror(-ret));
            goto out;
        }
        res->child = l.pid;
        pidfd = pidfd_open_compat(res->child);
        /* Pinned before exec, so the command never runs anywhere else. */
        if (o->pin_cpu >= 0) {
            ret = cpu_pin(res->child, o->pin_cpu, "/sys/devices/system/cpu/online", err, errlen);
            if (ret)
                goto out;
        }
    }
    if (!o->system_wide && !o->nr_pids)
        sw_target = res->child;
    ret = evlist_open(&res->evlist, targets ? targets : &sw_target, ntargets, cpus, ncpus, err,
                      errlen);
    if ((ret == -EACCES || ret == -EPERM) && !o->system_wide && !attr.exclude_kernel) {
        /* perf_event_paranoid 2 lets users sample their own user space only: do that, and
         * let the report say the kernel is missing and why. */
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        ret = reopen(res, &attr, o, targets ? targets : &sw_target, ntargets, cpus, ncpus, err,
                     errlen);
        res->kernel_excluded = ret == 0;
    }
    if (ret)
        goto out;
    ret = evlist_mmap(&res->evlist, o->mmap_pages ? o->mmap_pages : DEFAULT_PAGES);
    if (ret) {
        snprintf(err, errlen, "cannot map the ring buffers: %s%s", strerror(-ret),
                 ret == -EPERM || ret == -ENOMEM ?
                 " (raise kernel.perf_event_mlock_kb or use fewer pages with -m)" : "");
        goto out;
    }
    pr_debug("%s: %zu ring buffers of %zu pages on %zu CPUs, %s %llu%s",
             o->event.name, res->evlist.nr_rbs, o->mmap_pages ? o->mmap_pages : DEFAULT_PAGES,
             ncpus, attr.freq ? "frequency" : "period",
             (unsigned long long)(attr.freq ? attr.sample_freq : attr.sample_period),
             attr.freq ? " Hz" : "");
    dc.evl = &res->evlist;
    if (out->ordered) {
        dc.q = ordered_new(out->ordered, out->ordered_arg);
        if (!dc.q) {
            ret = -ENOMEM;
            goto out;
        }
    }
    /* Processes that exist already (events are on, so nothing started since is missed). */
    if (o->system_wide || o->nr_pids) {
        struct proc_synth_stats st;
        if (o->system_wide) {
            ret = proc_synthesize("/proc", -1, &res->evlist.sel[0].attr, on_synth, &dc, &st);
        } else {
            for (size_t i = 0; i < o->nr_pids && ret >= 0; i++)
                ret = proc_synthesize("/proc", o->pids[i], &res->evlist.sel[0].attr, on_synth,
                                      &dc, &st);
        }
        if (ret < 0 && ret != -EACCES && ret != -ENOENT) {
            snprintf(err, errlen, "reading /proc: %s", strerror(-ret));
            goto out;
        }
        res->proc_unreadable = st.unreadable;
        res->proc_first_unreadable = st.first_unreadable;
        ret = 0;
    }
    if (res->child && out->launched) {
        ret = out->launched(out->ordered_arg, res->child);
        if (ret < 0) {
            snprintf(err, errlen, "%s", strerror(-ret));
            goto out;
        }
    }
    res->start_ns = now_ns();
    if (o->duration > 0)
        deadline = res->start_ns + (uint64_t)(o->duration * 1e9);
    if (res->child) {
        ret = launch_go(&l);           /* returns once the exec has happened or failed */
        if (ret) {
            /* Not a collection failure: the caller reports 127/126 for the command. */
            res->exec_errno = -ret;
            while (waitpid(res->child, &res->child_status, 0) < 0 && errno == EINTR)
                ;
            child_done = true;
            ret = 0;
            goto out;
        }
        res->child_ran = true;
    }
    pfds = calloc(res->evlist.nr_rbs + 1, sizeof(*pfds));
    if (!pfds) {
        ret = -ENOMEM;
        goto out;
    }
    for (;;) {
        size_t n = 0;
        int timeout = POLL_MS;
        for (size_t i = 0; i < res->evlist.nr_rbs; i++) {
            pfds[n].fd = res->evlist.rbs[i]->fd;
            pfds[n++].events = POLLIN;
        }
        if (pidfd >= 0 && !child_done) {
            pfds[n].fd = pidfd;
            pfds[n++].events = POLLIN;
        }
        if (deadline) {
            uint64_t t = now_ns();
            if (t >= deadline) {
                /* The command is never killed: either wait for it below or leave it to
                 * the caller, who reports first (`run -d`). */
                res->running = o->return_at_duration && res->child && !child_done;
                break;
            }
            if ((deadline - t) / 1000000 < (uint64_t)timeout)
                timeout = (int)((deadline - t) / 1000000) + 1;
        }
        if (poll(pfds, n, timeout) < 0 && errno != EINTR) {
            ret = -errno;
            snprintf(err, errlen, "poll: %s", strerror(errno));
            goto out;
        }
        ret = drain_all(&res->evlist, &dc);
        if (ret < 0) {
            snprintf(err, errlen, "processing records: %s", strerror(-ret));
            goto out;
        }
        if (res->child && !child_done) {
            pid_t w = waitpid(res->child, &res->child_status, WNOHANG);
            if (w == res->child)
                child_done = true;
        }
        if (collect_stop_count != stops) {
            int now = collect_stop_count;
            res->stop_signal = collect_stop_signal;
            if (!res->child || child_done)
                break;
            if (now > 1) {
                /* Asked twice: the command ignores or defers the signal. Stop profiling
                 * now and leave it running rather than hang. */
                res->abandoned = true;
                break;
            }
            /* Pass the signal on (and wake a stopped command so it can act on it);
             * profiling ends when the command does. */
            kill(res->child, res->stop_signal);
            kill(res->child, SIGCONT);
            stops = now;
        }
        if (res->child && child_done)
            break;
    }
    res->end_ns = now_ns();
    evlist_disable(&res->evlist);
    ret = drain_all(&res->evlist, &dc);
    if (!ret && dc.q)
        ret = ordered_flush(dc.q);
    if (ret < 0)
        snprintf(err, errlen, "processing records: %s", strerror(-ret));
out:
    if (res->child && res->child_ran && !child_done && !res->abandoned && !res->running) {
        /* The command runs: its exit status is the caller's to report, whatever happened to
         * the collection, and it is never killed for Prospect's sake. */
        while (waitpid(res->child, &res->child_status, 0) < 0 && errno == EINTR)
            ;
        child_done = true;
    }
    if (res->child && !res->child_ran && !child_done) {
        /* Never released (setup failed): do not leave it waiting for the go byte. */
        launch_abort(&l);
        res->child_status = 0;
    }
    for (size_t i = 0; i < res->evlist.nr_rbs; i++)
        res->bad_records += res->evlist.rbs[i]->bad_records;
    res->records = dc.records;
    pr_debug("%llu records read, %llu unreadable", (unsigned long long)dc.records,
             (unsigned long long)res->bad_records);
    if (pidfd >= 0) close(pidfd);
    ordered_free(dc.q);
    free(pfds);
    free(targets);
    free(cpus);
    return ret;
}

void collect_release(struct collect_result *res)
{
    evlist_release(&res->evlist);
}
