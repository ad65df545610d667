#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/program_count.h"
#include "util/strutil.h"
#include "util/vec.h"

struct program_count {
    size_t n;
    VEC(int) fds;      /* n per thread */
};

static int open_for(struct program_count *pc, const struct event_spec *ev, const int *group,
                    pid_t tid, bool attach, char *msg, size_t msglen)
{
    size_t first = pc->fds.n;
    for (size_t i = 0; i < pc->n; i++) {
        struct perf_event_attr a = ev[i].attr;
        int leader = -1;
        /* A member of a -g group joins the fd of the group's first event. */
        for (size_t j = 0; group && group[i] > 0 && j < i; j++)
            if (group[j] == group[i]) {
                leader = pc->fds.v[first + j];
                break;
            }
        a.size = sizeof(a);
        a.inherit = 1;
        a.disabled = leader < 0 && !attach;
        a.enable_on_exec = leader < 0 && !attach;
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        int fd = perf_event_open_fd(&a, tid, -1, leader, 0);
        if (fd < 0) {
            event_open_advice(-fd, &a, ev[i].name, msg, msglen);
            return fd;
        }
        if (vec_push(&pc->fds, fd)) {
            close(fd);
            return -ENOMEM;
        }
    }
    return 0;
}

int program_count_open(struct program_count **out, const struct event_spec *ev,
                       const int *group, size_t n, pid_t pid, bool attach, char *msg,
                       size_t msglen)
{
    struct program_count *pc = calloc(1, sizeof(*pc));
    int e = 0;

    *out = NULL;
    if (!pc)
        return -ENOMEM;
    pc->n = n;
    if (!attach) {
        e = open_for(pc, ev, group, pid, false, msg, msglen);
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
            e = open_for(pc, ev, group, (pid_t)tid, true, msg, msglen);
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

void program_count_free(struct program_count *pc)
{
    if (!pc)
        return;
    for (size_t i = 0; i < pc->fds.n; i++)
        close(pc->fds.v[i]);
    vec_free(&pc->fds);
    free(pc);
}
