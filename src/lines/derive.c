/* SPDX-License-Identifier: MIT */
/* Blocks that need no probe. A block B entered only by transfers inside its function, each
 * from a block P with one way out (a jump or a fall-through, no condition), runs exactly
 * count(P1) + count(P2) + ... times, when no P holds a call (fork returns twice). Decided
 * in address order; the blocks a derived block is summed from are frozen as they are at that
 * moment (probed, or derived earlier), so the sums can be computed in decision order and
 * never depend on themselves. */
#include <errno.h>
#include <stdlib.h>
#include "lines/lines.h"

/* Predecessor lists (CSR): preds of b are list[first[b] .. first[b + 1]). */
struct preds {
    size_t *first, *list;
};

static int preds_build(const struct lines_plan *p, struct preds *pr)
{
    size_t nb = p->blocks.n, ne = 0, *fill;
    for (size_t b = 0; b < nb; b++)
        ne += p->blocks.v[b].nsucc;
    pr->first = calloc(nb + 2, sizeof(size_t));
    pr->list = calloc(ne + 1, sizeof(size_t));
    fill = calloc(nb + 1, sizeof(size_t));
    if (!pr->first || !pr->list || !fill) {
        free(fill);
        return -ENOMEM;
    }
    for (size_t b = 0; b < nb; b++)
        for (unsigned s = 0; s < p->blocks.v[b].nsucc; s++) {
            size_t t = lines_block_at(p, p->blocks.v[b].succ[s]);
            if (t < nb)
                pr->first[t + 1]++;
        }
    for (size_t b = 0; b < nb; b++)
        pr->first[b + 1] += pr->first[b];
    for (size_t b = 0; b < nb; b++)
        for (unsigned s = 0; s < p->blocks.v[b].nsucc; s++) {
            size_t t = lines_block_at(p, p->blocks.v[b].succ[s]);
            if (t < nb)
                pr->list[pr->first[t] + fill[t]++] = b;
        }
    free(fill);
    return 0;
}

static void preds_free(struct preds *pr)
{
    free(pr->first);
    free(pr->list);
}

/* One way out, and every start of the block gets there exactly once: no call inside (fork
 * returns twice, exit never). */
static bool one_way_out(const struct lines_block *b)
{
    return !b->cond && b->nsucc == 1 && !b->call;
}

/* Loop nesting per block: how many backward branches' ranges [target, branch] hold it. */
static int loop_depth(const struct lines_plan *p, unsigned **out)
{
    unsigned *d = calloc(p->blocks.n + 1, sizeof(unsigned));
    if (!d)
        return -ENOMEM;
    for (size_t b = 0; b < p->blocks.n; b++)
        for (unsigned s = 0; s < p->blocks.v[b].nsucc; s++) {
            size_t t = lines_block_at(p, p->blocks.v[b].succ[s]);
            if (t > b || t >= p->blocks.n)
                continue;
            for (size_t k = t; k <= b; k++)
                d[k]++;
        }
    *out = d;
    return 0;
}

static const unsigned *depth_for_sort;

static int by_depth(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    if (depth_for_sort[a] != depth_for_sort[b])
        return depth_for_sort[a] > depth_for_sort[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

int lines_derive(struct lines_plan *p)
{
    size_t nb = p->blocks.n;
    struct preds pr = { 0 };
    bool *frozen = calloc(nb + 1, sizeof(bool));
    int e = -ENOMEM;

    if (!frozen || preds_build(p, &pr))
        goto out;
    p->probed.n = p->derive_order.n = 0;
    for (size_t b = 0; b < nb; b++) {
        struct lines_block *bl = &p->blocks.v[b];
        bool ok = !bl->ext && !frozen[b] && pr.first[b + 1] > pr.first[b];
        for (size_t i = pr.first[b]; ok && i < pr.first[b + 1]; i++) {
            size_t from = pr.list[i];
            ok = from != b && one_way_out(&p->blocks.v[from]);
        }
        if (!ok)
            continue;
        bl->derived = true;
        frozen[b] = true;
        for (size_t i = pr.first[b]; i < pr.first[b + 1]; i++)
            frozen[pr.list[i]] = true;
        if (vec_push(&p->derive_order, b))
            goto out;
    }
    for (size_t b = 0; b < nb; b++)
        if (!p->blocks.v[b].derived && vec_push(&p->probed, b))
            goto out;
    /* Probes in loops first, innermost first: jump entries (cheap hits) are limited to 256 a
     * run and go to the first probes that can take one. */
    {
        unsigned *depth;
        if (loop_depth(p, &depth))
            goto out;
        depth_for_sort = depth;
        qsort(p->probed.v, p->probed.n, sizeof(size_t), by_depth);
        depth_for_sort = NULL;
        free(depth);
    }
    e = 0;
out:
    free(frozen);
    preds_free(&pr);
    return e;
}

int lines_fill_derived(struct lines_plan *p)
{
    struct preds pr = { 0 };
    if (preds_build(p, &pr)) {
        preds_free(&pr);
        return -ENOMEM;
    }
    for (size_t k = 0; k < p->derive_order.n; k++) {
        size_t b = p->derive_order.v[k];
        uint64_t sum = 0;
        for (size_t i = pr.first[b]; i < pr.first[b + 1]; i++)
            sum += p->blocks.v[pr.list[i]].count;
        p->blocks.v[b].count = sum;
    }
    preds_free(&pr);
    return 0;
}
