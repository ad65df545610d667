/* SPDX-License-Identifier: MIT */
/* CPU isolation: isolcpus, nohz_full, rcu_nocbs. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "system/syscheck_priv.h"
#include "util/cpulist.h"

#define LIST_MAX 4096

/* isolcpus=[flag,...,]LIST: the flags are words (nohz, domain, managed_irq). */
static const char *isolcpus_list(const char *v)
{
    const char *p = v;
    while (isalpha((unsigned char)*p)) {
        const char *q = p;
        while (isalpha((unsigned char)*q) || *q == '_')
            q++;
        if (*q != ',')
            break;
        p = q + 1;
    }
    return p;
}

/* A CPU set from a sysfs list file, else from a kernel parameter; *src names where it came
 * from. Returns 1 when found, 0 when neither gives one, -EINVAL when unparsable. */
static int cpu_set_from(struct sc_ctx *c, const char *sysfs, const char *param, cpu_set_t *set,
                        char *src, size_t srclen)
{
    char line[LIST_MAX];

    if (sysfs && sc_read_line(c, sysfs, line, sizeof(line)) == 0 && strcmp(line, "(null)")) {
        snprintf(src, srclen, "%s: %s", sysfs, line[0] ? line : "none");
        return cpulist_parse(line, set) ? -EINVAL : 1;
    }
    if (param && sc_cmdline_param(c, param, line, sizeof(line))) {
        const char *list = strcmp(param, "isolcpus") ? line : isolcpus_list(line);
        snprintf(src, srclen, "%s=%s", param, line);
        if (!*list && !strcmp(param, "rcu_nocbs")) {
            /* rcu_nocbs without a list lets every CPU's callbacks be offloaded. */
            snprintf(src, srclen, "rcu_nocbs, all CPUs");
            CPU_ZERO(set);
            CPU_OR(set, set, &c->online);
            return 1;
        }
        return cpulist_parse(list, set) ? -EINVAL : 1;
    }
    CPU_ZERO(set);
    return 0;
}

static int one_param(struct sc_ctx *c, const char *name, const char *sysfs, cpu_set_t *set,
                     const char *why)
{
    char src[LIST_MAX + 64], v[512], a[512];
    int r = cpu_set_from(c, sysfs, name, set, src, sizeof(src));

    if (r < 0) {
        snprintf(v, sizeof(v), "cannot parse %.400s", src);
        return sc_add(c, name, CHECK_WARN, v, "check the kernel command line syntax");
    }
    if (r > 0 && CPU_ISSET(c->cpu, set)) {
        snprintf(v, sizeof(v), "CPU %d is listed (%.400s)", c->cpu, src);
        return sc_add(c, name, CHECK_OK, v, NULL);
    }
    snprintf(v, sizeof(v), "CPU %d is not listed (%.400s)", c->cpu, r > 0 ? src : "not set");
    snprintf(a, sizeof(a), "boot with %s=%d: %s", name, c->cpu, why);
    return sc_add(c, name, CHECK_WARN, v, a);
}

int check_isolation(struct sc_ctx *c)
{
    cpu_set_t nohz, nocbs;
    char src[LIST_MAX + 64], v[512], a[512];
    int err;

    err = one_param(c, "isolcpus", "/sys/devices/system/cpu/isolated", &c->isolated,
                    "the scheduler then keeps other tasks off it (pin yours with --cpu)");
    if (err)
        return err;
    err = one_param(c, "nohz_full", "/sys/devices/system/cpu/nohz_full", &nohz,
                    "the periodic tick stops while a single task runs there");
    if (err)
        return err;
    /* nohz_full CPUs have their RCU callbacks offloaded too. */
    int r = cpu_set_from(c, NULL, "rcu_nocbs", &nocbs, src, sizeof(src));
    if (r >= 0 && (CPU_ISSET(c->cpu, &nohz) || (r > 0 && CPU_ISSET(c->cpu, &nocbs)))) {
        snprintf(v, sizeof(v), "CPU %d's RCU callbacks run elsewhere (%.400s)", c->cpu,
                 r > 0 && CPU_ISSET(c->cpu, &nocbs) ? src : "implied by nohz_full");
        return sc_add(c, "rcu_nocbs", CHECK_OK, v, NULL);
    }
    if (r < 0) {
        snprintf(v, sizeof(v), "cannot parse %.400s", src);
        return sc_add(c, "rcu_nocbs", CHECK_WARN, v, "check the kernel command line syntax");
    }
    snprintf(v, sizeof(v), "CPU %d is not listed (%.400s)", c->cpu, r > 0 ? src : "not set");
    snprintf(a, sizeof(a), "boot with rcu_nocbs=%d: RCU callbacks then run in kthreads on "
             "other CPUs", c->cpu);
    return sc_add(c, "rcu_nocbs", CHECK_WARN, v, a);
}
