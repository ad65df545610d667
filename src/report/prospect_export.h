/* SPDX-License-Identifier: MIT */
/* The Prospect report's tables in machine-readable form (`prospect report --format csv|json`):
 * the run statistics, the summary of processes, each detailed process's USER and KERNEL
 * profiles (top N rows) and the global KERNEL profile. Processes are detailed with the same
 * rule as the text report (share >= min_percent).
 *
 * CSV: one table, columns section,pid,comm,symbol,dso,samples,period,percent where section is
 *   "summary" (one row per process with samples; symbol/dso empty; percent of the period of
 *   all samples), "user" / "kernel" (a process's profile rows; percent of that process's
 *   period, as in the text report), "global_kernel" (pid/comm empty; percent of the period of
 *   all samples). Periods are the events the samples stand for (perf's overhead); names are
 *   whole, with control characters and malformed UTF-8 escaped.
 * JSON: {event, samples, user, kernel, lost, throttle, processes[{pid, comm, samples,
 *   user_samples, kernel_samples, user_period, kernel_period, percent, detailed,
 *   user_profile[{symbol, dso, samples, period, percent}], kernel_profile[...]}],
 *   kernel_profile[...]}. Unresolved symbols are "0x..." addresses. */
#ifndef PROSPECT_REPORT_PROSPECT_EXPORT_H
#define PROSPECT_REPORT_PROSPECT_EXPORT_H
#include <stdio.h>
#include "report/format.h"
#include "report/prospect_report.h"

/* fmt is REPORT_CSV or REPORT_JSON. 0 or -ENOMEM / -EIO. */
int report_prospect_export(FILE *f, struct session *s, const struct ksyms *ks,
                           const struct report_opts *o, enum report_format fmt);
#endif
