/* SPDX-License-Identifier: MIT */
/* `prospect report --header` and `--stats`: what a perf.data file says about itself (host,
 * kernel, events, samples, lost, build ids, features) and its record counts, as text, CSV or
 * JSON. Needs perfdata_process to have run (for the counts).
 *
 * CSV columns: --header: field,value (events as event.N.KEY, build ids as build_id.N.KEY);
 *              --stats:  type,name,count.
 * JSON: one object; --header keys as in CSV, events/build_ids/features as arrays. */
#ifndef PROSPECT_REPORT_FILE_HEADER_H
#define PROSPECT_REPORT_FILE_HEADER_H
#include <stdio.h>
#include "perf/perfdata.h"
#include "report/format.h"

void report_file_header(FILE *f, const struct perfdata *pd, enum report_format fmt);
void report_record_stats(FILE *f, const struct perfdata *pd, enum report_format fmt);

/* "IP|TID|TIME|..." for a sample_type. */
void sample_type_str(uint64_t st, char *buf, size_t len);
#endif
