/* SPDX-License-Identifier: MIT */
/* Inside libprospect's region markers (libc only: this code runs in the user's program). */
#ifndef PROSPECT_INTARGET_MARKERS_INTERNAL_H
#define PROSPECT_INTARGET_MARKERS_INTERNAL_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include "intarget/markers_wire.h"

#define HIDDEN __attribute__((visibility("hidden")))

struct markers_config {
    int fd;                                   /* the channel, -1 when inactive */
    size_t nev;
    struct perf_event_attr ev[MARKERS_MAX_EVENTS];
};

HIDDEN extern struct markers_config markers_cfg;

/* Appends text to the channel in one write (records of concurrent writers stay whole). */
HIDDEN void markers_write(const char *buf, size_t len);
/* Writes every thread's results (at exit). */
HIDDEN void markers_flush_all(void);
/* After fork in the child: the parent's threads and counters are not this process's. */
HIDDEN void markers_forget_threads(void);
#endif
