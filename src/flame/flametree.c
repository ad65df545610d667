/* SPDX-License-Identifier: MIT */
/* Stacks -> merged tree of frame names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "flame/flametree.h"
#include "model/process.h"
#include "util/hash.h"

static uint64_t edge_hash(uint32_t parent, uint32_t name, uint8_t kind)
{
    return hash_u64(((uint64_t)parent << 32 | name) ^ ((uint64_t)kind << 59));
}

static int grow_edges(struct flame_tree *t)
{
    size_t cap = t->edges_cap ? t->edges_cap * 2 : 1024;
    struct flame_edge *e = calloc(cap, sizeof(*e));

    if (!e)
        return -ENOMEM;
    for (size_t i = 0; i < t->edges_cap; i++) {
        const struct flame_edge *o = &t->edges[i];
        if (!o->node)
            continue;
        size_t j = edge_hash(o->parent, o->name, o->kind) & (cap - 1);
        while (e[j].node)
            j = (j + 1) & (cap - 1);
        e[j] = *o;
    }
    free(t->edges);
    t->edges = e;
    t->edges_cap = cap;
    return 0;
}

static int new_node(struct flame_tree *t, uint32_t parent, uint32_t name, uint8_t kind,
                    uint32_t *out)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct flame_node *v = realloc(t->nodes, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        t->nodes = v;
        t->cap = cap;
    }
    if (t->n >= UINT32_MAX)
        return -ENOMEM;
    t->nodes[t->n] = (struct flame_node){ .name = name, .parent = parent, .kind = kind };
    *out = (uint32_t)t->n++;
    return 0;
}

int flame_tree_init(struct flame_tree *t)
{
    uint32_t name, root;

    memset(t, 0, sizeof(*t));
    strtab_init(&t->names);
    if (strtab_intern(&t->names, "all", &name) || new_node(t, 0, name, FLAME_ROOT, &root)) {
        flame_tree_release(t);
        return -ENOMEM;
    }
    return 0;
}

void flame_tree_release(struct flame_tree *t)
{
    free(t->nodes);
    free(t->edges);
    strtab_release(&t->names);
    memset(t, 0, sizeof(*t));
}

/* The child of parent named (name, kind), created when new. */
static int child_of(struct flame_tree *t, uint32_t parent, uint32_t name, uint8_t kind,
                    uint32_t *out)
{
    size_t j;
    int err;

    if ((t->n + 1) * 2 > t->edges_cap && (err = grow_edges(t)))
        return err;
    for (j = edge_hash(parent, name, kind) & (t->edges_cap - 1); t->edges[j].node;
         j = (j + 1) & (t->edges_cap - 1)) {
        const struct flame_edge *e = &t->edges[j];
        if (e->parent == parent && e->name == name && e->kind == kind) {
            *out = e->node;
            return 0;
        }
    }
    if ((err = new_node(t, parent, name, kind, out)))
        return err;
    struct flame_node *p = &t->nodes[parent];
    t->nodes[*out].next = p->child;
    p->child = *out;
    t->edges[j] = (struct flame_edge){ .parent = parent, .name = name, .node = *out,
                                       .kind = kind };
    return 0;
}

enum flame_kind flame_sym_kind(const struct cg_sym *s)
{
    if (s->kernel)
        return FLAME_KERNEL;
    if (s->bracket)
        return FLAME_BRACKET;
    if (s->inlined)
        return FLAME_INLINED;     /* report --inline (callgraph/inline.c) */
    return FLAME_USER;
}

int flame_tree_add_store(struct flame_tree *t, const struct cg_store *cs,
                         const struct cg_syms *cy, bool inverted, int which)
{
    uint32_t *names = calloc(cy->nsyms ? cy->nsyms : 1, sizeof(*names));   /* sym -> name + 1 */
    struct cg_symstack *ss = NULL;
    size_t nss = 0;
    char buf[256];
    int err = 0;

    /* The tree only sees commands and symbols: stacks equal in those (other addresses in the
     * same functions) are added once, with their samples and periods summed. */
    if (!names || (err = cg_symstacks(cs, cy, true, &ss, &nss))) {
        free(names);
        return err ? err : -ENOMEM;
    }
    for (size_t i = 0; i < nss && !err; i++) {
        const struct cg_stack *st = &cs->stacks[ss[i].stack];
        uint32_t node = 0, name;
        uint64_t v = t->by_period ? ss[i].period : ss[i].samples;
        if (!st->n)
            continue;
        t->nodes[0].value[which] += v;
        if (!inverted) {
            if ((err = strtab_intern(&t->names, st->proc->comm, &name)) ||
                (err = child_of(t, node, name, FLAME_COMM, &node)))
                break;
            t->nodes[node].value[which] += v;
        }
        for (uint32_t k = 0; k < st->n && !err; k++) {
            uint32_t fi = (uint32_t)st->off + (inverted ? k : st->n - 1 - k);
            uint32_t sym = cy->frame_sym[fi];
            const struct cg_sym *s = &cy->syms[sym];
            if (!names[sym]) {
                if ((err = strtab_intern(&t->names, cg_sym_name(s, buf, sizeof(buf)), &name)))
                    break;
                names[sym] = name + 1;
            }
            if ((err = child_of(t, node, names[sym] - 1, (uint8_t)flame_sym_kind(s), &node)))
                break;
            t->nodes[node].value[which] += v;
            if (k + 2 > t->depth)
                t->depth = k + 2;
        }
        if (!err && inverted) {
            if ((err = strtab_intern(&t->names, st->proc->comm, &name)) ||
                (err = child_of(t, node, name, FLAME_COMM, &node)))
                break;
            t->nodes[node].value[which] += v;
            if (st->n + 1 > t->depth)
                t->depth = st->n + 1;
        }
    }
    free(names);
    free(ss);
    return err;
}

static int cmp_child(const void *a, const void *b, void *arg)
{
    const struct flame_tree *t = arg;
    const struct flame_node *x = &t->nodes[*(const uint32_t *)a];
    const struct flame_node *y = &t->nodes[*(const uint32_t *)b];
    int c = strcmp(strtab_get(&t->names, x->name), strtab_get(&t->names, y->name));
    return c ? c : (int)x->kind - (int)y->kind;
}

int flame_tree_sort(struct flame_tree *t)
{
    uint32_t *kids = malloc((t->n ? t->n : 1) * sizeof(*kids));

    if (!kids)
        return -ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t nk = 0;
        for (uint32_t c = t->nodes[i].child; c; c = t->nodes[c].next)
            kids[nk++] = c;
        if (nk < 2)
            continue;
        qsort_r(kids, nk, sizeof(*kids), cmp_child, t);
        t->nodes[i].child = kids[0];
        for (size_t k = 0; k < nk; k++)
            t->nodes[kids[k]].next = k + 1 < nk ? kids[k + 1] : 0;
    }
    free(kids);
    return 0;
}
