/* prospect report: read a perf.data file and print what is in it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "perf/perfdata.h"
#include "report/file_header.h"
#include "report/format.h"
#include "util/log.h"

const char cmd_report_usage[] =
    "usage: prospect report [options]\n"
    "\n"
    "Reads a perf.data file (written by 'prospect record' or 'perf record') and reports it.\n"
    "\n"
    "  -i, --input FILE     the file to read (default: perf.data)\n"
    "      --header         what the file says about itself: host, kernel, cmdline, events,\n"
    "                       samples, lost, build ids, features\n"
    "      --stats          the number of records of each type\n"
    "      --format FMT     text (default), csv or json\n"
    "  -v, --verbose        more diagnostics (repeat for more)\n"
    "  -h, --help           this help\n";

struct report_opts {
    const char *input;
    bool header, stats;
    enum report_format fmt;
};

static int no_op(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                 uint64_t time)
{
    return 0;
}

/* Damage past the header is not fatal: say what was read and what was not, on stderr. */
static void print_warnings(const struct perfdata *pd, const char *path)
{
    const struct perfdata_stats *st = perfdata_stats(pd);
    const struct perfdata_info *in = perfdata_info(pd);
    char line[1024];

    if (st->data_size_missing)
        cmd_error("report", "%s: warning: the header's data size is 0 (the recording did not "
                  "finish?): read the records up to the end of the file", path);
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
    if (st->compressed)
        cmd_error("report", "warning: %" PRIu64 " compressed records skipped ('perf record -z' "
                  "files are not supported; 'perf inject -i IN -o OUT' decompresses them)",
                  st->compressed);
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

static int parse_args(int argc, char **argv, struct report_opts *o)
{
    enum { OPT_HEADER = 256, OPT_STATS, OPT_FORMAT };
    static const struct option longs[] = {
        { "input", required_argument, NULL, 'i' },
        { "header", no_argument, NULL, OPT_HEADER },
        { "stats", no_argument, NULL, OPT_STATS },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    o->input = "perf.data";
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+:i:vh", longs, NULL)) != -1) {
        switch (c) {
        case 'i': o->input = optarg; break;
        case OPT_HEADER: o->header = true; break;
        case OPT_STATS: o->stats = true; break;
        case OPT_FORMAT:
            if (report_format_parse(optarg, &o->fmt))
                return cmd_usage_error("report", "--format must be text, csv or json, not '%s'",
                                       optarg);
            break;
        case 'v': log_verbosity++; break;
        case 'h': return -1;
        case ':':
            return cmd_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cmd_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_usage_error("report", "unexpected argument '%s'", argv[optind]);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o = { 0 };
    struct perfdata_error err;
    struct perfdata *pd;
    char line[1024];
    int ret = parse_args(argc, argv, &o);

    if (ret < 0)
        return cmd_help("report");
    if (ret)
        return ret;
    if (perfdata_open(o.input, &pd, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("report", "%s%s", line, err.msg[0] && !err.has_offset &&
                  !strcmp(err.msg, strerror(ENOENT)) ? " (record one with 'prospect record' "
                  "or 'perf record', or name it with -i)" : "");
        return 1;
    }
    if (perfdata_process(pd, no_op, NULL, PERFDATA_FILE_ORDER, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("report", "%s", line);
        perfdata_close(pd);
        return 1;
    }
    print_warnings(pd, o.input);
    if (o.stats)
        report_record_stats(stdout, pd, o.fmt);
    if (o.header || !o.stats)
        report_file_header(stdout, pd, o.fmt);
    perfdata_close(pd);
    if (fflush(stdout) || ferror(stdout)) {
        cmd_error("report", "writing the report failed: %s", strerror(errno));
        return 1;
    }
    return 0;
}
