/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/pbwire.h"

static int reserve(struct pbuf *b, size_t extra)
{
    size_t cap = b->cap ? b->cap : 256;
    uint8_t *p;

    if (b->err)
        return b->err;
    if (b->n + extra <= b->cap)
        return 0;
    while (cap < b->n + extra)
        cap *= 2;
    if (!(p = realloc(b->p, cap)))
        return b->err = -ENOMEM;
    b->p = p;
    b->cap = cap;
    return 0;
}

void pb_reset(struct pbuf *b)
{
    b->n = 0;
}

void pb_release(struct pbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

void pb_varint(struct pbuf *b, uint64_t v)
{
    if (reserve(b, 10))
        return;
    while (v >= 0x80) {
        b->p[b->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->n++] = (uint8_t)v;
}

void pb_uint(struct pbuf *b, uint32_t field, uint64_t v)
{
    if (!v)
        return;
    pb_varint(b, (uint64_t)field << 3 | 0);
    pb_varint(b, v);
}

void pb_bytes(struct pbuf *b, uint32_t field, const void *p, size_t n)
{
    pb_varint(b, (uint64_t)field << 3 | 2);
    pb_varint(b, n);
    if (n && !reserve(b, n)) {
        memcpy(b->p + b->n, p, n);
        b->n += n;
    }
}

void pb_string(struct pbuf *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pbuf *b, uint32_t field, const struct pbuf *m)
{
    if (m->err && !b->err)
        b->err = m->err;
    pb_bytes(b, field, m->p, m->n);
}
