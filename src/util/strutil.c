#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "util/strutil.h"

int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -EINVAL;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno == ERANGE)
        return -ERANGE;
    if (errno || *end)
        return -EINVAL;
    *out = v;
    return 0;
}

int parse_double(const char *s, double *out)
{
    char *end;
    double v;

    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -EINVAL;
    *out = v;
    return 0;
}

size_t str_copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size) {
        size_t c = n < size - 1 ? n : size - 1;
        memcpy(dst, src, c);
        dst[c] = '\0';
    }
    return n;
}

int str_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

const char *path_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Length of a well-formed UTF-8 sequence at s (2-4 bytes), or 0. */
static size_t utf8_seq(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf8)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

const char *str_printable(const char *s, char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    bool clean = true;

    if (len < 8)
        return "?";
    for (size_t i = 0; p[i]; i++) {
        if (p[i] < 0x20 || p[i] == 0x7f || (p[i] >= 0x80 && !utf8_seq(p + i)) || i >= len - 1) {
            clean = false;
            break;
        }
        if (p[i] >= 0x80)
            i += utf8_seq(p + i) - 1;
    }
    if (clean)
        return s;
    while (*p) {
        size_t n = *p >= 0x80 ? utf8_seq(p) : 0, need;
        bool esc = *p < 0x20 || *p == 0x7f || (*p >= 0x80 && !n);
        need = esc ? 4 : n ? n : 1;
        if (o + need > len - 4) {       /* room for "..." and the NUL */
            memcpy(buf + o, "...", 4);
            return buf;
        }
        if (esc) {
            snprintf(buf + o, 5, "\\x%02x", *p);
            p++;
        } else {
            memcpy(buf + o, p, need);
            p += need;
        }
        o += need;
    }
    buf[o] = '\0';
    return buf;
}
