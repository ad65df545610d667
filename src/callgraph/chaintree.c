/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/chaintree.h"

int chaintree_init(struct chaintree *t)
{
    memset(t, 0, sizeof(*t));
    t->cap = 16;
    if (!(t->nodes = calloc(t->cap, sizeof(*t->nodes))))
        return -ENOMEM;
    t->n = 1;
    return 0;
}

void chaintree_release(struct chaintree *t)
{
    free(t->nodes);
    memset(t, 0, sizeof(*t));
}

/* The child of `parent` for sym, created if missing: its index, 0 on -ENOMEM. */
static uint32_t child_of(struct chaintree *t, uint32_t parent, uint32_t sym)
{
    struct ct_node *v;

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
    *v = (struct ct_node){ .sym = sym, .parent = parent, .next = t->nodes[parent].child };
    t->nodes[parent].child = (uint32_t)t->n;
    return (uint32_t)t->n++;
}

int chaintree_add(struct chaintree *t, const uint32_t *syms, long from, long step, size_t n,
                  uint64_t period)
{
    uint32_t at = 0;

    t->nodes[0].cumul += period;
    for (size_t i = 0; i < n; i++, from += step) {
        uint32_t c = child_of(t, at, syms[from]);
        if (!c)
            return -ENOMEM;
        t->nodes[c].cumul += period;
        at = c;
    }
    t->nodes[at].hit += period;
    return 0;
}

struct sort_ctx {
    const struct ct_node *nodes;
    const struct cg_syms *cy;
};

static int cmp_node(const void *a, const void *b, void *arg)
{
    const struct sort_ctx *c = arg;
    const struct ct_node *x = &c->nodes[*(const uint32_t *)a], *y = &c->nodes[*(const uint32_t *)b];
    const struct cg_sym *sx = &c->cy->syms[x->sym], *sy = &c->cy->syms[y->sym];

    if (x->cumul != y->cumul)
        return x->cumul > y->cumul ? -1 : 1;
    if (sx->dso == sy->dso && sx->kernel == sy->kernel && sx->at != sy->at)
        return sx->at > sy->at ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

int chaintree_sort(struct chaintree *t, const struct cg_syms *cy)
{
    struct sort_ctx ctx = { t->nodes, cy };
    uint32_t *kids = malloc(t->n * sizeof(*kids));

    if (!kids)
        return -ENOMEM;
    for (size_t p = 0; p < t->n; p++) {
        size_t m = 0;
        for (uint32_t c = t->nodes[p].child; c; c = t->nodes[c].next)
            kids[m++] = c;
        if (m < 2)
            continue;
        qsort_r(kids, m, sizeof(*kids), cmp_node, &ctx);
        for (size_t i = 0; i < m; i++)
            t->nodes[kids[i]].next = i + 1 < m ? kids[i + 1] : 0;
        t->nodes[p].child = kids[0];
    }
    free(kids);
    return 0;
}

uint32_t chaintree_run_end(const struct chaintree *t, uint32_t at)
{
    const struct ct_node *v = &t->nodes[at];

    while (!v->hit && v->child && !t->nodes[v->child].next) {
        at = v->child;
        v = &t->nodes[at];
    }
    return at;
}
