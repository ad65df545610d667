/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "report"
/* prospect report: read a perf.data file and print what is in it. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/inputs.h"
#include "cmd/options.h"
#include "cmd/report_stacks.h"
#include "cmd/sinks.h"
#include <sys/utsname.h>
#include "annotate/srcline_report.h"
#include "callgraph/inline.h"
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "offcpu/offcpu.h"
#include "offcpu/wall.h"
#include "perf/perfdata.h"
#include "perf/perfdata_write.h"
#include "report/callgraph_out.h"
#include "report/file_header.h"
#include "report/flat.h"
#include "report/format.h"
#include "report/prospect_export.h"
#include "report/prospect_report.h"
#include "report/thread_tally.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"
#include "symbol/ksyms_cache.h"
#include "unwind/unwind.h"
#include "util/log.h"
#include "util/timerange.h"
#include "util/strutil.h"

enum { OPT_HEADER = 256, OPT_STATS, OPT_FORMAT, OPT_FLAT, OPT_LIMIT, OPT_NO_BRACKET,
       OPT_PID, OPT_TID, OPT_COMM, OPT_CPU, OPT_DSO, OPT_TOP, OPT_MIN_PERCENT,
       OPT_PERCENTAGE, OPT_STDIO, OPT_WIDE, OPT_SYMFS, OPT_KALLSYMS, OPT_CHILDREN, OPT_CALLERS,
       OPT_CALLEES, OPT_NO_CHILDREN, OPT_TIME, OPT_TITLE, OPT_OFF_CPU, OPT_MAX_STACK, OPT_INLINE,
       OPT_HTML_SOURCE_TOP, OPT_WALL, OPT_IGNORE_CALLEES, OPT_HIERARCHY };


static const struct optdecl report_opts[] = {
    { 'i', "input", "FILE",
        "the file to read (default: perf.data; '-' is stdin, e.g. the pipe\n"
        "of 'perf record -o -'); 'perf record -z' files are read too;\n"
        "several -i, or a quoted glob ('perf.data.*': the parts of record\n"
        "--switch-output), are reported as one", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_FLAT, "flat", NULL,
        "perf's table: Overhead / Command / Shared Object / Symbol;\n"
        "--sort, -n, --percentage, --percent-limit, -t and --dso are its\n"
        "options and imply it (as perf's --sort)", 0, NULL, 0 },
    { 's', "sort", "KEYS",
        "keys of the flat table, any of comm,pid,dso,sym in any order\n"
        "(default comm,dso,sym); pid is per process. tid alone: per\n"
        "thread, tid:comm (what perf's own pid key shows); srcline alone:\n"
        "per source file:line, from DWARF (docs/annotate.md). --children:\n"
        "comm,dso,sym, pid,dso,sym (per process, perf's Pid:Command),\n"
        "tid,dso,sym (per thread: perf's own pid key), dso,sym or sym;\n"
        "comm, pid or tid without dso and sym: a row per key, as perf's;\n"
        "parent (first or last key: perf's parent, -p's regex, by default\n"
        "^sys_|^do_page_fault) makes --children", 0, NULL, 0 },
    { 'n', "show-nr-samples", NULL,
        "a Samples column", 0, NULL, 0 },
    { OPT_PERCENTAGE, "percentage", "M",
        "absolute (default): % of every sample's period, filters hide\n"
        "rows; relative: % of what the filters left", 0, NULL, 0 },
    { OPT_LIMIT, "percent-limit", "P",
        "hide flat rows below P percent", 0, NULL, 0 },
    { 't', "field-separator", "S",
        "--flat text: fields joined by S, unpadded (as perf -t)", 0, NULL, 0 },
    { OPT_NO_BRACKET, "no-bracket", NULL,
        "show stripped-library hits as raw addresses (as perf does)\n"
        "instead of Prospect's a->b brackets, in the flat table (alone,\n"
        "it implies --flat) and in every call-graph report", 0, NULL, 0 },
    { OPT_SYMFS, "symfs", "DIR",
        "read every file at DIR/<its path> (another system's files)", OPTD_COMPLETE_DIR, NULL, 0 },
    { OPT_KALLSYMS, "kallsyms", "FILE",
        "kernel symbols from FILE (kallsyms format), not from the\n"
        "file's kernel build-id cache or /proc/kallsyms", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_PID, "pid", "PID",
        "only samples of this process", OPTD_COMPLETE_PID, NULL, 0 },
    { OPT_TID, "tid", "TID",
        "only samples of this thread", OPTD_COMPLETE_PID, NULL, 0 },
    { OPT_COMM, "comm", "NAME",
        "only samples of processes with this command name", 0, NULL, 0 },
    { OPT_CPU, "cpu", "N",
        "only samples taken on this CPU", 0, NULL, 0 },
    { OPT_DSO, "dso", "NAME",
        "only rows of this shared object (name or path)", 0, NULL, 0 },
    { OPT_TIME, "time", "RANGES",
        "only samples in these time ranges, as perf's --time: START,STOP\n"
        "in seconds (either may be empty; several: space-separated), P%/N\n"
        "(the N-th P% slice of the recording), A%-B%; comma-separated", 0, NULL, 0 },
    { 'e', "event", "NAME",
        "the event whose samples to report, for files with several\n"
        "(default: the first)", OPTD_COMPLETE_EVENT, NULL, 0 },
    { OPT_HEADER, "header", NULL,
        "what the file says about itself: host, kernel, cmdline, events,\n"
        "samples, lost, build ids, features", 0, NULL, 0 },
    { OPT_STATS, "stats", NULL,
        "the number of records of each type", 0, NULL, 0 },
    { OPT_FORMAT, "format", "FMT",
        "text (default), csv or json (every table, --children too); the\n"
        "call stacks:\n"
        "folded: FlameGraph's collapsed stacks, 'comm;outer;...;leaf COUNT'\n"
        "svg: interactive flame graph (click to zoom, search, hover)\n"
        "pprof: gzipped profile.proto for go tool pprof, Pyroscope, Parca\n"
        "speedscope: speedscope's JSON, a sampled profile per process\n"
        "html: one self-contained page: summary, call trees, caller/callee,\n"
        "flame graph (docs/html.md)", OPTD_COMPLETE_CHOICE,
        "text csv json folded svg pprof speedscope html", 0 },
    { 'o', "output", "FILE",
        "write the folded, svg, pprof, speedscope or html output to FILE (- is\n"
        "standard output; a symlink is refused; replaced whole or not at all)", OPTD_COMPLETE_FILE, NULL, 0 },
    { 'G', "inverted", NULL,
        "--children/--no-children: chains in caller order (as -g caller);\n"
        "svg: an icicle graph of inverted stacks, hot functions on top and\n"
        "their callers below (perf's --inverted: callers of the leaf)", 0, NULL, 0 },
    { OPT_TITLE, "title", "TEXT",
        "svg, html: the graph's or page's title", 0, NULL, 0 },
    OPTD_HTML_SOURCE_TOP(OPT_HTML_SOURCE_TOP),
    { OPT_CHILDREN, "children", NULL,
        "perf's Children/Self table from the call chains (-g files), each\n"
        "row's call chains below it as perf prints them (-g, -G):\n"
        "-n and --percent-limit apply; --sort comm,dso,sym (default),\n"
        "dso,sym or sym", 0, NULL, 0 },
    { OPT_NO_CHILDREN, "no-children", NULL,
        "perf's --no-children table from the call chains: Overhead (the\n"
        "sampled function's share), each row's chains below it (callee\n"
        "order); options as --children", 0, NULL, 0 },
    { 'g', "call-graph", "PARAMS",
        "the chains below --children/--no-children rows, as perf's -g:\n"
        "MODE[,THRESHOLD][,ORDER], MODE graph (default: % of the whole),\n"
        "fractal (% of the parent), flat, folded or none; THRESHOLD in %\n"
        "(default 0.5, or --percent-limit); ORDER caller (--children's\n"
        "default) or callee (--no-children's)", 0, NULL, 0 },
    { 'S', "symbols", "NAMES",
        "--children/--no-children: only the rows of these functions\n"
        "(comma-separated names); shares stay of every sample", 0, NULL, 0 },
    { 'p', "parent", "REGEX",
        "--children/--no-children: rows per parent too, the first function\n"
        "matching REGEX in the chain (perf's walk), else [other], shown in\n"
        "a Parent symbol column", 0, NULL, 0 },
    { OPT_HIERARCHY, "hierarchy", NULL,
        "perf's --hierarchy: each --sort key a level of an indented tree\n"
        "(default comm, dso, sym), each level's Overhead; the call chains\n"
        "below the last level's rows (-g; caller order, callee with\n"
        "--no-children); as perf's, no Children column", 0, NULL, 0 },
    { OPT_IGNORE_CALLEES, "ignore-callees", "REGEX",
        "--children/--no-children: a function matching REGEX (POSIX\n"
        "extended) is the end of its chains and the sampled function, its\n"
        "callees dropped, as perf's", 0, NULL, 0 },
    { OPT_CALLERS, "callers", "NAME",
        "the tree of who calls function NAME (from -g files)", 0, NULL, 0 },
    { OPT_CALLEES, "callees", "NAME",
        "the tree of what function NAME spends its time in", 0, NULL, 0 },
    { OPT_MAX_STACK, "max-stack", "N",
        "call-graph reports: at most N frames of each stack, as perf's\n"
        "(--children and trees: the sampled function and the N outermost\n"
        "frames; folded: the N innermost, as perf script)", 0, NULL, 0 },
    { OPT_INLINE, "inline", NULL,
        "call-graph reports: frames inside inlined functions (DWARF) become\n"
        "the chain of them, marked \"(inlined)\", as perf's --inline", 0, NULL, 0 },
    { OPT_OFF_CPU, "off-cpu", NULL,
        "these call-graph reports of the off-CPU waits of a file recorded\n"
        "with --off-cpu (or perf's sched:sched_switch -g): weights are ns\n"
        "off CPU (folded: ns); alone, --children of them (the Prospect\n"
        "report has its Off-CPU Time section by itself)", 0, NULL, 0 },
    { OPT_WALL, "wall", NULL,
        "these call-graph reports of wall-clock time, of a file recorded with\n"
        "--off-cpu and a clock event: on-CPU samples (ns of cpu-clock) and\n"
        "off-CPU time in one graph, each wait below an [off-cpu] frame, the\n"
        "time a preempted thread waited to run below [runnable]; weights are\n"
        "ns; alone, --children of them", 0, NULL, 0 },
    { OPT_TOP, "top", "N",
        "routines shown per profile (default 25, 0 for all)", 0, NULL, 0 },
    { OPT_MIN_PERCENT, "min-percent", "P",
        "detail only processes with at least P% of the events (default 0.5)", 0, NULL, 0 },
    { OPT_WIDE, "wide", NULL,
        "full names; by default text lines fit 100 columns (long names\n"
        "elided in the middle; CSV and JSON always have them whole)", 0, NULL, 0 },
    { OPT_STDIO, "stdio", NULL,
        "accepted for perf users: the output is always text on stdout", 0, NULL, 0 },
    { 'v', "verbose", NULL, "more diagnostics (repeat for more); implies --wide", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_report_decl = {
    .name = "report",
    .synopsis = "[-i FILE] [options]",
    .intro =
"\n"
"Reads a perf.data file (written by 'prospect record' or 'perf record') and prints the\n"
"Prospect report (as 'prospect run' does), or perf's flat table with --flat.\n"
"\n",
    .outro =
"\n"
"Examples:\n"
"  prospect report -i perf.data\n"
"  prospect report -i perf.data --flat --sort dso,sym --percent-limit 0.5 --comm myprog\n"
"  prospect report -i perf.data --flat --format csv > profile.csv\n"
"  prospect report -i perf.data --format svg -o flame.svg\n"
"  prospect report -i perf.data --format html -o profile.html\n"
"  prospect report -i perf.data --format pprof -o prof.pb.gz && go tool pprof -top prof.pb.gz\n",
    .opts = report_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

struct report_cmd_opts {
    const char *input;            /* the first input, for messages */
    struct cmd_inputs inputs;     /* every -i */
    bool header, stats, flat, wide;
    bool srcline;                 /* --sort srcline: the table by source line (annotate/) */
    bool children, folded, sort_given;    /* call-graph reports (src/callgraph/) */
    bool no_children;             /* --no-children (children is set too) */
    struct chain_params chains;   /* -g: the chains under --children rows */
    bool chains_given, limit_given;
    const char *symbols;          /* -S */
    const char *ignore_callees;   /* --ignore-callees REGEX */
    const char *parent;           /* -p/--parent REGEX */
    int sort_parent;              /* --sort's parent key: 0 none, 1 first, 2 last */
    bool sort_tid;                /* --sort tid beside other keys (kept as FLAT_PID's place):
                                     --children's rows per thread */
    bool hierarchy;               /* --hierarchy */
    const char *time;             /* --time, parsed once the file's sample times are known */
    const char *callers, *callees;
    enum stacks_format stacks;    /* --format folded/svg/pprof/speedscope/html (folded is set) */
    const char *output, *title;   /* -o, --title */
    unsigned source_top;          /* --html-source-top */
    bool inverted;
    bool off_cpu;                 /* call-graph reports of the off-CPU waits (src/offcpu/) */
    bool wall;                    /* ... of on-CPU samples and off-CPU time (offcpu/wall.h) */
    uint32_t max_stack;           /* --max-stack: 0 none */
    bool inline_frames;           /* --inline: expand inlined functions (callgraph/inline.h) */
    const char *report_only;      /* an option of the Prospect report given, for --flat */
    enum report_format fmt;
    struct flat_opts flat_opts;
    struct session_filter filter;
    const char *event;
    const char *symfs, *kallsyms;
    unsigned top;
    double min_percent;
};

/* Damage past the header is not fatal: say what was read and what was not, on stderr. */
static void print_warnings(const struct perfdata *pd, const char *path)
{
    const struct perfdata_stats *st = perfdata_stats(pd);
    const struct perfdata_info *in = perfdata_info(pd);
    char line[1024];

    if (st->data_size_missing)
        cmd_error("report", "%s: warning: the recording did not finish (the header has no data "
                  "size or no feature sections): read the records up to the end of the file",
                  path);
    if (st->truncated) {
        perfdata_error_str(&st->damage, line, sizeof(line));
        cmd_error("report", "%s; stopped there: %" PRIu64 " records read, %" PRIu64
                  " bytes not read", line, st->nr_records, st->bytes_unread);
    }
    if (st->bad) {
        perfdata_error_str(&st->first_bad, line, sizeof(line));
        cmd_error("report", "%s (%" PRIu64 " record%s that did not decode skipped)", line,
                  st->bad, st->bad == 1 ? "" : "s");
    }
    if (st->unknown)
        cmd_error("report", "warning: %" PRIu64 " records of unknown type skipped (a newer perf?)",
                  st->unknown);
    if (in->nr_bad_feats) {
        perfdata_error_str(&in->bad_feat, line, sizeof(line));
        cmd_error("report", "warning: %s%s", line,
                  in->nr_bad_feats > 1 ? " (and more damaged feature sections)" : "");
    }
    if (in->nr_unknown_feats) {
        char bits[256];
        size_t n = 0;
        for (size_t i = 0; i < in->nr_unknown_feats && n < sizeof(bits); i++)
            n += (size_t)snprintf(bits + n, sizeof(bits) - n, "%s%u", i ? ", " : "",
                                  in->unknown_feats[i]);
        cmd_error("report", "note: the file has feature sections from a newer perf (bits %s); "
                  "they were ignored", bits);
    }
}

/* --symfs DIR must be a directory, --kallsyms FILE a regular file: 0, or the usage error. */
static int check_path(const char *opt, const char *path, mode_t type)
{
    struct stat st;

    if (stat(path, &st))
        return cmd_usage_error("report", "--%s %s: %s", opt, path, strerror(errno));
    if ((st.st_mode & S_IFMT) != type)
        return cmd_usage_error("report", "--%s %s: %s", opt, path,
                               type == S_IFDIR ? "not a directory" : "not a regular file");
    return 0;
}

static bool sort_has(const struct flat_opts *fo, enum flat_key key)
{
    for (size_t k = 0; k < fo->nkeys; k++)
        if (fo->keys[k] == key)
            return true;
    return false;
}

/* --children and --format folded take only the options that mean something for them. */
static int check_callgraph_opts(struct report_cmd_opts *o)
{
    const struct flat_opts *fo = &o->flat_opts;
    char fmtname[40];
    snprintf(fmtname, sizeof(fmtname), "--format %s", stacks_format_name(o->stacks));
    const char *what = o->folded ? fmtname : o->children ? "--children" :
                       o->callers ? "--callers" : "--callees";

    if (o->children + o->folded + !!o->callers + !!o->callees > 1)
        return cmd_usage_error("report", "--children, --format folded/svg/pprof/speedscope/html, "
                               "--callers and --callees are separate reports; choose one");
    if (o->report_only || o->header || o->stats || fo->separator || fo->dso || fo->relative ||
        (o->folded && (o->flat || o->sort_given)))
        return cmd_usage_error("report", "%s takes none of --top, --min-percent, --header, "
                               "--stats, -t, --dso, --percentage%s", what,
                               o->folded ? ", --flat, --sort, -n, --percent-limit" : "");
    if (o->srcline)
        return cmd_usage_error("report", "%s is per symbol: --sort srcline is its own table",
                               what);
    if (o->children && (sort_has(fo, FLAT_PID) || sort_has(fo, FLAT_TID)) &&
        sort_has(fo, FLAT_COMM))
        return cmd_usage_error("report", "--children --sort pid or tid: its column is perf's "
                               "Pid:Command (no comm key beside it)");
    if ((o->callers || o->callees) && o->fmt != REPORT_TEXT)
        return cmd_usage_error("report", "%s is text (csv and json are not implemented yet)",
                               what);
    if ((o->callers || o->callees) && (o->flat_opts.show_nr_samples || o->sort_given))
        return cmd_usage_error("report", "%s takes --percent-limit, not -n or --sort", what);
    if ((o->output && !o->folded) || (o->inverted && !o->children && o->stacks != STACKS_SVG) ||
        (o->title && o->stacks != STACKS_SVG && o->stacks != STACKS_HTML))
        return cmd_usage_error("report", "%s is for %s", o->output ? "-o" : o->inverted ?
                               "--inverted" : "--title", o->output ? "--format folded, svg, "
                               "pprof, speedscope or html" : o->inverted ? "--format svg" :
                               "--format svg or html");
    o->flat = false;
    return 0;
}

/* perf's: graph,0.5,caller for --children, callee for --no-children; --percent-limit is the
 * chains' threshold too unless -g gave one; -G makes the order caller's. */
static void chain_defaults(struct report_cmd_opts *o)
{
    if (!o->chains.mode_set)
        o->chains.mode = CHAIN_GRAPH;
    if (!o->chains.min_set)
        o->chains.min_percent = o->limit_given ? o->flat_opts.percent_limit : 0.5;
    if (!o->chains.order_set)
        o->chains.callee = o->no_children;
    if (o->inverted)
        o->chains.callee = false;
}

/* Whether s compiles as a POSIX extended regex (perf's regexes: --ignore-callees). */
static bool regex_valid(const char *s)
{
    regex_t re;

    if (regcomp(&re, s, REG_EXTENDED | REG_NOSUB))
        return false;
    regfree(&re);
    return true;
}

/* flat_parse_sort's keys; tid beside others (--children's per-thread rows, which the flat
 * table has not: checked once the report is known) takes pid's place, sort_tid set. */
static int parse_sort_tid(char *keys, struct report_cmd_opts *o, char *why, size_t len)
{
    size_t n = strlen(keys);
    char *at;

    o->sort_tid = false;
    for (at = strstr(keys, "tid"); at; at = strstr(at + 1, "tid"))
        if ((at == keys || at[-1] == ',') && (at[3] == ',' || !at[3]) && n > 3) {
            at[0] = 'p';   /* "tid" -> "pid", in place */
            o->sort_tid = true;
            break;
        }
    return flat_parse_sort(keys, &o->flat_opts, why, len);
}

/* --sort KEYS: flat_parse_sort's keys, and perf's parent key (the chains' parent, a table from
 * call chains) as the first or last one. An empty rest (parent alone) is no other key. */
static int parse_sort(const char *keys, struct report_cmd_opts *o, char *why, size_t len)
{
    char rest[256];
    size_t n = strlen(keys);

    o->sort_parent = 0;
    if (n >= sizeof(rest))
        return snprintf(why, len, "--sort: too long"), -EINVAL;
    if (!strcmp(keys, "parent"))
        o->sort_parent = 1;
    else if (!strncmp(keys, "parent,", 7))
        o->sort_parent = 1, keys += 7, n -= 7;
    else if (n > 7 && !strcmp(keys + n - 7, ",parent"))
        o->sort_parent = 2, n -= 7;
    else if (strstr(keys, ",parent,"))
        return snprintf(why, len, "--sort: parent is the first or the last key"), -EINVAL;
    snprintf(rest, sizeof(rest), "%.*s", (int)n, keys);
    if (o->sort_parent == 1 && !strcmp(keys, "parent")) {
        o->flat_opts.nkeys = 0;
        return 0;
    }
    return parse_sort_tid(rest, o, why, len);
}

static int parse_args(int argc, char **argv, struct report_cmd_opts *o)
{
    char why[160];
    uint64_t v;
    double d;
    int c;

    o->input = "perf.data";
    o->filter.pid = o->filter.tid = -1;
    o->filter.cpu = -1;
    o->top = 25;
    o->source_top = 50;
    o->min_percent = 0.5;
    flat_parse_sort("comm,dso,sym", &o->flat_opts, why, sizeof(why));
    opterr = 0;
    optind = 1;
    while ((c = cmd_getopt(&cmd_report_decl, argc, argv)) != -1) {
        switch (c) {
        case 'i':
            if (cmd_inputs_add(&o->inputs, "report", optarg))
                return EXIT_USAGE;
            o->input = cmd_inputs_first(&o->inputs, "perf.data");
            break;
        case OPT_FLAT: o->flat = true; break;
        /* The flat table's own options make it, as perf's --sort is its table. */
        case 's':
            o->srcline = !strcmp(optarg, "srcline");
            if (!o->srcline && parse_sort(optarg, o, why, sizeof(why)))
                return cmd_usage_error("report", "%s", why);
            o->flat = o->sort_given = true;
            break;
        case OPT_HIERARCHY: o->hierarchy = true; break;
        case OPT_CHILDREN: o->children = true; break;
        case OPT_NO_CHILDREN: o->children = o->no_children = true; break;
        case 'S': o->symbols = optarg; break;
        case OPT_IGNORE_CALLEES:
            if (!regex_valid(optarg))
                return cmd_usage_error("report", "--ignore-callees: invalid regex '%s'", optarg);
            o->ignore_callees = optarg;
            break;
        case 'p':
            if (!regex_valid(optarg))
                return cmd_usage_error("report", "--parent: invalid regex '%s'", optarg);
            o->parent = optarg;
            break;
        case OPT_TIME: o->time = optarg; break;
        case 'g':
            if (chain_params_parse(optarg, &o->chains, why, sizeof(why)))
                return cmd_usage_error("report", "%s", why);
            o->chains_given = true;
            break;
        case OPT_CALLERS: o->callers = optarg; break;
        case OPT_CALLEES: o->callees = optarg; break;
        case OPT_OFF_CPU: o->off_cpu = true; break;
        case OPT_WALL: o->wall = true; break;
        case OPT_INLINE: o->inline_frames = true; break;
        case OPT_MAX_STACK:
            if (parse_u64(optarg, &v) || v == 0 || v > 65535)
                return cmd_usage_error("report", "invalid --max-stack '%s' (1 to 65535)", optarg);
            o->max_stack = (uint32_t)v;
            break;
        case 'n': o->flat_opts.show_nr_samples = o->flat = true; break;
        case OPT_PERCENTAGE:
            if (strcmp(optarg, "absolute") && strcmp(optarg, "relative"))
                return cmd_usage_error("report", "--percentage must be absolute or relative, "
                                       "not '%s'", optarg);
            o->flat_opts.relative = !strcmp(optarg, "relative");
            o->flat = true;
            break;
        case OPT_LIMIT:
            if (parse_double(optarg, &d) || d > 100)
                return cmd_usage_error("report", "invalid --percent-limit '%s'", optarg);
            o->flat_opts.percent_limit = d;
            o->flat = o->limit_given = true;
            break;
        case OPT_NO_BRACKET: o->flat_opts.no_bracket = true; break;
        case 't':
            if (!*optarg)
                return cmd_usage_error("report", "empty --field-separator");
            o->flat_opts.separator = optarg;
            o->flat = true;
            break;
        case OPT_STDIO: break;
        case OPT_WIDE: o->wide = true; break;
        case OPT_PID:
        case OPT_TID:
            if (parse_u64(optarg, &v) || v == 0 || v > INT32_MAX)
                return cmd_usage_error("report", "invalid --%s '%s'",
                                       c == OPT_PID ? "pid" : "tid", optarg);
            *(c == OPT_PID ? &o->filter.pid : &o->filter.tid) = (pid_t)v;
            break;
        case OPT_CPU:
            if (parse_u64(optarg, &v) || v > 65535)
                return cmd_usage_error("report", "invalid --cpu '%s'", optarg);
            o->filter.cpu = (int)v;
            break;
        case OPT_COMM: o->filter.comm = optarg; break;
        case OPT_DSO: o->flat_opts.dso = optarg; o->flat = true; break;
        case 'e': o->event = optarg; break;
        case OPT_HEADER: o->header = true; break;
        case OPT_STATS: o->stats = true; break;
        case OPT_FORMAT:
            if ((o->stacks = stacks_format_parse(optarg)) != STACKS_NONE) {
                o->folded = true;
                break;
            }
            if (report_format_parse(optarg, &o->fmt))
                return cmd_usage_error("report", "--format must be text, csv, json, folded, "
                                       "svg, pprof, speedscope or html, not '%s'", optarg);
            break;
        case OPT_TOP:
            if (parse_u64(optarg, &v) || v > 1000000)
                return cmd_usage_error("report", "invalid --top '%s'", optarg);
            o->top = (unsigned)v;
            o->report_only = "--top";
            break;
        case OPT_MIN_PERCENT:
            if (parse_double(optarg, &d) || d > 100)
                return cmd_usage_error("report", "invalid --min-percent '%s'", optarg);
            o->min_percent = d;
            o->report_only = "--min-percent";
            break;
        case OPT_SYMFS:
        case OPT_KALLSYMS:
            if (c == OPT_SYMFS ? check_path("symfs", optarg, S_IFDIR)
                               : check_path("kallsyms", optarg, S_IFREG))
                return EXIT_USAGE;
            *(c == OPT_SYMFS ? &o->symfs : &o->kallsyms) = optarg;
            break;
        case 'o':
            if (!*optarg)
                return cmd_usage_error("report", "empty -o");
            o->output = optarg;
            break;
        case 'G': o->inverted = true; break;
        case OPT_TITLE: o->title = optarg; break;
        case OPT_HTML_SOURCE_TOP:
            if (parse_u64(optarg, &v) || v > 1000)
                return cmd_usage_error("report", "invalid --html-source-top '%s' (0 to 1000)",
                                       optarg);
            o->source_top = (unsigned)v;
            break;
        case 'v': log_verbosity++; break;
        case 'h': return -1;
        default: return cmd_bad_option("report", argv, optind, optopt, c);
        }
    }
    if (optind < argc)
        return cmd_usage_error("report", "unexpected argument '%s'", argv[optind]);
    for (size_t k = 0; k < o->flat_opts.nkeys; k++)
        if (o->flat_opts.keys[k] == FLAT_TID && o->flat_opts.dso)
            return cmd_usage_error("report", "--dso selects symbol rows; --sort tid has none");
    if ((o->chains_given || o->inverted) && !(o->children || o->folded || o->callers ||
                                               o->callees))
        o->children = true;   /* perf's -g and -G are for its default report, --children */
    if ((o->parent || o->ignore_callees) && !(o->flat || o->folded || o->callers || o->callees))
        o->children = true;   /* so are perf's --parent and --ignore-callees */
    if (o->sort_parent || o->hierarchy)   /* tables of the chains, --sort or not */
        o->children = true;
    if (o->sort_parent && !o->parent)
        o->parent = "^sys_|^do_page_fault";   /* perf's default parent regex */
    chain_defaults(o);
    /* `report --off-cpu` alone (README's hint): the waits' Children/Self table. */
    if ((o->off_cpu || o->wall) && !(o->children || o->folded || o->callers || o->callees))
        o->children = true;
    /* --no-bracket names frames in every report but the Prospect one: it implies --flat there. */
    if (o->flat_opts.no_bracket && !(o->children || o->folded || o->callers || o->callees))
        o->flat = true;
    if ((o->children || o->folded || o->callers || o->callees) && check_callgraph_opts(o))
        return EXIT_USAGE;
    if ((o->sort_tid || sort_has(&o->flat_opts, FLAT_TID)) && o->children &&
        (o->off_cpu || o->wall))
        return cmd_usage_error("report", "--sort tid: the on-CPU samples' threads (off-CPU "
                               "waits are kept per process: --sort pid)");
    if (o->sort_tid && !o->children)
        return cmd_usage_error("report", "--sort tid stands alone in the flat table (it shows "
                               "tid:comm; symbol hits are kept per process: use pid for those); "
                               "--children takes tid,dso,sym or tid,sym");
    if ((o->chains_given || o->symbols || o->ignore_callees || o->parent) && !o->children)
        return cmd_usage_error("report", "%s is for --children and --no-children",
                               o->chains_given ? "-g" : o->symbols ? "-S" :
                               o->ignore_callees ? "--ignore-callees" : "--parent");
    if (o->hierarchy && (o->fmt != REPORT_TEXT || o->parent || o->symbols))
        return cmd_usage_error("report", "--hierarchy is text, without --parent, the parent "
                               "key or -S");
    if (o->hierarchy && o->chains.mode != CHAIN_NONE && !sort_has(&o->flat_opts, FLAT_SYM))
        return cmd_usage_error("report", "--hierarchy: call chains hang below symbols (add sym "
                               "to --sort, or -g none)");
    if ((o->output || (o->inverted && !o->children) || o->title) && !o->folded)
        return cmd_usage_error("report", "-o, --inverted and --title are for the call-stack "
                               "outputs (--format folded, svg, pprof, speedscope, html)");
    if ((o->max_stack || o->inline_frames) &&
        !(o->children || o->folded || o->callers || o->callees))
        return cmd_usage_error("report", "%s is for --children, --format folded, --callers and "
                               "--callees", o->max_stack ? "--max-stack" : "--inline");
    if (o->off_cpu && o->event)
        return cmd_usage_error("report", "--off-cpu reads the sched:sched_switch event: no -e");
    if (o->off_cpu && o->wall)
        return cmd_usage_error("report", "--wall shows the off-CPU time with the on-CPU "
                               "samples: not with --off-cpu");
    if (o->flat && o->report_only)
        return cmd_usage_error("report", "%s applies to the Prospect report, not to the flat "
                               "table (--flat, or an option of it: --sort, -n, --percentage, "
                               "--percent-limit, -t, --no-bracket, --dso)", o->report_only);
    o->flat_opts.fmt = o->fmt;
    o->flat_opts.wide = o->wide || log_verbosity > 0;
    return 0;
}

/* The file's sched:sched_switch event with call chains (off-CPU waits), or NULL. */
static const struct evsel *switch_evsel(const struct evlist *evl)
{
    for (size_t i = 0; i < evl->nr; i++)
        if (offcpu_is_switch_event(&evl->sel[i]) &&
            (evl->sel[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN))
            return &evl->sel[i];
    return NULL;
}

/* Whether the recording was system-wide (perf's or Prospect's -a, -C): its command line in the
 * header. Then every CPU's sched_switch is in the file and the raw next_pid ends the waits. */
static bool recorded_system_wide(const struct perfdata *pd)
{
    const struct perfdata_info *in = perfdata_info(pd);

    for (size_t i = 1; in && i < in->nr_cmdline; i++) {
        const char *a = in->cmdline[i];
        if (!strcmp(a, "--"))
            break;
        if (!strcmp(a, "--all-cpus") || !strcmp(a, "-C") || !strncmp(a, "--cpu=", 6) ||
            !strcmp(a, "--cpu"))
            return true;
        /* -a alone or among other flag letters (perf's "-ag") */
        if (a[0] == '-' && a[1] && a[1] != '-' && strchr(a + 1, 'a') &&
            strspn(a + 1, "abBdgnNPqRsTvW") == strlen(a + 1))
            return true;
    }
    return false;
}

/* The switch event when the file can end its waits (switch-in records, or a system-wide
 * recording of the tracepoint with its raw next_pid): only then are its samples read as
 * off-CPU time without --off-cpu. A per-process `record -g -e sched:sched_switch` (perf's or
 * Prospect's) has neither: its samples are counted as samples, as perf reports them, not
 * turned into an empty off-CPU profile. */
static const struct evsel *auto_switch_evsel(const struct perfdata *pd)
{
    const struct evlist *evl = perfdata_evlist(pd);
    const struct evsel *sw = switch_evsel(evl);

    if (!sw)
        return NULL;
    for (size_t i = 0; i < evl->nr; i++)
        if (evl->sel[i].attr.context_switch)
            return sw;
    return (sw->attr.sample_type & PERF_SAMPLE_RAW) && recorded_system_wide(pd) ? sw : NULL;
}

/* The event whose samples the reports show: --event NAME, else the first one that can
 * sample (perf's -a adds a "dummy" event that only carries side-band records). */

const struct evsel *pick_evsel(const struct evlist *evl, const char *name)
{
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *e = &evl->sel[i];
        if (name ? !strcmp(e->name, name)
                 : !(e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY))
            return e;
    }
    return name || !evl->nr ? NULL : &evl->sel[0];
}

struct ksyms_job;
static void ksyms_job_start(struct ksyms_job *j);

/* Feeds the session the records of every event but the samples of one only (a table of two
 * events' samples added up would mean nothing). */
struct one_event {
    struct session *s;
    const struct evsel *sel;
    bool others_sample;       /* false when every other event is a dummy: no check needed */
    uint64_t other_samples;
    bool filtered;            /* --pid/--tid/--comm/--cpu: count what the filters drop too */
    int cpu;                  /* --cpu, -1: as in perf, other CPUs leave the total too (the
                                 other filters keep percentages of the whole file) */
    uint64_t all_samples, all_period;
    uint64_t kernel_text;     /* _text when recorded, from the "[kernel.kallsyms]_text" map */
    struct thread_tally *threads;   /* --sort tid: samples the session kept, per thread */
    struct ksyms_job *kjob;   /* started at the first kernel sample, if the report needs it */
    struct cg_store *chains;  /* the session's call-stack sink, or NULL */
    const struct timerange *times;     /* --time, or NULL */
    struct offcpu *offcpu;    /* the session's off-CPU sink, or NULL */
    struct offcpu *waits;     /* html: the waits drawn on the timeline (waits_only), or NULL */
    struct cg_store *wall;    /* --wall: chains and offcpu merged (after the walk), or NULL */
    struct sample_seq *seq;   /* pprof, speedscope: every sample's thread and time, or NULL */
    const struct unwinder *unwind;    /* the sinks' unwinder */
};

/* Kernel samples, or off-CPU waits (their stacks start in the scheduler). */
static bool needs_kernel_symbols(const struct one_event *oe)
{
    return oe->s->stats.kernel || (oe->offcpu && oe->offcpu->opened.nstacks);
}

/* The session decides which samples count (filters, clamped clock periods); the thread tally
 * takes those, with the period the session counted. */
static int session_and_threads(struct one_event *oe, const struct evlist *evl,
                               const struct perf_event_header *h, uint64_t time)
{
    uint64_t samples = oe->s->stats.samples, period = oe->s->stats.period_total;
    struct sample smp;
    int err = thread_tally_record(oe->threads, h);

    if (!err)
        err = session_record(oe->s, evl, h, time);
    if (!err && oe->s->stats.samples > samples && !sample_parse_fixed(oe->sel, h, &smp))
        err = thread_tally_sample(oe->threads, (pid_t)smp.pid, (pid_t)smp.tid,
                                  oe->s->stats.period_total - period);
    return err;
}

/* --wall: the clock event whose samples are the on-CPU side (--event NAME, else the first),
 * the switch event whose samples are the waits, the preemptions' stacks kept too. 0, or the
 * exit status, said. */
static int wall_setup(struct report_cmd_opts *o, const struct perfdata *pd,
                      struct one_event *oe, struct offcpu *oc)
{
    const struct evlist *evl = perfdata_evlist(pd);
    const struct evsel *sw = switch_evsel(evl), *on = NULL;

    for (size_t i = 0; i < evl->nr && !on; i++) {
        const struct evsel *e = &evl->sel[i];
        if (o->event ? !strcmp(e->name, o->event)
                     : e != sw && !(e->attr.type == PERF_TYPE_SOFTWARE &&
                                    e->attr.config == PERF_COUNT_SW_DUMMY))
            on = e;
    }
    if (!sw) {
        cmd_error("report", "%s: no sched:sched_switch event with call chains: --wall needs "
                  "the off-CPU time (record with 'prospect record --off-cpu -g')", o->input);
        return 1;
    }
    if (!on || !wall_clock_event(on)) {
        cmd_error("report", "%s: --wall weighs on-CPU samples in ns: it needs a cpu-clock or "
                  "task-clock event%s%s%s", o->input, on ? " (this file samples '" : "",
                  on ? on->name : "", on ? "')" : "");
        return 1;
    }
    oe->sel = on;
    o->event = on->name;
    offcpu_init(oc, sw);
    oc->keep_runnable = true;
    return 0;
}

static int session_one_event(void *arg, const struct evlist *evl,
                             const struct perf_event_header *h, uint64_t time)
{
    struct one_event *oe = arg;
    /* Outside --time the sample is not in the file for the report (nor in its total). */
    if (h->type == PERF_RECORD_SAMPLE && !timerange_has(oe->times, time))
        return 0;
    if (h->type == PERF_RECORD_SAMPLE && oe->others_sample && evlist_evsel_for(evl, h) != oe->sel &&
        !(oe->offcpu && offcpu_wants(oe->offcpu, evlist_evsel_for(evl, h)))) {
        oe->other_samples++;
        if (!(oe->waits && offcpu_wants(oe->waits, evlist_evsel_for(evl, h))))
            return 0;         /* else the page's timeline takes the wait, the profile not */
    }
    if (h->type == PERF_RECORD_MMAP && (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
        PERF_RECORD_MISC_KERNEL) {
        const struct rec_mmap *m = (const struct rec_mmap *)h;
        const char *name = record_string(h);
        if (name && !strncmp(name, "[kernel.kallsyms]", 17) && m->pid == (uint32_t)-1)
            oe->kernel_text = m->pgoff;
    }
    if (h->type == PERF_RECORD_SAMPLE && oe->filtered) {
        struct sample smp;
        if (sample_parse(oe->sel, h, &smp) == 0 && (oe->cpu < 0 || smp.cpu == (uint32_t)oe->cpu)) {
            oe->all_samples++;
            oe->all_period += smp.period;
        }
    }
    int err = oe->threads ? session_and_threads(oe, evl, h, time)
                          : session_record(oe->s, evl, h, time);
    /* Kernel symbols only for a profile with kernel samples (a user-only report of a small
     * file spent most of its time on kallsyms), read on the other core during the walk. */
    if (oe->kjob && needs_kernel_symbols(oe)) {
        ksyms_job_start(oe->kjob);
        oe->kjob = NULL;
    }
    return err;
}

static char *join_cmdline(const struct perfdata_info *in)
{
    size_t len = 1, n = 0;
    char *s;

    for (size_t i = 0; i < in->nr_cmdline; i++)
        len += strlen(in->cmdline[i]) + 1;
    if (!in->nr_cmdline || !(s = malloc(len)))
        return NULL;
    for (size_t i = 0; i < in->nr_cmdline; i++)
        n += (size_t)snprintf(s + n, len - n, "%s%s", i ? " " : "", in->cmdline[i]);
    return s;
}

static bool cmdline_has(const struct perfdata_info *in, const char *a, const char *b)
{
    for (size_t i = 0; i < in->nr_cmdline; i++)
        if (!strcmp(in->cmdline[i], a) || !strcmp(in->cmdline[i], b))
            return true;
    return false;
}

/* Kernel symbols come from this machine: say so when the file is from another kernel.
 * `given`: the user named the kallsyms file (--kallsyms), only its placement is checked. */
static void kernel_note(const struct perfdata_info *in, const struct ksyms *ks,
                        uint64_t rec_text, bool given, char *note, size_t len)
{
    struct utsname u;
    uint8_t id[BUILD_ID_MAX];
    size_t idlen = sizeof(id);
    uint64_t text;

    if (given)
        goto placement;
    if (uname(&u) == 0 && in->osrelease && strcmp(u.release, in->osrelease)) {
        snprintf(note, len, "recorded on kernel %s, symbols from this kernel (%s) may be wrong",
                 in->osrelease, u.release);
        return;
    }
    if (perfdata_kernel_build_id("/sys/kernel/notes", id, &idlen))
        return;
    for (size_t i = 0; i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *b = &in->build_ids[i];
        if (strcmp(b->path, "[kernel.kallsyms]"))
            continue;
        if (b->size != idlen || memcmp(b->id, id, idlen)) {
            snprintf(note, len, "the file's kernel build id differs from the running kernel's: "
                     "kernel symbols may be wrong");
            return;
        }
        break;
    }
placement:
    /* Same kernel, another boot: KASLR may have moved it (the file's kernel map says where
     * _text was when it was recorded; the loaded kallsyms say where it is). */
    text = rec_text ? ksyms_lookup(ks, "_text") : 0;
    if (text && text != rec_text)
        snprintf(note, len, "the kernel was at %#llx when recorded and is at %#llx now (another "
                 "boot): kernel symbols are wrong", (unsigned long long)rec_text,
                 (unsigned long long)text);
}

/* Kernel symbols, loaded on the second core while the rest of the file is walked, from its
 * first kernel sample on (none: never loaded). --kallsyms FILE (or --symfs DIR/proc/kallsyms),
 * else a copy of kallsyms cached for the file's kernel build-id (by `prospect record`, or
 * perf's build-id cache) is preferred: it describes the kernel when the profile was recorded
 * and costs a file read, where /proc/kallsyms costs the kernel ~40 ms to format. Whether the
 * copy's kernel placement matches the file is checked after the walk. */
struct ksyms_job {
    pthread_t thread;
    const char *path;         /* --kallsyms FILE or DIR/proc/kallsyms, else NULL */
    bool started;
    struct ksyms *ks;
    int err;
    uint8_t bid[BUILD_ID_MAX];
    size_t bid_len;
    bool cached;
    char source[4096];
};

static void *ksyms_thread(void *arg)
{
    struct ksyms_job *j = arg;
    if (j->path) {
        snprintf(j->source, sizeof(j->source), "%s", j->path);
        j->err = ksyms_load(j->path, &j->ks);
        return NULL;
    }
    if (j->bid_len && ksyms_cache_load(j->bid, j->bid_len, 0, &j->ks, j->source,
                                       sizeof(j->source)) == 0) {
        j->cached = true;
        j->err = 0;
        return NULL;
    }
    snprintf(j->source, sizeof(j->source), "/proc/kallsyms");
    j->err = ksyms_load("/proc/kallsyms", &j->ks);
    return NULL;
}

/* The file's kernel build-id, for the kallsyms cache. */
static void ksyms_job_set_kernel(struct ksyms_job *j, const struct perfdata_info *in)
{
    for (size_t i = 0; i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *b = &in->build_ids[i];
        if (!strcmp(b->path, "[kernel.kallsyms]") && b->size && b->size <= BUILD_ID_MAX) {
            memcpy(j->bid, b->id, b->size);
            j->bid_len = b->size;
            return;
        }
    }
}

static void ksyms_job_start(struct ksyms_job *j)
{
    if (!j->started)
        j->started = pthread_create(&j->thread, NULL, ksyms_thread, j) == 0;
}

/* The kernel symbols (NULL with err set when unavailable). rec_text is _text when the file was
 * recorded (0: unknown): a cached copy for another placement is replaced by /proc/kallsyms. */
static struct ksyms *ksyms_job_finish(struct ksyms_job *j, uint64_t rec_text, int *err)
{
    if (!j->started)
        ksyms_thread(j);
    else
        pthread_join(j->thread, NULL);
    j->started = false;
    if (j->cached && (!rec_text || ksyms_lookup(j->ks, "_text") != rec_text)) {
        ksyms_free(j->ks);
        j->ks = NULL;
        j->cached = false;
        snprintf(j->source, sizeof(j->source), "/proc/kallsyms");
        j->err = ksyms_load("/proc/kallsyms", &j->ks);
    }
    pr_debug("kernel symbols from %s", j->source);
    *err = j->err;
    return j->ks;
}

/* What the unwinder met in a hostile or damaged file: said once, the unwinds stopped cleanly. */
static void unwind_notes(const char *input, const struct unwinder *uw)
{
    const struct unwind_stats *us = uw ? unwinder_stats(uw) : NULL;

    if (uw)
        unwinder_log_stats(uw);

    if (us && us->bad_regs)
        cmd_error("report", "%s: note: %llu samples' user registers lack ip or sp (the event's "
                  "register mask); their user stacks are the sampled ip alone", input,
                  (unsigned long long)us->bad_regs);
    if (us && us->bad_dyn_size)
        cmd_error("report", "%s: note: %llu sample%s more user stack than %s carr%s; unwound "
                  "up to the copy's end", input, (unsigned long long)us->bad_dyn_size,
                  us->bad_dyn_size == 1 ? " claims" : "s claim",
                  us->bad_dyn_size == 1 ? "it" : "they", us->bad_dyn_size == 1 ? "ies" : "y");
}

/* The kernel symbols the report needs (NULL: none, or unavailable, said in knote and on
 * stderr). -ENOMEM, else 0. */
static int report_kernel_symbols(const struct perfdata_info *in, const struct one_event *oe,
                                 struct ksyms_job *kjob, struct ksyms **ks, char *knote,
                                 size_t len)
{
    int kerr;

    *ks = NULL;
    if (!needs_kernel_symbols(oe))
        return 0;
    *ks = ksyms_job_finish(kjob, oe->kernel_text, &kerr);
    if (kerr == -ENOMEM)
        return kerr;
    if (kerr == -EACCES)
        snprintf(knote, len, "%.160s: kernel addresses are hidden (all zero: "
                 "kernel.kptr_restrict)", kjob->source);
    else if (kerr)
        snprintf(knote, len, "cannot read %.160s: %s", kjob->source,
                 kerr == -EINVAL ? "not a regular file" : strerror(-kerr));
    else
        kernel_note(in, *ks, oe->kernel_text, kjob->path != NULL, knote, len);
    if (knote[0])
        cmd_error("report", "note: %s", knote);
    return 0;
}

/* The off-CPU waits' totals, and their symbols when the Prospect report shows them. */
static int finish_offcpu(const struct report_cmd_opts *o, const struct one_event *oe,
                         const struct ksyms *ks, struct offcpu_totals *ot, struct cg_syms *ocy)
{
    struct offcpu *off = oe->offcpu;
    int err = 0;

    offcpu_finish(off);
    *ot = (struct offcpu_totals){ off->ns, off->waits, off->preempted, off->unended,
                                  off->preempted_ns };
    if (!oe->chains && o->fmt == REPORT_TEXT)
        err = cg_resolve(&off->stacks, ks, ocy);
    /* Without switch-in records only a switch to another traced thread ends a wait. */
    if (!err && !off->switch_ins && off->unended > off->waits)
        cmd_error("report", "note: %" PRIu64 " of %" PRIu64 " waits of '%s' never ended: "
                  "the file has no switch-in records (record --off-cpu; perf: "
                  "--switch-events or -a)", off->unended, off->unended + off->waits,
                  off->sel->name);
    return err;
}

/* The call stacks a call-graph report reads (--max-stack cut, --inline expanded) and their
 * symbols; the frames are dropped once only symbols are needed. */
struct cg_input {
    struct cg_store cut, inl;
    const struct cg_store *cs;
    struct cg_syms cy;
};

static void cg_input_release(struct cg_input *in)
{
    cg_syms_release(&in->cy);
    cg_store_release(&in->cut);
    cg_store_release(&in->inl);
}

static int cg_input_prepare(const struct report_cmd_opts *o, const struct one_event *oe,
                            const struct evsel *sel, const struct ksyms *ks,
                            struct cg_input *in)
{
    struct cg_store *mcs = oe->wall ? oe->wall : oe->offcpu ? &oe->offcpu->stacks : oe->chains;
    struct cg_store *src = NULL;
    struct cg_syms icy = { 0 };
    int err;

    cg_store_init(&in->cut);
    cg_store_init(&in->inl);
    if (oe->chains)                   /* every sample is in: no lookups from here */
        cg_store_seal(oe->chains);
    if (oe->offcpu)
        cg_store_seal(&oe->offcpu->stacks);
    if (oe->wall)
        cg_store_seal(oe->wall);
    if (o->max_stack) {
        if ((err = cg_store_truncate(mcs, o->max_stack, !o->folded, &in->cut)))
            return err;
        mcs = &in->cut;
    }
    in->cs = mcs;
    if (sel && !(sel->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
        cmd_error("report", "note: the samples of '%s' have no call chains (record with "
                  "-g): every stack is its sampled function alone", sel->name);
    unwind_notes(o->input, oe->chains || oe->offcpu ? oe->unwind : NULL);
    pr_debug("call stacks: %zu distinct of %llu samples, %zu frames (%zu distinct)",
             mcs->nstacks, (unsigned long long)mcs->samples, mcs->nframes, mcs->nuniq);
    /* Only the names resolved are needed from here on. */
    if ((err = cg_resolve_lean(mcs, ks, o->flat_opts.no_bracket, &in->cy)))
        return err;
    pr_debug("symbols: %zu", in->cy.nsyms);
    /* After --max-stack: it counts the frames of the chain, not inlined ones. */
    if (o->inline_frames && !(err = cg_expand_inline(mcs, &in->cy, &in->inl, &icy))) {
        cg_syms_release(&in->cy);
        in->cy = icy;
        src = mcs;
        in->cs = mcs = &in->inl;
    }
    /* Every report here but pprof reads symbols only: the frames go before the reports
     * make their own tables (the peak of a --children report). */
    if (!err && !(o->folded && o->stacks == STACKS_PPROF)) {
        cg_store_drop_frames(mcs);
        if (src)
            cg_store_drop_frames(src);
    }
    return err;
}

/* --callers / --callees; a name on no stack is said (1), with gcc's clone of it if any
 * (NAME.constprop.0, .isra.0, .part.0, .cold). */
static int print_calltree_report(const struct report_cmd_opts *o, const struct cg_input *in,
                                 uint64_t total_period)
{
    struct calltree_opts to = { .name = o->callers ? o->callers : o->callees,
                                .callers = o->callers != NULL,
                                .percent_limit = o->flat_opts.percent_limit,
                                .total_period = total_period, .wide = o->flat_opts.wide };
    const char *clone = NULL;
    char nb[256];
    size_t len = strlen(to.name);
    int err = report_calltree(stdout, in->cs, &in->cy, &to);

    if (err != -ENOENT)
        return err;
    for (size_t i = 0; i < in->cy.nsyms && !clone && len; i++) {
        const char *sn = cg_sym_name(&in->cy.syms[i], nb, sizeof(nb));
        if (!strncmp(sn, to.name, len) && sn[len] == '.')
            clone = sn;
    }
    cmd_error("report", "no call stack holds a function named '%s'%s%s%s", to.name,
              clone ? "; its gcc clone '" : "", clone ? clone : "", clone ? "' is there" : "");
    return 1;
}

/* --format html: the page's summary notes (the kernel's, lost events, no call chains). */
static void html_notes(const struct perfdata_stats *st, const struct evsel *sel,
                       const char *knote, char lost[96], char nocg[160], const char *notes[3],
                       size_t *n)
{
    *n = 0;
    if (knote[0])
        notes[(*n)++] = knote;
    if (st->lost || st->lost_samples) {
        snprintf(lost, 96, "%" PRIu64 " events lost (the ring buffer was full)",
                 st->lost + st->lost_samples);
        notes[(*n)++] = lost;
    }
    if (sel && !(sel->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
        snprintf(nocg, 160, "the samples of '%.60s' have no call chains (record with -g): "
                 "every stack is its sampled function alone", sel->name);
        notes[(*n)++] = nocg;
    }
}

/* --format folded, svg, pprof, speedscope, html. */
static int print_stack_outputs(const struct report_cmd_opts *o, const struct perfdata *pd,
                               const struct one_event *oe, const struct evsel *sel,
                               const struct cg_input *in, const struct ksyms *ks,
                               const char *knote)
{
    const struct perfdata_info *info = perfdata_info(pd);
    const struct perfdata_stats *st = perfdata_stats(pd);
    struct stacks_out_req rq = { .fmt = o->stacks, .output = o->output, .title = o->title,
                                 .inverted = o->inverted, .input = o->input, .sel = sel };
    char lost[96], nocg[160], *command = NULL;
    const char *notes[3];
    int err;

    if (st->nr_samples > 1)
        rq.duration_ns = st->last_sample_time - st->first_sample_time;
    for (size_t i = 0; i < info->nr_build_ids; i++)
        if (!strcmp(info->build_ids[i].path, "[kernel.kallsyms]")) {
            rq.kernel_build_id = info->build_ids[i].id;
            rq.kernel_build_id_len = info->build_ids[i].size;
        }
    rq.by_period = oe->offcpu != NULL;    /* off-CPU, wall-clock: ns, not samples */
    rq.wall = oe->wall != NULL;
    rq.seq = sample_seq_for(oe->seq, in->cs);  /* NULL for cut or expanded stacks */
    rq.waits = oe->waits;
    if (o->stacks == STACKS_HTML) {
        rq.command = command = join_cmdline(info);
        rq.nr_cpus = info->has_nrcpus ? info->nr_cpus_online : 0;
        html_notes(st, sel, knote, lost, nocg, notes, &rq.nnotes);
        rq.notes = notes;
        rq.source = (struct html_source_req){ .session = oe->s, .ks = ks,
                                              .top = o->source_top,
                                              .no_bracket = o->flat_opts.no_bracket };
    }
    err = report_write_stacks(&rq, in->cs, &in->cy);   /* 1: said */
    free(command);
    return err;
}

/* --children / --no-children, each row's chains below it. */
static int print_children_report(const struct report_cmd_opts *o, const struct one_event *oe,
                                 const struct evsel *sel, const struct cg_input *in,
                                 uint64_t total_period)
{
    struct chain_params chains = o->chains;
    regex_t ignore, parent;
    int err;
    struct children_opts co = { .event = sel ? sel->name : NULL,
                                .percent_limit = o->flat_opts.percent_limit,
                                .show_nr_samples = o->flat_opts.show_nr_samples,
                                .by_comm = sort_has(&o->flat_opts, FLAT_COMM),
                                .by_pid = sort_has(&o->flat_opts, FLAT_PID) ||
                                          sort_has(&o->flat_opts, FLAT_TID),
                                .by_tid = o->sort_tid || sort_has(&o->flat_opts, FLAT_TID),
                                .threads = oe->threads,
                                .no_dso = !sort_has(&o->flat_opts, FLAT_DSO),
                                .no_children = o->no_children, .symbols = o->symbols,
                                .skip_first = o->sort_given && o->sort_parent != 1 &&
                                              o->flat_opts.keys[0] == FLAT_SYM,
                                .wide = o->flat_opts.wide, .total_period = total_period,
                                .chains = &chains, .fmt = o->fmt };

    co.no_children = o->no_children || o->hierarchy;   /* perf's --hierarchy: Overhead */
    co.parent_first = o->sort_parent == 1;
    /* Rows per key alone (perf's --sort comm, pid, parent): every frame of a stack is the
     * row's, so Children is Self. --hierarchy keeps its symbol rows below the key's level. */
    co.no_sym = (o->sort_parent || !o->hierarchy) && !sort_has(&o->flat_opts, FLAT_DSO) &&
                !sort_has(&o->flat_opts, FLAT_SYM);
    co.hierarchy = o->hierarchy;
    for (size_t k = 0; o->hierarchy && k < o->flat_opts.nkeys; k++)
        co.levels[co.nlevels++] = o->flat_opts.keys[k] == FLAT_DSO ? CG_LEVEL_DSO :
                                  o->flat_opts.keys[k] == FLAT_SYM ? CG_LEVEL_SYM : CG_LEVEL_COMM;
    if (sel && !(sel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) && !oe->offcpu)
        chains.mode = CHAIN_NONE;       /* as perf: no chains, no trees */
    if (oe->wall)
        co.event = "wall-clock time in ns: on-CPU samples and off-CPU time (sched:sched_switch)";
    else if (oe->offcpu)
        co.event = "off-CPU time in ns, from sched:sched_switch";
    if (o->ignore_callees) {
        if (regcomp(&ignore, o->ignore_callees, REG_EXTENDED | REG_NOSUB))
            return -EINVAL;     /* checked as the option was read */
        co.ignore_callees = &ignore;
    }
    if (o->parent && regcomp(&parent, o->parent, REG_EXTENDED | REG_NOSUB))
        err = -EINVAL;
    else {
        co.parent = o->parent ? &parent : NULL;
        err = report_children(stdout, in->cs, &in->cy, &co);
        if (o->parent)
            regfree(&parent);
    }
    if (o->ignore_callees)
        regfree(&ignore);
    return err;
}

/* The reports of call stacks: --children, --callers/--callees, the stack outputs. */
static int print_callgraph_reports(const struct report_cmd_opts *o, const struct perfdata *pd,
                                   const struct one_event *oe, const struct evsel *sel,
                                   const struct ksyms *ks, const char *knote)
{
    uint64_t total = oe->filtered ? oe->all_period : 0;
    struct cg_input in = { 0 };
    int err;

    if (oe->offcpu && oe->filtered)   /* of every wait's ns, hidden or shown */
        total = oe->offcpu->ns + oe->offcpu->ns_hidden;
    if (oe->wall)                     /* of the time shown (hidden threads' runnable time is not
                                         counted) */
        total = 0;
    err = cg_input_prepare(o, oe, sel, ks, &in);
    if (!err && (o->callers || o->callees))
        err = print_calltree_report(o, &in, total);
    else if (!err && o->folded)
        err = print_stack_outputs(o, pd, oe, sel, &in, ks, knote);
    else if (!err)
        err = print_children_report(o, oe, sel, &in, total);
    cg_input_release(&in);
    return err;
}

static int print_flat_report(const struct report_cmd_opts *o, struct session *s,
                             const struct ksyms *ks, const struct one_event *oe,
                             const struct evsel *sel)
{
    struct flat_opts fo = o->flat_opts;

    fo.event = sel ? sel->name : NULL;
    if (oe->filtered) {
        fo.total_samples = oe->all_samples;
        fo.total_period = oe->all_period;
    }
    fo.threads = oe->threads;
    return o->srcline ? report_srcline(stdout, s, ks, &fo) : report_flat(stdout, s, ks, &fo);
}

/* The Prospect report (text, or exported as csv/json). */
static int print_prospect_report(const struct report_cmd_opts *o, const struct perfdata *pd,
                                 struct session *s, const struct ksyms *ks,
                                 const struct one_event *oe, const struct evsel *sel,
                                 const char *knote, const struct offcpu_totals *ot,
                                 const struct cg_syms *ocy)
{
    const struct perfdata_info *in = perfdata_info(pd);
    const struct perfdata_stats *st = perfdata_stats(pd);
    struct report_opts ro = { .top = o->top, .min_percent = o->min_percent,
                              .wide = o->flat_opts.wide };
    char *command = join_cmdline(in);
    int err;

    ro.command = command;
    ro.system_wide = cmdline_has(in, "-a", "--all-cpus");
    if (sel) {
        ro.event = sel->name;
        ro.freq_mode = sel->attr.freq;
        ro.freq = sel->attr.sample_freq;
        ro.period = sel->attr.sample_period;
        ro.time_event = sel->attr.type == PERF_TYPE_SOFTWARE &&
                        (sel->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
                         sel->attr.config == PERF_COUNT_SW_TASK_CLOCK);
    }
    if (st->nr_samples > 1)
        ro.duration = (double)(st->last_sample_time - st->first_sample_time) / 1e9;
    ro.nr_cpus = in->has_nrcpus ? in->nr_cpus_online : 0;
    ro.kernel_note = knote[0] ? knote : NULL;
    ro.lost_extra = st->bad;
    if (oe->offcpu) {
        ro.offcpu = &oe->offcpu->stacks;
        ro.offcpu_syms = ocy;
        ro.offcpu_totals = ot;
    }
    if (o->fmt == REPORT_TEXT)
        err = report_prospect(stdout, s, ks, &ro);
    else
        err = report_prospect_export(stdout, s, ks, &ro, o->fmt);
    free(command);
    return err;
}

static int print_reports(const struct report_cmd_opts *o, const struct perfdata *pd,
                         struct session *s, struct ksyms_job *kjob,
                         const struct one_event *oe)
{
    const struct evsel *sel = pick_evsel(perfdata_evlist(pd), o->event);
    struct ksyms *ks = NULL;
    char knote[256] = "";
    struct cg_syms ocy = { 0 };
    struct offcpu_totals ot = { 0 };
    int err;

    if (o->stats)
        report_record_stats(stdout, pd, o->fmt);
    if (o->header)
        report_file_header(stdout, pd, o->fmt);
    if ((o->stats || o->header) && !o->flat)
        return 0;
    err = report_kernel_symbols(perfdata_info(pd), oe, kjob, &ks, knote, sizeof(knote));
    if (!err && oe->offcpu)
        err = finish_offcpu(o, oe, ks, &ot, &ocy);
    if (err)
        goto out;
    if (o->children || o->folded || o->callers || o->callees)
        err = print_callgraph_reports(o, pd, oe, sel, ks, knote);
    else if (o->flat)
        err = print_flat_report(o, s, ks, oe, sel);
    else
        err = print_prospect_report(o, pd, s, ks, oe, sel, knote, &ot, &ocy);
out:
    cg_syms_release(&ocy);
    ksyms_free(ks);
    return err;
}

/* --time's ranges (percentages of the file's recorded span): 0, or the exit status, said. */
static int time_ranges_of(const struct report_cmd_opts *o, const struct perfdata *pd,
                          struct timerange *r)
{
    const struct perfdata_info *in = perfdata_info(pd);
    char why[512];

    if (timerange_parse(o->time, r, why, sizeof(why)))
        return cmd_usage_error("report", "%s", why);
    if (r->percent && (!in->has_sample_time ||
                       timerange_place(r, in->first_sample_time, in->last_sample_time))) {
        cmd_error("report", "%s: --time %s: the file does not say when its first and last "
                  "samples were (no sample_time feature, e.g. a pipe): give seconds", o->input,
                  o->time);
        return 1;
    }
    return 0;
}

/* A file with several sampling events and no --event: one report per event, each as
 * `report --event NAME` prints it (perf report's per-event sections). -1 when the file has one
 * sampling event (or the output is not text): the caller reports as usual. */
static int report_each_event(int argc, char **argv, const struct report_cmd_opts *o,
                             const struct perfdata *pd)
{
    const struct evlist *evl = perfdata_evlist(pd);
    const struct evsel *sw = auto_switch_evsel(pd);
    size_t n = 0, k = 0;
    int status = 0;

    if (o->event || o->header || o->stats || o->fmt != REPORT_TEXT || o->folded || o->off_cpu ||
        o->wall)
        return -1;
    /* --off-cpu's sched_switch is no event of its own: its waits are the Off-CPU section. */
    for (size_t i = 0; i < evl->nr; i++)
        n += !(evl->sel[i].attr.type == PERF_TYPE_SOFTWARE &&
               evl->sel[i].attr.config == PERF_COUNT_SW_DUMMY) && &evl->sel[i] != sw;
    if (n < 2)
        return -1;
    char **av = calloc((size_t)argc + 3, sizeof(*av));
    if (!av)
        return 1;
    for (int i = 0; i < argc; i++)
        av[i] = argv[i];
    av[argc] = "--event";
    for (size_t i = 0; i < evl->nr && !status; i++) {
        const struct evsel *e = &evl->sel[i];
        if ((e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY) ||
            e == sw)
            continue;
        printf("%s# ==== event %zu of %zu: %s ====\n", k ? "\n" : "", k + 1, n, e->name);
        k++;
        fflush(stdout);
        av[argc + 1] = e->name;
        status = cmd_report(argc + 2, av);
        fflush(stdout);
    }
    free(av);
    return status;
}

/* A report is one pass that allocates, frees and allocates again (hit tables as they grow,
 * symbol tables, section buffers), at random addresses: freed memory is kept for reuse rather
 * than unmapped and faulted in anew, and the heap is asked for transparent huge pages (fewer
 * faults and TLB misses: a fifth of the flat report's time on a 380k-sample file). */
static void report_heap_setup(void)
{
    void *block;

    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
    mallopt(M_ARENA_MAX, 1);      /* the symbol loaders' threads too */
    /* The heap grows by this block and the pad; the advice covers both. */
    if (!(block = malloc(16 << 20)))
        return;
    uintptr_t lo = ((uintptr_t)block + 4095) & ~(uintptr_t)4095, hi = (uintptr_t)sbrk(0);
    if (hi > lo && hi - lo < (256u << 20))
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    free(block);
}

int cmd_report(int argc, char **argv)
{
    struct report_cmd_opts o = { 0 };
    struct perfdata_error err;
    struct perfdata *pd;
    struct session session;
    struct ksyms_job kjob = { 0 };
    struct one_event oe = { 0 };
    struct thread_tally threads;
    struct cg_store chains;
    struct offcpu offcpu, waits;
    struct cg_store wall;
    struct sample_seq seq = { 0 };
    struct profile_sinks sinks = {0};
    struct timerange times;
    char line[1024], symfs_kallsyms[4096];
    int werr = 0, ret = parse_args(argc, argv, &o);

    report_heap_setup();
    if (ret) {
        cmd_inputs_release(&o.inputs);
        return ret < 0 ? cmd_help("report") : ret;
    }
    if (cmd_inputs_open(&o.inputs, o.input, &pd, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("report", "%s%s", line, err.msg[0] && !err.has_offset &&
                  !strcmp(err.msg, strerror(ENOENT)) ? " (record one with 'prospect record' "
                  "or 'perf record', or name it with -i)" : "");
        cmd_inputs_release(&o.inputs);
        return 1;
    }
    if ((ret = report_each_event(argc, argv, &o, pd)) >= 0 ||
        (o.time && (ret = time_ranges_of(&o, pd, &times)))) {
        perfdata_close(pd);
        cmd_inputs_release(&o.inputs);
        return ret;
    }
    oe.times = o.time ? &times : NULL;
    if (session_init(&session)) {
        cmd_error("report", "out of memory");
        perfdata_close(pd);
        cmd_inputs_release(&o.inputs);
        return 1;
    }
    session.filter = o.filter;
    cg_store_init(&chains);
    cg_store_init(&wall);
    offcpu_init(&offcpu, NULL);
    offcpu_init(&waits, NULL);
    thread_tally_init(&threads);
    if (o.children || o.folded || o.callers || o.callees)
        oe.chains = &chains;
    /* --children --sort tid: stacks per thread, named by the threads' latest names */
    chains.per_thread = o.children && (o.sort_tid || sort_has(&o.flat_opts, FLAT_TID));
    for (size_t k = 0; k < o.flat_opts.nkeys; k++)
        if ((o.flat || chains.per_thread) && o.flat_opts.keys[k] == FLAT_TID)
            oe.threads = &threads;
    if (o.sort_tid && chains.per_thread)
        oe.threads = &threads;
    /* --children --sort pid: a process by its latest name, as perf (an exec'd image's
     * samples before the exec under the same row) */
    if (o.children && sort_has(&o.flat_opts, FLAT_PID))
        oe.threads = &threads;
    if ((o.symfs && dso_cache_set_symfs(session.dsos, o.symfs)) ||
        session_add_build_ids(&session, perfdata_info(pd))) {
        cmd_error("report", "out of memory");
        ret = 1;
        goto out;
    }
    if (o.flat || !(o.header || o.stats)) {
        ksyms_job_set_kernel(&kjob, perfdata_info(pd));
        kjob.path = o.kallsyms;
        /* As perf: the other system's kallsyms when the --symfs tree has one. */
        if (!o.kallsyms && o.symfs &&
            (size_t)snprintf(symfs_kallsyms, sizeof(symfs_kallsyms), "%s/proc/kallsyms",
                             o.symfs) < sizeof(symfs_kallsyms) && !access(symfs_kallsyms, R_OK))
            kjob.path = symfs_kallsyms;
        oe.kjob = &kjob;
    }
    /* One pass: the reader feeds the same session code as live collection. */
    oe.s = &session;
    oe.filtered = o.filter.pid >= 0 || o.filter.tid >= 0 || o.filter.cpu >= 0 || o.filter.comm;
    oe.cpu = o.filter.cpu;
    oe.sel = pick_evsel(perfdata_evlist(pd), o.event);
    if (o.off_cpu && !(oe.sel = switch_evsel(perfdata_evlist(pd)))) {
        cmd_error("report", "%s: no sched:sched_switch event with call chains (record with "
                  "'prospect record --off-cpu -g')", o.input);
        ret = 1;
        goto out;
    }
    if (o.wall && (ret = wall_setup(&o, pd, &oe, &offcpu)))
        goto out;
    if (!o.wall && oe.sel && oe.sel == auto_switch_evsel(pd) && oe.chains) {
        o.off_cpu = true;     /* call graphs of switch-outs are off-CPU waits, weighed in ns */
        o.event = oe.sel->name;
    }
    /* The page's source view lists the hottest functions from their per-address hits (not
     * of waits: an off-CPU page has no source view). */
    session.stacks_only = oe.chains != NULL &&
                          !(o.stacks == STACKS_HTML && o.source_top && !o.off_cpu);
    if (o.wall) {
        oe.offcpu = &offcpu;
    } else if (o.off_cpu) {
        offcpu_init(&offcpu, oe.sel);
        oe.chains = NULL;
        oe.offcpu = &offcpu;
    } else if (!oe.chains && !o.header && !o.stats && !o.flat && o.fmt == REPORT_TEXT &&
               (offcpu.sel = auto_switch_evsel(pd))) {
        oe.offcpu = &offcpu;          /* the Prospect report's Off-CPU Time section */
    }
    if (oe.chains && !o.wall && (o.stacks == STACKS_PPROF || o.stacks == STACKS_SPEEDSCOPE ||
                                 o.stacks == STACKS_HTML)) {
        seq.cs = oe.chains;       /* per-thread exports: the samples in order, after the store */
        seq.names = oe.threads = &threads;     /* and the threads' names */
        oe.seq = &seq;
    }
    if (oe.seq && o.stacks == STACKS_HTML && !oe.offcpu && (waits.sel = auto_switch_evsel(pd))) {
        waits.waits_only = true;  /* the timeline's off-CPU time */
        oe.waits = &waits;
    }
    /* Call stacks and off-CPU waits; user stacks by src/unwind/. Then the samples' order
     * (after the store: it reads which stack the sample went to). */
    if ((ret = profile_sinks_wire(&sinks, &session, oe.chains, oe.offcpu, true)) ||
        (oe.seq && (ret = session_add_sink(&session, sample_seq_sink(oe.seq)))) ||
        (oe.waits && (ret = session_add_sink(&session, offcpu_sink(oe.waits))))) {
        cmd_error("report", "%s", profile_sinks_strerror(ret));
        ret = 1;
        goto out;
    }
    oe.unwind = sinks.unwind;
    if (oe.offcpu && perfdata_info(pd)->sched_switch_format) {
        /* The raw fields where the recording kernel put them (the file's tracing data). */
        const char *f = perfdata_info(pd)->sched_switch_format;
        const char *note = offcpu_apply_format(&offcpu, f, strlen(f));
        if (note)
            fprintf(stderr, "prospect report: %s: %s\n", o.input, note);
    }
    if (oe.waits && perfdata_info(pd)->sched_switch_format) {
        const char *f = perfdata_info(pd)->sched_switch_format;
        offcpu_use_format(&waits, f, strlen(f));   /* a gap costs the timeline little: no note */
    }
    /* The Prospect text report: processes it will not detail are freed as the file is read. */
    session.release_exited = !session.nsinks && !o.flat && !o.header &&
                             !o.stats && o.fmt == REPORT_TEXT;
    session.limits.min_percent = o.min_percent;
    if (!oe.sel) {
        cmd_error("report", "%s: no event named '%s' in the file", o.input, o.event);
        ret = 1;
        goto out;
    }
    for (size_t i = 0; i < perfdata_evlist(pd)->nr; i++) {
        const struct evsel *e = &perfdata_evlist(pd)->sel[i];
        if (e != oe.sel && !(e->attr.type == PERF_TYPE_SOFTWARE &&
                             e->attr.config == PERF_COUNT_SW_DUMMY))
            oe.others_sample = true;
    }
    if (perfdata_process(pd, session_one_event, &oe, 0, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("report", "%s", line);
        ret = 1;
        goto out;
    }
    profile_sinks_done(&sinks);         /* the samples are in: not held through the output */
    if (o.wall && wall_merge(&chains, &offcpu, &wall)) {
        cmd_error("report", "out of memory");
        ret = 1;
        goto out;
    }
    if (o.wall)
        oe.wall = &wall;
    print_warnings(pd, o.input);
    /* Only when the event was not chosen: with --event (or a section per event) it is noise. */
    if (oe.other_samples && !o.header && !o.stats && !o.off_cpu && !o.event) {
        const struct evsel *sw = auto_switch_evsel(pd);
        if (sw && perfdata_evlist(pd)->nr == 2)
            cmd_error("report", "note: the samples of '%s' are shown; the file has off-CPU "
                      "waits too (%s): --off-cpu reports them", oe.sel->name, sw->name);
        else
            cmd_error("report", "note: the samples of '%s' are shown; %llu samples of other "
                      "events are not (choose with --event NAME)", oe.sel->name,
                      (unsigned long long)oe.other_samples);
    }
    ret = print_reports(&o, pd, &session, &kjob, &oe);
    if (symbol_debuginfod_problem(line, sizeof(line)))
        cmd_error("report", "note: %s", line);
    if (ret > 0)
        goto out;
    if (ret == -EIO && (werr = cmd_stream_errno(stdout)))
        ret = -werr;        /* the write's own errno: "No space left on device" */
    if (ret) {
        cmd_error("report", "%s%s", ret == -EIO || ret == -werr ? "writing the report: " : "",
                  strerror(-ret));
        ret = 1;
        goto out;
    }
out:
    if (kjob.started) {             /* not needed after all (an error): just collect it */
        pthread_join(kjob.thread, NULL);
        ksyms_free(kjob.ks);
    }
    thread_tally_release(&threads);
    session_release(&session);
    profile_sinks_release(&sinks);
    cg_store_release(&chains);
    cg_store_release(&wall);
    sample_seq_release(&seq);
    offcpu_release(&offcpu);
    offcpu_release(&waits);
    perfdata_close(pd);
    cmd_inputs_release(&o.inputs);
    return ret;
}
