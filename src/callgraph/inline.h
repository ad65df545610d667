/* SPDX-License-Identifier: MIT */
/* Inlined frames (perf's --inline): where DWARF says a frame's address lies inside inlined
 * subroutines, the frame becomes the chain of them, innermost first, then the function the
 * code is in. The added frames' symbols are marked `inlined` (tables print "name (inlined)";
 * flame graphs colour them apart). Files without DWARF keep their frames as they are. */
#ifndef PROSPECT_CALLGRAPH_INLINE_H
#define PROSPECT_CALLGRAPH_INLINE_H
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"

/* A copy of (in, cy) with inlined frames added: out is a new store (the added frames repeat
 * the address and map of the frame they expand), cy_out its symbols (cy's first, then the
 * inlined functions, owned by cy_out). 0 or -ENOMEM. */
int cg_expand_inline(const struct cg_store *in, const struct cg_syms *cy, struct cg_store *out,
                     struct cg_syms *cy_out);
#endif
