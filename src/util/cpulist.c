/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/cpulist.h"

static int parse_cpu(const char **p, long *out)
{
    char *end;
    if (!isdigit((unsigned char)**p))
        return -EINVAL;
    errno = 0;
    *out = strtol(*p, &end, 10);
    if (errno || *out >= CPU_SETSIZE)
        return -ERANGE;
    *p = end;
    return 0;
}

int cpulist_parse(const char *s, cpu_set_t *set)
{
    const char *p = s;
    int err;

    CPU_ZERO(set);
    while (isspace((unsigned char)*p))
        p++;
    while (*p && !isspace((unsigned char)*p)) {
        long lo, hi;
        if ((err = parse_cpu(&p, &lo)))
            return err;
        hi = lo;
        if (*p == '-') {
            p++;
            if ((err = parse_cpu(&p, &hi)))
                return err;
            if (hi < lo)
                return -EINVAL;
        }
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
        else if (*p && !isspace((unsigned char)*p))
            return -EINVAL;
    }
    while (isspace((unsigned char)*p))
        p++;
    return *p ? -EINVAL : 0;
}

int cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
    size_t n = 0;

    if (!len)
        return -ENOSPC;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        int e = c, w;
        if (!CPU_ISSET(c, set))
            continue;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        w = e > c ? snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", c, e)
                  : snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
        if (w < 0 || (size_t)w >= len - n)
            return -ENOSPC;
        n += (size_t)w;
        c = e;
    }
    return (int)n;
}

int cpulist_first(const cpu_set_t *set)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set))
            return c;
    return -1;
}

int cpulist_last(const cpu_set_t *set)
{
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, set))
            return c;
    return -1;
}
