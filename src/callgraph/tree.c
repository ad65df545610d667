/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/tree.h"

/* The child of `parent` for sym, created if missing. Returns its index, 0 on -ENOMEM. */
static uint32_t child_of(struct cg_tree *t, uint32_t parent, uint32_t sym)
{
    struct cg_node *v;

    for (uint32_t c = t->nodes[parent].child; c; c = t->nodes[c].next)
        if (t->nodes[c].sym == sym)
            return c;
    if (t->n == t->cap) {
        size_t cap = t->cap * 2;
        if (cap > UINT32_MAX || !(v = realloc(t->nodes, cap * sizeof(*v))))
            return 0;
        t->nodes = v;
        t->cap = cap;
    }
    v = &t->nodes[t->n];
    *v = (struct cg_node){ .sym = sym, .parent = parent, .next = t->nodes[parent].child };
    t->nodes[parent].child = (uint32_t)t->n;
    return (uint32_t)t->n++;
}

int cg_tree_build(const struct cg_store *cs, const struct cg_syms *cy, const char *name,
                  bool callers, struct cg_tree *t)
{
    bool *match = calloc(cy->nsyms ? cy->nsyms : 1, sizeof(*match));
    char buf[256];
    int err = 0;

    memset(t, 0, sizeof(*t));
    t->cap = 64;
    t->nodes = calloc(t->cap, sizeof(*t->nodes));
    if (!match || !t->nodes) {
        free(match);
        free(t->nodes);
        t->nodes = NULL;
        return -ENOMEM;
    }
    t->n = 1;
    for (size_t i = 0; i < cy->nsyms; i++)
        match[i] = !strcmp(cg_sym_name(&cy->syms[i], buf, sizeof(buf)), name);
    for (size_t i = 0; i < cs->nstacks && !err; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        const uint32_t *fs = cy->frame_sym + st->off;
        uint32_t at = 0, node = 0;
        long k, found = -1;

        /* Frames are leaf first: callers start at the innermost match, callees at the
         * outermost, and walk away from the leaf or towards it. */
        for (k = 0; k < (long)st->n; k++)
            if (match[fs[k]] && (found = k, callers))
                break;
        if (found < 0)
            continue;
        for (k = found; k >= 0 && k < (long)st->n; k += callers ? 1 : -1) {
            if (!(node = child_of(t, at, fs[k]))) {
                err = -ENOMEM;
                break;
            }
            t->nodes[node].samples += st->samples;
            t->nodes[node].period += st->period;
            at = node;
        }
    }
    free(match);
    if (err)
        cg_tree_release(t);
    return err;
}

void cg_tree_release(struct cg_tree *t)
{
    free(t->nodes);
    memset(t, 0, sizeof(*t));
}

static int cmp_node(const void *a, const void *b, void *arg)
{
    const struct cg_node *nodes = arg;
    const struct cg_node *x = &nodes[*(const uint32_t *)a], *y = &nodes[*(const uint32_t *)b];
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

int cg_tree_sort(struct cg_tree *t)
{
    uint32_t *kids = malloc(t->n * sizeof(*kids));

    if (!kids)
        return -ENOMEM;
    for (size_t p = 0; p < t->n; p++) {
        size_t m = 0;
        for (uint32_t c = t->nodes[p].child; c; c = t->nodes[c].next)
            kids[m++] = c;
        if (m < 2)
            continue;
        qsort_r(kids, m, sizeof(*kids), cmp_node, t->nodes);
        for (size_t i = 0; i < m; i++)
            t->nodes[kids[i]].next = i + 1 < m ? kids[i + 1] : 0;
        t->nodes[p].child = kids[0];
    }
    free(kids);
    return 0;
}
