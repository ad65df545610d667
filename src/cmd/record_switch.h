/* SPDX-License-Identifier: MIT */
/* `record --switch-output`: when a recording rotates into a new file (SIGUSR2, a time or a
 * size, as perf), how a finished part is named (perf's PATH.YYYYmmddHHMMSScc) and which old
 * parts --switch-max-files removes. The rotation itself is cmd/record.c's. */
#ifndef PROSPECT_CMD_RECORD_SWITCH_H
#define PROSPECT_CMD_RECORD_SWITCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct switch_output {
    bool enabled;
    bool signal;                  /* SIGUSR2 rotates */
    bool signal_pending;          /* one came: rotate after the next drain */
    uint64_t time_ns;             /* rotate every so long; 0: not by time */
    uint64_t size;                /* rotate when the data reaches so many bytes; 0: not */
    uint64_t part_start_ns;       /* CLOCK_MONOTONIC when the current part began */
    size_t max_files;             /* keep at most so many parts; 0: all */
    char **parts;                 /* the parts written, oldest first (with max_files) */
    size_t nr_parts;
};

/* --switch-output[=signal|TIME|SIZE]: arg NULL is "signal"; TIME is N followed by s, m, h or
 * d, SIZE N followed by B, K, M or G (perf's tags: case matters, 10m is ten minutes, 10M ten
 * MiB). 0 or -EINVAL. */
int switch_output_parse(struct switch_output *so, const char *arg);
/* Installs the SIGUSR2 handler (a no-op unless rotating by signal, as perf) and starts the
 * first part's clock. */
void switch_output_start(struct switch_output *so);
/* Is a rotation due now, with `bytes` of data in the current part? Consumes a SIGUSR2. */
bool switch_output_due(struct switch_output *so, uint64_t bytes);
/* Renames the finished part at path to path.TIMESTAMP (perf's name, the local time to the
 * hundredth of a second; never over an existing file), its new name into out. 0 or -errno. */
int switch_output_rename(const char *path, char *out, size_t len);
/* Remembers a finished part; past max_files, removes the oldest. The removed file's name goes
 * into removed (empty when none). 0, -ENOMEM, or -errno of the removal. */
int switch_output_keep(struct switch_output *so, const char *part, char *removed, size_t len);
void switch_output_release(struct switch_output *so);
#endif
