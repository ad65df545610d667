/* SPDX-License-Identifier: MIT */
/* DWARF for regions, on this test binary itself (built with -g): file:line addresses and
 * inlined instances; files without DWARF. */
#include <errno.h>
#include <stdlib.h>
#include "test.h"
#include "symbol/dwarf_inline.h"
#include "symbol/dwarf_lines.h"

volatile int sink;

static inline __attribute__((always_inline)) int twice_inlined(int x)
{
    sink += x;
    return x * 2;
}

__attribute__((noinline)) int caller_of_inlines(int x);
__attribute__((noinline)) int caller_of_inlines(int x)
{
    int a = twice_inlined(x);
    sink += a;                                   /* LINE_WITH_CODE */
    return twice_inlined(a + 1);
}
#define LINE_WITH_CODE 21   /* the line marked LINE_WITH_CODE above */

TEST(line_with_code_has_an_address)
{
    char err[256];
    uint64_t addr = 0;
    CHECK(caller_of_inlines(1) == 6);
    CHECK(dwarf_line_addr("/proc/self/exe", "test_dwarf_regions.c", LINE_WITH_CODE, &addr, err,
                          sizeof(err)) == 0);
    CHECK(addr != 0);
    /* A trailing path component matches too. */
    CHECK(dwarf_line_addr("/proc/self/exe", "unit/test_dwarf_regions.c", LINE_WITH_CODE, &addr,
                          err, sizeof(err)) == 0);
}

TEST(line_without_code_names_the_nearest)
{
    char err[256];
    uint64_t addr;
    /* Line 1 is a comment. */
    CHECK(dwarf_line_addr("/proc/self/exe", "test_dwarf_regions.c", 1, &addr, err,
                          sizeof(err)) == -ERANGE);
    CHECK(strstr(err, "only certain line numbers are available") != NULL);
    CHECK(strstr(err, "nearest: test_dwarf_regions.c:") != NULL);
}

TEST(unknown_file_and_no_dwarf)
{
    char err[256];
    uint64_t addr;
    CHECK(dwarf_line_addr("/proc/self/exe", "no_such_file.c", 3, &addr, err, sizeof(err)) ==
          -ENOENT);
    /* /bin/true on Debian is stripped: no DWARF. */
    CHECK(dwarf_line_addr("/bin/true", "true.c", 3, &addr, err, sizeof(err)) == -ENODATA);
    CHECK(strstr(err, "DWARF is needed for file:line regions; rebuild with -g") != NULL);
    CHECK(dwarf_line_addr("/nonexistent", "x.c", 3, &addr, err, sizeof(err)) == -ENOENT);
}

TEST(inlined_instances_found_with_ranges)
{
    struct inline_site *s = NULL;
    long n = dwarf_inline_sites("/proc/self/exe", "twice_inlined", &s);
    CHECK_EQ_U64(n, 2);
    for (long i = 0; i < n; i++) {
        CHECK(s[i].nr_ranges >= 1);
        CHECK(s[i].ranges[0].lo < s[i].ranges[0].hi);
        CHECK_STR(s[i].caller, "caller_of_inlines");
        CHECK(s[i].call_line > 0);
    }
    inline_sites_free(s, (size_t)n);
    CHECK_EQ_U64(dwarf_inline_sites("/proc/self/exe", "no_such_function", &s), 0);
    CHECK(dwarf_inline_sites("/bin/true", "x", &s) == -ENODATA);
}

int main(void)
{
    RUN(line_with_code_has_an_address);
    RUN(line_without_code_names_the_nearest);
    RUN(unknown_file_and_no_dwarf);
    RUN(inlined_instances_found_with_ranges);
    return 0;
}
