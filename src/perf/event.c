/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "event"
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>   /* before libpfm4, whose copy is guarded by it */
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "perf/event.h"
#include "perf/event_pfm.h"
#include "perf/event_suggest.h"
#include "perf/event_terms.h"
#include "util/file.h"
#include "util/log.h"
#include "util/proc_owner.h"
#include "util/strutil.h"
#include "util/tracefs.h"

struct named_config {
    const char *name;
    uint32_t type;
    uint64_t config;
    const char *kind;
    const char *desc;       /* for `prospect list` */
};

static const struct named_config generic_events[] = {
    { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "hardware",
      "CPU cycles (hardware counter)" },
    { "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, NULL,
      "CPU cycles (alias of cycles)" },
    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "hardware",
      "instructions retired" },
    { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "hardware",
      "cache accesses (usually the last-level cache)" },
    { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "hardware",
      "cache misses (usually the last-level cache)" },
    { "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "hardware",
      "branch instructions retired" },
    { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL,
      "branch instructions retired (alias)" },
    { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "hardware",
      "mispredicted branches" },
    { "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "hardware", "bus cycles" },
    { "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "hardware",
      "cycles the front end issued nothing" },
    { "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "hardware",
      "cycles the back end retired nothing" },
    { "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "hardware",
      "reference cycles (not scaled by frequency changes)" },
    { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "software",
      "CPU time, from a high-resolution timer (per CPU)" },
    { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "software",
      "CPU time of the task, from a high-resolution timer" },
    { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "software",
      "page faults (minor and major)" },
    { "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, NULL,
      "page faults (alias of page-faults)" },
    { "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "software",
      "page faults served without I/O" },
    { "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "software",
      "page faults that needed I/O" },
    { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "software",
      "context switches" },
    { "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, NULL, "context switches (alias)" },
    { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "software",
      "moves of the task to another CPU" },
    { "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, NULL,
      "moves of the task to another CPU (alias)" },
    { "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "software",
      "unaligned accesses fixed up by the kernel" },
    { "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "software",
      "instructions the kernel emulated" },
    { "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "software",
      "counts nothing (carries side-band records)" },
};

/* perf's cache event naming: <cache>-<op>-<result>, e.g. L1-dcache-load-misses. */
static const char *const cache_names[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB",
                                           "branch", "node" };
static const char *const cache_descs[] = { "L1 data cache", "L1 instruction cache",
                                           "last-level cache", "data TLB", "instruction TLB",
                                           "branch predictor", "local NUMA node memory" };
static const char *const cache_ops[] = { "load", "store", "prefetch" };
static const char *const cache_results[] = { "loads", "load-misses", "stores", "store-misses",
                                             "prefetches", "prefetch-misses" };

int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
                       unsigned long flags)
{
    long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

static void attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = type;
    a->config = config;
}

static int parse_cache(const char *name, struct perf_event_attr *a)
{
    for (size_t c = 0; c < sizeof(cache_names) / sizeof(*cache_names); c++) {
        size_t cl = strlen(cache_names[c]);
        if (strncmp(name, cache_names[c], cl) || name[cl] != '-')
            continue;
        for (size_t r = 0; r < sizeof(cache_results) / sizeof(*cache_results); r++) {
            if (strcmp(name + cl + 1, cache_results[r]))
                continue;
            uint64_t op = r / 2, miss = r % 2;
            attr_init(a, PERF_TYPE_HW_CACHE, c | (op << 8) | (miss << 16));
            return 0;
        }
    }
    return -ENOENT;
}

/* dir's events directory, or NULL with errno EACCES. */
static const char *events_dir(const char *dir)
{
    static char path[300];

    if (!dir)
        return NULL;
    snprintf(path, sizeof(path), "%s/events", dir);
    if (access(path, R_OK | X_OK) != 0) {
        errno = EACCES;
        return NULL;
    }
    return path;
}

const char *event_tracefs_dir(void)
{
    return events_dir(tracefs_dir());
}

const char *event_tracefs_dir_mounted(void)
{
    return events_dir(tracefs_mounted_dir());
}

static int parse_tracepoint(const char *name, struct perf_event_attr *a)
{
    const char *dir, *colon = strchr(name, ':');
    char path[512], *buf;
    uint64_t id;
    int err;

    if (!colon || strchr(colon + 1, ':') || strchr(name, '/') || colon == name)
        return -ENOENT;
    if (!(dir = event_tracefs_dir()))   /* mounts tracefs where it may */
        return -errno;   /* ENOENT: no tracefs; EACCES, EPERM, EBUSY: tracefs says why */
    snprintf(path, sizeof(path), "%s/%.*s/%s/id", dir, (int)(colon - name), name, colon + 1);
    err = file_read_all(path, &buf, NULL, 64);
    if (err)
        return err == -EACCES ? -EACCES : -ENOENT;
    buf[strcspn(buf, "\n")] = '\0';
    err = parse_u64(buf, &id);
    free(buf);
    if (err)
        return -ENOENT;
    attr_init(a, PERF_TYPE_TRACEPOINT, id);
    return 0;
}

/* Splits "name:u" / "name:k" / "name:PERIOD" suffixes off; returns 0, -EINVAL (a bad
 * period) or -EEXIST (two modifier groups, "name:u:k": which one was meant?). */
static int split_suffixes(char *s, struct event_spec *out, int *excl_user, int *excl_kernel)
{
    bool mods = false;

    for (;;) {
        char *colon = strrchr(s, ':');
        if (!colon)
            return 0;
        const char *suf = colon + 1;
        if (*suf && strspn(suf, "0123456789") == strlen(suf) && !out->period) {
            uint64_t p;
            if (parse_u64(suf, &p) || p == 0 || p > INT64_MAX)   /* the kernel's limit */
                return -EINVAL;
            out->period = p;
        } else if (*suf && strspn(suf, "ukh") == strlen(suf) && strlen(suf) <= 3) {
            if (mods)
                return -EEXIST;
            mods = true;
            *excl_user = !strchr(suf, 'u');
            *excl_kernel = !strchr(suf, 'k');
        } else {
            return 0;
        }
        *colon = '\0';
    }
}

/* oprofile's NAME:PERIOD[:UNITMASK[:KERNEL[:USER]]] (the second field a decimal number; NAME may
 * carry a "pmu::" prefix). Cuts buf to NAME; 1 when it was one, 0 when not, -EINVAL. */
static int split_oprofile(char *buf, struct event_spec *out, char *umask, size_t umlen,
                          int *excl_user, int *excl_kernel)
{
    char *f[6], *name = strstr(buf, "::") ? strstr(buf, "::") + 2 : buf;
    size_t n = 0;
    uint64_t p;

    umask[0] = '\0';
    for (char *s = name; n < 6;) {
        f[n++] = s;
        s = strchr(s, ':');
        if (!s)
            break;
        s++;
    }
    if (n < 2 || n > 5)
        return 0;
    size_t l1 = strcspn(f[1], ":");
    if (!l1 || strspn(f[1], "0123456789") != l1)
        return 0;
    for (size_t i = 1; i < n; i++)
        f[i][-1] = '\0';
    if (parse_u64(f[1], &p) || p == 0 || p > INT64_MAX)   /* the kernel's limit */
        return -EINVAL;
    out->period = p;
    if (n > 2)
        str_copy(umask, umlen, f[2]);
    for (size_t i = 3; i < n; i++) {
        if (strcmp(f[i], "0") && strcmp(f[i], "1"))
            return -EINVAL;
        *(i == 3 ? excl_kernel : excl_user) = f[i][0] == '0';
    }
    return 1;
}

/* perf's hardware and software names close to a misspelt one (buf empty when none); the kind
 * of the closest, for the `prospect list` that shows it. */
static const char *suggest_perf_name(const char *name, char *buf, size_t len)
{
    struct suggest s;
    const char *kind = NULL;

    suggest_init(&s, name);
    for (size_t i = 0; i < sizeof(generic_events) / sizeof(*generic_events); i++)
        suggest_offer(&s, generic_events[i].name);
    suggest_format(&s, "", buf, len);
    for (size_t i = 0; s.n && i < sizeof(generic_events) / sizeof(*generic_events); i++)
        if (!strcmp(generic_events[i].name, s.names[0]))
            kind = generic_events[i].type == PERF_TYPE_SOFTWARE ? "software" : "hardware";
    return kind;
}

/* The error for a name nothing knows: suggestions from the list it belongs to. */
static void unknown_event_error(const char *str, const char *buf, char *err, size_t errlen)
{
    char e2[256], tpname[256];
    const char *kind;
    int tp = strchr(buf, ':') ? event_suggest_tracepoint(buf, tpname, sizeof(tpname)) : -1;

    if (tp == 1 && tpname[0]) {
        snprintf(err, errlen, "unknown tracepoint '%s'; did you mean %s? (prospect list "
                 "tracepoint '%.*s:*')", str, tpname, (int)strcspn(buf, ":"), buf);
        return;
    }
    if (tp == 1) {
        snprintf(err, errlen, "unknown tracepoint '%s' (its subsystem's: prospect list "
                 "tracepoint '%.*s:*')", str, (int)strcspn(buf, ":"), buf);
        return;
    }
    if ((kind = suggest_perf_name(buf, e2, sizeof(e2)))) {
        snprintf(err, errlen, "unknown event '%s'; did you mean %s? (prospect list %s)", str, e2,
                 kind);
        return;
    }
    e2[0] = '\0';
    if (event_pfm_model())
        event_pfm_suggest(buf, e2, sizeof(e2));
    if (event_pfm_model() && e2[0]) {
        snprintf(err, errlen, "unknown event '%s': neither a perf name nor an event of this "
                 "CPU's PMU model (%s); did you mean %s? (prospect list pmu)", str,
                 event_pfm_model(), e2);
    } else if (tp == 0) {
        snprintf(err, errlen, "unknown event '%s'; did you mean %s? (prospect list tracepoint)",
                 str, tpname);
    } else if (event_pfm_model()) {
        snprintf(err, errlen, "unknown event '%s': neither a perf name nor an event of this "
                 "CPU's PMU model (%s); see 'prospect list'", str, event_pfm_model());
    } else {
        snprintf(err, errlen, "unknown event '%s' (see 'prospect list' for the events here)",
                 str);
    }
}

static int no_pmu_error(const char *str, char *err, size_t errlen)
{
    const char *model = event_pfm_model();
    snprintf(err, errlen, "event '%s' needs the CPU's hardware counters (PMU model %s), and they "
             "are not available to this machine (a VM without a virtual PMU): use -e cpu-clock, "
             "or enable the PMU for the guest", str, model ? model : "unknown to libpfm4");
    return -ENODEV;
}

int event_parse(const char *str, struct event_spec *out, char *err, size_t errlen)
{
    char buf[256], umask[64] = "", pfmname[320], canon[200], equiv[128], e2[256];
    int excl_user = 0, excl_kernel = 0, ret, tp_ret, oprofile;
    struct perf_event_attr *a = &out->attr;
    bool equiv_pfm;

    memset(out, 0, sizeof(*out));
    if (err && errlen)
        err[0] = '\0';
    if (!str || !*str || strlen(str) >= sizeof(buf)) {
        snprintf(err, errlen, "empty or overlong event name");
        return -EINVAL;
    }
    str_copy(buf, sizeof(buf), str);
    /* A tracepoint ("sched:sched_switch") must be tried whole before suffix splitting. */
    tp_ret = parse_tracepoint(buf, a);
    if (tp_ret == 0)
        goto done;
    if (strchr(buf, '/')) {
        ret = event_parse_terms(buf, a, &out->period, e2, sizeof(e2));
        if (ret == -ENOENT && str_starts(buf, "cpu/") && !event_pmu_exposed())
            return no_pmu_error(str, err, errlen);
        if (ret) {
            snprintf(err, errlen, "event '%s': %s", str, e2);
            return ret;
        }
        str_copy(out->name, sizeof(out->name), buf);
        return 0;
    }
    oprofile = split_oprofile(buf, out, umask, sizeof(umask), &excl_user, &excl_kernel);
    if (oprofile < 0) {
        snprintf(err, errlen, "event '%s': expected NAME:PERIOD[:UNITMASK[:KERNEL[:USER]]] "
                 "(a period of 1 to 2^63-1, KERNEL and USER 0 or 1)", str);
        return -EINVAL;
    }
    if (!oprofile && (ret = split_suffixes(buf, out, &excl_user, &excl_kernel))) {
        if (ret == -EEXIST)
            snprintf(err, errlen, "event '%s': two modifier groups; write them as one (e.g. "
                     ":uk for user and kernel)", str);
        else
            snprintf(err, errlen, "event '%s': invalid period", str);
        return -EINVAL;
    }
    for (size_t i = 0; i < sizeof(generic_events) / sizeof(*generic_events); i++) {
        if (!strcmp(buf, generic_events[i].name)) {
            attr_init(a, generic_events[i].type, generic_events[i].config);
            goto done_plain;
        }
    }
    if (parse_cache(buf, a) == 0 || parse_tracepoint(buf, a) == 0)
        goto done_plain;
    if (buf[0] == 'r' && buf[1] && strspn(buf + 1, "0123456789abcdefABCDEF") == strlen(buf + 1)) {
        if (strlen(buf + 1 + strspn(buf + 1, "0")) > 16) {   /* strtoull would clamp it */
            snprintf(err, errlen, "event '%s': a raw config is at most 64 bits (16 hex digits)",
                     str);
            return -EINVAL;
        }
        attr_init(a, PERF_TYPE_RAW, strtoull(buf + 1, NULL, 16));
        goto done_plain;
    }
    snprintf(pfmname, sizeof(pfmname), "%s%s%s", buf, umask[0] ? ":" : "", umask);
    ret = event_pfm_encode(pfmname, a, canon, sizeof(canon), err, errlen);
    if (ret == 0)
        goto done;
    if (ret != -ENOENT)
        return ret;
    /* oprofile's generic names, where this model calls the event otherwise. */
    if (event_oprofile_equivalent(buf, equiv, sizeof(equiv), &equiv_pfm) == 0) {
        if (umask[0] && strcmp(umask, "0") && strcmp(umask, "0x0") && strcmp(umask, "0x00")) {
            snprintf(err, errlen, "event '%s': the unit mask %s is oprofile's %s on another CPU; "
                     "here %s is %s (give its own unit masks: prospect list pmu)", str, umask,
                     buf, buf, equiv);
            return -EINVAL;
        }
        if (equiv_pfm) {
            event_pfm_encode(equiv, a, canon, sizeof(canon), err, errlen);
            snprintf(out->note, sizeof(out->note), "%s is oprofile's name; on this CPU %s",
                     buf, equiv);
        } else {
            struct event_spec g;
            event_parse(equiv, &g, e2, sizeof(e2));   /* a perf generic name: always parses */
            *a = g.attr;
            snprintf(out->note, sizeof(out->note), "%s is oprofile's name; here perf's generic "
                     "'%s' (the kernel's mapping for this CPU)", buf, equiv);
        }
        goto done;
    }
    /* "amd64_fam19h_zen3::NAME" on another CPU: the model's name is valid, just not this
     * CPU's; say which event of this CPU's own model the rest names, if any. */
    if (strstr(buf, "::") && event_pfm_model()) {
        char pmu[64];
        const char *rest = strstr(buf, "::") + 2;
        snprintf(pmu, sizeof(pmu), "%.*s", (int)(strstr(buf, "::") - buf), buf);
        if (event_pfm_other_model(pmu)) {
            struct event_spec here;
            char alt[200];
            snprintf(alt, sizeof(alt), "%s%s%s%s", rest, umask[0] ? ":" : "", umask,
                     excl_user != excl_kernel ? (excl_user ? ":k" : ":u") : "");
            if (event_parse(alt, &here, e2, sizeof(e2)) == 0)
                snprintf(err, errlen, "event '%s': %s is libpfm4's model of another CPU; this "
                         "CPU's is %s, where the event is -e %s", str, pmu, event_pfm_model(),
                         alt);
            else
                snprintf(err, errlen, "event '%s': %s is libpfm4's model of another CPU; this "
                         "CPU's is %s (its events: prospect list pmu)", str, pmu,
                         event_pfm_model());
            return -ENOENT;
        }
    }
    /* SUBSYSTEM:EVENT that is nothing else: a tracepoint we could not look up. */
    if (tp_ret != -ENOENT) {
        snprintf(err, errlen, "event '%s': %s", str, tracefs_advice(-tp_ret));
        return tp_ret;
    }
    unknown_event_error(str, buf, err, errlen);
    return -ENOENT;
done_plain:
    if (umask[0]) {
        snprintf(err, errlen, "event '%s': a unit mask applies to the CPU's PMU events only, not "
                 "to '%s'", str, buf);
        return -EINVAL;
    }
done:
    a->exclude_user |= excl_user;
    a->exclude_kernel |= excl_kernel;
    str_copy(out->name, sizeof(out->name), buf);
    if (umask[0]) {
        size_t n = strlen(out->name);
        snprintf(out->name + n, sizeof(out->name) - n, ":%s", umask);
    }
    if (excl_user != excl_kernel) {
        size_t n = strlen(out->name);
        snprintf(out->name + n, sizeof(out->name) - n, ":%s", excl_user ? "k" : "u");
    }
    return 0;
}

bool event_available(const struct perf_event_attr *attr)
{
    struct perf_event_attr a = *attr;
    a.disabled = 1;
    int fd = perf_event_open_fd(&a, 0, -1, -1, 0);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

void event_default_sampling(struct event_spec *out, char *why, size_t whylen)
{
    struct event_spec cyc;
    char err[64];

    if (event_parse("cycles", &cyc, err, sizeof(err)) == 0 && event_available(&cyc.attr)) {
        *out = cyc;
        snprintf(why, whylen, "hardware cycle counter (the CPU_CLK_UNHALTED mode)");
        return;
    }
    event_parse("cpu-clock", out, err, sizeof(err));
    snprintf(why, whylen, "cpu-clock timer: no hardware cycle counter on this machine");
}

static int read_int_file(const char *path, long *v)
{
    char *buf;
    int err = file_read_all(path, &buf, NULL, 64);
    if (err)
        return err;
    *v = strtol(buf, NULL, 10);
    free(buf);
    return 0;
}

void event_open_advice(int err, const struct perf_event_attr *attr, const char *name,
                       char *buf, size_t len)
{
    event_open_advice_for(err, attr, name, false, buf, len);
}

void event_open_advice_pid(int err, const struct perf_event_attr *attr, const char *name,
                           pid_t pid, char *buf, size_t len)
{
    uid_t uid;

    if ((err == EACCES || err == EPERM) && pid > 0 && proc_other_user(pid, &uid) == 1) {
        snprintf(buf, len, "no permission to open event '%s' on process %d: it is another "
                 "user's process (uid %u); only its owner or root can measure it (lowering "
                 "perf_event_paranoid will not help)", name, (int)pid, (unsigned)uid);
        return;
    }
    event_open_advice_for(err, attr, name, pid == -1, buf, len);
}

void event_open_advice_for(int err, const struct perf_event_attr *attr, const char *name,
                           bool system_wide, char *buf, size_t len)
{
    long paranoid = 2;
    /* perf_event_paranoid: 2 own user space only, 1 own kernel too, 0 every CPU, -1 all. */
    int need = system_wide ? 0 : attr->exclude_kernel ? 2 : 1;
    bool hw = attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
              attr->type == PERF_TYPE_RAW;

    read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
    switch (err) {
    case EACCES:
    case EPERM:
        if (paranoid <= need)
            snprintf(buf, len, "no permission to open event '%s' (perf_event_paranoid is %ld, "
                     "which should allow it): run as root or give the binary CAP_PERFMON; a "
                     "security module may be refusing it", name, paranoid);
        else
            snprintf(buf, len, "no permission to open event '%s'%s (perf_event_paranoid is %ld): "
                     "run as root, give the binary CAP_PERFMON, or lower it with 'sysctl "
                     "kernel.perf_event_paranoid=%d'%s", name,
                     system_wide ? " on every CPU" : "", paranoid, need,
                     system_wide || attr->exclude_kernel ? "" :
                     " (or exclude the kernel with ':u')");
        break;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        if (hw && !event_pmu_exposed())
            snprintf(buf, len, "event '%s' is valid for this CPU's PMU model (%s), but hardware "
                     "counters are not available to this machine (a VM without a virtual PMU): "
                     "use -e cpu-clock or -e task-clock, or enable the PMU for the guest "
                     "(KVM/QEMU: -cpu host,pmu=on)", name,
                     event_pfm_model() ? event_pfm_model() : "unknown to libpfm4");
        else if (hw)
            snprintf(buf, len, "event '%s' is not supported by this CPU's PMU (%s) or the kernel's "
                     "driver for it (%s)", name,
                     event_pfm_model() ? event_pfm_model() : "unknown to libpfm4", strerror(err));
        else
            snprintf(buf, len, "event '%s' is not supported by this kernel (%s)", name,
                     strerror(err));
        break;
    case EMFILE:
        snprintf(buf, len, "too many open files while opening '%s': raise 'ulimit -n'", name);
        break;
    case EINVAL:
        if (attr->freq)
            snprintf(buf, len, "event '%s': invalid settings (a sampling frequency of %llu Hz may "
                     "exceed kernel.perf_event_max_sample_rate; lower -F or use -c)", name,
                     (unsigned long long)attr->sample_freq);
        else
            snprintf(buf, len, "event '%s': invalid settings for this kernel (%s)", name,
                     strerror(err));
        break;
    case EBUSY:
        snprintf(buf, len, "event '%s': the counter is in use by another tool", name);
        break;
    case ESRCH:
        snprintf(buf, len, "event '%s': the process does not exist", name);
        break;
    default:
        snprintf(buf, len, "cannot open event '%s': %s", name, strerror(err));
    }
}

void event_describe(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s", "");
    for (size_t i = 0; i < sizeof(generic_events) / sizeof(*generic_events); i++)
        if (!strcmp(generic_events[i].name, name)) {
            snprintf(buf, len, "%s", generic_events[i].desc);
            return;
        }
    for (size_t c = 0; c < sizeof(cache_names) / sizeof(*cache_names); c++) {
        size_t cl = strlen(cache_names[c]);
        if (!strncmp(name, cache_names[c], cl) && name[cl] == '-') {
            /* "load-misses" -> "load misses" */
            char what[32];
            snprintf(what, sizeof(what), "%s", name + cl + 1);
            for (char *p = what; *p; p++)
                if (*p == '-')
                    *p = ' ';
            snprintf(buf, len, "%s: %s", cache_descs[c], what);
            return;
        }
    }
}

void event_foreach_generic(const char *kind, int (*fn)(void *arg, const char *name,
                           const struct perf_event_attr *attr), void *arg)
{
    struct perf_event_attr a;
    char name[64];

    if (!strcmp(kind, "cache")) {
        for (size_t c = 0; c < sizeof(cache_names) / sizeof(*cache_names); c++)
            for (size_t r = 0; r < sizeof(cache_results) / sizeof(*cache_results); r++) {
                snprintf(name, sizeof(name), "%s-%s", cache_names[c], cache_results[r]);
                if (parse_cache(name, &a) == 0 && fn(arg, name, &a))
                    return;
            }
        (void)cache_ops;
        return;
    }
    for (size_t i = 0; i < sizeof(generic_events) / sizeof(*generic_events); i++) {
        const struct named_config *e = &generic_events[i];
        if (!e->kind || strcmp(e->kind, kind))
            continue;
        attr_init(&a, e->type, e->config);
        if (fn(arg, e->name, &a))
            return;
    }
}
