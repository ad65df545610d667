/* SPDX-License-Identifier: MIT */
/* Time-ordering of records from several CPUs. Each CPU's ring buffer is in time order, but the
 * buffers interleave; the session needs FORK/COMM/MMAP before the samples that depend on them.
 * Records are queued and released in rounds: after a round has been read completely, everything
 * up to the newest timestamp of the *previous* round is safe to deliver (perf's FINISHED_ROUND
 * rule). Records with time 0 (synthesized from /proc) sort first. */
#ifndef PROSPECT_PERF_ORDERED_H
#define PROSPECT_PERF_ORDERED_H
#include <stdbool.h>
#include <stdint.h>
#include "perf/record.h"

struct ordered_queue;

struct ordered_queue *ordered_new(record_fn deliver, void *arg);
void ordered_free(struct ordered_queue *q);

/* Queues one record. With copy, the bytes are copied (live ring buffers reuse their space);
 * without, the caller keeps h valid until it is delivered (an mmapped perf.data file). */
int ordered_push(struct ordered_queue *q, const struct evlist *evl,
                 const struct perf_event_header *h, uint64_t time, bool copy);
/* Copies the queued records that were pushed without copy and lie in [lo, hi), so that the
 * caller may drop that memory. 0 or -ENOMEM (then nothing may be dropped). */
int ordered_own_range(struct ordered_queue *q, const void *lo, const void *hi);
/* Ends a round: delivers, in time order, every queued record not newer than the newest time of
 * the previous round. Returns 0 or the deliver callback's negative value. */
int ordered_round(struct ordered_queue *q);
/* Delivers everything (end of stream). */
int ordered_flush(struct ordered_queue *q);
/* Records that arrived older than something already delivered (delivered anyway, counted). */
uint64_t ordered_late(const struct ordered_queue *q);
#endif
