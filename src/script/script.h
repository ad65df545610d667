/* SPDX-License-Identifier: MIT */
/* `prospect script`: every sample of a perf.data file as one line (and its call chain below
 * it), in perf script's layout, streamed: each sample is printed as the session hands it on
 * (a sample_sink) and never kept. Thread names follow COMM and FORK records (script_record
 * sees them before the session does). */
#ifndef PROSPECT_SCRIPT_SCRIPT_H
#define PROSPECT_SCRIPT_SCRIPT_H
#include <stdbool.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include "script/fields.h"
#include "session/sink.h"
#include "util/timerange.h"

struct evlist;
struct session;
struct perfdata_info;
struct perf_event_header;
struct script;

struct script_opts {
    struct script_fieldspec fields;
    struct timerange time;        /* n == 0: every sample */
    bool ns;                      /* times to the nanosecond (perf's --ns) */
    const char *pids, *tids;      /* --pid/--tid: comma-separated lists, NULL: any */
    const char *comms;            /* --comm: thread names, comma-separated, NULL: any */
    bool cpu_filter;
    cpu_set_t cpus;               /* --cpu: samples taken on these CPUs */
    const char *kallsyms;         /* kernel symbols from this file, else the file's kernel's
                                     cached copy, else /proc/kallsyms */
};

/* What the file and the options say to print, before any sample: -EINVAL with the reason in
 * why (a -F field the samples do not carry), -ENOMEM. */
int script_new(const struct script_opts *o, struct session *s, const struct evlist *evl,
               const struct perfdata_info *in, FILE *out, struct script **sc, char *why,
               size_t len);
/* Writes what is buffered and frees sc: 0, or -EIO when a write failed. */
int script_free(struct script *sc);
/* The sink the session hands kept samples to. */
struct sample_sink script_sink(struct script *sc);
/* A record, before the session takes it: thread names (COMM, FORK). 0 or -ENOMEM. */
int script_record(struct script *sc, const struct perf_event_header *h);
/* How many samples were printed, and the kernel symbols' problem if any (a line, or ""). */
uint64_t script_printed(const struct script *sc);
const char *script_kernel_note(const struct script *sc);
#endif
