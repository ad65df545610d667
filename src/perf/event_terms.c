/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "event_terms"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/event_terms.h"
#include "util/file.h"
#include "util/strutil.h"

static const char *pmu_root = "/sys/bus/event_source/devices";

void event_terms_set_root(const char *dir)
{
    pmu_root = dir ? dir : "/sys/bus/event_source/devices";
}

const char *event_terms_root(void)
{
    return pmu_root;
}

/* A small sysfs file as a trimmed string (untrusted: bounded, one line). */
static int read_line(const char *pmu, const char *rel, char *out, size_t len)
{
    char path[512], *buf;
    int err;

    if (snprintf(path, sizeof(path), "%s/%s/%s", pmu_root, pmu, rel) >= (int)sizeof(path))
        return -ENAMETOOLONG;
    if ((err = file_read_all(path, &buf, NULL, 4096)))
        return err;
    buf[strcspn(buf, "\n")] = '\0';
    str_copy(out, len, buf);
    free(buf);
    return 0;
}

static void list_pmus(char *buf, size_t len)
{
    struct dirent *de;
    DIR *d = opendir(pmu_root);
    size_t n = 0;

    buf[0] = '\0';
    if (!d)
        return;
    while ((de = readdir(d)) && n < len)
        if (de->d_name[0] != '.')
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", de->d_name);
    closedir(d);
}

/* Puts value's bits into the ranges of a format ("config:0-7,32-35"), low bits first. */
static int place_bits(const char *fmt, uint64_t value, struct perf_event_attr *a)
{
    __u64 *field;
    const char *p = strchr(fmt, ':');
    unsigned used = 0;

    if (!p)
        return -EINVAL;
    if (!strncmp(fmt, "config:", 7))
        field = &a->config;
    else if (!strncmp(fmt, "config1:", 8))
        field = &a->config1;
    else if (!strncmp(fmt, "config2:", 8))
        field = &a->config2;
    else
        return -EINVAL;
    for (p++; *p;) {
        char *end;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        if (end == p)
            return -EINVAL;
        if (*end == '-')
            hi = strtoul(end + 1, &end, 10);
        if (hi < lo || hi > 63 || (*end && *end != ','))
            return -EINVAL;
        for (unsigned long b = lo; b <= hi; b++, used++)
            if (used < 64 && (value >> used & 1))
                *field |= 1ULL << b;
        p = *end ? end + 1 : end;
    }
    if (used < 64 && value >> used)
        return -ERANGE;
    return 0;
}

static int apply_terms(const char *pmu, const char *terms, struct perf_event_attr *a,
                       uint64_t *period, int depth, char *err, size_t errlen);

static int apply_term(const char *pmu, const char *term, struct perf_event_attr *a,
                      uint64_t *period, int depth, char *err, size_t errlen)
{
    char name[64], fmt[256], rel[128], alias[512];
    const char *eq = strchr(term, '=');
    size_t nl = eq ? (size_t)(eq - term) : strlen(term);
    uint64_t v = 1;
    int ret;

    if (!nl || nl >= sizeof(name) || strchr(term, '/') || strstr(term, "..")) {
        snprintf(err, errlen, "invalid term '%s'", term);
        return -EINVAL;
    }
    memcpy(name, term, nl);
    name[nl] = '\0';
    if (eq && parse_u64(eq + 1, &v)) {
        snprintf(err, errlen, "term '%s': '%s' is not a number", name, eq + 1);
        return -EINVAL;
    }
    /* perf's built-in terms. */
    if (!strcmp(name, "config") || !strcmp(name, "config1") || !strcmp(name, "config2")) {
        *(name[6] == '1' ? &a->config1 : name[6] == '2' ? &a->config2 : &a->config) = v;
        return 0;
    }
    if (!strcmp(name, "period")) {
        *period = v;
        return 0;
    }
    snprintf(rel, sizeof(rel), "format/%s", name);
    if (read_line(pmu, rel, fmt, sizeof(fmt)) == 0) {
        ret = place_bits(fmt, v, a);
        if (ret == -ERANGE)
            snprintf(err, errlen, "term '%s': 0x%llx does not fit in %s", name,
                     (unsigned long long)v, fmt);
        else if (ret)
            snprintf(err, errlen, "%s/%s/%s: unreadable format '%s'", pmu_root, pmu, rel, fmt);
        return ret ? -EINVAL : 0;
    }
    /* A bare word may be one of the PMU's named events ("cpu/cycles/"). */
    snprintf(rel, sizeof(rel), "events/%s", name);
    if (!eq && depth == 0 && read_line(pmu, rel, alias, sizeof(alias)) == 0)
        return apply_terms(pmu, alias, a, period, depth + 1, err, errlen);
    snprintf(err, errlen, "PMU '%s' has no term or event '%s' (see %s/%s/format)", pmu, name,
             pmu_root, pmu);
    return -EINVAL;
}

static int apply_terms(const char *pmu, const char *terms, struct perf_event_attr *a,
                       uint64_t *period, int depth, char *err, size_t errlen)
{
    char term[256];
    for (const char *p = terms; *p;) {
        size_t l = strcspn(p, ",");
        int ret;
        if (l >= sizeof(term)) {
            snprintf(err, errlen, "term too long");
            return -EINVAL;
        }
        memcpy(term, p, l);
        term[l] = '\0';
        if (l && (ret = apply_term(pmu, term, a, period, depth, err, errlen)))
            return ret;
        p += l + (p[l] == ',');
    }
    return 0;
}

int event_parse_terms(const char *str, struct perf_event_attr *a, uint64_t *period, char *err,
                      size_t errlen)
{
    const char *s1 = strchr(str, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    char pmu[64], terms[512], type[32], pmus[256];
    uint64_t t;
    int ret;

    *period = 0;
    if (!s1 || !s2 || s1 == str || (size_t)(s1 - str) >= sizeof(pmu) ||
        (size_t)(s2 - s1 - 1) >= sizeof(terms)) {
        snprintf(err, errlen, "expected PMU/term=value,.../");
        return -EINVAL;
    }
    memcpy(pmu, str, (size_t)(s1 - str));
    pmu[s1 - str] = '\0';
    memcpy(terms, s1 + 1, (size_t)(s2 - s1 - 1));
    terms[s2 - s1 - 1] = '\0';
    if (strstr(pmu, "..")) {
        snprintf(err, errlen, "invalid PMU name");
        return -EINVAL;
    }
    if (read_line(pmu, "type", type, sizeof(type)) || parse_u64(type, &t) || t > UINT32_MAX) {
        list_pmus(pmus, sizeof(pmus));
        snprintf(err, errlen, "PMU '%s' is not in %s (PMUs here: %s)", pmu, pmu_root,
                 pmus[0] ? pmus : "none");
        return -ENOENT;
    }
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = (uint32_t)t;
    if ((ret = apply_terms(pmu, terms, a, period, 0, err, errlen)))
        return ret;
    /* Modifiers after the closing slash: u, k (perf's). */
    const char *m = s2 + 1;
    if (*m && strspn(m, "ukh") != strlen(m)) {
        snprintf(err, errlen, "unknown modifier '%s' (u, k)", m);
        return -EINVAL;
    }
    if (*m) {
        a->exclude_user = !strchr(m, 'u');
        a->exclude_kernel = !strchr(m, 'k');
    }
    return 0;
}
