/* SPDX-License-Identifier: MIT */
#include "util/timerange.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "SEC[.FRACTION]" to ns, exactly (no double rounding); more than 9 fraction digits are
 * refused, as perf refuses them. */
static int parse_seconds(const char *s, size_t len, uint64_t *ns)
{
    uint64_t sec = 0, frac = 0;
    size_t i = 0, digits = 0;

    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
            return -EINVAL;
        sec = sec * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0 && (len == 0 || s[0] != '.'))
        return -EINVAL;
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
            if (digits == 9)
                return -EINVAL;
            frac = frac * 10 + (uint64_t)(s[i] - '0');
        }
        for (; digits < 9; digits++)
            frac *= 10;
    }
    if (i != len)
        return -EINVAL;
    *ns = sec * 1000000000ull + frac;
    return 0;
}

/* One absolute range "START,STOP" of len bytes. */
static int parse_abs(const char *s, size_t len, struct timerange *tr)
{
    const char *comma = memchr(s, ',', len);
    size_t n = tr->n;

    if (!comma || n == TIMERANGE_MAX)
        return -EINVAL;
    tr->start[n] = tr->end[n] = 0;
    if (comma > s && parse_seconds(s, (size_t)(comma - s), &tr->start[n]))
        return -EINVAL;
    size_t rest = len - (size_t)(comma - s) - 1;
    if (rest && parse_seconds(comma + 1, rest, &tr->end[n]))
        return -EINVAL;
    if (tr->end[n] && tr->end[n] < tr->start[n])
        return -EINVAL;
    tr->n++;
    return 0;
}

/* "P%" as a fraction in [0, 1]. */
static int parse_pct(const char *s, const char *end, double *out)
{
    char buf[64], *e;
    size_t len = (size_t)(end - s);

    if (len < 2 || len >= sizeof(buf) || end[-1] != '%')
        return -EINVAL;
    memcpy(buf, s, len - 1);
    buf[len - 1] = '\0';
    *out = strtod(buf, &e) / 100.0;
    return *e || e == buf || *out < 0 || *out > 1 ? -EINVAL : 0;
}

/* One percent range: "P%/N" (the N-th slice of P%) or "A%-B%". */
static int parse_pct_range(const char *s, size_t len, struct timerange *tr)
{
    const char *end = s + len, *slash = memchr(s, '/', len), *dash = memchr(s, '-', len);
    size_t n = tr->n;
    double a, b;

    if (n == TIMERANGE_MAX)
        return -EINVAL;
    if (slash) {
        char *e;
        long i = strtol(slash + 1, &e, 10);
        if (e != end || i < 1 || parse_pct(s, slash, &a) || a <= 0)
            return -EINVAL;
        b = a * (double)i;
        a = a * (double)(i - 1);
    } else if (!dash || parse_pct(s, dash, &a) || parse_pct(dash + 1, end, &b) || b < a) {
        return -EINVAL;
    }
    if (a > 1 || b > 1)
        return -EINVAL;
    tr->start_pct[n] = a;
    tr->end_pct[n] = b;
    tr->n++;
    return 0;
}

int timerange_parse(const char *text, struct timerange *tr, char *why, size_t len)
{
    bool pct = strchr(text, '%') != NULL;
    const char *sep = pct ? "," : " ";
    const char *p = text;

    memset(tr, 0, sizeof(*tr));
    tr->percent = pct;
    while (*p) {
        size_t n = strcspn(p, sep);
        if (n && (pct ? parse_pct_range(p, n, tr) : parse_abs(p, n, tr))) {
            snprintf(why, len, "invalid time range '%.*s' in '%s' (perf's forms: START,STOP "
                     "in seconds, ranges separated by spaces; P%%/N; A%%-B%%,C%%-D%%)",
                     (int)n, p, text);
            return -EINVAL;
        }
        p += n;
        p += *p != '\0';
    }
    if (!tr->n) {
        snprintf(why, len, "empty time range '%s'", text);
        return -EINVAL;
    }
    return 0;
}

int timerange_place(struct timerange *tr, uint64_t first, uint64_t last)
{
    uint64_t total = last > first ? last - first : 0;

    if (tr->percent && !first && !last)
        return -ENODATA;
    for (size_t i = 0; tr->percent && i < tr->n; i++) {
        tr->start[i] = first + (uint64_t)round(tr->start_pct[i] * (double)total);
        tr->end[i] = first + (uint64_t)round(tr->end_pct[i] * (double)total);
        if (tr->end[i] > tr->start[i] && tr->end_pct[i] != 1.0)
            tr->end[i]--;
    }
    return 0;
}

bool timerange_has(const struct timerange *tr, uint64_t t)
{
    if (!tr || !tr->n || !t)
        return true;
    for (size_t i = 0; i < tr->n; i++)
        if ((!tr->start[i] || t >= tr->start[i]) && (!tr->end[i] || t <= tr->end[i]))
            return true;
    return false;
}
