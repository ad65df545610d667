/* SPDX-License-Identifier: MIT */
/* Stack shapes (callgraph/): --max-stack cuts (cg_store_truncate), stacks merged by symbols
 * (cg_symstacks), inline expansion of frames without DWARF (cg_expand_inline). */
#include <stdlib.h>
#include <string.h>
#include "callgraph/inline.h"
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "callgraph/symstacks.h"
#include "model/process.h"
#include "test.h"

/* Stack s's frames, copied out of the store's distinct frames. */
static const struct frame *stack_frames(const struct cg_store *cs, size_t s,
                                        struct frame *buf)
{
    for (uint32_t k = 0; k < cs->stacks[s].n; k++)
        buf[k] = *cg_frame_at(cs, cs->stacks[s].off + k);
    return buf;
}

/* n frames at addresses base, base+1, ... (leaf first), outside every map. */
static int add(struct cg_store *cs, const struct process *p, uint64_t base, uint32_t n,
               uint64_t period)
{
    struct frame f[64];
    for (uint32_t i = 0; i < n; i++)
        f[i] = (struct frame){ .addr = base + i };
    return cg_store_add_frames(cs, p, f, n, period);
}

TEST(max_stack_keeps_outermost_with_the_leaf_or_innermost)
{
    struct process *p = process_new(1, "deep");
    struct cg_store cs, outer, inner;
    const struct frame *f;
    struct frame buf[16];

    CHECK(p);
    cg_store_init(&cs);
    CHECK(add(&cs, p, 100, 10, 3) == 0);
    CHECK(add(&cs, p, 100, 10, 4) == 0);
    CHECK(add(&cs, p, 100, 2, 5) == 0);       /* shorter than the cut: as it is */
    CHECK(cg_store_truncate(&cs, 4, true, &outer) == 0);
    CHECK_EQ_U64(outer.nstacks, 2);
    f = stack_frames(&outer, 0, buf);
    CHECK_EQ_U64(outer.stacks[0].n, 5);       /* the leaf, then the 4 outermost */
    CHECK_EQ_U64(f[0].addr, 100);
    CHECK_EQ_U64(f[1].addr, 106);
    CHECK_EQ_U64(f[4].addr, 109);
    CHECK_EQ_U64(outer.stacks[0].samples, 2);
    CHECK_EQ_U64(outer.stacks[0].period, 7);
    CHECK_EQ_U64(outer.samples, 3);
    CHECK_EQ_U64(outer.period, 12);
    CHECK(cg_store_truncate(&cs, 4, false, &inner) == 0);
    f = stack_frames(&inner, 0, buf);
    CHECK_EQ_U64(inner.stacks[0].n, 4);       /* the 4 innermost */
    CHECK_EQ_U64(f[3].addr, 103);
    cg_store_release(&cs);
    cg_store_release(&outer);
    cg_store_release(&inner);
    process_free(p);
}

TEST(stacks_equal_in_symbols_merge_per_command)
{
    struct process *a = process_new(1, "prog"), *b = process_new(2, "prog"),
                   *c = process_new(3, "other");
    struct cg_store cs;
    struct cg_syms cy = { 0 };
    struct cg_symstack *ss;
    size_t n;
    /* Stacks 0 and 1 differ in addresses, not in symbols; 2 is another process of the same
     * command; 3 another command. */
    const uint32_t syms[] = { 7, 8, 9,  7, 8, 9,  7, 8, 9,  7, 8, 9 };

    CHECK(a && b && c);
    cg_store_init(&cs);
    CHECK(add(&cs, a, 100, 3, 1) == 0);
    CHECK(add(&cs, a, 200, 3, 2) == 0);
    CHECK(add(&cs, b, 300, 3, 4) == 0);
    CHECK(add(&cs, c, 400, 3, 8) == 0);
    CHECK_EQ_U64(cs.nstacks, 4);
    cy.frame_sym = (uint32_t *)syms;
    cy.nsyms = 10;
    CHECK(cg_symstacks(&cs, &cy, true, &ss, &n) == 0);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(ss[0].period, 7);
    CHECK_EQ_U64(ss[0].samples, 3);
    CHECK_EQ_U64(ss[1].period, 8);
    free(ss);
    CHECK(cg_symstacks(&cs, &cy, false, &ss, &n) == 0);
    CHECK_EQ_U64(n, 1);                       /* without the command: all one */
    CHECK_EQ_U64(ss[0].period, 15);
    free(ss);
    cg_store_release(&cs);
    process_free(a);
    process_free(b);
    process_free(c);
}

TEST(inline_expansion_without_dwarf_keeps_the_stacks)
{
    struct process *p = process_new(1, "prog");
    struct cg_store cs, out;
    struct cg_syms cy = { 0 }, icy;
    struct cg_sym sym[2] = { { .name = "leaf" }, { .name = "main" } };
    const uint32_t fsym[] = { 0, 1 };

    CHECK(p);
    cg_store_init(&cs);
    CHECK(add(&cs, p, 100, 2, 5) == 0);
    CHECK(add(&cs, p, 100, 2, 5) == 0);
    cy.syms = sym;
    cy.nsyms = 2;
    cy.frame_sym = (uint32_t *)fsym;
    CHECK(cg_expand_inline(&cs, &cy, &out, &icy) == 0);
    CHECK_EQ_U64(out.nstacks, 1);
    CHECK_EQ_U64(out.stacks[0].n, 2);
    CHECK_EQ_U64(out.stacks[0].samples, 2);
    CHECK_EQ_U64(out.stacks[0].period, 10);
    CHECK_EQ_U64(icy.nsyms, 2);
    CHECK_EQ_U64(icy.frame_sym[1], 1);
    CHECK(!icy.syms[0].inlined);
    cg_syms_release(&icy);
    cg_store_release(&out);
    cg_store_release(&cs);
    process_free(p);
}

int main(void)
{
    RUN(max_stack_keeps_outermost_with_the_leaf_or_innermost);
    RUN(stacks_equal_in_symbols_merge_per_command);
    RUN(inline_expansion_without_dwarf_keeps_the_stacks);
    return 0;
}
