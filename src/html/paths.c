/* SPDX-License-Identifier: MIT */
/* Stacks -> call paths merged by name (the flame graph's tree), stacks -> (process, path). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flame/flametree.h"
#include "html/paths.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "util/hash.h"
#include "util/hashmap.h"

struct html_edge {
    uint32_t parent, name, node;    /* node 0: empty slot */
    uint8_t kind;
};

static uint64_t edge_hash(uint32_t parent, uint32_t name, uint8_t kind)
{
    return hash_u64(((uint64_t)parent << 32 | name) ^ ((uint64_t)kind << 59));
}

static int edges_grow(struct html_paths *p)
{
    size_t cap = p->edges_cap ? p->edges_cap * 2 : 4096;
    struct html_edge *e = calloc(cap, sizeof(*e));

    if (!e)
        return -ENOMEM;
    for (size_t i = 0; i < p->edges_cap; i++) {
        const struct html_edge *o = &p->edges[i];
        if (!o->node)
            continue;
        size_t j = edge_hash(o->parent, o->name, o->kind) & (cap - 1);
        while (e[j].node)
            j = (j + 1) & (cap - 1);
        e[j] = *o;
    }
    free(p->edges);
    p->edges = e;
    p->edges_cap = cap;
    return 0;
}

/* The child of parent named (name, kind), made when new with `what` as its symbol. */
static int child_of(struct html_paths *p, uint32_t parent, uint32_t name, uint8_t kind,
                    uint32_t what, uint32_t *out)
{
    size_t j;

    if (p->n * 2 >= p->edges_cap && edges_grow(p))
        return -ENOMEM;
    for (j = edge_hash(parent, name, kind) & (p->edges_cap - 1); p->edges[j].node;
         j = (j + 1) & (p->edges_cap - 1)) {
        const struct html_edge *e = &p->edges[j];
        if (e->parent == parent && e->name == name && e->kind == kind) {
            *out = e->node;
            return 0;
        }
    }
    if (p->n == p->cap) {
        size_t cap = p->cap * 2;
        struct html_node *nn = cap > UINT32_MAX / 2 ? NULL : realloc(p->nodes, cap * sizeof(*nn));
        if (!nn)
            return -ENOMEM;
        p->nodes = nn;
        p->cap = cap;
    }
    p->nodes[p->n] = (struct html_node){ .parent = parent, .what = what };
    p->edges[j] = (struct html_edge){ parent, name, (uint32_t)p->n, kind };
    *out = (uint32_t)p->n++;
    return 0;
}

/* Every symbol's name and DSO in the string table. */
static int intern_syms(struct html_paths *p, const struct cg_syms *cy)
{
    char buf[256];
    int err = 0;

    p->sym_name = calloc(cy->nsyms ? cy->nsyms : 1, sizeof(uint32_t));
    p->sym_dso = calloc(cy->nsyms ? cy->nsyms : 1, sizeof(uint32_t));
    if (!p->sym_name || !p->sym_dso)
        return -ENOMEM;
    for (size_t i = 0; i < cy->nsyms && !err; i++) {
        const struct cg_sym *s = &cy->syms[i];
        if (!(err = strtab_intern(&p->strs, cg_sym_name(s, buf, sizeof(buf)), &p->sym_name[i])))
            err = strtab_intern(&p->strs, s->kernel || !s->dso ? cg_sym_dso(s, buf, sizeof(buf))
                                                               : dso_path(s->dso),
                                &p->sym_dso[i]);
    }
    return err;
}

/* The process's index in p->procs, added when new. */
static int proc_index(struct html_paths *p, struct hashmap *idx, const struct process *proc,
                      size_t cap, uint32_t *out)
{
    uintptr_t k = (uintptr_t)hashmap_get(idx, (uint64_t)(uintptr_t)proc);

    if (!k) {
        if (p->nprocs == cap)
            return -ENOMEM;
        int err = strtab_intern(&p->strs, proc->comm, &p->proc_comm[p->nprocs]);
        if (err)
            return err;
        p->procs[p->nprocs] = proc;
        k = ++p->nprocs;
        if ((err = hashmap_put(idx, (uint64_t)(uintptr_t)proc, (void *)k)))
            return err;
    }
    *out = (uint32_t)(k - 1);
    return 0;
}

/* The leaf node of stack st: its command, then its frames outermost first. */
static int stack_node(struct html_paths *p, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct cg_stack *st, uint32_t *out)
{
    uint32_t node, name;
    int err;

    if ((err = strtab_intern(&p->strs, st->proc->comm, &name)) ||
        (err = child_of(p, 0, name, FLAME_COMM, HTML_COMM_BIT | name, &node)))
        return err;
    for (uint32_t k = st->n; k-- > 0 && !err;) {
        uint32_t sym = cy->frame_sym[st->off + k];
        err = child_of(p, node, p->sym_name[sym], (uint8_t)flame_sym_kind(&cy->syms[sym]), sym,
                       &node);
    }
    *out = node;
    return err;
}

static int cmp_stack(const void *a, const void *b)
{
    const struct html_stack *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Equal (process, node) pairs as one, weights and periods added. */
static void merge_stacks(struct html_paths *p)
{
    size_t w = 0;

    qsort(p->stacks, p->nstacks, sizeof(*p->stacks), cmp_stack);
    for (size_t i = 0; i < p->nstacks; i++) {
        if (w && !cmp_stack(&p->stacks[w - 1], &p->stacks[i])) {
            p->stacks[w - 1].weight += p->stacks[i].weight;
            p->stacks[w - 1].period += p->stacks[i].period;
        } else
            p->stacks[w++] = p->stacks[i];
    }
    p->nstacks = w;
}

int html_paths_build(struct html_paths *p, const struct cg_store *cs, const struct cg_syms *cy,
                     bool by_period)
{
    size_t cap = cs->nstacks ? cs->nstacks : 1;
    struct hashmap idx;
    int err;

    memset(p, 0, sizeof(*p));
    strtab_init(&p->strs);
    hashmap_init(&idx);
    p->cap = 1024;
    p->nodes = malloc(p->cap * sizeof(*p->nodes));
    p->stacks = malloc(cap * sizeof(*p->stacks));
    p->procs = malloc(cap * sizeof(*p->procs));
    p->proc_comm = malloc(cap * sizeof(*p->proc_comm));
    p->cs_proc = malloc(cap * sizeof(*p->cs_proc));
    p->cs_node = malloc(cap * sizeof(*p->cs_node));
    if (!p->nodes || !p->stacks || !p->procs || !p->proc_comm || !p->cs_proc || !p->cs_node)
        err = -ENOMEM;
    else
        err = intern_syms(p, cy);
    if (!err) {
        p->nodes[0] = (struct html_node){ 0, 0 };
        p->n = 1;
    }
    for (size_t i = 0; i < cs->nstacks && !err; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        struct html_stack *hs = &p->stacks[p->nstacks];
        p->cs_proc[i] = p->cs_node[i] = HTML_NO_NODE;
        if (!st->n)
            continue;
        if (!(err = proc_index(p, &idx, st->proc, cap, &hs->proc)) &&
            !(err = stack_node(p, cs, cy, st, &hs->node))) {
            hs->weight = by_period ? st->period : st->samples;
            hs->period = st->period;
            p->cs_proc[i] = hs->proc;
            p->cs_node[i] = hs->node;
            p->nstacks++;
        }
    }
    hashmap_release(&idx);
    free(p->edges);           /* the lookup is for building only */
    p->edges = NULL;
    p->edges_cap = 0;
    if (err)
        html_paths_release(p);
    else
        merge_stacks(p);
    return err;
}

void html_paths_release(struct html_paths *p)
{
    free(p->nodes);
    free(p->stacks);
    free(p->procs);
    free(p->proc_comm);
    free(p->sym_name);
    free(p->sym_dso);
    free(p->cs_proc);
    free(p->cs_node);
    free(p->edges);
    strtab_release(&p->strs);
    memset(p, 0, sizeof(*p));
}
