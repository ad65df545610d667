/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "record"
/* prospect record: profile like `run`, but write the records to a perf.data file (which perf
 * reads too) instead of reporting. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "session/session.h"
#include "symbol/buildid_cache.h"
#include "symbol/dso.h"
#include "util/log.h"
#include "util/outfile.h"

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
"  prospect record -p 1234 --duration 10\n",
    .opts = record_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

struct rec_out {
    struct perfdata_writer *w;
    const struct evlist *evl;
    uint64_t ktext_start, ktext_end;   /* 0: unknown, no kernel map record */
    bool started;
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

static int round_out(void *arg)
{
    struct rec_out *o = arg;
    return perfdata_writer_round(o->w);
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

int cmd_record(int argc, char **argv)
{
    struct profile_opts po;
    struct collect_result res;
    struct collect_outlets outlets = { .raw = raw_out, .round_end = round_out,
                                       .ordered = session_record };
    struct session session;
    struct perfdata_writer *w = NULL;
    struct rec_out rout = { 0 };
    struct perfdata_error perr;
    const char *output = "perf.data";
    char err[512], line[1024], version[64];
    int c, ret, status = 1;
    bool buildid_cache = true;
    bool created = false, moved = false, to_pipe;
    struct perfdata_write_meta meta = { 0 };
    const char **full = NULL;

    profile_opts_init(&po);
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
        case 'N': buildid_cache = false; break;
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
    if (to_pipe ? open_pipe_output(&res.evlist, &meta, &w)
                : open_output(output, &res.evlist, &w, &created, &moved)) {
        session_release(&session);
        free(full);
        return 1;
    }
    rout.w = w;
    rout.evl = &res.evlist;
    kernel_text_and_cache(&rout.ktext_start, &rout.ktext_end);
    outlets.raw_arg = &rout;
    ret = collect_run(&po.collect, &outlets, &res, err, sizeof(err));
    status = profile_opts_collected(&po, "record", ret, &res, err,
                                    "the file holds what was collected", "recording");
    if (status >= 0)
        goto fail;
    add_build_ids(w, &session, buildid_cache);
    {
        uint64_t samples = perfdata_writer_samples(w);
        double mb = (double)perfdata_writer_data_bytes(w) / 1e6;
        ret = perfdata_writer_close(w, &meta, &perr);
        w = NULL;
        if (ret) {
            perfdata_error_str(&perr, line, sizeof(line));
            cmd_error("record", "%s", line);
            if (created)
                unlink(output);
            status = 1;
            goto out;
        }
        fprintf(stderr, "prospect record: wrote %llu samples (%.3f MB) to %s%s\n",
                (unsigned long long)samples, mb, to_pipe ? "standard output" : output,
                session.stats.lost ? " (some samples were lost: see 'prospect report --header')"
                                   : "");
    }
    status = collect_exit_status(&res);
    if (res.stop_signal && !res.child)
        status = 0;
    goto out;
fail:
    perfdata_writer_abort(w);
    w = NULL;
    if (created)
        unlink(output);
    if (created && moved)
        restore_old(output);
out:
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
