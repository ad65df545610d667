/* SPDX-License-Identifier: MIT */
/* A function's calls, returns and blocks run, for gcov's function lines (.gcov, JSON). */
#include "lines/lines.h"

void lines_func_summary(const struct lines_plan *p, const struct lines_arcs *a, size_t fi,
                        struct lines_func_sum *s)
{
    size_t entry = lines_block_at(p, p->funcs.v[fi].start);

    *s = (struct lines_func_sum){ .entry = entry };
    if (entry < p->blocks.n) {
        /* A jump back to the entry (a tail call made a loop) is no call. */
        s->calls = p->blocks.v[entry].count;
        for (size_t i = a->in_first[entry]; i < a->in_first[entry + 1]; i++) {
            uint64_t in = a->v[a->in_list[i]].count;
            s->calls -= s->calls >= in ? in : s->calls;
        }
    }
    for (size_t b = 0; b < p->blocks.n; b++) {
        const struct lines_block *bl = &p->blocks.v[b];
        if (bl->func != fi)
            continue;
        s->blocks++;
        s->run += bl->count > 0;
        if (bl->returns)
            s->returns += bl->count;
    }
}
