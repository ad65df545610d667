/* HEADER_TRACING_DATA (the tracepoints' formats) for the perf.data writer. Internal to
 * src/perf/perfdata_*. */
#ifndef PROSPECT_PERF_PERFDATA_TRACING_H
#define PROSPECT_PERF_PERFDATA_TRACING_H
#include <stdbool.h>

struct evlist;
struct featbuf;

bool perfdata_has_tracepoints(const struct evlist *evl);
/* Appends the feature body for evl's tracepoint events, from tracefs. 0, -ENOENT (no
 * tracefs), -EINVAL (an event name that is no "system:event"), -ENOMEM or a read's -errno. */
int perfdata_build_tracing_data(struct featbuf *b, const struct evlist *evl);
#endif
