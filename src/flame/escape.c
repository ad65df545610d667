/* SPDX-License-Identifier: MIT */
#include <string.h>
#include "flame/escape.h"

size_t utf8_seq_len(const unsigned char *s)
{
    size_t n;
    unsigned cp;

    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0)
        n = 2, cp = s[0] & 0x1f;
    else if ((s[0] & 0xf0) == 0xe0)
        n = 3, cp = s[0] & 0x0f;
    else if ((s[0] & 0xf8) == 0xf0)
        n = 4, cp = s[0] & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* Overlong forms, surrogates and code points past Unicode are not valid. */
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void xml_put(FILE *f, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t done = 0;

    while (*p) {
        size_t n = utf8_seq_len(p);
        if (done + (n ? n : 1) > max)
            break;
        if (!n || *p < 0x20 || *p == 0x7f) {
            fputc('?', f);
            n = n ? n : 1;
        } else if (*p == '&') {
            fputs("&amp;", f);
        } else if (*p == '<') {
            fputs("&lt;", f);
        } else if (*p == '>') {
            fputs("&gt;", f);
        } else if (*p == '"') {
            fputs("&quot;", f);
        } else {
            fwrite(p, 1, n, f);
        }
        p += n;
        done += n;
    }
}

void json_put(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    fputc('"', f);
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (!n) {
            fputs("\\ufffd", f);
            n = 1;
        } else if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p, f);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\u%04x", *p);
        } else {
            fwrite(p, 1, n, f);
        }
        p += n;
    }
    fputc('"', f);
}
