/* SPDX-License-Identifier: MIT */
/* Frequency scaling (governor, min/max, boost/turbo) and SMT siblings of the chosen CPU. */
#include <stdio.h>
#include <string.h>
#include "system/syscheck_priv.h"
#include "util/cpulist.h"

int check_cpufreq(struct sc_ctx *c)
{
    char base[128], path[256], gov[64], v[512], a[512];
    long lo, hi, boost, no_turbo;
    int err;

    snprintf(base, sizeof(base), "/sys/devices/system/cpu/cpu%d/cpufreq", c->cpu);
    snprintf(path, sizeof(path), "%s/scaling_governor", base);
    if (sc_read_line(c, path, gov, sizeof(gov))) {
        snprintf(v, sizeof(v), "no cpufreq for CPU %d (a VM, or frequency set by firmware)",
                 c->cpu);
        err = sc_add(c, "governor", CHECK_NA, v, NULL);
    } else if (!strcmp(gov, "performance")) {
        err = sc_add(c, "governor", CHECK_OK, "performance", NULL);
    } else {
        snprintf(v, sizeof(v), "%s: the frequency follows the load, so the first calls run "
                 "slower", gov);
        snprintf(a, sizeof(a), "cpupower -c %d frequency-set -g performance (or echo performance "
                 "> %s/scaling_governor)", c->cpu, base);
        err = sc_add(c, "governor", CHECK_WARN, v, a);
    }
    if (err)
        return err;

    snprintf(path, sizeof(path), "%s/scaling_min_freq", base);
    int e1 = sc_read_long(c, path, &lo);
    snprintf(path, sizeof(path), "%s/scaling_max_freq", base);
    int e2 = sc_read_long(c, path, &hi);
    if (e1 || e2) {
        err = sc_add(c, "frequency", CHECK_NA, "no scaling_min_freq/scaling_max_freq", NULL);
    } else if (lo >= hi) {
        snprintf(v, sizeof(v), "fixed at %ld MHz", hi / 1000);
        err = sc_add(c, "frequency", CHECK_OK, v, NULL);
    } else {
        snprintf(v, sizeof(v), "may vary from %ld to %ld MHz", lo / 1000, hi / 1000);
        snprintf(a, sizeof(a), "pin it: echo %ld > %s/scaling_min_freq (and compare TSC ticks, "
                 "which run at a constant rate, not core cycles)", hi, base);
        err = sc_add(c, "frequency", CHECK_WARN, v, a);
    }
    if (err)
        return err;

    /* Generic cpufreq boost (acpi-cpufreq, amd-pstate) or intel_pstate's no_turbo. */
    if (sc_read_long(c, "/sys/devices/system/cpu/cpufreq/boost", &boost) == 0) {
        if (!boost)
            return sc_add(c, "boost", CHECK_OK, "off (cpufreq/boost = 0)", NULL);
        return sc_add(c, "boost", CHECK_WARN, "on (cpufreq/boost = 1): the clock rises and "
                      "falls with temperature and the load of other cores",
                      "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
    }
    if (sc_read_long(c, "/sys/devices/system/cpu/intel_pstate/no_turbo", &no_turbo) == 0) {
        if (no_turbo)
            return sc_add(c, "boost", CHECK_OK, "turbo off (intel_pstate/no_turbo = 1)", NULL);
        return sc_add(c, "boost", CHECK_WARN, "turbo on (intel_pstate/no_turbo = 0): the clock "
                      "rises and falls with temperature and the load of other cores",
                      "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
    }
    return sc_add(c, "boost", CHECK_NA, "no boost or turbo control", NULL);
}

int check_smt(struct sc_ctx *c)
{
    char path[256], line[1024], v[512], a[512];
    long active;
    cpu_set_t sib;

    if (sc_read_long(c, "/sys/devices/system/cpu/smt/active", &active))
        return sc_add(c, "smt", CHECK_NA, "no SMT control in this kernel", NULL);
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             c->cpu);
    if (sc_read_line(c, path, line, sizeof(line)) || cpulist_parse(line, &sib)) {
        CPU_ZERO(&sib);
        CPU_SET(c->cpu, &sib);
    }
    if (!active || CPU_COUNT(&sib) <= 1) {
        snprintf(v, sizeof(v), "%s: CPU %d has its core to itself",
                 active ? "SMT active" : "SMT off", c->cpu);
        return sc_add(c, "smt", CHECK_OK, v, NULL);
    }
    CPU_CLR(c->cpu, &sib);
    cpulist_format(&sib, line, sizeof(line));
    snprintf(v, sizeof(v), "SMT active: CPU %d shares its core with CPU %.200s", c->cpu, line);
    snprintf(a, sizeof(a), "keep CPU %.200s idle (isolate it too) or turn SMT off: echo off > "
             "/sys/devices/system/cpu/smt/control", line);
    return sc_add(c, "smt", CHECK_WARN, v, a);
}
