/* Touches exactly N fresh pages inside touch_pages() (argv[1], default 2000). prepare() maps
 * the memory without touching it (no page faults inside it). The lines between the
 * REGION-START and REGION-END markers are the touching loop, for file:line regions. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) char *prepare(size_t bytes)
{
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    madvise(p, bytes, MADV_NOHUGEPAGE);   /* one fault per 4 KiB page, not per 2 MiB */
    return p;
}

__attribute__((noinline)) long touch_pages(char *p, long n, long page)
{
    long i;
    for (i = 0; i < n; i++)               /* REGION-START */
        p[i * page] = (char)i;
    return i;                             /* REGION-END */
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000, page = sysconf(_SC_PAGESIZE);
    char *p = prepare((size_t)(n * page));
    if (!p)
        return 1;
    printf("%ld\n", touch_pages(p, n, page));
    return 0;
}
/* SPDX-License-Identifier: MIT */
