/* SPDX-License-Identifier: MIT */
/* Tables for `prospect stat`: per-region aggregates (text boxes like Perforator's, or CSV),
 * and the whole-program counter list. Renderers write to the FILE the command gives them. */
#ifndef PROSPECT_REPORT_STAT_TABLE_H
#define PROSPECT_REPORT_STAT_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "probe/program_count.h"
#include "probe/region_count.h"

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
    char sep;            /* CSV separator (-x SEP); 0 for ',' */
    bool full_names;     /* -v: never elide region names to fit the text width */
};

/* Prints the region results. -EINVAL (err says why) for an unknown sort key. */
/* Whether key names a column of the region table (checked before the workload runs). 0, or
 * -EINVAL with the choices in err. */
int stat_sort_key_check(const char *key, const char *const *cols, size_t ncols, char *err,
                        size_t errlen);
int stat_report_regions(FILE *f, struct stat_region_view *v, size_t n, const char *const *cols,
                        size_t ncols, const struct stat_report_opts *o, char *err, size_t errlen);

/* Whole-program mode, like perf stat. */
struct stat_program_view {
    const char *command;          /* the command line, "process N" or "system wide" */
    const char *const *names;     /* names[i] labels vals[i] */
    const struct pc_value *vals;  /* the means over the runs */
    const double *var;            /* with --repeat: relative standard error of each mean (%) */
    size_t n;
    unsigned runs;
    double wall_ns, wall_var;     /* elapsed time (mean), its variation (%) */
    double user_s, sys_s;         /* CPU time of the command (rusage); < 0 when not known */
};
/* Counts with perf's rates (CPUs utilized for time events, /sec for others), or CSV. */
void stat_report_program(FILE *f, const struct stat_program_view *v,
                         const struct stat_report_opts *o);
/* One -I interval: the counts of the last interval, t_s seconds after the start. */
void stat_report_interval(FILE *f, double t_s, const char *const *names,
                          const struct pc_value *vals, size_t n,
                          const struct stat_report_opts *o, bool header);

/* True for columns that hold nanoseconds (task-clock, cpu-clock). */
bool stat_column_is_time(const char *name);
#endif
