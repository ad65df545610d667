/* SPDX-License-Identifier: MIT */
/* The chain trie under each --children row (perf's radix nodes). */
#include "callgraph/chaintree.h"
#include "test.h"

TEST(chain_trie_runs_are_perf_radix_nodes)
{
    /* Chains a-b-c (3), a-b (1), a-b-d (2): radix nodes [a b] (hit 1), [c], [d]. */
    const uint32_t abc[] = { 0, 1, 2 }, abd[] = { 0, 1, 3 };
    struct chaintree t;
    uint32_t a, end;

    CHECK(chaintree_init(&t) == 0);
    CHECK(chaintree_add(&t, abc, 0, 1, 3, 3) == 0);
    CHECK(chaintree_add(&t, abc, 0, 1, 2, 1) == 0);
    CHECK(chaintree_add(&t, abd, 2, -1, 3, 2) == 0);   /* reversed: d-b-a, its own root */
    a = t.nodes[0].child;
    while (a && t.nodes[a].sym != 0)
        a = t.nodes[a].next;
    CHECK(a);
    end = chaintree_run_end(&t, a);
    CHECK_EQ_U64(t.nodes[end].sym, 1);
    CHECK_EQ_U64(t.nodes[end].hit, 1);
    CHECK_EQ_U64(t.nodes[a].cumul, 4);
    CHECK_EQ_U64(t.nodes[0].cumul, 6);
    chaintree_release(&t);
}

int main(void)
{
    RUN(chain_trie_runs_are_perf_radix_nodes);
    return 0;
}
