/* SPDX-License-Identifier: MIT */
/* Block counts -> line counts. A line's count is how often control entered its blocks from
 * elsewhere: each block's count minus the transfers into it from blocks of the same line. A
 * transfer's count is the source block's count when it has one way out; for a conditional
 * branch, or a block entered only by branches, flow conservation (what enters a block leaves
 * it) gives the unknown edge once the others are known, as gcov solves its arcs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lines/lines.h"

struct edge {
    size_t from, to;
    uint64_t val;
    bool known;
};

static bool same_line(const struct lines_block *a, const struct lines_block *b)
{
    return a->line && a->line == b->line && a->file == b->file;
}

static int cmp_count(const void *x, const void *y)
{
    const struct lines_count *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

static bool reported(const struct lines_plan *p, unsigned file)
{
    if (!p->report_files.n)
        return true;
    for (size_t i = 0; i < p->report_files.n; i++)
        if (p->report_files.v[i] == file)
            return true;
    return false;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* Settles unknown edges by conservation until nothing changes. */
static void settle(const struct lines_plan *p, struct edge *ev, size_t ne, const size_t *out0,
                   const size_t *in_first, const size_t *in_list)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t b = 0; b < p->blocks.n; b++) {
            const struct lines_block *bl = &p->blocks.v[b];
            size_t o = out0[b];
            /* Both ways out of a conditional branch are in the function: count = sum. */
            if (bl->cond && bl->nsucc == 2 && ev[o].known != ev[o + 1].known) {
                struct edge *k = ev[o].known ? &ev[o] : &ev[o + 1];
                struct edge *u = ev[o].known ? &ev[o + 1] : &ev[o];
                u->val = sub0(bl->count, k->val);
                u->known = changed = true;
            }
            /* A block entered only by the branches seen: count = sum of what enters. */
            if (!bl->ext) {
                size_t unknown = 0, which = 0;
                uint64_t sum = 0;
                for (size_t i = in_first[b]; i < in_first[b + 1]; i++) {
                    const struct edge *e = &ev[in_list[i]];
                    if (e->known)
                        sum += e->val;
                    else {
                        unknown++;
                        which = in_list[i];
                    }
                }
                if (unknown == 1) {
                    ev[which].val = sub0(bl->count, sum);
                    ev[which].known = changed = true;
                }
            }
        }
    }
    (void)ne;
}

int lines_solve(const struct lines_plan *p, struct lines_count **outp, size_t *np)
{
    size_t nb = p->blocks.n, ne = 0, nout = 0;
    struct edge *ev = NULL;
    size_t *out0 = calloc(nb + 1, sizeof(size_t)), *in_first = calloc(nb + 2, sizeof(size_t));
    size_t *in_list = NULL;
    struct lines_count *res = NULL;
    int e = -ENOMEM;

    *outp = NULL;
    *np = 0;
    if (!out0 || !in_first)
        goto out;
    for (size_t b = 0; b < nb; b++)
        ne += p->blocks.v[b].nsucc;
    ev = calloc(ne + 1, sizeof(*ev));
    in_list = calloc(ne + 1, sizeof(size_t));
    res = calloc(nb + 1, sizeof(*res));
    if (!ev || !in_list || !res)
        goto out;
    ne = 0;
    for (size_t b = 0; b < nb; b++) {
        const struct lines_block *bl = &p->blocks.v[b];
        out0[b] = ne;
        for (unsigned s = 0; s < bl->nsucc; s++) {
            size_t to = lines_block_at(p, bl->succ[s]);
            ev[ne] = (struct edge){ .from = b, .to = to < nb ? to : b };
            /* One way out: everything that ran the block went there. */
            if (!bl->cond && bl->nsucc == 1) {
                ev[ne].val = bl->count;
                ev[ne].known = true;
            }
            if (to < nb)
                in_first[to + 1]++;
            else
                ev[ne].to = nb;   /* not a block start: ignored */
            ne++;
        }
    }
    out0[nb] = ne;
    for (size_t b = 0; b < nb; b++)
        in_first[b + 1] += in_first[b];
    {
        size_t *fill = calloc(nb + 1, sizeof(size_t));
        if (!fill)
            goto out;
        for (size_t i = 0; i < ne; i++)
            if (ev[i].to < nb)
                in_list[in_first[ev[i].to] + fill[ev[i].to]++] = i;
        free(fill);
    }
    settle(p, ev, ne, out0, in_first, in_list);

    for (size_t b = 0; b < nb; b++) {
        const struct lines_block *bl = &p->blocks.v[b];
        uint64_t inside = 0;
        bool approx = false;
        if (!bl->line || !reported(p, bl->file))
            continue;
        for (size_t i = in_first[b]; i < in_first[b + 1]; i++) {
            const struct edge *x = &ev[in_list[i]];
            if (!same_line(&p->blocks.v[x->from], bl))
                continue;
            if (x->known)
                inside += x->val;
            else
                approx = true;
        }
        res[nout++] = (struct lines_count){ .file = bl->file, .line = bl->line,
                                            .count = sub0(bl->count, inside),
                                            .approx = approx && bl->count > inside };
    }
    qsort(res, nout, sizeof(*res), cmp_count);
    /* One row per line: the sum over its blocks. */
    {
        size_t w = 0;
        for (size_t r = 0; r < nout; r++) {
            if (w && res[w - 1].file == res[r].file && res[w - 1].line == res[r].line) {
                res[w - 1].count += res[r].count;
                res[w - 1].approx |= res[r].approx;
            } else {
                res[w++] = res[r];
            }
        }
        nout = w;
    }
    *outp = res;
    *np = nout;
    res = NULL;
    e = 0;
out:
    free(res);
    free(ev);
    free(out0);
    free(in_first);
    free(in_list);
    return e;
}
