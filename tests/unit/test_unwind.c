/* SPDX-License-Identifier: MIT */
/* Unwinding (src/unwind/): perf's register layout, the DWARF expression evaluator, and an
 * unwind of this test's own stack, captured as the kernel would capture a sample's. */
#include <asm/perf_regs.h>
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callgraph/stacks.h"
#include "model/process.h"
#include "perf/evlist.h"
#include "perf/proc_synth.h"
#include "perf/record.h"
#include "symbol/dso.h"
#include "test.h"
#include "unwind/eval.h"
#include "unwind/regs.h"
#include "unwind/unwind.h"
#include "util/file.h"

TEST(regs_in_perf_order)
{
    uint64_t w[20];
    struct uw_regs r;

    for (int i = 0; i < 20; i++)
        w[i] = 100 + (uint64_t)i;
    CHECK(uw_regs_from_sample(UNWIND_X86_64_REGS_MASK, w, &r) == 0);
    CHECK_EQ_U64(r.r[DW_RAX], 100);         /* perf AX = bit 0 */
    CHECK_EQ_U64(r.r[DW_RBX], 101);         /* perf BX = bit 1, DWARF 3 */
    CHECK_EQ_U64(r.r[DW_RBP], 106);
    CHECK_EQ_U64(r.r[DW_RSP], 107);
    CHECK_EQ_U64(r.r[DW_RIP], 108);
    CHECK_EQ_U64(r.r[DW_R8], 112);          /* bits 12-15 (ds..gs) are not in the mask */
    CHECK_EQ_U64(r.r[DW_R15], 119);
    CHECK_EQ_U64(r.valid, (1u << DW_NREGS) - 1);
    /* A mask without ip: nothing to unwind from. */
    CHECK(uw_regs_from_sample(UNWIND_X86_64_REGS_MASK & ~(1ULL << PERF_REG_X86_IP), w, &r) ==
          -EINVAL);
}

TEST(eval_cfa_rules_and_bounds)
{
    uint64_t stack[4] = { 0x1111, 0x2222, 0x3333, 0x4444 }, v;
    struct uw_stack stk = { .base = 0x7000, .buf = (const uint8_t *)stack, .len = sizeof(stack) };
    struct uw_regs r = { .valid = 1u << DW_RSP | 1u << DW_RIP };
    uint64_t cfa = 0x7010;

    r.r[DW_RSP] = 0x7000;
    r.r[DW_RIP] = 0x40101b;
    /* def_cfa rsp+16, as libdw hands it over. */
    struct uw_op cfa_op[] = { { DW_OP_bregx, DW_RSP, 16 } };
    CHECK(uw_eval(cfa_op, 1, &r, &stk, NULL, &v) == 0);
    CHECK_EQ_U64(v, 0x7010);
    /* offset(-8): the return address saved at CFA-8. */
    struct uw_op ra[] = { { DW_OP_call_frame_cfa, 0, 0 }, { DW_OP_consts, (uint64_t)-8, 0 },
                          { DW_OP_plus, 0, 0 }, { DW_OP_deref, 0, 0 } };
    CHECK(uw_eval(ra, 4, &r, &stk, &cfa, &v) == 0);
    CHECK_EQ_U64(v, 0x2222);
    /* The PLT's CFA: rsp + 8 + (rip & 15 >= 11 ? 8 : 0). */
    struct uw_op plt[] = { { DW_OP_breg7, 8, 0 }, { DW_OP_breg16, 0, 0 }, { DW_OP_lit15, 0, 0 },
                           { DW_OP_and, 0, 0 }, { DW_OP_lit11, 0, 0 }, { DW_OP_ge, 0, 0 },
                           { DW_OP_lit3, 0, 0 }, { DW_OP_shl, 0, 0 }, { DW_OP_plus, 0, 0 } };
    CHECK(uw_eval(plt, 9, &r, &stk, NULL, &v) == 0);
    CHECK_EQ_U64(v, 0x7010);
    /* Hostile or impossible: memory outside the copy, a register not sampled, the CFA
     * inside its own rule, an empty stack, an op we do not know. */
    struct uw_op far[] = { { DW_OP_breg7, 32, 0 }, { DW_OP_deref, 0, 0 } };
    CHECK(uw_eval(far, 2, &r, &stk, NULL, &v) == -EFAULT);
    struct uw_op high[] = { { DW_OP_const8u, UINT64_MAX - 3, 0 }, { DW_OP_deref, 0, 0 } };
    CHECK(uw_eval(high, 2, &r, &stk, NULL, &v) == -EFAULT);
    struct uw_op rbx[] = { { DW_OP_breg3, 0, 0 } };
    CHECK(uw_eval(rbx, 1, &r, &stk, NULL, &v) == -ENOENT);
    CHECK(uw_eval(ra, 4, &r, &stk, NULL, &v) == -EINVAL);
    struct uw_op under[] = { { DW_OP_plus, 0, 0 } };
    CHECK(uw_eval(under, 1, &r, &stk, NULL, &v) == -EINVAL);
    struct uw_op odd[] = { { DW_OP_lit1, 0, 0 }, { DW_OP_GNU_push_tls_address, 0, 0 } };
    CHECK(uw_eval(odd, 2, &r, &stk, NULL, &v) == -EINVAL);
    CHECK(uw_stack_read(&stk, 0x7018, &v) == 0 && v == 0x4444);
    CHECK(uw_stack_read(&stk, 0x7019, &v) == -EFAULT);
}

/* This process's own executable maps, as a session would have them from MMAP2 records. */
static struct process *self_process(struct dso_cache *dc)
{
    struct process *p = process_new(getpid(), "self");
    char *maps, *line, *next;

    if (!p || file_read_all("/proc/self/maps", &maps, NULL, 16u << 20))
        return p;
    for (line = maps; line && *line; line = next) {
        uint64_t s, e, off, ino;
        uint32_t prot, maj, min;
        const char *path;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (proc_parse_maps_line(line, &s, &e, &prot, &off, &maj, &min, &ino, &path) ||
            !(prot & 4) || path[0] != '/')
            continue;
        struct dso *d = dso_cache_get_mapped(dc, path, maj, min, ino);
        if (d)
            process_add_map(p, s, e - s, off, d, prot, 0);
    }
    free(maps);
    return p;
}

#define SNAP 8192
struct snap {
    uint64_t words[3];            /* perf order for the mask bp|sp|ip */
    uint8_t stack[SNAP];
    uint64_t len;                 /* bytes copied: up to the stack's top, as the kernel does */
};
static uint64_t stack_top;        /* the end of [stack] in /proc/self/maps */

static void find_stack_top(void)
{
    char *maps, *line;
    if (file_read_all("/proc/self/maps", &maps, NULL, 16u << 20))
        return;
    for (line = maps; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        unsigned long long lo, hi;
        const char *eol = strchr(line, '\n');
        if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && eol && eol - line > 7 &&
            !memcmp(eol - 7, "[stack]", 7))
            stack_top = hi;
    }
    free(maps);
}

/* Copies the stack as the kernel does for a sample (ASan's redzones are plain bytes here). */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(uint8_t *dst,
                                                                      const uint8_t *src,
                                                                      size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((volatile uint8_t *)dst)[i] = src[i];
}

__attribute__((noinline)) static void capture(struct snap *s)
{
    uint64_t sp, bp, ip;
    __asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2"
                     : "=r"(sp), "=r"(bp), "=r"(ip));
    s->words[0] = bp;
    s->words[1] = sp;
    s->words[2] = ip;
    s->len = stack_top > sp && stack_top - sp < SNAP ? stack_top - sp : SNAP;
    copy_stack(s->stack, (const uint8_t *)(uintptr_t)sp, s->len);
    __asm__ volatile("");
}

__attribute__((noinline)) static void level3(struct snap *s) { capture(s); __asm__ volatile(""); }
__attribute__((noinline)) static void level2(struct snap *s) { level3(s); __asm__ volatile(""); }
__attribute__((noinline)) static void level1(struct snap *s) { level2(s); __asm__ volatile(""); }

static const char *frame_name(const struct frame *f)
{
    struct symres sr;
    uint64_t va;
    const struct map *m = f->map;
    if (!m || dso_map_to_vaddr(m->dso, m->start, m->pgoff, f->addr, &va) ||
        dso_resolve(m->dso, va, &sr))
        return NULL;
    return sr.name;
}

TEST(unwinds_own_stack_from_cfi)
{
    static struct snap s;
    struct dso_cache *dc = dso_cache_new();
    struct process *p = dc ? self_process(dc) : NULL;
    struct unwinder *uw = unwinder_new();
    struct evsel sel = { 0 };
    struct frame *frames = NULL;
    size_t cap = 0;
    uint32_t n = 0;
    const char *want[] = { "capture", "level3", "level2", "level1" };

    CHECK(dc && p && uw);
    find_stack_top();
    CHECK(stack_top);
    level1(&s);
    sel.attr.sample_regs_user = 1ULL << PERF_REG_X86_BP | 1ULL << PERF_REG_X86_SP |
                                1ULL << PERF_REG_X86_IP;
    struct sample smp = { .evsel = &sel, .cpumode = PERF_RECORD_MISC_USER, .ip = s.words[2],
                          .regs_abi = PERF_SAMPLE_REGS_ABI_64, .regs_user = s.words,
                          .stack_user = s.stack, .stack_size = SNAP, .stack_dyn_size = s.len };
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 1);
    CHECK(n >= 5);
    for (int i = 0; i < 4; i++)
        CHECK_STR(frame_name(&frames[i]), want[i]);
    CHECK_STR(frame_name(&frames[4]), "unwinds_own_stack_from_cfi");

    /* A copy that ends early: the unwind stops where the next return address is missing. */
    n = 0;
    smp.stack_dyn_size = 8;
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 1);
    CHECK(n >= 1 && n < 4);
    CHECK(unwinder_stats(uw)->snapshot_end == 1);
    /* A dyn_size beyond the copy is clamped to it, and counted. */
    n = 0;
    smp.stack_dyn_size = 1ULL << 40;
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 1);
    CHECK(n >= 5 && unwinder_stats(uw)->bad_dyn_size == 1);
    /* The CFI freed after a sample pass (unwinder_drop_cfi): a later sample opens it again and
     * unwinds the same, and the statistics stay. */
    uint32_t before = n;
    unwinder_drop_cfi(uw);
    CHECK(unwinder_stats(uw)->bad_dyn_size == 1);
    n = 0;
    smp.stack_dyn_size = s.len;
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 1);
    CHECK_EQ_U64(n, before);
    for (int i = 0; i < 4; i++)
        CHECK_STR(frame_name(&frames[i]), want[i]);
    CHECK_EQ_U64(unwinder_stats(uw)->dwarf_samples, 4);
    free(frames);
    unwinder_free(uw);
    process_free(p);
    dso_cache_free(dc);
}

/* The frameless-leaf fix: a sample at fl_leaf's first instruction (no frame yet), whose
 * frame-pointer chain goes on with the return address into fl_top: fl_mid is missing. */
static uint64_t fl_ret;
__attribute__((noinline)) static void fl_leaf(void) { __asm__ volatile(""); }
__attribute__((noinline)) static void fl_mid(void)
{
    fl_ret = (uint64_t)(uintptr_t)__builtin_return_address(0);
    fl_leaf();
    __asm__ volatile("");
}
__attribute__((noinline)) static void fl_top(void) { fl_mid(); __asm__ volatile(""); }

TEST(frameless_leaf_gets_its_caller_back)
{
    struct dso_cache *dc = dso_cache_new();
    struct process *p = dc ? self_process(dc) : NULL;
    struct unwinder *uw = unwinder_new();
    struct frame *frames = malloc(2 * sizeof(*frames));
    size_t cap = 2;
    uint32_t n = 2;
    const uint64_t chain[] = { PERF_CONTEXT_USER, 0, 0 };
    struct sample smp = { .cpumode = PERF_RECORD_MISC_USER, .nr_callchain = 3,
                          .callchain = chain };

    CHECK(dc && p && uw && frames);
    fl_top();
    frames[0] = (struct frame){ (uint64_t)(uintptr_t)fl_leaf, NULL };
    frames[1] = (struct frame){ fl_ret - 1, NULL };
    frames[0].map = process_find_map(p, frames[0].addr);
    frames[1].map = process_find_map(p, frames[1].addr);
    CHECK(frames[0].map && frames[1].map);
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 1);
    CHECK_EQ_U64(n, 3);
    CHECK_STR(frame_name(&frames[0]), "fl_leaf");
    CHECK_STR(frame_name(&frames[1]), "fl_mid");
    CHECK_STR(frame_name(&frames[2]), "fl_top");
    CHECK_EQ_U64(unwinder_stats(uw)->leaf_fixed, 1);
    /* The same pair again: the remembered decision gives the same caller. */
    uint64_t leaf_ret = frames[2].addr;
    const struct map *leaf_map = frames[2].map;
    n = 2;
    frames[0] = (struct frame){ (uint64_t)(uintptr_t)fl_leaf, leaf_map };
    frames[1] = (struct frame){ leaf_ret, leaf_map };
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 1);
    CHECK_EQ_U64(n, 3);
    CHECK_STR(frame_name(&frames[1]), "fl_mid");
    CHECK_STR(frame_name(&frames[2]), "fl_top");
    CHECK_EQ_U64(unwinder_stats(uw)->leaf_fixed, 2);
    /* A kernel frame after the user leaf (a chain out of order in a -a file): no caller to
     * look for, no crash (kernel_map has no DSO). */
    n = 2;
    frames[0] = (struct frame){ (uint64_t)(uintptr_t)fl_leaf, leaf_map };
    frames[1] = (struct frame){ 12, &kernel_map };
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 0);
    CHECK_EQ_U64(n, 2);
    /* A chain whose leaf has its frame (inside fl_top's body, past its prologue) is kept. */
    n = 2;
    frames[0] = (struct frame){ fl_ret, frames[1].map };
    frames[1] = (struct frame){ fl_ret - 1, frames[1].map };
    CHECK(unwind_sample(uw, p, &smp, &frames, &cap, &n) == 0);
    CHECK_EQ_U64(n, 2);
    free(frames);
    unwinder_free(uw);
    process_free(p);
    dso_cache_free(dc);
}

int main(void)
{
    RUN(regs_in_perf_order);
    RUN(eval_cfa_rules_and_bounds);
    RUN(unwinds_own_stack_from_cfi);
    RUN(frameless_leaf_gets_its_caller_back);
    return 0;
}
