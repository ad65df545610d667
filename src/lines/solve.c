/* SPDX-License-Identifier: MIT */
/* Arc counts -> line counts, as gcov computes them (gcc's gcov.cc, accumulate_line_info): a
 * line's count is the sum of the arcs entering its blocks from elsewhere (another line, a
 * call into the function), plus the counts of the loops inside the line's own graph of
 * blocks. The loops are found as gcov finds them: each elementary cycle of the line's
 * blocks (arcs between two of them), taken from each block in turn, adds the smallest count
 * left on its arcs and takes it off them. So `for (i = 0; i < n; i++) s += i;` on one line
 * counts 1 + n, `while (p[n]) n++;` its iterations plus 1. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lines/lines.h"

/* Bounds the search for cycles in one line (a line of -O2 code can hold many blocks): past
 * it the count is flagged as not exact. */
#define CYCLE_STEPS 200000

struct cycles {
    const struct lines_plan *p;
    const struct lines_arcs *a;
    struct lines_shape shape;
    size_t *local;              /* block -> its index in the line's blocks, or SIZE_MAX */
    int64_t *cs;                /* per arc: what is left of its count for cycles */
    size_t *path;               /* arcs of the path being walked */
    bool *onpath;               /* per local block */
    size_t depth, steps;
    uint64_t count;
};

static bool same_line(const struct lines_block *a, const struct lines_block *b)
{
    return a->line && a->line == b->line && a->file == b->file;
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

/* Is block b, before bl, another line's code that bl's line was left for and goes on
 * from: b entered only by falling in from a block of bl's line (a statement split around a
 * call of another line, as `return r + g.id;` around a destructor's call on the `}`)? gcc's
 * one block holds both parts: gcov counts one entry, not a second one on coming back. A
 * loop's way back to its line (backwards) is no detour. */
static bool detour(const struct lines_plan *p, size_t b, const struct lines_block *bl)
{
    return b > 0 && p->blocks.v[b].fall_in && p->blocks.v[b].start < bl->start &&
           same_line(&p->blocks.v[b - 1], bl);
}

/* A cycle closed: it ran as often as its least-run arc has left. */
static void take_cycle(struct cycles *c)
{
    int64_t least = INT64_MAX;
    for (size_t i = 0; i < c->depth; i++)
        if (c->cs[c->path[i]] < least)
            least = c->cs[c->path[i]];
    if (least <= 0)
        return;
    c->count += (uint64_t)least;
    for (size_t i = 0; i < c->depth; i++)
        c->cs[c->path[i]] -= least;
}

/* Elementary cycles through block `start` (a local index) via blocks of higher index. */
static void circuit(struct cycles *c, size_t v, size_t start)
{
    const struct lines_arcs *a = c->a;
    c->onpath[c->local[v]] = true;
    for (size_t i = a->out_first[v]; i < a->out_first[v + 1]; i++) {
        size_t w = a->v[i].to;
        if (w >= c->p->blocks.n || c->local[w] == SIZE_MAX || c->local[w] < start ||
            c->cs[i] <= 0)
            continue;
        c->path[c->depth++] = i;
        if (c->local[w] == start)
            take_cycle(c);
        else if (!c->onpath[c->local[w]] && c->steps++ < CYCLE_STEPS)
            circuit(c, w, start);
        c->depth--;
    }
    c->onpath[c->local[v]] = false;
}

/* One line (its blocks blk[0..k)): entries from elsewhere plus its loops. */
static struct lines_count line_count(struct cycles *c, const size_t *blk, size_t k)
{
    const struct lines_plan *p = c->p;
    const struct lines_arcs *a = c->a;
    const struct lines_block *first = &p->blocks.v[blk[0]];
    struct lines_count r = { .file = first->file, .line = first->line };

    for (size_t j = 0; j < k; j++) {
        const struct lines_block *bl = &p->blocks.v[blk[j]];
        uint64_t inside = 0;
        for (size_t i = a->in_first[blk[j]]; i < a->in_first[blk[j] + 1]; i++) {
            const struct lines_arc *x = &a->v[a->in_list[i]];
            if (!same_line(&p->blocks.v[x->from], bl) && !detour(p, x->from, bl))
                continue;
            if (x->known)
                inside += x->count;
            else
                r.approx = true;
        }
        r.count += sub0(bl->count, inside);
        r.optimized |= bl->optimized;
    }
    c->count = 0;
    c->steps = 0;
    for (size_t j = 0; j < k; j++)
        circuit(c, blk[j], j);
    r.count += c->count;
    r.approx |= c->steps >= CYCLE_STEPS;
    /* Optimized code that never ran may have run merged into another line's: marked too. */
    if (r.optimized)
        r.optimized = !r.count || !lines_source_level(p, a, &c->shape, blk, k);
    return r;
}

static const struct lines_plan *plan_for_sort;

static int by_line(const void *x, const void *y)
{
    const struct lines_block *a = &plan_for_sort->blocks.v[*(const size_t *)x];
    const struct lines_block *b = &plan_for_sort->blocks.v[*(const size_t *)y];
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* The reported blocks with a line, grouped by (file, line), in address order within one. */
static size_t blocks_by_line(const struct lines_plan *p, size_t *order)
{
    size_t n = 0;
    for (size_t b = 0; b < p->blocks.n; b++)
        if (p->blocks.v[b].line && reported(p, p->blocks.v[b].file))
            order[n++] = b;
    plan_for_sort = p;
    qsort(order, n, sizeof(size_t), by_line);
    plan_for_sort = NULL;
    return n;
}

static int cycles_init(struct cycles *c, const struct lines_plan *p, const struct lines_arcs *a)
{
    size_t nb = p->blocks.n;
    size_t *local = malloc((nb + 1) * sizeof(size_t));
    *c = (struct cycles){ .p = p, .a = a, .local = local };
    c->cs = calloc(a->n + 1, sizeof(int64_t));
    c->path = calloc(nb + 1, sizeof(size_t));
    c->onpath = calloc(nb + 1, sizeof(bool));
    if (!local || !c->cs || !c->path || !c->onpath || lines_shape_build(p, &c->shape))
        return -ENOMEM;
    for (size_t b = 0; b < nb; b++)
        local[b] = SIZE_MAX;
    for (size_t i = 0; i < a->n; i++)
        c->cs[i] = a->v[i].known && a->v[i].count <= INT64_MAX ? (int64_t)a->v[i].count : 0;
    return 0;
}

static void cycles_free(struct cycles *c)
{
    free(c->local);
    free(c->cs);
    free(c->path);
    free(c->onpath);
    lines_shape_release(&c->shape);
}

static int solve_lines(const struct lines_plan *p, const struct lines_arcs *a,
                       struct lines_count *res, size_t *nout)
{
    struct cycles c = { 0 };
    size_t *order = malloc((p->blocks.n + 1) * sizeof(size_t)), n;
    int e = -ENOMEM;

    if (!order || cycles_init(&c, p, a))
        goto out;
    n = blocks_by_line(p, order);
    for (size_t i = 0, j; i < n; i = j) {
        size_t *local = c.local;
        for (j = i + 1; j < n && same_line(&p->blocks.v[order[j]], &p->blocks.v[order[i]]); j++)
            ;
        for (size_t k = i; k < j; k++)
            local[order[k]] = k - i;
        res[(*nout)++] = line_count(&c, order + i, j - i);
        for (size_t k = i; k < j; k++)
            local[order[k]] = SIZE_MAX;
    }
    e = 0;
out:
    cycles_free(&c);
    free(order);
    return e;
}

int lines_solve(const struct lines_plan *p, struct lines_count **outp, size_t *np)
{
    struct lines_arcs a;
    struct lines_count *res = calloc(p->blocks.n + 1, sizeof(*res));
    size_t n = 0;
    int e;

    *outp = NULL;
    *np = 0;
    if (!res)
        return -ENOMEM;
    if ((e = lines_arcs_solve(p, &a))) {
        free(res);
        return e;
    }
    e = solve_lines(p, &a, res, &n);
    lines_arcs_release(&a);
    if (e) {
        free(res);
        return e;
    }
    *outp = res;
    *np = n;
    return 0;
}
