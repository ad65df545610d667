/* SPDX-License-Identifier: MIT */
/* Counting probes at block starts (count.h). */
#define LOG_PREFIX "lines"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lines/count.h"
#include "perf/event.h"
#include "probe/uprobe.h"
#include "perf/ringbuf.h"
#include "symbol/dso.h"
#include "symbol/elf_code.h"
#include "util/cpulist.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strutil.h"

/* What one counted execution costs the program, ns, per kind (REGION_ENTRY_*, then
 * LINES_COST_INPROC): medians of bench/bench_lines.sh on the development VM (docs/lines.md,
 * "Cost"). */
static const double cost_ns[4] = { 1000, 1000, 11000, 5 };

struct image_count {
    uint32_t pid;
    unsigned prog, tramp;       /* images of the program; mappings of the trampoline */
    int exec_cpu;               /* cpu of the last exec not yet followed by its mapping, or -1 */
};

struct lines_counter {
    uint64_t *hits;             /* per probe, from the samples */
    int *region;                /* per probe: its region, the index of its block in probed */
    size_t nprobes;
    uint32_t id_off;            /* the id field's offset in a sample's raw data */
    int *fds;
    size_t nfds;
    struct ringbuf *rbs;        /* one per cpu */
    struct pollfd *pfds;
    size_t nrbs;
    uint64_t lost, samples, bad;
    char group[64];
    bool made;                  /* the event exists in tracefs */
    struct image_watch watch;   /* nprog 0: no jump entries to watch */
    VEC(struct image_count) images;
    int cur_cpu;                /* of the ring buffer being drained */
};

/* Could the kernel refuse a uprobe on the instruction at this file offset? An instruction
 * that does not decode is asked about too. */
static bool maybe_refused(const ZydisDecoder *dec, const char *path, uint64_t off)
{
    uint8_t code[16];
    struct x86_insn in;
    ssize_t got = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        got = pread(fd, code, sizeof(code), (off_t)off);
        close(fd);
    }
    if (got <= 0)
        return true;
    if (!x86_decode(dec, code, (size_t)got, 0, &in))
        return true;
    return lines_insn_unprobeable(&in);
}

int lines_probe_points(const struct lines_plan *p, struct region_list *rl)
{
    if (!rl->dsos && !(rl->dsos = dso_cache_new()))
        return -ENOMEM;
    for (size_t i = 0; i < p->probed.n; i++) {
        const struct lines_block *b = &p->blocks.v[p->probed.v[i]];
        const char *fname = b->line ? p->files.v[b->file].path : "?";
        const char *base = strrchr(fname, '/');
        struct region r = { 0 };
        struct probe_point pp = { .vaddr = b->probe_at, .role = RC_ENTER, .region = (int)i };
        int e;

        if ((e = elf_vaddr_to_offset(p->exe, b->probe_at, &pp.offset)))
            return e;
        if (asprintf(&r.label, "%s:%u@0x%llx", base ? base + 1 : fname, b->line,
                     (unsigned long long)b->probe_at) < 0) {
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

/* An event per cpu (per thread and cpu when attached): raise the soft limit on open files as
 * far as the hard one allows. */
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
        snprintf(msg, msglen, "%zu events need %zu open files, the limit is %llu: raise "
                 "ulimit -n", n, n + 64,
                 (unsigned long long)rl.rlim_cur);
        return -EMFILE;
    }
    return 0;
}

/* The kernel checks a probed instruction only when it installs the probe in a process that
 * maps the file; for the command that is at its exec, where a refusal is silent (the block
 * would count 0). So a uprobe it might refuse gets a probe of its own, installed once in
 * Prospect's own process through a per-task event while a private executable mapping of the
 * file exists (as region_trace does). Only those: removing each probe costs the kernel a grace
 * period (~75 ms here). *bad = the first refused probe's index. */
static int check_installable(const struct region_list *rl, size_t *bad)
{
    struct uprobe_set *set = NULL;
    void *m = MAP_FAILED;
    struct stat st;
    int fd = -1, e = 0;
    ZydisDecoder dec;

    if ((e = x86_decoder_init(&dec)))
        return e;
    for (size_t i = 0; i < rl->probes.n && !e; i++) {
        const struct probe_point *pp = &rl->probes.v[i];
        struct perf_event_attr a;
        uint64_t tp;
        int efd;
        if (pp->jump || !maybe_refused(&dec, pp->path, pp->offset))
            continue;
        if (!set && !(set = uprobe_set_new()))
            break;
        if (fd < 0) {
            if ((fd = open(pp->path, O_RDONLY | O_CLOEXEC)) < 0)
                break;
            if (!fstat(fd, &st) && st.st_size > 0)
                m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
            if (m == MAP_FAILED)
                break;
        }
        if (uprobe_set_add(set, pp->path, pp->offset, false, &tp))
            continue;       /* the real probe's creation will say why */
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = tp;
        a.disabled = 1;
        if ((efd = perf_event_open_fd(&a, 0, -1, -1, 0)) < 0) {
            e = efd;
            *bad = i;
        } else {
            close(efd);
        }
    }
    if (m != MAP_FAILED)
        munmap(m, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    uprobe_set_free(set);
    return e;
}

/* Writes one command to uprobe_events (appended: others' probes stay). */
static int write_event(int fd, const char *cmd)
{
    size_t len = strlen(cmd);
    if (write(fd, cmd, len) != (ssize_t)len)
        return -errno;
    return 0;
}

/* Where the `id` argument sits in a sample's raw data, from the event's format file. */
static int id_offset(const char *dir, const char *group, uint32_t *off)
{
    char p[256], *buf, *f;
    int e;
    snprintf(p, sizeof(p), "%s/events/%s/lines/format", dir, group);
    if ((e = file_read_all(p, &buf, NULL, 1 << 16)))
        return e;
    f = strstr(buf, " id;\toffset:");
    e = -EINVAL;
    if (f) {
        uint64_t v;
        char num[16];
        size_t k = 0;
        f += strlen(" id;\toffset:");
        while (k + 1 < sizeof(num) && f[k] >= '0' && f[k] <= '9') {
            num[k] = f[k];
            k++;
        }
        num[k] = '\0';
        if (!parse_u64(num, &v) && v < 4096) {
            *off = (uint32_t)v;
            e = 0;
        }
    }
    free(buf);
    return e;
}

/* One tracefs event for every probe ("p:prospect_PID/lines PATH:OFF id=\\N:u32", appended):
 * each hit is a sample whose raw data names its probe. One event means one removal, one grace
 * period, however many probes; per-probe events took ~75 ms each to remove. */
static int make_event(struct lines_counter *c, const struct region_list *rl, uint64_t *tp,
                      char *msg, size_t msglen)
{
    const char *dir = uprobe_tracefs();
    char p[256], cmd[4200], *buf;
    int fd, e = 0;

    if (!dir) {
        e = -errno;
        snprintf(msg, msglen, "cannot create uprobes: %s", uprobe_advice(errno));
        return e;
    }
    snprintf(c->group, sizeof(c->group), "prospect_%ld", (long)getpid());
    snprintf(p, sizeof(p), "%s/uprobe_events", dir);
    if ((fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0) {
        e = -errno;
        snprintf(msg, msglen, "cannot write %s: %s", p, strerror(-e));
        return e;
    }
    for (size_t i = 0; i < rl->probes.n && !e; i++) {
        const struct probe_point *pp = &rl->probes.v[i];
        if (strpbrk(pp->path, " \t\n") || strlen(pp->path) >= 4000) {
            e = -EINVAL;
            snprintf(msg, msglen, "%s: a path with white space cannot be probed", pp->path);
            break;
        }
        snprintf(cmd, sizeof(cmd), "p:%s/lines %s:0x%llx id=\\%zu:u32\n", c->group, pp->path,
                 (unsigned long long)pp->offset, i);
        if ((e = write_event(fd, cmd)))
            snprintf(msg, msglen, "cannot create a uprobe at %s:0x%llx: %s", pp->path,
                     (unsigned long long)pp->offset, strerror(-e));
        else
            c->made = true;
    }
    close(fd);
    if (e)
        return e;
    snprintf(p, sizeof(p), "%s/events/%s/lines/id", dir, c->group);
    if (!(e = file_read_all(p, &buf, NULL, 64))) {
        buf[strcspn(buf, "\n")] = '\0';
        e = parse_u64(buf, tp);
        free(buf);
    }
    if (!e)
        e = id_offset(dir, c->group, &c->id_off);
    if (e)
        snprintf(msg, msglen, "cannot read the uprobe event's id and format in %s: %s", dir,
                 strerror(-e));
    return e;
}

static int cpus_online(int **out, size_t *n)
{
    cpu_set_t set;
    char *buf;
    int e = file_read_all("/sys/devices/system/cpu/online", &buf, NULL, 4096);
    if (e)
        return e;
    e = cpulist_parse(buf, &set);
    free(buf);
    if (e)
        return e;
    *n = 0;
    if (!(*out = calloc(CPU_SETSIZE, sizeof(int))))
        return -ENOMEM;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &set))
            (*out)[(*n)++] = i;
    return *n ? 0 : -ENODEV;
}

#define RB_PAGES 512            /* 2 MiB per cpu: ~65k samples; drained every 10 ms */

int lines_counter_open(struct lines_counter **out, const struct region_list *rl, pid_t pid,
                       const pid_t *tids, size_t ntids, const struct image_watch *watch,
                       char *msg, size_t msglen)
{
    struct lines_counter *c = calloc(1, sizeof(*c));
    size_t nthreads = tids ? ntids : 1, ncpus = 0;
    int *cpus = NULL;
    uint64_t tp = 0;
    int e;

    *out = NULL;
    msg[0] = '\0';
    if (!c)
        return -ENOMEM;
    c->nprobes = rl->probes.n;
    if (watch)
        c->watch = *watch;
    if (!(c->hits = calloc(rl->probes.n + 1, sizeof(uint64_t))) ||
        !(c->region = calloc(rl->probes.n + 1, sizeof(int)))) {
        e = -ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < rl->probes.n; i++)
        c->region[i] = rl->probes.v[i].region;
    uprobe_cleanup_stale();
    {
        size_t bad = 0;
        if ((e = check_installable(rl, &bad))) {
            const struct probe_point *pp = &rl->probes.v[bad];
            snprintf(msg, msglen, "the kernel refuses a uprobe on the instruction at 0x%llx "
                     "(%s): %s", (unsigned long long)pp->vaddr,
                     rl->regions.v[pp->region].label, e == -524 ? "it cannot be "
                     "single-stepped or emulated (a lock or segment prefix, EVEX...); leave its "
                     "function out" : strerror(-e));
            goto fail;
        }
    }
    /* No probe (the in-process engine counts every block): a dummy event still says which
     * images of the program the hook patched. */
    if (rl->probes.n && (e = make_event(c, rl, &tp, msg, msglen)))
        goto fail;
    if ((e = cpus_online(&cpus, &ncpus))) {
        snprintf(msg, msglen, "cannot list the online cpus: %s", strerror(-e));
        goto fail;
    }
    if ((e = room_for(ncpus * nthreads, msg, msglen)))
        goto fail;
    c->fds = calloc(ncpus * nthreads + 1, sizeof(int));
    c->rbs = calloc(ncpus + 1, sizeof(*c->rbs));
    c->pfds = calloc(ncpus + 2, sizeof(*c->pfds));   /* the last: launch_wait's wake fd */
    if (!c->fds || !c->rbs || !c->pfds) {
        e = -ENOMEM;
        goto fail;
    }
    for (size_t k = 0; k < ncpus; k++) {
        int lead = -1;
        for (size_t t = 0; t < nthreads; t++) {
            struct perf_event_attr a;
            pid_t who = tids ? tids[t] : pid;
            int fd;

            memset(&a, 0, sizeof(a));
            a.size = sizeof(a);
            a.type = rl->probes.n ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
            a.config = rl->probes.n ? tp : PERF_COUNT_SW_DUMMY;
            a.sample_period = 1;
            a.sample_type = PERF_SAMPLE_RAW;
            a.inherit = 1;
            /* A launched command counts from its exec; an attached process from now, in
             * every thread it has (and, inherited, every thread and child they start). */
            a.disabled = !tids;
            a.enable_on_exec = !tids;
            /* Jump entries count only in images the hook patched: the program's and the
             * trampoline's executable mappings tell which were not (lines_counter_unpatched). */
            a.mmap = a.mmap2 = a.comm = a.comm_exec = c->watch.nprog > 0 && t == 0;
            a.watermark = 1;
            a.wakeup_watermark = RB_PAGES * 4096 / 4;
            fd = perf_event_open_fd(&a, (int)who, cpus[k], -1, PERF_FLAG_FD_CLOEXEC);
            if (fd == -ESRCH && tids && who != pid)
                continue;                       /* a thread that just ended */
            if (fd < 0) {
                e = fd;
                snprintf(msg, msglen, "cannot open the probes' event on cpu %d: %s", cpus[k],
                         strerror(-e));
                goto fail;
            }
            c->fds[c->nfds++] = fd;
            if (lead < 0) {
                if ((e = ringbuf_map(&c->rbs[c->nrbs], fd, cpus[k], RB_PAGES))) {
                    snprintf(msg, msglen, "cannot map a ring buffer: %s", strerror(-e));
                    goto fail;
                }
                c->pfds[c->nrbs] = (struct pollfd){ .fd = fd, .events = POLLIN };
                c->nrbs++;
                lead = fd;
            } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
                e = -errno;
                snprintf(msg, msglen, "cannot share a ring buffer: %s", strerror(-e));
                goto fail;
            }
        }
    }
    pr_debug("%zu probes in one event, %zu events", rl->probes.n, c->nfds);
    free(cpus);
    *out = c;
    return 0;
fail:
    free(cpus);
    lines_counter_free(c);
    return e;
}

struct rec_mmap2 {
    struct perf_event_header h;
    uint32_t pid, tid;
    uint64_t addr, len, pgoff;
    uint32_t maj, min;
    uint64_t ino, ino_generation;
    uint32_t prot, flags;
};

static bool same_image(const struct image_id *a, const struct rec_mmap2 *m)
{
    return a->ino == m->ino && a->maj == m->maj && a->min == m->min;
}

static struct image_count *image_of(struct lines_counter *c, uint32_t pid)
{
    for (size_t i = 0; i < c->images.n; i++)
        if (c->images.v[i].pid == pid)
            return &c->images.v[i];
    if (vec_push(&c->images, ((struct image_count){ .pid = pid, .exec_cpu = -1 })))
        return NULL;
    return &c->images.v[c->images.n - 1];
}

/* An exec: the program's mapping that follows it in the same ring buffer (the same system
 * call, on the same cpu) starts an image of the program. Later mappings of its code (the
 * hook's mprotect while patching makes some) are not new images. Counted per pid, so the
 * order of records across cpus does not matter. */
static void on_exec(struct lines_counter *c, const struct perf_event_header *h)
{
    uint32_t pid;
    struct image_count *ic;
    if (!c->watch.nprog || !(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < sizeof(*h) + 8)
        return;
    memcpy(&pid, h + 1, 4);
    if ((ic = image_of(c, pid)))
        ic->exec_cpu = c->cur_cpu;
}

static void on_mmap2(struct lines_counter *c, const struct perf_event_header *h)
{
    struct rec_mmap2 m;
    bool prog = false, tramp;
    struct image_count *ic;

    if (!c->watch.nprog || h->size < sizeof(m) || (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
        return;
    memcpy(&m, h, sizeof(m));
    tramp = same_image(&c->watch.tramp, &m);
    for (size_t i = 0; i < c->watch.nprog && !tramp; i++)
        prog |= same_image(&c->watch.prog[i], &m);
    if ((!prog && !tramp) || !(ic = image_of(c, m.pid)))
        return;
    if (prog && ic->exec_cpu == c->cur_cpu) {
        ic->prog++;
        ic->exec_cpu = -1;
    }
    ic->tramp += tramp;
}

size_t lines_counter_unpatched(const struct lines_counter *c, uint32_t *pids, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < c->images.n; i++)
        if (c->images.v[i].prog > c->images.v[i].tramp) {
            if (n < max)
                pids[n] = c->images.v[i].pid;
            n++;
        }
    return n;
}

static int on_record(void *arg, const struct perf_event_header *h)
{
    struct lines_counter *c = arg;
    const uint8_t *body = (const uint8_t *)(h + 1);
    size_t len = h->size - sizeof(*h);

    if (h->type == PERF_RECORD_MMAP2) {
        on_mmap2(c, h);
    } else if (h->type == PERF_RECORD_COMM) {
        on_exec(c, h);
    } else if (h->type == PERF_RECORD_LOST && len >= 16) {
        uint64_t n;
        memcpy(&n, body + 8, sizeof(n));
        c->lost += n;
    } else if (h->type == PERF_RECORD_SAMPLE) {
        uint32_t size, id;
        if (len < 4 || (memcpy(&size, body, 4), size > len - 4) || c->id_off + 4 > size) {
            c->bad++;
            return 0;
        }
        memcpy(&id, body + 4 + c->id_off, 4);
        if (id < c->nprobes) {
            c->hits[id]++;
            c->samples++;
        } else {
            c->bad++;
        }
    }
    return 0;
}

static void drain(struct lines_counter *c)
{
    for (size_t i = 0; i < c->nrbs; i++) {
        c->cur_cpu = c->rbs[i].cpu;
        ringbuf_drain(&c->rbs[i], on_record, c);
    }
}

int lines_counter_poll(void *arg, int timeout_ms, int wake_fd)
{
    struct lines_counter *c = arg;

    c->pfds[c->nrbs] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
    /* Drained at least every 10 ms: the buffers never come near full at probe speeds. */
    if (poll(c->pfds, c->nrbs + 1, timeout_ms < 10 ? timeout_ms : 10) < 0 && errno != EINTR)
        return -errno;
    drain(c);
    return 0;
}

int lines_counter_read(struct lines_counter *c, struct lines_plan *p, uint64_t *lost)
{
    uint64_t total = 0;
    for (size_t i = 0; i < c->nfds; i++) {
        uint64_t v;
        if (ioctl(c->fds[i], PERF_EVENT_IOC_DISABLE, 0) < 0 && errno != ESRCH)
            return -errno;
        if (read(c->fds[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
            total += v;
    }
    drain(c);
    for (size_t i = 0; i < c->nprobes; i++)
        if (c->region[i] >= 0 && (size_t)c->region[i] < p->probed.n)
            p->blocks.v[p->probed.v[c->region[i]]].count = c->hits[i];
    /* Hits the kernel counted whose samples never arrived: a loss at the very end is never
     * followed by a LOST record. */
    *lost = c->lost;
    if (total > c->samples + c->lost)
        *lost = total - c->samples;
    *lost += c->bad;
    return lines_fill_derived(p);
}

void lines_counter_free(struct lines_counter *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nrbs; i++)
        ringbuf_unmap(&c->rbs[i]);
    for (size_t i = 0; i < c->nfds; i++)
        close(c->fds[i]);
    if (c->made) {
        const char *dir = uprobe_tracefs();
        char p[256], cmd[128];
        int fd;
        snprintf(p, sizeof(p), "%s/uprobe_events", dir ? dir : "");
        snprintf(cmd, sizeof(cmd), "-:%s/lines\n", c->group);
        if (dir && (fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC)) >= 0) {
            if (write_event(fd, cmd))
                pr_debug("cannot delete %s/lines: %s", c->group, strerror(errno));
            close(fd);
        }
    }
    free(c->fds);
    free(c->rbs);
    free(c->pfds);
    free(c->hits);
    free(c->region);
    vec_free(&c->images);
    free(c);
}

void lines_cost_of(const struct region_list *rl, const struct lines_plan *p,
                   struct lines_cost *out)
{
    memset(out, 0, sizeof(*out));
    memcpy(out->ns, cost_ns, sizeof(cost_ns));
    /* Region i is probed block i; its probe may be gone (counted in the process). */
    for (size_t i = 0; i < rl->probes.n; i++) {
        enum region_entry_kind k = region_probe_kind(&rl->probes.v[i]);
        int r = rl->probes.v[i].region;
        if (r < 0 || (size_t)r >= p->probed.n)
            continue;
        out->probes[k]++;
        out->hits[k] += p->blocks.v[p->probed.v[r]].count;
    }
}
