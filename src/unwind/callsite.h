/* SPDX-License-Identifier: MIT */
/* The direct call just before a return address: the function it called, decoded with Zydis
 * from the DSO's file and cached per return address; and the direct calls a function makes. */
#ifndef PROSPECT_UNWIND_CALLSITE_H
#define PROSPECT_UNWIND_CALLSITE_H
#include <stddef.h>
#include <stdint.h>

struct uw_cfi;
struct uw_callsites;

struct uw_callsites *uw_callsites_new(void);
void uw_callsites_free(struct uw_callsites *cs);
/* Forgets every call site (before the CFIs they are keyed by are freed). */
void uw_callsites_clear(struct uw_callsites *cs);

/* The start (ELF vaddr) of the function called by the `call rel32` that ends at ret_vaddr in
 * c's DSO, when that call is direct and lands on a symbol's first byte. 0 or -ENOENT. */
int uw_call_target(struct uw_callsites *cs, struct uw_cfi *c, uint64_t ret_vaddr,
                   uint64_t *target);

/* The largest function uw_direct_calls decodes. */
#define UW_SWEEP_MAX (256u * 1024)
/* The targets of the direct calls and jumps (tail calls) in [start, end) of c's DSO (ELF
 * vaddrs), decoded with Zydis from the start: at most max in targets, *n of them. 0, -ENOENT
 * (no code there, or a function over UW_SWEEP_MAX) or -ENOMEM. */
int uw_direct_calls(struct uw_callsites *cs, struct uw_cfi *c, uint64_t start, uint64_t end,
                    uint64_t *targets, size_t max, size_t *n);
#endif
