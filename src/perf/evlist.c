/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "evlist"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "perf/event.h"
#include "perf/evlist.h"
#include "perf/ringbuf.h"
#include "util/file.h"
#include "util/log.h"

void evlist_init(struct evlist *evl)
{
    memset(evl, 0, sizeof(*evl));
    evl->id_pos = -1;
    evl->is_pos = -1;
}

void evlist_release(struct evlist *evl)
{
    for (size_t i = 0; i < evl->nr_rbs; i++) {
        ringbuf_unmap(evl->rbs[i]);
        free(evl->rbs[i]);
    }
    free(evl->rbs);
    for (size_t i = 0; i < evl->nr; i++) {
        struct evsel *s = &evl->sel[i];
        for (size_t j = 0; j < s->nr_fds; j++)
            if (s->fds[j] >= 0)
                close(s->fds[j]);
        free(s->fds);
        free(s->ids);
        free(s->name);
    }
    free(evl->sel);
    evlist_init(evl);
}

struct evsel *evlist_add(struct evlist *evl, const struct perf_event_attr *attr, const char *name)
{
    struct evsel *ns = realloc(evl->sel, (evl->nr + 1) * sizeof(*ns)), *s;
    if (!ns)
        return NULL;
    evl->sel = ns;
    evl->cache_sel = NULL;
    s = &ns[evl->nr];
    memset(s, 0, sizeof(*s));
    s->attr = *attr;
    s->attr.size = sizeof(s->attr);
    s->name = strdup(name ? name : "unknown");
    if (!s->name)
        return NULL;
    s->idx = (int)evl->nr++;
    return s;
}

int evsel_add_id(struct evsel *sel, uint64_t id)
{
    uint64_t *n = realloc(sel->ids, (sel->nr_ids + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    sel->ids = n;
    n[sel->nr_ids++] = id;
    return 0;
}

/* Index (in u64 words) of the id in a sample, counted from the start of the body. */
static int sample_id_pos(uint64_t st)
{
    int pos = 0;
    if (st & PERF_SAMPLE_IDENTIFIER)
        return 0;
    if (!(st & PERF_SAMPLE_ID))
        return -1;
    pos += !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
           !!(st & PERF_SAMPLE_ADDR);
    return pos;
}

/* Index of the id counted back from the end of a non-sample record (1 = last word). */
static int trailer_id_pos(uint64_t st)
{
    int pos = 1;
    if (st & PERF_SAMPLE_IDENTIFIER)
        return 1;
    if (!(st & PERF_SAMPLE_ID))
        return -1;
    pos += !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
    return pos;
}

int evlist_finalize(struct evlist *evl)
{
    if (evl->nr <= 1) {
        evl->id_pos = evl->nr ? sample_id_pos(evl->sel[0].attr.sample_type) : -1;
        evl->is_pos = evl->nr ? trailer_id_pos(evl->sel[0].attr.sample_type) : -1;
        return 0;
    }
    evl->id_pos = sample_id_pos(evl->sel[0].attr.sample_type);
    evl->is_pos = trailer_id_pos(evl->sel[0].attr.sample_type);
    for (size_t i = 1; i < evl->nr; i++) {
        if (sample_id_pos(evl->sel[i].attr.sample_type) != evl->id_pos ||
            trailer_id_pos(evl->sel[i].attr.sample_type) != evl->is_pos)
            return -EINVAL;
    }
    return evl->id_pos < 0 ? -EINVAL : 0;
}

const struct evsel *evlist_find_id(const struct evlist *evl, uint64_t id)
{
    struct evlist *cache = (struct evlist *)evl;

    if (evl->cache_sel && evl->cache_id == id)
        return evl->cache_sel;
    for (size_t i = 0; i < evl->nr; i++)
        for (size_t j = 0; j < evl->sel[i].nr_ids; j++)
            if (evl->sel[i].ids[j] == id) {
                cache->cache_id = id;
                cache->cache_sel = &evl->sel[i];
                return &evl->sel[i];
            }
    return NULL;
}

const struct evsel *evlist_evsel_for(const struct evlist *evl, const struct perf_event_header *h)
{
    const uint64_t *body = (const uint64_t *)(h + 1);
    size_t words = h->size >= sizeof(*h) ? (h->size - sizeof(*h)) / 8 : 0;
    uint64_t id;

    if (evl->nr == 0)
        return NULL;
    if (evl->nr == 1)
        return &evl->sel[0];
    if (h->type == PERF_RECORD_SAMPLE) {
        if (evl->id_pos < 0 || (size_t)evl->id_pos >= words)
            return NULL;
        id = body[evl->id_pos];
    } else {
        if (!evl->sel[0].attr.sample_id_all || evl->is_pos < 0 || (size_t)evl->is_pos > words)
            return &evl->sel[0];
        id = body[words - (size_t)evl->is_pos];
    }
    return evlist_find_id(evl, id);
}

int cpus_online(int **cpus, size_t *n)
{
    char *buf, *p;
    int err = file_read_all("/sys/devices/system/cpu/online", &buf, NULL, 4096);
    int *out = NULL;
    size_t cnt = 0;

    if (err) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        if (nc <= 0)
            return err;
        out = calloc((size_t)nc, sizeof(int));
        if (!out)
            return -ENOMEM;
        for (long i = 0; i < nc; i++)
            out[cnt++] = (int)i;
        *cpus = out;
        *n = cnt;
        return 0;
    }
    /* Format: "0-3,5,7-8\n" */
    for (p = buf; *p && *p != '\n';) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0 || a > 65535)
            goto bad;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b > 65535)
                goto bad;
            p = end;
        }
        for (long c = a; c <= b; c++) {
            int *no = realloc(out, (cnt + 1) * sizeof(int));
            if (!no) {
                free(out);
                free(buf);
                return -ENOMEM;
            }
            out = no;
            out[cnt++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            goto bad;
    }
    free(buf);
    if (!cnt)
        return -EINVAL;
    *cpus = out;
    *n = cnt;
    return 0;
bad:
    free(out);
    free(buf);
    return -EINVAL;
}

int evlist_open(struct evlist *evl, const pid_t *pids, size_t npids, const int *cpus,
                size_t ncpus, char *advice, size_t advice_len)
{
    if (!npids || !ncpus || npids > SIZE_MAX / sizeof(int) / ncpus)
        return -EINVAL;
    for (size_t i = 0; i < evl->nr; i++) {
        struct evsel *s = &evl->sel[i];
        size_t n = npids * ncpus;
        s->fds = malloc(n * sizeof(int));
        if (!s->fds)
            return -ENOMEM;
        s->nr_fds = n;
        s->ncpus = ncpus;
        for (size_t k = 0; k < n; k++)
            s->fds[k] = -1;
        for (size_t k = 0; k < n; k++) {
            uint64_t id;
            int fd = perf_event_open_fd(&s->attr, pids[k / ncpus], cpus[k % ncpus], -1, 0);
            if (fd < 0) {
                event_open_advice_pid(-fd, &s->attr, s->name, pids[k / ncpus], advice,
                                      advice_len);
                return fd;
            }
            s->fds[k] = fd;
            if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && evsel_add_id(s, id))
                return -ENOMEM;
        }
    }
    return evlist_finalize(evl);
}

int evlist_mmap(struct evlist *evl, size_t pages)
{
    size_t ncpus;

    if (!evl->nr)
        return -EINVAL;
    ncpus = evl->sel[0].ncpus;
    if (!ncpus)
        return -EINVAL;
    evl->rbs = calloc(ncpus, sizeof(*evl->rbs));
    if (!evl->rbs)
        return -ENOMEM;
    for (size_t c = 0; c < ncpus; c++) {
        struct ringbuf *rb = calloc(1, sizeof(*rb));
        int err, lead = evl->sel[0].fds[c];
        if (!rb)
            return -ENOMEM;
        err = ringbuf_map(rb, lead, (int)c, pages);
        if (err) {
            free(rb);
            return err;
        }
        evl->rbs[evl->nr_rbs++] = rb;
        /* Every other event on this cpu (other evsels, other target tasks) writes here too. */
        for (size_t i = 0; i < evl->nr; i++)
            for (size_t k = c; k < evl->sel[i].nr_fds; k += ncpus)
                if (evl->sel[i].fds[k] != lead &&
                    ioctl(evl->sel[i].fds[k], PERF_EVENT_IOC_SET_OUTPUT, lead))
                    return -errno;
    }
    return 0;
}

static int evlist_ioctl_all(struct evlist *evl, unsigned long req)
{
    for (size_t i = 0; i < evl->nr; i++)
        for (size_t c = 0; c < evl->sel[i].nr_fds; c++)
            if (evl->sel[i].fds[c] >= 0 && ioctl(evl->sel[i].fds[c], req, 0))
                return -errno;
    return 0;
}

int evlist_enable(struct evlist *evl)
{
    return evlist_ioctl_all(evl, PERF_EVENT_IOC_ENABLE);
}

int evlist_disable(struct evlist *evl)
{
    return evlist_ioctl_all(evl, PERF_EVENT_IOC_DISABLE);
}
