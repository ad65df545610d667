/* SPDX-License-Identifier: MIT */
/* Competition for the chosen CPU: the load average and the tasks runnable right now. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "system/syscheck_priv.h"
#include "util/strutil.h"

#define STAT_MAX  (16 * 1024 * 1024)
#define DEBUG_MAX (32 * 1024 * 1024)

/* nr_running of "cpu#N" in a sched debug dump, or -1. */
static long sched_debug_running(const char *buf, int cpu)
{
    char head[32];
    const char *p = buf, *next;

    snprintf(head, sizeof(head), "cpu#%d", cpu);
    while ((p = strstr(p, head))) {
        char after = p[strlen(head)];
        if ((p == buf || p[-1] == '\n') && (after == ',' || after == '\n' || after == ' ')) {
            const char *nr = strstr(p, ".nr_running");
            next = strstr(p + 1, "\ncpu#");
            if (!nr || (next && nr > next))
                return -1;
            nr = strchr(nr, ':');
            if (!nr)
                return -1;
            char *end;
            long v = strtol(nr + 1, &end, 10);
            return end == nr + 1 || v < 0 ? -1 : v;
        }
        p += strlen(head);
    }
    return -1;
}

/* procs_running from /proc/stat, or -1. */
static long procs_running(const struct sc_ctx *c)
{
    char *buf, *p;
    long v = -1;

    if (sc_read(c, "/proc/stat", &buf, STAT_MAX))
        return -1;
    for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (str_starts(p, "procs_running ")) {
            char *end;
            v = strtol(p + 14, &end, 10);
            if (end == p + 14 || v < 0)
                v = -1;
            break;
        }
    free(buf);
    return v;
}

int check_load(struct sc_ctx *c)
{
    char line[256], v[512], a[512], *buf = NULL;
    double load1;
    int ncpu = CPU_COUNT(&c->online), err;
    bool isolated = CPU_ISSET(c->cpu, &c->isolated);

    if (sc_read_line(c, "/proc/loadavg", line, sizeof(line)) ||
        sscanf(line, "%lf", &load1) != 1 || load1 < 0) {
        err = sc_add(c, "load", CHECK_NA, "/proc/loadavg not readable", NULL);
    } else if (load1 <= ncpu - 1 || isolated) {
        snprintf(v, sizeof(v), "1-minute load %.2f on %d CPUs%s", load1, ncpu,
                 isolated ? " (CPU is isolated from it)" : ": a CPU is free on average");
        err = sc_add(c, "load", CHECK_OK, v, NULL);
    } else {
        snprintf(v, sizeof(v), "1-minute load %.2f on %d CPUs: the measured program will "
                 "share CPU %d with other work", load1, ncpu, c->cpu);
        err = sc_add(c, "load", CHECK_WARN, v, "stop other work, or isolate the CPU");
    }
    if (err)
        return err;

    /* Per-CPU runnable tasks need the scheduler debug dump; the checker itself is one of them
     * when it runs on that CPU of the live system. */
    if (sc_read(c, "/proc/sched_debug", &buf, DEBUG_MAX) == 0 ||
        sc_read(c, "/sys/kernel/debug/sched/debug", &buf, DEBUG_MAX) == 0) {
        long n = sched_debug_running(buf, c->cpu);
        free(buf);
        if (n >= 0) {
            if (c->live && sched_getcpu() == c->cpu && n > 0)
                n--;
            snprintf(v, sizeof(v), "%ld other task%s runnable on CPU %d", n, n == 1 ? "" : "s",
                     c->cpu);
            if (n == 0)
                return sc_add(c, "runnable", CHECK_OK, v, NULL);
            snprintf(a, sizeof(a), "find them with: ps -eLo pid,psr,stat,comm | awk '$2 == %d'",
                     c->cpu);
            return sc_add(c, "runnable", CHECK_WARN, v, a);
        }
    }
    long n = procs_running(c);
    if (n < 0)
        return sc_add(c, "runnable", CHECK_NA, "procs_running not found in /proc/stat", NULL);
    if (c->live && n > 0)
        n--;    /* this check itself */
    snprintf(v, sizeof(v), "%ld other task%s runnable system-wide%s", n, n == 1 ? "" : "s",
             isolated ? "; CPU is isolated from them" : "");
    if (n == 0 || isolated)
        return sc_add(c, "runnable", CHECK_OK, v, NULL);
    return sc_add(c, "runnable", CHECK_WARN, v, "per-CPU counts need /proc/sched_debug or "
                  "debugfs (mount -t debugfs none /sys/kernel/debug); stop other work");
}
