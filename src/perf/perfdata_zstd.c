/* SPDX-License-Identifier: MIT */
/* PERF_RECORD_COMPRESSED ('perf record -z'): each record's body continues one zstd stream (perf
 * flushes, it does not end frames), and what it decompresses to is the record stream, whose
 * last record may continue in the next COMPRESSED record. So one decoder lives for the whole
 * walk, and the bytes of a record cut at the end are kept for the next call. */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "perf/perfdata_internal.h"

#define MAX_OUT (256u << 20)    /* what one COMPRESSED record may expand to (perf: an mmap) */

struct perfdata_zstd {
    ZSTD_DStream *ds;
    uint8_t *buf;               /* kept bytes of a cut record, then this call's output */
    size_t len, cap;
    size_t keep;                /* bytes at the end of buf the walker did not consume */
};

void perfdata_zstd_free(struct perfdata_zstd *z)
{
    if (!z)
        return;
    ZSTD_freeDStream(z->ds);
    free(z->buf);
    free(z);
}

static int grow(struct perfdata_zstd *z, size_t need)
{
    size_t cap = z->cap ? z->cap : 1u << 16;
    uint8_t *b;

    while (cap < need)
        cap *= 2;
    if (cap == z->cap)
        return 0;
    if (!(b = realloc(z->buf, cap)))
        return -ENOMEM;
    z->buf = b;
    z->cap = cap;
    return 0;
}

int perfdata_zstd_decompress(struct perfdata *pd, const struct perf_event_header *h,
                             const uint8_t **out, size_t *len, char *why, size_t whylen)
{
    struct perfdata_zstd *z = pd->zstd;
    ZSTD_inBuffer in = { (const uint8_t *)h + sizeof(*h), h->size - sizeof(*h), 0 };

    if (!z) {
        if (!(z = pd->zstd = calloc(1, sizeof(*z))) || !(z->ds = ZSTD_createDStream()))
            return -ENOMEM;
        ZSTD_initDStream(z->ds);
    }
    /* The cut record's bytes move to the front; new output follows them. */
    if (z->keep)
        memmove(z->buf, z->buf + z->len - z->keep, z->keep);
    z->len = z->keep;
    z->keep = 0;
    while (in.pos < in.size) {
        ZSTD_outBuffer o;
        size_t r;

        if (z->len == z->cap || z->cap - z->len < 4096) {
            if (z->cap >= MAX_OUT) {
                snprintf(why, whylen, "expands to more than %u MiB", MAX_OUT >> 20);
                goto bad;
            }
            if (grow(z, z->cap + 1))
                return -ENOMEM;
        }
        o = (ZSTD_outBuffer){ z->buf, z->cap, z->len };
        r = ZSTD_decompressStream(z->ds, &o, &in);
        z->len = o.pos;
        if (ZSTD_isError(r)) {
            snprintf(why, whylen, "zstd: %s", ZSTD_getErrorName(r));
            goto bad;
        }
    }
    *out = z->buf;
    *len = z->len;
    return 0;

bad:
    /* The stream is lost from here: start afresh at the next record. */
    ZSTD_initDStream(z->ds);
    z->len = z->keep = 0;
    return -EINVAL;
}

void perfdata_zstd_keep(struct perfdata *pd, size_t n)
{
    if (pd->zstd)
        pd->zstd->keep = n;
}

size_t perfdata_zstd_kept(const struct perfdata *pd)
{
    return pd->zstd ? pd->zstd->keep : 0;
}
