/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/capture.h"
#include "callgraph/stacks.h"
#include "model/process.h"
#include "perf/record.h"
#include "unwind/unwind.h"

void cg_capture_init(struct cg_capture *c, struct cg_store *store, struct unwinder *unwind)
{
    memset(c, 0, sizeof(*c));
    c->store = store;
    c->unwind = unwind;
}

void cg_capture_release(struct cg_capture *c)
{
    free(c->frames);
    c->frames = NULL;
    c->cap = 0;
}

static int reserve(struct cg_capture *c, size_t need)
{
    size_t cap = c->cap ? c->cap : 64;
    struct frame *f;

    if (need <= c->cap)
        return 0;
    while (cap < need)
        cap *= 2;
    if (!(f = realloc(c->frames, cap * sizeof(*f))))
        return -ENOMEM;
    c->frames = f;
    c->cap = cap;
    return 0;
}

enum ctx { CTX_KERNEL, CTX_USER, CTX_OTHER };

/* The frames of the sample's call chain (or its ip alone) into c->frames: their count. */
static uint32_t chain_frames(struct cg_capture *c, struct process *p, const struct sample *smp,
                             const uint64_t *ips, uint64_t nips)
{
    enum ctx ctx = smp->cpumode == PERF_RECORD_MISC_KERNEL ? CTX_KERNEL :
                   smp->cpumode == PERF_RECORD_MISC_USER ? CTX_USER : CTX_OTHER;
    struct map *m = NULL;
    uint32_t n = 0;
    bool exact = true;        /* the first frame of a context: where that mode was left */

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
        struct frame *f = &c->frames[n++];
        f->addr = exact ? ip : ip - 1;
        exact = false;
        if (ctx == CTX_KERNEL) {
            f->map = &kernel_map;
            continue;
        }
        /* Frames of one stack are mostly in one map (recursion, one binary): the map of the
         * previous frame first, as process_find_map's own cache would answer. */
        if (!m || ip < m->start || ip >= m->end) {
            m = process_find_map(p, ip);
            if (m)
                m->in_stack = true;   /* a map replaced later must outlive the stack */
        }
        f->map = m;
    }
    return n;
}

int cg_capture_sample(struct cg_capture *c, struct process *p, const struct sample *smp,
                      uint64_t period)
{
    const uint64_t *ips = smp->callchain;
    uint64_t nips = smp->nr_callchain, one = smp->ip;
    uint32_t n;

    if (!nips) {
        ips = &one;
        nips = 1;
    }
    if (reserve(c, nips))
        return -ENOMEM;
    n = chain_frames(c, p, smp, ips, nips);
    if (c->unwind) {            /* DWARF unwinding, or the caller a frameless leaf hides */
        int ret = unwind_sample(c->unwind, p, smp, &c->frames, &c->cap, &n);
        if (ret < 0)
            return ret;
    }
    c->store->tid = c->store->per_thread ? (int32_t)smp->tid : 0;
    return cg_store_add_frames(c->store, p, c->frames, n, period);
}

static int capture_sample(void *c, struct process *p, const struct sample *smp, uint64_t period)
{
    return cg_capture_sample(c, p, smp, period);
}

struct sample_sink cg_capture_sink(struct cg_capture *c)
{
    return (struct sample_sink){ .sample = capture_sample, .arg = c };
}
