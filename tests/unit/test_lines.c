/* SPDX-License-Identifier: MIT */
/* prospect lines' arithmetic: blocks cut from machine code (Zydis), blocks that need no
 * probe, and arc and line counts (gcov's) solved from block counts (src/lines/). */
#include <stdlib.h>
#include "test.h"
#include "lines/lines.h"

/* Line 1 except [5, 7), line 2. */
static bool line_of(void *arg, uint64_t a, unsigned *file, unsigned *line)
{
    (void)arg;
    *file = 0;
    *line = a >= 0x1005 && a < 0x1007 ? 2 : 1;
    return true;
}

TEST(blocks_start_at_entry_targets_and_line_changes)
{
    /* cmp %rsi,%rdi; jne +2; inc %eax; ret */
    static const uint8_t code[] = { 0x48, 0x39, 0xf7, 0x75, 0x02, 0xff, 0xc0, 0xc3 };
    struct lines_plan p = { 0 };
    CHECK(lines_blocks_cut(&p, 0, code, sizeof(code), 0x1000, line_of, NULL, NULL) == 0);
    CHECK_EQ_U64(p.blocks.n, 3);
    CHECK_EQ_U64(p.blocks.v[0].start, 0x1000);
    CHECK_EQ_U64(p.blocks.v[0].end, 0x1005);
    CHECK(p.blocks.v[0].ext && p.blocks.v[0].cond);
    CHECK_EQ_U64(p.blocks.v[0].nsucc, 2);
    CHECK_EQ_U64(p.blocks.v[0].succ[0], 0x1007);      /* taken */
    CHECK_EQ_U64(p.blocks.v[0].succ[1], 0x1005);      /* fall-through */
    CHECK_EQ_U64(p.blocks.v[1].line, 2);
    CHECK_EQ_U64(p.blocks.v[1].nsucc, 1);
    CHECK(!p.blocks.v[1].cond && !p.blocks.v[1].ext);
    CHECK_EQ_U64(p.blocks.v[2].start, 0x1007);
    CHECK_EQ_U64(p.blocks.v[2].nsucc, 0);               /* ret */
    vec_free(&p.blocks);
}

/* gcc aligns a loop head with `cs nopw` (which the kernel refuses to probe): padding fallen
 * into is no block, its predecessor goes on to the loop head. */
TEST(padding_before_a_loop_head_is_no_block)
{
    /* test %rdi,%rdi; je +10 (to ret); cs nopw 0(%rax,%rax,1); [loop:] dec %rdi; jne loop; ret */
    static const uint8_t code[] = { 0x48, 0x85, 0xff, 0x74, 0x0f,
                                    0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
    struct lines_plan p = { 0 };
    CHECK(lines_blocks_cut(&p, 0, code, sizeof(code), 0x2000, line_of, NULL, NULL) == 0);
    CHECK_EQ_U64(p.blocks.n, 3);
    CHECK_EQ_U64(p.blocks.v[0].succ[1], 0x200f);      /* falls to the loop head */
    CHECK_EQ_U64(p.blocks.v[1].start, 0x200f);
    CHECK_EQ_U64(p.blocks.v[2].start, 0x2014);
    vec_free(&p.blocks);
}

static struct lines_block blk(uint64_t start, unsigned line, bool ext, bool cond, unsigned n,
                              uint64_t s0, uint64_t s1)
{
    return (struct lines_block){ .start = start, .end = start + 1, .line = line, .ext = ext,
                                 .cond = cond, .nsucc = n, .succ = { s0, s1 } };
}

static uint64_t line_count(const struct lines_count *c, size_t n, unsigned line, bool *approx)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].line == line) {
            if (approx)
                *approx = c[i].approx;
            return c[i].count;
        }
    return ~0ull;
}

/* A loop on one line (A: entry, B: the loop test jumping to itself, C: the next line) counts
 * as gcov counts it: entered once, plus its 9 turns (the self-transfer solved by conservation). */
TEST(a_loop_within_one_line_counts_its_turns)
{
    struct lines_plan p = { 0 };
    struct lines_count *c;
    size_t n;
    bool approx = true;
    CHECK(vec_push(&p.blocks, blk(1, 5, true, false, 1, 2, 0)) == 0);
    CHECK(vec_push(&p.blocks, blk(2, 5, false, true, 2, 2, 3)) == 0);
    CHECK(vec_push(&p.blocks, blk(3, 6, false, false, 0, 0, 0)) == 0);
    p.blocks.v[0].count = 1;
    p.blocks.v[1].count = 10;
    p.blocks.v[2].count = 1;
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(line_count(c, n, 5, &approx), 10);
    CHECK(!approx);
    CHECK_EQ_U64(line_count(c, n, 6, NULL), 1);
    free(c);
    vec_free(&p.blocks);
}

/* `for (i = 0; i < 30; i++) s += i;` on line 5 at -O0: I (i = 0; jmp C), B (s += i; i++),
 * C (i < 30: to B, or falls to line 6's X). gcov: 31, the entry and the 30 turns of B-C-B. */
TEST(a_for_on_one_line_counts_entry_plus_iterations)
{
    struct lines_plan p = { 0 };
    struct lines_count *c;
    size_t n;
    bool approx = true;
    CHECK(vec_push(&p.blocks, blk(1, 5, true, false, 1, 3, 0)) == 0);   /* I */
    CHECK(vec_push(&p.blocks, blk(2, 5, false, false, 1, 3, 0)) == 0);  /* B */
    CHECK(vec_push(&p.blocks, blk(3, 5, false, true, 2, 2, 4)) == 0);   /* C */
    CHECK(vec_push(&p.blocks, blk(4, 6, false, false, 0, 0, 0)) == 0);  /* X */
    p.blocks.v[0].count = 1;
    p.blocks.v[1].count = 30;
    p.blocks.v[2].count = 31;
    p.blocks.v[3].count = 1;
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK_EQ_U64(line_count(c, n, 5, &approx), 31);
    CHECK(!approx);
    CHECK_EQ_U64(line_count(c, n, 6, NULL), 1);
    free(c);
    vec_free(&p.blocks);
}

/* Arcs: a conditional branch's unknown side is its count less the known side. */
TEST(arcs_are_solved_by_conservation)
{
    struct lines_plan p = { 0 };
    struct lines_arcs a;
    CHECK(vec_push(&p.blocks, blk(1, 1, true, true, 2, 3, 2)) == 0);   /* A: if */
    CHECK(vec_push(&p.blocks, blk(2, 2, false, false, 1, 4, 0)) == 0);  /* B: then */
    CHECK(vec_push(&p.blocks, blk(3, 3, false, false, 1, 4, 0)) == 0);  /* C: else */
    CHECK(vec_push(&p.blocks, blk(4, 4, false, false, 0, 0, 0)) == 0);  /* D: join */
    p.blocks.v[0].count = 7;
    p.blocks.v[1].count = 4;
    p.blocks.v[2].count = 3;
    p.blocks.v[3].count = 7;
    CHECK(lines_arcs_solve(&p, &a) == 0);
    CHECK_EQ_U64(a.n, 4);
    CHECK(a.v[0].known && a.v[1].known);
    CHECK_EQ_U64(a.v[0].count, 3);      /* A -> C, taken */
    CHECK_EQ_U64(a.v[1].count, 4);      /* A -> B, fall-through */
    CHECK_EQ_U64(a.v[2].to, 3);
    lines_arcs_release(&a);
    vec_free(&p.blocks);
}

/* if/else joining in D: D needs no probe, it runs as often as both arms; an arm with a call
 * (fork returns twice) forbids it. */
TEST(a_join_of_one_way_blocks_is_derived_not_probed)
{
    struct lines_plan p = { 0 };
    CHECK(vec_push(&p.blocks, blk(1, 1, true, true, 2, 3, 2)) == 0);   /* A: if */
    CHECK(vec_push(&p.blocks, blk(2, 2, false, false, 1, 4, 0)) == 0);  /* B: then, jmp D */
    CHECK(vec_push(&p.blocks, blk(3, 3, false, false, 1, 4, 0)) == 0);  /* C: else, falls */
    CHECK(vec_push(&p.blocks, blk(4, 4, false, false, 0, 0, 0)) == 0);  /* D: join */
    CHECK(lines_derive(&p) == 0);
    CHECK(p.blocks.v[3].derived);
    CHECK(!p.blocks.v[0].derived && !p.blocks.v[1].derived && !p.blocks.v[2].derived);
    CHECK_EQ_U64(p.probed.n, 3);
    p.blocks.v[0].count = 7;
    p.blocks.v[1].count = 4;
    p.blocks.v[2].count = 3;
    CHECK(lines_fill_derived(&p) == 0);
    CHECK_EQ_U64(p.blocks.v[3].count, 7);
    p.blocks.v[1].call = true;
    p.blocks.v[3].derived = false;
    CHECK(lines_derive(&p) == 0);
    CHECK(!p.blocks.v[3].derived);
    CHECK_EQ_U64(p.probed.n, 4);
    vec_free(&p.blocks);
    vec_free(&p.probed);
    vec_free(&p.derive_order);
}

/* The limited jump entries go to the probes in loops first: they are probed first. */
TEST(probes_in_loops_come_first)
{
    struct lines_plan p = { 0 };
    CHECK(vec_push(&p.blocks, blk(1, 1, true, false, 1, 2, 0)) == 0);   /* entry, with a call */
    CHECK(vec_push(&p.blocks, blk(2, 2, false, true, 2, 2, 3)) == 0);   /* loop: to itself */
    CHECK(vec_push(&p.blocks, blk(3, 3, true, false, 0, 0, 0)) == 0);   /* after, reachable */
    p.blocks.v[0].call = true;
    CHECK(lines_derive(&p) == 0);
    CHECK_EQ_U64(p.probed.n, 3);
    CHECK_EQ_U64(p.probed.v[0], 1);
    CHECK_EQ_U64(p.probed.v[1], 0);
    CHECK_EQ_U64(p.probed.v[2], 2);
    vec_free(&p.blocks);
    vec_free(&p.probed);
    vec_free(&p.derive_order);
}

/* A same-line transfer no conservation can give (both arms reachable from outside) leaves the
 * line's count an upper bound, flagged. */
TEST(an_unknown_same_line_transfer_flags_an_upper_bound)
{
    struct lines_plan p = { 0 };
    struct lines_count *c;
    size_t n;
    bool approx = false;
    CHECK(vec_push(&p.blocks, blk(1, 1, true, true, 2, 2, 3)) == 0);
    CHECK(vec_push(&p.blocks, blk(2, 1, true, false, 0, 0, 0)) == 0);
    CHECK(vec_push(&p.blocks, blk(3, 2, true, false, 0, 0, 0)) == 0);
    p.blocks.v[0].count = 5;
    p.blocks.v[1].count = 4;
    p.blocks.v[2].count = 3;
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK_EQ_U64(line_count(c, n, 1, &approx), 9);
    CHECK(approx);
    free(c);
    vec_free(&p.blocks);
}

/* lines_eh.cc's with_guard at -O0: L (line 32, calls leaf: 80 of 200 return), R1 (33: r +
 * g.id), D (34: ~Guard), R2 (33: the return value, jmp E), P (34: landing pad, ~Guard and
 * _Unwind_Resume, which never returns: nothing falls to E), E (34: the epilogue). gcov: 33
 * once per return (80), 34 once per return and once per exception (200), not again on
 * coming back to each from the other. */
TEST(a_line_split_around_another_counts_once)
{
    struct lines_plan p = { 0 };
    struct lines_count *c;
    size_t n;
    unsigned line[] = { 32, 33, 34, 33, 34, 34 }, nsucc[] = { 1, 1, 1, 1, 1, 0 };
    uint64_t succ[] = { 2, 3, 4, 6, 6, 0 }, count[] = { 200, 80, 80, 80, 120, 80 };
    for (unsigned i = 0; i < 6; i++) {
        struct lines_block b = blk(i + 1, line[i], i == 0 || i == 4, false, nsucc[i], succ[i], 0);
        b.call = i == 0 || i == 2 || i == 4;
        b.fall_in = i > 0 && i < 4;
        b.returns = i == 5;
        b.count = count[i];
        CHECK(vec_push(&p.blocks, b) == 0);
    }
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK_EQ_U64(line_count(c, n, 33, NULL), 80);
    CHECK_EQ_U64(line_count(c, n, 34, NULL), 200);
    free(c);
    vec_free(&p.blocks);
}

/* -O2 code, one basic block fallen through from line 1 to 2, back to 1 (scheduling moved part
 * of line 1 below line 2), then 3: line 1's two pieces would count it twice, so it is marked;
 * 2 and 3 keep their counts. A cmov in the basic block (a branch if-converted) marks them all;
 * so does a count of 0 (the code may have run merged into another line's). */
static bool marked(const struct lines_count *c, size_t n, unsigned line)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].line == line)
            return c[i].optimized;
    return false;
}

static int o2_block_run(struct lines_plan *p, uint64_t count)
{
    unsigned lines[] = { 1, 2, 1, 3 };
    for (unsigned i = 0; i < 4; i++) {
        struct lines_block b = blk(i + 1, lines[i], i == 0, false, i < 3, i + 2, 0);
        b.fall_in = i > 0;
        b.optimized = b.per_line = true;
        b.count = count;
        if (vec_push(&p->blocks, b))
            return -1;
    }
    return 0;
}

TEST(o2_lines_interleaved_in_a_basic_block_are_marked)
{
    struct lines_plan p = { 0 };
    struct lines_count *c;
    size_t n;
    CHECK(o2_block_run(&p, 7) == 0);
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK(marked(c, n, 1));
    CHECK(!marked(c, n, 2) && !marked(c, n, 3));
    CHECK_EQ_U64(line_count(c, n, 2, NULL), 7);
    CHECK_EQ_U64(line_count(c, n, 3, NULL), 7);
    free(c);
    p.blocks.v[3].select = true;
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK(marked(c, n, 2) && marked(c, n, 3));
    free(c);
    p.blocks.v[3].select = false;
    p.blocks.v[3].per_line = false;   /* -O3: checked against gcov at -O2 only */
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK(marked(c, n, 3) && !marked(c, n, 2));
    free(c);
    vec_free(&p.blocks);
    CHECK(o2_block_run(&p, 0) == 0);
    CHECK(lines_solve(&p, &c, &n) == 0);
    CHECK(marked(c, n, 2) && marked(c, n, 3));
    free(c);
    vec_free(&p.blocks);
}

TEST(file_names_match_by_trailing_components)
{
    CHECK(lines_file_matches("/a/b/fact.c", "fact.c"));
    CHECK(lines_file_matches("/a/b/fact.c", "b/fact.c"));
    CHECK(lines_file_matches("/a/b/fact.c", "./fact.c"));
    CHECK(!lines_file_matches("/a/b/myfact.c", "fact.c"));
    CHECK(!lines_file_matches("/a/b/fact.c", ""));
}

int main(void)
{
    RUN(blocks_start_at_entry_targets_and_line_changes);
    RUN(padding_before_a_loop_head_is_no_block);
    RUN(a_loop_within_one_line_counts_its_turns);
    RUN(a_for_on_one_line_counts_entry_plus_iterations);
    RUN(arcs_are_solved_by_conservation);
    RUN(a_join_of_one_way_blocks_is_derived_not_probed);
    RUN(probes_in_loops_come_first);
    RUN(an_unknown_same_line_transfer_flags_an_upper_bound);
    RUN(a_line_split_around_another_counts_once);
    RUN(o2_lines_interleaved_in_a_basic_block_are_marked);
    RUN(file_names_match_by_trailing_components);
    return 0;
}
