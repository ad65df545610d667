/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/profile_opts.h"
#include "report/prospect_report.h"
#include "util/cpu_pin.h"
#include "util/strutil.h"

#define MAX_FREQ 100000   /* beyond kernel.perf_event_max_sample_rate's usual ceiling */
#define CALL_GRAPH_DWARF_DEFAULT 8192   /* perf's */
#define CALL_GRAPH_DWARF_MAX 65528      /* perf's: a sample's size is a u16 */

void profile_opts_init(struct profile_opts *po)
{
    memset(po, 0, sizeof(*po));
    po->collect.pin_cpu = -1;
    po->collect.pids = po->pids;
}

int profile_opts_parse(struct profile_opts *po, const char *cmd, int c, const char *arg)
{
    uint64_t v;
    double d;

    switch (c) {
    case 'a':
        po->collect.system_wide = true;
        return 0;
    case 'F':
        if (parse_u64(arg, &v) || v == 0 || v > MAX_FREQ) {
            cmd_usage_error(cmd, "invalid frequency '%s' (1 to %d Hz)", arg, MAX_FREQ);
            return -EINVAL;
        }
        po->collect.freq = v;
        po->freq_given = true;
        return 0;
    case 'c':
        if (parse_u64(arg, &v) || v == 0 || v > INT64_MAX) {   /* the kernel's limit */
            cmd_usage_error(cmd, "invalid period '%s' (1 to 2^63-1 events)", arg);
            return -EINVAL;
        }
        po->collect.period = v;
        po->period_given = true;
        return 0;
    case 'e':
        if (po->nr_event_args == COLLECT_MAX_EVENTS) {
            cmd_usage_error(cmd, "at most %d sampling events", COLLECT_MAX_EVENTS);
            return -EINVAL;
        }
        if (!po->event_str)
            po->event_str = arg;
        po->event_args[po->nr_event_args++] = arg;
        return 0;
    case 'p':
        if (parse_u64(arg, &v) || v == 0 || v > INT32_MAX) {
            cmd_usage_error(cmd, "invalid pid '%s'", arg);
            return -EINVAL;
        }
        if (po->collect.nr_pids >= sizeof(po->pids) / sizeof(*po->pids)) {
            cmd_usage_error(cmd, "too many -p options");
            return -EINVAL;
        }
        po->pids[po->collect.nr_pids++] = (pid_t)v;
        return 0;
    case 'g':
        po->collect.callchain = true;
        return 0;
    case PROFILE_OPT_OFF_CPU:
        po->collect.off_cpu = true;
        return 0;
    case PROFILE_OPT_CALL_GRAPH:
        /* perf's syntax: fp, dwarf[,SIZE], lbr. */
        if (!strcmp(arg, "fp")) {
            po->collect.callchain = true;
            po->collect.stack_user = 0;
            return 0;
        }
        if (!strcmp(arg, "dwarf")) {
            po->collect.callchain = true;
            po->collect.stack_user = CALL_GRAPH_DWARF_DEFAULT;
            return 0;
        }
        if (!strncmp(arg, "dwarf,", 6)) {
            /* As perf: rounded up to 8 bytes. */
            if (parse_u64(arg + 6, &v) || v == 0 || v > CALL_GRAPH_DWARF_MAX) {
                cmd_usage_error(cmd, "invalid --call-graph dwarf size '%s' (1 to %d bytes)",
                                arg + 6, CALL_GRAPH_DWARF_MAX);
                return -EINVAL;
            }
            po->collect.callchain = true;
            po->collect.stack_user = (uint32_t)((v + 7) & ~7ULL);
            return 0;
        }
        if (!strcmp(arg, "lbr")) {
            cmd_error(cmd, "--call-graph lbr: not yet: LBR call stacks are not implemented (and "
                      "this machine has no LBR); use -g or --call-graph dwarf");
            return -EINVAL;
        }
        cmd_usage_error(cmd, "--call-graph must be fp or dwarf[,SIZE], not '%s'", arg);
        return -EINVAL;
    case 'm':
        if (parse_u64(arg, &v) || v == 0 || (v & (v - 1)) || v > 65536) {
            cmd_usage_error(cmd, "invalid --mmap-pages '%s' (a power of two, at most 65536)", arg);
            return -EINVAL;
        }
        po->collect.mmap_pages = v;
        return 0;
    case 'd':
        if (parse_double(arg, &d) || d <= 0) {
            cmd_usage_error(cmd, "invalid --duration '%s' (seconds)", arg);
            return -EINVAL;
        }
        po->collect.duration = d;
        return 0;
    case PROFILE_OPT_CPU:
        if (cpu_parse(arg, &po->collect.pin_cpu)) {
            cmd_usage_error(cmd, "invalid --cpu '%s'", arg);
            return -EINVAL;
        }
        return 0;
    default:
        return -ENOENT;
    }
}

/* One -e token: the first goes into collect.event, the others after it. */
static int add_event(struct profile_opts *po, const char *cmd, const char *tok)
{
    size_t n = po->collect.nr_more_events;
    struct event_spec *es = po->collect.event.name[0] ? &po->collect.more_events[n] :
                            &po->collect.event;
    char err[512];
    int ret;

    if (po->collect.event.name[0] && n == COLLECT_MAX_EVENTS - 1)
        return cmd_usage_error(cmd, "at most %d sampling events", COLLECT_MAX_EVENTS);
    ret = event_parse(tok, es, err, sizeof(err));
    if (ret == -EACCES || ret == -EPERM || ret == -EBUSY || ret == -ENODEV) {
        cmd_error(cmd, "%s", err);   /* a real event, not a typo */
        return 1;
    }
    if (ret)
        return cmd_usage_error(cmd, "%s", err);
    if (es != &po->collect.event) {
        bool dup = !strcmp(es->name, po->collect.event.name);
        for (size_t i = 0; i < n; i++)
            dup |= !strcmp(es->name, po->collect.more_events[i].name);
        if (dup)
            return cmd_usage_error(cmd, "event '%s' given twice", es->name);
        po->collect.nr_more_events++;
    }
    return 0;
}

/* Every -e, each a comma-separated list; commas inside PMU/terms/ belong to the terms. */
static int parse_event_list(struct profile_opts *po, const char *cmd)
{
    char tok[256];
    int ret;

    for (size_t a = 0; a < po->nr_event_args; a++) {
        const char *p = po->event_args[a];
        for (;;) {
            size_t len = 0;
            int slashes = 0;
            while (p[len] && (p[len] != ',' || slashes == 1))
                slashes += p[len++] == '/';
            if (!len || len >= sizeof(tok))
                return cmd_usage_error(cmd, "invalid event list '%s'", po->event_args[a]);
            memcpy(tok, p, len);
            tok[len] = '\0';
            if ((ret = add_event(po, cmd, tok)))
                return ret;
            if (!p[len])
                break;
            p += len + 1;
        }
    }
    return 0;
}

int profile_opts_finish(struct profile_opts *po, const char *cmd)
{

    if (po->freq_given && po->period_given)
        return cmd_usage_error(cmd, "-F and -c exclude each other");
    if (po->event_str) {
        int ret = parse_event_list(po, cmd);
        if (ret)
            return ret;
    } else {
        event_default_sampling(&po->collect.event, po->event_why, sizeof(po->event_why));
    }
    /* An event's own period wins; -F and -c apply to the events without one (docs/events.md),
     * so they are an error only when no event is left for them. */
    bool all_own = po->collect.event.period != 0;
    for (size_t i = 0; i < po->collect.nr_more_events; i++)
        all_own &= po->collect.more_events[i].period != 0;
    if (all_own && (po->freq_given || po->period_given))
        return cmd_usage_error(cmd, "-F and -c apply to events without a period of their own, "
                               "and every event in '-e %s' has one", po->event_str);
    if (po->collect.pin_cpu >= 0 && !po->collect.argv)
        return cmd_usage_error(cmd, "--cpu pins a launched command; there is none");
    return 0;
}

void profile_opts_report(const struct profile_opts *po, struct report_opts *ro)
{
    profile_opts_report_event(po, 0, ro);
}

void profile_opts_report_event(const struct profile_opts *po, size_t i, struct report_opts *ro)
{
    const struct event_spec *ev = i ? &po->collect.more_events[i - 1] : &po->collect.event;
    const struct perf_event_attr *a = &ev->attr;
    ro->system_wide = po->collect.system_wide;
    ro->event = ev->name;
    ro->event_why = !i && po->event_why[0] ? po->event_why : ev->note[0] ? ev->note : NULL;
    ro->freq_mode = !ev->period && !po->collect.period &&
                    (po->collect.freq || a->type != PERF_TYPE_TRACEPOINT);
    ro->freq = po->collect.freq ? po->collect.freq : COLLECT_DEFAULT_FREQ;
    ro->period = ev->period ? ev->period : po->collect.period ? po->collect.period : 1;
    ro->time_event = a->type == PERF_TYPE_SOFTWARE &&
                     (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

int profile_opts_collected(const struct profile_opts *po, const char *cmd, int ret,
                           const struct collect_result *res, const char *err,
                           const char *partial, const char *doing)
{
    if (ret && !res->start_ns) {        /* failed while setting up: nothing was collected */
        cmd_error(cmd, "%s", err);
        return 1;
    }
    if (res->child && !res->child_ran) {
        cmd_error(cmd, "%s: %s", po->collect.argv[0],
                  res->exec_errno == ENOENT ? "command not found" : strerror(res->exec_errno));
        return res->exec_errno == ENOENT || res->exec_errno == ENOTDIR ? 127 : 126;
    }
    if (ret)
        cmd_error(cmd, "%s (%s)", err, partial);
    if (res->abandoned)
        cmd_error(cmd, "stopped %s; '%s' (pid %d) did not exit and keeps running", doing,
                  po->collect.argv[0], (int)res->child);
    return -1;
}
