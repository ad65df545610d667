/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "markers"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "markers/read.h"
#include "intarget/markers_wire.h"

#define MAX_CHANNEL (256u << 20)   /* results larger than this are refused, not read */

int markers_channel_create(const struct perf_event_attr *ev, size_t nev)
{
    char buf[2048];
    size_t n;
    int fd;

    if (!nev || nev > MARKERS_MAX_EVENTS)
        return -EINVAL;
    n = (size_t)snprintf(buf, sizeof(buf), "%sevents %zu\n", MARKERS_MAGIC, nev);
    for (size_t i = 0; i < nev; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "event %u %llu %llu %llu %d %d\n",
                              ev[i].type, (unsigned long long)ev[i].config,
                              (unsigned long long)ev[i].config1,
                              (unsigned long long)ev[i].config2, (int)ev[i].exclude_user,
                              (int)ev[i].exclude_kernel);
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "end\n");
    /* Not close-on-exec: the command inherits it (and nothing else can open it). */
    fd = memfd_create("prospect-markers", MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    if (write(fd, buf, n) != (ssize_t)n ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL)) {
        int e = errno ? errno : EIO;
        close(fd);
        return -e;
    }
    return fd;
}

struct merge {
    uint64_t *hist[1 + MARKERS_MAX_EVENTS];
};

static struct markers_region *region_for(struct markers_result *r, struct merge **mg,
                                         const char *name, size_t nq)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->r[i].name, name))
            return &r->r[i];
    struct markers_region *nr = realloc(r->r, (r->n + 1) * sizeof(*nr));
    struct merge *nm = realloc(*mg, (r->n + 1) * sizeof(*nm));
    if (nr)
        r->r = nr;
    if (nm)
        *mg = nm;
    if (!nr || !nm)
        return NULL;
    struct markers_region *x = &r->r[r->n];
    memset(x, 0, sizeof(*x));
    memset(&(*mg)[r->n], 0, sizeof(**mg));
    x->res.pid = x->res.tid = -1;
    if (!(x->name = strdup(name)) || !(x->res.vals = calloc(nq - 1 ? nq - 1 : 1,
                                                            sizeof(struct rc_stat)))) {
        free(x->name);
        return NULL;
    }
    r->n++;
    return x;
}

static void stat_merge(struct rc_stat *st, uint64_t n, uint64_t total, uint64_t min, uint64_t max)
{
    if (!n)
        return;
    if (!st->n || (double)min < st->min)
        st->min = (double)min;
    if (!st->n || (double)max > st->max)
        st->max = (double)max;
    st->n += n;
    st->total += (double)total;
}

/* "Q TOTAL MIN MAX NB B:C ..." into the region's stat and merged histogram. */
static int parse_q(char *line, uint64_t crossings, struct rc_stat *st, uint64_t **hist)
{
    unsigned long long total, min, max, nb, sum = 0;
    char *p = line + 2, *end;

    total = strtoull(p, &end, 10);
    if (end == p || *end != ' ')
        return -1;
    min = strtoull(p = end + 1, &end, 10);
    if (end == p || *end != ' ')
        return -1;
    max = strtoull(p = end + 1, &end, 10);
    if (end == p || *end != ' ')
        return -1;
    nb = strtoull(p = end + 1, &end, 10);
    if (end == p || nb > MARKERS_BUCKETS || (crossings && min > max))
        return -1;
    if (!*hist && !(*hist = calloc(MARKERS_BUCKETS, sizeof(**hist))))
        return -1;
    for (unsigned long long i = 0; i < nb; i++) {
        unsigned long b;
        unsigned long long c;
        if (*end != ' ')
            return -1;
        b = strtoul(p = end + 1, &end, 10);
        if (end == p || *end != ':' || b >= MARKERS_BUCKETS)
            return -1;
        c = strtoull(p = end + 1, &end, 10);
        if (end == p || c > crossings)
            return -1;
        (*hist)[b] += c;
        sum += c;
    }
    if (*end || sum != crossings)   /* the histogram holds every crossing */
        return -1;
    stat_merge(st, crossings, total, min, max);
    return 0;
}

/* Bucket lower bounds, clamped to the observed range, each weighted by its crossings:
 * percentiles within a bucket's width, in memory of the buckets (expanding every crossing
 * took 8 bytes each and was skipped past 64M, which printed p50 = p99 = 0). */
static int expand(struct rc_stat *st, const uint64_t *hist)
{
    size_t k = 0;
    if (!st->n || !hist)
        return 0;
    st->all = malloc(MARKERS_BUCKETS * sizeof(double));
    st->weights = malloc(MARKERS_BUCKETS * sizeof(uint64_t));
    if (!st->all || !st->weights)
        return -ENOMEM;
    for (unsigned b = 0; b < MARKERS_BUCKETS; b++)
        if (hist[b]) {
            double v = (double)markers_bucket_low(b);
            st->all[k] = v < st->min ? st->min : v > st->max ? st->max : v;
            st->weights[k++] = hist[b];
        }
    st->cap = k;
    return 0;
}

static int fail(char *err, size_t errlen, size_t off, const char *what)
{
    snprintf(err, errlen, "markers channel: %s at offset %zu", what, off);
    return -EINVAL;
}

int markers_read(int fd, size_t nev, bool keep_values, struct markers_result *out, char *err,
                 size_t errlen)
{
    size_t cap = 1 << 16, len = 0, off, nq = 1 + nev;
    char *buf = malloc(cap);
    struct merge *mg = NULL;
    int ret = 0;

    memset(out, 0, sizeof(*out));
    out->nev = nev;
    if (!buf)
        return -ENOMEM;
    for (;;) {
        ssize_t n;
        if (len + 1 >= cap) {
            char *nb = cap >= MAX_CHANNEL ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return cap >= MAX_CHANNEL ? fail(err, errlen, len, "more than 256 MiB") : -ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        n = pread(fd, buf + len, cap - len - 1, (off_t)len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ret = -errno;
            free(buf);
            return ret;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    /* Skip the configuration: everything up to "end\n". */
    char *p = strstr(buf, "\nend\n");
    if (strncmp(buf, MARKERS_MAGIC, strlen(MARKERS_MAGIC)) || !p) {
        free(buf);
        return fail(err, errlen, 0, "not a markers channel");
    }
    p += 5;
    while (*p && !ret) {
        char *nl = strchr(p, '\n');
        off = (size_t)(p - buf);
        if (!nl) {
            ret = fail(err, errlen, off, "truncated record");
            break;
        }
        *nl = '\0';
        if (p[0] == 'R' && p[1] == ' ') {
            int pid, tid, used = 0;
            unsigned long long calls, crossings, open;
            size_t q, namelen;
            if (sscanf(p, "R %d %d %llu %llu %llu %zu %zu %n", &pid, &tid, &calls, &crossings,
                       &open, &q, &namelen, &used) != 7 || !used || q != nq ||
                namelen > MARKERS_MAX_NAME || strlen(p + used) != namelen || crossings > calls) {
                ret = fail(err, errlen, off, "bad region record");
                break;
            }
            struct markers_region *r = region_for(out, &mg, p + used, nq);
            if (!r) {
                ret = -ENOMEM;
                break;
            }
            size_t idx = (size_t)(r - out->r);
            r->res.calls += calls;
            r->res.crossings += crossings;
            r->res.open += open;
            r->threads++;
            out->records++;
            for (size_t k = 0; k < nq && !ret; k++) {
                char *ql = nl + 1, *qn = strchr(ql, '\n');
                off = (size_t)(ql - buf);
                if (!qn || strncmp(ql, "Q ", 2)) {
                    ret = fail(err, errlen, off, "missing counter record");
                    break;
                }
                *qn = '\0';
                if (parse_q(ql, crossings, k ? &r->res.vals[k - 1] : &r->res.wall,
                            &mg[idx].hist[k]))
                    ret = fail(err, errlen, off, "bad counter record");
                nl = qn;
            }
        } else if (p[0] == 'E' && p[1] == ' ') {
            int pid, tid, e;
            if (sscanf(p, "E %d %d %d", &pid, &tid, &e) != 3) {
                ret = fail(err, errlen, off, "bad error record");
                break;
            }
            if (!out->open_errors++)
                out->first_errno = e;
        } else if (p[0] == 'M' && p[1] == ' ') {
            int pid;
            unsigned long long u;
            if (sscanf(p, "M %d %llu", &pid, &u) != 2) {
                ret = fail(err, errlen, off, "bad record");
                break;
            }
            out->unmatched += u;
        } else {
            ret = fail(err, errlen, off, "unknown record");
            break;
        }
        p = nl + 1;
    }
    for (size_t i = 0; i < out->n; i++) {
        for (size_t k = 0; k < nq; k++) {
            if (!ret && keep_values)
                ret = expand(k ? &out->r[i].res.vals[k - 1] : &out->r[i].res.wall,
                             mg[i].hist[k]);
            free(mg[i].hist[k]);
        }
    }
    free(mg);
    free(buf);
    if (ret)
        markers_result_free(out);
    return ret;
}

void markers_result_free(struct markers_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->r[i].name);
        free(r->r[i].res.wall.all);
        free(r->r[i].res.wall.weights);
        for (size_t k = 0; k < r->nev; k++) {
            free(r->r[i].res.vals[k].all);
            free(r->r[i].res.vals[k].weights);
        }
        free(r->r[i].res.vals);
    }
    free(r->r);
    memset(r, 0, sizeof(*r));
}
