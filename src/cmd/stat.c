/* SPDX-License-Identifier: MIT */
/* prospect stat: counters over a whole program (like perf stat) or over regions of it. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/stat_cost.h"
#include "cmd/target_msg.h"
#include "perf/event.h"
#include "report/stat_table.h"
#include "symbol/elf_program.h"
#include "util/launch.h"
#include "markers/read.h"
#include "intarget/markers_wire.h"
#include "probe/program_count.h"
#include "probe/region.h"
#include "probe/region_trace.h"
#include "probe/target.h"
#include "util/cpu_pin.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/strutil.h"
#include "util/vec.h"

enum { OPT_CSV = 256, OPT_SORT, OPT_REVERSE, OPT_IGNORE, OPT_DETAIL, OPT_PERTHREAD,
       OPT_CPU, OPT_ENTRY, OPT_REPEAT, OPT_PROGRESS, OPT_MARKERS };

static const struct optdecl stat_opts[] = {
    { 'e', "events", "LIST",
        "comma-separated events (default: task-clock, context-switches,\n"
        "cpu-migrations, page-faults, and hardware events where available)", OPTD_COMPLETE_EVENT, NULL, 0 },
    { 'g', "group", "LIST",
        "events counted together as one group (repeatable)", OPTD_COMPLETE_EVENT, NULL, 0 },
    { 'r', "region", "REGION",
        "count only inside REGION (repeatable); perf stat's -r (repeat) is\n"
        "--repeat here, as -r is Perforator's region flag", OPTD_COMPLETE_FUNC, NULL, 0 },
    { OPT_MARKERS, "markers", NULL,
        "count inside the regions the program marks itself with\n"
        "<prospect/region.h> (prospect_region_begin/end, libprospect): each\n"
        "thread counts -e's events itself (at most 8; default task-clock, and\n"
        "cycles and instructions where the machine counts them)", 0, NULL, 0 },
    { 'p', "pid", "PID",
        "attach to a running process; probes are removed when done", OPTD_COMPLETE_PID, NULL, 0 },
    { 'a', "all-cpus", NULL,
        "count every process on every CPU (while COMMAND runs, or until\n"
        "Ctrl-C or --duration); needs perf_event_paranoid <= 0 or root", 0, NULL, 0 },
    { 'd', "duration", "SECS",
        "measure for SECS seconds, then print the results; a command still\n"
        "running is not killed: prospect waits for it and exits with its\n"
        "status (as 'prospect run -d'); -p: detach", 0, NULL, 0 },
    { OPT_REPEAT, "repeat", "N",
        "run the command N times; print means and their variation", 0, NULL, 0 },
    { 'I', "interval-print", "MSEC",
        "print the counts of every MSEC milliseconds (>= 10)", 0, NULL, 0 },
    { OPT_CPU, "cpu", "N",
        "run the command pinned to CPU N (set before it starts)", 0, NULL, 0 },
    { 's', "summary", NULL,
        "one table with a row per region", 0, NULL, 0 },
    { OPT_DETAIL, "detail", NULL,
        "add p50 and p99 over crossings", 0, NULL, 0 },
    { OPT_PERTHREAD, "per-thread", NULL,
        "also show each thread's results", 0, NULL, 0 },
    { OPT_CSV, "csv", NULL,
        "CSV output", 0, NULL, 0 },
    { 'x', "field-separator", "SEP",
        "CSV output with SEP between fields (perf stat's -x)", 0, NULL, 0 },
    { 'o', "output", "FILE",
        "write the results to FILE instead of standard error", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_SORT, "sort-key", "KEY",
        "sort regions by region, calls, crossings, wall-clock or an event", 0, NULL, 0 },
    { OPT_REVERSE, "reverse-sort", NULL,
        "reverse the order", 0, NULL, 0 },
    { OPT_IGNORE, "ignore-missing-regions", NULL,
        "warn about regions that cannot be found and go on", 0, NULL, 0 },
    { OPT_ENTRY, "entry", "MODE",
        "how functions are entered: jump (default: a command's functions\n"
        "that allow it jump to a probed trampoline, no single-step trap) or\n"
        "trap (a uprobe on the function's first instruction)", 0, NULL, 0 },
    { OPT_PROGRESS, "progress", NULL,
        "with -r, a progress line on stderr every second (crossings so far,\n"
        "time elapsed); on by default when stderr is a terminal", 0, NULL, 0 },
    { 'v', "verbose", NULL, "print every probed site and full region names (-vv: more)", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_stat_decl = {
    .name = "stat",
    .synopsis = "[options] [-r REGION]... [--] COMMAND [ARGS]",
    .intro =
"       prospect stat [options] [-r REGION...] -p PID [--duration SECONDS]\n"
"       prospect stat -a [options] [--duration SECONDS] [-- COMMAND [ARGS]]\n"
"       prospect stat --markers [-e EVENTS] [options] [--] COMMAND [ARGS]\n"
"\n"
"Counts events over a whole program (like perf stat) or, with -r, only while the program is\n"
"inside chosen regions of an unmodified binary. Each region's result is an aggregate over\n"
"every crossing in every thread and child process: calls, and per event total/mean/min/max.\n"
"Results go to standard error (or -o FILE), never into the command's standard output.\n"
"\n"
"Regions (-r, repeatable):\n"
"  FUNC                 a function (also its inlined copies, found in DWARF, and gcc's clones\n"
"                       such as FUNC.isra.0); C++ names may be partly qualified (K::work)\n"
"  LIB:FUNC             a function in a shared library (libc.so.6:malloc, libc:malloc, a path);\n"
"                       an IFUNC (libc:strlen) counts the implementation this CPU uses\n"
"  FILE:L1-FILE:L2      source lines L1 up to (not including) L2; FILE:L1-L2 also works\n"
"  0xA-0xB              ELF virtual addresses of the program (as objdump shows), B excluded\n"
"\n"
"Options:\n",
    .outro =
"\n"
"An event the kernel refuses to count with the kernel included (kernel.perf_event_paranoid\n"
"2 for a user) counts user space only, like perf, and is shown as NAME:u.\n"
"--repeat, -I and -a apply to whole-program counting (not with -r).\n"
"\n"
"Exit status: the command's (128+N if it was killed by signal N); 127/126 if it cannot be\n"
"run; 2 for usage errors; 1 for other errors (unknown region, event that does not open).\n"
"Mechanism, semantics and measurement skew: docs/stat.md.\n",
    .opts = stat_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

static pid_t left_running;   /* the command, when a second signal ended the wait without it */

/* The wait's -ECANCELED: a second signal while the command ran on. Results so far are still
 * reported; the command is left running. */
static int waited_enough(int e, pid_t child, int *wstatus)
{
    if (e != -ECANCELED)
        return e;
    *wstatus = probe_stop_signal & 0x7f;   /* reported as if the signal had ended it: 128+N */
    left_running = child;
    cmd_error("stat", "counting interrupted by SIG%s twice; the command was left running "
              "(pid %d): the counts cover the run until then", sigabbrev_np(probe_stop_signal) ?
              sigabbrev_np(probe_stop_signal) : "?", (int)child);
    return 0;
}

struct stat_opts {
    VEC(struct counter_group) groups;   /* groups[0]: the -e events */
    VEC(const char *) regions;
    pid_t attach_pid;
    double duration;
    struct stat_report_opts rep;
    const char *output;
    struct outfile of;    /* -o */
    bool ignore_missing;
    bool explicit_events;
    bool trap_entries;    /* --entry trap: no jump entries (plain uprobes everywhere) */
    bool progress;        /* --progress: progress lines even when stderr is no terminal */
    int pin_cpu;          /* -1: not pinned */
    unsigned repeat;      /* --repeat: runs of the command (1 by default) */
    double interval;      /* -I: seconds between printed intervals, 0 for none */
    bool system_wide;     /* -a */
    bool markers;         /* --markers: the program's own region markers */
    char **argv;
};

static int add_events(struct stat_opts *o, struct counter_group *g, const char *list)
{
    const char *p = list;
    char tok[256];

    if (!*list)
        return cmd_usage_error("stat", "empty event list");
    for (;;) {
        size_t len = 0;
        int slashes = 0;
        struct event_spec es, *ne;
        char err[512];

        /* Commas inside PMU/terms/ belong to the terms. */
        while (p[len] && (p[len] != ',' || slashes == 1))
            slashes += p[len++] == '/';
        if (len == 0 || len >= sizeof(tok))
            return cmd_usage_error("stat", "invalid event list '%s'", list);
        memcpy(tok, p, len);
        tok[len] = '\0';
        int ret = event_parse(tok, &es, err, sizeof(err));
        if (ret == -ENODEV || ret == -EACCES || ret == -EPERM) {   /* a real event */
            cmd_error("stat", "%s", err);
            return 1;
        }
        if (ret)
            return cmd_usage_error("stat", "%s", err);
        ne = realloc(g->ev, (g->n + 1) * sizeof(*ne));
        if (!ne)
            return 1;
        g->ev = ne;
        g->ev[g->n++] = es;
        if (!p[len])
            break;
        p += len + 1;
    }
    o->explicit_events = true;
    return 0;
}

/* Region mode: -e counters that may not always be schedulable (hardware PMUs) each get a
 * group of their own, as perf stat counts -e events independently. Group 0 keeps the
 * software events, which always count, so its probes see every crossing. */
static int split_hardware(struct stat_opts *o)
{
    struct counter_group *g0 = &o->groups.v[0];
    size_t keep = 0;

    for (size_t i = 0; i < g0->n; i++) {
        const struct perf_event_attr *a = &g0->ev[i].attr;
        struct counter_group g = { 0 };
        if (a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT) {
            g0->ev[keep++] = g0->ev[i];
            continue;
        }
        g.ev = malloc(sizeof(*g.ev));
        if (!g.ev)
            return -ENOMEM;
        g.ev[0] = g0->ev[i];
        g.n = 1;
        if (vec_push(&o->groups, g)) {
            free(g.ev);
            return -ENOMEM;
        }
        g0 = &o->groups.v[0];   /* the vector may have moved */
    }
    g0->n = keep;
    return 0;
}

static int default_events(struct counter_group *g, bool *hw_missing)
{
    static const char *const sw[] = { "task-clock", "context-switches", "cpu-migrations",
                                      "page-faults" };
    static const char *const hw[] = { "cycles", "instructions", "branches", "branch-misses",
                                      "cache-references", "cache-misses" };
    char err[128];

    g->ev = calloc(10, sizeof(*g->ev));
    if (!g->ev)
        return -ENOMEM;
    for (size_t i = 0; i < 4; i++)
        event_parse(sw[i], &g->ev[g->n++], err, sizeof(err));
    *hw_missing = false;
    for (size_t i = 0; i < 6; i++) {
        event_parse(hw[i], &g->ev[g->n], err, sizeof(err));
        if (event_available(&g->ev[g->n].attr))
            g->n++;
        else
            *hw_missing = true;
    }
    return 0;
}

static void free_opts(struct stat_opts *o)
{
    for (size_t i = 0; i < o->groups.n; i++)
        free(o->groups.v[i].ev);
    vec_free(&o->groups);
    vec_free(&o->regions);
}


static int parse_args(int argc, char **argv, struct stat_opts *o)
{
    struct counter_group g0 = { 0 };
    int c, e;
    uint64_t v;

    if (vec_push(&o->groups, g0))
        return 1;
    optind = 1;
    opterr = 0;
    while ((c = cmd_getopt(&cmd_stat_decl, argc, argv)) != -1) {
        switch (c) {
        case 'e':
            if ((e = add_events(o, &o->groups.v[0], optarg)))
                return e;
            break;
        case 'g': {
            struct counter_group g = { 0 };
            if ((e = add_events(o, &g, optarg))) {
                free(g.ev);
                return e;
            }
            if (vec_push(&o->groups, g))
                return 1;
            break;
        }
        case 'r':
            if (vec_push(&o->regions, optarg))
                return 1;
            break;
        case 'p':
            if (parse_u64(optarg, &v) || v == 0 || v > INT_MAX)
                return cmd_usage_error("stat", "invalid pid '%s'", optarg);
            o->attach_pid = (pid_t)v;
            break;
        case 'd':
            if (parse_double(optarg, &o->duration) || o->duration <= 0)
                return cmd_usage_error("stat", "invalid duration '%s' (seconds)", optarg);
            break;
        case OPT_REPEAT:
            if (parse_u64(optarg, &v) || v == 0 || v > 1000000)
                return cmd_usage_error("stat", "invalid --repeat '%s' (runs, 1 or more)", optarg);
            o->repeat = (unsigned)v;
            break;
        case 'a': o->system_wide = true; break;
        case 'I':
            if (parse_u64(optarg, &v) || v < 10 || v > 86400000)
                return cmd_usage_error("stat", "invalid -I '%s' (milliseconds, at least 10)",
                                       optarg);
            o->interval = (double)v / 1000.0;
            break;
        case 'x':
            if (strlen(optarg) != 1 || optarg[0] == '"' || optarg[0] == '\n')
                return cmd_usage_error("stat", "invalid -x '%s' (one character, not a quote)",
                                       optarg);
            o->rep.csv = true;
            o->rep.sep = optarg[0];
            break;
        case 's': o->rep.summary = true; break;
        case OPT_CSV: o->rep.csv = true; break;
        case 'o': o->output = optarg; break;
        case OPT_SORT: o->rep.sort_key = optarg; break;
        case OPT_REVERSE: o->rep.reverse = true; break;
        case OPT_IGNORE: o->ignore_missing = true; break;
        case OPT_DETAIL: o->rep.detail = true; break;
        case OPT_PERTHREAD: o->rep.per_thread = true; break;
        case OPT_PROGRESS: o->progress = true; break;
        case OPT_MARKERS: o->markers = true; break;
        case OPT_CPU:
            if (cpu_parse(optarg, &o->pin_cpu))
                return cmd_usage_error("stat", "invalid cpu '%s'", optarg);
            break;
        case OPT_ENTRY:
            if (!strcmp(optarg, "trap"))
                o->trap_entries = true;
            else if (strcmp(optarg, "jump"))
                return cmd_usage_error("stat", "invalid --entry '%s' (jump or trap)", optarg);
            break;
        case 'v': log_verbosity++; o->rep.full_names = true; break;
        case 'h': return -1;
        default: return cmd_bad_option("stat", argv, optind, optopt, c);
        }
    }
    o->argv = argv + optind;
    if (!o->argv[0] && !o->attach_pid && !o->system_wide)
        return cmd_usage_error("stat", "no command given (and no -p PID or -a)");
    if (o->argv[0] && o->attach_pid)
        return cmd_usage_error("stat", "give either a command or -p PID, not both");
    if (o->attach_pid && o->system_wide)
        return cmd_usage_error("stat", "give either -a or -p PID, not both");
    if (o->attach_pid && o->pin_cpu >= 0)
        return cmd_usage_error("stat", "--cpu applies to a command that prospect starts, not -p");
    if (o->regions.n && (o->repeat || o->interval > 0 || o->system_wide))
        return cmd_usage_error("stat", "--repeat, -I and -a apply to whole-program counting, "
                               "not to -r regions");
    if (o->markers && (o->regions.n || o->attach_pid || o->system_wide || o->repeat ||
                       o->interval > 0 || o->groups.n > 1))
        return cmd_usage_error("stat", "--markers counts a command's own marked regions: not "
                               "with -r, -p, -a, -g, --repeat or -I");
    if (o->repeat > 1 && !o->argv[0])
        return cmd_usage_error("stat", "--repeat runs a command again: give one");
    if (o->repeat > 1 && o->interval > 0)
        return cmd_usage_error("stat", "give either --repeat or -I, not both");
    if (!o->repeat)
        o->repeat = 1;
    return 0;
}

/* Pins the held child before it execs (so the whole command runs there). 0 or 1 (error
 * printed). */
static int pin_child(const struct stat_opts *o, pid_t child)
{
    char err[256];
    if (o->pin_cpu < 0 || child <= 0)
        return 0;
    if (cpu_pin(child, o->pin_cpu, "/sys/devices/system/cpu/online", err, sizeof(err))) {
        cmd_error("stat", "--cpu %d: %s", o->pin_cpu, err);
        return 1;
    }
    return 0;
}

static int mirror_status(int wstatus)
{
    if (!left_running)
        cmd_note_signaled("stat", wstatus);
    if (WIFEXITED(wstatus) && probe_stop_signal)
        fprintf(stderr, "prospect stat: the command exited with status %d after the SIG%s "
                "passed to it\n", WEXITSTATUS(wstatus), sigabbrev_np(probe_stop_signal) ?
                sigabbrev_np(probe_stop_signal) : "?");
    return launch_exit_code(wstatus);
}

static int tick_trace(void *arg, int timeout_ms, int wake_fd)
{
    int e = region_trace_poll(arg, timeout_ms, wake_fd);
    stat_progress_tick(region_trace_counter(arg));
    return e;
}

/* Notes and warnings about the results go with them: into -o's file while it is open (not a
 * --csv one, which holds the table alone for the programs that read it). */
static FILE *notes_out;

static FILE *notes(void)
{
    return notes_out ? notes_out : stderr;
}

/* Results go to standard error, as perf stat's do, so the command's standard output (an
 * archive, a pipe) is never mixed with them; -o FILE writes them there. */
static FILE *open_output(struct stat_opts *o)
{
    int e;
    if (!o->output)
        return stderr;
    if ((e = outfile_open(&o->of, o->output, 0666))) {
        cmd_error("stat", "cannot write %s: %s", o->output, outfile_strerror(e));
        return NULL;
    }
    notes_out = o->rep.csv ? NULL : o->of.fp;
    return o->of.fp;
}

/* Ends -o: the file replaces a previous one only once the results were written into it; it
 * is done before any wait for the rest of the command (--duration), so the results are there
 * when the measuring ends. *out is standard error afterwards. */
static int close_output(struct stat_opts *o, FILE **out, bool written, int status)
{
    int e;
    if (!*out || *out == stderr || !o->output)
        return status;
    *out = stderr;
    notes_out = NULL;
    if (!written) {
        outfile_abort(&o->of);
        return status;
    }
    if ((e = outfile_commit(&o->of))) {
        cmd_error("stat", "writing %s: %s", o->output, strerror(-e));
        return status ? status : 1;
    }
    return status;
}

/* Last steps before the command is released: pin it and open -o (once), so that a failure
 * stops everything before the workload runs. On failure the held child is killed. */
static bool ready_to_start(struct stat_opts *o, struct probe_target *t, FILE **out)
{
    if (pin_child(o, t->l.pid) || (!*out && !(*out = open_output(o)))) {
        probe_target_abort(t);
        return false;
    }
    return true;
}

/* Everything is open: pin and release the command (or go on with the attached process or
 * the system). *t0 is the time just before the release. 0, or the exit status to return
 * (the error printed). */
static int start(struct stat_opts *o, struct probe_target *t, FILE **out, bool hw_missing,
                 double *t0)
{
    int e;

    if (!ready_to_start(o, t, out))
        return 1;
    if (hw_missing)
        fprintf(notes(), "prospect stat: note: no hardware counters on this machine (cycles, "
                        "instructions, caches):\n  counting software events only\n");
    probe_stop_handlers_install();
    *t0 = probe_now_s();
    if ((e = probe_target_go(t)))
        return cmd_exec_error("stat", o->argv[0], e);
    return 0;
}

/* Waits until the command (or attached process) ends, a signal ends counting (-a), or
 * --duration ends first: then *running says the command runs on (it is never killed).
 * pw's on_interval is called every -I interval. 0 with *wstatus, or an exit status (the
 * error printed, with `what` before it). */
static int wait_measured(struct stat_opts *o, struct probe_target *t, struct probe_wait *pw,
                         double t0, int *wstatus, bool *running, const char *what)
{
    int e;

    pw->duration = o->duration;
    pw->interval = o->interval;
    e = probe_target_wait(t, pw, t0, wstatus, running);
    e = waited_enough(e, t->w.child, wstatus);
    if (e) {
        cmd_error("stat", "%s: %s", what, strerror(-e));
        return 1;
    }
    return 0;
}

/* --duration ended with the command still running: the results are out, the command is left
 * alone to finish, and its exit status stays prospect's (as `prospect run -d`). */
static int wait_rest(struct stat_opts *o, struct probe_target *t, FILE *out, int *wstatus)
{
    int e;

    fflush(out);
    fprintf(stderr, "prospect stat: measured for %g s (--duration); the command (pid %d) runs "
            "on unmeasured: waiting for it to exit\n", o->duration, (int)t->w.child);
    e = waited_enough(probe_target_wait_rest(t, wstatus), t->w.child, wstatus);
    if (e) {
        cmd_error("stat", "waiting for the command: %s", strerror(-e));
        return 1;
    }
    return 0;
}

/* Whole-program counting: the events, their printed names and the values of one run. */
struct prog {
    struct stat_opts *o;
    VEC(struct event_spec) ev;
    VEC(int) group;
    char (*names)[sizeof(((struct event_spec *)0)->name) + 4];
    const char **namep;
    struct program_count *pc;
    struct probe_target t;    /* this run's command, attached process or none (-a) */
    struct pc_value *vals, *prev, *delta;
    double *sum, *sumsq;
    FILE *out;
    bool interval_header;
};

static void print_interval(void *arg, double t)
{
    struct prog *p = arg;
    size_t n = p->ev.n;

    if (program_count_read(p->pc, p->vals))
        return;
    for (size_t i = 0; i < n; i++) {
        struct pc_value *d = &p->delta[i];
        d->raw = p->vals[i].raw - p->prev[i].raw;
        d->enabled = p->vals[i].enabled - p->prev[i].enabled;
        d->running = p->vals[i].running - p->prev[i].running;
        d->counted = d->running > 0 || d->enabled == 0;   /* not scheduled at all: 0 */
        d->scaled = (double)d->raw;
        if (d->running && d->running < d->enabled)
            d->scaled = (double)d->raw * (double)d->enabled / (double)d->running;
    }
    stat_report_interval(p->out, t, p->namep, p->delta, n, &p->o->rep, !p->interval_header);
    p->interval_header = true;
    fflush(p->out);
    memcpy(p->prev, p->vals, n * sizeof(*p->vals));
}

/* Events counting user space only because the kernel was refused get perf's ":u" name. */
static void user_only_names(struct prog *p)
{
    bool any = false;
    for (size_t i = 0; i < p->ev.n; i++)
        if (program_count_user_only(p->pc, i)) {
            snprintf(p->names[i], sizeof(p->names[i]), "%s:u", p->ev.v[i].name);
            any = true;
        }
    if (any)
        fprintf(notes(), "prospect stat: note: kernel.perf_event_paranoid does not let this user "
                "count the kernel: events count user space only (shown as NAME:u); run as root "
                "or 'sysctl kernel.perf_event_paranoid=1' to count the kernel too\n");
}

/* Relative standard error of the mean, in percent (perf's "+- x%"). */
static double variation(double sum, double sumsq, unsigned n)
{
    double mean = sum / n, var;
    if (n < 2 || mean == 0)
        return 0;
    var = (sumsq - n * mean * mean) / (n - 1);
    return var > 0 ? 100.0 * sqrt(var / n) / fabs(mean) : 0;
}

static void command_title(const struct stat_opts *o, char *title, size_t len)
{
    size_t used = 0;
    title[0] = '\0';
    if (o->system_wide)
        snprintf(title, len, "system wide");
    else if (o->attach_pid)
        snprintf(title, len, "process %d", (int)o->attach_pid);
    for (size_t i = 0; !o->system_wide && o->argv[0] && o->argv[i] && used < len; i++)
        used += (size_t)snprintf(title + used, len - used, "%s%s", i ? " " : "", o->argv[i]);
}

/* One run: open, start, count until the end (or --duration), read. 0 or an exit status. */
static int count_once(struct prog *p, bool first, bool hw_missing, double *wall_ns,
                      int *wstatus, bool *running)
{
    struct stat_opts *o = p->o;
    struct probe_wait pw = { .on_interval = print_interval, .interval_arg = p };
    unsigned flags = o->system_wide ? PC_SYSTEM_WIDE : o->attach_pid ? PC_ATTACH : 0;
    enum probe_prepare_step step;
    char msg[512];
    double t0;
    int e;

    probe_target_release(&p->t);   /* the previous run's */
    probe_target_init(&p->t, o->attach_pid, o->argv);
    if ((e = probe_target_prepare(&p->t, NULL, &step))) {
        cmd_prepare_error("stat", o->argv[0], step, e);
        return 1;
    }
    e = program_count_open(&p->pc, p->ev.v, p->group.v, p->ev.n, probe_target_pid(&p->t),
                           flags, msg, sizeof(msg));
    if (e) {
        cmd_error("stat", "%s", msg);
        probe_target_abort(&p->t);
        return 1;
    }
    if (first)
        user_only_names(p);
    if ((e = start(o, &p->t, &p->out, hw_missing, &t0)))
        return e;
    memset(p->prev, 0, p->ev.n * sizeof(*p->prev));
    if ((e = wait_measured(o, &p->t, &pw, t0, wstatus, running, "waiting for the command")))
        return e;
    *wall_ns = (probe_now_s() - t0) * 1e9;
    if (o->interval > 0) {
        print_interval(p, probe_now_s() - t0);   /* the last, partial interval */
        return 0;
    }
    if (program_count_read(p->pc, p->vals)) {
        cmd_error("stat", "cannot read the counters");
        return 1;
    }
    return 0;
}

static int prog_setup(struct prog *p)
{
    size_t n;
    for (size_t g = 0; g < p->o->groups.n; g++)
        for (size_t i = 0; i < p->o->groups.v[g].n; i++)
            if (vec_push(&p->ev, p->o->groups.v[g].ev[i]) || vec_push(&p->group, (int)g))
                return -ENOMEM;
    n = p->ev.n + 1;
    p->names = calloc(n, sizeof(*p->names));
    p->namep = calloc(n, sizeof(*p->namep));
    p->vals = calloc(n, sizeof(*p->vals));
    p->prev = calloc(n, sizeof(*p->prev));
    p->delta = calloc(n, sizeof(*p->delta));
    p->sum = calloc(2 * n, sizeof(*p->sum));
    if (!p->names || !p->namep || !p->vals || !p->prev || !p->delta || !p->sum)
        return -ENOMEM;
    p->sumsq = p->sum + n;
    for (size_t i = 0; i < p->ev.n; i++) {
        snprintf(p->names[i], sizeof(p->names[i]), "%s", p->ev.v[i].name);
        p->namep[i] = p->names[i];
    }
    return 0;
}

static void prog_release(struct prog *p)
{
    program_count_free(p->pc);
    probe_target_release(&p->t);
    free(p->names);
    free(p->namep);
    free(p->vals);
    free(p->prev);
    free(p->delta);
    free(p->sum);
    vec_free(&p->ev);
    vec_free(&p->group);
}

static int run_program_mode(struct stat_opts *o, bool hw_missing)
{
    struct prog p = { .o = o };
    struct stat_program_view v = { .user_s = -1, .sys_s = -1 };
    struct rusage ru0, ru1;
    char exe[PATH_MAX], title[1024];
    double wall = 0, wall_sum = 0, wall_sumsq = 0;
    double *var = NULL;
    unsigned runs = 0;
    int e, wstatus = 0, status = 1, werr;
    bool running = false, written = false;

    if (prog_setup(&p)) {
        cmd_error("stat", "out of memory");
        goto out;
    }
    if (o->argv[0] && (e = launch_resolve(o->argv[0], exe, sizeof(exe)))) {
        status = cmd_exec_error("stat", o->argv[0], e);
        goto out;
    }
    getrusage(RUSAGE_CHILDREN, &ru0);
    while (runs < o->repeat && !probe_stop_signal) {
        if ((e = count_once(&p, runs == 0, runs == 0 && hw_missing, &wall, &wstatus,
                            &running))) {
            status = e;
            goto out;
        }
        runs++;
        for (size_t i = 0; i < p.ev.n; i++) {
            p.sum[i] += p.vals[i].scaled;
            p.sumsq[i] += p.vals[i].scaled * p.vals[i].scaled;
            p.delta[i].raw += p.vals[i].raw;
            p.delta[i].enabled += p.vals[i].enabled;
            p.delta[i].running += p.vals[i].running;
            p.delta[i].counted |= p.vals[i].counted;
        }
        wall_sum += wall;
        wall_sumsq += wall * wall;
        if (runs < o->repeat && !probe_stop_signal) {
            program_count_free(p.pc);   /* the next run opens its own */
            p.pc = NULL;
            if (running && (e = wait_rest(o, &p.t, p.out, &wstatus))) {
                status = e;
                goto out;
            }
        }
    }
    if (o->interval > 0)
        goto done;
    /* The report shows means over the runs (the sums of one run, unchanged). */
    var = calloc(p.ev.n + 1, sizeof(*var));
    if (!var)
        goto out;
    for (size_t i = 0; i < p.ev.n; i++) {
        struct pc_value *m = &p.vals[i];
        m->scaled = p.sum[i] / runs;
        m->raw = p.delta[i].raw / runs;
        m->enabled = p.delta[i].enabled / runs;
        m->running = p.delta[i].running / runs;
        m->counted = p.delta[i].counted;
        var[i] = variation(p.sum[i], p.sumsq[i], runs);
    }
    if (!running && o->argv[0] && !getrusage(RUSAGE_CHILDREN, &ru1)) {
        v.user_s = ((double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                    (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6) / runs;
        v.sys_s = ((double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                   (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6) / runs;
    }
    command_title(o, title, sizeof(title));
    v.command = title;
    v.names = p.namep;
    v.vals = p.vals;
    v.var = runs > 1 ? var : NULL;
    v.n = p.ev.n;
    v.runs = runs;
    v.wall_ns = wall_sum / runs;
    v.wall_var = variation(wall_sum, wall_sumsq, runs);
    stat_report_program(p.out, &v, &o->rep);
done:
    written = true;
    program_count_free(p.pc);   /* counting ends before any wait for the rest of the command */
    p.pc = NULL;
    werr = close_output(o, &p.out, written, 0);
    if (running && (e = wait_rest(o, &p.t, p.out, &wstatus))) {
        status = e;
        goto out;
    }
    status = o->argv[0] ? mirror_status(wstatus) : 0;
    if (werr && status == 0)
        status = werr;
out:
    status = close_output(o, &p.out, written, status);
    free(var);
    prog_release(&p);
    return status;
}

/* A C++ exception thrown through a function with a return probe cannot be unwound (the probe
 * replaced the return address). Function exits are probes on their returns, so that applies
 * only to a function whose returns could not be found in its code: name those. */
static void note_cxx_exceptions(const struct region_list *rl, const char *exe)
{
    struct elf_program prog;

    if (elf_program_read(exe, &prog))
        return;
    for (size_t i = 0; prog.cxx && i < rl->probes.n; i++)
        if (rl->probes.v[i].uret && rl->probes.v[i].role == RC_ENTER)
            fprintf(notes(), "prospect stat: note: %s keeps a return probe (its returns could "
                    "not be found in its code, -v says why): a C++ exception thrown through it "
                    "ends the program\n", rl->regions.v[rl->probes.v[i].region].label);
    elf_program_release(&prog);
}

/* Images of the program where the hook never ran (those where it ran and failed were reported
 * from its log already). */
static void warn_unpatched(struct region_trace *rt, struct probe_target *t)
{
    const uint32_t *pids;
    size_t n = region_trace_unpatched(rt, &pids);
    uint32_t first;
    size_t silent = probe_target_unpatched(t, pids, n, &first);

    if (silent)
        fprintf(notes(), "prospect stat: warning: %zu process image(s) of the program ran "
                "without the entry hook (first: pid %u; exec'd with an environment without "
                "LD_PRELOAD?): their crossings of jump-entry functions were not counted; "
                "--entry trap counts them\n", silent, first);
}

/* Calls that ended without a return sample. With no sample lost, they were left without
 * returning (longjmp, an exception): what the program did, not a loss. */
static void warn_unreturned(const char *label, const struct rc_result *r, uint64_t lost)
{
    if (!r->unreturned)
        return;
    if (!lost)
        fprintf(notes(), "prospect stat: note: %s: %llu call(s) left without returning (longjmp "
                "or a C++ exception): %llu crossing(s) not counted (calls include them)\n",
                label, (unsigned long long)r->unreturned, (unsigned long long)r->resynced);
    else
        fprintf(notes(), "prospect stat: warning: %s: %llu call(s) ended without a return "
                "sample (samples were lost, or left by longjmp or an exception): %llu "
                "crossing(s) dropped\n", label, (unsigned long long)r->unreturned,
                (unsigned long long)r->resynced);
}

static void warn_line(void *arg, const char *msg)
{
    (void)arg;
    fprintf(notes(), "prospect stat: warning: %s\n", msg);
}

/* stat -r: one run of the command (or attached process) with its regions traced. */
struct region_run {
    struct stat_opts *o;
    struct region_list rl;
    struct region_trace *rt;
    struct probe_target t;
    struct stat_region_view *views;
    FILE *out;
    bool written, running;
    int wstatus;
    char msg[2048];
};

/* The program the regions are in. 0, or the exit status to return (the error printed). */
static int region_program(struct region_run *r)
{
    struct stat_opts *o = r->o;
    int e = probe_target_resolve(&r->t);

    if (!e)
        return 0;
    if (o->attach_pid) {
        cmd_error("stat", "cannot find the program of process %d: %s", (int)o->attach_pid,
                  strerror(-e));
        return 1;
    }
    return cmd_exec_error("stat", o->argv[0], e);
}

/* An IFUNC's implementation is the one Prospect's own libc picks, with Prospect's environment:
 * a command that sets other GLIBC_TUNABLES (hwcaps) may pick another. */
static void warn_ifunc_tunables(const struct stat_opts *o)
{
    for (size_t i = 0; o->argv && o->argv[i]; i++)
        if (str_starts(o->argv[i], "GLIBC_TUNABLES=")) {
            fprintf(notes(), "prospect stat: warning: the command sets GLIBC_TUNABLES: an IFUNC "
                    "region counts the implementation\n  chosen without it; set it for "
                    "Prospect too (GLIBC_TUNABLES=... prospect stat ...)\n");
            return;
        }
}

/* -r's regions resolved in the program, with their notes. 0, or the exit status to return. */
static int add_regions(struct region_run *r)
{
    struct stat_opts *o = r->o;
    struct region_list *rl = &r->rl;
    bool ifunc = false;
    int e;

    for (size_t i = 0; i < o->regions.n; i++) {
        e = region_add(rl, o->regions.v[i], r->t.exe, o->ignore_missing, r->msg,
                       sizeof(r->msg));
        if (e == -EINVAL)
            return cmd_usage_error("stat", "%s", r->msg[0] ? r->msg : "invalid region");
        if (e) {
            cmd_error("stat", "%s", r->msg[0] ? r->msg : strerror(-e));
            if (e == -ENOENT)
                fprintf(stderr, "prospect stat: (use --ignore-missing-regions to go on without "
                                "it)\n");
            return 1;
        }
        if (rl->regions.v[i].missing)
            fprintf(notes(), "prospect stat: warning: %s; counting it as never run\n", r->msg);
        if (rl->regions.v[i].note) {
            fprintf(notes(), "prospect stat: note: %s\n", rl->regions.v[i].note);
            ifunc |= strstr(rl->regions.v[i].note, "(IFUNC:") != NULL;
        }
    }
    if (ifunc)
        warn_ifunc_tunables(o);
    return 0;
}

/* Jump entries for the command's functions (not with --entry trap), and -v's sites. 0 or 1. */
static int plan_entries(struct region_run *r)
{
    struct region_list *rl = &r->rl;
    int e;

    r->msg[0] = '\0';
    note_cxx_exceptions(rl, r->t.exe);
    if (!r->o->trap_entries) {
        if ((e = probe_target_plan_jumps(&r->t, rl, r->msg, sizeof(r->msg)))) {
            cmd_error("stat", "%s", r->msg[0] ? r->msg : strerror(-e));
            return 1;
        }
        if (!r->t.je && r->msg[0])
            fprintf(notes(), "prospect stat: note: %s; functions keep their uprobes\n", r->msg);
    }
    if (log_verbosity >= LOG_INFO)
        for (size_t i = 0; i < rl->regions.n; i++)
            for (size_t s = 0; s < rl->regions.v[i].sites.n; s++)
                fprintf(stderr, "prospect stat: region %s: %s\n", rl->regions.v[i].label,
                        rl->regions.v[i].sites.v[s]);
    return 0;
}

/* The command held, the probes and counters open on it. 0, or the exit status to return (the
 * held command killed). */
static int open_tracing(struct region_run *r)
{
    struct stat_opts *o = r->o;
    enum probe_prepare_step step;
    const char *const *kc;
    size_t nk;
    int e;

    if ((e = probe_target_prepare(&r->t, NULL, &step))) {
        cmd_prepare_error("stat", o->argv[0], step, e);
        return 1;
    }
    e = region_trace_open(&r->rt, &r->rl, o->groups.v, o->groups.n, probe_target_pid(&r->t),
                          o->attach_pid != 0, probe_target_watch(&r->t), r->msg, sizeof(r->msg));
    if (e) {
        cmd_error("stat", "%s", r->msg[0] ? r->msg : strerror(-e));
        probe_target_abort(&r->t);
        return 1;
    }
    region_counter_keep_values(region_trace_counter(r->rt), o->rep.detail);
    /* A bad --sort-key or -o must fail before the workload runs, not lose its results after. */
    nk = region_trace_columns(r->rt, &kc);
    if (o->rep.sort_key && stat_sort_key_check(o->rep.sort_key, kc, nk, r->msg, sizeof(r->msg))) {
        probe_target_abort(&r->t);
        return cmd_usage_error("stat", "%s", r->msg);
    }
    return 0;
}

/* Releases the command and traces until it ends (or --duration). 0 or the exit status. */
static int trace_regions(struct region_run *r, bool hw_missing)
{
    struct probe_wait pw = { .tick = tick_trace, .tick_arg = r->rt };
    double t0;
    int e;

    stat_progress_start(r->o->progress);
    if (!(e = start(r->o, &r->t, &r->out, hw_missing, &t0)))
        e = wait_measured(r->o, &r->t, &pw, t0, &r->wstatus, &r->running, "tracing failed");
    stat_progress_end();
    if (e)
        return e;
    if ((e = region_trace_finish(r->rt))) {
        cmd_error("stat", "tracing failed: %s", strerror(-e));
        return 1;
    }
    return 0;
}

/* The table (and --per-thread's rows) from the regions' totals. 0 or the exit status. */
static int report_regions(struct region_run *r)
{
    struct region_counter *rc = region_trace_counter(r->rt);
    const struct region_list *rl = &r->rl;
    const char *const *cols;
    size_t ncols = region_trace_columns(r->rt, &cols);
    /* Per-thread arrays are only valid until the next call: copied per region. */
    VEC(struct rc_result) thr = { 0 };
    VEC(size_t) thr_off = { 0 };
    int e, status = 1;

    if (!(r->views = calloc(rl->regions.n + 1, sizeof(*r->views))))
        return 1;
    for (size_t i = 0; i < rl->regions.n; i++) {
        r->views[i].label = rl->regions.v[i].label;
        r->views[i].missing = rl->regions.v[i].missing;
        if (!(r->views[i].res = region_counter_total(rc, (int)i)))
            return 1;
    }
    for (size_t i = 0; r->o->rep.per_thread && i < rl->regions.n; i++) {
        const struct rc_result *t;
        size_t n = region_counter_threads(rc, (int)i, &t);
        if (vec_push(&thr_off, thr.n) || vec_reserve(&thr, n))
            goto out;
        memcpy(thr.v + thr.n, t, n * sizeof(*t));
        thr.n += n;
        r->views[i].nthreads = n;
    }
    for (size_t i = 0; r->o->rep.per_thread && i < rl->regions.n; i++)
        r->views[i].threads = thr.v + thr_off.v[i];
    e = stat_report_regions(r->out, r->views, rl->regions.n, cols, ncols, &r->o->rep, r->msg,
                            sizeof(r->msg));
    r->written = !e || e == -EIO;
    status = e == -EINVAL ? cmd_usage_error("stat", "%s", r->msg) : 0;
out:
    vec_free(&thr);
    vec_free(&thr_off);
    return status;
}

/* Samples lost or undecodable, entries and exits unseen: the counts are incomplete. */
static void warn_losses(struct region_run *r, const struct region_trace_stats *st)
{
    if (st->lost || st->unseen)
        fprintf(notes(), "prospect stat: warning: %llu samples lost (the ring buffer "
                "overflowed): counts are incomplete; for functions the stack pointer puts a "
                "thread whose exit sample was lost back in step, but in line and address "
                "ranges it looks still inside (its later passes are not new crossings); "
                "fewer regions or events make samples smaller\n",
                (unsigned long long)(st->lost > st->unseen ? st->lost : st->unseen));
    if (st->bad)
        fprintf(notes(), "prospect stat: warning: %llu records could not be decoded and were "
                "dropped: counts are incomplete\n", (unsigned long long)st->bad);
    for (size_t i = 0; i < r->rl.regions.n; i++) {
        const struct stat_region_view *v = &r->views[i];
        uint64_t ent, ex;
        region_trace_unseen(r->rt, (int)i, &ent, &ex);
        if (ent || ex)
            fprintf(notes(), "prospect stat: warning: %s: the samples of %llu entries and "
                    "%llu exits were lost: %llu calls were made, not %llu\n",
                    v->label, (unsigned long long)ent, (unsigned long long)ex,
                    (unsigned long long)(v->res->calls + ent), (unsigned long long)v->res->calls);
    }
}

/* Events counted in only some crossings: their group was not always scheduled. */
static void warn_multiplexed(struct region_run *r)
{
    const char *const *cols;
    size_t ncols = region_trace_columns(r->rt, &cols);

    for (size_t i = 0; i < r->rl.regions.n; i++)
        for (size_t c = 0; c < ncols; c++)
            if (r->views[i].res->vals[c].n < r->views[i].res->crossings)
                fprintf(notes(), "prospect stat: warning: %s: %s was counted in only %llu of "
                        "%llu crossings (its group was not scheduled: multiplexing)\n",
                        r->views[i].label, cols[c],
                        (unsigned long long)r->views[i].res->vals[c].n,
                        (unsigned long long)r->views[i].res->crossings);
}

/* Recursion beyond uretprobes' depth, and ranges whose start is a loop head. */
static void warn_depth_and_loops(struct region_run *r)
{
    bool deep = false;

    for (size_t i = 0; i < r->rl.regions.n; i++)
        deep |= r->views[i].res->deep > 0;
    if (deep)
        fprintf(notes(), "prospect stat: warning: recursion deeper than the kernel's "
                "uretprobe limit (64 levels): deeper calls are counted as calls only\n");
    for (size_t i = 0; i < r->rl.regions.n; i++) {
        const struct rc_result *res = r->views[i].res;
        if (r->rl.regions.v[i].range && res->reentered > res->crossings)
            fprintf(notes(), "prospect stat: warning: %s: its start was reached %llu more "
                    "times inside the region (a loop head): each is a probe hit (about 1 us, "
                    "13 us on a single-stepped uprobe, on this kind of VM) that the counts "
                    "include; start the range before the loop\n",
                    r->views[i].label, (unsigned long long)res->reentered);
    }
}

/* Everything the table does not say: what the counts miss, and what they include. */
static void warn_regions(struct region_run *r)
{
    struct region_trace_stats st;

    region_trace_get_stats(r->rt, &st);
    warn_losses(r, &st);
    warn_multiplexed(r);
    for (size_t i = 0; i < r->rl.regions.n; i++)
        warn_unreturned(r->views[i].label, r->views[i].res, st.lost);
    stat_cost_notes(notes(), &r->rl, region_trace_counter(r->rt));
    probe_target_problems(&r->t, &r->rl, warn_line, NULL);
    warn_unpatched(r->rt, &r->t);
    warn_depth_and_loops(r);
}

/* The regions set up, traced, reported: 0 or the exit status. */
static int count_regions(struct region_run *r, bool hw_missing)
{
    int e;

    if ((e = region_program(r)))
        return e;
    if (!(r->out = open_output(r->o)))     /* now: the regions' notes go with the results */
        return 1;
    if ((e = add_regions(r)) || (e = plan_entries(r)) || (e = open_tracing(r)) ||
        (e = trace_regions(r, hw_missing)) || (e = report_regions(r)))
        return e;
    warn_regions(r);
    return 0;
}

static int run_region_mode(struct stat_opts *o, bool hw_missing)
{
    struct region_run r = { .o = o };
    int status;

    region_list_init(&r.rl);
    probe_target_init(&r.t, o->attach_pid, o->argv);
    if ((status = count_regions(&r, hw_missing)))
        goto out;
    if (r.running) {
        region_trace_free(r.rt);   /* the probes go: the rest of the command runs unmeasured */
        r.rt = NULL;
        if ((status = close_output(o, &r.out, r.written, 0)) ||
            (status = wait_rest(o, &r.t, r.out, &r.wstatus)))
            goto out;
    }
    status = o->attach_pid ? 0 : mirror_status(r.wstatus);
out:
    status = close_output(o, &r.out, r.written, status);
    free(r.views);
    region_trace_free(r.rt);     /* closes events and deletes probes: the target is unchanged */
    probe_target_release(&r.t);
    region_list_release(&r.rl);
    return status;
}

/* The kernel detaches every perf event of a process (perf_event_exit_task) when its exec
 * changes its credentials: a set-user-ID or set-group-ID program of another owner, or file
 * capabilities that raise an unprivileged user's. Counting stops at that exec, silently. */
/* --markers: the command's libprospect counts its own regions and writes the aggregates into
 * a private channel; the table is stat -r's. */
static int marker_events(struct stat_opts *o)
{
    static const char *const dfl[] = { "task-clock", "cycles", "instructions" };
    struct counter_group *g = &o->groups.v[0];
    char err[128];

    if (o->explicit_events) {
        if (g->n > MARKERS_MAX_EVENTS)
            return cmd_usage_error("stat", "--markers counts at most %d events, not %zu",
                                   MARKERS_MAX_EVENTS, g->n);
        return 0;
    }
    if (!(g->ev = calloc(3, sizeof(*g->ev))))
        return 1;
    for (size_t i = 0; i < 3; i++) {
        event_parse(dfl[i], &g->ev[g->n], err, sizeof(err));
        if (i == 0 || event_available(&g->ev[g->n].attr))
            g->n++;
    }
    return 0;
}

static int run_markers_mode(struct stat_opts *o)
{
    struct counter_group *g = &o->groups.v[0];
    struct perf_event_attr attrs[MARKERS_MAX_EVENTS];
    const char *cols[MARKERS_MAX_EVENTS];
    struct stat_region_view *views = NULL;
    struct markers_result mr = { 0 };
    struct probe_wait pw = { 0 };
    struct probe_target t;
    enum probe_prepare_step step;
    char env[64], msg[512], *envp[2] = { env, NULL };
    int fd, e, status = 1, wstatus = 0;
    bool running, written = false;
    FILE *out = NULL;
    double t0;

    if ((e = marker_events(o)))
        return e;
    /* Every event must open here (in this thread, as the command's threads will), or the
     * command would run for nothing. */
    for (size_t i = 0; i < g->n; i++) {
        struct perf_event_attr a = g->ev[i].attr;
        int efd;
        a.disabled = 1;
        if ((efd = perf_event_open_fd(&a, 0, -1, -1, 0)) < 0) {
            event_open_advice(-efd, &g->ev[i].attr, g->ev[i].name, msg, sizeof(msg));
            cmd_error("stat", "%s", msg);
            return 1;
        }
        close(efd);
        attrs[i] = g->ev[i].attr;
        cols[i] = g->ev[i].name;
    }
    if (o->rep.sort_key && stat_sort_key_check(o->rep.sort_key, cols, g->n, msg, sizeof(msg)))
        return cmd_usage_error("stat", "%s", msg);
    if ((fd = markers_channel_create(attrs, g->n)) < 0) {
        cmd_error("stat", "cannot create the markers channel: %s", strerror(-fd));
        return 1;
    }
    snprintf(env, sizeof(env), "%s=%d", MARKERS_ENV, fd);
    probe_target_init(&t, 0, o->argv);
    if ((e = probe_target_prepare(&t, envp, &step))) {
        close(fd);
        cmd_error("stat", "cannot start %s: %s", o->argv[0], strerror(-e));
        probe_target_release(&t);
        return 1;
    }
    if ((e = start(o, &t, &out, false, &t0)) ||
        (e = wait_measured(o, &t, &pw, t0, &wstatus, &running, "waiting failed"))) {
        close(fd);
        probe_target_release(&t);
        return e;
    }
    /* With --duration the command may run on: what its processes wrote so far is read. */
    e = markers_read(fd, g->n, o->rep.detail, &mr, msg, sizeof(msg));
    close(fd);
    if (e) {
        cmd_error("stat", "%s", e == -EINVAL ? msg : strerror(-e));
        goto out;
    }
    if (!(views = calloc(mr.n + 1, sizeof(*views))))
        goto out;
    for (size_t i = 0; i < mr.n; i++) {
        views[i].label = mr.r[i].name;
        views[i].res = &mr.r[i].res;
    }
    if (!mr.n)
        fprintf(stderr, "prospect stat: no marked region was crossed: the command sent no "
                "results (is it linked with libprospect, calling prospect_region_begin/end, and "
                "did it end through exit() rather than _exit() or a signal?)\n");
    else {
        e = stat_report_regions(out, views, mr.n, cols, g->n, &o->rep, msg, sizeof(msg));
        written = !e || e == -EIO;
        if (e == -EINVAL) {
            status = cmd_usage_error("stat", "%s", msg);
            goto out;
        }
    }
    if (mr.open_errors)
        fprintf(notes(), "prospect stat: warning: the counters did not open in %llu threads "
                "(%s): their crossings have times, no counts\n",
                (unsigned long long)mr.open_errors, strerror(mr.first_errno));
    if (mr.unmatched)
        fprintf(notes(), "prospect stat: warning: %llu prospect_region_end calls had no open "
                "region of that name\n", (unsigned long long)mr.unmatched);
    for (size_t i = 0; i < mr.n; i++)
        if (mr.r[i].res.open)
            fprintf(notes(), "prospect stat: warning: %s: %llu threads were still inside at exit "
                    "(not counted)\n", mr.r[i].name, (unsigned long long)mr.r[i].res.open);
    if (running && (e = wait_rest(o, &t, out, &wstatus))) {
        status = e;
        goto out;
    }
    status = mirror_status(wstatus);
out:
    status = close_output(o, &out, written, status);
    free(views);
    markers_result_free(&mr);
    probe_target_release(&t);
    return status;
}

int cmd_stat(int argc, char **argv)
{
    struct stat_opts o;
    bool hw_missing = false;
    int e;

    memset(&o, 0, sizeof(o));
    o.pin_cpu = -1;
    e = parse_args(argc, argv, &o);
    if (e) {
        free_opts(&o);
        return e < 0 ? cmd_help("stat") : e;
    }
    if ((!o.explicit_events && !o.markers && default_events(&o.groups.v[0], &hw_missing)) ||
        (o.regions.n && split_hardware(&o))) {
        free_opts(&o);
        return 1;
    }
    if (!o.attach_pid)
        cmd_warn_setid("stat", o.argv[0], "its counts are 0 (the time before that exec)");
    e = o.markers ? run_markers_mode(&o) : o.regions.n ? run_region_mode(&o, hw_missing) :
        run_program_mode(&o, hw_missing);
    free_opts(&o);
    cmd_exit_by_sigint(probe_stop_signal, e);
    return e;
}
