/* SPDX-License-Identifier: MIT */
/* Closing many perf events at once. Closing the last event on a tracefs uprobe makes the
 * kernel unregister the probe and wait out a grace period (40-100 ms each here, one after the
 * other: 14 events took 0.8 s); closed from several threads, the waits overlap. */
#ifndef PROSPECT_PERF_CLOSE_MANY_H
#define PROSPECT_PERF_CLOSE_MANY_H
#include <stddef.h>

/* Closes every fd of fds (-1 entries are skipped), in up to `threads` threads at once, and
 * returns when all are closed. Falls back to this thread when no thread can be started. */
void perf_close_many(const int *fds, size_t n, unsigned threads);
#endif
