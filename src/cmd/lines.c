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
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "lines/count.h"
#include "lines/lines.h"
#include "lines/render.h"
#include "perf/collect.h"
#include "probe/jump_entry.h"
#include "probe/region.h"
#include "util/proc_tasks.h"
#include "util/launch.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/strutil.h"

enum { O_FILE = 256, O_FORMAT, O_SRCDIR, O_ENTRY };

static const struct optdecl lines_opts[] = {
    { 'f', "function", "NAME",
        "count this function (repeatable; gcc clones and .cold parts too)", OPTD_COMPLETE_FUNC,
        NULL, 0 },
    { O_FILE, "file", "SRC",
        "count and show this source file (repeatable; \"fact.c\" matches any\n"
        "path ending in /fact.c); with -f, only show it\n"
        "default: every function of the program's own compilation units", OPTD_COMPLETE_FILE, NULL, 0 },
    { O_FORMAT, "format", "FMT",
        "text (default), csv (file,line,count) or json", OPTD_COMPLETE_CHOICE,
        "text csv json", 0 },
    { 'o', "output", "FILE",
        "write the results there (default: standard error, as perf stat,\n"
        "so the command's standard output stays its own)", OPTD_COMPLETE_FILE, NULL, 0 },
    { O_SRCDIR, "source-dir", "DIR",
        "look for source files under DIR too (path made relative, then by\n"
        "trailing components)", OPTD_COMPLETE_DIR, NULL, 0 },
    { 'p', "pid", "PID",
        "count a running process instead (every thread, and the threads and\n"
        "children they create) until it exits or Ctrl-C; plain uprobes", OPTD_COMPLETE_PID, NULL, 0 },
    { O_ENTRY, "entry", "trap",
        "plain uprobes everywhere (no jump entries; for comparison)", 0, NULL, 0 },
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
"unmodified binary: a counting probe at the first instruction of each block of each line\n"
"(DWARF is_stmt rows, branch targets from the code). Prints gprof's annotated listing per\n"
"source file (counts in the left margin), \"Top 10 Lines\" and \"Execution Summary\". A line's\n"
"count is how often control entered the line's code from another line or function (as\n"
"gprof's basic-block counts and gcov's line counts; docs/lines.md). Every thread and child\n"
"process is counted. The program needs DWARF line info (-g).\n"
"\n",
    .outro =
"\n"
"Cost: each probe hit costs the program about 1 us by a jump entry or an emulated uprobe,\n"
"11 us on a single-stepped one (this VM; 2-3x under load; the header says how many of\n"
"each).\n"
"Blocks whose count is a sum of others' get no probe.\n"
"\n"
"Examples:\n"
"  prospect lines -- ./fact\n"
"  prospect lines -f fact --format csv -o fact.csv -- ./fact\n",
    .opts = lines_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

enum lines_fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

struct lines_opts {
    VEC(const char *) funcs;
    VEC(const char *) files;
    enum lines_fmt fmt;
    const char *output, *source_dir;
    bool trap;
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
            else
                return cmd_usage_error("lines", "unknown --format '%s' (text, csv or json)",
                                       optarg);
            break;
        case 'o': o->output = optarg; break;
        case O_SRCDIR: o->source_dir = optarg; break;
        case O_ENTRY:
            if (!strcmp(optarg, "trap"))
                o->trap = true;
            else if (strcmp(optarg, "jump"))
                return cmd_usage_error("lines", "unknown --entry '%s' (jump or trap)", optarg);
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
    if (o->pid && optind < argc)
        return cmd_usage_error("lines", "-p PID or a command, not both");
    if (!o->pid && optind >= argc)
        return cmd_usage_error("lines", "no command given (prospect lines [options] -- "
                               "COMMAND, or -p PID)");
    o->argv = argv + optind;
    return 0;
}

/* The program of a running process: /proc/PID/exe's target (untrusted: a path only). */
static int attach_exe(pid_t pid, char *out, size_t len)
{
    char link[64];
    ssize_t n;
    snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
    if ((n = readlink(link, out, len - 1)) < 0)
        return -errno;
    out[n] = '\0';
    if (str_ends(out, " (deleted)"))
        return -ENOENT;
    return 0;
}

static void warn_line(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "prospect lines: warning: %s\n", msg);
}

static int run(struct lines_opts *o)
{
    struct lines_plan plan;
    struct lines_select sel = { .funcs = o->funcs.v, .nfuncs = o->funcs.n,
                                .files = o->files.v, .nfiles = o->files.n };
    struct region_list rl;
    struct jump_entry *je = NULL;
    struct lines_counter *lc = NULL;
    struct launch l = { .pid = -1, .go_fd = -1, .err_fd = -1 };
    struct lines_count *counts = NULL;
    struct outfile of = { 0 };
    bool of_open = false;
    size_t ncounts = 0, ntids = 0;
    uint64_t lost = 0;
    struct image_watch watch;
    pid_t *tids = NULL;
    char exe[PATH_MAX], msg[2048];
    int e, status = 1, wstatus = 0;

    region_list_init(&rl);
    memset(&plan, 0, sizeof(plan));
    if (o->pid) {
        if ((e = attach_exe(o->pid, exe, sizeof(exe))) || (e = proc_task_ids(o->pid, &tids,
                                                                           &ntids))) {
            cmd_error("lines", "cannot attach to process %d: %s", (int)o->pid,
                      e == -ENOENT && kill(o->pid, 0) == 0 ? "its program file was deleted"
                                                           : strerror(-e));
            return 1;
        }
    } else if ((e = launch_resolve(o->argv[0], exe, sizeof(exe)))) {
        cmd_error("lines", "cannot run '%s': %s", o->argv[0], strerror(-e));
        return e == -ENOENT ? 127 : 126;
    }
    if ((e = lines_plan_build(&plan, exe, &sel, msg, sizeof(msg)))) {
        cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
        goto out;
    }
    for (size_t i = 0; log_verbosity >= LOG_INFO && i < plan.notes.n; i++)
        fprintf(stderr, "prospect lines: %s\n", plan.notes.v[i]);
    if ((e = lines_probe_points(&plan, &rl))) {
        cmd_error("lines", "%s: %s", exe, strerror(-e));
        goto out;
    }
    if (!o->trap && !o->pid) {
        msg[0] = '\0';
        if ((e = jump_entry_plan(&je, &rl, exe, msg, sizeof(msg)))) {
            cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
            goto out;
        }
        if (!je && msg[0])
            fprintf(stderr, "prospect lines: note: %s; blocks keep their uprobes\n", msg);
    }
    if (log_verbosity >= LOG_INFO)
        for (size_t i = 0; i < rl.regions.n; i++)
            for (size_t s = 0; s < rl.regions.v[i].sites.n; s++)
                fprintf(stderr, "prospect lines: %s\n", rl.regions.v[i].sites.v[s]);
    /* A bad -o fails before the command runs, not after. */
    if (o->output) {
        if ((e = outfile_open(&of, o->output, 0644))) {
            cmd_error("lines", "cannot write %s: %s", o->output, outfile_strerror(e));
            goto out;
        }
        of_open = true;
    }
    if (!o->pid && (e = launch_prepare_env(&l, o->argv, je ? jump_entry_env(je) : NULL))) {
        cmd_error("lines", "cannot start '%s': %s", o->argv[0], strerror(-e));
        goto out;
    }
    if (je && (e = jump_entry_watch(je, &watch))) {
        cmd_error("lines", "cannot read the entry hook's trampoline: %s", strerror(-e));
        launch_abort(&l);
        goto out;
    }
    if ((e = lines_counter_open(&lc, &rl, o->pid ? o->pid : l.pid, tids, ntids,
                                je ? &watch : NULL, msg, sizeof(msg)))) {
        cmd_error("lines", "%s", msg[0] ? msg : strerror(-e));
        if (!o->pid)
            launch_abort(&l);
        goto out;
    }
    collect_install_stop_handlers();
    if (o->pid) {
        fprintf(stderr, "prospect lines: counting process %d (%zu threads; Ctrl-C to stop)\n",
                (int)o->pid, ntids);
    } else if ((e = launch_go(&l))) {
        cmd_error("lines", "cannot run '%s': %s", o->argv[0], strerror(-e));
        status = e == -ENOENT ? 127 : 126;
        goto out;
    }
    {
        struct launch_wait_opts w = { .child = o->pid ? 0 : l.pid, .attach_pid = o->pid,
                                      .stop_signal = &collect_stop_signal,
                                      .stop_count = &collect_stop_count,
                                      .tick = lines_counter_poll, .tick_arg = lc };
        e = launch_wait(&w, &wstatus);
        if (e == -ECANCELED) {
            cmd_error("lines", "interrupted twice: the command (pid %d) runs on, uncounted",
                      (int)l.pid);
            goto out;
        }
        if (e) {
            cmd_error("lines", "waiting for the command failed: %s", strerror(-e));
            goto out;
        }
    }
    if ((e = lines_counter_read(lc, &plan, &lost))) {
        cmd_error("lines", "cannot read the counters: %s", strerror(-e));
        goto out;
    }
    if ((e = lines_solve(&plan, &counts, &ncounts))) {
        cmd_error("lines", "%s", strerror(-e));
        goto out;
    }
    {
        struct lines_cost cost;
        struct lines_report r = { .plan = &plan, .counts = counts, .n = ncounts,
                                  .source_dir = o->source_dir, .cost = &cost };
        FILE *f = of_open ? of.fp : stderr;
        lines_cost_of(&rl, &plan, &cost);
        if (o->fmt == FMT_CSV)
            lines_render_csv(f, &r);
        else if (o->fmt == FMT_JSON)
            lines_render_json(f, &r);
        else
            lines_render_text(f, &r);
    }
    jump_entry_problems(je, &rl, warn_line, NULL);
    if (je) {
        uint32_t pids[64];
        size_t n = lines_counter_unpatched(lc, pids, 64), silent = 0;
        uint32_t first = 0;
        for (size_t i = 0; i < n && i < 64; i++)
            if (!jump_entry_process_failed(je, pids[i]) && !silent++)
                first = pids[i];
        if (silent)
            fprintf(stderr, "prospect lines: warning: %zu process(es) ran the program without "
                    "the entry hook\n  (first: pid %u; exec'd with an environment without "
                    "LD_PRELOAD?): their jump-entry blocks\n  were not counted; --entry trap "
                    "counts them\n", silent, first);
    }
    if (lost)
        fprintf(stderr, "prospect lines: warning: %llu probe hits were lost (their samples did "
                "not fit the ring buffers): the counts are incomplete\n",
                (unsigned long long)lost);
    if (collect_stop_signal && !o->pid)
        fprintf(stderr, "prospect lines: the command got SIG%s: the counts cover the run until "
                "it ended\n", sigabbrev_np(collect_stop_signal) ?
                sigabbrev_np(collect_stop_signal) : "?");
    if (of_open) {
        of_open = false;
        if ((e = outfile_commit(&of))) {
            cmd_error("lines", "writing %s failed: %s", o->output, strerror(-e));
            goto out;
        }
    }
    if (WIFSIGNALED(wstatus))
        fprintf(stderr, "prospect lines: command terminated by signal %d (%s)\n",
                WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    status = o->pid ? 0 : launch_exit_code(wstatus);
out:
    free(tids);
    if (of_open)
        outfile_abort(&of);
    free(counts);
    lines_counter_free(lc);
    jump_entry_free(je);
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
    cmd_exit_by_sigint(collect_stop_signal, status);
    vec_free(&o.funcs);
    vec_free(&o.files);
    return status;
}
