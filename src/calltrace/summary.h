/* SPDX-License-Identifier: MIT */
/* `trace --summary`: per function the calls, total and mean time; for allocation calls the
 * request sizes as a histogram (power-of-two buckets) and the most frequent exact sizes (seed
 * 004's sort | uniq -c pipeline). */
#ifndef PROSPECT_CALLTRACE_SUMMARY_H
#define PROSPECT_CALLTRACE_SUMMARY_H
#include <stdint.h>
#include <stdio.h>
#include "calltrace/collect.h"

struct ct_summary;
struct ct_summary *ct_summary_new(void);
void ct_summary_free(struct ct_summary *s);
/* Adds one call lasting dur_ns. 0 or -ENOMEM. */
int ct_summary_add(struct ct_summary *s, const struct ct_call *k, uint64_t dur_ns);
/* Prints the tables (top: how many exact sizes to list). */
void ct_summary_print(struct ct_summary *s, FILE *f, unsigned top);
#endif
