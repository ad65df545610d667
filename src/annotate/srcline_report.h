/* SPDX-License-Identifier: MIT */
/* `prospect report --sort srcline`: perf's flat table by source line. Every sample's address
 * is looked up once in its file's DWARF line table (libdw, no addr2line processes): rows are
 * "file:line" (the file's base name, as perf), "??:0" for user code without line information
 * and "symbol+offset" (decimal, as perf) for kernel code. */
#ifndef PROSPECT_ANNOTATE_SRCLINE_REPORT_H
#define PROSPECT_ANNOTATE_SRCLINE_REPORT_H
#include <stdio.h>
#include "report/flat.h"

struct session;
struct ksyms;

/* Writes the table (text, CSV: overhead,samples,period,srcline,source_file,line; JSON) with
 * the flat table's options: -n, --percent-limit, --percentage, -t, --dso, totals and event.
 * 0, -ENOMEM or -EIO. */
int report_srcline(FILE *f, struct session *s, const struct ksyms *ks,
                   const struct flat_opts *o);
#endif
