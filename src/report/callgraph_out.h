/* SPDX-License-Identifier: MIT */
/* Reports of call stacks (callgraph/stacks.h): FlameGraph's folded stacks and perf's
 * Children/Self table. */
#ifndef PROSPECT_REPORT_CALLGRAPH_OUT_H
#define PROSPECT_REPORT_CALLGRAPH_OUT_H
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "report/chaingraph.h"
#include "report/format.h"

/* One line per distinct stack, "comm;outer;...;leaf COUNT" (samples), sorted as
 * stackcollapse-perf.pl sorts them; kernel frames end in "_[k]". 0 or -ENOMEM/-EIO. */
int report_folded(FILE *f, const struct cg_store *cs, const struct cg_syms *cy);
/* The same; by_period: each line's weight is the period (off-CPU: ns), not the samples. */
int report_folded_weighted(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                           bool by_period);

struct thread_tally;

struct children_opts {
    const char *event;        /* for the header, may be NULL */
    uint64_t total_period;    /* the 100% (every sample of the event, before --pid/--comm/...
                                 filters, as perf's absolute percentages); 0: the kept ones */
    double percent_limit;     /* hide rows whose Children is below */
    bool show_nr_samples;
    bool by_comm;             /* rows per (command, DSO, symbol), perf's default sort */
    bool by_pid;              /* rows per (process, DSO, symbol), shown "PID:comm" (--sort pid) */
    bool by_tid;              /* with by_pid: per thread instead, "TID:comm" (--sort tid: the
                                 store's stacks are per thread, cg_store.per_thread) */
    const struct thread_tally *threads;   /* by_tid: the threads' names, or NULL */
    bool no_dso;              /* --sort sym: no Shared Object column */
    bool no_children;         /* perf's --no-children: Overhead (Self) rows, their own chains */
    bool wide;                /* no eliding to 100 columns */
    const struct chain_params *chains;   /* the trees under the rows (report/chaingraph.h);
                                            NULL or CHAIN_NONE: none */
    bool skip_first;          /* the sort starts with sym: the tree's root is not repeated */
    const char *symbols;      /* -S: only rows of these symbols (comma-separated), or NULL */
    enum report_format fmt;   /* text, csv or json (children_export.c) */
    const regex_t *ignore_callees;   /* perf's --ignore-callees (report/chain_cut.h), or NULL */
    const regex_t *parent;    /* perf's --parent: rows per parent too, its column; or NULL */
    bool parent_first;        /* --sort parent,...: the Parent symbol column first, not last */
    bool no_sym;              /* --sort parent[,comm|pid]: rows per parent, no symbol */
    bool hierarchy;           /* perf's --hierarchy: the Overhead (Self) rows as a tree of the
                                 levels below (children_hier.c); text */
    enum cg_level { CG_LEVEL_COMM, CG_LEVEL_DSO, CG_LEVEL_SYM } levels[3];
    size_t nlevels;           /* --hierarchy: the sort keys in order (pid: CG_LEVEL_COMM) */
};

/* perf's --children table: per ([command,] DSO, symbol), the share of the period of the
 * samples whose stack holds it (once per sample, however deep it recurses) and of those where
 * it is the leaf; sorted by Children, then Self; each row followed by its call chains as perf
 * shows them (o->chains). With o->no_children, perf's --no-children table of the sampled
 * functions. 0 or -ENOMEM/-EIO. */
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

/* The Prospect report's call-graph parts (callgraph_section.c). */
struct cg_section_opts {
    unsigned top;             /* Children rows (processes, off-CPU) shown; 0: all */
    unsigned paths;           /* call paths shown; 0: all */
    bool wide;                /* no eliding to 100 columns */
};
struct process;
/* Process p's part (run -g): its Children/Self rows and hottest call paths (stacks in the same
 * functions added up), shares of p's period. Nothing when p has no stack. 0, -ENOMEM, -EIO. */
int report_cg_process(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct process *p, const struct cg_section_opts *o);

struct offcpu_totals {
    uint64_t ns, waits, preempted, unended;
    uint64_t preempted_ns;        /* runnable, not running, after those preemptions */
};
/* The Off-CPU Time section: per process (most time first) its waits by call path, in ms, from
 * a store whose periods are ns off CPU (src/offcpu/). 0, -ENOMEM, -EIO. */
int report_offcpu_section(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                          const struct offcpu_totals *t, const struct cg_section_opts *o);
#endif
