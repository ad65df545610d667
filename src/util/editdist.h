/* SPDX-License-Identifier: MIT */
/* Levenshtein distance, for "did you mean" suggestions (commands, options, events, regions). */
#ifndef PROSPECT_UTIL_EDITDIST_H
#define PROSPECT_UTIL_EDITDIST_H
#include <stddef.h>

/* Edits between a and b, at most cap (returned as soon as it is reached; names over 256
 * bytes count as cap). */
size_t edit_distance(const char *a, const char *b, size_t cap);
/* The same with ASCII case folded (PMU event names are spelt either way). */
size_t edit_distance_nocase(const char *a, const char *b, size_t cap);
#endif
