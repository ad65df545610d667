/* SPDX-License-Identifier: MIT */
/* The call-stack exports of report: pick the writer, open the output, commit or abort. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/report_stacks.h"
#include "flame/flametree.h"
#include "flame/svg.h"
#include "html/html.h"
#include "offcpu/offcpu.h"
#include "perf/evlist.h"
#include "report/callgraph_out.h"
#include "report/pprof.h"
#include "report/speedscope.h"
#include "util/outfile.h"

static const char *const names[] = {
    [STACKS_FOLDED] = "folded", [STACKS_SVG] = "svg", [STACKS_PPROF] = "pprof",
    [STACKS_SPEEDSCOPE] = "speedscope", [STACKS_HTML] = "html",
};

enum stacks_format stacks_format_parse(const char *s)
{
    for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(s, names[i]))
            return (enum stacks_format)i;
    return STACKS_NONE;
}

const char *stacks_format_name(enum stacks_format f)
{
    return f > STACKS_NONE && f <= STACKS_HTML ? names[f] : "text";
}

bool evsel_is_time(const struct evsel *sel)
{
    return sel && sel->attr.type == PERF_TYPE_SOFTWARE &&
           (sel->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
            sel->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

static int write_svg(FILE *f, const struct stacks_out_req *r, const struct cg_store *cs,
                     const struct cg_syms *cy)
{
    struct flame_tree t;
    char sub[512];
    int err;

    if ((err = flame_tree_init(&t)))
        return err;
    if (r->by_period)             /* off-CPU: widths are the time waited */
        snprintf(sub, sizeof(sub), "%s, off-CPU time from %s, %llu waits, %.4f s", r->input,
                 r->sel ? r->sel->name : "sched:sched_switch", (unsigned long long)cs->samples,
                 (double)cs->period / 1e9);
    else
        snprintf(sub, sizeof(sub), "%s, %s, %llu samples", r->input,
                 r->sel ? r->sel->name : "samples", (unsigned long long)cs->samples);
    struct flame_svg_opts so = { .title = r->title, .subtitle = sub, .inverted = r->inverted,
                                 .unit = r->by_period ? "ns" : NULL };
    t.by_period = r->by_period;
    if (!(err = flame_tree_add_store(&t, cs, cy, r->inverted, 0)) && !(err = flame_tree_sort(&t)))
        err = flame_svg_write(f, &t, &so);
    flame_tree_release(&t);
    return err;
}

/* The sample sequence as the HTML timeline reads it. */
static void seq_at(const void *arg, size_t i, uint32_t *stack, uint32_t *tid, uint64_t *time)
{
    const struct seq_sample *s = &((const struct sample_seq *)arg)->v.v[i];

    *stack = s->stack;
    *tid = s->tid;
    *time = s->time;
}

static const char *seq_thread_name(const void *arg, uint32_t tid, const struct process *p)
{
    return sample_seq_thread_name(arg, tid, p);
}

/* The off-CPU waits as the HTML timeline reads them. */
static void wait_at(const void *arg, size_t i, uint32_t *tid, uint64_t *start, uint64_t *end)
{
    const struct offcpu_wait *w = &((const struct offcpu *)arg)->wait_log.v[i];

    *tid = w->tid;
    *start = w->start;
    *end = w->end;
}

static int write_html(FILE *f, const struct stacks_out_req *r, const struct cg_store *cs,
                      const struct cg_syms *cy)
{
    struct html_times tm = { .n = r->seq ? r->seq->v.n : 0, .at = seq_at,
                             .thread_name = seq_thread_name, .arg = r->seq,
                             .nwaits = r->waits ? r->waits->wait_log.n : 0,
                             .wait_at = wait_at, .wait_arg = r->waits };
    struct html_opts ho = { .title = r->title, .input = r->input,
                            .event = r->wall ? "wall-clock time (on-CPU samples and "
                                               "sched:sched_switch waits)"
                                   : r->by_period ? "off-CPU time (sched:sched_switch)"
                                   : r->sel ? r->sel->name : r->event,
                            .command = r->command, .by_period = r->by_period,
                            .duration_ns = r->duration_ns, .nr_cpus = r->nr_cpus,
                            .notes = r->notes, .nnotes = r->nnotes,
                            .times = r->seq ? &tm : NULL };
    if (r->source.session && r->source.top && !r->by_period)
        ho.source = &r->source;
    return html_write(f, cs, cy, &ho);
}

static int write_one(FILE *f, const struct stacks_out_req *r, const struct cg_store *cs,
                     const struct cg_syms *cy)
{
    switch (r->fmt) {
    case STACKS_SVG:
        return write_svg(f, r, cs, cy);
    case STACKS_PPROF: {
        const struct perf_event_attr *a = r->sel ? &r->sel->attr : NULL;
        struct pprof_opts po = { .event = r->sel ? r->sel->name : NULL,
                                 .time_event = evsel_is_time(r->sel),
                                 .off_cpu = r->by_period, .wall = r->wall,
                                 .duration_ns = r->duration_ns,
                                 .kernel_build_id = r->kernel_build_id,
                                 .kernel_build_id_len = r->kernel_build_id_len,
                                 .seq = r->seq };
        if (po.off_cpu)
            po.period = 0;             /* every switch is a sample: no sampling period */
        else if (a && !a->freq)
            po.period = a->sample_period;
        else if (a && a->sample_freq && po.time_event)
            po.period = 1000000000ULL / a->sample_freq;
        return report_pprof(f, cs, cy, &po);
    }
    case STACKS_SPEEDSCOPE: {
        struct speedscope_opts so = { .name = r->input,      /* off-CPU: the ns waited */
                                      .time_event = evsel_is_time(r->sel) || r->by_period,
                                      .seq = r->seq };
        return report_speedscope(f, cs, cy, &so);
    }
    case STACKS_HTML:
        return write_html(f, r, cs, cy);
    default:
        return report_folded_weighted(f, cs, cy, r->by_period);
    }
}

int report_write_stacks(const struct stacks_out_req *r, const struct cg_store *cs,
                        const struct cg_syms *cy)
{
    const char *who = r->cmd ? r->cmd : "report";
    struct outfile of, *of_p = &of;
    int err;

    if (!cs->nstacks && r->fmt != STACKS_FOLDED) {
        cmd_error(who, "%s: no samples to write as %s", r->input ? r->input : "the run",
                  stacks_format_name(r->fmt));
        if (r->opened)
            outfile_abort(r->opened);
        return 1;
    }
    if (!r->output) {
        if (r->fmt == STACKS_PPROF && isatty(STDOUT_FILENO)) {
            cmd_error(who, "--format pprof is gzipped protobuf: name a file with -o "
                      "(or redirect stdout)");
            return 1;
        }
        int e;
        err = write_one(stdout, r, cs, cy);
        if (err == -EIO && (e = cmd_stream_errno(stdout)))
            err = -e;                    /* the write's own errno: "No space left on device" */
        if (err) {
            cmd_error(who, "writing the %s output: %s", stacks_format_name(r->fmt),
                      strerror(-err));
            return 1;
        }
        return 0;
    }
    if (r->opened) {
        of_p = r->opened;
    } else if ((err = outfile_open(&of, r->output, 0666))) {
        cmd_error(who, "cannot write %s: %s", r->output, outfile_strerror(err));
        return 1;
    }
    if ((err = write_one(of_p->fp, r, cs, cy))) {
        if (err == -EIO && of_p->err)
            err = of_p->err;             /* the write's own errno */
        outfile_abort(of_p);
        cmd_error(who, "writing %s: %s", r->output, strerror(-err));
        return 1;
    }
    if ((err = outfile_commit(of_p))) {
        cmd_error(who, "writing %s: %s", r->output, strerror(-err));
        return 1;
    }
    return 0;
}
