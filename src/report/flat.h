/* SPDX-License-Identifier: MIT */
/* The flat table perf users know: `Overhead  Command  Shared Object  Symbol`, rows aggregated
 * by any of comm, pid, dso, sym in the order given (or per thread: tid), sorted by period
 * (perf's overhead), with a percent limit and a DSO filter. Hits in stripped libraries are
 * Prospect's a->b brackets; with no_bracket they are the raw addresses perf prints.
 *
 * Overhead is the share of the period (events, not samples) of all the event's samples, as
 * perf's default --percentage absolute: filters hide rows, they do not rescale them (total_*
 * below give the unfiltered totals when the session was filtered); with `relative` the shown
 * rows' total is 100%. Unresolved symbols print as perf does: "[k] 0x..." kernel addresses,
 * "[.] 0x..." DSO-relative addresses (raw ips where no map covers the sample). C++ names are
 * shown without their parameter lists, as perf shows them. Every format escapes control
 * characters and malformed UTF-8 in names (str_char_escape); text elides long names in the
 * middle to fit 100 columns unless `wide`, CSV and JSON have them whole.
 *
 * CSV columns: overhead,samples,period, then the sort keys in order among comm,pid,dso,symbol;
 * with symbol also mode ("kernel" or "user"). JSON: {event, samples, period, sort, rows[{same
 * keys}], hidden_rows} plus "percentage" (absolute or relative); tid rows have tid, pid, comm. */
#ifndef PROSPECT_REPORT_FLAT_H
#define PROSPECT_REPORT_FLAT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report/format.h"
#include "session/session.h"

struct ksyms;
struct thread_tally;

enum flat_key { FLAT_COMM, FLAT_PID, FLAT_DSO, FLAT_SYM, FLAT_TID, FLAT_NKEYS };

struct flat_opts {
    enum flat_key keys[FLAT_NKEYS];
    size_t nkeys;
    double percent_limit;         /* rows below this share are not shown (counted) */
    const char *dso;              /* only this DSO (short name or path); NULL: all */
    bool no_bracket;
    bool show_nr_samples;         /* text: a Samples column (perf's -n) */
    bool relative;                /* shares of the filtered rows' total (perf's --percentage
                                     relative); default absolute: of every sample */
    bool wide;                    /* text: full names; default: elided in the middle to fit
                                     100 columns */
    enum report_format fmt;
    const char *event;            /* event name for the header */
    const char *separator;        /* text: fields joined by this, unpadded (perf's -t) */
    uint64_t total_samples, total_period;   /* before the session's filters; 0: unfiltered */
    const struct thread_tally *threads;     /* rows of the tid key (it stands alone) */
};

/* Parses "comm,dso,sym" (any order, each at most once; "symbol" and "shared" accepted), or
 * "tid" alone (perf's "tid:comm" per thread: symbol hits are kept per process, not thread).
 * 0, or -EINVAL with a reason in err. */
int flat_parse_sort(const char *s, struct flat_opts *o, char *err, size_t errlen);

/* Writes the table for the session's hits. 0 or -ENOMEM. */
int report_flat(FILE *f, struct session *s, const struct ksyms *ks, const struct flat_opts *o);
#endif
