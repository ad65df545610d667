/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "script"
/* prospect script: every sample of a perf.data file, one line each, as perf script prints
 * them (src/script/). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/inputs.h"
#include "cmd/options.h"
#include "perf/perfdata.h"
#include "report/file_header.h"
#include "script/script.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "util/cpulist.h"
#include "util/log.h"

enum { OPT_TIME = 256, OPT_PID, OPT_TID, OPT_COMM, OPT_CPU, OPT_HEADER, OPT_NS, OPT_SYMFS,
       OPT_KALLSYMS };

static const struct optdecl script_opts[] = {
    OPTD_INPUT("the file to read (default: perf.data; '-' is stdin, e.g. the pipe of\n"
               "'perf record -o -'); several -i, or a quoted glob ('perf.data.*':\n"
               "the parts of record --switch-output), are read one after the other"),
    { 'F', "fields", "LIST",
        "the fields of each line, as perf names them: comm,tid,pid,cpu,time,\n"
        "period,event,trace,ip,sym,symoff,dso,srcline (perf's order whatever\n"
        "the list's); +LIST adds to the defaults, -LIST removes from them", 0, NULL, 0 },
    { OPT_TIME, "time", "RANGES",
        "only samples in these times: START,STOP in seconds (either may be\n"
        "empty; several ranges separated by spaces), P%/N (the N-th slice of\n"
        "P%), A%-B%,C%-D% (percent of the recording)", 0, NULL, 0 },
    { OPT_PID, "pid", "PIDS", "only samples of these processes (comma-separated)",
        OPTD_COMPLETE_PID, NULL, 0 },
    { OPT_TID, "tid", "TIDS", "only samples of these threads (comma-separated)",
        OPTD_COMPLETE_PID, NULL, 0 },
    { OPT_COMM, "comm", "NAMES", "only samples of threads with these names (comma-separated)",
        0, NULL, 0 },
    { OPT_CPU, "cpu", "CPUS", "only samples taken on these CPUs (e.g. 0-2,4)", 0, NULL, 0 },
    { OPT_HEADER, "header", NULL,
        "what the file says about itself first, as '# ' lines", 0, NULL, 0 },
    { OPT_NS, "ns", NULL, "times to the nanosecond", 0, NULL, 0 },
    { OPT_SYMFS, "symfs", "DIR",
        "read every file at DIR/<its path> (another system's files)", OPTD_COMPLETE_DIR, NULL, 0 },
    { OPT_KALLSYMS, "kallsyms", "FILE",
        "kernel symbols from FILE (kallsyms format)", OPTD_COMPLETE_FILE, NULL, 0 },
    { 'v', "verbose", NULL, "more diagnostics (repeat for more)", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_script_decl = {
    .name = "script",
    .synopsis = "[-i FILE] [options]",
    .intro =
"\n"
"Prints every sample of a perf.data file (written by 'prospect record' or 'perf record'),\n"
"one line each in perf script's layout, with its call chain below it for -g and dwarf\n"
"files: what FlameGraph's stackcollapse-perf.pl, speedscope and the Firefox Profiler read.\n"
"\n",
    .outro =
"\n"
"Examples:\n"
"  prospect script -i perf.data\n"
"  prospect script -i perf.data -F comm,tid,time,event,ip,sym --time 10%/2\n"
"  prospect script -i perf.data | stackcollapse-perf.pl | flamegraph.pl > flame.svg\n",
    .opts = script_opts,
    .flags = 0,
};

struct script_cmd {
    const char *input, *symfs;
    bool header;
    const char *time;
    struct script_opts so;
    struct cmd_inputs inputs;     /* every -i */
};

static int parse_args(int argc, char **argv, struct script_cmd *c)
{
    char why[256];
    int k;

    c->input = "perf.data";
    opterr = 0;
    optind = 1;
    while ((k = cmd_getopt(&cmd_script_decl, argc, argv)) != -1) {
        switch (k) {
        case 'i':
            if (cmd_inputs_add(&c->inputs, "script", optarg))
                return EXIT_USAGE;
            c->input = cmd_inputs_first(&c->inputs, "perf.data");
            break;
        case 'F':
            if (script_fields_parse(optarg, &c->so.fields, why, sizeof(why)))
                return cmd_usage_error("script", "%s", why);
            break;
        case OPT_TIME:
            if (timerange_parse(optarg, &c->so.time, why, sizeof(why)))
                return cmd_usage_error("script", "--time: %s", why);
            c->time = optarg;
            break;
        case OPT_PID: c->so.pids = optarg; break;
        case OPT_TID: c->so.tids = optarg; break;
        case OPT_COMM: c->so.comms = optarg; break;
        case OPT_CPU:
            if (cpulist_parse(optarg, &c->so.cpus))
                return cmd_usage_error("script", "invalid --cpu '%s'", optarg);
            c->so.cpu_filter = true;
            break;
        case OPT_HEADER: c->header = true; break;
        case OPT_NS: c->so.ns = true; break;
        case OPT_SYMFS: c->symfs = optarg; break;
        case OPT_KALLSYMS: c->so.kallsyms = optarg; break;
        case 'v': log_verbosity++; break;
        case 'h': return -1;
        default: return cmd_bad_option("script", argv, optind, optopt, k);
        }
    }
    if (optind < argc)
        return cmd_usage_error("script", "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* Prospect's file header (report --header) as comment lines: consumers skip them. */
static void print_header(const struct perfdata *pd)
{
    char *text = NULL, *line, *save = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);

    if (!m)
        return;
    report_file_header(m, pd, REPORT_TEXT);
    fclose(m);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        printf("# %s\n", line);
    printf("#\n");
    free(text);
}

/* A damaged data section is read up to the damage: say where, and what was skipped. */
static void report_damage(const struct perfdata *pd)
{
    const struct perfdata_stats *st = perfdata_stats(pd);
    char line[1024];

    if (st->truncated) {
        perfdata_error_str(&st->damage, line, sizeof(line));
        cmd_error("script", "%s; stopped there: %llu bytes not read", line,
                  (unsigned long long)st->bytes_unread);
    }
    if (st->bad) {
        perfdata_error_str(&st->first_bad, line, sizeof(line));
        cmd_error("script", "%s (%llu records that did not decode skipped)", line,
                  (unsigned long long)st->bad);
    }
}

struct feed {
    struct session *s;
    struct script *sc;
};

static int feed_record(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                       uint64_t time)
{
    struct feed *f = arg;
    int err = script_record(f->sc, h);

    return err ? err : session_record(f->s, evl, h, time);
}

/* Percent ranges are of the recording's first to last sample (perf: HEADER_SAMPLE_TIME). */
static int place_time(struct script_cmd *c, const struct perfdata *pd)
{
    const struct perfdata_info *in = perfdata_info(pd);

    if (!c->so.time.percent)
        return 0;
    if (!in->has_sample_time ||
        timerange_place(&c->so.time, in->first_sample_time, in->last_sample_time)) {
        cmd_error("script", "%s: --time %s: the file does not say when its first and last "
                  "samples were (no sample_time feature, e.g. a pipe): give seconds",
                  c->input, c->time);
        return -1;
    }
    return 0;
}

static int run(struct script_cmd *c, struct perfdata *pd)
{
    struct session s;
    struct script *sc = NULL;
    struct perfdata_error err;
    char why[512];
    int ret = 1, e;

    if (place_time(c, pd))
        return 1;
    if (session_init(&s)) {
        cmd_error("script", "out of memory");
        return 1;
    }
    s.stacks_only = true;         /* every sample is printed, none kept */
    if ((c->symfs && dso_cache_set_symfs(s.dsos, c->symfs)) ||
        session_add_build_ids(&s, perfdata_info(pd))) {
        cmd_error("script", "out of memory");
        goto out;
    }
    if ((e = script_new(&c->so, &s, perfdata_evlist(pd), perfdata_info(pd), stdout, &sc, why,
                        sizeof(why)))) {
        cmd_error("script", "%s: %s", c->input, why);
        goto out;
    }
    session_add_sink(&s, script_sink(sc));
    if (c->header)
        print_header(pd);
    struct feed f = { &s, sc };
    if ((e = perfdata_process(pd, feed_record, &f, 0, &err))) {
        perfdata_error_str(&err, why, sizeof(why));
        cmd_error("script", "%s", e == -ENOMEM ? "out of memory" : why);
        goto out;
    }
    report_damage(pd);
    ret = 0;
out:
    if (sc && script_kernel_note(sc)[0])
        cmd_error("script", "note: %s", script_kernel_note(sc));
    if (script_free(sc) && !ret) {
        cmd_error("script", "writing the output: %s", strerror(cmd_stream_errno(stdout) ?: EIO));
        ret = 1;
    }
    session_release(&s);
    return ret;
}

int cmd_script(int argc, char **argv)
{
    struct script_cmd c = { 0 };
    struct perfdata *pd;
    struct perfdata_error err;
    char line[1024];
    int ret = parse_args(argc, argv, &c);

    if (ret) {
        cmd_inputs_release(&c.inputs);
        return ret < 0 ? cmd_help("script") : ret;
    }
    if (cmd_inputs_open(&c.inputs, c.input, &pd, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("script", "%s", line);
        cmd_inputs_release(&c.inputs);
        return 1;
    }
    ret = run(&c, pd);
    perfdata_close(pd);
    cmd_inputs_release(&c.inputs);
    return ret;
}
