/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include "util/obuf.h"

struct obuf *obuf_new(FILE *f)
{
    struct obuf *o = malloc(sizeof(*o));

    if (o) {
        o->f = f;
        o->n = 0;
        o->failed = false;
    }
    return o;
}

void obuf_flush(struct obuf *o)
{
    if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
        o->failed = true;
    o->n = 0;
}

bool obuf_close(struct obuf *o)
{
    bool ok;

    if (!o)
        return true;
    obuf_flush(o);
    ok = !o->failed;
    free(o);
    return ok;
}

void obuf_put(struct obuf *o, const char *s, size_t len)
{
    if (o->n + len > sizeof(o->b)) {
        obuf_flush(o);
        if (len > sizeof(o->b)) {           /* larger than the buffer: straight through */
            if (fwrite(s, 1, len, o->f) != len)
                o->failed = true;
            return;
        }
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
}

void obuf_u64(struct obuf *o, uint64_t v)
{
    char num[20];
    size_t k = sizeof(num);

    do
        num[--k] = (char)('0' + v % 10);
    while (v /= 10);
    obuf_put(o, num + k, sizeof(num) - k);
}
