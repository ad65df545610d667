/* A frameless leaf whose rbp is no frame pointer (code built without them uses it as any
 * register): here it points at a stale pair (0, a real return address in caller, just after
 * its call to other). The kernel's frame-pointer walk then gives leaf, caller; other never
 * calls leaf, so no report may show other as leaf's caller. */
#include <stdint.h>
#include <stdlib.h>

volatile uint64_t sink;
uint64_t stale[2];
extern char ret_after_other[];

__attribute__((noinline, used)) void other(void)
{
    sink++;
}

__attribute__((noinline)) void caller(void)
{
    __asm__ volatile("call other\n.globl ret_after_other\nret_after_other:\n"
                     ::: "memory", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
}

__attribute__((noinline)) void leaf(long n)
{
    stale[0] = 0;
    stale[1] = (uint64_t)(uintptr_t)ret_after_other;
    __asm__ volatile("push %%rbp\n\tmov %1, %%rbp\n1:\tdec %0\n\tjnz 1b\n\tpop %%rbp"
                     : "+r"(n) : "r"(stale) : "memory", "cc");
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000000;
    caller();
    leaf(n);
    return 0;
}
/* SPDX-License-Identifier: MIT */
