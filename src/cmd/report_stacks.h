/* SPDX-License-Identifier: MIT */
/* report --format folded|svg|pprof|speedscope|html: the call-stack exports, written to -o FILE
 * (through util/outfile: no symlink followed, replaced whole) or stdout. */
#ifndef PROSPECT_CMD_REPORT_STACKS_H
#define PROSPECT_CMD_REPORT_STACKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "html/source.h"
#include "report/sample_seq.h"

struct offcpu;

struct evsel;
struct outfile;

enum stacks_format { STACKS_NONE, STACKS_FOLDED, STACKS_SVG, STACKS_PPROF, STACKS_SPEEDSCOPE,
                     STACKS_HTML };

/* "folded", "svg", "pprof", "speedscope", "html" -> the format; STACKS_NONE otherwise. */
enum stacks_format stacks_format_parse(const char *s);
const char *stacks_format_name(enum stacks_format f);

struct stacks_out_req {
    enum stacks_format fmt;
    const char *output;       /* -o FILE, NULL: stdout */
    const char *cmd;          /* the command the errors name, NULL: "report" */
    struct outfile *opened;   /* output already open (run --html: before the command runs),
                                 committed or aborted here; NULL: output is opened here */
    const char *title;        /* svg: --title */
    bool inverted;            /* svg: --inverted, icicle graph of inverted stacks */
    const char *input;        /* the perf.data path (names and subtitles) */
    const struct evsel *sel;  /* the reported event, may be NULL */
    const char *event;        /* html: its name when sel is NULL (run) */
    uint64_t duration_ns;
    const uint8_t *kernel_build_id;
    size_t kernel_build_id_len;
    bool by_period;           /* each stack weighs its period (off-CPU: the ns waited) */
    bool wall;                /* with by_period: report --wall's ns on and off CPU */
    const struct sample_seq *seq;     /* pprof, speedscope, html: the samples by thread, or NULL */
    const struct offcpu *waits;       /* html: off-CPU waits for the timeline, or NULL */
    const char *command;      /* html: the recorded command line, may be NULL */
    unsigned nr_cpus;         /* html: 0 unknown */
    const char *const *notes; /* html: the summary's notes */
    size_t nnotes;
    struct html_source_req source;  /* html: the source view's hits (session NULL: none) */
};

/* Writes the export; prints its own errors ("prospect report: ..."). 0, or 1 when said. */
int report_write_stacks(const struct stacks_out_req *r, const struct cg_store *cs,
                        const struct cg_syms *cy);

/* A time event (cpu-clock, task-clock): its period is nanoseconds. */
bool evsel_is_time(const struct evsel *sel);
#endif
