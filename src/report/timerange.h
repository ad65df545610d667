/* SPDX-License-Identifier: MIT */
/* perf's --time: the samples a report keeps, by their timestamps. The forms are perf's:
 * "START,STOP" in seconds (either side may be empty; several ranges separated by spaces),
 * "P%/N" (the N-th slice of P% of the recording) and "A%-B%", several joined by commas. */
#ifndef PROSPECT_REPORT_TIMERANGE_H
#define PROSPECT_REPORT_TIMERANGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TIME_RANGES_MAX = 32 };

struct time_range {
    uint64_t start, end;      /* ns, both kept; 0: open on that side */
};

struct time_ranges {
    struct time_range v[TIME_RANGES_MAX];
    size_t n;
};

/* Whether s uses percentages (they need the recording's first and last sample times). */
bool time_ranges_relative(const char *s);
/* Parses s; first and last are the recording's first and last sample times, for percentages
 * (0, 0: unknown, and a percentage is then -ENODATA). 0, or -EINVAL with why filled in. */
int time_ranges_parse(const char *s, uint64_t first, uint64_t last, struct time_ranges *r,
                      char *why, size_t len);
/* Whether a sample at time t is left out (perf's rules: a sample without a time is kept). */
bool time_ranges_skip(const struct time_ranges *r, uint64_t t);
#endif
