/* SPDX-License-Identifier: MIT */
/* Call stacks in symbols: the stacks of a cg_store whose frames resolve to the same symbols
 * (different addresses in the same functions: the leaf's loop, other call sites) are one, with
 * their samples and periods added up. Reports that print per symbol (folded lines, the
 * Children table) then walk far fewer, shorter-lived stacks. */
#ifndef PROSPECT_CALLGRAPH_SYMSTACKS_H
#define PROSPECT_CALLGRAPH_SYMSTACKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "callgraph/resolve.h"

struct cg_symstack {
    size_t stack;             /* the first stack (index in cg_store.stacks) with these symbols */
    uint64_t samples, period;
};

/* by_comm: stacks of processes with one command name are merged (folded stacks and perf's
 * comm,dso,sym rows start with the name), else every process's are. In the order the first
 * stack of each came. 0 or -ENOMEM. */
int cg_symstacks(const struct cg_store *cs, const struct cg_syms *cy, bool by_comm,
                 struct cg_symstack **out, size_t *n);
#endif
