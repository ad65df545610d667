/* SPDX-License-Identifier: MIT */
/* Kernel knobs that change what is measured or what may be measured: ASLR,
 * perf_event_paranoid, kptr_restrict. */
#include <stdio.h>
#include "system/syscheck_priv.h"

int check_kernel_knobs(struct sc_ctx *c)
{
    char v[512];
    long x;
    int err;

    if (sc_read_long(c, "/proc/sys/kernel/randomize_va_space", &x))
        err = sc_add(c, "aslr", CHECK_NA, "randomize_va_space not readable or not a number", NULL);
    else if (x == 0)
        err = sc_add(c, "aslr", CHECK_OK, "off (randomize_va_space = 0)", NULL);
    else {
        snprintf(v, sizeof(v), "on (randomize_va_space = %ld): code and data addresses, and so "
                 "cache and alignment effects, change from run to run", x);
        err = sc_add(c, "aslr", CHECK_WARN, v, "run the measured program under 'setarch -R', or "
                     "echo 0 > /proc/sys/kernel/randomize_va_space while measuring");
    }
    if (err)
        return err;

    if (sc_read_long(c, "/proc/sys/kernel/perf_event_paranoid", &x))
        err = sc_add(c, "perf_event_paranoid", CHECK_NA, "not readable or not a number (no perf events?)", NULL);
    else if (x <= 1 || c->privileged) {
        snprintf(v, sizeof(v), "%ld%s", x, x > 1 ? " (root is not limited by it)" : "");
        err = sc_add(c, "perf_event_paranoid", CHECK_OK, v, NULL);
    } else {
        snprintf(v, sizeof(v), "%ld: unprivileged users cannot profile the kernel%s", x,
                 x > 2 ? " or use perf events at all" : "");
        err = sc_add(c, "perf_event_paranoid", CHECK_WARN, v,
                     "sysctl kernel.perf_event_paranoid=1 (or run as root / grant CAP_PERFMON)");
    }
    if (err)
        return err;

    if (sc_read_long(c, "/proc/sys/kernel/kptr_restrict", &x))
        return sc_add(c, "kptr_restrict", CHECK_NA, "not readable or not a number", NULL);
    if (x == 0 || (x == 1 && c->privileged)) {
        snprintf(v, sizeof(v), "%ld: kernel symbol addresses are visible%s", x,
                 x ? " to root" : "");
        return sc_add(c, "kptr_restrict", CHECK_OK, v, NULL);
    }
    snprintf(v, sizeof(v), "%ld: kernel symbol addresses are hidden%s, so kernel samples "
             "cannot be named", x, x == 1 ? " from unprivileged users" : " even from root");
    return sc_add(c, "kptr_restrict", CHECK_WARN, v, "sysctl kernel.kptr_restrict=0");
}
