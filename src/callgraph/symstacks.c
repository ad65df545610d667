/* Stacks merged by symbols: open addressing over a hash of (command, symbols). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "session/session.h"
#include "util/hash.h"

struct slot {
    uint64_t hash;
    uint32_t idx;             /* out index + 1, 0 empty */
};

static uint64_t symstack_hash(const struct cg_syms *cy, const struct cg_stack *st, bool by_comm)
{
    const uint32_t *fs = cy->frame_sym + st->off;
    uint64_t h = by_comm ? hash_bytes(st->proc->comm, strlen(st->proc->comm)) : 0;

    for (uint32_t k = 0; k < st->n; k++)
        h = (h ^ fs[k]) * 0x9e3779b97f4a7c15ULL;
    return hash_u64(h ^ st->n);
}

static bool same(const struct cg_store *cs, const struct cg_syms *cy, size_t a, size_t b,
                 bool by_comm)
{
    const struct cg_stack *x = &cs->stacks[a], *y = &cs->stacks[b];
    return x->n == y->n &&
           (!by_comm || x->proc == y->proc || !strcmp(x->proc->comm, y->proc->comm)) &&
           !memcmp(cy->frame_sym + x->off, cy->frame_sym + y->off, x->n * sizeof(uint32_t));
}

int cg_symstacks(const struct cg_store *cs, const struct cg_syms *cy, bool by_comm,
                 struct cg_symstack **out, size_t *n)
{
    size_t cap = 16, nout = 0;
    struct slot *t;
    struct cg_symstack *v = malloc((cs->nstacks ? cs->nstacks : 1) * sizeof(*v));

    while (cap < cs->nstacks * 2)
        cap *= 2;
    if (!v || !(t = calloc(cap, sizeof(*t)))) {
        free(v);
        return -ENOMEM;
    }
    for (size_t i = 0; i < cs->nstacks; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        uint64_t h = symstack_hash(cy, st, by_comm);
        size_t j = h & (cap - 1);

        for (; t[j].idx; j = (j + 1) & (cap - 1))
            if (t[j].hash == h && same(cs, cy, v[t[j].idx - 1].stack, i, by_comm))
                break;
        if (!t[j].idx) {
            v[nout] = (struct cg_symstack){ .stack = i };
            t[j] = (struct slot){ h, (uint32_t)++nout };
        }
        v[t[j].idx - 1].samples += st->samples;
        v[t[j].idx - 1].period += st->period;
    }
    free(t);
    *out = v;
    *n = nout;
    return 0;
}
