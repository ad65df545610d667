/* The counting probes of `prospect lines`: one per block start, each a tracefs uprobe read
 * through a counting perf event (PERF_TYPE_TRACEPOINT, attr.inherit) on the launched command:
 * every thread and child process is counted, no sample is written, the kernel only adds 1.
 * Where jump_entry_plan moves a probe to Prospect's trampoline (the command's own program),
 * a hit is a jump to an emulated nop instead of an int3 and a single-step. */
#ifndef PROSPECT_LINES_COUNT_H
#define PROSPECT_LINES_COUNT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lines/lines.h"
#include "probe/region.h"
#include "probe/region_cost.h"

struct lines_counter;

/* One region and one probe point per probed block of p (region i = block p->probed.v[i]), for
 * jump_entry_plan.
 * rl must be initialized. 0 or -errno (-ENOMEM, or the ELF offset lookup's). */
int lines_probe_points(const struct lines_plan *p, struct region_list *rl);

/* Creates the probes of rl and opens a counting event on each, on `pid` (a launched child held
 * before exec: counting starts at exec), or with tids (an attached process's threads) on each
 * of them, counting from now. -errno with a one-line message: probe creation, a probe the
 * kernel refuses, too many open files. */
int lines_counter_open(struct lines_counter **out, const struct region_list *rl, pid_t pid,
                       const pid_t *tids, size_t ntids, char *msg, size_t msglen);
/* Reads every probe's hits (the command and its threads and children, once they exited) into
 * its block's count, then computes the derived blocks'. 0 or -errno. */
int lines_counter_read(struct lines_counter *c, struct lines_plan *p);
/* Closes the events and deletes the probes. */
void lines_counter_free(struct lines_counter *c);

/* Probes per kind (jump, emulated uprobe, single-stepped uprobe), and what one counted
 * execution costs the program for each kind (ns; docs/lines.md, measured by
 * bench/bench_lines.sh on the development VM). */
struct lines_cost {
    size_t probes[3];
    uint64_t hits[3];
    double ns[3];
};
void lines_cost_of(const struct region_list *rl, const struct lines_plan *p,
                   struct lines_cost *out);
#endif
