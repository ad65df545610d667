/* SPDX-License-Identifier: MIT */
/* A launched trace's execs without the interposer (see exec_watch.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "calltrace/exec_watch.h"
#include "perf/event.h"
#include "perf/ringbuf.h"
#include "util/vec.h"

#define WATCH_PAGES 32                  /* 128 KiB a cpu: hundreds of execs between two drains */
#define SO_NAME "calltrace_preload.so"

struct image {
    uint32_t pid;
    char comm[16];
    bool interposed;
    bool current;                       /* the process's image now (a later exec replaces it) */
};

/* An exec or a mapping of the interposer, with its time: the rings are per cpu, so records
 * are matched in time order once all are in (a process migrates between its exec and ld.so's
 * mapping of the interposer). */
struct event {
    uint64_t time;
    uint32_t pid;
    bool exec;
    char comm[16];
};

struct ct_exec_watch {
    VEC(struct ringbuf) rbs;            /* one per cpu */
    uint32_t root;
    bool follow;
    uint64_t lost;
    VEC(struct event) events;
    VEC(struct image) images;
};

/* One event and ring per cpu: the kernel maps no inherited per-task event, and a ring takes
 * the output of events on its own cpu only. */
static int open_events(struct ct_exec_watch *w, pid_t pid, bool follow)
{
    struct perf_event_attr at = { 0 };
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    at.size = sizeof(at);
    at.type = PERF_TYPE_SOFTWARE;
    at.config = PERF_COUNT_SW_DUMMY;
    at.comm = at.comm_exec = at.mmap = 1;
    at.inherit = follow;
    at.exclude_kernel = at.exclude_hv = 1;
    at.sample_id_all = 1;
    at.sample_type = PERF_SAMPLE_TIME;  /* each record's last 8 bytes */
    for (int cpu = 0; cpu < (ncpu > 0 ? ncpu : 1); cpu++) {
        struct ringbuf rb = { .fd = -1 };
        int fd = perf_event_open_fd(&at, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC), e;
        if (fd == -ENODEV || fd == -EINVAL)
            continue;                   /* an offline cpu */
        if (fd < 0)
            return fd;
        if ((e = ringbuf_map(&rb, fd, cpu, WATCH_PAGES))) {
            close(fd);
            return e;
        }
        if (vec_push(&w->rbs, rb)) {
            ringbuf_unmap(&rb);
            close(fd);
            return -ENOMEM;
        }
    }
    return w->rbs.n ? 0 : -ENODEV;
}

int ct_exec_watch_new(struct ct_exec_watch **out, pid_t pid, bool follow)
{
    struct ct_exec_watch *w = calloc(1, sizeof(*w));
    int e;
    if (!w)
        return -ENOMEM;
    w->root = (uint32_t)pid;
    w->follow = follow;
    if ((e = open_events(w, pid, follow))) {
        ct_exec_watch_free(w);
        return e;
    }
    *out = w;
    return 0;
}

static struct image *current_image(struct ct_exec_watch *w, uint32_t pid)
{
    for (size_t i = w->images.n; i-- > 0;)
        if (w->images.v[i].pid == pid && w->images.v[i].current)
            return &w->images.v[i];
    return NULL;
}

/* An exec: the process's earlier image is done (kept only when it missed the interposer). */
static int on_exec(struct ct_exec_watch *w, const struct event *ev)
{
    struct image *old = current_image(w, ev->pid), im = { .pid = ev->pid, .current = true };
    if (old && old->interposed)
        *old = w->images.v[--w->images.n];
    else if (old)
        old->current = false;
    memcpy(im.comm, ev->comm, sizeof(im.comm));
    return vec_push(&w->images, im) ? -ENOMEM : 0;
}

static bool is_interposer(const char *file, size_t max)
{
    size_t n = strnlen(file, max), k = strlen(SO_NAME);
    return n > k && file[n - k - 1] == '/' && !memcmp(file + n - k, SO_NAME, k);
}

static int on_record(void *arg, const struct perf_event_header *h)
{
    struct ct_exec_watch *w = arg;
    const uint8_t *p = (const uint8_t *)h;
    struct event ev = { 0 };
    size_t hs = sizeof(*h);
    if (h->type == PERF_RECORD_LOST && h->size >= hs + 16) {
        uint64_t n;
        memcpy(&n, p + hs + 8, 8);
        w->lost += n;
        return 0;
    }
    if (h->size < hs + 8 + 8)
        return 0;
    memcpy(&ev.pid, p + hs, 4);
    memcpy(&ev.time, p + h->size - 8, 8);
    if (!w->follow && ev.pid != w->root)
        return 0;
    if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
        ev.exec = true;
        size_t room = h->size - hs - 16;   /* pid, tid, comm, time */
        memcpy(ev.comm, p + hs + 8, room < sizeof(ev.comm) - 1 ? room : sizeof(ev.comm) - 1);
    } else if (h->type != PERF_RECORD_MMAP || h->size <= hs + 32 + 8 ||
               !is_interposer((const char *)p + hs + 32, h->size - hs - 32 - 8)) {
        return 0;                       /* MMAP: pid, tid, addr, len, pgoff, filename */
    }
    return vec_push(&w->events, ev) ? -ENOMEM : 0;
}

int ct_exec_watch_drain(struct ct_exec_watch *w)
{
    for (size_t i = 0; i < w->rbs.n; i++) {
        long r = ringbuf_drain(&w->rbs.v[i], on_record, w);
        if (r < 0)
            return (int)r;
    }
    return 0;
}

static int cmp_event(const void *x, const void *y)
{
    const struct event *a = x, *b = y;
    return a->time < b->time ? -1 : a->time > b->time;
}

int ct_exec_watch_finish(struct ct_exec_watch *w)
{
    int e = ct_exec_watch_drain(w);
    if (e)
        return e;
    if (w->events.n > 1)
        qsort(w->events.v, w->events.n, sizeof(*w->events.v), cmp_event);
    for (size_t i = 0; i < w->events.n && !e; i++) {
        const struct event *ev = &w->events.v[i];
        struct image *im;
        if (ev->exec)
            e = on_exec(w, ev);
        else if ((im = current_image(w, ev->pid)))
            im->interposed = true;
    }
    w->events.n = 0;
    return e;
}

bool ct_exec_watch_missed(const struct ct_exec_watch *w, size_t i, uint32_t *pid,
                          const char **comm)
{
    for (size_t k = 0; k < w->images.n; k++)
        if (!w->images.v[k].interposed && !i--) {
            *pid = w->images.v[k].pid;
            *comm = w->images.v[k].comm;
            return true;
        }
    return false;
}

uint64_t ct_exec_watch_lost(const struct ct_exec_watch *w)
{
    return w->lost;
}

void ct_exec_watch_free(struct ct_exec_watch *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->rbs.n; i++) {
        ringbuf_unmap(&w->rbs.v[i]);
        close(w->rbs.v[i].fd);
    }
    vec_free(&w->rbs);
    vec_free(&w->events);
    vec_free(&w->images);
    free(w);
}
