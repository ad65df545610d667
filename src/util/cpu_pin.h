/* SPDX-License-Identifier: MIT */
/* --cpu N for run, record and stat: parse the CPU and pin a task to it, with an explanation a
 * person can act on when the CPU cannot be used. */
#ifndef PROSPECT_UTIL_CPU_PIN_H
#define PROSPECT_UTIL_CPU_PIN_H
#include <stddef.h>
#include <sys/types.h>

/* Parses "N" (decimal CPU number, < CPU_SETSIZE). Returns 0 or -EINVAL / -ERANGE. */
int cpu_parse(const char *s, int *cpu);

/* Pins `pid` (0: the calling thread; a child started afterwards inherits it) to `cpu`.
 * Returns 0, or -errno with `err` saying why, e.g. "CPU 7 does not exist or is offline
 * (online CPUs: 0-1)" or "CPU 1 is not in the CPUs this process may use (0; restricted by
 * taskset or a cgroup cpuset)". `sysfs_online` is the online-CPU list file, normally
 * "/sys/devices/system/cpu/online" (tests pass a fixture). */
int cpu_pin(pid_t pid, int cpu, const char *sysfs_online, char *err, size_t errlen);
#endif
