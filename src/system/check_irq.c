/* SPDX-License-Identifier: MIT */
/* The IRQs that may interrupt the CPU: every one is listed (as ranges), with those the kernel
 * will not move when debugfs says why, and `check --move-irqs` moves the others. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "system/syscheck_priv.h"
#include "util/cpulist.h"

#define LIST_MAX  4096
#define IRQ_MAX   100000     /* entries read from /proc/irq: a bound for hostile trees */
#define DEBUG_MAX (64 * 1024)

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool has_word(const char *buf, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = buf; (p = strstr(p, w)); p += n)
        if ((p == buf || !isalnum((unsigned char)p[-1])) &&
            !isalnum((unsigned char)p[n]) && p[n] != '_')
            return true;
    return false;
}

/* Why the kernel refuses to move an IRQ, from its debugfs state (CONFIG_GENERIC_IRQ_DEBUGFS,
 * debugfs mounted): the flags irq_can_set_affinity_usr() rejects. NULL when not known. */
static const char *irq_fixed(const struct sc_ctx *c, unsigned irq)
{
    char path[64], *buf;
    const char *why = NULL;

    snprintf(path, sizeof(path), "/sys/kernel/debug/irq/irqs/%u", irq);
    if (sc_read(c, path, &buf, DEBUG_MAX))
        return NULL;
    if (has_word(buf, "IRQD_PER_CPU"))
        why = "per-CPU";
    else if (has_word(buf, "IRQD_AFFINITY_MANAGED"))
        why = "managed by its driver";
    else if (has_word(buf, "IRQD_NO_BALANCING"))
        why = "no balancing";
    free(buf);
    return why;
}

static int cmp_irq(const void *a, const void *b)
{
    unsigned x = ((const struct syscheck_irq *)a)->irq, y = ((const struct syscheck_irq *)b)->irq;
    return x < y ? -1 : x > y;
}

void syscheck_irq_ranges(const struct syscheck_irq *v, size_t n, char *buf, size_t len)
{
    size_t used = 0, i = 0;
    char more[32];

    if (len)
        buf[0] = '\0';
    while (i < n) {
        size_t j = i;
        char one[32];
        while (j + 1 < n && v[j + 1].irq == v[j].irq + 1)
            j++;
        if (j > i)
            snprintf(one, sizeof(one), "%s%u-%u", used ? " " : "", v[i].irq, v[j].irq);
        else
            snprintf(one, sizeof(one), "%s%u", used ? " " : "", v[i].irq);
        /* Leave room for the count of what does not fit. */
        snprintf(more, sizeof(more), " (+%zu more)", n - i);
        if (used + strlen(one) + (j + 1 < n ? strlen(more) : 0) >= len) {
            if (used + strlen(more) < len)
                memcpy(buf + used, more, strlen(more) + 1);
            return;
        }
        memcpy(buf + used, one, strlen(one) + 1);
        used += strlen(one);
        i = j + 1;
    }
}

/* The other online CPUs, preferring those that are not isolated. */
static void irq_target(const struct sc_ctx *c, char *buf, size_t len)
{
    cpu_set_t rest;

    CPU_XOR(&rest, &c->online, &c->isolated);
    CPU_AND(&rest, &rest, &c->online);
    CPU_CLR(c->cpu, &rest);
    if (!CPU_COUNT(&rest)) {
        CPU_ZERO(&rest);
        CPU_OR(&rest, &rest, &c->online);
        CPU_CLR(c->cpu, &rest);
    }
    if (CPU_COUNT(&rest))
        cpulist_format(&rest, buf, len);
    else if (len)
        buf[0] = '\0';
}

/* Reads /proc/irq into sc->irqs. Returns the number of IRQs seen, or -errno. */
static long read_irqs(struct sc_ctx *c, DIR *d)
{
    struct syscheck *sc = c->sc;
    size_t cap = 0;
    long seen = 0;
    struct dirent *de;

    while ((de = readdir(d)) && seen < IRQ_MAX) {
        char path[512], line[LIST_MAX];
        cpu_set_t set;
        if (!all_digits(de->d_name) || strlen(de->d_name) > 9)
            continue;
        seen++;
        snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", de->d_name);
        if (sc_read_line(c, path, line, sizeof(line)) || cpulist_parse(line, &set) ||
            !CPU_ISSET(c->cpu, &set))
            continue;
        if (sc->nirqs == cap) {
            size_t nc = cap ? cap * 2 : 64;
            struct syscheck_irq *v = realloc(sc->irqs, nc * sizeof(*v));
            if (!v)
                return -ENOMEM;
            sc->irqs = v;
            cap = nc;
        }
        sc->irqs[sc->nirqs].irq = (unsigned)strtoul(de->d_name, NULL, 10);
        sc->irqs[sc->nirqs].fixed = irq_fixed(c, sc->irqs[sc->nirqs].irq);
        sc->nirqs++;
    }
    if (sc->nirqs)
        qsort(sc->irqs, sc->nirqs, sizeof(*sc->irqs), cmp_irq);
    return seen;
}

/* "; the kernel keeps 2 there (27 per-CPU, 40 managed by its driver)" for the fixed IRQs. */
static size_t describe_fixed(const struct syscheck *sc, char *buf, size_t len)
{
    size_t nf = 0, used;

    for (size_t i = 0; i < sc->nirqs; i++)
        nf += sc->irqs[i].fixed != NULL;
    if (!nf) {
        buf[0] = '\0';
        return 0;
    }
    used = (size_t)snprintf(buf, len, "; the kernel keeps %zu there (", nf);
    for (size_t i = 0, k = 0; i < sc->nirqs && used < len; i++) {
        if (!sc->irqs[i].fixed)
            continue;
        if (k++ == 4) {
            used += (size_t)snprintf(buf + used, len - used, ", ...");
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%u %s", k > 1 ? ", " : "",
                                 sc->irqs[i].irq, sc->irqs[i].fixed);
    }
    if (used < len)
        snprintf(buf + used, len - used, ")");
    return nf;
}

int check_irq(struct sc_ctx *c)
{
    struct syscheck *sc = c->sc;
    char dir[4096], names[300], fixed[160], v[512], a[512];
    size_t nfixed;
    long seen;
    DIR *d;

    sc_path(c, "/proc/irq", dir, sizeof(dir));
    d = opendir(dir);
    if (!d && errno == ENOENT)
        return sc_add(c, "irq_affinity", CHECK_NA, "no /proc/irq", NULL);
    if (!d)
        return sc_add(c, "irq_affinity", CHECK_NA, "/proc/irq is not readable",
                      "run as root to see IRQ affinities");
    seen = read_irqs(c, d);
    closedir(d);
    if (seen < 0)
        return (int)seen;
    irq_target(c, sc->irq_target, sizeof(sc->irq_target));
    if (!seen)
        return sc_add(c, "irq_affinity", CHECK_NA, "no IRQs listed in /proc/irq", NULL);
    if (!sc->nirqs) {
        snprintf(v, sizeof(v), "none of %ld IRQs may be delivered to CPU %d", seen, c->cpu);
        return sc_add(c, "irq_affinity", CHECK_OK, v, NULL);
    }
    syscheck_irq_ranges(sc->irqs, sc->nirqs, names, sizeof(names));
    nfixed = describe_fixed(sc, fixed, sizeof(fixed));
    snprintf(v, sizeof(v), "%zu of %ld IRQs may be delivered to CPU %d (%s)%s", sc->nirqs, seen,
             c->cpu, names, fixed);
    if (!sc->irq_target[0])
        snprintf(a, sizeof(a), "this is the only online CPU: IRQs cannot be moved away");
    else if (nfixed == sc->nirqs)
        snprintf(a, sizeof(a), "none of them can move (isolcpus=managed_irq,%d at boot keeps "
                 "driver-managed IRQs off it)", c->cpu);
    else
        snprintf(a, sizeof(a), "move them to CPU %.100s: prospect check --cpu %d --move-irqs "
                 "(as root; stop irqbalance first, it moves them back)", sc->irq_target, c->cpu);
    return sc_add(c, "irq_affinity", CHECK_WARN, v, a);
}
