/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/stacks.h"
#include "model/process.h"
#include "util/hash.h"

void cg_store_init(struct cg_store *cs)
{
    memset(cs, 0, sizeof(*cs));
}

void cg_store_release(struct cg_store *cs)
{
    free(cs->ids);
    free(cs->uniq);
    free(cs->uniq_table);
    free(cs->stacks);
    free(cs->table);
    free(cs->scratch);
    memset(cs, 0, sizeof(*cs));
}

/* Shrinks *v to n elems (never fails: a failed shrink keeps the larger block). */
static void fit(void **v, size_t *cap, size_t n, size_t elem)
{
    void *nv;

    if (n && n < *cap && (nv = realloc(*v, n * elem))) {
        *v = nv;
        *cap = n;
    }
}

void cg_store_seal(struct cg_store *cs)
{
    fit((void **)&cs->ids, &cs->cap_frames, cs->nframes, sizeof(*cs->ids));
    fit((void **)&cs->stacks, &cs->cap_stacks, cs->nstacks, sizeof(*cs->stacks));
    fit((void **)&cs->uniq, &cs->cap_uniq, cs->nuniq, sizeof(*cs->uniq));
    free(cs->table);
    free(cs->uniq_table);
    cs->table = NULL;
    cs->uniq_table = NULL;
    cs->table_cap = cs->uniq_table_cap = 0;
}

void cg_store_drop_frames(struct cg_store *cs)
{
    cg_store_seal(cs);
    free(cs->ids);
    free(cs->uniq);
    cs->ids = NULL;
    cs->uniq = NULL;
    cs->cap_frames = cs->nuniq = cs->cap_uniq = 0;
    memset(cs->recent, 0, sizeof(cs->recent));
    cs->frames_dropped = true;
}

/* One multiply per frame (the per-sample cost of deep stacks), mixed fully at the end. */
#define MIX 0x9e3779b97f4a7c15ULL
static inline uint64_t frame_mix(uint64_t h, const struct frame *f)
{
    return (h ^ f->addr ^ ((uint64_t)(uintptr_t)f->map << 17)) * MIX;
}

static inline uint64_t stack_hash_end(uint64_t h, uint32_t n, const struct process *p,
                                      int32_t tid)
{
    return hash_u64(h ^ n ^ (uint64_t)(uintptr_t)p ^ (uint64_t)(uint32_t)tid << 40);
}

static uint64_t stack_hash(const struct process *p, int32_t tid, const struct frame *f,
                           uint32_t n)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < n; i++)
        h = frame_mix(h, &f[i]);
    return stack_hash_end(h, n, p, tid);
}

/* The hash of a stored stack, as stack_hash gave it for its frames: to make the table again
 * after cg_store_seal. */
static uint64_t stored_hash(const struct cg_store *cs, const struct cg_stack *st)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < st->n; i++)
        h = frame_mix(h, cg_frame_at(cs, st->off + i));
    return stack_hash_end(h, st->n, st->proc, st->tid);
}

/* A table entry's upper half: the hash's lower half, whose low bits are also the entry's home
 * slot, so that growing the table moves entries without hashing their stacks again. */
static inline uint64_t tag_of(uint64_t h)
{
    return h << 32;
}

static inline bool same_frame(const struct frame *a, const struct frame *b)
{
    return a->addr == b->addr && a->map == b->map;
}

static inline bool same_stack(const struct cg_store *cs, const struct cg_stack *st,
                              const struct process *p, const struct frame *f, uint32_t n)
{
    const uint32_t *id;

    if (st->proc != p || st->n != n || st->tid != cs->tid)
        return false;
    if (!n)                   /* ids may still be NULL: no offset into it */
        return true;
    id = cs->ids + st->off;
    for (uint32_t k = 0; k < n; k++)
        if (!same_frame(&cs->uniq[id[k]], &f[k]))
            return false;
    return true;
}

static int grow_table(struct cg_store *cs)
{
    size_t cap = cs->table_cap ? cs->table_cap * 2 : 1024;
    uint64_t *t;

    while (cap < (cs->nstacks + 1) * 2)      /* after cg_store_seal: made again whole */
        cap *= 2;
    if (cap > (1ULL << 32) || !(t = calloc(cap, sizeof(*t))))
        return -ENOMEM;
    for (size_t i = 0; i < cs->table_cap; i++) {
        size_t j = (cs->table[i] >> 32) & (cap - 1);
        if (!cs->table[i])
            continue;
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = cs->table[i];
    }
    for (size_t i = 0; !cs->table && i < cs->nstacks; i++) {
        uint64_t h = stored_hash(cs, &cs->stacks[i]);
        size_t j = h & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = tag_of(h) | (i + 1);
    }
    free(cs->table);
    cs->table = t;
    cs->table_cap = cap;
    return 0;
}

/* Grows *v (of elem-sized items) to hold need, by half again: the arrays of a big profile
 * are its largest allocations, doubling would leave up to half of them unused. */
static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 256;
    void *nv;

    if (need <= *cap)
        return 0;
    while (c < need)
        c += c / 2;
    nv = realloc(*v, c * elem);
    if (!nv)
        return -ENOMEM;
    *v = nv;
    *cap = c;
    return 0;
}

static inline uint64_t frame_hash(const struct frame *f)
{
    return hash_u64(f->addr ^ ((uint64_t)(uintptr_t)f->map * MIX));
}

static int grow_uniq_table(struct cg_store *cs)
{
    size_t cap = cs->uniq_table_cap ? cs->uniq_table_cap * 2 : 1024;
    uint32_t *t;

    while (cap < (cs->nuniq + 1) * 2)
        cap *= 2;
    if (!(t = calloc(cap, sizeof(*t))))
        return -ENOMEM;
    for (size_t i = 0; i < cs->nuniq; i++) {
        size_t j = frame_hash(&cs->uniq[i]) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)(i + 1);
    }
    free(cs->uniq_table);
    cs->uniq_table = t;
    cs->uniq_table_cap = cap;
    return 0;
}

/* The index of frame f in uniq, added when new. */
static int frame_id(struct cg_store *cs, const struct frame *f, uint32_t *id)
{
    size_t j;

    if ((cs->nuniq + 1) * 2 > cs->uniq_table_cap && grow_uniq_table(cs))
        return -ENOMEM;
    for (j = frame_hash(f) & (cs->uniq_table_cap - 1); cs->uniq_table[j];
         j = (j + 1) & (cs->uniq_table_cap - 1)) {
        if (same_frame(&cs->uniq[cs->uniq_table[j] - 1], f)) {
            *id = cs->uniq_table[j] - 1;
            return 0;
        }
    }
    if (cs->nuniq >= UINT32_MAX - 1 ||
        grow((void **)&cs->uniq, &cs->cap_uniq, cs->nuniq + 1, sizeof(*cs->uniq)))
        return -ENOMEM;
    cs->uniq[cs->nuniq] = *f;
    cs->uniq_table[j] = (uint32_t)++cs->nuniq;
    *id = (uint32_t)(cs->nuniq - 1);
    return 0;
}

static int add_hashed(struct cg_store *cs, const struct process *p, const struct frame *f,
                      uint32_t n, uint64_t period, uint64_t h)
{
    uint32_t *recent = &cs->recent[hash_u64((uint64_t)(uintptr_t)p) &
                                   (sizeof(cs->recent) / sizeof(cs->recent[0]) - 1)];
    const struct cg_stack *ref = *recent ? &cs->stacks[*recent - 1] : NULL;
    struct cg_stack *st;
    uint32_t same = 0;
    size_t j;

    /* The process's previous sample often had this stack (a loop, an idle CPU). */
    if (ref && same_stack(cs, ref, p, f, n)) {
        st = &cs->stacks[*recent - 1];
        goto found;
    }
    if (cs->nstacks >= UINT32_MAX - 1 || cs->nframes + n > UINT32_MAX)
        return -ENOMEM;
    if ((cs->nstacks + 1) * 2 > cs->table_cap && grow_table(cs))
        return -ENOMEM;
    for (j = h & (cs->table_cap - 1); cs->table[j]; j = (j + 1) & (cs->table_cap - 1)) {
        if ((cs->table[j] & 0xffffffff00000000ULL) != tag_of(h))
            continue;           /* h's home bits match by position: 32 - log2(cap) bits */
        st = &cs->stacks[(uint32_t)cs->table[j] - 1];
        if (same_stack(cs, st, p, f, n))
            goto found;
    }
    if (grow((void **)&cs->stacks, &cs->cap_stacks, cs->nstacks + 1, sizeof(*cs->stacks)) ||
        grow((void **)&cs->ids, &cs->cap_frames, cs->nframes + n, sizeof(*cs->ids)))
        return -ENOMEM;
    ref = *recent ? &cs->stacks[*recent - 1] : NULL;       /* stacks may have moved */
    /* A new stack mostly shares its callers with the process's previous one: their ids are
     * taken from there, outermost first, and only the others are looked up. Empty stacks
     * have none (and ids may be NULL: no offset into it). */
    if (ref && n && ref->n) {
        const uint32_t *rid = cs->ids + ref->off + ref->n;
        uint32_t *id = cs->ids + cs->nframes + n;
        while (same < n && same < ref->n && same_frame(&cs->uniq[rid[-1 - (int64_t)same]],
                                                       &f[n - 1 - same])) {
            id[-1 - (int64_t)same] = rid[-1 - (int64_t)same];
            same++;
        }
    }
    for (uint32_t k = 0; k < n - same; k++)
        if (frame_id(cs, &f[k], &cs->ids[cs->nframes + k]))
            return -ENOMEM;         /* the frames added stay unused in uniq: harmless */
    st = &cs->stacks[cs->nstacks];
    *st = (struct cg_stack){ .proc = p, .off = (uint32_t)cs->nframes, .n = n, .tid = cs->tid };
    cs->nframes += n;
    cs->table[j] = tag_of(h) | ++cs->nstacks;
found:
    cs->last = (size_t)(st - cs->stacks);
    *recent = (uint32_t)cs->last + 1;
    st->samples++;
    st->period += period;
    cs->samples++;
    cs->period += period;
    return 0;
}

int cg_store_add_frames(struct cg_store *cs, const struct process *p, const struct frame *f,
                        uint32_t n, uint64_t period)
{
    if (cs->frames_dropped)
        return -EINVAL;
    return add_hashed(cs, p, f, n, period, stack_hash(p, cs->tid, f, n));
}

/* Frames [off, off + n) of `from` into cs's scratch. */
static int load_frames(struct cg_store *cs, const struct cg_store *from, size_t off, uint32_t n)
{
    if (grow((void **)&cs->scratch, &cs->cap_scratch, n ? n : 1, sizeof(*cs->scratch)))
        return -ENOMEM;
    for (uint32_t k = 0; k < n; k++)
        cs->scratch[k] = *cg_frame_at(from, off + k);
    return 0;
}

int cg_store_add_stack(struct cg_store *cs, const struct cg_store *from,
                       const struct cg_stack *st, uint64_t period)
{
    int err = load_frames(cs, from, st->off, st->n);

    cs->tid = st->tid;
    return err ? err : cg_store_add_frames(cs, st->proc, cs->scratch, st->n, period);
}

int cg_store_add_whole(struct cg_store *cs, const struct process *p, const struct frame *f,
                       uint32_t n, uint64_t samples, uint64_t period)
{
    int err = cg_store_add_frames(cs, p, f, n, period);

    if (err || !samples)
        return err;
    /* One add for the whole stack: its samples are the stack's, not one. */
    cs->stacks[cs->last].samples += samples - 1;
    cs->samples += samples - 1;
    return 0;
}

int cg_store_truncate(const struct cg_store *in, uint32_t max, bool outer, struct cg_store *out)
{
    cg_store_init(out);
    for (size_t i = 0; i < in->nstacks; i++) {
        const struct cg_stack *st = &in->stacks[i];
        uint32_t n = st->n;
        int err;

        out->tid = st->tid;
        if (n > max && outer) {
            /* The leaf, then the outermost max frames (of the chain with the leaf in it). */
            err = load_frames(out, in, st->off + (n - max) - 1, max + 1);
            if (!err) {
                out->scratch[0] = *cg_frame_at(in, st->off);
                err = cg_store_add_whole(out, st->proc, out->scratch, max + 1, st->samples,
                                         st->period);
            }
        } else {
            n = n > max ? max : n;
            err = load_frames(out, in, st->off, n);
            if (!err)
                err = cg_store_add_whole(out, st->proc, out->scratch, n, st->samples,
                                         st->period);
        }
        if (err) {
            cg_store_release(out);
            return err;
        }
    }
    return 0;
}
