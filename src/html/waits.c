/* SPDX-License-Identifier: MIT */
/* Off-CPU waits on the timeline: each wait's ns spread over the slices it covers, per thread
 * (html/timeline.h: html_timeline.off), written as varints in base64. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "html/b64.h"
#include "html/timeline.h"
#include "util/hashmap.h"

/* The start of slice s: slices split [t0, t0 + span + 1) equally (timeline.c's slice_of). */
static uint64_t slice_start(const struct html_timeline *tl, uint64_t s)
{
    return tl->t0 + (uint64_t)((unsigned __int128)(tl->span + 1) * s / HTML_TL_BUCKETS);
}

/* Thread th's row of slices in tl->off, made on its first wait (most threads of a
 * system-wide file never wait in it); NULL on -ENOMEM. */
static uint64_t *row_of(struct html_timeline *tl, uint32_t th)
{
    if (!tl->off_row[th]) {
        if (tl->off_rows == tl->off_cap) {
            size_t cap = tl->off_cap ? tl->off_cap * 2 : 16;
            uint64_t *o = realloc(tl->off, cap * HTML_TL_BUCKETS * sizeof(*o));
            if (!o)
                return NULL;
            tl->off = o;
            tl->off_cap = cap;
        }
        memset(tl->off + tl->off_rows * HTML_TL_BUCKETS, 0, HTML_TL_BUCKETS * sizeof(*tl->off));
        tl->off_row[th] = (uint32_t)++tl->off_rows;
    }
    return tl->off + (size_t)(tl->off_row[th] - 1) * HTML_TL_BUCKETS;
}

/* Adds the part of [a, b) inside the recording to thread th's slices; the rest is dropped.
 * 0 or -ENOMEM. */
static int spread(struct html_timeline *tl, uint32_t th, uint64_t a, uint64_t b)
{
    uint64_t lo = tl->t0, hi = tl->t0 + tl->span + 1;
    uint64_t ca = a < lo ? lo : a, cb = b > hi ? hi : b, *row;

    if (cb <= ca) {
        tl->off_dropped += b - a;
        return 0;
    }
    if (!(row = row_of(tl, th)))
        return -ENOMEM;
    tl->off_dropped += (ca - a) + (b - cb);
    uint64_t s = (uint64_t)((unsigned __int128)(ca - tl->t0) * HTML_TL_BUCKETS / (tl->span + 1));
    for (; s < HTML_TL_BUCKETS && ca < cb; s++) {
        uint64_t end = slice_start(tl, s + 1);
        uint64_t e = end < cb ? end : cb;
        if (e > ca)
            row[s] += e - ca;
        ca = e > ca ? e : ca;
    }
    return 0;
}

int html_timeline_waits(struct html_timeline *tl, const struct html_times *tm)
{
    struct hashmap by_tid;    /* tid -> thread index + 1 (the first with that tid) */
    int err = 0;

    if (!tm->nwaits || !tl->nthr)
        return 0;
    if (!(tl->off_row = calloc(tl->nthr, sizeof(*tl->off_row))))
        return -ENOMEM;
    hashmap_init(&by_tid);
    for (size_t i = tl->nthr; i-- > 0 && !err;)
        err = hashmap_put(&by_tid, tl->thr[i].tid, (void *)(uintptr_t)(i + 1));
    for (size_t i = 0; i < tm->nwaits && !err; i++) {
        uint32_t tid;
        uint64_t a, b;
        tm->wait_at(tm->wait_arg, i, &tid, &a, &b);
        uintptr_t k = (uintptr_t)hashmap_get(&by_tid, tid);
        if (b <= a)
            continue;
        if (k)
            err = spread(tl, (uint32_t)(k - 1), a, b);
        else
            tl->off_dropped += b - a;
    }
    hashmap_release(&by_tid);
    return err;
}

/* Each thread's slices with waits: the thread's step from the previous entry's, the slice (its
 * step when the thread is the same), the ns. */
void html_timeline_write_waits(struct obuf *ob, const struct html_timeline *tl)
{
    struct b64 b = { .ob = ob };
    size_t prev_thr = 0, prev_slice = 0;

    obuf_put(ob, ",\"off_dropped\":", 15);
    obuf_u64(ob, tl->off_dropped);
    obuf_put(ob, ",\"off\":\"", 8);
    for (size_t t = 0; t < tl->nthr; t++)
        for (size_t s = 0; tl->off_row[t] && s < HTML_TL_BUCKETS; s++) {
            uint64_t ns = tl->off[(size_t)(tl->off_row[t] - 1) * HTML_TL_BUCKETS + s];
            if (!ns)
                continue;
            b64_varint(&b, t - prev_thr);
            b64_varint(&b, t != prev_thr ? s : s - prev_slice);
            b64_varint(&b, ns);
            prev_thr = t;
            prev_slice = s;
        }
    b64_flush(&b);
    obuf_char(ob, '"');
}
