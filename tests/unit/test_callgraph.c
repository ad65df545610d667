/* SPDX-License-Identifier: MIT */
/* Call stacks from samples (callgraph/stacks.c) and the reports made of them (folded stacks,
 * the Children/Self table); samples go in through callgraph/capture.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/capture.h"
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "callgraph/tree.h"
#include "model/process.h"
#include "perf/record.h"
#include "report/callgraph_out.h"
#include "symbol/dso.h"
#include "test.h"

/* One sample into cs through the capture step, as the session's sink hands it on. */
static int add_sample(struct cg_store *cs, struct process *p, const struct sample *smp,
                      uint64_t period)
{
    struct cg_capture c;
    int err;

    cg_capture_init(&c, cs, NULL);
    err = cg_capture_sample(&c, p, smp, period);
    cg_capture_release(&c);
    return err;
}

/* Stack s's frames, copied out of the store's distinct frames. */
static const struct frame *stack_frames(const struct cg_store *cs, size_t s,
                                        struct frame *buf)
{
    for (uint32_t k = 0; k < cs->stacks[s].n; k++)
        buf[k] = *cg_frame_at(cs, cs->stacks[s].off + k);
    return buf;
}

TEST(chain_markers_and_return_addresses)
{
    struct process *p = process_new(42, "prog");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, 0xffffffff81000200ull,
                               PERF_CONTEXT_HV, 0x1234, PERF_CONTEXT_USER, 0x401010, 0x402020 };
    struct sample smp = { .cpumode = PERF_RECORD_MISC_KERNEL, .ip = 0xffffffff81000010ull,
                          .nr_callchain = 8, .callchain = chain };
    struct cg_store cs;
    const struct frame *f;
    struct frame buf[16];

    CHECK(p);
    cg_store_init(&cs);
    CHECK(add_sample(&cs, p, &smp, 10) == 0);
    CHECK_EQ_U64(cs.nstacks, 1);
    CHECK_EQ_U64(cs.stacks[0].n, 4);      /* the hypervisor frame is left out */
    f = stack_frames(&cs, 0, buf);
    CHECK_EQ_U64(f[0].addr, 0xffffffff81000010ull);   /* the sampled ip as it is */
    CHECK(f[0].map == &kernel_map);
    CHECK_EQ_U64(f[1].addr, 0xffffffff810001ffull);   /* callers: return address - 1 */
    CHECK(f[1].map == &kernel_map);
    CHECK_EQ_U64(f[2].addr, 0x401010);   /* the user ip the kernel was entered at, as it is */
    CHECK(f[2].map == NULL);                           /* user, outside every map */
    CHECK_EQ_U64(f[3].addr, 0x40201f);
    cg_store_release(&cs);
    process_free(p);
}

TEST(equal_stacks_are_stored_once_per_process)
{
    struct process *p = process_new(1, "a"), *q = process_new(2, "b");
    const uint64_t chain[] = { PERF_CONTEXT_USER, 0x1000, 0x2000 };
    struct sample smp = { .cpumode = PERF_RECORD_MISC_USER, .ip = 0x1000, .nr_callchain = 3,
                          .callchain = chain };
    struct sample bare = { .cpumode = PERF_RECORD_MISC_USER, .ip = 0x5000 };
    struct cg_store cs;

    CHECK(p && q);
    cg_store_init(&cs);
    for (int i = 0; i < 3000; i++)       /* past the first table growth */
        CHECK(add_sample(&cs, p, &smp, 2) == 0);
    CHECK(add_sample(&cs, q, &smp, 5) == 0);
    CHECK(add_sample(&cs, q, &bare, 1) == 0);   /* no call chain: the ip alone */
    CHECK_EQ_U64(cs.nstacks, 3);
    CHECK_EQ_U64(cs.stacks[0].samples, 3000);
    CHECK_EQ_U64(cs.stacks[0].period, 6000);
    CHECK_EQ_U64(cs.stacks[1].period, 5);
    CHECK_EQ_U64(cs.stacks[2].n, 1);
    CHECK_EQ_U64(cg_frame_at(&cs, cs.stacks[2].off)->addr, 0x5000);
    CHECK_EQ_U64(cs.samples, 3002);
    CHECK_EQ_U64(cs.period, 6006);
    cg_store_release(&cs);
    process_free(p);
    process_free(q);
}

TEST(a_replaced_map_outlives_the_stacks_through_it)
{
    struct dso_cache *dc = dso_cache_new();
    struct process *p = process_new(5, "jit");
    struct dso *d = dc ? dso_cache_get(dc, DSO_ANON, "//anon", NULL, 0, 5) : NULL;
    const uint64_t chain[] = { PERF_CONTEXT_USER, 0x9000, 0x10010 };
    struct sample smp = { .cpumode = PERF_RECORD_MISC_USER, .ip = 0x9000, .nr_callchain = 3,
                          .callchain = chain };
    struct cg_store cs;
    const struct frame *f;
    struct frame buf[16];

    CHECK(p && d);
    cg_store_init(&cs);
    CHECK(process_add_map(p, 0x10000, 0x1000, 0, d, 5, 0) == 0);
    CHECK(add_sample(&cs, p, &smp, 1) == 0);
    /* The caller's map has no hit of its own; a new mapping over it retires it. */
    CHECK(process_add_map(p, 0x10000, 0x1000, 0, d, 5, 0) == 0);
    f = stack_frames(&cs, 0, buf);
    CHECK(f[1].map && f[1].map != p->maps.v[0]);
    CHECK_EQ_U64(p->retired.n, 1);
    CHECK_EQ_U64(f[1].map->start, 0x10000);      /* still readable (ASan) */
    cg_store_release(&cs);
    process_free(p);
    dso_cache_free(dc);
}

/* Stacks over hand-made symbols: frame i of the store gets symbol syms[i]. */
struct fixture {
    struct cg_store cs;
    struct cg_syms cy;
    struct cg_sym table[4];
    uint32_t frame_sym[64];
};

enum { S_MAIN, S_REC, S_LEAF, S_KFUNC };

static int add(struct fixture *fx, const struct process *p, const uint32_t *syms, uint32_t n,
               uint64_t period, uint64_t base)
{
    struct frame f[64];
    size_t before = fx->cs.nframes;
    for (uint32_t i = 0; i < n; i++) {
        f[i].addr = base + i;
        f[i].map = syms[i] == S_KFUNC ? &kernel_map : NULL;
    }
    int err = cg_store_add_frames(&fx->cs, p, f, n, period);
    for (size_t i = before; i < fx->cs.nframes; i++)
        fx->frame_sym[i] = syms[i - before];
    return err;
}

static void fixture_init(struct fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    cg_store_init(&fx->cs);
    fx->table[S_MAIN] = (struct cg_sym){ .name = "main" };
    fx->table[S_REC] = (struct cg_sym){ .name = "rec" };
    fx->table[S_LEAF] = (struct cg_sym){ .name = "ns::leaf(int;x)" };
    fx->table[S_KFUNC] = (struct cg_sym){ .name = "do_syscall_64", .kernel = true };
    fx->cy.syms = fx->table;
    fx->cy.nsyms = 4;
    fx->cy.frame_sym = fx->frame_sym;
}

static char *render_opts(struct fixture *fx, bool folded, const struct children_opts *co)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct children_opts o = co ? *co : (struct children_opts){ .wide = true };
    int err;

    if (!f)
        return NULL;
    err = folded ? report_folded(f, &fx->cs, &fx->cy) : report_children(f, &fx->cs, &fx->cy, &o);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *render(struct fixture *fx, bool folded)
{
    return render_opts(fx, folded, NULL);
}

TEST(children_count_a_recursive_symbol_once_per_sample)
{
    struct process *p = process_new(7, "prog");
    const uint32_t deep[] = { S_LEAF, S_REC, S_REC, S_REC, S_MAIN };
    const uint32_t flat[] = { S_LEAF, S_MAIN };
    struct fixture fx;
    char *out;

    CHECK(p);
    fixture_init(&fx);
    CHECK(add(&fx, p, deep, 5, 3, 0x100) == 0);
    CHECK(add(&fx, p, flat, 2, 1, 0x200) == 0);
    out = render(&fx, false);
    CHECK(out);
    /* rec is in 3 of 4 periods: 75%, not 3 x 75%; leaf is every sample's own. */
    CHECK(strstr(out, "   100.00%   100.00%  [unknown]      [.] ns::leaf(int;x)\n"));
    CHECK(strstr(out, "   100.00%     0.00%  [unknown]      [.] main\n"));
    CHECK(strstr(out, "    75.00%     0.00%  [unknown]      [.] rec\n"));
    CHECK(strstr(out, "leaf") < strstr(out, "main"));     /* ties: more self first */
    CHECK(strstr(out, "main") < strstr(out, "rec"));
    free(out);
    cg_store_release(&fx.cs);
    process_free(p);
}

TEST(folded_lines_merge_equal_names_and_mark_the_kernel)
{
    struct process *p = process_new(9, "my prog\n");   /* a newline would cut the line */
    const uint32_t user[] = { S_LEAF, S_MAIN };
    const uint32_t kern[] = { S_KFUNC, S_MAIN };
    struct fixture fx;
    char *out;

    CHECK(p);
    fixture_init(&fx);
    /* Two stacks at other addresses but of the same functions make one line. */
    CHECK(add(&fx, p, user, 2, 1, 0x100) == 0);
    CHECK(add(&fx, p, user, 2, 1, 0x300) == 0);
    CHECK(add(&fx, p, user, 2, 1, 0x300) == 0);
    CHECK(add(&fx, p, kern, 2, 1, 0x500) == 0);
    CHECK_EQ_U64(fx.cs.nstacks, 3);
    out = render(&fx, true);
    CHECK(out);
    CHECK_STR(out, "my_prog_;main;do_syscall_64_[k] 1\n"
                   "my_prog_;main;ns::leaf(int:x) 3\n");
    free(out);
    cg_store_release(&fx.cs);
    process_free(p);
}

/* Names come to folded as every output shows them (C++ made short by resolve.c, tested in
 * test_shortname): nothing more is cut, not at a Go method's '(' nor at a bracket's. */
TEST(folded_names_are_not_cut)
{
    struct process *p = process_new(9, "prog");
    const uint32_t st[] = { S_LEAF, S_REC, S_MAIN };
    struct fixture fx;
    char *out;

    CHECK(p);
    fixture_init(&fx);
    fx.table[S_LEAF].name = "std::__throw_ios_failure->std::char_traits<char>::eq";
    fx.table[S_REC].name = "main.(*T).Method";
    fx.table[S_MAIN].name = "Foo::operator()";
    CHECK(add(&fx, p, st, 3, 1, 0x100) == 0);
    out = render(&fx, true);
    CHECK(out);
    CHECK_STR(out, "prog;Foo::operator();main.(*T).Method;std::__throw_ios_failure->"
                   "std::char_traits<char>::eq 1\n");
    free(out);
    cg_store_release(&fx.cs);
    process_free(p);
}

TEST(folded_lines_sort_as_their_text)
{
    struct process *p = process_new(3, "p");
    struct fixture fx;
    char *out;
    /* Leaf first; added out of order. */
    static const uint32_t l0[] = { S_REC, S_REC }, l1[] = { S_LEAF }, l2[] = { S_MAIN },
        l3[] = { S_KFUNC, S_REC }, l4[] = { S_REC, S_MAIN }, l5[] = { S_LEAF, S_REC },
        l6[] = { S_REC }, l7[] = { S_MAIN, S_REC };
    static const uint32_t *const lines[] = { l0, l1, l2, l3, l4, l5, l6, l7 };
    static const uint32_t lens[] = { 2, 1, 1, 2, 2, 2, 1, 2 };

    CHECK(p);
    fixture_init(&fx);
    /* Names that are prefixes of others, followed by bytes below and above ';': "foo.cold"
     * sorts before "foo;..." as strcmp has it, though "foo" < "foo.cold" as names. */
    fx.table[S_MAIN].name = "fo";
    fx.table[S_REC].name = "foo";
    fx.table[S_LEAF].name = "foo.cold";
    fx.table[S_KFUNC].name = "foo";
    for (int i = 0; i < 8; i++)
        CHECK(add(&fx, p, lines[i], lens[i], 1, 0x1000 * (i + 1)) == 0);
    out = render(&fx, true);
    CHECK(out);
    CHECK_STR(out, "p;fo 1\n"
                   "p;fo;foo 1\n"
                   "p;foo 1\n"
                   "p;foo.cold 1\n"
                   "p;foo;fo 1\n"
                   "p;foo;foo 1\n"
                   "p;foo;foo.cold 1\n"
                   "p;foo;foo_[k] 1\n");
    free(out);
    /* Two symbols of one name (in two libraries) make one line, as their text is one. */
    fx.table[S_LEAF].name = "foo";
    out = render(&fx, true);
    CHECK(out);
    CHECK_STR(out, "p;fo 1\n"
                   "p;fo;foo 1\n"
                   "p;foo 2\n"
                   "p;foo;fo 1\n"
                   "p;foo;foo 2\n"
                   "p;foo;foo_[k] 1\n");
    free(out);
    cg_store_release(&fx.cs);
    process_free(p);
}

TEST(frames_are_stored_once_and_stacks_found_after_sealing)
{
    struct process *p = process_new(4, "p");
    struct frame a[] = { { 0x10, NULL }, { 0x20, NULL }, { 0x30, NULL } };
    struct frame b[] = { { 0x11, NULL }, { 0x20, NULL }, { 0x30, NULL } };
    struct cg_store cs, copy;
    struct frame buf[16];
    const struct frame *f;

    CHECK(p);
    cg_store_init(&cs);
    cg_store_init(&copy);
    CHECK(cg_store_add_frames(&cs, p, a, 3, 1) == 0);
    CHECK(cg_store_add_frames(&cs, p, b, 3, 1) == 0);
    CHECK_EQ_U64(cs.nstacks, 2);
    CHECK_EQ_U64(cs.nframes, 6);
    CHECK_EQ_U64(cs.nuniq, 4);           /* the callers 0x20 and 0x30 once */
    f = stack_frames(&cs, 1, buf);
    CHECK_EQ_U64(f[0].addr, 0x11);
    CHECK_EQ_U64(f[2].addr, 0x30);
    /* Sealed, the lookup tables are gone; adding again makes them and finds the stacks. */
    cg_store_seal(&cs);
    CHECK(cs.table == NULL && cs.uniq_table == NULL);
    for (int i = 0; i < 2000; i++)
        CHECK(cg_store_add_frames(&cs, p, i & 1 ? a : b, 3, 2) == 0);
    CHECK_EQ_U64(cs.nstacks, 2);
    CHECK_EQ_U64(cs.stacks[0].samples, 1001);
    CHECK_EQ_U64(cs.stacks[1].period, 2001);
    CHECK(cg_store_add_frames(&cs, p, a, 2, 1) == 0);    /* a prefix is another stack */
    CHECK_EQ_U64(cs.nstacks, 3);
    CHECK_EQ_U64(cs.nuniq, 4);
    /* A stack copied from another store. */
    CHECK(cg_store_add_stack(&copy, &cs, &cs.stacks[1], 7) == 0);
    CHECK_EQ_U64(copy.nstacks, 1);
    CHECK_EQ_U64(copy.period, 7);
    f = stack_frames(&copy, 0, buf);
    CHECK_EQ_U64(f[0].addr, 0x11);
    CHECK_EQ_U64(f[1].addr, 0x20);
    /* Frames dropped (symbols resolved): the stacks and counts stay, adding is refused. */
    cg_store_drop_frames(&cs);
    CHECK(cs.ids == NULL && cs.uniq == NULL);
    CHECK_EQ_U64(cs.nstacks, 3);
    CHECK_EQ_U64(cs.stacks[1].n, 3);
    CHECK_EQ_U64(cs.stacks[0].samples, 1001);
    CHECK(cg_store_add_frames(&cs, p, a, 3, 1) == -EINVAL);
    CHECK_EQ_U64(cs.samples, 2003);
    cg_store_release(&cs);
    cg_store_release(&copy);
    process_free(p);
}

/* --children --sort tid: a per-thread store keeps two threads' equal stacks apart, also after
 * sealing, and a copied stack keeps its thread. */
TEST(per_thread_stores_keep_threads_apart)
{
    struct process *p = process_new(4, "p");
    struct frame a[] = { { 0x10, NULL }, { 0x20, NULL } };
    struct cg_store cs, copy;

    CHECK(p);
    cg_store_init(&cs);
    cg_store_init(&copy);
    cs.per_thread = true;
    for (int i = 0; i < 6; i++) {
        cs.tid = i & 1 ? 5 : 6;
        CHECK(cg_store_add_frames(&cs, p, a, 2, 1) == 0);
    }
    CHECK_EQ_U64(cs.nstacks, 2);
    CHECK(cs.stacks[0].tid == 6 && cs.stacks[1].tid == 5);
    CHECK_EQ_U64(cs.stacks[0].samples, 3);
    cg_store_seal(&cs);             /* the table made again from the stored stacks */
    cs.tid = 5;
    CHECK(cg_store_add_frames(&cs, p, a, 2, 1) == 0);
    CHECK_EQ_U64(cs.nstacks, 2);
    CHECK_EQ_U64(cs.stacks[1].samples, 4);
    CHECK(cg_store_add_stack(&copy, &cs, &cs.stacks[1], 1) == 0);
    CHECK(copy.nstacks == 1 && copy.stacks[0].tid == 5);
    cg_store_release(&cs);
    cg_store_release(&copy);
    process_free(p);
}

static char *render_tree(struct fixture *fx, const char *name, bool callers, double limit)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct calltree_opts o = { .name = name, .callers = callers, .percent_limit = limit,
                               .wide = true };
    int err;

    if (!f)
        return NULL;
    err = report_calltree(f, &fx->cs, &fx->cy, &o);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    return buf;
}

TEST(caller_and_callee_trees_count_recursion_once)
{
    struct process *p = process_new(7, "prog");
    const uint32_t deep[] = { S_LEAF, S_REC, S_REC, S_MAIN };
    const uint32_t flat[] = { S_LEAF, S_MAIN };
    const uint32_t sys[] = { S_KFUNC, S_MAIN };
    struct fixture fx;
    struct cg_tree t;
    char *out;

    CHECK(p);
    fixture_init(&fx);
    CHECK(add(&fx, p, deep, 4, 6, 0x100) == 0);
    CHECK(add(&fx, p, flat, 2, 3, 0x200) == 0);
    CHECK(add(&fx, p, sys, 2, 1, 0x300) == 0);
    /* Callees of rec start at its outermost frame: rec -> rec -> leaf, 60% each. */
    CHECK(cg_tree_build(&fx.cs, &fx.cy, "rec", false, &t) == 0);
    CHECK_EQ_U64(t.n, 4);
    CHECK_EQ_U64(t.nodes[1].period, 6);
    cg_tree_release(&t);
    out = render_tree(&fx, "main", false, 0);
    CHECK(out);
    CHECK_STR(out, "# Callees of main: what it spends its time in (% of every sample's period)\n#\n"
                   "   100.00%  main\n"
                   "    60.00%    rec\n"
                   "    60.00%      rec\n"
                   "    60.00%        ns::leaf(int;x)\n"
                   "    30.00%    ns::leaf(int;x)\n"
                   "    10.00%    do_syscall_64 [k]\n");
    free(out);
    /* Callers of leaf start at its innermost frame; the limit hides a subtree. */
    out = render_tree(&fx, "ns::leaf(int;x)", true, 50);
    CHECK(out);
    CHECK(strstr(out, "    90.00%  ns::leaf(int;x)\n"
                      "    60.00%    rec\n"
                      "    60.00%      rec\n"
                      "    60.00%        main\n"));
    CHECK(!strstr(out, "30.00%"));
    free(out);
    CHECK(!render_tree(&fx, "absent", true, 0));
    cg_store_release(&fx.cs);
    /* Deep trees stop indenting at 60 columns and print the depth. */
    fixture_init(&fx);
    uint32_t chain[40];
    for (int i = 0; i < 40; i++)
        chain[i] = i ? S_REC : S_LEAF;
    CHECK(add(&fx, p, chain, 16, 1, 0x100) == 0);     /* fixture room: 64 frames */
    CHECK(add(&fx, p, chain, 40, 1, 0x400) == 0);
    out = render_tree(&fx, "ns::leaf(int;x)", true, 0);
    CHECK(out);
    CHECK(strstr(out, "\n    50.00%  "
                      "                                                            (32) rec\n"));
    CHECK(!strstr(out, "(31)"));
    free(out);
    cg_store_release(&fx.cs);
    process_free(p);
}

TEST(children_rows_per_command_name)
{
    struct process *p = process_new(1, "app"), *q = process_new(2, "app");
    struct process *r = process_new(3, "sh");
    const uint32_t st[] = { S_LEAF, S_MAIN };
    struct children_opts o = { .wide = true, .by_comm = true };
    struct fixture fx;
    char *out;

    CHECK(p && q && r);
    fixture_init(&fx);
    CHECK(add(&fx, p, st, 2, 2, 0x100) == 0);     /* two processes of one name: one row */
    CHECK(add(&fx, q, st, 2, 1, 0x100) == 0);
    CHECK(add(&fx, r, st, 2, 1, 0x100) == 0);
    CHECK_EQ_U64(fx.cs.nstacks, 3);
    out = render_opts(&fx, false, &o);
    CHECK(out);
    CHECK(strstr(out, "# Children      Self  Command  Shared Object  Symbol\n"));
    CHECK(strstr(out, "    75.00%    75.00%  app      [unknown]      [.] ns::leaf(int;x)\n"));
    CHECK(strstr(out, "    25.00%     0.00%  sh       [unknown]      [.] main\n"));
    free(out);
    cg_store_release(&fx.cs);
    process_free(p);
    process_free(q);
    process_free(r);
}

int main(void)
{
    RUN(chain_markers_and_return_addresses);
    RUN(equal_stacks_are_stored_once_per_process);
    RUN(a_replaced_map_outlives_the_stacks_through_it);
    RUN(children_count_a_recursive_symbol_once_per_sample);
    RUN(folded_lines_merge_equal_names_and_mark_the_kernel);
    RUN(folded_names_are_not_cut);
    RUN(folded_lines_sort_as_their_text);
    RUN(frames_are_stored_once_and_stacks_found_after_sealing);
    RUN(per_thread_stores_keep_threads_apart);
    RUN(caller_and_callee_trees_count_recursion_once);
    RUN(children_rows_per_command_name);
    return 0;
}
