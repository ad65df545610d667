/* SPDX-License-Identifier: MIT */
/* Caller and callee trees of one function, from distinct stacks and their symbols. Callees of
 * F: every stack through F, from F's outermost frame towards the leaf (what F spends its time
 * in). Callers of F: from F's innermost frame towards the outermost (who calls F). A recursive
 * F counts once per sample either way. */
#ifndef PROSPECT_CALLGRAPH_TREE_H
#define PROSPECT_CALLGRAPH_TREE_H
#include <stdbool.h>
#include <stdint.h>
#include "callgraph/resolve.h"

struct cg_node {
    uint32_t sym;             /* index in cg_syms.syms */
    uint32_t parent, child, next;   /* node indices; 0 = none (node 0 is the unnamed root) */
    uint64_t samples, period;
};

struct cg_tree {
    struct cg_node *nodes;    /* nodes[0]: root, its children the matching symbols */
    size_t n, cap;
};

/* Builds the tree of the symbols named `name` (every DSO's). callers: the callers' tree, else
 * the callees'. 0 or -ENOMEM; a name on no stack gives a root without children. */
int cg_tree_build(const struct cg_store *cs, const struct cg_syms *cy, const char *name,
                  bool callers, struct cg_tree *t);
void cg_tree_release(struct cg_tree *t);
/* Orders every node's children by period, largest first (ties: symbol index). 0 or -ENOMEM. */
int cg_tree_sort(struct cg_tree *t);
#endif
