/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "annotate"
/* prospect annotate: hits per instruction of a perf.data file's functions (src/annotate/). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "annotate/annotate.h"
#include "annotate/render.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "perf/evlist.h"
#include "perf/perfdata.h"
#include "perf/record.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"
#include "symbol/ksyms_cache.h"
#include "util/log.h"
#include "util/strutil.h"

enum { OPT_TOP = 256, OPT_INTEL, OPT_FORMAT, OPT_WIDE, OPT_STDIO, OPT_PID, OPT_COMM,
       OPT_SOURCE, OPT_SOURCE_DIR, OPT_PREFIX_MAP, OPT_NO_TEXT, OPT_SYMFS, OPT_ASM_RAW,
       OPT_PERCENT_TYPE, OPT_NO_SOURCE, OPT_SKIP_MISSING };

static const struct optdecl annotate_opts[] = {
    { 'i', "input", "FILE",
        "the file to read (default: perf.data)", OPTD_COMPLETE_FILE, NULL, 0 },
    { 's', "symbol", "NAME",
        "annotate this function (as a SYMBOL argument; repeatable)", 0, NULL, 0 },
    { OPT_TOP, "top", "N",
        "without SYMBOL: the N hottest functions (default 10, 0 for all)", 0, NULL, 0 },
    { OPT_SOURCE, "source", NULL,
        "hits per source line, with the line's text, instead of per\n"
        "instruction (csv: function, dso, source_file, line, hits,\n"
        "percent, instructions, source)", 0, NULL, 0 },
    { OPT_SOURCE_DIR, "source-dir", "DIR",
        "look for source files under DIR too (repeatable): DIR/a/b/c.c,\n"
        "DIR/b/c.c, DIR/c.c for /x/a/b/c.c", OPTD_COMPLETE_DIR, NULL, 0 },
    { OPT_PREFIX_MAP, "prefix-map", "OLD=NEW",
        "source paths starting with OLD are read under NEW (a moved\n"
        "tree; repeatable, the first match applies)", 0, NULL, 0 },
    { OPT_NO_TEXT, "no-source-text", NULL,
        "file:line only, without the text of the lines", 0, NULL, 0 },
    { OPT_NO_SOURCE, "no-source", NULL,
        "no source lines at all: the instructions alone (perf's option)", 0, NULL, 0 },
    { 'l', "print-line", NULL,
        "a sorted summary of the hot source lines above each listing\n"
        "(perf's option)", 0, NULL, 0 },
    { OPT_ASM_RAW, "asm-raw", NULL,
        "each instruction's bytes too, as objdump (perf's option)", 0, NULL, 0 },
    { OPT_PERCENT_TYPE, "percent-type", "TYPE",
        "local-period (default: of the function's samples, weighted by\n"
        "period), local-hits, global-period or global-hits (of all the\n"
        "samples), as perf", OPTD_COMPLETE_CHOICE,
        "local-period local-hits global-period global-hits", 0 },
    { 'n', "show-nr-samples", NULL,
        "accepted for perf users: the Hits column is always shown", 0, NULL, 0 },
    { OPT_SKIP_MISSING, "skip-missing", NULL,
        "leave out the functions that cannot be disassembled (file\n"
        "missing or changed) instead of saying why (perf's option)", 0, NULL, 0 },
    { OPT_SYMFS, "symfs", "DIR",
        "read every file at DIR/<its path> (another system's files, as\n"
        "perf's option)", OPTD_COMPLETE_DIR, NULL, 0 },
    { 'k', "vmlinux", "FILE",
        "kernel code from this uncompressed image of the running kernel\n"
        "(default: /proc/kcore when readable, as root)", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_INTEL, "intel", NULL,
        "Intel syntax (default: AT&T, as objdump and perf)", 0, NULL, 0 },
    { 'M', "disassembler-style", "STYLE",
        "att or intel (perf's option)", 0, NULL, 0 },
    { 'd', "dso", "NAME",
        "only functions of this shared object (name or path)", 0, NULL, 0 },
    { 'e', "event", "NAME",
        "the event whose samples to show (default: the first)", OPTD_COMPLETE_EVENT, NULL, 0 },
    { OPT_PID, "pid", "PID",
        "only samples of this process", OPTD_COMPLETE_PID, NULL, 0 },
    { OPT_COMM, "comm", "NAME",
        "only samples of processes with this command name", 0, NULL, 0 },
    { OPT_FORMAT, "format", "FMT",
        "text (default), csv (one row per instruction: function, dso,\n"
        "address, hits, percent, source_file, line, inlined, instruction)\n"
        "or json", OPTD_COMPLETE_CHOICE, "text csv json", 0 },
    { OPT_WIDE, "wide", NULL,
        "whole branch-target names (text elides them to fit 100 columns)", 0, NULL, 0 },
    { OPT_STDIO, "stdio", NULL,
        "accepted for perf users: the output is always text on stdout", 0, NULL, 0 },
    { 'v', "verbose", NULL, "more diagnostics", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_annotate_decl = {
    .name = "annotate",
    .synopsis = "[-i FILE] [options] [SYMBOL...]",
    .intro =
"\n"
"Disassembles the functions of a perf.data file (written by 'prospect record' or 'perf\n"
"record') and shows the samples of each instruction, with the source file:line of the code\n"
"interleaved when the file has DWARF line information (-g). Without SYMBOL, the functions\n"
"that got samples, hottest first: user code (a stripped file's a->b brackets, split at\n"
"its unwind tables' function starts into a->b+0xOFF parts) and kernel code. A SYMBOL is a\n"
"name as the report prints it, a bracket's a->b (all its parts), or an ELF address 0x...\n"
"inside the function.\n"
"\n",
    .outro =
"\n"
"Percent is of the function's samples (weighted by period, as perf annotate's default).\n"
"Skid: a sample names the instruction about to run, so a slow instruction's time shows on\n"
"the next one (docs/annotate.md).\n"
"Debug info: separate debug files by build-id or debuglink, perf's ~/.debug, then debuginfod\n"
"servers ($DEBUGINFOD_URLS); compressed ones are kept decompressed in\n"
"~/.cache/prospect/debug (PROSPECT_DEBUG_CACHE=0 turns that off).\n"
"\n"
"Examples:\n"
"  prospect annotate -i perf.data\n"
"  prospect annotate -i perf.data divide --format csv > divide.csv\n",
    .opts = annotate_opts,
    .flags = 0,
};

/* A function start (in dso's ELF addresses) that SYMBOL i names through an alias. */
struct alias_start {
    const struct dso *dso;
    uint64_t start;
    int sym;
};

struct annotate_opts {
    const char *input, *event, *dso, *vmlinux, *symfs;
    unsigned top;
    enum ann_syntax syntax;
    enum report_format fmt;
    bool wide, by_line, no_text, no_source, asm_raw, print_line, skip_missing;
    enum ann_percent percent;
    struct session_filter filter;
    const char *dirs[32];
    size_t ndirs;
    struct ann_prefix_map maps[32];
    size_t nmaps;
    const char **syms;          /* SYMBOL arguments and -s NAME: room for argc */
    int nsyms;
    VEC(struct alias_start) aliases;    /* where a SYMBOL that names no listed function is */
};

static int parse_args(int argc, char **argv, struct annotate_opts *o)
{
    uint64_t v;
    int c;

    o->input = "perf.data";
    o->top = 10;
    o->filter.pid = o->filter.tid = -1;
    o->filter.cpu = -1;
    if (!(o->syms = calloc((size_t)argc + 1, sizeof(*o->syms))))
        return cmd_usage_error("annotate", "out of memory");
    opterr = 0;
    optind = 1;
    while ((c = cmd_getopt(&cmd_annotate_decl, argc, argv)) != -1) {
        switch (c) {
        case 'i': o->input = optarg; break;
        case OPT_TOP:
            if (parse_u64(optarg, &v) || v > 1000000)
                return cmd_usage_error("annotate", "invalid --top '%s'", optarg);
            o->top = (unsigned)v;
            break;
        case OPT_INTEL: o->syntax = ANN_INTEL; break;
        case OPT_SOURCE: o->by_line = true; break;
        case OPT_NO_TEXT: o->no_text = true; break;
        case OPT_NO_SOURCE: o->no_source = true; break;
        case 'l': o->print_line = true; break;
        case OPT_ASM_RAW: o->asm_raw = true; break;
        case 'n': break;
        case OPT_SKIP_MISSING: o->skip_missing = true; break;
        case 's': o->syms[o->nsyms++] = optarg; break;
        case OPT_PERCENT_TYPE:
            if (ann_percent_parse(optarg, &o->percent))
                return cmd_usage_error("annotate", "--percent-type must be local-period, "
                                       "local-hits, global-period or global-hits, not '%s'",
                                       optarg);
            break;
        case OPT_SOURCE_DIR:
            if (o->ndirs == sizeof(o->dirs) / sizeof(o->dirs[0]))
                return cmd_usage_error("annotate", "too many --source-dir (at most 32)");
            o->dirs[o->ndirs++] = optarg;
            break;
        case OPT_PREFIX_MAP:
            if (o->nmaps == sizeof(o->maps) / sizeof(o->maps[0]))
                return cmd_usage_error("annotate", "too many --prefix-map (at most 32)");
            if (ann_prefix_map_parse(optarg, &o->maps[o->nmaps]))
                return cmd_usage_error("annotate", "--prefix-map wants OLD=NEW, not '%s'",
                                       optarg);
            o->nmaps++;
            break;
        case 'M':
            if (strcmp(optarg, "att") && strcmp(optarg, "intel"))
                return cmd_usage_error("annotate", "--disassembler-style must be att or intel, "
                                       "not '%s'", optarg);
            o->syntax = strcmp(optarg, "intel") ? ANN_ATT : ANN_INTEL;
            break;
        case 'd': o->dso = optarg; break;
        case 'k': o->vmlinux = optarg; break;
        case OPT_SYMFS: {
            struct stat st;
            if (stat(optarg, &st))
                return cmd_usage_error("annotate", "--symfs %s: %s", optarg, strerror(errno));
            if (!S_ISDIR(st.st_mode))
                return cmd_usage_error("annotate", "--symfs %s: not a directory", optarg);
            o->symfs = optarg;
            break;
        }
        case 'e': o->event = optarg; break;
        case OPT_PID:
            if (parse_u64(optarg, &v) || v == 0 || v > INT32_MAX)
                return cmd_usage_error("annotate", "invalid --pid '%s'", optarg);
            o->filter.pid = (pid_t)v;
            break;
        case OPT_COMM: o->filter.comm = optarg; break;
        case OPT_FORMAT:
            if (report_format_parse(optarg, &o->fmt))
                return cmd_usage_error("annotate", "--format must be text, csv or json, not "
                                       "'%s'", optarg);
            break;
        case OPT_WIDE: o->wide = true; break;
        case OPT_STDIO: break;
        case 'v': log_verbosity++; break;
        case 'h': return -1;
        default: return cmd_bad_option("annotate", argv, optind, optopt, c);
        }
    }
    while (optind < argc)
        o->syms[o->nsyms++] = argv[optind++];
    if (o->no_source && o->by_line)
        return cmd_usage_error("annotate", "--no-source and --source contradict each other");
    return 0;
}

/* The records of every event, the samples of one. */
struct feed {
    struct session *s;
    const struct evsel *sel;
    uint64_t other_samples;
    uint64_t kernel_text;       /* _text when recorded (the kernel map's pgoff), 0: unknown */
};

static int feed_record(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                       uint64_t time)
{
    struct feed *fd = arg;
    if (h->type == PERF_RECORD_SAMPLE && evlist_evsel_for(evl, h) != fd->sel) {
        fd->other_samples++;
        return 0;
    }
    if (h->type == PERF_RECORD_MMAP && (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
        PERF_RECORD_MISC_KERNEL) {
        const struct rec_mmap *m = (const struct rec_mmap *)h;
        const char *name = record_string(h);
        if (name && !strncmp(name, "[kernel.kallsyms]", 17) && m->pid == (uint32_t)-1)
            fd->kernel_text = m->pgoff;
    }
    return session_record(fd->s, evl, h, time);
}

/* A damaged or unfinished file is still listed, from what could be read: say so on stderr. */
static void damage_warning(const struct perfdata *pd, const char *path)
{
    const struct perfdata_stats *st = perfdata_stats(pd);
    char line[1024];

    if (st->truncated) {
        perfdata_error_str(&st->damage, line, sizeof(line));
        cmd_error("annotate", "warning: %s; the listing covers the %" PRIu64 " records before "
                  "it", line, st->nr_records);
    } else if (st->bad) {
        perfdata_error_str(&st->first_bad, line, sizeof(line));
        cmd_error("annotate", "warning: %s (%" PRIu64 " records that did not decode skipped)",
                  line, st->bad);
    } else if (st->data_size_missing) {
        cmd_error("annotate", "%s: warning: the recording did not finish: read to the end of "
                  "the file", path);
    }
}

/* Kernel symbols: the copy of kallsyms kept for the file's kernel build-id when it was taken
 * for this placement (a file read, where the kernel needs ~40 ms to format /proc/kallsyms),
 * else /proc/kallsyms. 0 or -errno. */
static int load_ksyms(const struct perfdata_info *in, uint64_t text, struct ksyms **ks)
{
    char used[4096];

    for (size_t i = 0; text && i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *b = &in->build_ids[i];
        if (!strcmp(b->path, "[kernel.kallsyms]") && b->size && b->size <= BUILD_ID_MAX &&
            !ksyms_cache_load(b->id, b->size, text, ks, used, sizeof(used)))
            return 0;
    }
    return ksyms_load("/proc/kallsyms", ks);
}

/* "divide" matches divide; a C++ name also without its parameters ("ns::f" for "ns::f(int)"). */
static bool name_is(const char *name, const char *want)
{
    size_t n = strlen(want);
    return name && (!strcmp(name, want) || (!strncmp(name, want, n) && name[n] == '('));
}

/* A bracket part ("a->b+0x170", symbol/symtab.h) is also found by its whole bracket's name. */
static bool part_of(const struct ann_func *f, const char *name, const char *want)
{
    size_t n = strlen(want);
    return f->bracket && name && !strncmp(name, want, n) && !strncmp(name + n, "+0x", 3);
}

/* A SYMBOL "0x16a00" is an ELF virtual address inside the function. */
static bool holds_address(const struct ann_func *f, const char *want)
{
    char *end;
    unsigned long long a;

    if (strncmp(want, "0x", 2))
        return false;
    errno = 0;
    a = strtoull(want, &end, 16);
    return !errno && !*end && end != want + 2 && a >= f->start && a - f->start < f->size;
}

/* The function's name, or the report's name for its code ("(start)->a"). */
static bool name_matches(const struct ann_func *f, const char *want)
{
    return name_is(f->name, want) || name_is(f->report_name, want) ||
           part_of(f, f->name, want) || part_of(f, f->report_name, want) ||
           holds_address(f, want);
}

static bool dso_matches(const struct ann_func *f, const char *dso)
{
    if (!dso)
        return true;
    if (f->kernel)
        return !strcmp(ann_func_dso(f), dso) || !strcmp(dso, "[kernel]") ||
               !strcmp(dso, "kernel");
    return !strcmp(dso_path(f->dso), dso) || !strcmp(dso_short_name(f->dso), dso);
}

/* Whether SYMBOL i is another name of f's address (glibc's __memcpy_avx512_unaligned_erms
 * for the __memmove_... the report shows). */
static bool alias_of(const struct annotate_opts *o, const struct ann_func *f, int i)
{
    for (size_t k = 0; k < o->aliases.n; k++) {
        const struct alias_start *a = &o->aliases.v[k];
        if (a->sym == i && a->dso == f->dso && a->start == f->start)
            return true;
    }
    return false;
}

static bool named(const struct annotate_opts *o, const struct ann_func *f, int i)
{
    return name_matches(f, o->syms[i]) || (!f->kernel && alias_of(o, f, i));
}

static bool chosen(const struct annotate_opts *o, const struct ann_func *f)
{
    if (!dso_matches(f, o->dso))
        return false;
    if (!o->nsyms)
        return true;
    for (int i = 0; i < o->nsyms; i++)
        if (named(o, f, i))
            return true;
    return false;
}

/* The starts of the symbols named SYMBOL i in the files of the functions with samples, for
 * a SYMBOL that is none of their names. 0 or -ENOMEM. */
static int find_aliases(struct annotate_opts *o, const struct ann_set *set, int i)
{
    struct symbol_match m[16];
    struct hashmap seen;        /* DSOs searched already */
    int err = 0;

    hashmap_init(&seen);
    for (size_t k = 0; k < set->funcs.n && !err; k++) {
        struct dso *d = set->funcs.v[k]->dso;
        if (set->funcs.v[k]->kernel || !d || hashmap_get(&seen, (uint64_t)(uintptr_t)d))
            continue;
        if ((err = hashmap_put(&seen, (uint64_t)(uintptr_t)d, d)))
            break;
        size_t n = dso_find_symbols(d, o->syms[i], m, sizeof(m) / sizeof(m[0]));
        for (size_t j = 0; j < n && !err; j++)
            err = vec_push(&o->aliases, ((struct alias_start){ d, m[j].start, i }));
    }
    hashmap_release(&seen);
    return err;
}

/* Samples in files that gave no name for them: say which file and why (rebuilt, stripped). */
static void unnamed_note(const struct ann_set *set)
{
    char pbuf[512];
    enum dso_status st = dso_status(set->unnamed_dso);

    cmd_error("annotate", "note: %" PRIu64 " samples are in code without a function name, as "
              "in %s (%s)", set->unnamed,
              str_printable(dso_path(set->unnamed_dso), pbuf, sizeof(pbuf)),
              st == DSO_OK_SYMTAB ? "no symbol covers them" : dso_status_str(st));
}

/* Lists the chosen functions; 0, 1 (a SYMBOL has no samples) or -errno (write error). */
static int annotate_all(struct annotate_opts *o, struct ann_set *set,
                        const char *event)
{
    struct ann_out out = { .f = stdout, .fmt = o->fmt, .wide = o->wide || log_verbosity > 0,
                           .by_line = o->by_line, .no_source = o->no_source,
                           .asm_raw = o->asm_raw, .print_line = o->print_line,
                           .percent = o->percent };
    struct ann_source_opts so = { o->dirs, o->ndirs, o->maps, o->nmaps };
    unsigned shown = 0;
    int ret = 0, err;

    for (int i = 0; i < o->nsyms; i++) {
        bool found = false;
        for (size_t k = 0; k < set->funcs.n && !found; k++)
            found = name_matches(set->funcs.v[k], o->syms[i]) &&
                    dso_matches(set->funcs.v[k], o->dso);
        if (!found && find_aliases(o, set, i))
            return -ENOMEM;
        for (size_t k = 0; k < set->funcs.n && !found; k++)
            found = named(o, set->funcs.v[k], i) && dso_matches(set->funcs.v[k], o->dso);
        if (!found) {
            cmd_error("annotate", "%s: no samples in a function named '%s'%s%s", o->input,
                      o->syms[i], o->dso ? " of " : "", o->dso ? o->dso : "");
            ret = 1;
        }
    }
    for (size_t k = 0; k < set->funcs.n && !shown; k++)
        shown = chosen(o, set->funcs.v[k]);
    if (!shown) {
        if (!o->nsyms && !set->samples)
            cmd_error("annotate", "%s: no samples of %s in the file", o->input,
                      event ? event : "its event");
        else if (!o->nsyms)
            cmd_error("annotate", "%s: no samples in a named function%s%s",
                      o->input, o->dso ? " of " : "", o->dso ? o->dso : "");
        if (set->unnamed)
            unnamed_note(set);
        return 1;
    }
    shown = 0;
    if (set->unnamed && o->fmt == REPORT_TEXT)
        unnamed_note(set);
    if (!o->no_text && !o->no_source && !(out.text = ann_sources_new(&so)))
        return -ENOMEM;
    ann_render_begin(&out, set, o->input, event);
    for (size_t k = 0; k < set->funcs.n; k++) {
        const struct ann_func *f = set->funcs.v[k];
        struct ann_listing l;
        char why[512];

        if (!chosen(o, f))
            continue;
        if (!o->nsyms && o->top && shown == o->top)
            break;
        shown++;
        err = ann_listing_build(set, f, o->syntax, &l, why, sizeof(why));
        if (err == -ENOMEM) {
            ann_sources_free(out.text);
            return err;
        }
        if (err && !(err == -ENOEXEC && o->by_line)) {
            if (!o->skip_missing)
                ann_render_skipped(&out, set, f, why);
        }
        else
            ann_render_listing(&out, set, &l);
        ann_listing_release(&l);
    }
    err = ann_render_end(&out);
    ann_sources_free(out.text);
    return err ? err : ret;
}

int cmd_annotate(int argc, char **argv)
{
    struct annotate_opts o = { 0 };
    struct perfdata_error perr;
    struct perfdata *pd;
    struct session session;
    struct ann_set set;
    struct ksyms *ks = NULL;
    struct feed fd = { 0 };
    char line[1024];
    int ret = parse_args(argc, argv, &o);

    if (ret) {
        free(o.syms);
        return ret < 0 ? cmd_help("annotate") : ret;
    }
    if (perfdata_open(o.input, &pd, &perr)) {
        perfdata_error_str(&perr, line, sizeof(line));
        cmd_error("annotate", "%s", line);
        free(o.syms);
        return 1;
    }
    if (session_init(&session)) {
        cmd_error("annotate", "out of memory");
        perfdata_close(pd);
        free(o.syms);
        return 1;
    }
    session.filter = o.filter;
    fd.s = &session;
    fd.sel = pick_evsel(perfdata_evlist(pd), o.event);
    ret = 1;
    if (!fd.sel) {
        cmd_error("annotate", "%s: no event%s%s%s in the file", o.input, o.event ? " named '" : "",
                  o.event ? o.event : "", o.event ? "'" : "");
        goto out;
    }
    if ((o.symfs && dso_cache_set_symfs(session.dsos, o.symfs)) ||
        session_add_build_ids(&session, perfdata_info(pd))) {
        cmd_error("annotate", "out of memory");
        goto out;
    }
    if (perfdata_process(pd, feed_record, &fd, 0, &perr)) {
        perfdata_error_str(&perr, line, sizeof(line));
        cmd_error("annotate", "%s", line);
        goto out;
    }
    damage_warning(pd, o.input);
    if (fd.other_samples)
        cmd_error("annotate", "note: the samples of '%s' are shown; %llu samples of other events "
                  "are not (choose with --event NAME)", fd.sel->name,
                  (unsigned long long)fd.other_samples);
    if (session.stats.kernel) {
        int kerr = load_ksyms(perfdata_info(pd), fd.kernel_text, &ks);
        if (kerr == -ENOMEM) {
            cmd_error("annotate", "out of memory");
            goto out;
        }
        if (kerr)
            cmd_error("annotate", "note: kernel samples not annotated: /proc/kallsyms: %s",
                      kerr == -EACCES ? "addresses hidden (kernel.kptr_restrict)"
                                      : strerror(-kerr));
    }
    if (ann_collect(&session, ks, &set)) {
        cmd_error("annotate", "out of memory");
        goto out;
    }
    set.vmlinux = o.vmlinux;
    ret = annotate_all(&o, &set, fd.sel->name);
    if (symbol_debuginfod_problem(line, sizeof(line)))
        cmd_error("annotate", "note: %s", line);
    if (ret < 0) {
        int werr = cmd_stream_errno(stdout);
        cmd_error("annotate", "%s%s", ret == -EIO ? "writing the listing: " : "",
                  strerror(werr ? werr : -ret));
        ret = 1;
    }
    ann_set_release(&set);
out:
    free(o.syms);
    vec_free(&o.aliases);
    ksyms_free(ks);
    session_release(&session);
    perfdata_close(pd);
    return ret;
}
