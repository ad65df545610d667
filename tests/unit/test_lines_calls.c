/* SPDX-License-Identifier: MIT */
/* gcov -b's call lines from machine code (src/lines/): a block ends after each call, the
 * code after it counts the call's returns (exit: fewer, fork: more), in gcov's order with
 * the line's branches; the calls gcov lists no line for. */
#include <stdlib.h>
#include "test.h"
#include "lines/lines.h"

static bool one_line(void *arg, uint64_t a, unsigned *file, unsigned *line)
{
    (void)arg;
    (void)a;
    *file = 0;
    *line = 1;
    return true;
}

/* test %rdi,%rdi; je done; call f; inc %eax; done: ret -- all on line 1 */
static const uint8_t code[] = { 0x48, 0x85, 0xff, 0x74, 0x07, 0xe8, 0x00, 0x01, 0x00, 0x00,
                                0xff, 0xc0, 0xc3 };

TEST(a_block_ends_after_a_call_only_when_asked)
{
    struct lines_plan p = { 0 };
    CHECK(lines_blocks_cut(&p, 0, code, sizeof(code), 0x3000, one_line, NULL, NULL) == 0);
    CHECK_EQ_U64(p.blocks.n, 3);                      /* the call and the inc together */
    CHECK(p.blocks.v[1].call && !p.blocks.v[1].call_ends);
    vec_free(&p.blocks);

    p.split_calls = true;
    CHECK(lines_blocks_cut(&p, 0, code, sizeof(code), 0x3000, one_line, NULL, NULL) == 0);
    CHECK_EQ_U64(p.blocks.n, 4);
    CHECK_EQ_U64(p.blocks.v[1].start, 0x3005);
    CHECK_EQ_U64(p.blocks.v[1].end, 0x300a);          /* ends with the call */
    CHECK(p.blocks.v[1].call_ends && p.blocks.v[1].fall_in == false);
    CHECK_EQ_U64(p.blocks.v[1].call_to, 0x310a);
    CHECK_EQ_U64(p.blocks.v[2].start, 0x300a);        /* where the call returns */
    CHECK(p.blocks.v[2].fall_in && !p.blocks.v[2].ext);
    vec_free(&p.blocks);
}

struct seen {
    struct lines_gcov_arc v[8];
    unsigned ix[8], n;
};

static void collect(void *arg, const struct lines_gcov_arc *g, unsigned ix)
{
    struct seen *s = arg;
    if (s->n < 8) {
        s->v[s->n] = *g;
        s->ix[s->n++] = ix;
    }
}

/* Runs the function 3 times, the call twice, and it returns `returned` times. */
static int run(struct lines_plan *p, struct lines_arcs *a, uint64_t returned)
{
    int e;
    p->split_calls = true;
    if ((e = lines_blocks_cut(p, 0, code, sizeof(code), 0x3000, one_line, NULL, NULL)))
        return e;
    if (p->blocks.n != 4)
        return -1;
    p->blocks.v[0].count = 3;
    p->blocks.v[1].count = 2;
    p->blocks.v[2].count = returned;
    p->blocks.v[3].count = 1 + returned;
    return lines_arcs_solve(p, a);
}

TEST(a_call_that_exits_returned_less_than_it_ran)
{
    struct lines_plan p = { 0 };
    struct lines_arcs a;
    struct seen s = { .n = 0 };

    CHECK(run(&p, &a, 1) == 0);
    const struct lines_arc *o = &a.v[a.out_first[1]];
    CHECK(o->known && !o->assumed);
    CHECK_EQ_U64(o->count, 1);                      /* not the call block's 2 */
    lines_gcov_arcs(&p, &a, 0, 1, collect, &s);
    /* gcov's order: the branch's ways by destination (the fall-through first here), then
     * the call; the last block (ret) is gcov's exit and lists nothing. */
    CHECK_EQ_U64(s.n, 3);
    CHECK(!s.v[0].call && s.v[0].fallthrough && s.v[0].count == 2 && s.v[0].from == 3);
    CHECK(!s.v[1].call && !s.v[1].fallthrough && s.v[1].count == 1);
    CHECK(s.v[2].call && s.v[2].count == 1 && s.v[2].from == 2 && s.ix[2] == 2);
    lines_arcs_release(&a);
    vec_free(&p.blocks);
}

TEST(a_call_like_fork_returned_more_than_it_ran)
{
    struct lines_plan p = { 0 };
    struct lines_arcs a;
    struct seen s = { .n = 0 };

    CHECK(run(&p, &a, 4) == 0);
    lines_gcov_arcs(&p, &a, 0, 1, collect, &s);
    CHECK_EQ_U64(s.n, 3);
    CHECK(s.v[2].call && s.v[2].count == 4 && s.v[2].from == 2);
    lines_arcs_release(&a);
    vec_free(&p.blocks);
}

TEST(a_return_nothing_measures_is_assumed_and_not_listed)
{
    struct lines_plan p = { 0 };
    struct lines_arcs a;
    struct seen s = { .n = 0 };

    p.split_calls = true;
    CHECK(lines_blocks_cut(&p, 0, code, sizeof(code), 0x3000, one_line, NULL, NULL) == 0);
    p.blocks.v[2].ext = true;                         /* entered unseen too */
    p.blocks.v[0].count = 3;
    p.blocks.v[1].count = 2;
    p.blocks.v[2].count = 2;
    p.blocks.v[3].count = 3;
    CHECK(lines_arcs_solve(&p, &a) == 0);
    const struct lines_arc *o = &a.v[a.out_first[1]];
    CHECK(o->known && o->assumed && o->count == 2);
    lines_gcov_arcs(&p, &a, 0, 1, collect, &s);
    CHECK_EQ_U64(s.n, 2);                             /* the branch only */
    CHECK(!s.v[0].call && !s.v[1].call);
    lines_arcs_release(&a);
    vec_free(&p.blocks);
}

TEST(calls_gcov_does_not_list)
{
    CHECK(lines_gcov_unlisted_callee("strlen"));
    CHECK(lines_gcov_unlisted_callee("__errno_location"));
    CHECK(lines_gcov_unlisted_callee("malloc"));
    CHECK(!lines_gcov_unlisted_callee("printf"));
    CHECK(!lines_gcov_unlisted_callee("exit"));       /* noreturn: listed, returned 0 */
    CHECK(!lines_gcov_unlisted_callee("fork"));
}

int main(void)
{
    RUN(a_block_ends_after_a_call_only_when_asked);
    RUN(a_call_that_exits_returned_less_than_it_ran);
    RUN(a_call_like_fork_returned_more_than_it_ran);
    RUN(a_return_nothing_measures_is_assumed_and_not_listed);
    RUN(calls_gcov_does_not_list);
    return 0;
}
