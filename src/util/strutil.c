/* SPDX-License-Identifier: MIT */
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

size_t str_char_escape(const char *s, char esc[5])
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

    if (*p < 0x20 || *p == 0x7f || !n) {
        snprintf(esc, 5, "\\x%02x", *p);
        return 1;
    }
    esc[0] = '\0';
    return n;
}

const char *str_printable(const char *s, char *buf, size_t len)
{
    const char *p = s;
    size_t o = 0;
    bool clean = true;
    char esc[5];

    if (len < 8)
        return "?";
    for (size_t i = 0; s[i]; ) {
        size_t n = str_char_escape(s + i, esc);
        if (esc[0] || i + n >= len) {
            clean = false;
            break;
        }
        i += n;
    }
    if (clean)
        return s;
    while (*p) {
        size_t n = str_char_escape(p, esc), need = esc[0] ? 4 : n;
        if (o + need > len - 4) {       /* room for "..." and the NUL */
            memcpy(buf + o, "...", 4);
            return buf;
        }
        memcpy(buf + o, esc[0] ? esc : p, need);
        p += n;
        o += need;
    }
    buf[o] = '\0';
    return buf;
}

/* Display columns of printable UTF-8 text: one per character (no wide-character tables). */
static size_t columns(const char *s, size_t bytes)
{
    size_t c = 0;
    for (size_t i = 0; i < bytes; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* Byte offset of the character that starts column col. */
static size_t column_offset(const char *s, size_t col)
{
    size_t i = 0;
    for (size_t c = 0; s[i]; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == col)
            return i;
    return i;
}

size_t str_width(const char *s)
{
    return columns(s, strlen(s));
}

const char *str_elide(const char *s, size_t width, char *buf, size_t len)
{
    size_t total = str_width(s), head, tail, hb, tb, n = strlen(s);

    if (total <= width || width < 5 || len < 8)
        return s;
    if (width > len / 4)
        width = len / 4;            /* 4 bytes per character at most */
    head = (width - 3 + 1) / 2;
    tail = width - 3 - head;
    hb = column_offset(s, head);
    tb = n - column_offset(s, total - tail);
    memcpy(buf, s, hb);
    memcpy(buf + hb, "...", 3);
    memcpy(buf + hb + 3, s + n - tb, tb);
    buf[hb + 3 + tb] = '\0';
    return buf;
}
