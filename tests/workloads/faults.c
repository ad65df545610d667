/* Page faults in two functions (for `-e page-faults` reports): touch_first faults argv[1]
 * pages first, then touch_second ten times as many, each page of fresh anonymous memory
 * once. In frequency mode the kernel starts with short periods, so touch_first gets more of
 * the samples than of the faults: a report that weighs samples, not periods, disagrees with
 * perf. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline __attribute__((always_inline)) void touch(size_t pages)
{
    long psz = sysconf(_SC_PAGESIZE);
    volatile char *p = mmap(NULL, pages * (size_t)psz, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    for (size_t i = 0; i < pages; i++)
        p[i * (size_t)psz] = 1;
    munmap((void *)p, pages * (size_t)psz);
}

__attribute__((noinline)) void touch_first(size_t pages) { touch(pages); }
__attribute__((noinline)) void touch_second(size_t pages) { touch(pages); }

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
    touch_first(n);
    touch_second(10 * n);
    return 0;
}
/* SPDX-License-Identifier: MIT */
