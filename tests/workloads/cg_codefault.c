/* Code page faults on a function's first instruction (tests/e2e/callgraph_shapes.sh): target()
 * starts a page of its own, right after before() (never called) ends; each round drops the
 * page with MADV_DONTNEED, so the call faults again at target's entry. The kernel's fault
 * frames sit on a user frame whose ip is exactly target (not a return address).
 *   cg_codefault ROUNDS */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

__asm__(".text\n"
        ".p2align 12\n"
        ".globl before\n.type before, @function\n"
        "before:\n ret\n .skip 4095, 0xcc\n"
        ".size before, 4096\n"
        ".globl target\n.type target, @function\n"
        "target:\n mov $200, %ecx\n1: dec %ecx\n jnz 1b\n ret\n"
        ".size target, .-target\n"
        ".p2align 12\n");          /* main and the rest in other pages */
void target(void);

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    uintptr_t page = (uintptr_t)target & ~(uintptr_t)4095;

    for (long i = 0; i < n; i++) {
        madvise((void *)page, 4096, MADV_DONTNEED);
        target();
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
