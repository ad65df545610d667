/* SPDX-License-Identifier: MIT */
/* HEADER_TRACING_DATA (the tracepoints' formats): built for the perf.data writer, read for
 * raw fields' places. Internal to src/perf/perfdata_*. */
#ifndef PROSPECT_PERF_PERFDATA_TRACING_H
#define PROSPECT_PERF_PERFDATA_TRACING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evlist;
struct featbuf;

bool perfdata_has_tracepoints(const struct evlist *evl);
/* Appends the feature body for evl's tracepoint events, from tracefs. 0, -ENOENT (no
 * tracefs), -EINVAL (an event name that is no "system:event"), -ENOMEM or a read's -errno. */
int perfdata_build_tracing_data(struct featbuf *b, const struct evlist *evl);
/* The format text of tracepoint system:event in a section of len bytes, as a NUL-terminated
 * copy in *out: 0, -ENOENT (not there), -EINVAL (damaged or big-endian), -ENOMEM. */
int perfdata_tracing_format(const uint8_t *data, size_t len, const char *system,
                            const char *event, char **out);
#endif
