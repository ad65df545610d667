/* SPDX-License-Identifier: MIT */
/* Prospect's side of the markers channel (intarget/markers_wire.h): creating it for a command, and reading the
 * per-thread region results the command's libprospect wrote into it, merged per region name
 * into the aggregates `stat -r` prints. */
#ifndef PROSPECT_MARKERS_READ_H
#define PROSPECT_MARKERS_READ_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include "probe/region_count.h"

struct markers_region {
    char *name;
    struct rc_result res;         /* wall = ns per crossing, vals[] = the events */
    uint64_t threads;             /* threads (in any process) that crossed it */
};

struct markers_result {
    struct markers_region *r;
    size_t n;
    size_t nev;
    uint64_t records;             /* region records read (one per thread and region) */
    uint64_t open_errors;         /* threads whose counters did not open */
    int first_errno;
    uint64_t unmatched;           /* ends without a begin */
};

/* An anonymous sealed file (memfd) holding the configuration; inheritable (not close-on-exec)
 * so the command gets it: its number goes into MARKERS_ENV. Returns the fd or -errno. */
int markers_channel_create(const struct perf_event_attr *ev, size_t nev);

/* Reads every result record. keep_values: expand histograms into rc_stat.all (percentiles,
 * bucket lower bounds clamped to min..max). 0, or -EINVAL with err naming the offset. */
int markers_read(int fd, size_t nev, bool keep_values, struct markers_result *out, char *err,
                 size_t errlen);
void markers_result_free(struct markers_result *r);
#endif
