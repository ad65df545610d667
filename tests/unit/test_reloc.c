/* SPDX-License-Identifier: MIT */
/* Whole-function relocation with counters (src/probe/reloc_func.c): the copy is built, its
 * fixes applied as the in-process hook applies them, and run here: it returns what the
 * original returns and its counters count each block's executions. */
#include <string.h>
#include <sys/mman.h>
#include "test.h"
#include "probe/reloc_func.h"

/* f(a, b): 1 when a > b, 0 when equal (a < b: eax unchanged). The second jcc tests flags set before its
 * block starts, so its counter must keep them.
 *   0: cmp %esi,%edi    2: jl 8     4: jg 9     6: xor %eax,%eax    8: ret
 *   9: mov $1,%eax      e: ret */
static const uint8_t cmp3[] = { 0x39, 0xf7, 0x7c, 0x04, 0x7f, 0x03, 0x31, 0xc0, 0xc3,
                                0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 };

/* The copy in executable memory, its counters on the next page (within reach of rel32):
 * *counters; NULL on failure. */
static void *place(const struct reloc_code *rc, uint64_t **counters_out)
{
    uint8_t *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t *counters = (uint64_t *)(m + 4096);
    if (m == MAP_FAILED || rc->code.n > 4096)
        return NULL;
    *counters_out = counters;
    memcpy(m, rc->code.v, rc->code.n);
    for (size_t i = 0; i < rc->fixes.n; i++) {
        const struct reloc_fix *f = &rc->fixes.v[i];
        uint64_t to = f->counter ? (uint64_t)(counters + f->target) : 0;
        int32_t d = (int32_t)(int64_t)(to - ((uint64_t)m + f->end));
        if (!f->counter)
            return NULL;                /* the function calls nothing outside */
        memcpy(m + f->at, &d, 4);
        m[f->at - 4] = RELOC_LOCKED;
    }
    if (mprotect(m, 4096, PROT_READ | PROT_EXEC))
        return NULL;
    return m;
}

TEST(a_relocated_function_runs_and_counts_its_blocks)
{
    static const struct reloc_counter cnt[] = {
        { 0x1000, 0 }, { 0x1004, 1 }, { 0x1006, 2 }, { 0x1008, 3 }, { 0x1009, 4 } };
    struct reloc_code rc = { 0 };
    uint64_t *counters = NULL;
    char why[200];
    uint32_t entry = 99;
    int (*f)(int, int);
    void *m;

    CHECK(reloc_function(&rc, cmp3, sizeof(cmp3), 0x1000, cnt, 5, false, &entry, why,
                         sizeof(why)) == 0);
    CHECK_EQ_U64(entry, 0);
    CHECK_EQ_U64(rc.slow, 1);                  /* only the jg's block keeps the flags */
    CHECK(rc.fixes.n == 5);
    m = place(&rc, &counters);
    CHECK(m != NULL);
    if (!m)
        return;
    f = (int (*)(int, int))m;
    (void)f(1, 2);                             /* jl taken (eax as it was) */
    CHECK(f(3, 2) == 1);                       /* jg taken: the counter kept the flags */
    CHECK(f(2, 2) == 0);                       /* neither: xor */
    CHECK_EQ_U64(counters[0], 3);
    CHECK_EQ_U64(counters[1], 2);
    CHECK_EQ_U64(counters[2], 1);
    CHECK_EQ_U64(counters[3], 2);              /* from the jl and from the xor */
    CHECK_EQ_U64(counters[4], 1);
    munmap(m, 8192);
    reloc_code_release(&rc);
}

TEST(a_jump_table_and_a_call_when_refused_are_refused)
{
    /* jmp *%rax; ret */
    static const uint8_t ind[] = { 0xff, 0xe0, 0xc3 };
    /* call +0; ret */
    static const uint8_t call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3 };
    struct reloc_code rc = { 0 };
    char why[200];
    uint32_t entry;

    CHECK(reloc_function(&rc, ind, sizeof(ind), 0x2000, NULL, 0, false, &entry, why,
                         sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "indirect jump") != NULL);
    CHECK(reloc_function(&rc, call, sizeof(call), 0x2000, NULL, 0, true, &entry, why,
                         sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "a call") != NULL);
    CHECK_EQ_U64(rc.code.n, 0);                 /* nothing left behind */
    CHECK(reloc_function(&rc, call, sizeof(call), 0x2000, NULL, 0, false, &entry, why,
                         sizeof(why)) == 0);
    CHECK_EQ_U64(rc.code.n, 6);                 /* an in-function call goes to the copy */
    CHECK_EQ_U64(rc.fixes.n, 0);
    reloc_code_release(&rc);
}

static uintptr_t returned_to;

__attribute__((noinline)) static long callee(void)
{
    returned_to = (uintptr_t)__builtin_return_address(0);
    return 40;
}

/* f(a, g) = g() + a: push %rbx; mov %rdi,%rbx; call *%rsi; add %rbx,%rax; pop %rbx; ret.
 * The call's bytes overlap the entry's jmp: the copy pushes the return address and jumps;
 * the return site (6) has the 5 bytes a jmp back to the copy needs. */
static const uint8_t pushes[] = { 0x53, 0x48, 0x89, 0xfb, 0xff, 0xd6, 0x48, 0x01, 0xd8, 0x5b,
                                  0xc3 };
/* The same with a nop before the call (5): the copy jumps to the original's call itself. */
static const uint8_t keeps[] = { 0x53, 0x48, 0x89, 0xfb, 0x90, 0xff, 0xd6, 0x48, 0x01, 0xd8,
                                 0x5b, 0xc3 };

/* Relocates code (its return site at `site`) over a page, patches it as the hook does, runs
 * f(2, callee): checks what the callee returns to and the counters. */
static void run_call(const char *test_name_, const uint8_t *code, size_t n, size_t site)
{
    uint8_t *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                      0);
    uint64_t orig = (uint64_t)m, *counters = (uint64_t *)(m + 8192);
    struct reloc_counter cnt[] = { { orig, 0 }, { orig + site, 1 } };
    struct reloc_code rc = { 0 };
    char why[200];
    uint32_t entry;
    int32_t d;
    long (*f)(long, long (*)(void));

    CHECK(m != MAP_FAILED);
    if (m == MAP_FAILED)
        return;
    memcpy(m, code, n);
    CHECK(reloc_function(&rc, code, n, orig, cnt, 2, false, &entry, why, sizeof(why)) == 0);
    CHECK(rc.calls);
    CHECK_EQ_U64(rc.sites.n, 1);
    CHECK(rc.code.n < 4096);
    if (rc.sites.n != 1 || rc.code.n >= 4096)
        return;
    CHECK_EQ_U64(rc.sites.v[0].addr, orig + site);
    CHECK_EQ_U64(rc.sites.v[0].hop, 0);
    memcpy(m + 4096, rc.code.v, rc.code.n);     /* the copy, fixed as the hook fixes it */
    for (size_t i = 0; i < rc.fixes.n; i++) {
        const struct reloc_fix *x = &rc.fixes.v[i];
        uint64_t to = x->counter ? (uint64_t)(counters + x->target) : x->target;
        if (x->abs) {
            memcpy(m + 4096 + x->at, &x->target, 8);
            continue;
        }
        d = (int32_t)(int64_t)(to - (orig + 4096 + x->end));
        memcpy(m + 4096 + x->at, &d, 4);
    }
    m[0] = 0xe9;                                /* the entry and the return site: jmp copy */
    d = (int32_t)(4096 + entry - 5);
    memcpy(m + 1, &d, 4);
    m[site] = 0xe9;
    d = (int32_t)(4096 + rc.sites.v[0].copy - (site + 5));
    memcpy(m + site + 1, &d, 4);
    CHECK(mprotect(m, 8192, PROT_READ | PROT_EXEC) == 0);
    f = (long (*)(long, long (*)(void)))(void *)m;
    CHECK(f(2, callee) == 42);
    CHECK_EQ_U64(returned_to, orig + site);     /* the original's return address */
    CHECK_EQ_U64(counters[0], 1);
    CHECK_EQ_U64(counters[1], 1);               /* counted in the copy after the return */
    munmap(m, 3 * 4096);
    reloc_code_release(&rc);
}

TEST(a_call_of_the_copy_returns_through_the_original)
{
    run_call(test_name_, pushes, sizeof(pushes), 6);
}

TEST(a_call_kept_in_the_original_returns_there)
{
    returned_to = 0;
    run_call(test_name_, keeps, sizeof(keeps), 7);
}

TEST(a_call_into_its_own_body_goes_to_the_copy)
{
    /* 5 nops; call 10 (its own ret); ret; 4 nops; ret */
    static const uint8_t inner[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0xe8, 0, 0, 0, 0, 0xc3,
                                     0x90, 0x90, 0x90, 0x90, 0xc3 };
    struct reloc_code rc = { 0 };
    char why[200];
    uint32_t entry;

    CHECK(reloc_function(&rc, inner, sizeof(inner), 0x2000, NULL, 0, false, &entry, why,
                         sizeof(why)) == 0);
    CHECK_EQ_U64(rc.sites.n, 1);                /* returns through the original's 0x200a */
    CHECK_EQ_U64(rc.fixes.n, 1);                /* the pushed address; no jmp to 0x2005 */
    CHECK(rc.fixes.v[0].abs);
    CHECK_EQ_U64(rc.fixes.v[0].target, 0x200a);
    reloc_code_release(&rc);
}

int main(void)
{
    RUN(a_relocated_function_runs_and_counts_its_blocks);
    RUN(a_jump_table_and_a_call_when_refused_are_refused);
    RUN(a_call_of_the_copy_returns_through_the_original);
    RUN(a_call_kept_in_the_original_returns_there);
    RUN(a_call_into_its_own_body_goes_to_the_copy);
    return 0;
}
