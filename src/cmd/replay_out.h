/* SPDX-License-Identifier: MIT */
/* prospect replay's output (src/cmd/replay_out.c): the check verdict, the summary, the table,
 * CSV, JSON, the executed-call dump and the SVG curves. */
#ifndef PROSPECT_CMD_REPLAY_OUT_H
#define PROSPECT_CMD_REPLAY_OUT_H
#include <stdbool.h>
#include <stdio.h>
#include "calltrace/tracefile.h"
#include "prospect/histogram.h"
#include "replay/allocator.h"
#include "replay/replay_prog.h"
#include "replay/replay_run.h"
#include "system/syscheck.h"

/* One allocator's replay of one trace: its results as histograms per function and overall. */
struct alloc_out {
    struct replay_alloc a;
    bool ran;
    struct replay_result res;
    struct prospect_hist *h[RP_NKINDS], *all;
    uint64_t step;              /* gcd of the nonzero ticks: the resolution actually seen */
};

struct replay_opts {
    struct replay_alloc allocs[16];
    size_t nallocs;
    int cpu;
    unsigned repeat, warmup;
    const char *svg;
    int plot;               /* RP_* kind, or -1 for all */
    bool log_y, dump, cpuid;
    enum { FMT_TEXT, FMT_CSV, FMT_JSON } format;
};

/* The executed calls in the child's order (no timings). 0, -ENOMEM, -EPROTO when the child's
 * log is not a permutation. */
int replay_print_dump(const struct alloc_out *ao, const struct replay_prog *p,
                      const struct call_trace *t);
/* The check verdict for the CPU, to f. */
void replay_print_check(FILE *f, const struct syscheck *sc);
void replay_print_summary(const char *path, const struct replay_prog *p,
                          const struct replay_opts *o, int cpu);
void replay_print_table(struct alloc_out *aos, size_t n, const struct replay_opts *o);
void replay_print_csv(const char *path, struct alloc_out *aos, size_t n);
/* One object of the JSON array (the caller prints the brackets). */
void replay_print_json(const char *path, const struct replay_prog *p, const struct replay_opts *o,
                       const struct syscheck *sc, struct alloc_out *aos, size_t n);
/* The curves of the allocators that ran to path (an outfile). 0, or 1 after an error. */
int replay_write_svg(const char *path, const char *trace, struct alloc_out *aos, size_t n,
                     const struct replay_opts *o, const struct syscheck *sc);
#endif
