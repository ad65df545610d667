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

/* The closest of names offered one at a time ("did you mean" for commands and options): within
 * cap edits of name, or starting with name when name has at least min_prefix bytes (an
 * abbreviation); ties go to the first offered. */
struct nearest_name {
    const char *name;
    size_t len, cap, min_prefix;
    size_t best_dist;
    const char *best;             /* NULL: none close enough */
};
void nearest_name_init(struct nearest_name *n, const char *name, size_t cap, size_t min_prefix);
void nearest_name_offer(struct nearest_name *n, const char *cand);
#endif
