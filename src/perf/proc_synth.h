/* SPDX-License-Identifier: MIT */
/* Synthesizes COMM and MMAP2 records for processes that already exist, from /proc (as Prospect
 * scanned /proc at start-up). Records get time 0 and a zeroed sample_id trailer of the size the
 * attr needs, so they are valid both for the session and in a perf.data file. Every /proc file
 * is untrusted: unreadable entries (other users' processes, races with exit) are counted. */
#ifndef PROSPECT_PERF_PROC_SYNTH_H
#define PROSPECT_PERF_PROC_SYNTH_H
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct proc_synth_stats {
    uint64_t processes, threads, maps;
    uint64_t unreadable;          /* entries that could not be read (permissions, races) */
    pid_t first_unreadable;       /* one example, for the message */
};

typedef int (*synth_fn)(void *arg, const struct perf_event_header *h);

/* Emits records for one process (pid) or, with pid == -1, for every process in `procdir`
 * ("/proc"; tests point it at fixtures). */
int proc_synthesize(const char *procdir, pid_t pid, const struct perf_event_attr *attr,
                    synth_fn fn, void *arg, struct proc_synth_stats *stats);

/* Parses one line of /proc/PID/maps. Returns 0 and fills the fields (path may be "" for an
 * anonymous map), or -EINVAL. prot is PROT_* bits. */
int proc_parse_maps_line(const char *line, uint64_t *start, uint64_t *end, uint32_t *prot,
                         uint64_t *pgoff, uint32_t *maj, uint32_t *min, uint64_t *ino,
                         const char **path);
#endif
