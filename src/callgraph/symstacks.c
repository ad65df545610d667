/* SPDX-License-Identifier: MIT */
/* Stacks merged by symbols: open addressing over a hash of (command, symbols). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "model/process.h"
#include "util/hash.h"
#include "util/hashmap.h"

struct slot {
    uint32_t tag;             /* the hash's low half (its low bits: the home slot) */
    uint32_t idx;             /* out index + 1, 0 empty */
};

/* Command names as small numbers, so that stacks compare and hash them as numbers: a map by
 * process (a -a profile has thousands) over a table by name. */
struct comms {
    const char **name;
    size_t n, cap;
    uint32_t *table;          /* name index + 1 */
    size_t table_cap;
    struct hashmap by_proc;   /* process -> id + 1 */
};

static void comms_release(struct comms *c)
{
    free(c->name);
    free(c->table);
    hashmap_release(&c->by_proc);
}

static int comms_grow(struct comms *c)
{
    size_t cap = c->table_cap ? c->table_cap * 2 : 64;
    uint32_t *t = calloc(cap, sizeof(*t));

    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        size_t j = hash_bytes(c->name[i], strlen(c->name[i])) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)(i + 1);
    }
    free(c->table);
    c->table = t;
    c->table_cap = cap;
    return 0;
}

static int comm_id(struct comms *c, const struct process *p, uint32_t *id)
{
    uintptr_t known = (uintptr_t)hashmap_get(&c->by_proc, (uint64_t)(uintptr_t)p);
    size_t j;

    if (known) {
        *id = (uint32_t)(known - 1);
        return 0;
    }
    if ((c->n + 1) * 2 > c->table_cap && comms_grow(c))
        return -ENOMEM;
    for (j = hash_bytes(p->comm, strlen(p->comm)) & (c->table_cap - 1); c->table[j];
         j = (j + 1) & (c->table_cap - 1))
        if (!strcmp(c->name[c->table[j] - 1], p->comm))
            break;
    if (!c->table[j]) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 32;
            const char **v = realloc(c->name, cap * sizeof(*v));
            if (!v)
                return -ENOMEM;
            c->name = v;
            c->cap = cap;
        }
        c->name[c->n] = p->comm;
        c->table[j] = (uint32_t)++c->n;
    }
    *id = c->table[j] - 1;
    return hashmap_put(&c->by_proc, (uint64_t)(uintptr_t)p, (void *)(uintptr_t)(*id + 1));
}

static uint64_t symstack_hash(const struct cg_syms *cy, const struct cg_stack *st, uint32_t comm)
{
    const uint32_t *fs = cy->frame_sym + st->off;
    uint64_t h = comm;

    for (uint32_t k = 0; k < st->n; k++)
        h = (h ^ fs[k]) * 0x9e3779b97f4a7c15ULL;
    return hash_u64(h ^ ((uint64_t)st->n << 32));
}

/* Doubles the table: an entry's tag (the hash's low half) holds its home slot's bits. */
static int grow_slots(struct slot **t, size_t *cap)
{
    size_t nc = *cap * 2;
    struct slot *nt;

    if (nc > (1ULL << 32) || !(nt = calloc(nc, sizeof(*nt))))
        return -ENOMEM;
    for (size_t i = 0; i < *cap; i++) {
        size_t j = (*t)[i].tag & (nc - 1);
        if (!(*t)[i].idx)
            continue;
        while (nt[j].idx)
            j = (j + 1) & (nc - 1);
        nt[j] = (*t)[i];
    }
    free(*t);
    *t = nt;
    *cap = nc;
    return 0;
}

int cg_symstacks(const struct cg_store *cs, const struct cg_syms *cy, bool by_comm,
                 struct cg_symstack **out, size_t *n)
{
    /* Sized for a quarter of the stacks and grown: the merged stacks are often a third, and
     * these are the largest tables of a --children report. */
    size_t vcap = cs->nstacks / 4 > 16 ? cs->nstacks / 4 : 16, cap = 16, nout = 0;
    struct slot *t = NULL;
    struct comms *cm = NULL;
    uint32_t *comm_of = malloc(vcap * sizeof(*comm_of));     /* per out: its command's id */
    struct cg_symstack *v = malloc(vcap * sizeof(*v));
    int err = 0;

    while (cap < vcap * 2)
        cap *= 2;
    if (!v || !comm_of || !(t = calloc(cap, sizeof(*t))) ||
        (by_comm && !(cm = calloc(1, sizeof(*cm)))))
        err = -ENOMEM;
    if (cm)
        hashmap_init(&cm->by_proc);
    for (size_t i = 0; i < cs->nstacks && !err; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        const uint32_t *fs = cy->frame_sym + st->off;
        uint32_t comm = 0;
        if (by_comm && (err = comm_id(cm, st->proc, &comm)))
            break;
        uint64_t h = symstack_hash(cy, st, comm);
        size_t j = h & (cap - 1);

        for (; t[j].idx; j = (j + 1) & (cap - 1)) {
            size_t o = t[j].idx - 1;
            const struct cg_stack *x = &cs->stacks[v[o].stack];
            if (t[j].tag == (uint32_t)h && comm_of[o] == comm && x->n == st->n &&
                !memcmp(cy->frame_sym + x->off, fs, st->n * sizeof(*fs)))
                break;
        }
        if (!t[j].idx) {
            if (nout == vcap) {
                size_t nc = vcap + vcap / 2;
                struct cg_symstack *nv = realloc(v, nc * sizeof(*v));
                uint32_t *nco = nv ? realloc(comm_of, nc * sizeof(*comm_of)) : NULL;
                if (nv)
                    v = nv;
                if (nco)
                    comm_of = nco;
                if (!nv || !nco) {
                    err = -ENOMEM;
                    break;
                }
                vcap = nc;
            }
            v[nout] = (struct cg_symstack){ .stack = i };
            comm_of[nout] = comm;
            t[j] = (struct slot){ (uint32_t)h, (uint32_t)++nout };
            j = t[j].idx - 1;                      /* the out index, as below */
            if (nout * 2 > cap && (err = grow_slots(&t, &cap)))
                break;
        } else {
            j = t[j].idx - 1;
        }
        v[j].samples += st->samples;
        v[j].period += st->period;
    }
    free(t);
    free(comm_of);
    if (cm)
        comms_release(cm);
    free(cm);
    if (err) {
        free(v);
        return err;
    }
    *out = v;
    *n = nout;
    return 0;
}
