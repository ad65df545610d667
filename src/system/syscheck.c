/* SPDX-License-Identifier: MIT */
/* The check driver: root-relative reading of untrusted /proc and /sys files, the item list,
 * the choice of CPU, and the order of the checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "system/syscheck_priv.h"
#include "util/cpulist.h"
#include "util/file.h"
#include "util/strutil.h"

#define CMDLINE_MAX  (64 * 1024)
#define CPUINFO_MAX  (16 * 1024 * 1024)     /* thousands of CPUs at ~1.5 KB each */
#define SMALL_MAX    (64 * 1024)

void sc_path(const struct sc_ctx *c, const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", c->root, path);
}

int sc_read(const struct sc_ctx *c, const char *path, char **buf, size_t max)
{
    char full[4096];
    sc_path(c, path, full, sizeof(full));
    return file_read_all(full, buf, NULL, max);
}

int sc_read_line(const struct sc_ctx *c, const char *path, char *buf, size_t len)
{
    char *s, *nl;
    int err = sc_read(c, path, &s, SMALL_MAX);
    if (err)
        return err;
    nl = strchr(s, '\n');
    if (nl)
        *nl = '\0';
    str_copy(buf, len, s);
    free(s);
    return 0;
}

int sc_read_long(const struct sc_ctx *c, const char *path, long *out)
{
    char line[64], *end;
    long v;
    int err = sc_read_line(c, path, line, sizeof(line));
    if (err)
        return err;
    errno = 0;
    v = strtol(line, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == line || *end)
        return -EINVAL;
    *out = v;
    return 0;
}

bool sc_cmdline_param(const struct sc_ctx *c, const char *name, char *buf, size_t len)
{
    size_t n = strlen(name);
    const char *p = c->cmdline;
    bool found = false;

    /* The last occurrence wins, as for the kernel; "--" ends the kernel's parameters. */
    while (p && *p) {
        const char *end;
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        end = p;
        while (*end && *end != ' ' && *end != '\t' && *end != '\n')
            end++;
        if (end - p == 2 && !strncmp(p, "--", 2))
            break;
        if ((size_t)(end - p) >= n && !strncmp(p, name, n) && (p[n] == '=' || p + n == end)) {
            const char *v = p[n] == '=' ? p + n + 1 : end;
            size_t vl = (size_t)(end - v);
            if (len) {
                if (vl >= len)
                    vl = len - 1;
                memcpy(buf, v, vl);
                buf[vl] = '\0';
            }
            found = true;
        }
        p = end;
    }
    return found;
}

bool sc_has_flag(const struct sc_ctx *c, const char *flag)
{
    size_t n = strlen(flag);
    const char *p = c->cpuinfo_flags;

    while (p && (p = strstr(p, flag))) {
        bool start = p == c->cpuinfo_flags || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
        bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';
        if (start && end)
            return true;
        p += n;
    }
    return false;
}

int sc_add(struct sc_ctx *c, const char *name, enum check_status st, const char *value,
           const char *advice)
{
    struct syscheck *sc = c->sc;
    struct check_item *it;

    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 32;
        it = realloc(sc->items, cap * sizeof(*it));
        if (!it)
            return -ENOMEM;
        sc->items = it;
        sc->cap = cap;
    }
    it = &sc->items[sc->n++];
    str_copy(it->name, sizeof(it->name), name);
    it->status = st;
    str_copy(it->value, sizeof(it->value), value);
    str_copy(it->advice, sizeof(it->advice), advice ? advice : "");
    /* Values quote untrusted files: only printable ASCII reaches the terminal or the JSON
     * (/proc and /sys values are ASCII; anything else would be invalid UTF-8 in JSON). */
    for (char *p = it->value; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
    return 0;
}

/* The "flags" line of the first processor in /proc/cpuinfo (all CPUs share the feature bits
 * that matter here). */
static char *read_cpuinfo_flags(const struct sc_ctx *c)
{
    char *buf, *p, *res = NULL;

    if (sc_read(c, "/proc/cpuinfo", &buf, CPUINFO_MAX))
        return NULL;
    for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (str_starts(p, "flags") && (p[5] == '\t' || p[5] == ' ' || p[5] == ':')) {
            char *colon = strchr(p, ':'), *nl;
            if (!colon)
                break;
            nl = strchr(colon, '\n');
            if (nl)
                *nl = '\0';
            res = strdup(colon + 1);
            break;
        }
    }
    free(buf);
    return res;
}

static int choose_cpu(struct sc_ctx *c, const struct syscheck_opts *o)
{
    char *buf;
    cpu_set_t iso;
    int err = sc_read(c, "/sys/devices/system/cpu/online", &buf, SMALL_MAX);

    if (err)
        return -ENOENT;
    err = cpulist_parse(buf, &c->online);
    free(buf);
    if (err || !CPU_COUNT(&c->online))
        return -ENOENT;
    cpulist_format(&c->online, c->sc->online, sizeof(c->sc->online));
    if (o->cpu >= 0) {
        c->cpu = o->cpu;
        c->sc->cpu = o->cpu;
        return o->cpu < CPU_SETSIZE && CPU_ISSET(o->cpu, &c->online) ? 0 : -ENODEV;
    }
    /* Like seed 004: prefer an isolated CPU, else leave CPU 0 to the OS and take the last. */
    c->sc->cpu_chosen = true;
    c->cpu = -1;
    if (sc_read(c, "/sys/devices/system/cpu/isolated", &buf, SMALL_MAX) == 0) {
        if (cpulist_parse(buf, &iso) == 0) {
            CPU_AND(&iso, &iso, &c->online);
            c->cpu = cpulist_first(&iso);
        }
        free(buf);
    }
    if (c->cpu < 0)
        c->cpu = cpulist_last(&c->online);
    c->sc->cpu = c->cpu;
    return 0;
}

bool sc_root_prefix(const char *root, char *buf, size_t len)
{
    size_t rl;

    /* Paths are root + at most ~100 bytes: refuse roots that would truncate them. */
    if (strlen(root ? root : "/") + 512 > len)
        return false;
    str_copy(buf, len, root ? root : "/");
    rl = strlen(buf);
    while (rl > 0 && buf[rl - 1] == '/')
        buf[--rl] = '\0';
    return true;
}

int syscheck_run(const struct syscheck_opts *o, struct syscheck *sc)
{
    struct sc_ctx c;
    char root[4096];
    int err;

    memset(sc, 0, sizeof(*sc));
    memset(&c, 0, sizeof(c));
    if (!sc_root_prefix(o->root, root, sizeof(root)))
        return -ENAMETOOLONG;
    c.root = root;
    c.live = root[0] == '\0';
    c.privileged = o->privileged;
    c.sc = sc;
    err = choose_cpu(&c, o);
    if (err)
        return err;
    if (sc_read(&c, "/proc/cmdline", &c.cmdline, CMDLINE_MAX))
        c.cmdline = NULL;
    c.cpuinfo_flags = read_cpuinfo_flags(&c);

    int (*const checks[])(struct sc_ctx *) = {
        check_isolation, check_irq, check_cpufreq, check_smt, check_kernel_knobs, check_clock,
        check_load,
    };
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]) && !err; i++)
        err = checks[i](&c);
    free(c.cmdline);
    free(c.cpuinfo_flags);
    if (err)
        syscheck_release(sc);
    return err;
}

void syscheck_release(struct syscheck *sc)
{
    free(sc->items);
    sc->items = NULL;
    sc->n = sc->cap = 0;
    free(sc->irqs);
    sc->irqs = NULL;
    sc->nirqs = 0;
}

const char *check_status_name(enum check_status s)
{
    return s == CHECK_OK ? "ok" : s == CHECK_WARN ? "warn" : "n/a";
}

size_t syscheck_count(const struct syscheck *sc, enum check_status s)
{
    size_t n = 0;
    for (size_t i = 0; i < sc->n; i++)
        n += sc->items[i].status == s;
    return n;
}
