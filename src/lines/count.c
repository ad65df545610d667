/* Counting probes at block starts (count.h). */
#define LOG_PREFIX "lines"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <capstone/capstone.h>
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
#include "symbol/dso.h"
#include "util/log.h"

/* What one counted execution costs the program, ns, per kind (REGION_ENTRY_*): medians of
 * bench/bench_lines.sh on the development VM (docs/lines.md, "Cost"). */
static const double cost_ns[3] = { 2000, 2000, 25000 };

struct lines_counter {
    struct uprobe_set *set;
    int *fds;                   /* per probe, per thread (one thread for a launched command) */
    size_t n, nthreads;
};

/* Could the kernel refuse a uprobe on this instruction (arch/x86/kernel/uprobes.c refuses
 * lock and es/cs/ss/ds prefixes, some VEX/EVEX forms, and system instructions)? Ordinary
 * compiled code never is; an instruction that does not decode is asked about too. */
static bool maybe_refused(csh h, cs_insn *in, const char *path, uint64_t off)
{
    uint8_t code[16];
    const uint8_t *c = code;
    size_t n = sizeof(code);
    uint64_t a = 0;
    ssize_t got = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        got = pread(fd, code, sizeof(code), (off_t)off);
        close(fd);
    }
    if (got <= 0)
        return true;
    n = (size_t)got;
    if (!cs_disasm_iter(h, &c, &n, &a, in))
        return true;
    for (unsigned i = 0; i < in->size; i++) {
        uint8_t b = in->bytes[i];
        if (b == 0xf0 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e)
            return true;      /* also a false alarm on such a byte elsewhere: only costs time */
        if (b == 0x62 || b == 0xc4 || b == 0xc5 || b == 0x8f)
            return true;
    }
    return cs_insn_group(h, in, CS_GRP_INT) || cs_insn_group(h, in, CS_GRP_IRET) ||
           cs_insn_group(h, in, CS_GRP_PRIVILEGE) || in->id == X86_INS_SYSCALL ||
           in->id == X86_INS_SYSENTER || in->id == X86_INS_IN || in->id == X86_INS_OUT ||
           in->id == X86_INS_INT3 || in->id == X86_INS_HLT;
}

/* The kernel checks a probed instruction only when it installs the probe in a process that
 * maps the file; for the command that is at its exec, where a refusal is silent (the block
 * would count 0). So a uprobe it might refuse is installed once in Prospect's own process
 * first, through a per-task event while a private executable mapping of the file exists (as
 * region_trace does). Only those: removing each costs the kernel a grace period (~75 ms
 * here, one after the other). *bad = the first refused probe's index. */
static int check_installable(const struct region_list *rl, const uint64_t *tp, size_t *bad,
                             int *fds)
{
    void *m = MAP_FAILED;
    struct stat st;
    size_t n = 0;
    int fd = -1, e = 0;

    csh h;
    cs_insn *in = NULL;

    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
        return -ENOMEM;
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    if (!(in = cs_malloc(h))) {
        cs_close(&h);
        return -ENOMEM;
    }
    for (size_t i = 0; i < rl->probes.n && !e; i++) {
        const struct probe_point *pp = &rl->probes.v[i];
        struct perf_event_attr a;
        if (pp->jump || !maybe_refused(h, in, pp->path, pp->offset))
            continue;
        if (fd < 0) {
            if ((fd = open(pp->path, O_RDONLY | O_CLOEXEC)) < 0)
                break;
            if (!fstat(fd, &st) && st.st_size > 0)
                m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
            if (m == MAP_FAILED)
                break;
        }
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = tp[i];
        a.disabled = 1;
        if ((fds[n] = perf_event_open_fd(&a, 0, -1, -1, 0)) < 0) {
            e = fds[n];
            *bad = i;
        } else {
            n++;
        }
    }
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
    cs_free(in, 1);
    cs_close(&h);
    if (m != MAP_FAILED)
        munmap(m, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    return e;
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
                       const pid_t *tids, size_t ntids, char *msg, size_t msglen)
{
    struct lines_counter *c = calloc(1, sizeof(*c));
    uint64_t *tp = NULL;
    int e;

    *out = NULL;
    msg[0] = '\0';
    if (!c || !(c->fds = malloc((rl->probes.n * (ntids ? ntids : 1) + 1) * sizeof(int)))) {
        free(c);
        return -ENOMEM;
    }
    c->nthreads = tids ? ntids : 1;
    if ((e = room_for(rl->probes.n * c->nthreads, msg, msglen)))
        goto fail;
    uprobe_cleanup_stale();
    if (!(c->set = uprobe_set_new())) {
        e = -errno;
        snprintf(msg, msglen, "cannot create uprobes: %s", uprobe_advice(errno));
        goto fail;
    }
    if (!(tp = calloc(rl->probes.n + 1, sizeof(*tp)))) {
        e = -ENOMEM;
        goto fail;
    }
    /* Every probe is in this file (one uprobe_set_add per probe): probes share nothing. */
    for (size_t i = 0; i < rl->probes.n; i++) {
        const struct probe_point *pp = &rl->probes.v[i];
        if ((e = uprobe_set_add(c->set, pp->path, pp->offset, false, &tp[i]))) {
            snprintf(msg, msglen, "cannot create a uprobe at %s:0x%llx: %s", pp->path,
                     (unsigned long long)pp->offset, strerror(-e));
            goto fail;
        }
    }
    {
        size_t bad = 0;
        if ((e = check_installable(rl, tp, &bad, c->fds))) {
            const struct probe_point *pp = &rl->probes.v[bad];
            snprintf(msg, msglen, "the kernel refuses a uprobe on the instruction at 0x%llx "
                     "(%s): %s", (unsigned long long)pp->vaddr,
                     rl->regions.v[pp->region].label, e == -524 ? "it cannot be "
                     "single-stepped or emulated (a lock or segment prefix, EVEX...); leave its "
                     "function out" : strerror(-e));
            goto fail;
        }
    }
    for (size_t i = 0; i < rl->probes.n; i++) {
        const struct probe_point *pp = &rl->probes.v[i];
        struct perf_event_attr a;
        int fd;

        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = tp[i];
        a.inherit = 1;
        /* A launched command counts from its exec; an attached process from now, in every
         * thread it has (and, inherited, every thread and child they create). */
        a.disabled = !tids;
        a.enable_on_exec = !tids;
        for (size_t t = 0; t < c->nthreads; t++) {
            pid_t who = tids ? tids[t] : pid;
            if ((fd = perf_event_open_fd(&a, (int)who, -1, -1, 0)) < 0 &&
                !(fd == -ESRCH && tids && who != pid)) {   /* a thread that just ended */
                e = fd;
                snprintf(msg, msglen, "cannot open a counter on the uprobe at 0x%llx: %s",
                         (unsigned long long)pp->vaddr, strerror(-e));
                goto fail;
            }
            c->fds[c->n++] = fd;
        }
    }
    pr_debug("%zu counting probes", c->n);
    free(tp);
    *out = c;
    return 0;
fail:
    free(tp);
    lines_counter_free(c);
    return e;
}

int lines_counter_read(struct lines_counter *c, struct lines_plan *p)
{
    for (size_t i = 0; i * c->nthreads < c->n && i < p->probed.n; i++) {
        uint64_t sum = 0;
        for (size_t t = 0; t < c->nthreads; t++) {
            int fd = c->fds[i * c->nthreads + t];
            uint64_t v;
            if (fd < 0)
                continue;
            if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
                return errno ? -errno : -EIO;
            sum += v;
        }
        p->blocks.v[p->probed.v[i]].count = sum;
    }
    return lines_fill_derived(p);
}

void lines_counter_free(struct lines_counter *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        if (c->fds[i] >= 0)
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
