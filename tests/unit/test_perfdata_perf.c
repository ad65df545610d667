/* SPDX-License-Identifier: MIT */
/* The perf.data reader and writer against the real perf (the oracle): files recorded by
 * `perf record` in several modes decode completely, record for record as `perf report --stats`
 * counts them; and perf reads the files the writer produces, with the same samples. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "perf/perfdata.h"
#include "perf/perfdata_write.h"

static char tmp[512];

/* Runs a shell command; true if it exited 0. */
static bool sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd) == 0;
}

/* perf's own per-type record counts ("TOTAL events: N", "SAMPLE events: N", ...) of the
 * aggregated section of `perf report --stats`. Returns the number of types parsed. */
struct perf_counts {
    char name[32][64];
    unsigned long long n[32];
    int nr;
};

static int perf_stats(const char *file, struct perf_counts *pc)
{
    char cmd[1024], line[512];
    FILE *p;
    bool in_agg = false;

    memset(pc, 0, sizeof(*pc));
    snprintf(cmd, sizeof(cmd), "perf report -i %s --stats 2>/dev/null", file);
    if (!(p = popen(cmd, "r")))
        return 0;
    while (fgets(line, sizeof(line), p)) {
        char name[64];
        unsigned long long n;
        if (strstr(line, "Aggregated stats"))
            in_agg = true;
        else if (in_agg && strstr(line, " stats:"))
            in_agg = false;     /* per-event sections follow */
        else if (in_agg && pc->nr < 32 && sscanf(line, " %63s events: %llu", name, &n) == 2) {
            snprintf(pc->name[pc->nr], sizeof(pc->name[0]), "%s", name);
            pc->n[pc->nr++] = n;
        }
    }
    pclose(p);
    return pc->nr;
}

/* Lines printed by `perf script -i file`. */
static unsigned long long script_lines(const char *file)
{
    char cmd[1024], line[4096];
    unsigned long long n = 0;
    FILE *p;

    snprintf(cmd, sizeof(cmd), "perf script -i %s 2>/dev/null", file);
    if (!(p = popen(cmd, "r")))
        return 0;
    while (fgets(line, sizeof(line), p))
        n++;
    pclose(p);
    return n;
}

static int nothing(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time)
{
    if (h->type == PERF_RECORD_SAMPLE) {
        struct sample s;
        if (sample_parse(evlist_evsel_for(evl, h), h, &s))
            return -EINVAL;
    }
    return 0;
}

/* What `prospect record` writes: kernel records and round markers. */
static int copy_kernel_records(void *arg, const struct evlist *evl,
                               const struct perf_event_header *h, uint64_t time)
{
    if (h->type >= 64 && h->type != PERF_RECORD_FINISHED_ROUND_)
        return 0;
    return perfdata_writer_record_fn(arg, evl, h, time);
}

/* Records `perf record ARGS` into tmp/NAME.data and checks reader and writer against perf. */
static void check_recording(const char *test_name_, const char *name, const char *args)
{
    char file[600], out[600], line[1024];
    struct perfdata *pd;
    struct perfdata_error e;
    struct perf_counts pc;
    const struct perfdata_stats *st;
    struct perfdata_writer *w;
    unsigned long long script_in, script_out;

    snprintf(file, sizeof(file), "%s/%s.data", tmp, name);
    snprintf(out, sizeof(out), "%s/%s.written.data", tmp, name);
    unlink(out);        /* the writer creates its file exclusively */
    /* perf 6.1 aborts now and then on this machine under load: three tries. */
    if (!sh("perf record -q -o %s %s >/dev/null 2>%s.err", file, args, file) &&
        !sh("perf record -q -o %s %s >/dev/null 2>%s.err", file, args, file) &&
        !sh("perf record -q -o %s %s >/dev/null 2>%s.err", file, args, file)) {
        char why[256] = "", errf[700];
        FILE *ef;
        snprintf(errf, sizeof(errf), "%s.err", file);
        if ((ef = fopen(errf, "r"))) {
            if (!fgets(why, sizeof(why), ef))
                why[0] = '\0';
            why[strcspn(why, "\n")] = '\0';
            fclose(ef);
        }
        printf("SKIP %s: perf record %s failed here three times (%s)\n", test_name_, args,
               why[0] ? why : "no message");
        test_failed_ = -1;      /* neither PASS nor FAIL */
        return;
    }
    /* Reader: every record decodes, counts equal perf's. */
    if (perfdata_open(file, &pd, &e)) {
        perfdata_error_str(&e, line, sizeof(line));
        printf("FAIL %s: %s\n", test_name_, line);
        test_failed_ = 1;
        return;
    }
    if (perfdata_process(pd, nothing, NULL, 0, &e)) {
        perfdata_error_str(&e, line, sizeof(line));
        printf("FAIL %s: %s\n", test_name_, line);
        test_failed_ = 1;
        perfdata_close(pd);
        return;
    }
    st = perfdata_stats(pd);
    if (st->unknown || st->bad || st->truncated || st->late) {
        printf("FAIL %s: %s: unknown %llu bad %llu truncated %d late %llu\n", test_name_, name,
               (unsigned long long)st->unknown, (unsigned long long)st->bad, st->truncated,
               (unsigned long long)st->late);
        test_failed_ = 1;
    }
    if (perf_stats(file, &pc) < 2) {
        printf("FAIL %s: cannot read perf report --stats of %s\n", test_name_, file);
        test_failed_ = 1;
    }
    for (int i = 0; i < pc.nr; i++) {
        unsigned long long ours = 0;
        if (!strcmp(pc.name[i], "TOTAL")) {
            ours = st->nr_records;
        } else {
            for (unsigned t = 1; t < PERFDATA_NR_TYPES; t++)
                if (!strcmp(perfdata_record_name(t), pc.name[i]))
                    ours = st->by_type[t];
        }
        if (ours != pc.n[i]) {
            printf("FAIL %s: %s: %s records: perf counts %llu, prospect %llu\n", test_name_,
                   name, pc.name[i], pc.n[i], ours);
            test_failed_ = 1;
        }
    }
    /* Writer: perf reads the copy, with the same samples. */
    if (perfdata_writer_open(out, perfdata_evlist(pd), &w, &e) == 0) {
        const struct perfdata_info *in = perfdata_info(pd);
        const char *argv[] = { "test", name };
        struct perfdata_write_meta meta = { .argv = argv, .argc = 2 };
        for (size_t i = 0; i < in->nr_build_ids; i++)
            perfdata_writer_add_build_id(w, in->build_ids[i].pid, in->build_ids[i].cpumode,
                                         in->build_ids[i].path, in->build_ids[i].id,
                                         in->build_ids[i].size);
        /* A second walk of the same reader: the writer uses its evlist until close. */
        if (perfdata_process(pd, copy_kernel_records, w, PERFDATA_USER_RECORDS, &e) ||
            perfdata_writer_close(w, &meta, &e)) {
            perfdata_error_str(&e, line, sizeof(line));
            printf("FAIL %s: %s\n", test_name_, line);
            test_failed_ = 1;
        }
        perfdata_close(pd);
    } else {
        perfdata_close(pd);
        perfdata_error_str(&e, line, sizeof(line));
        printf("FAIL %s: %s\n", test_name_, line);
        test_failed_ = 1;
        return;
    }
    script_in = script_lines(file);
    script_out = script_lines(out);
    if (script_in == 0 || script_in != script_out) {
        printf("FAIL %s: %s: perf script prints %llu lines of the original, %llu of the copy\n",
               test_name_, name, script_in, script_out);
        test_failed_ = 1;
    }
    if (perf_stats(out, &pc) < 2) {
        printf("FAIL %s: perf report --stats cannot read the copy %s\n", test_name_, out);
        test_failed_ = 1;
    }
    /* The copy's build ids are perf's. */
    if (!sh("bash -c 'cmp -s <(perf buildid-list -i %s 2>/dev/null | sort) "
            "<(perf buildid-list -i %s 2>/dev/null | sort)'", file, out)) {
        printf("FAIL %s: %s: perf buildid-list differs between original and copy\n",
               test_name_, name);
        test_failed_ = 1;
    }
}

#define RECORDING(fn, name, args) TEST(fn) { check_recording(test_name_, name, args); }

static const char *spin = "-- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'";
static char args[10][512];

RECORDING(perf_record_command, "cmd", args[0])
RECORDING(perf_record_callchain, "g", args[1])
RECORDING(perf_record_two_events, "two", args[2])
RECORDING(perf_record_period, "period", args[3])
RECORDING(perf_record_frequency, "freq", args[4])
RECORDING(perf_record_system_wide, "all", args[5])
RECORDING(perf_record_dwarf, "dwarf", args[6])
RECORDING(perf_record_group_read, "group", args[7])
RECORDING(perf_record_data_addr, "addr", args[8])

int main(void)
{
    (void)test_skip_;
    const char *t = getenv("TEST_TMP");

    snprintf(tmp, sizeof(tmp), "%s/perfdata", t ? t : "/tmp");
    if (!sh("mkdir -p %s", tmp) || !sh("perf --version >/dev/null 2>&1") ||
        !sh("perf record -q -o %s/probe.data -- true >/dev/null 2>&1", tmp)) {
        printf("SKIP perf_oracle: perf is not installed or cannot record here\n");
        return 0;
    }
    snprintf(args[0], sizeof(args[0]), "%s", spin);
    snprintf(args[1], sizeof(args[1]), "-g %s", spin);
    snprintf(args[2], sizeof(args[2]), "-e cpu-clock,task-clock %s", spin);
    snprintf(args[3], sizeof(args[3]), "-e task-clock -c 100000 %s", spin);
    snprintf(args[4], sizeof(args[4]), "-F 2000 %s", spin);
    snprintf(args[5], sizeof(args[5]), "-a -F 500 -- sleep 0.3");
    snprintf(args[6], sizeof(args[6]), "--call-graph dwarf,1024 -F 500 %s", spin);
    /* PERF_SAMPLE_READ with a group (leader sampling), and PERF_SAMPLE_ADDR|DATA_SRC. */
    snprintf(args[7], sizeof(args[7]), "-e '{cpu-clock,task-clock}:S' %s", spin);
    snprintf(args[8], sizeof(args[8]), "-d -e page-faults -c 1 %s", spin);
    /* A test whose recording failed prints its own SKIP; RUN must not add PASS to it. */
#undef RUN
#define RUN(name) do { test_failed_ = 0; name(#name); \
        if (!test_failed_) printf("PASS %s\n", #name); } while (0)
    RUN(perf_record_command);
    RUN(perf_record_callchain);
    RUN(perf_record_two_events);
    RUN(perf_record_period);
    RUN(perf_record_frequency);
    RUN(perf_record_system_wide);
    RUN(perf_record_dwarf);
    RUN(perf_record_group_read);
    RUN(perf_record_data_addr);
    return 0;
}
