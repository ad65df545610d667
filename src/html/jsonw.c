/* SPDX-License-Identifier: MIT */
/* Script-safe JSON strings (html/jsonw.h). */
#include "flame/escape.h"
#include "html/jsonw.h"

static void put_u(struct obuf *o, unsigned c)
{
    static const char hex[] = "0123456789abcdef";
    char b[6] = { '\\', 'u', '0', '0', hex[c >> 4 & 15], hex[c & 15] };
    obuf_put(o, b, sizeof(b));
}

void jsonw_str(struct obuf *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    obuf_char(o, '"');
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (!n) {
            obuf_put(o, "\\ufffd", 6);
            n = 1;
        } else if (*p == '"' || *p == '\\') {
            obuf_char(o, '\\');
            obuf_char(o, (char)*p);
        } else if (*p < 0x20 || *p == 0x7f || *p == '<' || *p == '>' || *p == '&') {
            put_u(o, *p);
        } else {
            obuf_put(o, (const char *)p, n);
        }
        p += n;
    }
    obuf_char(o, '"');
}
