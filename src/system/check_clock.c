/* SPDX-License-Identifier: MIT */
/* The clocks and counters measurements rely on: hardware PMU, TSC invariance, the kernel's
 * clocksource, and whether a hypervisor sits underneath. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "system/syscheck_priv.h"
#include "util/strutil.h"

/* The first core PMU in /sys/bus/event_source/devices: "cpu", or "cpu_core"/"cpu_atom" on
 * hybrid parts, or an Arm PMU. Returns 1 with its name, 0 when none, -1 without the dir. */
static int find_pmu(const struct sc_ctx *c, char *name, size_t len)
{
    char dir[4096];
    struct dirent *de;
    DIR *d;
    int found = 0;

    sc_path(c, "/sys/bus/event_source/devices", dir, sizeof(dir));
    d = opendir(dir);
    if (!d)
        return -1;
    while ((de = readdir(d)) && !found) {
        if (!strcmp(de->d_name, "cpu") || str_starts(de->d_name, "cpu_") ||
            str_starts(de->d_name, "armv8_pmu")) {
            str_copy(name, len, de->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

int check_clock(struct sc_ctx *c)
{
    char pmu[256], line[256], v[512];
    int err, found = find_pmu(c, pmu, sizeof(pmu));

    if (found > 0) {
        snprintf(v, sizeof(v), "hardware PMU present (%.200s): cycles, instructions and cache "
                 "events can be counted", pmu);
        err = sc_add(c, "pmu", CHECK_OK, v, NULL);
    } else if (found < 0) {
        err = sc_add(c, "pmu", CHECK_NA, "no /sys/bus/event_source (perf events not built in?)",
                     NULL);
    } else {
        err = sc_add(c, "pmu", CHECK_WARN, "no hardware PMU (usual in VMs): cycles, "
                     "instructions and cache events are unavailable",
                     "Prospect samples with cpu-clock instead; TSC timing (prospect/cycles.h) "
                     "still works; for counters use bare metal or a VM with PMU passthrough");
    }
    if (err)
        return err;

    if (!c->cpuinfo_flags || !sc_has_flag(c, "tsc")) {
        err = sc_add(c, "tsc", CHECK_NA, "no TSC flag in /proc/cpuinfo (not x86?)", NULL);
    } else if (sc_has_flag(c, "constant_tsc") && sc_has_flag(c, "nonstop_tsc")) {
        /* Without rdtscp cycles.h uses its fallback reads (docs/cycles.md): a note, no warning. */
        snprintf(v, sizeof(v), "invariant (constant_tsc nonstop_tsc%s%s)%s",
                 sc_has_flag(c, "rdtscp") ? " rdtscp" : "",
                 sc_has_flag(c, "tsc_known_freq") ? " tsc_known_freq" : "",
                 sc_has_flag(c, "rdtscp") ? "" : "; note: no rdtscp");
        err = sc_add(c, "tsc", CHECK_OK, v, NULL);
    } else {
        snprintf(v, sizeof(v), "not invariant (missing%s%s): its rate changes with frequency "
                 "or sleep states", sc_has_flag(c, "constant_tsc") ? "" : " constant_tsc",
                 sc_has_flag(c, "nonstop_tsc") ? "" : " nonstop_tsc");
        err = sc_add(c, "tsc", CHECK_WARN, v, "prospect/cycles.h refuses to time here; use "
                     "clock_gettime(CLOCK_MONOTONIC_RAW)");
    }
    if (err)
        return err;

    if (sc_read_line(c, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                     line, sizeof(line)) || !line[0]) {
        err = sc_add(c, "clocksource", CHECK_NA, "current_clocksource not readable", NULL);
    } else if (!strcmp(line, "tsc")) {
        err = sc_add(c, "clocksource", CHECK_OK, "tsc: the kernel trusts the TSC", NULL);
    } else {
        snprintf(v, sizeof(v), "%s, not tsc: the kernel may have found the TSC unstable", line);
        err = sc_add(c, "clocksource", CHECK_WARN, v, "look for 'tsc' in dmesg (marked "
                     "unstable?); clock_gettime costs more and TSC timing needs care here");
    }
    if (err)
        return err;

    if (sc_read_line(c, "/sys/hypervisor/type", line, sizeof(line)) == 0 && line[0]) {
        snprintf(v, sizeof(v), "running under a hypervisor (%s)", line);
    } else if (sc_has_flag(c, "hypervisor")) {
        snprintf(v, sizeof(v), "running under a hypervisor (hypervisor flag in /proc/cpuinfo)");
    } else {
        return sc_add(c, "hypervisor", CHECK_OK, "none detected", NULL);
    }
    return sc_add(c, "hypervisor", CHECK_WARN, v, "steal time, vCPU preemption and trapped "
                  "instructions (cpuid costs microseconds) add noise: prefer bare metal, or "
                  "dedicated pinned vCPUs; use the lfence barrier, not cpuid");
}
