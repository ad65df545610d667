/* SPDX-License-Identifier: MIT */
/* Block counts -> arc counts. An arc is a transfer between two blocks of one function (a
 * branch's target or a fall-through). A block with one way out gives its count to its arc;
 * flow conservation (what enters a block leaves it) gives an unknown arc once the others at
 * one of its ends are known: the other side of a conditional branch, or the only unknown arc
 * into a block entered by branches only. This is how gcov solves its arc counts from the
 * counters it places; an arc no conservation reaches stays unknown (known = false). */
#include <errno.h>
#include <stdlib.h>
#include "lines/lines.h"

static uint64_t sub0(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* Both ways out of a conditional branch are in the function: count = their sum. */
static bool settle_out(const struct lines_block *bl, struct lines_arc *o)
{
    if (!bl->cond || bl->nsucc != 2 || o[0].known == o[1].known)
        return false;
    struct lines_arc *k = o[0].known ? &o[0] : &o[1], *u = o[0].known ? &o[1] : &o[0];
    u->count = sub0(bl->count, k->count);
    u->known = true;
    u->assumed = k->assumed;
    return true;
}

/* A block entered only by the arcs seen: count = sum of what enters. */
static bool settle_in(const struct lines_plan *p, struct lines_arcs *a, size_t b)
{
    size_t unknown = 0, which = 0;
    uint64_t sum = 0;
    bool assumed = false;

    if (p->blocks.v[b].ext)
        return false;
    for (size_t i = a->in_first[b]; i < a->in_first[b + 1]; i++) {
        const struct lines_arc *e = &a->v[a->in_list[i]];
        if (e->known) {
            sum += e->count;
            assumed |= e->assumed;
        } else {
            unknown++;
            which = a->in_list[i];
        }
    }
    if (unknown != 1)
        return false;
    a->v[which].count = sub0(p->blocks.v[b].count, sum);
    a->v[which].known = true;
    a->v[which].assumed = assumed;
    return true;
}

/* One way out after a call: what the code after it counts, when conservation reaches it;
 * else the call is taken to return once, as a block without a call would. */
static bool one_way_after_call(const struct lines_block *bl)
{
    return bl->call && !bl->cond && bl->nsucc == 1;
}

static bool assume_returns(const struct lines_plan *p, struct lines_arcs *a)
{
    bool any = false;
    for (size_t b = 0; b < p->blocks.n; b++) {
        struct lines_arc *e = &a->v[a->out_first[b]];
        if (!one_way_after_call(&p->blocks.v[b]) || e->known)
            continue;
        *e = (struct lines_arc){ .from = e->from, .to = e->to, .count = p->blocks.v[b].count,
                                 .known = true, .assumed = true };
        any = true;
    }
    return any;
}

static void settle(const struct lines_plan *p, struct lines_arcs *a)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t b = 0; b < p->blocks.n; b++) {
            changed |= settle_out(&p->blocks.v[b], &a->v[a->out_first[b]]);
            changed |= settle_in(p, a, b);
        }
    }
}

/* The arcs out of each block, in succ order; an arc to an address that starts no block
 * (out of the function) gets to = blocks.n. */
static int arcs_list(const struct lines_plan *p, struct lines_arcs *a)
{
    size_t nb = p->blocks.n, ne = 0;
    for (size_t b = 0; b < nb; b++)
        ne += p->blocks.v[b].nsucc;
    a->v = calloc(ne + 1, sizeof(*a->v));
    a->out_first = calloc(nb + 1, sizeof(size_t));
    a->in_first = calloc(nb + 2, sizeof(size_t));
    a->in_list = calloc(ne + 1, sizeof(size_t));
    if (!a->v || !a->out_first || !a->in_first || !a->in_list)
        return -ENOMEM;
    for (size_t b = 0; b < nb; b++) {
        const struct lines_block *bl = &p->blocks.v[b];
        a->out_first[b] = a->n;
        for (unsigned s = 0; s < bl->nsucc; s++) {
            struct lines_arc *e = &a->v[a->n++];
            *e = (struct lines_arc){ .from = b, .to = lines_block_at(p, bl->succ[s]) };
            /* One way out: everything that ran the block went there (after a call, what
             * returned: settled below). */
            if (!bl->cond && bl->nsucc == 1 && !bl->call) {
                e->count = bl->count;
                e->known = true;
            }
            if (e->to < nb)
                a->in_first[e->to + 1]++;
        }
    }
    a->out_first[nb] = a->n;
    return 0;
}

static int arcs_index_in(const struct lines_plan *p, struct lines_arcs *a)
{
    size_t nb = p->blocks.n, *fill = calloc(nb + 1, sizeof(size_t));
    if (!fill)
        return -ENOMEM;
    for (size_t b = 0; b < nb; b++)
        a->in_first[b + 1] += a->in_first[b];
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].to < nb)
            a->in_list[a->in_first[a->v[i].to] + fill[a->v[i].to]++] = i;
    free(fill);
    return 0;
}

int lines_arcs_solve(const struct lines_plan *p, struct lines_arcs *a)
{
    int e;
    *a = (struct lines_arcs){ 0 };
    if ((e = arcs_list(p, a)) || (e = arcs_index_in(p, a))) {
        lines_arcs_release(a);
        return e;
    }
    settle(p, a);
    if (assume_returns(p, a))
        settle(p, a);
    return 0;
}

void lines_arcs_release(struct lines_arcs *a)
{
    free(a->v);
    free(a->out_first);
    free(a->in_first);
    free(a->in_list);
    *a = (struct lines_arcs){ 0 };
}
