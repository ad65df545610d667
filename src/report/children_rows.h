/* SPDX-License-Identifier: MIT */
/* The rows of perf's Children/Self table (children.c) and their machine-readable forms
 * (children_export.c). */
#ifndef PROSPECT_REPORT_CHILDREN_ROWS_H
#define PROSPECT_REPORT_CHILDREN_ROWS_H
#include <stdint.h>
#include <stdio.h>
#include "callgraph/chaintree.h"
#include "report/callgraph_out.h"

struct row {
    const char *comm;         /* by_comm: the command; by_pid: "PID:comm"; else NULL */
    int32_t pid, tid;         /* by_pid: the process (and by_tid, the thread) of the row */
    uint32_t sym;
    uint32_t parent;          /* --parent: its parent symbol, or CHAIN_NO_PARENT ("[other]") */
    uint32_t seen;            /* the last stack (+1) that counted it: once per sample */
    uint32_t chain_seen;      /* the last stack (+1) that gave it a chain */
    uint64_t children, self, samples, self_samples;
    struct chaintree *tree;   /* its call chains, when they are printed */
};

/* The rows as csv or json (o->fmt), each with its chains when o->chains asks for them: one
 * per chain end, its share (the period ending there) and its frames in the chains' order,
 * hidden below the threshold as perf's flat and folded modes hide them. 0, -ENOMEM, -EIO. */
int children_export(FILE *f, const struct row *const *rows, size_t n, uint64_t total,
                    const struct cg_syms *cy, const struct children_opts *o);
/* Row r's call chains below it, as perf prints them (children_tree.c). 0 or -ENOMEM. */
int children_print_tree(struct obuf *ob, const struct row *r, uint64_t total,
                        const struct cg_syms *cy, const struct children_opts *o);

/* perf's --hierarchy (children_hier.c): the rows with a Self share as a tree of o->levels,
 * each node's Overhead the sum of its rows', the chains below the last level; samples for the
 * header. 0, -ENOMEM, -EIO. */
int children_hierarchy(FILE *f, const struct row *rows, size_t n, uint64_t samples,
                       uint64_t total, const struct cg_syms *cy, const struct children_opts *o);
#endif
