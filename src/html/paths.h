/* SPDX-License-Identifier: MIT */
/* The call paths the HTML page draws every view from: a stack's command then its frames,
 * outermost first, merged by name and kind as the flame graph merges them (flame/flametree.h),
 * one node per distinct path; each stack of the store becomes (process, node, weight), equal
 * pairs added up. The page aggregates any selection of stacks over these nodes in one pass. */
#ifndef PROSPECT_HTML_PATHS_H
#define PROSPECT_HTML_PATHS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "flame/strtab.h"

#define HTML_COMM_BIT 0x80000000u  /* node.what: a command name (strtab index), not a symbol */
#define HTML_NO_NODE UINT32_MAX

struct html_node {
    uint32_t parent;          /* node index, 0: the root (node 0) */
    uint32_t what;            /* the first symbol met on this path, or HTML_COMM_BIT | name */
};

struct html_stack {
    uint32_t proc;            /* index in html_paths.procs */
    uint32_t node;            /* the leaf's node */
    uint64_t weight;          /* samples, or the period (off-CPU: ns) */
    uint64_t period;          /* the samples' period (a clock event's: ns) */
};

struct html_paths {
    struct html_node *nodes;
    size_t n, cap;
    struct html_stack *stacks;
    size_t nstacks;
    const struct process **procs;   /* in order of first appearance */
    uint32_t *proc_comm;      /* each process's command: index in strs */
    size_t nprocs;
    struct strtab strs;       /* names, DSOs, commands: the page's string table */
    uint32_t *sym_name, *sym_dso;   /* per symbol of cg_syms: index in strs */
    uint32_t *cs_proc, *cs_node;    /* per stack of the store: its process and leaf node
                                       (HTML_NO_NODE: a stack without frames) */
    struct html_edge *edges;  /* (parent, name, kind) -> node: the merge lookup */
    size_t edges_cap;
};

/* Builds p from cs (symbolized by cy); by_period: weights are periods. 0 or -ENOMEM. */
int html_paths_build(struct html_paths *p, const struct cg_store *cs, const struct cg_syms *cy,
                     bool by_period);
void html_paths_release(struct html_paths *p);
#endif
