/* SPDX-License-Identifier: MIT */
/* Which lines of optimized code keep a source-level count (docs/lines.md, "Optimized code").
 * gcov counts the program as written; the machine code of an -O2 unit may run a line's code
 * more or less often than the line runs. A line is taken as source-level only when its code
 * shows none of the signs of such a rewrite:
 * - its code in more than one function (inlined copies, clones);
 * - two of its blocks in one basic block (instructions of lines interleaved by scheduling);
 * - a cmov, setcc or packed vector instruction in the basic block (if-conversion, a
 *   vectorized loop);
 * - its line and column starting twice in one block (an unrolled loop), or other lines'
 *   statement rows stacked on its first address (whose code it is was lost);
 * - more than one of its blocks entered from other lines (a rotated loop's test copied above
 *   it, tail duplication);
 * - a jump back from it to a line written after it (a loop's test moved below the body).
 * A line of optimized code that never ran is marked too: its code may have run merged into
 * another line's (jump threading). The rule was checked against gcov at -O2 only (at -O1 and
 * -O3 it let a line through whose code was bypassed or lost in an inlined copy): a line with
 * code of a unit built at another level is marked. */
#include <errno.h>
#include <stdlib.h>
#include "lines/lines.h"

/* Blocks fallen into from the block before, with nothing else entering them, belong to its
 * basic block: bb[b] is the first block of b's. */
int lines_shape_build(const struct lines_plan *p, struct lines_shape *s)
{
    size_t nb = p->blocks.n;

    s->bb = malloc((nb + 1) * sizeof(size_t));
    s->bb_rewritten = calloc(nb + 1, sizeof(bool));
    if (!s->bb || !s->bb_rewritten) {
        lines_shape_release(s);
        return -ENOMEM;
    }
    for (size_t b = 0; b < nb; b++) {
        const struct lines_block *bl = &p->blocks.v[b], *pr = b ? &p->blocks.v[b - 1] : NULL;
        bool cont = pr && bl->fall_in && pr->end == bl->start && pr->func == bl->func &&
                    pr->nsucc == 1 && !pr->cond && pr->succ[0] == bl->start;
        s->bb[b] = cont ? s->bb[b - 1] : b;
    }
    for (size_t b = 0; b < nb; b++)
        s->bb_rewritten[s->bb[b]] |= p->blocks.v[b].select || p->blocks.v[b].packed;
    return 0;
}

void lines_shape_release(struct lines_shape *s)
{
    free(s->bb);
    free(s->bb_rewritten);
    *s = (struct lines_shape){ 0 };
}

static bool same_line(const struct lines_block *a, const struct lines_block *b)
{
    return a->line == b->line && a->file == b->file;
}

/* Does block b jump back to code placed before it, of a line written after b's (a loop's
 * test moved below its body: the entry into the loop no longer passes through it)? A jump
 * back to an earlier line (the end of a body to the loop's head, a tail call made a loop)
 * keeps the source's count: each turn enters the head once, as each call would. */
static bool jumps_back(const struct lines_plan *p, const struct lines_arcs *a, size_t b)
{
    const struct lines_block *bl = &p->blocks.v[b];
    for (size_t i = a->out_first[b]; i < a->out_first[b + 1]; i++) {
        size_t to = a->v[i].to;
        if (to < p->blocks.n && !same_line(&p->blocks.v[to], bl) &&
            p->blocks.v[to].start <= bl->start && p->blocks.v[to].file == bl->file &&
            p->blocks.v[to].line > bl->line)
            return true;
    }
    return false;
}

/* Is block b entered from code of another line, or from outside the function (no arc in)? */
static bool entered_from_elsewhere(const struct lines_plan *p, const struct lines_arcs *a,
                                   size_t b)
{
    const struct lines_block *bl = &p->blocks.v[b];
    bool other = a->in_first[b] == a->in_first[b + 1] || bl->ext;

    for (size_t i = a->in_first[b]; i < a->in_first[b + 1]; i++) {
        const struct lines_block *from = &p->blocks.v[a->v[a->in_list[i]].from];
        other |= !same_line(from, bl);
    }
    return other;
}

bool lines_source_level(const struct lines_plan *p, const struct lines_arcs *a,
                        const struct lines_shape *s, const size_t *blk, size_t k)
{
    size_t heads = 0;

    for (size_t j = 0; j < k; j++) {
        const struct lines_block *bl = &p->blocks.v[blk[j]];
        if (!bl->per_line || bl->func != p->blocks.v[blk[0]].func ||
            s->bb_rewritten[s->bb[blk[j]]] || bl->stacked || bl->restarts ||
            jumps_back(p, a, blk[j]))
            return false;
        for (size_t i = 0; i < j; i++)
            if (s->bb[blk[i]] == s->bb[blk[j]])
                return false;
        heads += entered_from_elsewhere(p, a, blk[j]);
    }
    return heads <= 1;
}
