/* SPDX-License-Identifier: MIT */
/* The call chains under each row of perf's report (--children, --no-children), printed as
 * perf report --stdio prints them for its -g modes: graph (percentages of the whole profile),
 * fractal (of the parent), flat (one chain per line block) and folded (one chain a line). */
#ifndef PROSPECT_REPORT_CHAINGRAPH_H
#define PROSPECT_REPORT_CHAINGRAPH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "callgraph/chaintree.h"
#include "callgraph/resolve.h"
#include "util/obuf.h"

enum chain_mode { CHAIN_NONE, CHAIN_GRAPH, CHAIN_FRACTAL, CHAIN_FLAT, CHAIN_FOLDED };

/* perf's -g PARAMS: mode, threshold, order. */
struct chain_params {
    enum chain_mode mode;
    double min_percent;       /* chains below it hidden (graph, flat, folded: % of the whole
                                 profile; fractal: % of the parent) */
    bool callee;              /* chains from the row's function towards its callers */
    bool mode_set, order_set, min_set;   /* given in PARAMS (else the defaults apply) */
};

/* perf's -g/--call-graph value: comma-separated mode (graph, fractal, flat, folded, none),
 * threshold (a number), order (caller, callee), and the defaults 'function' and 'percent'.
 * 0, or -EINVAL with why filled in. */
int chain_params_parse(const char *s, struct chain_params *p, char *why, size_t len);

struct chain_print {
    const struct chain_params *params;
    uint64_t total;           /* the report's 100% */
    uint64_t entry;           /* the row's own period (Children, or Self without children) */
    bool skip_first;          /* --sort sym: the row's symbol is not repeated at the root */
    const struct cg_syms *cy;
};

/* The row's chains, sorted (chaintree_sort), as perf prints them below the row. */
void chaingraph_print(struct obuf *ob, const struct chaintree *t, const struct chain_print *p);
#endif
