/* SPDX-License-Identifier: MIT */
/* CPU lists as the kernel writes them in sysfs and on its command line ("0-3,8,10-11"). */
#ifndef PROSPECT_UTIL_CPULIST_H
#define PROSPECT_UTIL_CPULIST_H
#include <sched.h>
#include <stddef.h>

/* Parses a list of CPU numbers and ranges, comma separated; surrounding whitespace and an empty
 * list are accepted. Returns 0, -EINVAL (syntax) or -ERANGE (a CPU >= CPU_SETSIZE). */
int cpulist_parse(const char *s, cpu_set_t *set);
/* Writes the set as a list ("0-3,8"); "" for an empty set. -ENOSPC if it does not fit. */
int cpulist_format(const cpu_set_t *set, char *buf, size_t len);
/* The lowest / highest CPU in the set, or -1 when empty. */
int cpulist_first(const cpu_set_t *set);
int cpulist_last(const cpu_set_t *set);
#endif
