/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "diff"
/* prospect diff OLD NEW: what changed between two profiles, per symbol (as perf diff), as csv,
 * or as a differential flame graph. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "cmd/cmd.h"
#include "cmd/inputs.h"
#include "cmd/options.h"
#include "cmd/sinks.h"
#include "flame/flametree.h"
#include "flame/svg.h"
#include "html/diffpage.h"
#include "perf/evlist.h"
#include "perf/perfdata.h"
#include "report/diff.h"
#include "session/session.h"
#include "symbol/ksyms.h"
#include "util/log.h"
#include "util/outfile.h"

enum { OPT_FORMAT = 256, OPT_TITLE, OPT_KALLSYMS, OPT_WIDE };

static const struct optdecl diff_opts[] = {
    { OPT_FORMAT, "format", "FMT",
        "text (default), csv, or svg: a differential flame graph of the\n"
        "call stacks, frame widths from NEW, red where a frame's share grew\n"
        "and blue where it shrank (the deeper the colour, the larger the\n"
        "change); record with -g for stacks; html: one page with the table\n"
        "and the graph", OPTD_COMPLETE_CHOICE, "text csv svg html", 0 },
    { 'o', "output", "FILE",
        "write to FILE (- is standard output; a symlink is refused; replaced\n"
        "whole or not at all)", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_TITLE, "title", "TEXT",
        "svg, html: the graph's or page's title", 0, NULL, 0 },
    { 'e', "event", "NAME",
        "the event to compare, for files with several (default: the first)", OPTD_COMPLETE_EVENT, NULL, 0 },
    { OPT_KALLSYMS, "kallsyms", "FILE",
        "kernel symbols from FILE (default /proc/kallsyms)", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_WIDE, "wide", NULL,
        "full names (by default text lines fit 100 columns)", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_diff_decl = {
    .name = "diff",
    .synopsis = "[options] [[OLD] NEW]",
    .intro =
"\n"
"Compares two perf.data files (Prospect's or perf's) per symbol, as 'perf diff': each\n"
"(shared object, symbol)'s share of its profile's samples (as the sampled function) in OLD\n"
"and in NEW, and Delta = New - Old, sorted by |Delta|. OLD and NEW default to perf.data.old\n"
"and perf.data (perf's defaults); one file is NEW, compared with perf.data.old. Either may\n"
"be a quoted glob ('old/perf.data.*': the parts of record --switch-output), read as one.\n"
"\n",
    .outro =
"\n"
"Examples:\n"
"  prospect diff base.data new.data\n"
"  prospect diff base.data new.data --format svg -o diff.svg\n"
"  prospect diff base.data new.data --format html -o diff.html\n",
    .opts = diff_opts,
    .flags = 0,
};

struct profile {
    const char *path;             /* as given: a file, or a quoted glob of the parts */
    struct cmd_inputs in;
    struct perfdata *pd;
    struct session s;
    bool session_ok;
    struct cg_store cs;
    struct profile_sinks sinks;
    struct cg_syms cy;
    bool resolved;
    struct ksyms *ks;
    const struct evsel *sel;
};

struct one_event {
    struct session *s;
    const struct evsel *sel;
};

/* Every record feeds the session but the samples of other events. */
static int feed(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                uint64_t time)
{
    struct one_event *oe = arg;
    if (h->type == PERF_RECORD_SAMPLE && evlist_evsel_for(evl, h) != oe->sel)
        return 0;
    return session_record(oe->s, evl, h, time);
}

/* Reads and symbolizes one profile; prints its errors. 0 or 1. */
static int load(struct profile *p, const char *event, const char *kallsyms)
{
    struct perfdata_error err;
    char line[1024];
    int e;

    if (cmd_inputs_add(&p->in, "diff", p->path))
        return 1;
    if (cmd_inputs_open(&p->in, p->path, &p->pd, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("diff", "%s", line);
        return 1;
    }
    if (session_init(&p->s)) {
        cmd_error("diff", "out of memory");
        return 1;
    }
    p->session_ok = true;
    cg_store_init(&p->cs);
    /* DWARF files unwound, frameless leaves completed. */
    if ((e = profile_sinks_wire(&p->sinks, &p->s, &p->cs, NULL, true))) {
        cmd_error("diff", "%s", profile_sinks_strerror(e));
        return 1;
    }
    if (session_add_build_ids(&p->s, perfdata_info(p->pd))) {
        cmd_error("diff", "out of memory");
        return 1;
    }
    if (!(p->sel = pick_evsel(perfdata_evlist(p->pd), event))) {
        cmd_error("diff", "%s: no event named '%s' in the file", p->path, event);
        return 1;
    }
    struct one_event oe = { .s = &p->s, .sel = p->sel };
    if (perfdata_process(p->pd, feed, &oe, 0, &err)) {
        perfdata_error_str(&err, line, sizeof(line));
        cmd_error("diff", "%s", line);
        return 1;
    }
    profile_sinks_done(&p->sinks);    /* the samples are in: not held through the output */
    /* Damage is not fatal (as in report): say what was not read. */
    const struct perfdata_stats *st = perfdata_stats(p->pd);
    if (st->data_size_missing)
        cmd_error("diff", "%s: warning: the recording did not finish: read the records up to "
                  "the end of the file", p->path);
    if (st->truncated) {
        perfdata_error_str(&st->damage, line, sizeof(line));
        cmd_error("diff", "%s; stopped there: %llu bytes not read", line,
                  (unsigned long long)st->bytes_unread);
    }
    if (st->bad) {
        perfdata_error_str(&st->first_bad, line, sizeof(line));
        cmd_error("diff", "%s (%llu records that did not decode skipped)", line,
                  (unsigned long long)st->bad);
    }
    if (p->s.stats.kernel && (e = ksyms_load(kallsyms ? kallsyms : "/proc/kallsyms", &p->ks)))
        cmd_error("diff", "note: cannot read kernel symbols from %s: %s: kernel frames are "
                  "[kernel.kallsyms]", kallsyms ? kallsyms : "/proc/kallsyms", strerror(-e));
    if ((e = cg_resolve(&p->cs, p->ks, &p->cy))) {
        cmd_error("diff", "%s", strerror(-e));
        return 1;
    }
    p->resolved = true;
    if (!p->cs.nstacks) {
        cmd_error("diff", "%s: no samples of '%s'", p->path, p->sel->name);
        return 1;
    }
    return 0;
}

static void unload(struct profile *p)
{
    if (p->resolved)
        cg_syms_release(&p->cy);
    if (p->session_ok) {
        session_release(&p->s);
        profile_sinks_release(&p->sinks);
        cg_store_release(&p->cs);
    }
    ksyms_free(p->ks);
    if (p->pd)
        perfdata_close(p->pd);
    cmd_inputs_release(&p->in);
}

static int write_svg(FILE *f, struct profile *old, struct profile *nw, const char *title)
{
    struct flame_tree t;
    char sub[512];
    int err;

    if ((err = flame_tree_init(&t)))
        return err;
    snprintf(sub, sizeof(sub), "widths: %s; colours: change of share from %s (red grew, "
             "blue shrank)", nw->path, old->path);
    struct flame_svg_opts so = { .title = title, .subtitle = sub, .diff = true };
    if (!(err = flame_tree_add_store(&t, &nw->cs, &nw->cy, false, 0)) &&
        !(err = flame_tree_add_store(&t, &old->cs, &old->cy, false, 1)) &&
        !(err = flame_tree_sort(&t)))
        err = flame_svg_write(f, &t, &so);
    flame_tree_release(&t);
    return err;
}

/* The table and the graph, each written to memory first, then the page. */
static int write_html(FILE *f, struct profile *old, struct profile *nw, const char *title)
{
    struct diff_side a = { &old->cs, &old->cy, old->path };
    struct diff_side b = { &nw->cs, &nw->cy, nw->path };
    struct diff_opts o = { .wide = true, .event = nw->sel->name };
    struct diff_opts co = { .csv = true };
    char *table = NULL, *csv = NULL, *svg = NULL, deftitle[512];
    size_t tlen = 0, clen = 0, slen = 0;
    FILE *tf = open_memstream(&table, &tlen), *sf = open_memstream(&svg, &slen);
    FILE *cf = open_memstream(&csv, &clen);
    int err = tf && sf && cf ? 0 : -ENOMEM;
    bool stacks = nw->cs.nstacks && old->cs.nstacks;

    if (!err)
        err = report_diff(tf, &a, &b, &o);
    if (!err)
        err = report_diff(cf, &a, &b, &co);
    if (!err && stacks)
        err = write_svg(sf, old, nw, title);
    if (tf && fclose(tf) && !err)
        err = -ENOMEM;
    if (sf && fclose(sf) && !err)
        err = -ENOMEM;
    if (cf && fclose(cf) && !err)
        err = -ENOMEM;
    snprintf(deftitle, sizeof(deftitle), "prospect diff %s %s", old->path, nw->path);
    if (!err)
        err = html_diff_page(f, title ? title : deftitle, table, csv, stacks ? svg : NULL,
                             "no differential flame graph: a file has no call stacks "
                             "(record with -g)");
    free(table);
    free(csv);
    free(svg);
    return err;
}

/* Event names equal but for perf's precision suffix (perf writes "cpu-clock:ppp" where Prospect
 * writes "cpu-clock"): the same event, no note. */
static bool same_event(const char *a, const char *b)
{
    size_t la = strcspn(a, ":"), lb = strcspn(b, ":");
    const char *ra = a + la, *rb = b + lb;

    if (!strcmp(a, b))
        return true;
    if (la != lb || strncmp(a, b, la))
        return false;
    return (!*ra || (ra[0] == ':' && strspn(ra + 1, "p") == strlen(ra + 1))) &&
           (!*rb || (rb[0] == ':' && strspn(rb + 1, "p") == strlen(rb + 1)));
}

int cmd_diff(int argc, char **argv)
{
    const char *format = "text", *output = NULL, *title = NULL, *event = NULL, *kallsyms = NULL;
    struct profile prof[2] = { { .path = "perf.data.old" }, { .path = "perf.data" } };
    bool wide = false;
    struct outfile of;
    FILE *f = stdout;
    struct stat st;
    int c, ret = 1, err;

    opterr = 0;
    optind = 1;
    while ((c = cmd_getopt(&cmd_diff_decl, argc, argv)) != -1) {
        switch (c) {
        case OPT_FORMAT: format = optarg; break;
        case 'o': output = optarg; break;
        case OPT_TITLE: title = optarg; break;
        case 'e': event = optarg; break;
        case OPT_KALLSYMS:
            if (stat(optarg, &st) || !S_ISREG(st.st_mode))
                return cmd_usage_error("diff", "--kallsyms %s: not a readable regular file",
                                       optarg);
            kallsyms = optarg;
            break;
        case OPT_WIDE: wide = true; break;
        case 'h': return cmd_help("diff");
        default: return cmd_bad_option("diff", argv, optind, optopt, c);
        }
    }
    if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "svg") &&
        strcmp(format, "html"))
        return cmd_usage_error("diff", "--format must be text, csv, svg or html, not '%s'",
                               format);
    if (title && strcmp(format, "svg") && strcmp(format, "html"))
        return cmd_usage_error("diff", "--title is for --format svg and html");
    if (output && !*output)
        return cmd_usage_error("diff", "empty -o");
    if (argc - optind > 2)
        return cmd_usage_error("diff", "unexpected argument '%s' (two files: OLD NEW)",
                               argv[optind + 2]);
    if (argc - optind == 2) {
        prof[0].path = argv[optind];
        prof[1].path = argv[optind + 1];
    } else if (argc - optind == 1) {
        prof[1].path = argv[optind];  /* as perf diff: one file is NEW, OLD perf.data.old */
    }
    if (load(&prof[0], event, kallsyms) || load(&prof[1], event, kallsyms))
        goto out;
    if (!same_event(prof[0].sel->name, prof[1].sel->name))
        cmd_error("diff", "note: comparing '%s' samples of %s with '%s' samples of %s",
                  prof[0].sel->name, prof[0].path, prof[1].sel->name, prof[1].path);
    if (output && (err = outfile_open(&of, output, 0666))) {
        cmd_error("diff", "cannot write %s: %s", output, outfile_strerror(err));
        goto out;
    }
    if (output)
        f = of.fp;
    if (!strcmp(format, "svg")) {
        err = write_svg(f, &prof[0], &prof[1], title);
    } else if (!strcmp(format, "html")) {
        err = write_html(f, &prof[0], &prof[1], title);
    } else {
        struct diff_side a = { &prof[0].cs, &prof[0].cy, prof[0].path };
        struct diff_side b = { &prof[1].cs, &prof[1].cy, prof[1].path };
        struct diff_opts o = { .csv = !strcmp(format, "csv"), .wide = wide || log_verbosity,
                               .event = prof[1].sel->name };
        err = report_diff(f, &a, &b, &o);
    }
    if (output) {
        if (err == -EIO && of.err)
            err = of.err;                /* the write's own errno */
        if (err)
            outfile_abort(&of);
        else
            err = outfile_commit(&of);
    } else if (err == -EIO) {
        int e = cmd_stream_errno(stdout);
        err = e ? -e : err;
    }
    if (err) {
        cmd_error("diff", "writing %s: %s", output ? output : "the report", strerror(-err));
        goto out;
    }
    ret = 0;
out:
    unload(&prof[0]);
    unload(&prof[1]);
    return ret;
}
