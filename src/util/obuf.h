/* SPDX-License-Identifier: MIT */
/* Buffered writing of many small pieces (a number, a name) to a stdio stream: appended with
 * memcpy and written in 64 KiB chunks, where fprintf per piece parses its format and takes
 * the stream's lock every time (folded stacks, speedscope's sample lists). */
#ifndef PROSPECT_UTIL_OBUF_H
#define PROSPECT_UTIL_OBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct obuf {
    FILE *f;
    size_t n;
    bool failed;              /* a write to f failed: the caller reports -EIO */
    char b[65536];
};

/* Heap-allocated (the buffer is large); NULL when out of memory. */
struct obuf *obuf_new(FILE *f);
/* Writes what is buffered and frees o; false when any write failed. NULL is fine (true). */
bool obuf_close(struct obuf *o);
void obuf_flush(struct obuf *o);
void obuf_put(struct obuf *o, const char *s, size_t len);
void obuf_u64(struct obuf *o, uint64_t v);

static inline void obuf_char(struct obuf *o, char c)
{
    if (o->n == sizeof(o->b))
        obuf_flush(o);
    o->b[o->n++] = c;
}
#endif
