/* A malloc that dies on its 50th call (tests/e2e/replay.sh: a crashing allocator). */
#include <stddef.h>
extern void *__libc_malloc(size_t);
void *malloc(size_t n)
{
    static int calls;
    if (++calls == 50)
        __builtin_trap();
    return __libc_malloc(n);
}
/* SPDX-License-Identifier: MIT */
