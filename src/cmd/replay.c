/* SPDX-License-Identifier: MIT */
/* prospect replay: a malloc trace (Prospect's binary trace or an ltrace log) replayed against
 * allocators, each call timed; percentiles per allocator and function, the seed 004 curves as
 * SVG, the `check` verdict for the CPU. Options -> src/replay/ -> output. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calltrace/ltrace_log.h"
#include "calltrace/tracefile.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/replay_out.h"
#include "prospect/histogram.h"
#include "replay/allocator.h"
#include "replay/replay_prog.h"
#include "replay/replay_run.h"
#include "system/syscheck.h"
#include "util/cpu_pin.h"
#include "util/strutil.h"

static const struct optdecl replay_opts[] = {
    { 'a', "allocator", "LIST",
        "comma-separated: glibc, jemalloc, tcmalloc, mimalloc, or NAME=PATH of\n"
        "a malloc library to preload (default: all four; one not installed is\n"
        "skipped with a note)", OPTD_COMPLETE_NONE, NULL, OPTD_LONG_ONLY },
    { 'C', "cpu", "N",
        "the CPU to pin to (default: as `prospect check`: the first isolated\n"
        "CPU, else the highest online one, within this process's affinity);\n"
        "its check verdict is printed", OPTD_COMPLETE_NONE, NULL, OPTD_LONG_ONLY },
    { 'r', "repeat", "N", "timed passes over the trace (default 3)", 0, NULL, 0 },
    { 'W', "warmup", "N", "untimed passes first (default 1)", OPTD_COMPLETE_NONE, NULL,
        OPTD_LONG_ONLY },
    OPTD_OUTPUT("the percentile curves as SVG (seed 004's plot): one curve per\n"
                "allocator for --function"),
    { 'F', "function", "NAME",
        "the calls the curves show: malloc (default), calloc, realloc, free\n"
        "or all", OPTD_COMPLETE_CHOICE, "malloc calloc realloc free all", OPTD_LONG_ONLY },
    { 'L', "log-y", NULL, "logarithmic cycles axis in the SVG (shows the slow tail)",
        OPTD_COMPLETE_NONE, NULL, OPTD_LONG_ONLY },
    { 'f', "format", "FORMAT", "text (default), csv or json", OPTD_COMPLETE_CHOICE,
        "text csv json", OPTD_LONG_ONLY },
    { 'B', "barrier", "B",
        "lfence (default) or cpuid, seed 004's (Paoloni's) serializing reads:\n"
        "a VM traps cpuid, ~20 us per call here (docs/cycles.md)", OPTD_COMPLETE_CHOICE,
        "lfence cpuid", OPTD_LONG_ONLY },
    { 'D', "dump", NULL,
        "also print every replayed call as the child ran it (order, thread,\n"
        "size, the call whose pointer a free released): no timings", OPTD_COMPLETE_NONE, NULL,
        OPTD_LONG_ONLY },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_replay_decl = {
    .name = "replay",
    .synopsis = "[options] TRACE...",
    .intro =
    "\n"
    "Replays the malloc, calloc, realloc and free calls of a trace against allocators, one\n"
    "child process per allocator pinned to one CPU: one replay thread per recorded thread, the\n"
    "calls in recorded order (threads take turns), frees matched to their allocation by\n"
    "pointer. Each call is timed with serialized TSC reads, the reads' own floor subtracted.\n"
    "TRACE is a `prospect trace -w` file or an `ltrace -o` log (ltrace -f -e malloc+free ...;\n"
    "-tt/-ttt/-r timestamps, -T and -i are understood).\n"
    "\n",
    .outro =
    "\n"
    "Figures are TSC ticks per call over the timed passes, calls that migrated between CPUs\n"
    "left out; total is in microseconds; peak RSS is the child's (VmHWM).\n"
    "Exit status: 0, 1 when a trace cannot be read, a replay failed or no allocator asked\n"
    "for is installed, 2 on a usage error.\n",
    .opts = replay_opts,
    .flags = 0,
};

#define CMD "replay"

static int parse_allocators(const char *arg, struct replay_opts *o)
{
    char buf[1024];
    if (str_copy(buf, sizeof(buf), arg) >= sizeof(buf))
        return cmd_usage_error(CMD, "--allocator list too long");
    o->nallocs = 0;
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (o->nallocs == sizeof(o->allocs) / sizeof(o->allocs[0]))
            return cmd_usage_error(CMD, "at most 16 allocators");
        struct replay_alloc *a = &o->allocs[o->nallocs];
        if (replay_alloc_parse(s, a))
            return cmd_usage_error(CMD, "unknown allocator '%s' (glibc, jemalloc, tcmalloc, "
                                        "mimalloc, or NAME=/path/lib.so)", s);
        for (size_t i = 0; i < o->nallocs; i++)
            if (!strcmp(o->allocs[i].name, a->name))
                return cmd_usage_error(CMD, "allocator '%s' given twice", a->name);
        o->nallocs++;
    }
    if (!o->nallocs)
        return cmd_usage_error(CMD, "--allocator wants at least one name");
    return 0;
}

static int parse_count(const char *opt, const char *arg, unsigned min, unsigned *out)
{
    uint64_t v;
    if (parse_u64(arg, &v) || v < min || v > 100000)
        return cmd_usage_error(CMD, "%s wants a number from %u to 100000, not '%s'", opt, min,
                               arg);
    *out = (unsigned)v;
    return 0;
}

/* Reads TRACE as a binary trace (by its magic) or an ltrace log. 0, or 1 after an error. */
static int load_trace(const char *path, struct call_trace *t)
{
    char head[8] = {0}, pb[200];
    const char *shown = str_printable(path, pb, sizeof(pb));
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t n = fd >= 0 ? read(fd, head, sizeof(head)) : -1;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (fd < 0 || (n < 0 && e != EISDIR && e != EAGAIN)) {
        cmd_error(CMD, "%s: %s", shown, strerror(e));
        return 1;
    }
    if (n > 0 && tracefile_is_trace(head, (size_t)n)) {
        struct tracefile_error te = {0};
        int err = tracefile_read(path, t, &te);
        if (err == -EINVAL)
            cmd_error(CMD, "%s: offset %llu: %s", shown, (unsigned long long)te.offset, te.msg);
        else if (err)
            cmd_error(CMD, "%s: %s", shown, strerror(-err));
        return err ? 1 : 0;
    }
    struct ltrace_error le = {0};
    int err = ltrace_log_read(path, t, &le);
    if (err == -EINVAL && le.line)
        cmd_error(CMD, "%s:%lu: %s (not a Prospect trace; read as an ltrace log)", shown,
                  le.line, le.msg);
    else if (err == -EINVAL)
        cmd_error(CMD, "%s: %s", shown, le.msg[0] ? le.msg : "not a trace");
    else if (err)
        cmd_error(CMD, "%s: %s", shown, strerror(-err));
    if (!err && le.ltrace_complaints)
        fprintf(stderr, "prospect %s: note: %s:%lu: ltrace wrote 'unexpected breakpoint' %lu "
                        "time%s: it lost track of a thread, calls may be missing\n", CMD, shown,
                le.first_complaint, le.ltrace_complaints, le.ltrace_complaints == 1 ? "" : "s");
    return err ? 1 : 0;
}

/* The trace's ticks into per-function histograms named after the allocator. */
static int fill_hists(struct alloc_out *ao, const struct replay_prog *p, unsigned repeat)
{
    for (unsigned k = 0; k < RP_NKINDS; k++)
        if (!(ao->h[k] = prospect_hist_new(ao->a.name)))
            return -ENOMEM;
    if (!(ao->all = prospect_hist_new(ao->a.name)))
        return -ENOMEM;
    for (unsigned r = 0; r < repeat; r++)
        for (size_t i = 0; i < p->nops; i++) {
            uint64_t v = ao->res.ticks[(size_t)r * p->nops + i];
            unsigned fl = v & RP_CYCLES_MIGRATED ? PROSPECT_SAMPLE_MIGRATED : 0;
            v &= ~RP_CYCLES_MIGRATED;
            for (uint64_t a = ao->step, b = v; b;) {   /* step = gcd(step, v) */
                uint64_t t = a % b;
                a = b;
                b = t;
                ao->step = a;
            }
            if (prospect_hist_add(ao->h[p->ops[i].kind], v, fl) ||
                prospect_hist_add(ao->all, v, fl))
                return -ENOMEM;
        }
    free(ao->res.ticks);        /* the histograms hold them now */
    ao->res.ticks = NULL;
    return 0;
}

static void free_hists(struct alloc_out *ao)
{
    for (unsigned k = 0; k < RP_NKINDS; k++)
        prospect_hist_free(ao->h[k]);
    prospect_hist_free(ao->all);
    replay_result_release(&ao->res);
}

/* Replays one trace against every allocator. 0 or 1. */
static int replay_one(const char *path, const struct replay_opts *o, const struct syscheck *sc,
                      const char *svg)
{
    struct call_trace t;
    struct replay_prog p;
    char msg[256], pb[200];
    const char *shown = str_printable(path, pb, sizeof(pb));
    int status = 0;

    if (load_trace(path, &t))
        return 1;
    int err = replay_prog_build(&t, &p, msg, sizeof(msg));
    if (err) {
        cmd_error(CMD, "%s: %s", shown, err == -EINVAL ? msg : strerror(-err));
        call_trace_release(&t);
        return 1;
    }
    if (o->plot >= 0 && !p.calls[o->plot] && svg)
        fprintf(stderr, "prospect %s: note: %s has no %s calls; its curves are empty\n", CMD,
                shown, replay_kind_name((unsigned)o->plot));
    struct alloc_out aos[16];
    memset(aos, 0, sizeof(aos));
    struct replay_run_opts ro = {.cpu = sc->cpu, .warmup = o->warmup, .repeat = o->repeat,
                                 .dump = o->dump, .cpuid = o->cpuid};
    for (size_t i = 0; i < o->nallocs; i++) {
        struct alloc_out *ao = &aos[i];
        ao->a = o->allocs[i];
        if (!replay_alloc_installed(&ao->a)) {
            const char *pkg = replay_alloc_package(&ao->a);
            fprintf(stderr, "prospect %s: note: %s skipped: %s is not installed%s%s%s\n", CMD,
                    ao->a.name, ao->a.lib, pkg[0] ? " (Debian package " : "", pkg,
                    pkg[0] ? ")" : "");
            continue;
        }
        err = replay_run(&p, &ao->a, &ro, &ao->res, msg, sizeof(msg));
        if (err) {
            cmd_error(CMD, "%s: %s: %s", shown, ao->a.name, msg[0] ? msg : strerror(-err));
            status = 1;
            continue;
        }
        /* A preload that did not take effect would silently measure glibc. */
        char want[PATH_MAX], got[PATH_MAX];
        if (ao->a.lib[0] && (!realpath(ao->a.lib, want) ||
                             !realpath(ao->res.hdr.malloc_from, got) || strcmp(want, got))) {
            cmd_error(CMD, "%s: malloc in the replay child came from %s, not %s: the preload "
                           "did not take effect", ao->a.name, ao->res.hdr.malloc_from,
                      ao->a.lib);
            replay_result_release(&ao->res);
            status = 1;
            continue;
        }
        if (fill_hists(ao, &p, o->repeat)) {
            cmd_error(CMD, "%s", strerror(ENOMEM));
            status = 1;
            continue;
        }
        ao->ran = true;
        if (o->dump && replay_print_dump(ao, &p, &t)) {
            cmd_error(CMD, "%s: the replay child's call log is inconsistent", ao->a.name);
            status = 1;
        }
    }
    size_t nran = 0;
    for (size_t i = 0; i < o->nallocs; i++)
        nran += aos[i].ran;
    if (!nran && !status) {       /* every allocator skipped: no figure was measured */
        cmd_error(CMD, "%s: no allocator was replayed (none of those asked for is installed)",
                  shown);
        status = 1;
    }
    if (o->format == FMT_TEXT) {
        replay_print_summary(path, &p, o, sc->cpu);
        replay_print_table(aos, o->nallocs, o);
    } else if (o->format == FMT_CSV) {
        replay_print_csv(path, aos, o->nallocs);
    } else {
        replay_print_json(path, &p, o, sc, aos, o->nallocs);
    }
    if (svg && replay_write_svg(svg, path, aos, o->nallocs, o, sc))
        status = 1;
    for (size_t i = 0; i < o->nallocs; i++)
        free_hists(&aos[i]);
    replay_prog_release(&p);
    call_trace_release(&t);
    return status;
}

/* -o for the i-th of n traces: FILE itself for one, else FILE with "-N" before ".svg". */
static const char *svg_name(const char *svg, int i, int n, char *buf, size_t len)
{
    if (!svg || n == 1)
        return svg;
    size_t l = strlen(svg);
    if (l > 4 && !strcmp(svg + l - 4, ".svg"))
        snprintf(buf, len, "%.*s-%d.svg", (int)(l - 4), svg, i + 1);
    else
        snprintf(buf, len, "%s-%d", svg, i + 1);
    return buf;
}

static bool cpu_allowed(int cpu)
{
    cpu_set_t set;
    return cpu >= 0 && cpu < CPU_SETSIZE && !sched_getaffinity(0, sizeof(set), &set) &&
           CPU_ISSET(cpu, &set);
}

static int highest_allowed_cpu(void)
{
    for (int c = CPU_SETSIZE - 1; c > 0; c--)
        if (cpu_allowed(c))
            return c;
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    struct replay_opts o = {.cpu = -1, .repeat = 3, .warmup = 1, .plot = RP_MALLOC};
    int ch;

    if (parse_allocators(replay_alloc_default, &o))
        return EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while ((ch = cmd_getopt(&cmd_replay_decl, argc, argv)) != -1) {
        switch (ch) {
        case 'a':
            if (parse_allocators(optarg, &o))
                return EXIT_USAGE;
            break;
        case 'C':
            if (cpu_parse(optarg, &o.cpu))
                return cmd_usage_error(CMD, "--cpu wants a CPU number, not '%s'", optarg);
            break;
        case 'r':
            if (parse_count("--repeat", optarg, 1, &o.repeat))
                return EXIT_USAGE;
            break;
        case 'W':
            if (parse_count("--warmup", optarg, 0, &o.warmup))
                return EXIT_USAGE;
            break;
        case 'o':
            o.svg = optarg;
            break;
        case 'F':
            if (!strcmp(optarg, "all")) {
                o.plot = -1;
            } else {
                o.plot = -2;
                for (unsigned k = 0; k < RP_NKINDS; k++)
                    if (!strcmp(optarg, replay_kind_name(k)))
                        o.plot = (int)k;
                if (o.plot == -2)
                    return cmd_usage_error(CMD, "--function wants malloc, calloc, realloc, "
                                                "free or all, not '%s'", optarg);
            }
            break;
        case 'L':
            o.log_y = true;
            break;
        case 'f':
            if (!strcmp(optarg, "text"))
                o.format = FMT_TEXT;
            else if (!strcmp(optarg, "csv"))
                o.format = FMT_CSV;
            else if (!strcmp(optarg, "json"))
                o.format = FMT_JSON;
            else
                return cmd_usage_error(CMD, "unknown format '%s' (text, csv or json)", optarg);
            break;
        case 'D':
            o.dump = true;
            break;
        case 'B':
            if (!strcmp(optarg, "cpuid"))
                o.cpuid = true;
            else if (!strcmp(optarg, "lfence"))
                o.cpuid = false;
            else
                return cmd_usage_error(CMD, "--barrier wants lfence or cpuid, not '%s'", optarg);
            break;
        case 'h':
            return cmd_help(CMD);
        default:
            return cmd_bad_option(CMD, argv, optind, optopt, ch);
        }
    }
    if (optind >= argc)
        return cmd_usage_error(CMD, "which trace? (a `prospect trace -w` file or an ltrace log)");
    if (o.dump && o.format != FMT_TEXT)
        return cmd_usage_error(CMD, "--dump prints text lines: use it with --format text");

    struct syscheck_opts so = {"/", o.cpu, geteuid() == 0};
    struct syscheck sc;
    int err = syscheck_run(&so, &sc);
    if (err == -ENODEV) {
        cmd_usage_error(CMD, "CPU %d is not online (online CPUs: %s)", o.cpu, sc.online);
        syscheck_release(&sc);
        return EXIT_USAGE;
    }
    if (!err && o.cpu < 0 && !cpu_allowed(sc.cpu)) {
        /* check's choice is outside our affinity (taskset, cpuset): the highest allowed CPU. */
        so.cpu = highest_allowed_cpu();
        syscheck_release(&sc);
        err = syscheck_run(&so, &sc);
    }
    if (err) {
        cmd_error(CMD, "cannot assess the CPUs: %s", strerror(-err));
        return 1;
    }
    if (!cpu_allowed(sc.cpu)) {
        cmd_usage_error(CMD, "CPU %d is not in the CPUs this process may use (restricted by "
                             "taskset or a cgroup cpuset)", sc.cpu);
        syscheck_release(&sc);
        return EXIT_USAGE;
    }
    if (o.format != FMT_JSON)
        replay_print_check(o.format == FMT_TEXT ? stdout : stderr, &sc);
    else if (o.format == FMT_JSON)
        printf("[");
    int status = 0, ntr = argc - optind;
    for (int i = 0; i < ntr; i++) {
        char nb[PATH_MAX];
        if (o.format == FMT_TEXT && i)
            putchar('\n');
        if (replay_one(argv[optind + i], &o, &sc, svg_name(o.svg, i, ntr, nb, sizeof(nb))))
            status = 1;
    }
    if (o.format == FMT_JSON)
        printf("\n]\n");
    syscheck_release(&sc);
    return status;
}
