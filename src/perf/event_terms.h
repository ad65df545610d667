/* SPDX-License-Identifier: MIT */
/* perf's PMU event syntax, PMU/term=value,.../[modifiers] ("cpu/event=0xc0,umask=0/u"): the
 * PMU's type and the bit positions of its terms come from sysfs (TYPE and format/TERM, e.g.
 * "config:0-7,32-35"); a term without a value may name one of the PMU's events/ aliases. */
#ifndef PROSPECT_PERF_EVENT_TERMS_H
#define PROSPECT_PERF_EVENT_TERMS_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Where PMUs are described; tests point it at a copy (NULL: /sys/bus/event_source/devices). */
void event_terms_set_root(const char *dir);
const char *event_terms_root(void);

/* Parses str into a (type, config, config1, config2, exclude_*) and *period (the "period"
 * term, else 0). 0; -ENOENT when the PMU is not there (err names the PMUs that are);
 * -EINVAL for a bad term or value (err says which). */
int event_parse_terms(const char *str, struct perf_event_attr *a, uint64_t *period, char *err,
                      size_t errlen);
#endif
