/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/timerange.h"

bool time_ranges_relative(const char *s)
{
    return strchr(s, '%') != NULL;
}

/* "SEC[.FRAC]" (FRAC up to 9 digits) to ns; "" is 0 (open). 0 or -EINVAL. */
static int parse_seconds(const char *s, size_t len, uint64_t *ns)
{
    uint64_t sec = 0, frac = 0;
    size_t i = 0, digits = 0;

    *ns = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (sec > (UINT64_MAX / 1000000000 - 9) / 10)
            return -EINVAL;
        sec = sec * 10 + (uint64_t)(s[i] - '0');
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
            if (digits == 9)
                return -EINVAL;
            frac = frac * 10 + (uint64_t)(s[i] - '0');
        }
    }
    if (i != len || (len == 1 && s[0] == '.'))
        return -EINVAL;
    while (digits++ < 9)
        frac *= 10;
    *ns = sec * 1000000000 + frac;
    return 0;
}

/* One "START,STOP" range. */
static int parse_absolute(const char *s, size_t len, struct time_range *r)
{
    const char *comma = memchr(s, ',', len);

    if (!comma || memchr(comma + 1, ',', len - (size_t)(comma + 1 - s)))
        return -EINVAL;
    if (parse_seconds(s, (size_t)(comma - s), &r->start) ||
        parse_seconds(comma + 1, len - (size_t)(comma + 1 - s), &r->end))
        return -EINVAL;
    return r->end && r->start > r->end ? -EINVAL : 0;
}

/* "P%" as a fraction in [0, 1]: 0 or -EINVAL. */
static int parse_percent(const char *s, size_t len, double *f)
{
    char buf[32], *end;

    if (!len || len >= sizeof(buf) || s[len - 1] != '%')
        return -EINVAL;
    memcpy(buf, s, len - 1);
    buf[len - 1] = '\0';
    *f = strtod(buf, &end) / 100.0;
    return *end || end == buf || *f < 0 || *f > 1 ? -EINVAL : 0;
}

/* perf's rounding: the slice's last ns belongs to the next slice, but for the last one. */
static void set_fraction(struct time_range *r, double a, double b, uint64_t first, uint64_t last)
{
    double total = (double)(last - first);

    r->start = first + (uint64_t)llround(a * total);
    r->end = first + (uint64_t)llround(b * total);
    if (r->end > r->start && b != 1.0)
        r->end--;
}

/* One "P%/N" or "A%-B%" range. */
static int parse_relative(const char *s, size_t len, uint64_t first, uint64_t last,
                          struct time_range *r)
{
    const char *slash = memchr(s, '/', len), *dash = memchr(s, '-', len);
    double a, b;

    if (slash) {
        char nbuf[16], *end;
        size_t nlen = len - (size_t)(slash + 1 - s);
        long n;
        if (parse_percent(s, (size_t)(slash - s), &a) || a <= 0 || !nlen || nlen >= sizeof(nbuf))
            return -EINVAL;
        memcpy(nbuf, slash + 1, nlen);
        nbuf[nlen] = '\0';
        n = strtol(nbuf, &end, 10);
        if (*end || n < 1 || a * (double)n > 1.0 + 1e-9)
            return -EINVAL;
        set_fraction(r, a * (double)(n - 1), a * (double)n > 1.0 ? 1.0 : a * (double)n, first,
                     last);
        return 0;
    }
    if (!dash || parse_percent(s, (size_t)(dash - s), &a) ||
        parse_percent(dash + 1, len - (size_t)(dash + 1 - s), &b) || a > b)
        return -EINVAL;
    set_fraction(r, a, b, first, last);
    return 0;
}

int time_ranges_parse(const char *s, uint64_t first, uint64_t last, struct time_ranges *r,
                      char *why, size_t len)
{
    bool rel = time_ranges_relative(s);
    const char *sep = rel ? "," : " ";

    memset(r, 0, sizeof(*r));
    if (rel && !first && !last) {
        snprintf(why, len, "--time %s: percentages need the recording's first and last sample "
                 "times, which the file's header does not have", s);
        return -ENODATA;
    }
    for (const char *at = s; *at; ) {
        size_t n = strcspn(at, sep);
        if (n && r->n == TIME_RANGES_MAX) {
            snprintf(why, len, "--time: more than %d ranges", TIME_RANGES_MAX);
            return -EINVAL;
        }
        if (n && (rel ? parse_relative(at, n, first, last, &r->v[r->n])
                      : parse_absolute(at, n, &r->v[r->n]))) {
            snprintf(why, len, "invalid --time range '%.*s' (START,STOP in seconds, either "
                     "may be empty; P%%/N; A%%-B%%)", (int)(n > 60 ? 60 : n), at);
            return -EINVAL;
        }
        r->n += n != 0;
        at += n + (at[n] != '\0');
    }
    if (!r->n) {
        snprintf(why, len, "empty --time");
        return -EINVAL;
    }
    return 0;
}

bool time_ranges_skip(const struct time_ranges *r, uint64_t t)
{
    if (!r || !r->n || !t)
        return false;
    if (r->n == 1)
        return (r->v[0].start && t < r->v[0].start) || (r->v[0].end && t > r->v[0].end);
    for (size_t i = 0; i < r->n; i++)
        if (t >= r->v[i].start && (t <= r->v[i].end || !r->v[i].end))
            return false;
    return true;
}
