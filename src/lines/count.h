/* SPDX-License-Identifier: MIT */
/* The probes of `prospect lines`: one per probed block start, all in ONE tracefs uprobe event
 * ("p:prospect_PID/lines PATH:OFF id=\\N:u32" appended per probe), opened per cpu with
 * attr.inherit on the launched command (every thread and child process) as a sampling event:
 * each hit writes a small sample whose raw data names its probe, tallied here. One event, not
 * one per probe: the kernel waits a grace period (~75 ms here) to remove each event.
 * Where jump_entry_plan moves a probe to Prospect's trampoline (the command's own program),
 * a hit is a jump to an emulated nop instead of an int3 and a single-step. "Counting probe"
 * elsewhere means this: every hit is seen, none is a statistical sample. */
#ifndef PROSPECT_LINES_COUNT_H
#define PROSPECT_LINES_COUNT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lines/lines.h"
#include "probe/region.h"
#include "probe/region_cost.h"
#include "probe/region_trace.h"

struct lines_counter;

/* One region and one probe point per probed block of p (region i = block p->probed.v[i]), for
 * jump_entry_plan.
 * rl must be initialized. 0 or -errno (-ENOMEM, or the ELF offset lookup's). */
int lines_probe_points(const struct lines_plan *p, struct region_list *rl);

/* Creates the probes of rl (one event) and opens it per cpu on `pid` (a launched child held
 * before exec: counting starts at exec), or with tids (an attached process's threads) per cpu
 * and thread, counting from now. -errno with a one-line message: probe creation, a probe the
 * kernel refuses, too many open files. */
int lines_counter_open(struct lines_counter **out, const struct region_list *rl, pid_t pid,
                       const pid_t *tids, size_t ntids, const struct image_watch *watch,
                       char *msg, size_t msglen);
/* With a watch (jump entries): pids whose process images mapped the program more often than
 * the trampoline (an image exec'd without LD_PRELOAD: its jump-entry blocks were not
 * counted). Writes up to max, returns how many there are. */
size_t lines_counter_unpatched(const struct lines_counter *c, uint32_t *pids, size_t max);
/* launch_wait's tick: waits up to timeout_ms (or for wake_fd) and tallies the samples. */
int lines_counter_poll(void *c, int timeout_ms, int wake_fd);
/* Stops counting, tallies what is left into each probed block's count and computes the
 * derived blocks'. *lost = hits whose samples were lost (the kernel's count of hits minus the
 * samples seen, or the LOST records' count): the counts are then incomplete. 0 or -errno. */
int lines_counter_read(struct lines_counter *c, struct lines_plan *p, uint64_t *lost);
/* Closes the events and deletes the probes (one grace period). */
void lines_counter_free(struct lines_counter *c);

/* Probes per kind (jump, emulated uprobe, single-stepped uprobe; the in-process counters are
 * the fourth, LINES_COST_INPROC, filled by lines_inproc_cost), and what one counted
 * execution costs the program for each kind (ns; docs/lines.md, measured by
 * bench/bench_lines.sh on the development VM). */
#define LINES_COST_INPROC 3     /* the fourth kind: a counter the program increments */
struct lines_cost {
    size_t probes[4];
    uint64_t hits[4];
    double ns[4];
};
void lines_cost_of(const struct region_list *rl, const struct lines_plan *p,
                   struct lines_cost *out);
#endif
