/* SPDX-License-Identifier: MIT */
/* perf script's output fields (-F): their names, perf's defaults per event type, and which
 * sample_type bit each needs. */
#ifndef PROSPECT_SCRIPT_FIELDS_H
#define PROSPECT_SCRIPT_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evsel;

enum script_field {
    SF_COMM, SF_TID, SF_PID, SF_CPU, SF_TIME, SF_PERIOD, SF_EVENT, SF_TRACE, SF_IP, SF_SYM,
    SF_SYMOFF, SF_DSO, SF_SRCLINE, SF_COUNT
};
#define SF_BIT(f) (1u << (f))

/* The -F argument: a list replaces the defaults ("comm,tid,ip,sym"); "+f,..." adds to them
 * and "-f,..." removes from them, as perf's. */
struct script_fieldspec {
    unsigned set, add, del;
    bool given;               /* a list: the fields are the user's (missing data is an error) */
};

/* Parses -F: 0, or -EINVAL with the reason in why. */
int script_fields_parse(const char *text, struct script_fieldspec *fs, char *why, size_t len);
/* The fields an event prints: perf's defaults for its type (tracepoints: comm, tid, cpu,
 * time, event, trace; with call chains in the file, ip, sym+offset and dso too; other events: comm,
 * tid, cpu, time, period, event, ip, sym+offset, dso), those the samples cannot carry left
 * out, then the spec applied. With a user list, a field the samples lack is an error: -EINVAL
 * with the reason in why. */
int script_fields_for(const struct evsel *sel, bool file_has_chains,
                      const struct script_fieldspec *fs, unsigned *out, char *why, size_t len);
/* perf's name of a field ("symoff"). */
const char *script_field_name(enum script_field f);
#endif
