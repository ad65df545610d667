/* SPDX-License-Identifier: MIT */
/* The private channel between `prospect stat --markers` and libprospect's region markers.
 *
 * stat creates an anonymous file (memfd: no name any other process can open), writes the
 * configuration, and passes its descriptor to the command (inherited; its number in
 * PROSPECT_MARKERS_FD). The library checks the descriptor (a regular file without links, owned
 * by the process's user, starting with the magic line), reads the events, and at exit appends
 * its results as text lines; stat reads them after the command ends.
 *
 * Configuration:  "prospect-markers 1\n" "events N\n" then N lines
 *                 "event TYPE CONFIG CONFIG1 CONFIG2 EXCLUDE_USER EXCLUDE_KERNEL\n" "end\n"
 * Results:        "R PID TID CALLS CROSSINGS OPEN NQ NAMELEN NAME\n", then NQ lines (wall time
 *                 in ns first, then one per event) "Q TOTAL MIN MAX NB B:C ...\n" (NB non-empty
 *                 histogram buckets); "E PID TID ERRNO\n" for a thread whose counters did not
 *                 open; "M PID UNMATCHED_ENDS\n".
 * Shared by both sides; header-only so the library stays libc-only. */
#ifndef PROSPECT_INTARGET_MARKERS_WIRE_H
#define PROSPECT_INTARGET_MARKERS_WIRE_H
#include <stdint.h>

#define MARKERS_ENV "PROSPECT_MARKERS_FD"
#define MARKERS_MAGIC "prospect-markers 1\n"
#define MARKERS_MAX_EVENTS 8
#define MARKERS_MAX_NAME 200

/* Log-linear histogram buckets: values below 16 exactly, above that 16 buckets per power of
 * two (a bucket's width is at most 1/16 of its values: percentiles within 6.25%). */
#define MARKERS_BUCKETS (16 + 60 * 16)

static inline unsigned markers_bucket(uint64_t v)
{
    if (v < 16)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);      /* 4..63 */
    return 16u + (e - 4u) * 16u + (unsigned)((v >> (e - 4u)) & 15u);
}

/* The smallest value of bucket b. */
static inline uint64_t markers_bucket_low(unsigned b)
{
    if (b < 16)
        return b;
    unsigned e = (b - 16u) / 16u + 4u, sub = (b - 16u) % 16u;
    return (16ull + sub) << (e - 4u);
}
#endif
