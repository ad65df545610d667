/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "record"
/* prospect record: profile like `run`, but write the records to a perf.data file (which perf
 * reads too) instead of reporting. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "util/file.h"
#include "symbol/ksyms_cache.h"
#include "symbol/ksyms.h"
#include "cmd/profile_opts.h"
#include "perf/collect.h"
#include "perf/perfdata_write.h"
#include "perf/proc_synth.h"
#include "cmd/record_switch.h"
#include "session/session.h"
#include "symbol/buildid_cache.h"
#include "symbol/dso.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/strutil.h"

enum { OPT_SWITCH_OUTPUT = 256, OPT_SWITCH_MAX_FILES };

static const struct optdecl record_opts[] = {
    PROFILE_OPTDECLS,
    { 'p', "pid", "PID", "attach to a running process (repeat for more)",
        OPTD_COMPLETE_PID, NULL, 0 },
    OPTD_OUTPUT("the perf.data file to write (default perf.data); - streams it to\n"
                "standard output in perf's pipe mode (the command's own standard\n"
                "output then goes to standard error, as with perf)"),
    { 'N', "no-buildid-cache", NULL,
        "do not copy the files that got samples into perf's build-id\n"
        "cache ($PERF_BUILDID_DIR or ~/.debug), which keeps them\n"
        "reportable after they are deleted or rebuilt", 0, NULL, 0 },
    { OPT_SWITCH_OUTPUT, "switch-output", "[=WHEN]",
        "continuous recording: rotate the output into a new file on\n"
        "SIGUSR2 (WHEN signal, the default), every TIME (30s, 10m, 1h,\n"
        "1d) or at a SIZE of data (100M, 1G); each finished part is\n"
        "renamed FILE.YYYYmmddHHMMSScc and is reportable alone", 0, NULL, 0 },
    { OPT_SWITCH_MAX_FILES, "switch-max-files", "N",
        "with --switch-output: keep the N newest parts, remove older ones", 0, NULL, 0 },
    { 'v', "verbose", NULL, "explain choices (-vv: more)", 0, NULL, 0 },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_record_decl = {
    .name = "record",
    .synopsis = "[options] [--] COMMAND [ARGS...]",
    .intro =
"       prospect record -a [options] [-- COMMAND [ARGS...]]\n"
"       prospect record -p PID [-p PID2 ...] [options]\n"
"\n"
"Samples like 'prospect run' and writes every record to a perf.data file: read it with\n"
"'prospect report' (or 'perf report'). With -p, attaches to running processes (all their\n"
"threads) until Ctrl-C or --duration. An existing output file is renamed to FILE.old (and\n"
"put back if recording fails); a symlink at FILE is refused.\n"
"The exit status is the command's.\n"
"\n",
    .outro =
"\n"
"Examples:\n"
"  prospect record -o perf.data -- ./myprog\n"
"  prospect record -a -F 4000 -o sys.data -- sleep 30\n"
"  prospect record -p 1234 --duration 10\n"
"  prospect record -a -F 49 -g --switch-output=1h --switch-max-files 24\n",
    .opts = record_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

struct rec_out {
    struct perfdata_writer *w;
    const struct evlist *evl;
    uint64_t ktext_start, ktext_end;   /* 0: unknown, no kernel map record */
    bool started;
    /* --switch-output: what a rotation needs */
    struct switch_output so;
    const char *output;
    struct session *session;
    const struct perfdata_write_meta *meta;
    const struct collect_opts *collect;
    const struct collect_result *res;
    bool buildid_cache;
    uint64_t parts;
};

static int raw_out(void *arg, const struct perf_event_header *h)
{
    struct rec_out *o = arg;

    if (!o->started) {
        /* First, the kernel map record perf needs (the events and their ids exist now). */
        uint64_t buf[64];
        int n;
        o->started = true;
        if (o->ktext_start &&
            (n = perfdata_synth_kernel_mmap(o->evl, o->ktext_start, o->ktext_end, buf,
                                            sizeof(buf))) > 0) {
            int err = perfdata_writer_write(o->w, (const struct perf_event_header *)buf);
            if (err)
                return err;
        }
    }
    return perfdata_writer_write(o->w, h);
}


/* HEADER_BUILD_ID: every DSO that got a hit, and the kernel if it did (as perf writes); with
 * `cache`, a copy of each such file goes into perf's build-id cache, as perf record does. */
static void add_build_ids(struct perfdata_writer *w, struct session *s, bool cache)
{
    uint8_t id[BUILD_ID_MAX];
    size_t len;
    int err;

    for (size_t i = 0; i < s->procs.n; i++) {
        struct process *p = s->procs.v[i];
        for (int pass = 0; pass < 2; pass++) {
            struct map **maps = pass ? p->retired.v : p->maps.v;
            size_t n = pass ? p->retired.n : p->maps.n;
            for (size_t j = 0; j < n; j++) {
                struct dso *d = maps[j]->dso;
                if (!hitstore_count(&maps[j]->hits) || dso_kind(d) == DSO_ANON)
                    continue;
                len = sizeof(id);
                if (dso_build_id(d, id, &len))
                    continue;
                perfdata_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, dso_path(d), id, len);
                if (cache && dso_kind(d) == DSO_FILE && (err = buildid_cache_add(dso_path(d),
                                                                                  id, len)))
                    pr_debug("%s: not copied to the build-id cache: %s", dso_path(d),
                             strerror(-err));
            }
        }
    }
    len = sizeof(id);
    if (s->stats.kernel && perfdata_kernel_build_id("/sys/kernel/notes", id, &len) == 0)
        perfdata_writer_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id,
                                     len);
}

/* Where the kernel's text is (for the kernel map record perf needs), from one read of
 * /proc/kallsyms that is also kept in the kallsyms cache for the kernel's build-id: reports
 * then see the kernel as it was when recorded, without the kernel formatting kallsyms again
 * (as `perf record` keeps it in ~/.debug). Zero when hidden or unreadable. */
static void kernel_text_and_cache(uint64_t *start, uint64_t *end)
{
    uint8_t id[BUILD_ID_MAX];
    size_t idlen = sizeof(id), len;
    struct ksyms *ks;
    char *text;
    int err;

    *start = *end = 0;
    if (file_read_all("/proc/kallsyms", &text, &len, 64u << 20))
        return;
    if (perfdata_kernel_build_id("/sys/kernel/notes", id, &idlen) == 0 &&
        (err = ksyms_cache_save(id, idlen, text, len)))
        pr_debug("cannot keep a copy of kallsyms: %s", strerror(-err));
    if (ksyms_parse(text, len, &ks))        /* takes the text */
        return;
    *start = ksyms_lookup(ks, "_text");
    *end = ksyms_lookup(ks, "_etext");
    if (*end <= *start)
        *start = *end = 0;                  /* hidden (kptr_restrict) or odd */
    ksyms_free(ks);
}

/* perf's habit: keep the previous recording as FILE.old instead of overwriting it. The new
 * file is then created exclusively: written in place (a killed record leaves what it wrote),
 * never through a symlink, and a failed record leaves the previous one intact as FILE.old. */
static int keep_old(const char *path, bool *moved)
{
    char old[4096];
    struct stat st;

    if (lstat(path, &st) || !S_ISREG(st.st_mode))
        return 0;               /* nothing, or what outfile_create_fd opens as is or refuses */
    if (st.st_size == 0)
        return unlink(path) ? -errno : 0;
    if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
        return -ENAMETOOLONG;
    if (rename(path, old))
        return -errno;
    *moved = true;
    return 0;
}

/* A record that failed before recording anything puts the previous file back. */
static void restore_old(const char *path)
{
    char old[4096];

    snprintf(old, sizeof(old), "%s.old", path);
    if (rename(old, path))
        pr_debug("cannot move %s back to %s: %s\n", old, path, strerror(errno));
}

/* -o -: pipe mode on what standard output was; from here on our standard output is our
 * standard error, so that the command's output (it inherits it) stays out of the data, as
 * perf does. 0, or 1 with the error printed. */
static int open_pipe_output(const struct evlist *evl, const struct perfdata_write_meta *meta,
                            struct perfdata_writer **w)
{
    struct perfdata_error perr;
    char line[1024];
    int fd;

    if (isatty(1)) {
        cmd_error("record", "-o -: standard output is a terminal: redirect it to a file or a "
                  "pipe (prospect record -o - ... | prospect report -i -)");
        return 1;
    }
    if ((fd = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0) {
        cmd_error("record", "-o -: standard output: %s", strerror(errno));
        return 1;
    }
    if (dup2(2, 1) < 0) {
        cmd_error("record", "-o -: cannot move standard output aside: %s", strerror(errno));
        close(fd);
        return 1;
    }
    if (perfdata_writer_open_pipe(fd, "-", evl, meta, w, &perr)) {
        perfdata_error_str(&perr, line, sizeof(line));
        cmd_error("record", "%s", line);
        return 1;
    }
    return 0;
}

/* Creates the output for the writer. 0, or 1 with the error printed. */
static int open_output(const char *output, const struct evlist *evl,
                       struct perfdata_writer **w, bool *created, bool *moved)
{
    struct perfdata_error perr;
    char line[1024];
    int e = keep_old(output, moved), fd;

    if (e) {
        cmd_error("record", "cannot move %s to %s.old: %s", output, output, strerror(-e));
        return 1;
    }
    fd = outfile_create_fd(output, 0600, created);
    if (fd < 0) {
        cmd_error("record", "cannot write %s: %s", output, outfile_strerror(fd));
        if (*moved)
            restore_old(output);
        return 1;
    }
    if (perfdata_writer_open_fd(fd, output, evl, w, &perr)) {
        perfdata_error_str(&perr, line, sizeof(line));
        cmd_error("record", "%s", line);
        if (*created)
            unlink(output);
        if (*moved)
            restore_old(output);
        return 1;
    }
    return 0;
}

/* Ends the current part: build ids, features, header; with --switch-output renamed to its
 * timestamped name, older parts past --switch-max-files removed. 0, or 1 with the error
 * printed. */
static int finish_part(struct rec_out *o)
{
    struct perfdata_error perr;
    char line[1024], name[4096], removed[4096] = "";
    uint64_t samples = perfdata_writer_samples(o->w);
    double mb = (double)perfdata_writer_data_bytes(o->w) / 1e6;
    int err;

    add_build_ids(o->w, o->session, o->buildid_cache);
    err = perfdata_writer_close(o->w, o->meta, &perr);
    o->w = NULL;
    if (err) {
        perfdata_error_str(&perr, line, sizeof(line));
        cmd_error("record", "%s", line);
        return 1;
    }
    snprintf(name, sizeof(name), "%s", strcmp(o->output, "-") ? o->output : "standard output");
    if (o->so.enabled) {
        if ((err = switch_output_rename(o->output, name, sizeof(name)))) {
            cmd_error("record", "cannot rename %s to %s.TIMESTAMP: %s", o->output, o->output,
                      strerror(-err));
            return 1;
        }
        o->parts++;
        if ((err = switch_output_keep(&o->so, name, removed, sizeof(removed))))
            cmd_error("record", "cannot remove %s: %s", removed[0] ? removed : name,
                      strerror(-err));
    }
    fprintf(stderr, "prospect record: wrote %llu samples (%.3f MB) to %s\n",
            (unsigned long long)samples, mb, name);
    if (removed[0])
        fprintf(stderr, "prospect record: removed %s (--switch-max-files %zu)\n", removed,
                o->so.max_files);
    return 0;
}

/* The records of the processes running at a rotation, read from /proc before the new part
 * exists (whoever waits for the new file finds them in it). */
struct synth_buf {
    uint64_t *v;                /* records back to back (their sizes are multiples of 8) */
    size_t n, cap;              /* in bytes */
};

static int synth_keep(void *arg, const struct perf_event_header *h)
{
    struct synth_buf *b = arg;

    if (b->n + h->size > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1u << 16;
        uint64_t *v;
        while (cap < b->n + h->size)
            cap *= 2;
        if (!(v = realloc(b->v, cap)))
            return -ENOMEM;
        b->v = v;
        b->cap = cap;
    }
    memcpy((uint8_t *)b->v + b->n, h, h->size);
    b->n += h->size;
    return 0;
}

/* The processes as they are now (COMM and MMAP records from /proc, as at the start). */
static int synth_now(const struct rec_out *o, struct synth_buf *b)
{
    const struct perf_event_attr *attr = &o->evl->sel[0].attr;
    struct proc_synth_stats st = { 0 };
    int err = 0;

    if (o->collect->system_wide)
        err = proc_synthesize("/proc", -1, attr, synth_keep, b, &st);
    else if (o->collect->nr_pids)
        for (size_t i = 0; i < o->collect->nr_pids && (err >= 0 || err == -ENOENT); i++)
            err = proc_synthesize("/proc", o->collect->pids[i], attr, synth_keep, b, &st);
    else if (o->res->child)
        err = proc_synthesize("/proc", o->res->child, attr, synth_keep, b, &st);
    pr_debug("new part: %llu processes, %llu maps, %llu unreadable",
             (unsigned long long)st.processes, (unsigned long long)st.maps,
             (unsigned long long)st.unreadable);
    /* Processes that ended meanwhile, or that are not ours to read, are no failure. */
    return err == -ENOENT || err == -EACCES || err == -ESRCH ? 0 : err < 0 ? err : 0;
}

/* The session starts again with each part: a part's build ids are those of what its samples
 * hit, and memory stays that of one part however long the recording runs (the ordered
 * queue's records still in flight go to the new session, as records of the new part). */
static int reset_session(struct session *s)
{
    pid_t self = s->self_pid;

    session_release(s);
    if (session_init(s))
        return -ENOMEM;
    s->self_pid = self;
    return 0;
}

/* A new part: the processes running now, then the file with them first, so that it is
 * reportable without the parts before it. They go to the part's new session too (what its
 * samples hit, for its build ids). 0 or -errno. */
static int start_part(struct rec_out *o)
{
    struct synth_buf b = { 0 };
    bool created = false, moved = false;
    int err = synth_now(o, &b);

    if (!err && open_output(o->output, o->evl, &o->w, &created, &moved))
        err = -EIO;
    if (!err)
        err = reset_session(o->session);
    o->started = false;         /* the kernel map record first again */
    for (size_t off = 0; !err && off < b.n; ) {
        const struct perf_event_header *h = (const void *)((const uint8_t *)b.v + off);
        if (!(err = raw_out(o, h)))
            err = session_record(o->session, o->evl, h, 0);
        off += h->size;
    }
    free(b.v);
    return err;
}

/* After each drain of the ring buffers: a FINISHED_ROUND, and a rotation when one is due
 * (between rounds, so no record is lost or split between parts). */
static int round_out(void *arg)
{
    struct rec_out *o = arg;
    int err = perfdata_writer_round(o->w);

    if (err || !o->so.enabled || !switch_output_due(&o->so, perfdata_writer_data_bytes(o->w)))
        return err;
    if (finish_part(o))
        return -EIO;
    return start_part(o);
}

int cmd_record(int argc, char **argv)
{
    struct profile_opts po;
    struct collect_result res;
    struct collect_outlets outlets = { .raw = raw_out, .round_end = round_out,
                                       .ordered = session_record };
    struct session session;
    struct rec_out rout = { 0 };
    const char *output = "perf.data";
    char err[512], version[64];
    int c, ret, status = 1;
    uint64_t max_files;
    bool created = false, moved = false, to_pipe;
    struct perfdata_write_meta meta = { 0 };
    const char **full = NULL;

    profile_opts_init(&po);
    rout.buildid_cache = true;
    opterr = 0;     /* our own one-line messages */
    optind = 1;
    while ((c = cmd_getopt(&cmd_record_decl, argc, argv)) != -1) {
        ret = profile_opts_parse(&po, "record", c, optarg);
        if (ret == 0)
            continue;
        if (ret != -ENOENT)
            return EXIT_USAGE;
        switch (c) {
        case 'o': output = optarg; break;
        case 'N': rout.buildid_cache = false; break;
        case OPT_SWITCH_OUTPUT:
            if (switch_output_parse(&rout.so, optarg))
                return cmd_usage_error("record", "--switch-output=%s: not signal, a time (30s, "
                                       "10m, 1h, 1d) or a size (100M, 1G)", optarg);
            break;
        case OPT_SWITCH_MAX_FILES:
            if (parse_u64(optarg, &max_files) || max_files > SIZE_MAX)
                return cmd_usage_error("record", "--switch-max-files %s: not a number",
                                       optarg);
            rout.so.max_files = (size_t)max_files;
            break;
        case 'v': log_verbosity++; break;
        case 'h': return cmd_help("record");
        default: return cmd_bad_option("record", argv, optind, optopt, c);
        }
    }
    if (optind < argc)
        po.collect.argv = argv + optind;
    if (!po.collect.argv && !po.collect.system_wide && !po.collect.nr_pids)
        return cmd_usage_error("record", "no command given (or -a, or -p PID)");
    if (po.collect.argv && po.collect.nr_pids)
        return cmd_usage_error("record", "-p attaches to running processes: give no command");
    ret = profile_opts_finish(&po, "record");
    if (ret)
        return ret;
    cmd_warn_setid("record", po.collect.argv ? po.collect.argv[0] : NULL,
                   "it has no samples after that exec");
    to_pipe = !strcmp(output, "-");
    if (to_pipe && rout.so.enabled)
        return cmd_usage_error("record", "--switch-output writes files: not with -o -");
    if (session_init(&session)) {
        cmd_error("record", "out of memory");
        return 1;
    }
    session.self_pid = getpid();
    outlets.ordered_arg = &session;
    /* HEADER_CMDLINE: "prospect record ..." (argv[0] here is "record"). */
    if ((full = malloc(((size_t)argc + 1) * sizeof(char *)))) {
        full[0] = "prospect";
        for (int i = 0; i < argc; i++)
            full[i + 1] = argv[i];
        meta.argv = full;
        meta.argc = (size_t)argc + 1;
    }
    snprintf(version, sizeof(version), "prospect %s", PROSPECT_VERSION);
    meta.version = version;
    /* The writer reads the events (attrs, ids) at the first record and at close; collect_run
     * fills res.evlist. */
    memset(&res, 0, sizeof(res));
    /* Before the output exists: a Ctrl-C from the moment it does stops the recording. */
    collect_install_stop_handlers();
    if (to_pipe ? open_pipe_output(&res.evlist, &meta, &rout.w)
                : open_output(output, &res.evlist, &rout.w, &created, &moved)) {
        session_release(&session);
        free(full);
        return 1;
    }
    rout.evl = &res.evlist;
    rout.output = output;
    rout.session = &session;
    rout.meta = &meta;
    rout.collect = &po.collect;
    rout.res = &res;
    if (rout.so.enabled)
        switch_output_start(&rout.so);
    kernel_text_and_cache(&rout.ktext_start, &rout.ktext_end);
    outlets.raw_arg = &rout;
    ret = collect_run(&po.collect, &outlets, &res, err, sizeof(err));
    status = profile_opts_collected(&po, "record", ret, &res, err,
                                    "the file holds what was collected", "recording");
    if (!rout.w)        /* a rotation failed (said): the parts before it are complete */
        status = 1;
    if (status >= 0)
        goto fail;
    if (finish_part(&rout)) {
        if (created && !rout.parts)
            unlink(output);
        status = 1;
        goto out;
    }
    if (session.stats.lost)
        fprintf(stderr, "prospect record: some samples were lost: see 'prospect report "
                "--header'\n");
    status = collect_exit_status(&res);
    if (res.stop_signal && !res.child)
        status = 0;
    goto out;
fail:
    perfdata_writer_abort(rout.w);
    rout.w = NULL;
    if (created && !rout.parts)
        unlink(output);
    if (created && moved && !rout.parts)
        restore_old(output);
out:
    switch_output_release(&rout.so);
    free(full);
    collect_release(&res);
    session_release(&session);
    if (res.stop_signal == SIGINT && res.child && WIFSIGNALED(res.child_status) &&
        WTERMSIG(res.child_status) == SIGINT) {
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
    }
    return status;
}
