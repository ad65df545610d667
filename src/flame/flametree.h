/* SPDX-License-Identifier: MIT */
/* The tree a flame graph draws: call stacks merged from the root (every sample) through the
 * command name to the leaf, one node per distinct path of frame names. Built from a cg_store
 * (callgraph/stacks.h) once its frames are symbolized; two values per node so a differential
 * graph holds the new profile and the baseline in one tree. */
#ifndef PROSPECT_FLAME_FLAMETREE_H
#define PROSPECT_FLAME_FLAMETREE_H
#include <stdbool.h>
#include <stdint.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "flame/strtab.h"

/* What a frame is, for its colour. */
enum flame_kind { FLAME_ROOT, FLAME_COMM, FLAME_USER, FLAME_KERNEL, FLAME_INLINED,
                  FLAME_BRACKET };

struct flame_node {
    uint32_t name;            /* index in flame_tree.names */
    uint32_t parent, child, next;   /* node indices, 0 = none (node 0 is the root) */
    uint8_t kind;             /* enum flame_kind */
    uint64_t value[2];        /* samples of the profile [0] and of the baseline [1] (diff) */
};

struct flame_edge {           /* (parent, name, kind) -> child: the merge lookup */
    uint32_t parent, name, node;    /* node 0: empty slot */
    uint8_t kind;
};

struct flame_tree {
    struct flame_node *nodes;
    size_t n, cap;
    struct strtab names;
    struct flame_edge *edges;
    size_t edges_cap;
    uint32_t depth;           /* of the deepest node (the root is 0) */
    bool by_period;           /* values are the stacks' periods (off-CPU: ns), not samples */
};

int flame_tree_init(struct flame_tree *t);
void flame_tree_release(struct flame_tree *t);

/* Adds every stack of cs into value[which]: comm first, then the frames outermost first, or
 * (inverted) the leaf first and the command last. 0 or -ENOMEM. */
int flame_tree_add_store(struct flame_tree *t, const struct cg_store *cs,
                         const struct cg_syms *cy, bool inverted, int which);
/* Orders every node's children by name (as flamegraph.pl: stable across profiles, which
 * lets two graphs be compared by eye). 0 or -ENOMEM. */
int flame_tree_sort(struct flame_tree *t);

/* The kind of a symbolized frame. */
enum flame_kind flame_sym_kind(const struct cg_sym *s);
#endif
