/* Counting probes at block starts (count.h). */
#define LOG_PREFIX "lines"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "lines/count.h"
#include "perf/event.h"
#include "probe/region_trace.h"
#include "probe/uprobe.h"
#include "symbol/dso.h"
#include "util/log.h"

/* What one counted execution costs the program, ns, per kind (REGION_ENTRY_*): medians of
 * bench/bench_lines.sh on the development VM (docs/lines.md, "Cost"). */
static const double cost_ns[3] = { 700, 1600, 7500 };

struct lines_counter {
    struct uprobe_set *set;
    int *fds;
    size_t n;
};

int lines_probe_points(const struct lines_plan *p, struct region_list *rl)
{
    if (!rl->dsos && !(rl->dsos = dso_cache_new()))
        return -ENOMEM;
    for (size_t i = 0; i < p->probed.n; i++) {
        const struct lines_block *b = &p->blocks.v[p->probed.v[i]];
        const char *fname = b->line ? p->files.v[b->file].path : "?";
        const char *base = strrchr(fname, '/');
        struct region r = { 0 };
        struct probe_point pp = { .vaddr = b->start, .role = RC_ENTER, .region = (int)i };
        int e;

        if ((e = elf_vaddr_to_offset(p->exe, b->start, &pp.offset)))
            return e;
        if (asprintf(&r.label, "%s:%u@0x%llx", base ? base + 1 : fname, b->line,
                     (unsigned long long)b->start) < 0) {
            r.label = NULL;
            return -ENOMEM;
        }
        if (!(r.spec = strdup(r.label)) || !(r.path = strdup(p->exe)) ||
            vec_push(&rl->regions, r)) {
            free(r.spec);
            free(r.path);
            free(r.label);
            return -ENOMEM;
        }
        if (!(pp.path = strdup(p->exe)) || vec_push(&rl->probes, pp)) {
            free(pp.path);
            return -ENOMEM;
        }
    }
    return 0;
}

/* One event per probe: raise the soft limit on open files as far as the hard one allows. */
static int room_for(size_t n, char *msg, size_t msglen)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return -errno;
    if (rl.rlim_cur < n + 64) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n + 64 ? n + 64 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < n + 64) {
        snprintf(msg, msglen, "%zu blocks need %zu open files, the limit is %llu: choose "
                 "functions (-f) or files (--file), or raise ulimit -n", n, n + 64,
                 (unsigned long long)rl.rlim_cur);
        return -EMFILE;
    }
    return 0;
}

int lines_counter_open(struct lines_counter **out, const struct region_list *rl, pid_t pid,
                       char *msg, size_t msglen)
{
    struct lines_counter *c = calloc(1, sizeof(*c));
    int e;

    *out = NULL;
    msg[0] = '\0';
    if (!c || !(c->fds = malloc((rl->probes.n + 1) * sizeof(int)))) {
        free(c);
        return -ENOMEM;
    }
    if ((e = room_for(rl->probes.n, msg, msglen)))
        goto fail;
    uprobe_cleanup_stale();
    if (!(c->set = uprobe_set_new())) {
        e = -errno;
        snprintf(msg, msglen, "cannot create uprobes: %s", uprobe_advice(errno));
        goto fail;
    }
    for (size_t i = 0; i < rl->probes.n; i++) {
        const struct probe_point *pp = &rl->probes.v[i];
        struct perf_event_attr a;
        uint64_t tp;
        int fd;

        if ((e = uprobe_set_add(c->set, pp->path, pp->offset, false, &tp))) {
            snprintf(msg, msglen, "cannot create a uprobe at %s:0x%llx: %s", pp->path,
                     (unsigned long long)pp->offset, strerror(-e));
            goto fail;
        }
        if (!pp->jump && (e = probe_installable(pp->path, tp))) {
            snprintf(msg, msglen, "the kernel refuses a uprobe on the instruction at 0x%llx "
                     "(%s): %s", (unsigned long long)pp->vaddr,
                     rl->regions.v[pp->region].label, e == -524 ? "it cannot be "
                     "single-stepped or emulated (a lock or segment prefix, EVEX...); leave its "
                     "function out" : strerror(-e));
            goto fail;
        }
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = tp;
        a.inherit = 1;
        a.disabled = 1;
        a.enable_on_exec = 1;
        if ((fd = perf_event_open_fd(&a, (int)pid, -1, -1, 0)) < 0) {
            e = fd;
            snprintf(msg, msglen, "cannot open a counter on the uprobe at 0x%llx: %s",
                     (unsigned long long)pp->vaddr, strerror(-e));
            goto fail;
        }
        c->fds[c->n++] = fd;
    }
    pr_debug("%zu counting probes", c->n);
    *out = c;
    return 0;
fail:
    lines_counter_free(c);
    return e;
}

int lines_counter_read(struct lines_counter *c, struct lines_plan *p)
{
    for (size_t i = 0; i < c->n && i < p->probed.n; i++) {
        uint64_t v;
        if (read(c->fds[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
            return errno ? -errno : -EIO;
        p->blocks.v[p->probed.v[i]].count = v;
    }
    return lines_fill_derived(p);
}

void lines_counter_free(struct lines_counter *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        close(c->fds[i]);
    free(c->fds);
    uprobe_set_free(c->set);
    free(c);
}

void lines_cost_of(const struct region_list *rl, const struct lines_plan *p,
                   struct lines_cost *out)
{
    memset(out, 0, sizeof(*out));
    memcpy(out->ns, cost_ns, sizeof(cost_ns));
    for (size_t i = 0; i < rl->regions.n && i < p->probed.n; i++) {
        enum region_entry_kind k = region_entry_kind(rl, (int)i);
        out->probes[k]++;
        out->hits[k] += p->blocks.v[p->probed.v[i]].count;
    }
}
