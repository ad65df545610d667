/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "probe/program_count.h"
#include "util/cpulist.h"
#include "util/file.h"
#include "util/strutil.h"
#include "util/vec.h"

struct program_count {
    size_t n;
    VEC(int) fds;      /* n per thread (or per CPU) */
    struct perf_event_attr *attrs;   /* n: as opened (exclude_kernel after a refusal) */
    bool *user_only;                 /* n: the kernel was excluded because it was refused */
};

/* Like perf: a user may count only its own user space (kernel.perf_event_paranoid 2), so an
 * event refused with the kernel included is opened again without kernel and hypervisor. */
static int open_one(struct program_count *pc, size_t i, pid_t tid, int cpu, int leader)
{
    struct perf_event_attr *a = &pc->attrs[i];
    int fd = perf_event_open_fd(a, tid, cpu, leader, 0);

    if ((fd == -EACCES || fd == -EPERM) && !a->exclude_kernel) {
        struct perf_event_attr u = *a;
        u.exclude_kernel = 1;
        u.exclude_hv = 1;
        fd = perf_event_open_fd(&u, tid, cpu, leader, 0);
        if (fd >= 0) {
            *a = u;
            pc->user_only[i] = true;
        }
    }
    return fd;
}

static int open_for(struct program_count *pc, const struct event_spec *ev, const int *group,
                    pid_t tid, int cpu, unsigned flags, char *msg, size_t msglen)
{
    size_t first = pc->fds.n;
    bool attach = flags & (PC_ATTACH | PC_SYSTEM_WIDE);   /* counting from now, not at exec */
    for (size_t i = 0; i < pc->n; i++) {
        struct perf_event_attr *a = &pc->attrs[i];
        int leader = -1;
        /* A member of a -g group joins the fd of the group's first event. */
        for (size_t j = 0; group && group[i] > 0 && j < i; j++)
            if (group[j] == group[i]) {
                leader = pc->fds.v[first + j];
                break;
            }
        a->size = sizeof(*a);
        a->inherit = !(flags & PC_SYSTEM_WIDE);   /* a CPU-wide event sees every task anyway */
        a->disabled = leader < 0 && !attach;
        a->enable_on_exec = leader < 0 && !attach;
        a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        int fd = open_one(pc, i, tid, cpu, leader);
        if (fd < 0) {
            event_open_advice_pid(-fd, a, ev[i].name, flags & PC_SYSTEM_WIDE ? -1 : tid, msg,
                                  msglen);
            return fd;
        }
        if (vec_push(&pc->fds, fd)) {
            close(fd);
            return -ENOMEM;
        }
    }
    return 0;
}

/* One set of events per online CPU, for every task. */
static int open_cpus(struct program_count *pc, const struct event_spec *ev, const int *group,
                     unsigned flags, char *msg, size_t msglen)
{
    char *list = NULL;
    size_t len;
    cpu_set_t set;
    int e = file_read_all("/sys/devices/system/cpu/online", &list, &len, 4096);

    if (!e)
        e = cpulist_parse(list, &set);
    free(list);
    if (e) {
        snprintf(msg, msglen, "cannot read the online CPUs (/sys/devices/system/cpu/online): %s",
                 strerror(-e));
        return e;
    }
    for (int c = 0; c < CPU_SETSIZE && !e; c++)
        if (CPU_ISSET(c, &set))
            e = open_for(pc, ev, group, -1, c, flags, msg, msglen);
    return e;
}

int program_count_open(struct program_count **out, const struct event_spec *ev,
                       const int *group, size_t n, pid_t pid, unsigned flags, char *msg,
                       size_t msglen)
{
    struct program_count *pc = calloc(1, sizeof(*pc));
    int e = 0;

    *out = NULL;
    if (!pc)
        return -ENOMEM;
    pc->n = n;
    pc->attrs = calloc(n + 1, sizeof(*pc->attrs));
    pc->user_only = calloc(n + 1, sizeof(*pc->user_only));
    if (!pc->attrs || !pc->user_only) {
        program_count_free(pc);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        pc->attrs[i] = ev[i].attr;
    if (flags & PC_SYSTEM_WIDE) {
        e = open_cpus(pc, ev, group, flags, msg, msglen);
    } else if (!(flags & PC_ATTACH)) {
        e = open_for(pc, ev, group, pid, -1, flags, msg, msglen);
    } else {
        char path[64];
        struct dirent *de;
        DIR *d;
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        d = opendir(path);
        if (!d) {
            e = -errno;
            snprintf(msg, msglen, "cannot attach to process %d: %s", (int)pid, strerror(-e));
        }
        while (d && (de = readdir(d))) {
            uint64_t tid;
            if (parse_u64(de->d_name, &tid) || tid == 0 || tid > 0x7fffffff)
                continue;
            size_t before = pc->fds.n;
            e = open_for(pc, ev, group, (pid_t)tid, -1, flags, msg, msglen);
            if (e == -ESRCH && (pid_t)tid != pid) {   /* the thread just exited */
                while (pc->fds.n > before)
                    close(pc->fds.v[--pc->fds.n]);
                e = 0;
            }
            if (e)
                break;
        }
        if (d)
            closedir(d);
    }
    if (e) {
        program_count_free(pc);
        return e;
    }
    *out = pc;
    return 0;
}

int program_count_read(struct program_count *pc, struct pc_value *vals)
{
    memset(vals, 0, pc->n * sizeof(*vals));
    for (size_t i = 0; i < pc->fds.n; i++) {
        uint64_t buf[3];
        struct pc_value *v = &vals[i % pc->n];
        if (read(pc->fds.v[i], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
            return -EIO;
        v->raw += buf[0];
        v->enabled += buf[1];
        v->running += buf[2];
    }
    for (size_t i = 0; i < pc->n; i++) {
        struct pc_value *v = &vals[i];
        v->counted = v->running > 0;
        v->scaled = (double)v->raw;
        if (v->running && v->running < v->enabled)
            v->scaled = (double)v->raw * (double)v->enabled / (double)v->running;
    }
    return 0;
}

bool program_count_user_only(const struct program_count *pc, size_t i)
{
    return i < pc->n && pc->user_only[i];
}

void program_count_free(struct program_count *pc)
{
    if (!pc)
        return;
    for (size_t i = 0; i < pc->fds.n; i++)
        close(pc->fds.v[i]);
    vec_free(&pc->fds);
    free(pc->attrs);
    free(pc->user_only);
    free(pc);
}
