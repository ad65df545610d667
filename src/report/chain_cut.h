/* SPDX-License-Identifier: MIT */
/* perf's --ignore-callees (a stack cut at a function whose name matches a regex, that
 * function becoming the sample's own, Self, function) and --parent (the first such function
 * of a stack), for the Children/Self table (children.c). */
#ifndef PROSPECT_REPORT_CHAIN_CUT_H
#define PROSPECT_REPORT_CHAIN_CUT_H
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include "callgraph/resolve.h"

/* Which symbols match a regex: one flag per cg_syms symbol. */
struct chain_cut {
    uint8_t *match;           /* NULL: no regex, nothing is cut */
};

/* The symbols of cy whose name matches re (NULL: none); unresolved frames and the a->b
 * brackets of stripped gaps have no name and never match, as perf's frames without a
 * symbol. 0 or -ENOMEM. */
int chain_cut_init(struct chain_cut *c, const struct cg_syms *cy, const regex_t *re);
void chain_cut_release(struct chain_cut *c);

/* The frames of stack fs (n frames, leaf first) that are kept, fs[*from .. *from + *n - 1],
 * and the sample's own symbol (*self), as perf walks the chain in the report's order,
 * forgetting the frames walked so far at each matching one: in callee order (leaf first)
 * the outermost match and its callers are kept; in caller order the innermost match and
 * its callees, the match being the sample's function though a callee is the leaf. */
/* perf's --parent: the sample's parent, the first frame matching as perf walks the chain in
 * the report's order (callee: the innermost match; caller: the outermost), or
 * CHAIN_NO_PARENT ("[other]"). */
#define CHAIN_NO_PARENT UINT32_MAX
uint32_t chain_cut_parent(const struct chain_cut *c, const uint32_t *fs, long n, bool callee);

void chain_cut_apply(const struct chain_cut *c, const uint32_t *fs, long n, bool callee,
                     long *from, long *kept, uint32_t *self);
#endif
