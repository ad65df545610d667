/* SPDX-License-Identifier: MIT */
/* Base64 of varints (html/b64.h). */
#include <string.h>
#include "html/b64.h"

static const char b64_digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void b64_flush(struct b64 *b)
{
    uint32_t v = (uint32_t)b->in[0] << 16 | (uint32_t)b->in[1] << 8 | b->in[2];
    char out[4] = { b64_digits[v >> 18], b64_digits[v >> 12 & 63],
                    b->n > 1 ? b64_digits[v >> 6 & 63] : '=', b->n > 2 ? b64_digits[v & 63] : '=' };

    if (b->n)
        obuf_put(b->ob, out, 4);
    memset(b->in, 0, sizeof(b->in));
    b->n = 0;
}

void b64_varint(struct b64 *b, uint64_t v)
{
    do {
        b->in[b->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (b->n == 3)
            b64_flush(b);
        v >>= 7;
    } while (v);
}
