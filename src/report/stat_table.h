/* Tables for `prospect stat`: per-region aggregates (text boxes like Perforator's, or CSV),
 * and the whole-program counter list. Renderers write to the FILE the command gives them. */
#ifndef PROSPECT_REPORT_STAT_TABLE_H
#define PROSPECT_REPORT_STAT_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "trace/program_count.h"
#include "trace/region_count.h"

struct stat_region_view {
    const char *label;
    const struct rc_result *res;       /* aggregate over threads */
    const struct rc_result *threads;   /* per-thread results (for --per-thread), may be NULL */
    size_t nthreads;
    bool missing;                      /* the region could not be resolved */
};

struct stat_report_opts {
    bool summary;        /* one table, a row per region */
    bool csv;
    bool detail;         /* p50 and p99 */
    bool per_thread;
    const char *sort_key;/* "region", "calls", "crossings", "wall-clock" or a column name */
    bool reverse;
};

/* Prints the region results. -EINVAL (err says why) for an unknown sort key. */
/* Whether key names a column of the region table (checked before the workload runs). 0, or
 * -EINVAL with the choices in err. */
int stat_sort_key_check(const char *key, const char *const *cols, size_t ncols, char *err,
                        size_t errlen);
int stat_report_regions(FILE *f, struct stat_region_view *v, size_t n, const char *const *cols,
                        size_t ncols, const struct stat_report_opts *o, char *err, size_t errlen);

/* Whole-program mode, like perf stat. names[i] labels vals[i]; `unsupported` lists events that
 * did not open (printed as "<not supported>"). wall_ns is the elapsed time. */
void stat_report_program(FILE *f, const char *command, const char *const *names,
                         const struct pc_value *vals, size_t n, const char *const *unsupported,
                         size_t nunsup, double wall_ns, bool csv);

/* True for columns that hold nanoseconds (task-clock, cpu-clock). */
bool stat_column_is_time(const char *name);
#endif
