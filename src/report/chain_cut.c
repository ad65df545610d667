/* SPDX-License-Identifier: MIT */
/* perf's --ignore-callees and --parent on the stacks of the Children/Self table. */
#include <errno.h>
#include <stdlib.h>
#include "report/chain_cut.h"

int chain_cut_init(struct chain_cut *c, const struct cg_syms *cy, const regex_t *re)
{
    c->match = NULL;
    if (!re)
        return 0;
    if (!(c->match = calloc(cy->nsyms ? cy->nsyms : 1, 1)))
        return -ENOMEM;
    for (size_t i = 0; i < cy->nsyms; i++) {
        const struct cg_sym *s = &cy->syms[i];
        c->match[i] = s->name && !s->bracket && !regexec(re, s->name, 0, NULL, 0);
    }
    return 0;
}

void chain_cut_release(struct chain_cut *c)
{
    free(c->match);
    c->match = NULL;
}

void chain_cut_apply(const struct chain_cut *c, const uint32_t *fs, long n, bool callee,
                     long *from, long *kept, uint32_t *self)
{
    long m = -1;

    *from = 0;
    *kept = n;
    *self = n ? fs[0] : 0;
    if (!c->match)
        return;
    for (long k = 0; k < n; k++)
        if (c->match[fs[k]] && (callee || m < 0))
            m = k;   /* callee: the last (outermost); caller: the first (innermost) */
    if (m < 0)
        return;
    *self = fs[m];
    if (callee) {
        *from = m;
        *kept = n - m;
    } else {
        *kept = m + 1;
    }
}

uint32_t chain_cut_parent(const struct chain_cut *c, const uint32_t *fs, long n, bool callee)
{
    for (long j = 0; c->match && j < n; j++) {
        long k = callee ? j : n - 1 - j;
        if (c->match[fs[k]])
            return fs[k];
    }
    return CHAIN_NO_PARENT;
}
