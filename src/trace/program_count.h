/* Whole-program counting (`prospect stat` without -r), like `perf stat`: each event counts
 * the command and every thread and process it creates (attr.inherit), from exec to exit. */
#ifndef PROSPECT_TRACE_PROGRAM_COUNT_H
#define PROSPECT_TRACE_PROGRAM_COUNT_H
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

/* Opens every event on `pid` (a launched child held before exec, or with `attach` every
 * thread of a running process). Events with the same group[i] > 0 are opened as one group
 * (scheduled together, -g); group may be NULL or group[i] 0 for independent events.
 * -errno with advice in msg. */
int program_count_open(struct program_count **out, const struct event_spec *ev,
                       const int *group, size_t n, pid_t pid, bool attach, char *msg,
                       size_t msglen);
/* Reads the totals (summed over threads for an attached process). 0 or -errno. */
int program_count_read(struct program_count *pc, struct pc_value *vals);
void program_count_free(struct program_count *pc);
#endif
