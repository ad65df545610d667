/* SPDX-License-Identifier: MIT */
/* Whole-program counting (`prospect stat` without -r), like `perf stat`: each event counts
 * the command and every thread and process it creates (attr.inherit), from exec to exit. */
#ifndef PROSPECT_PROBE_PROGRAM_COUNT_H
#define PROSPECT_PROBE_PROGRAM_COUNT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "perf/event.h"

struct program_count;

struct pc_value {
    uint64_t raw, enabled, running;
    double scaled;             /* raw * enabled / running (raw when running == enabled) */
    bool counted;              /* running > 0 */
};

enum {
    PC_ATTACH = 1,        /* pid is a running process: every thread, counting from now */
    PC_SYSTEM_WIDE = 2,   /* every task on every online CPU (pid ignored), from now */
};

/* Opens every event on `pid` (a launched child held before exec: counting starts at exec) or
 * as `flags` say. Events with the same group[i] > 0 are opened as one group (scheduled
 * together, -g); group may be NULL or group[i] 0 for independent events. An event the kernel
 * refuses with the kernel included is opened for user space only (program_count_user_only).
 * -errno with advice in msg. */
int program_count_open(struct program_count **out, const struct event_spec *ev,
                       const int *group, size_t n, pid_t pid, unsigned flags, char *msg,
                       size_t msglen);
/* Whether event i counts user space only because counting the kernel was not permitted. */
bool program_count_user_only(const struct program_count *pc, size_t i);
/* Reads the totals (summed over threads or CPUs). 0 or -errno. */
int program_count_read(struct program_count *pc, struct pc_value *vals);
void program_count_free(struct program_count *pc);
#endif
