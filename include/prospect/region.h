/* SPDX-License-Identifier: MIT */
/* prospect/region.h: regions a program marks in its own code (libprospect).
 *
 *     #include <prospect/region.h>
 *     prospect_region_begin("solve");
 *     ... work ...
 *     prospect_region_end("solve");
 *
 * Run the program under `prospect stat --markers [-e EVENTS] -- ./prog`: each thread counts the
 * events itself between begin and end (a counter group read at both ends), and stat prints one
 * row per region name: calls, and per event total/mean/min/max and percentiles, the table of
 * `stat -r`. Thread-safe; regions nest (a region inside itself counts once, from its outermost
 * begin). Outside Prospect both calls are one predictable branch on a flag set at load time.
 * Names are compared as strings (their first 200 bytes), wherever they are stored.
 * Link: pkg-config --cflags --libs prospect. Details: docs/events.md. */
#ifndef PROSPECT_REGION_H
#define PROSPECT_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PROSPECT_API
#define PROSPECT_API __attribute__((visibility("default")))
#endif

/* Non-zero when Prospect is counting this process's marked regions (set before main). */
PROSPECT_API extern int prospect_markers_on;

/* The slow paths, called only when prospect_markers_on is set. */
PROSPECT_API void prospect_region_enter(const char *name);
PROSPECT_API void prospect_region_leave(const char *name);

static inline void prospect_region_begin(const char *name)
{
    if (__builtin_expect(prospect_markers_on, 0))
        prospect_region_enter(name);
}

static inline void prospect_region_end(const char *name)
{
    if (__builtin_expect(prospect_markers_on, 0))
        prospect_region_leave(name);
}

#ifdef __cplusplus
}
#endif
#endif
