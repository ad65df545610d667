/* Reports of call stacks (callgraph/stacks.h): FlameGraph's folded stacks and perf's
 * Children/Self table. */
#ifndef PROSPECT_REPORT_CALLGRAPH_OUT_H
#define PROSPECT_REPORT_CALLGRAPH_OUT_H
#include <stdbool.h>
#include <stdio.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"

/* One line per distinct stack, "comm;outer;...;leaf COUNT" (samples), sorted as
 * stackcollapse-perf.pl sorts them; kernel frames end in "_[k]". 0 or -ENOMEM/-EIO. */
int report_folded(FILE *f, const struct cg_store *cs, const struct cg_syms *cy);

struct children_opts {
    const char *event;        /* for the header, may be NULL */
    uint64_t total_period;    /* the 100% (every sample of the event, before --pid/--comm/...
                                 filters, as perf's absolute percentages); 0: the kept ones */
    double percent_limit;     /* hide rows whose Children is below */
    bool show_nr_samples;
    bool by_comm;             /* rows per (command, DSO, symbol), perf's default sort */
    bool wide;                /* no eliding to 100 columns */
};

/* perf's --children table: per ([command,] DSO, symbol), the share of the period of the
 * samples whose stack holds it (once per sample, however deep it recurses) and of those where
 * it is the leaf; sorted by Children, then Self. 0 or -ENOMEM/-EIO. */
int report_children(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct children_opts *o);

/* The callers' (o->callers) or callees' tree of the function `name` (callgraph/tree.h), one
 * line per node: its share of the period, indented by depth, the name ("[k]" marks the
 * kernel); children by share, nodes under --percent-limit hidden with their subtrees.
 * -ENOENT when no stack holds `name` (nothing printed), else 0, -ENOMEM or -EIO. */
struct calltree_opts {
    const char *name;
    bool callers;
    double percent_limit;
    uint64_t total_period;    /* as in children_opts */
    bool wide;
};
int report_calltree(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct calltree_opts *o);
#endif
