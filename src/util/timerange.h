/* SPDX-License-Identifier: MIT */
/* perf's --time ranges: "START,STOP" in seconds (either end may be empty, several ranges
 * separated by spaces), or percent slices of the recording: "10%/2" (the second tenth),
 * "0%-10%,30%-40%". Parsed once; percent ranges are placed when the first and last sample
 * times are known. */
#ifndef PROSPECT_UTIL_TIMERANGE_H
#define PROSPECT_UTIL_TIMERANGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMERANGE_MAX 32

struct timerange {
    size_t n;
    bool percent;                 /* start_pct/end_pct given: place them with timerange_place */
    uint64_t start[TIMERANGE_MAX], end[TIMERANGE_MAX];    /* ns; 0: open on that side */
    double start_pct[TIMERANGE_MAX], end_pct[TIMERANGE_MAX];
};

/* Parses perf's forms into *tr: 0, or -EINVAL with the reason in why. */
int timerange_parse(const char *text, struct timerange *tr, char *why, size_t len);
/* Turns percent ranges into times between the first and last sample (as perf rounds them).
 * 0, or -ENODATA for percentages when both times are 0 (unknown: perf refuses them too). */
int timerange_place(struct timerange *tr, uint64_t first, uint64_t last);
/* Whether a sample at time t is inside one of the ranges (all of time when there are none).
 * A sample without a time (0) is kept, as perf report and perf script both keep it. */
bool timerange_has(const struct timerange *tr, uint64_t t);
#endif
