#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/stacks.h"
#include "perf/record.h"
#include "session/session.h"
#include "unwind/unwind.h"
#include "util/hash.h"

const struct map cg_kernel_map;

void cg_store_init(struct cg_store *cs)
{
    memset(cs, 0, sizeof(*cs));
}

void cg_store_release(struct cg_store *cs)
{
    free(cs->frames);
    free(cs->stacks);
    free(cs->table);
    free(cs->scratch);
    memset(cs, 0, sizeof(*cs));
}

/* One multiply per frame (the per-sample cost of deep stacks), mixed fully at the end. */
#define MIX 0x9e3779b97f4a7c15ULL
static inline uint64_t frame_mix(uint64_t h, const struct cg_frame *f)
{
    return (h ^ f->addr ^ ((uint64_t)(uintptr_t)f->map << 17)) * MIX;
}

static uint64_t stack_hash(const struct process *p, const struct cg_frame *f, uint32_t n)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < n; i++)
        h = frame_mix(h, &f[i]);
    return hash_u64(h ^ n ^ (uint64_t)(uintptr_t)p);
}

static inline uint64_t tag_of(uint64_t h)
{
    return h & 0xffffffff00000000ULL;
}

static inline bool same_stack(const struct cg_store *cs, const struct cg_stack *st,
                              const struct process *p, const struct cg_frame *f, uint32_t n,
                              uint64_t h)
{
    return st->hash == h && st->proc == p && st->n == n &&
           (!n || !memcmp(cs->frames + st->off, f, n * sizeof(*f)));   /* frames may be NULL */
}

static int grow_table(struct cg_store *cs)
{
    size_t cap = cs->table_cap ? cs->table_cap * 2 : 1024;
    uint64_t *t = calloc(cap, sizeof(*t));

    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < cs->nstacks; i++) {
        size_t j = cs->stacks[i].hash & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = tag_of(cs->stacks[i].hash) | (i + 1);
    }
    free(cs->table);
    cs->table = t;
    cs->table_cap = cap;
    return 0;
}

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 256;
    void *nv;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    nv = realloc(*v, c * elem);
    if (!nv)
        return -ENOMEM;
    *v = nv;
    *cap = c;
    return 0;
}

static int add_hashed(struct cg_store *cs, const struct process *p, const struct cg_frame *f,
                      uint32_t n, uint64_t period, uint64_t h)
{
    struct cg_stack *st;
    size_t j;

    /* Consecutive samples often share their stack (a CPU idle, a tight loop). */
    if (cs->nstacks && same_stack(cs, &cs->stacks[cs->last], p, f, n, h)) {
        st = &cs->stacks[cs->last];
        goto found;
    }
    if (cs->nstacks >= UINT32_MAX - 1)
        return -ENOMEM;
    if ((cs->nstacks + 1) * 2 > cs->table_cap && grow_table(cs))
        return -ENOMEM;
    for (j = h & (cs->table_cap - 1); cs->table[j]; j = (j + 1) & (cs->table_cap - 1)) {
        if ((cs->table[j] & 0xffffffff00000000ULL) != tag_of(h))
            continue;
        st = &cs->stacks[(uint32_t)cs->table[j] - 1];
        if (same_stack(cs, st, p, f, n, h))
            goto found;
    }
    if (grow((void **)&cs->stacks, &cs->cap_stacks, cs->nstacks + 1, sizeof(*cs->stacks)) ||
        grow((void **)&cs->frames, &cs->cap_frames, cs->nframes + n, sizeof(*cs->frames)))
        return -ENOMEM;
    if (n)
        memcpy(cs->frames + cs->nframes, f, n * sizeof(*f));
    st = &cs->stacks[cs->nstacks];
    *st = (struct cg_stack){ .proc = p, .hash = h, .off = cs->nframes, .n = n };
    cs->nframes += n;
    cs->table[j] = tag_of(h) | ++cs->nstacks;
found:
    cs->last = (size_t)(st - cs->stacks);
    st->samples++;
    st->period += period;
    cs->samples++;
    cs->period += period;
    return 0;
}

int cg_store_add_frames(struct cg_store *cs, const struct process *p, const struct cg_frame *f,
                        uint32_t n, uint64_t period)
{
    return add_hashed(cs, p, f, n, period, stack_hash(p, f, n));
}

enum ctx { CTX_KERNEL, CTX_USER, CTX_OTHER };

int cg_store_add(struct cg_store *cs, struct process *p, const struct sample *smp,
                 uint64_t period)
{
    enum ctx ctx = smp->cpumode == PERF_RECORD_MISC_KERNEL ? CTX_KERNEL :
                   smp->cpumode == PERF_RECORD_MISC_USER ? CTX_USER : CTX_OTHER;
    const uint64_t *ips = smp->callchain;
    uint64_t nips = smp->nr_callchain, one = smp->ip;
    struct map *m = NULL;
    uint64_t h = 0;
    uint32_t n = 0;
    bool exact = true;        /* the first frame of a context: where that mode was left */

    if (!nips) {
        ips = &one;
        nips = 1;
    }
    if (grow((void **)&cs->scratch, &cs->cap_scratch, nips, sizeof(*cs->scratch)))
        return -ENOMEM;
    for (uint64_t i = 0; i < nips; i++) {
        uint64_t ip = ips[i];
        if (ip >= PERF_CONTEXT_MAX) {
            ctx = ip == PERF_CONTEXT_KERNEL ? CTX_KERNEL :
                  ip == PERF_CONTEXT_USER ? CTX_USER : CTX_OTHER;
            exact = true;
            continue;
        }
        if (ctx == CTX_OTHER)
            continue;
        /* A caller's frame holds the return address, which may be the first instruction of
         * the next function (a call at a function's end): ip - 1 is inside the call. The
         * first frame of each context is no return address: the sampled ip, or the user ip
         * the kernel was entered at (a fault on a function's first instruction is in that
         * function, not at the end of the one before). */
        struct cg_frame *f = &cs->scratch[n];
        f->addr = exact ? ip : ip - 1;
        exact = false;
        if (ctx == CTX_KERNEL) {
            f->map = &cg_kernel_map;
        } else {
            /* Frames of one stack are mostly in one map (recursion, one binary): the map of
             * the previous frame first, as process_find_map's own cache would answer. */
            if (!m || ip < m->start || ip >= m->end) {
                m = process_find_map(p, ip);
                if (m)
                    m->in_stack = true;   /* a map replaced later must outlive the stack */
            }
            f->map = m;
        }
        h = frame_mix(h, f);
        n++;
    }
    if (cs->unwind) {           /* DWARF unwinding, or the caller a frameless leaf hides */
        int ret = unwind_sample(cs->unwind, p, smp, &cs->scratch, &cs->cap_scratch, &n);
        if (ret < 0)
            return ret;
        if (ret)                /* frames changed: hashed again */
            return cg_store_add_frames(cs, p, cs->scratch, n, period);
    }
    return add_hashed(cs, p, cs->scratch, n, period, hash_u64(h ^ n ^ (uint64_t)(uintptr_t)p));
}

int cg_store_truncate(const struct cg_store *in, uint32_t max, bool outer, struct cg_store *out)
{
    cg_store_init(out);
    for (size_t i = 0; i < in->nstacks; i++) {
        const struct cg_stack *st = &in->stacks[i];
        const struct cg_frame *f = cg_stack_frames(in, st);
        uint32_t n = st->n;
        int err;

        if (n > max && outer) {
            /* The leaf, then the outermost max frames (of the chain with the leaf in it). */
            if (grow((void **)&out->scratch, &out->cap_scratch, (size_t)max + 1,
                     sizeof(*out->scratch)))
                err = -ENOMEM;
            else {
                out->scratch[0] = f[0];
                memcpy(out->scratch + 1, f + n - max, max * sizeof(*f));
                err = cg_store_add_frames(out, st->proc, out->scratch, max + 1, 0);
            }
        } else {
            err = cg_store_add_frames(out, st->proc, f, n > max ? max : n, 0);
        }
        if (err) {
            cg_store_release(out);
            return err;
        }
        /* One add per stack: its samples and period are the stack's, not one sample's. */
        out->stacks[out->last].samples += st->samples - 1;
        out->stacks[out->last].period += st->period;
        out->samples += st->samples - 1;
        out->period += st->period;
    }
    return 0;
}
