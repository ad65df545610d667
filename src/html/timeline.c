/* SPDX-License-Identifier: MIT */
/* Samples -> (slice, thread, node) keys, sorted and counted; written as varints in base64. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "html/b64.h"
#include "html/timeline.h"
#include "util/hashmap.h"

#define THREAD_BITS 22
#define SLICE_SHIFT 54

/* The slice of time t: equal slices of [t0, t0 + span], so the first half of the recording
 * is the first half of the slices (as --time 0%-50% cuts it). */
static uint64_t slice_of(const struct html_timeline *tl, uint64_t t)
{
    if (t <= tl->t0)
        return 0;
    return (uint64_t)((unsigned __int128)(t - tl->t0) * HTML_TL_BUCKETS / (tl->span + 1));
}

/* The index of (process, tid) in tl->thr, added when new. */
static int thread_index(struct html_timeline *tl, struct hashmap *idx, struct html_paths *p,
                        const struct html_times *tm, uint32_t proc, uint32_t tid, uint32_t *out)
{
    uint64_t key = (uint64_t)proc << 32 | tid;
    uintptr_t k = (uintptr_t)hashmap_get(idx, key);
    int err;

    if (!k) {
        struct html_thread *t = realloc(tl->thr, (tl->nthr + 1) * sizeof(*t));
        if (!t)
            return -ENOMEM;
        tl->thr = t;
        if (tl->nthr >= (1u << THREAD_BITS) - 1)
            return -ERANGE;
        t = &tl->thr[tl->nthr];
        t->tid = tid;
        t->proc = proc;
        t->samples = 0;
        if ((err = strtab_intern(&p->strs, tm->thread_name(tm->arg, tid, p->procs[proc]),
                                 &t->name)))
            return err;
        k = ++tl->nthr;
        if ((err = hashmap_put(idx, key, (void *)k)))
            return err;
    }
    *out = (uint32_t)(k - 1);
    return 0;
}

/* LSD radix sort on 16-bit digits: 2.5M keys in a few passes, where qsort's calls cost. */
static int sort_keys(uint64_t *k, size_t n)
{
    uint64_t *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *a = k, *b = tmp;
    size_t *cnt = malloc(65536 * sizeof(*cnt));

    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return -ENOMEM;
    }
    for (unsigned shift = 0; shift < 64; shift += 16) {
        size_t sum = 0;
        memset(cnt, 0, 65536 * sizeof(*cnt));
        for (size_t i = 0; i < n; i++)
            cnt[a[i] >> shift & 0xffff]++;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            b[cnt[a[i] >> shift & 0xffff]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    free(tmp);                /* four passes: the result is back in k */
    free(cnt);
    return 0;
}

static void time_span(struct html_timeline *tl, const struct html_times *tm)
{
    uint64_t lo = UINT64_MAX, hi = 0;

    for (size_t i = 0; i < tm->n; i++) {
        uint32_t st, tid;
        uint64_t t;
        tm->at(tm->arg, i, &st, &tid, &t);
        if (t && t < lo)
            lo = t;
        if (t > hi)
            hi = t;
    }
    tl->t0 = lo == UINT64_MAX ? 0 : lo;
    tl->span = hi > tl->t0 ? hi - tl->t0 : 0;
}

int html_timeline_build(struct html_timeline *tl, struct html_paths *p, const struct cg_store *cs,
                        const struct html_times *tm)
{
    struct hashmap idx;
    int err = 0;

    memset(tl, 0, sizeof(*tl));
    if (!(tl->keys = malloc((tm->n ? tm->n : 1) * sizeof(*tl->keys))))
        return -ENOMEM;
    time_span(tl, tm);
    hashmap_init(&idx);
    for (size_t i = 0; i < tm->n && !err; i++) {
        uint32_t st, tid, th;
        uint64_t t;
        tm->at(tm->arg, i, &st, &tid, &t);
        if (st >= cs->nstacks || p->cs_node[st] == HTML_NO_NODE)
            continue;         /* a stack without frames: not on the page */
        if ((err = thread_index(tl, &idx, p, tm, p->cs_proc[st], tid, &th)))
            break;
        tl->thr[th].samples++;
        tl->keys[tl->nkeys++] = slice_of(tl, t) << SLICE_SHIFT | (uint64_t)th << 32 |
                                p->cs_node[st];
    }
    hashmap_release(&idx);
    if (!err)
        err = sort_keys(tl->keys, tl->nkeys);
    if (!err)
        err = html_timeline_waits(tl, tm);
    if (err)
        html_timeline_release(tl);
    return err;
}

void html_timeline_release(struct html_timeline *tl)
{
    free(tl->thr);
    free(tl->keys);
    free(tl->off);
    free(tl->off_row);
    memset(tl, 0, sizeof(*tl));
}

/* Each run: a new (slice, thread) group as varint(node << 1 | 1), the slice's step from the
 * previous group's and the thread; within a group varint(node step << 1). Then the count. */
static void write_runs(struct obuf *ob, const struct html_timeline *tl)
{
    struct b64 b = { .ob = ob };
    uint64_t prev_slice = 0, prev_thr = UINT64_MAX, prev_node = 0;

    for (size_t i = 0, j; i < tl->nkeys; i = j) {
        uint64_t k = tl->keys[i], slice = k >> SLICE_SHIFT;
        uint64_t thr = k >> 32 & ((1u << THREAD_BITS) - 1), node = (uint32_t)k;
        for (j = i + 1; j < tl->nkeys && tl->keys[j] == k; j++)
            ;
        if (slice != prev_slice || thr != prev_thr) {
            b64_varint(&b, node << 1 | 1);
            b64_varint(&b, slice - prev_slice);
            b64_varint(&b, thr);
        } else {
            b64_varint(&b, (node - prev_node) << 1);
        }
        b64_varint(&b, j - i);
        prev_slice = slice;
        prev_thr = thr;
        prev_node = node;
    }
    b64_flush(&b);
}

void html_timeline_write(struct obuf *ob, const struct html_timeline *tl)
{
    obuf_put(ob, "\"tl\":{\"t0\":", 11);
    obuf_u64(ob, tl->t0);
    obuf_put(ob, ",\"span\":", 8);
    obuf_u64(ob, tl->span);
    obuf_put(ob, ",\"slices\":", 10);
    obuf_u64(ob, HTML_TL_BUCKETS);
    obuf_put(ob, ",\"thr\":[", 8);          /* tid, process index, name, samples */
    for (size_t i = 0; i < tl->nthr; i++) {
        if (i)
            obuf_char(ob, ',');
        obuf_u64(ob, tl->thr[i].tid);
        obuf_char(ob, ',');
        obuf_u64(ob, tl->thr[i].proc);
        obuf_char(ob, ',');
        obuf_u64(ob, tl->thr[i].name);
        obuf_char(ob, ',');
        obuf_u64(ob, tl->thr[i].samples);
    }
    obuf_put(ob, "],\"runs\":\"", 10);
    write_runs(ob, tl);
    obuf_char(ob, '"');
    if (tl->off_row)
        html_timeline_write_waits(ob, tl);
    obuf_char(ob, '}');
}
