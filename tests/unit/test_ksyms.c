/* SPDX-License-Identifier: MIT */
/* Kernel symbols from kallsyms text: fixtures with garbage and modules, restricted files, and
 * the live /proc/kallsyms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "symbol/ksyms.h"

TEST(fixture_parses_text_symbols_and_modules)
{
    struct ksyms *ks;
    struct ksym_res r;

    CHECK(ksyms_load(FIXTURE_DIR "/kallsyms.txt", &ks) == 0);
    /* text (t T w W) only; garbage, a bare address and a bad hex address are counted */
    CHECK_EQ_U64(ksyms_count(ks), 10);
    CHECK_EQ_U64(ksyms_bad_lines(ks), 3);
    /* several names at one address: the last line's, as perf 6.1 shows */
    CHECK(ksyms_resolve(ks, 0xffffffff81000010ULL, &r) == 0);
    CHECK_STR(r.name, "startup_64");
    CHECK(r.module == NULL);
    CHECK_EQ_U64(r.start, 0xffffffff81000000ULL);
    /* a line out of address order is sorted into place */
    CHECK(ksyms_resolve(ks, 0xffffffff81000900ULL, &r) == 0);
    CHECK_STR(r.name, "listed_out_of_order");
    CHECK(ksyms_resolve(ks, 0xffffffff81005000ULL, &r) == 0);
    CHECK_STR(r.name, "__pi_do_syscall_64");
    /* a symbol covers up to the next one; data symbols are not boundaries */
    CHECK(ksyms_resolve(ks, 0xffffffff81002800ULL, &r) == 0);
    CHECK_STR(r.name, "early_helper");
    CHECK(ksyms_resolve(ks, 0xffffffff81003000ULL, &r) == 0);
    CHECK_STR(r.name, "weak_thing");
    CHECK(ksyms_resolve(ks, 0xffffffffc0a01010ULL, &r) == 0);
    CHECK_STR(r.name, "ext4_readdir");
    CHECK_STR(r.module, "ext4");
    CHECK(ksyms_resolve(ks, 0xffffffffc0b00004ULL, &r) == 0);
    CHECK_STR(r.module, "xfs");
    CHECK(ksyms_resolve(ks, 0x1000, &r) == 0);
    CHECK(r.name == NULL);
    CHECK_EQ_U64(ksyms_lookup(ks, "do_syscall_64"), 0xffffffff81005000ULL);
    CHECK_EQ_U64(ksyms_lookup(ks, "_stext"), 0xffffffff81000000ULL);
    CHECK_EQ_U64(ksyms_lookup(ks, "some_data"), 0);
    CHECK_EQ_U64(ksyms_lookup(ks, "nope"), 0);
    ksyms_free(ks);
}

TEST(all_zero_addresses_are_eacces)
{
    struct ksyms *ks = (struct ksyms *)1;
    CHECK(ksyms_load(FIXTURE_DIR "/kallsyms_zero.txt", &ks) == -EACCES);
    CHECK(ks == NULL);
}

TEST(parse_edge_cases)
{
    struct ksyms *ks;
    char *t = strdup("");
    CHECK(ksyms_parse(t, 0, &ks) == 0);   /* empty: no symbols, not an error */
    CHECK_EQ_U64(ksyms_count(ks), 0);
    ksyms_free(ks);
    t = strdup("ffffffff81000000 D data_only\nffffffff81000010 T no_newline_at_end");
    CHECK(ksyms_parse(t, strlen(t), &ks) == 0);
    CHECK_EQ_U64(ksyms_count(ks), 1);
    CHECK_EQ_U64(ksyms_bad_lines(ks), 0);
    CHECK_EQ_U64(ksyms_lookup(ks, "no_newline_at_end"), 0xffffffff81000010ULL);
    ksyms_free(ks);
    t = strdup("ffffffff81000000 T\n1ffffffff81000000 T too_long\nffffffff81000000 T x [\n"
               "ffffffff81000000 T y junk\n");
    CHECK(ksyms_parse(t, strlen(t), &ks) == 0);
    CHECK_EQ_U64(ksyms_count(ks), 0);
    CHECK_EQ_U64(ksyms_bad_lines(ks), 4);
    ksyms_free(ks);
}

TEST(missing_file_is_enoent)
{
    struct ksyms *ks;
    CHECK(ksyms_load("/nonexistent/kallsyms", &ks) == -ENOENT);
}

/* Checks the live table against itself: every symbol resolves to itself (or an alias at the
 * same address), and the core kernel's _stext is there. */
TEST(live_proc_kallsyms)
{
    struct ksyms *ks;
    struct ksym_res r;
    uint64_t a;
    int err = ksyms_load("/proc/kallsyms", &ks);

    if (err == -EACCES)
        SKIP("kptr_restrict hides kernel addresses");
    if (err == -ENOENT)
        SKIP("no /proc/kallsyms");
    CHECK(err == 0);
    CHECK(ksyms_count(ks) > 1000);
    CHECK_EQ_U64(ksyms_bad_lines(ks), 0);
    a = ksyms_lookup(ks, "schedule");
    CHECK(a != 0);
    CHECK(ksyms_resolve(ks, a, &r) == 0);
    CHECK(r.name && r.start == a);
    CHECK(ksyms_resolve(ks, a + 1, &r) == 0);
    CHECK(r.start == a);
    ksyms_free(ks);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(fixture_parses_text_symbols_and_modules);
    RUN(all_zero_addresses_are_eacces);
    RUN(parse_edge_cases);
    RUN(missing_file_is_enoent);
    RUN(live_proc_kallsyms);
    return 0;
}
