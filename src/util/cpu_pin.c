/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/cpu_pin.h"
#include "util/cpulist.h"
#include "util/file.h"
#include "util/strutil.h"

int cpu_parse(const char *s, int *cpu)
{
    uint64_t v;
    int err;

    if (!s || !*s)
        return -EINVAL;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -EINVAL;     /* decimal only: "0x1" is more likely a mask than a CPU */
    err = parse_u64(s, &v);
    if (err)
        return err;
    if (v >= CPU_SETSIZE)
        return -ERANGE;
    *cpu = (int)v;
    return 0;
}

int cpu_pin(pid_t pid, int cpu, const char *sysfs_online, char *err, size_t errlen)
{
    cpu_set_t set, online, allowed;
    char list[256] = "";
    char *buf = NULL;
    int have_online = 0;

    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        snprintf(err, errlen, "CPU %d is out of range (0-%d)", cpu, CPU_SETSIZE - 1);
        return -EINVAL;
    }
    if (sysfs_online && file_read_all(sysfs_online, &buf, NULL, 64 * 1024) == 0) {
        have_online = cpulist_parse(buf, &online) == 0;
        free(buf);
    }
    if (have_online && !CPU_ISSET(cpu, &online)) {
        cpulist_format(&online, list, sizeof(list));
        snprintf(err, errlen, "CPU %d does not exist or is offline (online CPUs: %s)", cpu, list);
        return -EINVAL;
    }
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(pid, sizeof(set), &set) == 0)
        return 0;
    int e = errno;
    if (e == EINVAL && sched_getaffinity(pid, sizeof(allowed), &allowed) == 0) {
        cpulist_format(&allowed, list, sizeof(list));
        snprintf(err, errlen, "CPU %d is not in the CPUs this process may use (%s; restricted "
                 "by taskset or a cgroup cpuset)", cpu, list);
    } else if (e == ESRCH) {
        snprintf(err, errlen, "no such process %d", (int)pid);
    } else if (e == EPERM) {
        snprintf(err, errlen, "not permitted to set the CPU affinity of process %d", (int)pid);
    } else {
        snprintf(err, errlen, "cannot pin to CPU %d: %s", cpu, strerror(e));
    }
    return -e;
}
