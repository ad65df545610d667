/* SPDX-License-Identifier: MIT */
/* prospect run: profile a command (and its children) or the whole system, report at exit. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "annotate/top.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/profile_opts.h"
#include "cmd/report_stacks.h"
#include "cmd/sinks.h"
#include "callgraph/resolve.h"
#include "offcpu/offcpu.h"
#include "perf/tp_format.h"
#include "perf/collect.h"
#include "report/callgraph_out.h"
#include "report/prospect_report.h"
#include "report/sample_seq.h"
#include "session/session.h"
#include "symbol/ksyms.h"
#include "util/launch.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/strutil.h"

enum { OPT_TOP = 1000, OPT_MIN_PERCENT, OPT_MIN_TIME, OPT_WIDE, OPT_ANNOTATE, OPT_HTML,
       OPT_HTML_SOURCE_TOP };

static const struct optdecl run_opts[] = {
    PROFILE_OPTDECLS,
    { 'p', "pid", "PID", "for record and stat: run profiles a command, or -a", OPTD_COMPLETE_PID, NULL, 0 },
    { 'o', "output", "FILE",
        "write the report to FILE instead of standard error", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_TOP, "top", "N",
        "routines shown per profile (default 25, 0 for all)", 0, NULL, 0 },
    { OPT_MIN_PERCENT, "min-percent", "P",
        "detail only processes with at least P% of the events (default 0.5)", 0, NULL, 0 },
    { OPT_MIN_TIME, "min-time", "SEC",
        "... and at least SEC seconds of CPU time (time events)", 0, NULL, 0 },
    { OPT_ANNOTATE, "annotate", "N",
        "after the report, the N hottest routines disassembled with their\n"
        "hits per instruction and source lines (the paper's -e; see\n"
        "'prospect annotate')", 0, NULL, 0 },
    { OPT_HTML, "html", "FILE",
        "also write the profile as one self-contained HTML page to FILE:\n"
        "call trees, caller/callee, flame graph, source (docs/html.md)", OPTD_COMPLETE_FILE,
        NULL, 0 },
    OPTD_HTML_SOURCE_TOP(OPT_HTML_SOURCE_TOP),
    { OPT_WIDE, "wide", NULL,
        "full names; by default report lines fit 100 columns (long names\n"
        "elided in the middle)", 0, NULL, 0 },
    { 'v', "verbose", NULL, "explain choices and missing symbols (-vv: more); implies --wide", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_run_decl = {
    .name = "run",
    .synopsis = "[options] [--] COMMAND [ARGS...]",
    .intro =
"       prospect run -a [options] [-- COMMAND [ARGS...]]\n"
"\n"
"Starts COMMAND, samples the instruction pointer of it and every process it starts (user and\n"
"kernel) until it exits, then prints the Prospect report on standard error (or -o FILE).\n"
"The exit status is the command's; a command killed by signal N gives 128+N.\n"
"\n",
    .outro =
"\n"
"Examples:\n"
"  prospect run -- ./myprog arg1 arg2\n"
"  prospect run -g -- ./myprog          # with call graphs: Children/Self rows, hottest paths\n"
"  prospect run --off-cpu -g -- ./srv   # and where its threads wait (Off-CPU Time)\n"
"  prospect run -a -- sleep 10          # every process on the machine for 10 s\n"
"  prospect run -F 2000 -o report.txt -- make -j2\n"
"  prospect run -e task-clock -c 100000 -- ./myprog\n"
"  prospect run --annotate 5 -- ./myprog   # report + the 5 hottest routines' assembly\n"
"  prospect run -g --html prof.html -- ./myprog   # report + a page to explore in a browser\n",
    .opts = run_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

/* One session per sampling event (-e a,b): each event's samples go to its own, every other
 * record (maps, comms, forks) to all of them. */
struct run_sessions {
    struct session s[COLLECT_MAX_EVENTS];
    size_t n;
};

static int run_record(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                      uint64_t time)
{
    struct run_sessions *rs = arg;
    const struct evsel *sel;
    int err = 0;

    if (rs->n == 1)
        return session_record(&rs->s[0], evl, h, time);
    /* --off-cpu's sched_switch comes after the sampling events: the first session's waits. */
    if (h->type == PERF_RECORD_SAMPLE && (sel = evlist_evsel_for(evl, h)))
        return session_record(&rs->s[(size_t)sel->idx < rs->n ? sel->idx : 0], evl, h, time);
    for (size_t i = 0; i < rs->n && !err; i++)
        err = session_record(&rs->s[i], evl, h, time);
    return err;
}

/* The collector's launch hook: the command is known by name from its very first sample. */
static int on_launched(void *arg, pid_t pid)
{
    struct run_sessions *rs = arg;
    int err = 0;
    for (size_t i = 0; i < rs->n && !err; i++)
        err = session_add_launcher(&rs->s[i], pid, rs->s[i].launcher_argv0);
    return err;
}

/* --html FILE: the page of the first event's stacks, after the text report. 0, or 1 (said). */
static int write_html(struct outfile *of, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct report_opts *ro, const char *event,
                      const struct collect_result *res, const struct html_source_req *src,
                      const struct sample_seq *seq)
{
    const char *notes[2];
    struct stacks_out_req rq = { .fmt = STACKS_HTML, .output = of->path, .opened = of,
                                 .cmd = "run",
                                 .input = ro->command, .command = ro->command,
                                 .event = event,
                                 .duration_ns = res->end_ns - res->start_ns,
                                 .nr_cpus = res->nr_cpus, .notes = notes, .source = *src,
                                 .seq = sample_seq_for(seq, cs) };

    if (ro->kernel_note)
        notes[rq.nnotes++] = ro->kernel_note;
    if (ro->proc_note)
        notes[rq.nnotes++] = ro->proc_note;
    return report_write_stacks(&rq, cs, cy);
}

static char *join_argv(char *const *argv)
{
    size_t len = 1;
    char *s;

    for (char *const *a = argv; *a; a++)
        len += strlen(*a) + 1;
    s = malloc(len);
    if (!s)
        return NULL;
    len = 0;
    for (char *const *a = argv; *a; a++) {
        size_t n = strlen(*a);
        if (a != argv)
            s[len++] = ' ';
        memcpy(s + len, *a, n);
        len += n;
    }
    s[len] = '\0';
    return s;
}

static void describe_outcome(const struct collect_result *r, char *buf, size_t len)
{
    int st = r->child_status;
    const char *sig = r->stop_signal ? sigabbrev_np(r->stop_signal) : NULL;

    if (r->running) {
        snprintf(buf, len, "still running when --duration ended (pid %d, not killed)",
                 (int)r->child);
    } else if (r->abandoned) {
        /* Short enough for the report's 100 columns with any pid. */
        snprintf(buf, len, "profiling interrupted by SIG%s twice; command left running (pid %d)",
                 sig ? sig : "?", (int)r->child);
    } else if (!r->child) {
        snprintf(buf, len, "profiling stopped%s", r->stop_signal ? " by a signal" : "");
    } else if (WIFEXITED(st) && r->stop_signal) {
        /* It caught or ignored the signal Prospect passed on and ended by itself later:
         * profiling covered it all, but this is no ordinary end. */
        snprintf(buf, len, "exit status %d, after the SIG%s passed to it", WEXITSTATUS(st),
                 sig ? sig : "?");
    } else if (WIFEXITED(st)) {
        snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
    } else if (WIFSIGNALED(st)) {
        snprintf(buf, len, "killed by signal %d (SIG%s)%s", WTERMSIG(st),
                 sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?",
                 WCOREDUMP(st) ? ", core dumped" : "");
    } else {
        snprintf(buf, len, "unknown status 0x%x", st);
    }
}

/* -d ended before the command: the report is out; the command finishes unprofiled, its
 * signals passed on as during profiling, and its exit status stays ours (as `stat -d`). */
static void wait_for_rest(struct collect_result *r, double duration, FILE *out)
{
    struct launch_wait_opts w = { .child = r->child, .stop_signal = &collect_stop_signal,
                                  .stop_count = &collect_stop_count };
    int e;

    fflush(out);
    fprintf(stderr, "prospect run: profiled for %g s (--duration); the command (pid %d) runs on "
            "unprofiled: waiting for it to exit\n", duration, (int)r->child);
    e = launch_wait(&w, &r->child_status);
    r->stop_signal = collect_stop_signal;
    r->running = false;
    if (e == -ECANCELED)
        r->abandoned = true;
    else if (e)
        cmd_error("run", "waiting for the command: %s", strerror(-e));
}

/* Ends -o before any wait for the rest of the command, so the report is there when --duration
 * ends: it replaces a previous file only once complete (else that file stays as it was).
 * Output is standard error from then on. 0, or 1 with the error told. */
static int end_output(struct outfile *of, FILE **out, bool reported, const char *output)
{
    int e;

    if (*out == stderr)
        return 0;
    *out = stderr;
    if (!reported) {
        outfile_abort(of);
        return 0;
    }
    if ((e = outfile_commit(of))) {
        cmd_error("run", "writing %s: %s", output, strerror(-e));
        return 1;
    }
    return 0;
}

/* Kernel samples, or off-CPU waits (oc, when tracked: their stacks start in the scheduler). */
static int load_kernel_symbols(const struct session *s, const struct offcpu *oc,
                               struct ksyms **ks, char *note, size_t len)
{
    int err;

    *ks = NULL;
    if (!s->stats.kernel && !(oc && oc->stacks.nstacks))
        return 0;
    err = ksyms_load("/proc/kallsyms", ks);
    if (err == -EACCES)
        snprintf(note, len, "kernel addresses are hidden (kernel.kptr_restrict): run as root or "
                 "'sysctl kernel.kptr_restrict=0'");
    else if (err)
        snprintf(note, len, "cannot read /proc/kallsyms: %s", strerror(-err));
    return err == -ENOMEM ? err : 0;
}

/* One `prospect run`: its options, the stores its samples go to, what it reports from. */
struct run {
    struct profile_opts po;
    struct report_opts ro;
    const char *output;           /* -o, or NULL: standard error */
    const char *html;             /* --html FILE until written, or NULL */
    const char *event0;           /* the first event's name: the stacks are its samples */
    struct outfile hof;           /* --html's */
    bool html_failed;
    unsigned annotate_top;
    unsigned source_top;          /* --html-source-top */
    struct run_sessions *rs;
    struct cg_store chains;
    struct sample_seq seq;        /* --html: every sample's thread and time (the timeline) */
    struct profile_sinks sinks;
    struct offcpu offcpu;
    struct offcpu_totals ot;
    struct cg_syms chain_syms, offcpu_syms;
    struct collect_result res;
    struct ksyms *ks;
    char *command;
    char knote[256], pnote[160], outcome[128];
    struct outfile of;
    FILE *out;
    bool reported;
};

/* run's own options (profile_opts takes the shared ones): -1 to go on, else the status. */
static int parse_args(struct run *r, int argc, char **argv)
{
    uint64_t v;
    double d;
    int c, ret;

    optind = 1;
    opterr = 0;
    while ((c = cmd_getopt(&cmd_run_decl, argc, argv)) != -1) {
        ret = profile_opts_parse(&r->po, "run", c, optarg);
        if (ret == 0)
            continue;
        if (ret != -ENOENT)
            return EXIT_USAGE;
        switch (c) {
        case 'o': r->output = optarg; break;
        case OPT_HTML:
            if (!*optarg)
                return cmd_usage_error("run", "empty --html");
            r->html = optarg;
            break;
        case OPT_TOP:
            if (parse_u64(optarg, &v) || v > 1000000)
                return cmd_usage_error("run", "invalid --top '%s'", optarg);
            r->ro.top = (unsigned)v;
            break;
        case OPT_MIN_PERCENT:
            if (parse_double(optarg, &d) || d > 100)
                return cmd_usage_error("run", "invalid --min-percent '%s'", optarg);
            r->ro.min_percent = d;
            break;
        case OPT_MIN_TIME:
            if (parse_double(optarg, &d))
                return cmd_usage_error("run", "invalid --min-time '%s'", optarg);
            r->ro.min_time = d;
            break;
        case OPT_WIDE: r->ro.wide = true; break;
        case OPT_HTML_SOURCE_TOP:
            if (parse_u64(optarg, &v) || v > 1000)
                return cmd_usage_error("run", "invalid --html-source-top '%s' (0 to 1000)",
                                       optarg);
            r->source_top = (unsigned)v;
            break;
        case OPT_ANNOTATE:
            if (parse_u64(optarg, &v) || v == 0 || v > 1000)
                return cmd_usage_error("run", "invalid --annotate '%s' (1 to 1000 routines)",
                                       optarg);
            r->annotate_top = (unsigned)v;
            break;
        case 'v': log_verbosity++; r->ro.wide = true; break;
        case 'h': return cmd_help("run");
        default: return cmd_bad_option("run", argv, optind, optopt, c);
        }
    }
    return -1;
}

/* The command after the options, and the checks that need all of them: -1 to go on, else the
 * status. */
static int finish_args(struct run *r, int argc, char **argv)
{
    int ret;

    /* Before "no command given": `run -p PID` lacks no command, it wants another command. */
    if (r->po.collect.nr_pids)
        return cmd_usage_error("run", "-p is for 'prospect record' or 'prospect stat'; "
                               "'run' profiles a command or -a");
    if (optind >= argc && !r->po.collect.system_wide)
        return cmd_usage_error("run", "no command given");
    if (optind < argc)
        r->po.collect.argv = argv + optind;
    if ((ret = profile_opts_finish(&r->po, "run")))
        return ret;
    cmd_warn_setid("run", r->po.collect.argv ? r->po.collect.argv[0] : NULL,
                   "it has no samples after that exec");
    return -1;
}

/* One session per event, and the sinks of the first. 0, or 1 with the error told. */
static int open_sessions(struct run *r)
{
    struct run_sessions *rs = r->rs;
    int ret;

    for (rs->n = 0; rs->n < 1 + r->po.collect.nr_more_events; rs->n++) {
        if (session_init(&rs->s[rs->n])) {
            cmd_error("run", "out of memory");
            for (size_t i = 0; i < rs->n; i++)
                session_release(&rs->s[i]);
            return 1;
        }
        rs->s[rs->n].self_pid = getpid();
        rs->s[rs->n].launcher_argv0 = r->po.collect.argv ? r->po.collect.argv[0] : NULL;
    }
    /* Call graphs and off-CPU waits go with the first event's session; user stacks are
     * unwound (--call-graph dwarf) or completed (frameless leaves) by src/unwind/. */
    /* --html without -g: each stack its sampled ip; its timeline reads the samples' order
     * (a sink after the store's). */
    r->seq.cs = &r->chains;
    if ((ret = profile_sinks_wire(&r->sinks, &rs->s[0],
                                  r->po.collect.callchain || r->html ? &r->chains : NULL,
                                  r->po.collect.off_cpu ? &r->offcpu : NULL,
                                  r->po.collect.callchain)) ||
        (r->html && (ret = session_add_sink(&rs->s[0], sample_seq_sink(&r->seq))))) {
        cmd_error("run", "%s", profile_sinks_strerror(ret));
        return 1;
    }
    return 0;
}

/* The raw fields of sched_switch where this kernel puts them (tracefs' format of the event). */
static void load_offcpu_format(struct offcpu *oc)
{
    char *f;
    size_t len;
    const char *note;

    if (!tp_format_load("sched", "sched_switch", &f, &len)) {
        if ((note = offcpu_apply_format(oc, f, len)))
            fprintf(stderr, "prospect run: %s\n", note);
        free(f);
    }
}

/* Exited processes the report will not detail are freed as the run goes (memory of long -a
 * runs); call graphs, off-CPU waits and --annotate read them all. */
static void set_release_limits(struct run *r)
{
    for (size_t i = 0; i < r->rs->n; i++) {
        struct session *s = &r->rs->s[i];
        struct report_opts eo = r->ro;
        profile_opts_report_event(&r->po, i, &eo);
        s->release_exited = !s->nsinks && !r->annotate_top && !r->html;
        s->limits = (struct show_limits){ .min_percent = r->ro.min_percent,
                                          .min_time = r->ro.min_time,
                                          .time_event = eo.time_event };
    }
}

/* Kernel symbols, off-CPU totals and the stacks' symbols, into r->ro. 0, or 1 with the error
 * told. */
static int resolve_symbols(struct run *r)
{
    struct session *session = &r->rs->s[0];
    bool off_cpu = r->po.collect.off_cpu, chains = r->po.collect.callchain || r->html;

    for (size_t i = 1; i < r->rs->n && !session->stats.kernel; i++)
        if (r->rs->s[i].stats.kernel)
            session = &r->rs->s[i];   /* only to see whether kernel symbols are needed */
    if (r->res.kernel_excluded)
        snprintf(r->knote, sizeof(r->knote), "kernel not sampled: kernel.perf_event_paranoid "
                 "only lets this user sample user space (run as root, or 'sysctl "
                 "kernel.perf_event_paranoid=1')");
    else if (load_kernel_symbols(session, off_cpu ? &r->offcpu : NULL, &r->ks, r->knote,
                                 sizeof(r->knote)))
        goto oom;
    if (off_cpu) {
        offcpu_finish(&r->offcpu);
        r->ot = (struct offcpu_totals){ r->offcpu.ns, r->offcpu.waits, r->offcpu.preempted,
                                        r->offcpu.unended, r->offcpu.preempted_ns };
        r->ro.offcpu = &r->offcpu.stacks;
        r->ro.offcpu_syms = &r->offcpu_syms;
        r->ro.offcpu_totals = &r->ot;
    }
    if ((chains && cg_resolve(&r->chains, r->ks, &r->chain_syms)) ||
        (off_cpu && cg_resolve(&r->offcpu.stacks, r->ks, &r->offcpu_syms)))
        goto oom;
    if (r->po.collect.callchain) {
        r->ro.chains = &r->chains;
        r->ro.chain_syms = &r->chain_syms;
    }
    return 0;
oom:
    cmd_error("run", "out of memory");
    return 1;
}

/* What the report's header says of the run: command, outcome, duration, notes. */
static void describe_run(struct run *r)
{
    struct report_opts *ro = &r->ro;

    r->command = r->po.collect.argv ? join_argv(r->po.collect.argv) : NULL;
    describe_outcome(&r->res, r->outcome, sizeof(r->outcome));
    profile_opts_report(&r->po, ro);
    r->event0 = ro->event;
    ro->command = r->command;
    ro->duration = (double)(r->res.end_ns - r->res.start_ns) / 1e9;
    ro->nr_cpus = r->res.nr_cpus;
    ro->outcome = r->outcome;
    ro->kernel_note = r->knote[0] ? r->knote : NULL;
    ro->lost_extra = r->res.bad_records;
    if (r->res.proc_unreadable)
        snprintf(r->pnote, sizeof(r->pnote), "%llu /proc entries unreadable (e.g. pid %d): "
                 "their samples show as ':PID'", (unsigned long long)r->res.proc_unreadable,
                 (int)r->res.proc_first_unreadable);
    ro->proc_note = r->pnote[0] ? r->pnote : NULL;
}

/* The Prospect report of each event (and --annotate's routines): 0 or the write's -errno. */
static int write_reports(struct run *r)
{
    struct run_sessions *rs = r->rs;
    int ret = 0;

    for (size_t i = 0; i < rs->n && (!ret || i == 0); i++) {
        /* -e a,b: one report per event, each headed by its own statistics. */
        if (rs->n > 1) {
            profile_opts_report_event(&r->po, i, &r->ro);
            fprintf(r->out, "%s==== event %zu of %zu: %s ====\n", i ? "\n" : "", i + 1, rs->n,
                    r->ro.event);
        }
        ret = report_prospect(r->out, &rs->s[i], r->ks, &r->ro);
        if (!ret && r->annotate_top) {
            struct ann_top_opts ao = { .top = r->annotate_top, .wide = r->ro.wide,
                                       .title = r->command, .event = r->ro.event, .ks = r->ks };
            ret = ann_write_top(r->out, &rs->s[i], &ao);
        }
        r->ro.offcpu = NULL;      /* once, after the first event's report */
    }
    return ret;
}

/* The report after the command: its symbols, the reports, -o committed, the rest of the
 * command waited for. Returns the exit status. */
static int report_run(struct run *r)
{
    int ret, status;

    profile_sinks_done(&r->sinks);      /* the samples are in: not held through the report */
    if (resolve_symbols(r))
        return 1;
    describe_run(r);
    ret = write_reports(r);
    if (!ret && r->html) {
        struct html_source_req src = { .session = &r->rs->s[0], .ks = r->ks,
                                       .top = r->source_top };
        r->html_failed = write_html(&r->hof, &r->chains, &r->chain_syms, &r->ro, r->event0,
                                    &r->res, &src, &r->seq) != 0;
        r->html = NULL;           /* committed or aborted */
    }
    /* A write error (-EIO) of -o is told, with its errno, by outfile_commit. */
    r->reported = !ret || ret == -EIO;
    if (ret && (r->out == stderr || ret != -EIO))
        cmd_error("run", "writing the report: %s", strerror(-ret));
    if (end_output(&r->of, &r->out, r->reported, r->output))
        ret = -EIO;
    if (r->res.running)
        wait_for_rest(&r->res, r->po.collect.duration, r->out);
    status = collect_exit_status(&r->res);
    return (ret || r->html_failed) && status == 0 ? 1 : status;
}

static void release_run(struct run *r)
{
    free(r->command);
    ksyms_free(r->ks);
    collect_release(&r->res);
    for (size_t i = 0; i < r->rs->n; i++)
        session_release(&r->rs->s[i]);
    cg_syms_release(&r->chain_syms);
    cg_syms_release(&r->offcpu_syms);
    profile_sinks_release(&r->sinks);
    cg_store_release(&r->chains);
    sample_seq_release(&r->seq);
    offcpu_release(&r->offcpu);
}

int cmd_run(int argc, char **argv)
{
    static struct run_sessions rs;
    static struct run r;
    struct collect_outlets outlets = { .ordered = run_record, .ordered_arg = &rs,
                                       .launched = on_launched };
    char err[512];
    int ret, status;

    r = (struct run){ .ro = { .top = 25, .min_percent = 0.5 }, .rs = &rs, .out = stderr,
                      .source_top = 50 };
    cg_store_init(&r.chains);
    offcpu_init(&r.offcpu, NULL);
    profile_opts_init(&r.po);
    if ((status = parse_args(&r, argc, argv)) >= 0 ||
        (status = finish_args(&r, argc, argv)) >= 0)
        return status;
    if (r.output) {
        /* Opened now so a bad path fails before the command runs; a previous file is
         * replaced only by a complete report. */
        if ((ret = outfile_open(&r.of, r.output, 0666))) {
            cmd_error("run", "cannot write %s: %s", r.output, outfile_strerror(ret));
            return 1;
        }
        r.out = r.of.fp;
    }
    if (r.html && (ret = outfile_open(&r.hof, r.html, 0666))) {    /* as -o: before the run */
        cmd_error("run", "cannot write %s: %s", r.html, outfile_strerror(ret));
        if (r.output)
            outfile_abort(&r.of);
        return 1;
    }
    if (open_sessions(&r))
        return 1;
    if (r.po.collect.off_cpu)
        load_offcpu_format(&r.offcpu);
    set_release_limits(&r);
    collect_install_stop_handlers();
    r.po.collect.return_at_duration = true;
    ret = collect_run(&r.po.collect, &outlets, &r.res, err, sizeof(err));
    status = profile_opts_collected(&r.po, "run", ret, &r.res, err,
                                    "the report covers what was collected", "profiling");
    if (status < 0)
        status = report_run(&r);
    if (end_output(&r.of, &r.out, r.reported, r.output) && status == 0)
        status = 1;
    if (r.html)                   /* not written: the previous file stays */
        outfile_abort(&r.hof);
    if (r.res.running)   /* a failure after collecting: still never leave the command behind */
        wait_for_rest(&r.res, r.po.collect.duration, r.out);
    release_run(&r);
    /* Ctrl-C: after the report, die of the same signal so callers (shells, make) see it. */
    if (r.res.stop_signal == SIGINT && r.res.child && WIFSIGNALED(r.res.child_status) &&
        WTERMSIG(r.res.child_status) == SIGINT) {
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
    }
    return status;
}
