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

int main(void)
{
    RUN(a_relocated_function_runs_and_counts_its_blocks);
    RUN(a_jump_table_and_a_call_when_refused_are_refused);
    return 0;
}
