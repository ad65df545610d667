/* SPDX-License-Identifier: MIT */
/* jump_code: which function prefixes can be moved for a jump entry, and how they are rewritten.
 * The byte sequences are what gcc emits (checked with objdump). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "test.h"
#include "probe/jump_code.h"

static char why[256];

/* region_leaf at 0x11e0: mov 0x2e49(%rip),%rax; add %rdi,%rax; mov %rax,0x2e3f(%rip); ret */
static const uint8_t leaf[] = { 0x48, 0x8b, 0x05, 0x49, 0x2e, 0x00, 0x00, 0x48, 0x01, 0xf8,
                                0x48, 0x89, 0x05, 0x3f, 0x2e, 0x00, 0x00, 0xc3 };

TEST(rip_relative_load_is_moved_and_fixed_up)
{
    struct jump_prefix p;
    CHECK(jump_code_prefix(leaf, sizeof(leaf), 0x11e0, &p, why, sizeof(why)) == 0);
    CHECK_EQ_U64(p.len, 7);                       /* one 7-byte instruction covers 5 bytes */
    CHECK_EQ_U64(p.stub_len, 7);
    CHECK(memcmp(p.stub, leaf, 7) == 0);
    CHECK_EQ_U64(p.nfix, 1);
    CHECK_EQ_U64(p.fix[0].disp_off, 3);
    CHECK_EQ_U64(p.fix[0].insn_end, 7);
    CHECK_EQ_U64(p.fix[0].target, 0x4030);        /* sink, as objdump says */
}

/* work at 0x1270: test %rdi,%rdi; jle 0x129a; xor %eax,%eax; ... (0x2a bytes, padded) */
TEST(conditional_jump_is_reencoded_rel32)
{
    uint8_t f[0x2a];
    struct jump_prefix p;
    memset(f, 0x90, sizeof(f));
    memcpy(f, (const uint8_t[]){ 0x48, 0x85, 0xff, 0x7e, 0x25, 0x31, 0xc0 }, 7);
    f[sizeof(f) - 1] = 0xc3;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1270, &p, why, sizeof(why)) == 0);
    CHECK_EQ_U64(p.len, 5);                       /* test (3) + jle rel8 (2) */
    CHECK_EQ_U64(p.stub_len, 9);                  /* test (3) + jle rel32 (6) */
    CHECK(memcmp(p.stub, f, 3) == 0);
    CHECK_EQ_U64(p.stub[3], 0x0f);
    CHECK_EQ_U64(p.stub[4], 0x8e);                /* jle */
    CHECK_EQ_U64(p.nfix, 1);
    CHECK_EQ_U64(p.fix[0].disp_off, 5);
    CHECK_EQ_U64(p.fix[0].insn_end, 9);
    CHECK_EQ_U64(p.fix[0].target, 0x129a);
}

TEST(plain_instructions_are_copied)
{
    /* push %rbp; mov %rsp,%rbp; sub $0x10,%rsp; ... ret */
    static const uint8_t f[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3 };
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == 0);
    CHECK_EQ_U64(p.len, 8);
    CHECK_EQ_U64(p.nfix, 0);
    CHECK(memcmp(p.stub, f, 8) == 0);
}

TEST(return_in_prefix_is_refused)
{
    static const uint8_t f[] = { 0x31, 0xc0, 0xc3, 0x90, 0x90, 0x90 };  /* xor; ret */
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "transfers control") != NULL);
}

TEST(call_in_prefix_is_refused)
{
    static const uint8_t f[] = { 0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3 };   /* call; ret */
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "call") != NULL);
}

TEST(function_shorter_than_a_jump_is_refused)
{
    static const uint8_t f[] = { 0x31, 0xc0, 0x90 };
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "shorter than 5 bytes") != NULL);
}

TEST(jump_back_into_prefix_is_refused)
{
    /* 0x1000: test %edi,%edi; jne 0x1000 (rel8 -4) */
    static const uint8_t f[] = { 0x85, 0xff, 0x75, 0xfc, 0x90, 0x90, 0xc3 };
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "back into") != NULL);
}

TEST(indirect_jump_anywhere_is_refused)
{
    /* mov %rdi,%rax; nop...; jmp *%rax (a jump table could land in the prefix) */
    static const uint8_t f[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xc1, 0x90, 0xff, 0xe0 };
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "indirect jump") != NULL);
}

TEST(jrcxz_in_prefix_is_refused)
{
    /* jrcxz has no 32-bit form, so it cannot be re-encoded for the stub. */
    static const uint8_t f[] = { 0xe3, 0x10, 0x90, 0x90, 0x90, 0x90, 0xc3 };
    struct jump_prefix p;
    CHECK(jump_code_prefix(f, sizeof(f), 0x1000, &p, why, sizeof(why)) == -EINVAL);
}

struct targets {
    uint64_t t[8];
    int n;
};

static void on_target(void *arg, uint64_t t)
{
    struct targets *tg = arg;
    if (tg->n < 8)
        tg->t[tg->n++] = t;
}

TEST(branch_targets_and_taken_addresses_found_by_linear_sweep)
{
    /* 0x2000: jmp 0x2010 (rel8); call 0x3000 (rel32); jne 0x2002; jmp *%rax; bad byte;
     * lea 0x10(%rip),%rax (an address taken: 0x2023); ret */
    static const uint8_t code[] = { 0xeb, 0x0e,                         /* 0x2000 */
                                    0xe8, 0xf9, 0x0f, 0x00, 0x00,       /* 0x2002 */
                                    0x75, 0xf9,                         /* 0x2007 */
                                    0xff, 0xe0,                         /* 0x2009 */
                                    0x06,                               /* invalid in 64-bit */
                                    0x48, 0x8d, 0x05, 0x10, 0, 0, 0,    /* 0x200c */
                                    0xc3 };
    struct targets tg = { .n = 0 };
    CHECK(jump_code_branch_targets(code, sizeof(code), 0x2000, on_target, &tg) == 0);
    CHECK_EQ_U64(tg.n, 4);
    CHECK_EQ_U64(tg.t[0], 0x2010);
    CHECK_EQ_U64(tg.t[1], 0x3000);
    CHECK_EQ_U64(tg.t[2], 0x2002);
    CHECK_EQ_U64(tg.t[3], 0x2023);
}

/* Exits: every ret, a jmp out of the function, a jmp back to its entry (self tail call); not a
 * jump inside it, nor a jump table's dispatch. */
TEST(exits_are_returns_and_tail_calls)
{
    static const uint8_t f[] = {
        0x85, 0xff,                         /* 1000 test %edi,%edi */
        0x74, 0x01,                         /* 1002 je 1005 (inside) */
        0xc3,                               /* 1004 ret */
        0x48, 0x8d, 0x15, 0, 0, 0, 0,       /* 1005 lea 0(%rip),%rdx */
        0x48, 0x63, 0x04, 0xba,             /* 100c movslq (%rdx,%rdi,4),%rax */
        0x48, 0x01, 0xd0,                   /* 1010 add %rdx,%rax */
        0xff, 0xe0,                         /* 1013 jmp *%rax (a jump table) */
        0xe9, 0xe6, 0x0f, 0, 0,             /* 1015 jmp 2000 (a tail call) */
        0xeb, 0xe4,                         /* 101a jmp 1000 (back to the entry) */
    };
    struct code_part part = { f, sizeof(f), 0x1000 };
    uint64_t x[CODE_MAX_EXITS];
    size_t n = 0;
    CHECK(jump_code_exits(&part, 1, 0x1000, x, &n, why, sizeof(why)) == 0);
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_U64(x[0], 0x1004);
    CHECK_EQ_U64(x[1], 0x1015);
    CHECK_EQ_U64(x[2], 0x101a);
}

TEST(unknown_exits_are_refused)
{
    static const uint8_t ind[] = { 0x5d, 0xff, 0xe0 };          /* pop %rbp; jmp *%rax */
    static const uint8_t cond[] = { 0x85, 0xff, 0x0f, 0x85, 0xf8, 0x0f, 0, 0, 0xc3 };
    struct code_part a = { ind, sizeof(ind), 0x1000 }, b = { cond, sizeof(cond), 0x1000 };
    uint64_t x[CODE_MAX_EXITS];
    size_t n;
    CHECK(jump_code_exits(&a, 1, 0x1000, x, &n, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "indirect jump") != NULL);
    CHECK(jump_code_exits(&b, 1, 0x1000, x, &n, why, sizeof(why)) == -EINVAL);
    CHECK(strstr(why, "conditional tail call") != NULL);
}

/* The jump for a ret goes before it, over instructions whose stack effect is known. */
TEST(exit_point_before_ret_with_stack_delta)
{
    static const uint8_t f[] = {
        0x48, 0x89, 0xf8,                   /* 1000 mov %rdi,%rax */
        0x48, 0x83, 0xc4, 0x18,             /* 1003 add $0x18,%rsp */
        0x5b,                               /* 1007 pop %rbx */
        0x5d,                               /* 1008 pop %rbp */
        0xc3,                               /* 1009 ret */
    };
    static const uint8_t leave[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf8, 0xc9, 0xc3 };
    uint64_t at = 0;
    int64_t d = 0;
    struct jump_prefix p;
    CHECK(jump_code_exit_point(f, sizeof(f), 0x1000, 0x1009, &at, &d, why, sizeof(why)) == 0);
    CHECK_EQ_U64(at, 0x1003);
    CHECK_EQ_U64((uint64_t)d, 0x28);
    CHECK(jump_code_prefix_to_ret(f + 3, sizeof(f) - 3, 0x1003, &p, why, sizeof(why)) == 0);
    CHECK_EQ_U64(p.len, 5);             /* add, pop: the rest runs in place */
    CHECK(jump_code_exit_point(leave, sizeof(leave), 0x1000, 0x1007, &at, &d, why,
                               sizeof(why)) == -EINVAL);
}

int main(void)
{
    RUN(rip_relative_load_is_moved_and_fixed_up);
    RUN(conditional_jump_is_reencoded_rel32);
    RUN(plain_instructions_are_copied);
    RUN(return_in_prefix_is_refused);
    RUN(call_in_prefix_is_refused);
    RUN(function_shorter_than_a_jump_is_refused);
    RUN(jump_back_into_prefix_is_refused);
    RUN(indirect_jump_anywhere_is_refused);
    RUN(jrcxz_in_prefix_is_refused);
    RUN(branch_targets_and_taken_addresses_found_by_linear_sweep);
    RUN(exits_are_returns_and_tail_calls);
    RUN(unknown_exits_are_refused);
    RUN(exit_point_before_ret_with_stack_delta);
    return 0;
}
