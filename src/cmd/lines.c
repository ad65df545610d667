/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "lines"
/* prospect lines: exact executions per source line of an unmodified program (src/lines/). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "lines/count.h"
#include "lines/gcov.h"
#include "lines/inproc.h"
#include "lines/lines.h"
#include "lines/render.h"
#include "cmd/target_msg.h"
#include "probe/region.h"
#include "probe/target.h"
#include "util/proc_tasks.h"
#include "util/launch.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/strutil.h"

enum { O_FILE = 256, O_FORMAT, O_SRCDIR, O_ENTRY, O_ENGINE };

static const struct optdecl lines_opts[] = {
    { 'f', "function", "NAME",
        "count this function (repeatable; gcc clones and .cold parts too);\n"
        "LIB:NAME, one of a shared library the program loads", OPTD_COMPLETE_FUNC, NULL, 0 },
    { O_FILE, "file", "SRC",
        "count and show this source file (repeatable; \"fact.c\" matches any\n"
        "path ending in /fact.c); with -f, only show it; LIB:SRC, a file of\n"
        "a shared library the program loads\n"
        "default: every function of the program's own compilation units", OPTD_COMPLETE_FILE, NULL, 0 },
    { O_FORMAT, "format", "FMT",
        "text (default), csv (file,line,count,mark), json, lcov (lcov's\n"
        "tracefile, for genhtml), gcov (gcov's own text format: a\n"
        "FILE.gcov per source file, in -o DIR or here) or gcov-json\n"
        "(gcov's JSON intermediate format: PROGRAM.gcov.json.gz there)", OPTD_COMPLETE_CHOICE,
        "text csv json lcov gcov gcov-json", 0 },
    { 'o', "output", "FILE",
        "write the results there (default: standard error, as perf stat,\n"
        "so the command's standard output stays its own); with --format\n"
        "gcov, the directory for the .gcov files", OPTD_COMPLETE_FILE, NULL, 0 },
    { 'b', "branch-probabilities", NULL,
        "with --format gcov: gcov -b's function lines (calls, returns) and\n"
        "branch lines (how often each way of a conditional branch was\n"
        "taken), and its call lines (how often each call returned: the code\n"
        "after each call gets a counter of its own)", 0, NULL, 0 },
    { 'c', "branch-counts", NULL,
        "with -b: counts instead of percentages (gcov -c)", 0, NULL, 0 },
    { O_SRCDIR, "source-dir", "DIR",
        "look for source files under DIR too (path made relative, then by\n"
        "trailing components)", OPTD_COMPLETE_DIR, NULL, 0 },
    { 'p', "pid", "PID",
        "count a running process instead (every thread, and the threads and\n"
        "children they create) until it exits or Ctrl-C", OPTD_COMPLETE_PID, NULL, 0 },
    { O_ENGINE, "engine", "ENGINE",
        "inproc (default: the program's own code increments counters in\n"
        "relocated copies of its functions) or uprobe (a probe per block)",
        OPTD_COMPLETE_CHOICE, "inproc uprobe", 0 },
    { O_ENTRY, "entry", "trap",
        "plain uprobes everywhere (no counters, no jump entries; for\n"
        "comparison)", 0, NULL, 0 },
    { 'v', "verbose", NULL, "which blocks jump, which stay uprobes and why", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_lines_decl = {
    .name = "lines",
    .synopsis = "[options] -- COMMAND [ARGS...]",
    .intro =
"       prospect lines [options] -p PID\n"
"\n"
"Counts how many times each source line of a program runs, exactly (every execution), on the\n"
"unmodified binary: a counter at the first instruction of each block of each line (DWARF\n"
"is_stmt rows, branch targets from the code), incremented by the program itself in relocated\n"
"copies of its functions (--engine inproc), else a counting uprobe. Prints gprof's\n"
"annotated listing per source file (counts in the left margin), \"Top 10 Lines\" and\n"
"\"Execution Summary\". A line's count is gcov's: how often control entered the line from\n"
"another line or function, plus the turns of loops within the line (docs/lines.md). Every\n"
"thread and child process is counted. The program needs DWARF line info (-g).\n"
"\n",
    .outro =
"\n"
"Cost: an in-process count costs about 1 ns; a probe hit about 1 us by a jump entry or an\n"
"emulated uprobe, 11 us on a single-stepped one (this VM; 2-3x under load; the header says\n"
"how many of each: in-process counters are listed as \"jump\").\n"
"Blocks whose count is a sum of others' get no probe.\n"
"\n"
"Examples:\n"
"  prospect lines -- ./fact\n"
"  prospect lines -f fact --format csv -o fact.csv -- ./fact\n",
    .opts = lines_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

enum lines_fmt { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_LCOV, FMT_GCOV, FMT_GCOV_JSON };

struct lines_opts {
    VEC(const char *) funcs;
    VEC(const char *) files;
    enum lines_fmt fmt;
    const char *output, *source_dir;
    bool trap, uprobe, branches, branch_counts;
    pid_t pid;
    char **argv;
};

static int parse(int argc, char **argv, struct lines_opts *o)
{
    int c;

    opterr = 0;
    optind = 1;
    while ((c = cmd_getopt(&cmd_lines_decl, argc, argv)) != -1) {
        switch (c) {
        case 'f':
            if (vec_push(&o->funcs, optarg))
                return -ENOMEM;
            break;
        case O_FILE:
            if (vec_push(&o->files, optarg))
                return -ENOMEM;
            break;
        case O_FORMAT:
            if (!strcmp(optarg, "text"))
                o->fmt = FMT_TEXT;
            else if (!strcmp(optarg, "csv"))
                o->fmt = FMT_CSV;
            else if (!strcmp(optarg, "json"))
                o->fmt = FMT_JSON;
            else if (!strcmp(optarg, "lcov"))
                o->fmt = FMT_LCOV;
            else if (!strcmp(optarg, "gcov"))
                o->fmt = FMT_GCOV;
            else if (!strcmp(optarg, "gcov-json"))
                o->fmt = FMT_GCOV_JSON;
            else
                return cmd_usage_error("lines", "unknown --format '%s' (text, csv, json, lcov, "
                                       "gcov or gcov-json)", optarg);
            break;
        case 'o': o->output = optarg; break;
        case 'b': o->branches = true; break;
        case 'c': o->branch_counts = true; break;
        case O_SRCDIR: o->source_dir = optarg; break;
        case O_ENTRY:
            if (!strcmp(optarg, "trap"))
                o->trap = true;
            else if (strcmp(optarg, "jump"))
                return cmd_usage_error("lines", "unknown --entry '%s' (jump or trap)", optarg);
            break;
        case O_ENGINE:
            if (!strcmp(optarg, "uprobe"))
                o->uprobe = true;
            else if (strcmp(optarg, "inproc"))
                return cmd_usage_error("lines", "unknown --engine '%s' (inproc or uprobe)",
                                       optarg);
            break;
        case 'p': {
            uint64_t v;
            if (parse_u64(optarg, &v) || !v || v > 0x3fffffff)
                return cmd_usage_error("lines", "-p wants a process id, not '%s'", optarg);
            o->pid = (pid_t)v;
            break;
        }
        case 'v': log_verbosity++; break;
        case 'h': return -1;
        default: return cmd_bad_option("lines", argv, optind, optopt, c);
        }
    }
    if (o->branches && o->fmt != FMT_GCOV)
        return cmd_usage_error("lines", "-b is for --format gcov");
    if (o->branch_counts && !o->branches)
        return cmd_usage_error("lines", "-c is for --format gcov -b");
    if (o->pid && optind < argc)
        return cmd_usage_error("lines", "-p PID or a command, not both");
    if (!o->pid && optind >= argc)
        return cmd_usage_error("lines", "no command given (prospect lines [options] -- "
                               "COMMAND, or -p PID)");
    o->argv = argv + optind;
    return 0;
}

/* The program and threads of a running process, or the command's program. 0, or the exit
 * status to return (the error printed). */
static int resolve(struct lines_opts *o, struct probe_target *t, pid_t **tids, size_t *ntids)
{
    int e = probe_target_resolve(t);

    if (o->pid) {
        /* /proc/PID/exe's target is untrusted: a path only. */
        if (!e && str_ends(t->exe, " (deleted)"))
            e = -ENOENT;
        if (e || (e = proc_task_ids(o->pid, tids, ntids))) {
            cmd_error("lines", "cannot attach to process %d: %s", (int)o->pid,
                      e == -ENOENT && kill(o->pid, 0) == 0 ? "its program file was deleted"
                                                           : strerror(-e));
            return 1;
        }
    } else if (e) {
        return cmd_exec_error("lines", o->argv[0], e);
    }
    return 0;
}

static void note_line(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "prospect lines: %s\n", msg);
}

/* The in-process engine where it applies; its blocks' uprobes are dropped. 0 or -1 (the
 * error printed). */
static int plan_inproc(struct lines_inproc **ip, struct lines_plan *plan, struct region_list *rl,
                       const char *exe, pid_t pid)
{
    void (*note)(void *, const char *) = log_verbosity >= LOG_INFO ? note_line : NULL;
    char msg[512];
    int e = pid ? lines_inproc_plan_pid(ip, plan, exe, note, NULL, msg, sizeof(msg))
                : lines_inproc_plan(ip, plan, exe, note, NULL, msg, sizeof(msg));
    if (e) {
        cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
        return -1;
    }
    /* -p: the process held from here until its uprobes are open (lines_inproc_resume). */
    if (*ip && pid && (e = lines_inproc_attach(*ip, plan, pid, msg, sizeof(msg)))) {
        lines_inproc_free(*ip);
        *ip = NULL;
        if (e == -ENOMEM)
            return -1;
        fprintf(stderr, "prospect lines: note: %s; blocks keep their uprobes\n", msg);
        return 0;
    }
    if (*ip)
        lines_inproc_drop_probes(*ip, rl);
    if (log_verbosity < LOG_INFO)
        return 0;
    if (*ip)
        lines_inproc_summary(*ip, msg, sizeof(msg));
    if (*ip || msg[0])
        fprintf(stderr, "prospect lines: %s%s\n", msg, *ip ? "" : "; blocks keep their uprobes");
    return 0;
}

/* The chosen functions' blocks -> in-process counters (relocated copies), else probe points,
 * jump entries where they can be. 0 or -1 (the error printed). */
static int plan_probes(struct lines_opts *o, struct probe_target *t, struct lines_plan *plan,
                       struct region_list *rl, struct lines_inproc **ip)
{
    struct lines_select sel = { .funcs = o->funcs.v, .nfuncs = o->funcs.n,
                                .files = o->files.v, .nfiles = o->files.n,
                                .calls = o->branches };
    char obj[PATH_MAX], msg[2048];
    int e;

    /* -f LIB:FUNC, --file LIB:SRC: a library's code, by uprobes on its file (jump entries
     * patch the program's own code only). */
    if ((e = lines_target(t->exe, o->funcs.v, o->funcs.n, o->files.v, o->files.n, obj,
                          sizeof(obj), msg, sizeof(msg)))) {
        cmd_error("lines", "%s", msg);
        return -1;
    }
    o->trap |= strcmp(obj, t->exe) != 0;
    if ((e = lines_plan_build(plan, obj, &sel, msg, sizeof(msg)))) {
        cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
        return -1;
    }
    for (size_t i = 0; log_verbosity >= LOG_INFO && i < plan->notes.n; i++)
        fprintf(stderr, "prospect lines: %s\n", plan->notes.v[i]);
    if ((e = lines_probe_points(plan, rl))) {
        cmd_error("lines", "%s: %s", t->exe, strerror(-e));
        return -1;
    }
    if (!o->trap && !o->uprobe && plan_inproc(ip, plan, rl, t->exe, o->pid))
        return -1;
    if (!o->trap && !*ip) {
        msg[0] = '\0';
        if ((e = probe_target_plan_jumps(t, rl, msg, sizeof(msg)))) {
            cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
            return -1;
        }
        if (!t->je && msg[0])
            fprintf(stderr, "prospect lines: note: %s; blocks keep their uprobes\n", msg);
    }
    if (log_verbosity >= LOG_INFO)
        for (size_t i = 0; i < rl->regions.n; i++)
            for (size_t s = 0; s < rl->regions.v[i].sites.n; s++)
                fprintf(stderr, "prospect lines: %s\n", rl->regions.v[i].sites.v[s]);
    return 0;
}

static void warn_line(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "prospect lines: warning: %s\n", msg);
}

/* What the counts miss: the hook's problems, images without it, lost hits, the signal. */
static void warn_incomplete(struct lines_opts *o, struct probe_target *t,
                            const struct region_list *rl, struct lines_counter *lc, uint64_t lost,
                            const struct lines_inproc *ip)
{
    probe_target_problems(t, rl, warn_line, NULL);
    if (t->je || ip) {
        uint32_t pids[64], first;
        size_t n = lines_counter_unpatched(lc, pids, 64);
        size_t silent = probe_target_unpatched(t, pids, n < 64 ? n : 64, &first);
        if (silent && o->pid)
            fprintf(stderr, "prospect lines: warning: %zu process(es) ran the program without "
                    "the in-process counters\n  (first: pid %u, exec'd after the attach): their "
                    "blocks counted in the process\n  were not; --engine uprobe counts them\n",
                    silent, first);
        else if (silent)
            fprintf(stderr, "prospect lines: warning: %zu process(es) ran the program without "
                    "the entry hook\n  (first: pid %u; exec'd with an environment without "
                    "LD_PRELOAD?): their blocks counted by the hook\n  were not; --entry trap "
                    "counts them\n", silent, first);
    }
    if (lost)
        fprintf(stderr, "prospect lines: warning: %llu probe hits were lost (their samples did "
                "not fit the ring buffers): the counts are incomplete\n",
                (unsigned long long)lost);
    if (probe_stop_signal && !o->pid)
        fprintf(stderr, "prospect lines: the command got SIG%s: the counts cover the run until "
                "it ended\n", sigabbrev_np(probe_stop_signal) ?
                sigabbrev_np(probe_stop_signal) : "?");
}

/* The counts in the chosen format: gcov's files in a directory, or a listing, CSV, JSON or an
 * lcov tracefile on f. 0 or -1 (the error printed). */
static int render(struct lines_opts *o, FILE *f, const struct region_list *rl,
                  struct lines_plan *plan, const struct lines_count *counts, size_t ncounts,
                  const struct lines_inproc *ip)
{
    struct lines_cost cost;
    struct lines_report r = { .plan = plan, .counts = counts, .n = ncounts,
                              .source_dir = o->source_dir, .cost = &cost };
    const char *dir = o->output ? o->output : ".";
    char msg[2048];
    int e = 0;

    lines_cost_of(rl, plan, &cost);
    if (ip)
        lines_inproc_cost(ip, plan, &cost);
    msg[0] = '\0';
    if (o->fmt == FMT_GCOV)
        e = lines_write_gcov(&r, dir,
                             (o->branches ? LINES_GCOV_BRANCHES : 0) |
                                 (o->branch_counts ? LINES_GCOV_COUNTS : 0),
                             msg, sizeof(msg));
    else if (o->fmt == FMT_GCOV_JSON)
        e = lines_write_gcov_json(&r, dir, msg, sizeof(msg));
    else if (o->fmt == FMT_LCOV)
        e = lines_render_lcov(f, &r);
    else if (o->fmt == FMT_CSV)
        lines_render_csv(f, &r);
    else if (o->fmt == FMT_JSON)
        lines_render_json(f, &r);
    else
        lines_render_text(f, &r);
    if (e)
        cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
    return e ? -1 : 0;
}

/* Opens the counters, releases the command (or says the attach) and waits for its end. 0, or
 * the exit status to return (the error printed). */
static int count_run(struct lines_opts *o, struct probe_target *t, const struct region_list *rl,
                     struct lines_counter **lc, const pid_t *tids, size_t ntids, int *wstatus,
                     struct lines_inproc *ip)
{
    struct image_watch iw;
    const struct image_watch *watch;
    struct probe_wait pw = { .tick = lines_counter_poll };
    enum probe_prepare_step step;
    char msg[2048];
    bool running;
    int e;

    if ((e = probe_target_prepare(t, ip && !o->pid ? lines_inproc_env(ip) : NULL, &step))) {
        cmd_prepare_error("lines", o->argv[0], step, e);
        return 1;
    }
    watch = probe_target_watch(t);
    if (ip && (e = lines_inproc_watch(ip, &iw))) {
        cmd_error("lines", "cannot read the entry hook's trampoline: %s", strerror(-e));
        probe_target_abort(t);
        return 1;
    }
    if (ip)
        watch = &iw;
    if ((e = lines_counter_open(lc, rl, probe_target_pid(t), tids, ntids, watch, msg,
                                sizeof(msg)))) {
        cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
        probe_target_abort(t);
        return 1;
    }
    lines_inproc_resume(ip);
    probe_stop_handlers_install();
    if (o->pid)
        fprintf(stderr, "prospect lines: counting process %d (%zu threads; Ctrl-C to stop)\n",
                (int)o->pid, ntids);
    else if ((e = probe_target_go(t)))
        return cmd_exec_error("lines", o->argv[0], e);
    pw.tick_arg = *lc;
    e = probe_target_wait(t, &pw, probe_now_s(), wstatus, &running);
    if (e == -ECANCELED) {
        cmd_error("lines", "interrupted twice: the command (pid %d) runs on, uncounted",
                  (int)t->l.pid);
        return 1;
    }
    if (e) {
        cmd_error("lines", "waiting for the command failed: %s", strerror(-e));
        return 1;
    }
    return 0;
}

static int run(struct lines_opts *o)
{
    struct lines_plan plan;
    struct region_list rl;
    struct probe_target t;
    struct lines_counter *lc = NULL;
    struct lines_inproc *ip = NULL;
    struct lines_count *counts = NULL;
    struct outfile of = { 0 };
    bool of_open = false;
    size_t ncounts = 0, ntids = 0;
    uint64_t lost = 0;
    pid_t *tids = NULL;
    int e, status = 1, wstatus = 0;

    region_list_init(&rl);
    memset(&plan, 0, sizeof(plan));
    probe_target_init(&t, o->pid, o->argv);
    if ((e = resolve(o, &t, &tids, &ntids)))
        return e;
    if (plan_probes(o, &t, &plan, &rl, &ip))
        goto out;
    /* A bad -o fails before the command runs, not after. */
    if (o->fmt == FMT_GCOV || o->fmt == FMT_GCOV_JSON) {
        struct stat st;
        const char *dir = o->output ? o->output : ".";
        if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
            cmd_error("lines", "-o %s: not a directory (--format gcov and gcov-json write "
                      "their files there)", dir);
            goto out;
        }
    } else if (o->output) {
        if ((e = outfile_open(&of, o->output, 0644))) {
            cmd_error("lines", "cannot write %s: %s", o->output, outfile_strerror(e));
            goto out;
        }
        of_open = true;
    }
    if ((status = count_run(o, &t, &rl, &lc, tids, ntids, &wstatus, ip)))
        goto out;
    status = 1;
    if (ip && o->pid && (e = lines_inproc_detach(ip, warn_line, NULL))) {
        cmd_error("lines", "cannot put process %d's code back: %s", (int)o->pid, strerror(-e));
        goto out;
    }
    if (ip && (e = lines_inproc_read(ip, &plan, warn_line, NULL))) {
        cmd_error("lines", "cannot read the in-process counters: %s", strerror(-e));
        goto out;
    }
    if ((e = lines_counter_read(lc, &plan, &lost))) {
        cmd_error("lines", "cannot read the counters: %s", strerror(-e));
        goto out;
    }
    if ((e = lines_solve(&plan, &counts, &ncounts))) {
        cmd_error("lines", "%s", strerror(-e));
        goto out;
    }
    if (render(o, of_open ? of.fp : stderr, &rl, &plan, counts, ncounts, ip))
        goto out;
    warn_incomplete(o, &t, &rl, lc, lost, ip);
    if (of_open) {
        of_open = false;
        if ((e = outfile_commit(&of))) {
            cmd_error("lines", "writing %s failed: %s", o->output, strerror(-e));
            goto out;
        }
    }
    cmd_note_signaled("lines", wstatus);
    status = o->pid ? 0 : launch_exit_code(wstatus);
out:
    if (ip && o->pid)
        lines_inproc_detach(ip, warn_line, NULL);   /* after an error: nothing left patched */
    free(tids);
    if (of_open)
        outfile_abort(&of);
    free(counts);
    lines_counter_free(lc);
    probe_target_release(&t);
    lines_inproc_free(ip);
    region_list_release(&rl);
    lines_plan_release(&plan);
    return status;
}

int cmd_lines(int argc, char **argv)
{
    struct lines_opts o = { 0 };
    int e = parse(argc, argv, &o), status;

    if (e == -1)
        status = cmd_help("lines");
    else if (e == -ENOMEM)
        status = 1;
    else if (e)
        status = e;
    else
        status = run(&o);
    cmd_exit_by_sigint(probe_stop_signal, status);
    vec_free(&o.funcs);
    vec_free(&o.files);
    return status;
}
