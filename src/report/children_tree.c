/* SPDX-License-Identifier: MIT */
/* One row's call chains below it, as perf prints them: the flat table (children.c) and the
 * hierarchy (children_hier.c) both hang them under their rows. */
#include <errno.h>
#include "callgraph/chaintree.h"
#include "report/callgraph_out.h"
#include "report/children_rows.h"
#include "util/obuf.h"

int children_print_tree(struct obuf *ob, const struct row *r, uint64_t total,
                        const struct cg_syms *cy, const struct children_opts *o)
{
    struct chain_print cp = { .params = o->chains, .total = total,
                              .entry = o->no_children ? r->self : r->children,
                              .skip_first = o->skip_first, .cy = cy };

    if (!r->tree)
        return 0;
    if (chaintree_sort(r->tree, cy))
        return -ENOMEM;
    chaingraph_print(ob, r->tree, &cp);
    return 0;
}
