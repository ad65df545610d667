/* SPDX-License-Identifier: MIT */
/* The call chains of one report row, as perf's report keeps them under each entry: a trie of
 * symbol chains, each node with the period of the chains that end there (hit) and of every
 * chain through it (cumul). perf's radix nodes are runs of this trie's nodes that neither
 * branch nor end a chain (chaintree_run_end). */
#ifndef PROSPECT_CALLGRAPH_CHAINTREE_H
#define PROSPECT_CALLGRAPH_CHAINTREE_H
#include <stddef.h>
#include <stdint.h>
#include "callgraph/resolve.h"

struct ct_node {
    uint32_t sym;             /* index in cg_syms.syms */
    uint32_t parent, child, next;   /* node indices; 0 = none (node 0 is the root) */
    uint64_t hit, cumul;
};

struct chaintree {
    struct ct_node *nodes;
    size_t n, cap;
};

/* An empty tree (its root). 0 or -ENOMEM. */
int chaintree_init(struct chaintree *t);
void chaintree_release(struct chaintree *t);
/* Adds the chain syms[from], syms[from + step], ... up to n entries, weighted by period.
 * 0 or -ENOMEM. */
int chaintree_add(struct chaintree *t, const uint32_t *syms, long from, long step, size_t n,
                  uint64_t period);
/* Orders every node's children by cumul, largest first; ties as perf orders them: symbols of
 * one DSO by address, highest first, others by symbol index. 0 or -ENOMEM. */
int chaintree_sort(struct chaintree *t, const struct cg_syms *cy);
/* The last node of the radix node starting at `at`: followed down while a node has one
 * child and no chain ends there. */
uint32_t chaintree_run_end(const struct chaintree *t, uint32_t at);
#endif
