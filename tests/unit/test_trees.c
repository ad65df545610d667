/* SPDX-License-Identifier: MIT */
/* report --time's ranges (perf's forms and selection rules) and the chain trie under each
 * --children row (perf's radix nodes). */
#include <errno.h>
#include <string.h>
#include "callgraph/chaintree.h"
#include "report/timerange.h"
#include "test.h"

TEST(time_absolute_ranges_as_perf)
{
    struct time_ranges r;
    char why[256];

    CHECK(time_ranges_parse("10.5,11", 0, 0, &r, why, sizeof(why)) == 0);
    CHECK_EQ_U64(r.n, 1);
    CHECK_EQ_U64(r.v[0].start, 10500000000ull);
    CHECK_EQ_U64(r.v[0].end, 11000000000ull);
    CHECK(!time_ranges_skip(&r, 11000000000ull));      /* both ends kept */
    CHECK(time_ranges_skip(&r, 11000000001ull));
    CHECK(!time_ranges_skip(&r, 0));                   /* no time: kept, as perf */
    CHECK(time_ranges_parse(",2.000000001", 0, 0, &r, why, sizeof(why)) == 0);
    CHECK(!time_ranges_skip(&r, 1) && time_ranges_skip(&r, 2000000002ull));
    CHECK(time_ranges_parse("1,2 5,", 0, 0, &r, why, sizeof(why)) == 0);
    CHECK_EQ_U64(r.n, 2);
    CHECK(time_ranges_skip(&r, 3000000000ull) && !time_ranges_skip(&r, 9000000000ull));
    CHECK(time_ranges_parse("1,2,3", 0, 0, &r, why, sizeof(why)) == -EINVAL);
    CHECK(time_ranges_parse("2,1", 0, 0, &r, why, sizeof(why)) == -EINVAL);
    CHECK(time_ranges_parse("1.0123456789,", 0, 0, &r, why, sizeof(why)) == -EINVAL);
    CHECK(time_ranges_parse("x,", 0, 0, &r, why, sizeof(why)) == -EINVAL);
}

TEST(time_percent_slices_as_perf)
{
    struct time_ranges r;
    char why[256];

    CHECK(time_ranges_parse("10%/2", 1000, 2000, &r, why, sizeof(why)) == 0);
    CHECK_EQ_U64(r.v[0].start, 1100);
    CHECK_EQ_U64(r.v[0].end, 1199);                    /* the next slice's first ns is its */
    CHECK(time_ranges_parse("0%-10%,90%-100%", 1000, 2000, &r, why, sizeof(why)) == 0);
    CHECK_EQ_U64(r.n, 2);
    CHECK_EQ_U64(r.v[1].end, 2000);                    /* the last slice keeps the end */
    CHECK(time_ranges_skip(&r, 1500) && !time_ranges_skip(&r, 1950));
    CHECK(time_ranges_parse("50%/3", 1000, 2000, &r, why, sizeof(why)) == -EINVAL);
    CHECK(time_ranges_parse("10%/1", 0, 0, &r, why, sizeof(why)) == -ENODATA);
    CHECK(strstr(why, "first and last sample"));
}

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
    RUN(time_absolute_ranges_as_perf);
    RUN(time_percent_slices_as_perf);
    RUN(chain_trie_runs_are_perf_radix_nodes);
    return 0;
}
