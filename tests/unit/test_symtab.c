/* SPDX-License-Identifier: MIT */
/* The sorted symbol table on its own: perf's alias choice, zero-size ends, brackets. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "symbol/symtab.h"

static const char *name_at(struct symtab *t, uint64_t addr)
{
    struct symres r;
    if (symtab_resolve_at(t, symtab_index(t, addr), addr, &r))
        return "(error)";
    return r.name;
}

/* Builds a table of two aliases at 0x1000 (a added first) and a marker at 0x2000. */
static const char *winner(const char *a, uint64_t asz, int abind, const char *b, uint64_t bsz,
                          int bbind, struct symtab *t)
{
    struct symtab_builder bl = {0};
    if (symtab_add(&bl, a, 0x1000, asz, abind) || symtab_add(&bl, b, 0x1000, bsz, bbind) ||
        symtab_add(&bl, "next", 0x2000, 0x10, STB_GLOBAL) || symtab_finish(&bl, t, false))
        return "(error)";
    return name_at(t, 0x1000);
}

TEST(alias_rules_in_order)
{
    struct symtab t;
    /* non-zero size beats everything else */
    CHECK_STR(winner("__weak_sized", 8, STB_WEAK, "global", 0, STB_GLOBAL, &t), "__weak_sized");
    symtab_release(&t);
    /* then non-weak over weak */
    CHECK_STR(winner("w_long_name", 8, STB_WEAK, "loc", 8, STB_LOCAL, &t), "loc");
    symtab_release(&t);
    /* then global over local */
    CHECK_STR(winner("local_longer", 8, STB_LOCAL, "glob", 8, STB_GLOBAL, &t), "glob");
    symtab_release(&t);
    /* then fewer leading underscores */
    CHECK_STR(winner("__memcpy_long", 8, STB_GLOBAL, "memcpy", 8, STB_GLOBAL, &t), "memcpy");
    symtab_release(&t);
    /* then the longer name */
    CHECK_STR(winner("abc", 8, STB_GLOBAL, "abcdef", 8, STB_GLOBAL, &t), "abcdef");
    symtab_release(&t);
    /* full tie: the first one stays */
    CHECK_STR(winner("first", 8, STB_GLOBAL, "secnd", 8, STB_GLOBAL, &t), "first");
    CHECK_EQ_U64(t.n, 2);
    CHECK_EQ_U64(t.naliases, 1);
    symtab_release(&t);
}

TEST(brackets_and_edges)
{
    struct symtab_builder b = {0};
    struct symtab t;
    struct symres r1, r2;

    CHECK(symtab_add(&b, "recv", 0x1000, 0x20, STB_GLOBAL) == 0);
    CHECK(symtab_add(&b, "recvfrom", 0x1100, 0x20, STB_GLOBAL) == 0);
    CHECK(symtab_add(&b, "send", 0x1200, 0, STB_GLOBAL) == 0);   /* zero size: to next */
    CHECK(symtab_add(&b, "sendmsg", 0x1300, 0x10, STB_GLOBAL) == 0);
    CHECK(symtab_finish(&b, &t, true) == 0);
    CHECK_STR(name_at(&t, 0x1010), "recv");
    CHECK_STR(name_at(&t, 0x1080), "recv->recvfrom");
    CHECK_STR(name_at(&t, 0x12ff), "send");
    CHECK_STR(name_at(&t, 0x0fff), "(start)->recv");
    CHECK_STR(name_at(&t, 0x1310), "sendmsg->(end)");
    CHECK(symtab_resolve_at(&t, symtab_index(&t, 0x1020), 0x1020, &r1) == 0);
    CHECK(symtab_resolve_at(&t, symtab_index(&t, 0x10ff), 0x10ff, &r2) == 0);
    CHECK(r1.name == r2.name && r1.bracket && r1.start == 0x1000);
    symtab_release(&t);
    /* the same table without brackets (full .symtab): gaps are unnamed */
    CHECK(symtab_add(&b, "recv", 0x1000, 0x20, STB_GLOBAL) == 0);
    CHECK(symtab_add(&b, "recvfrom", 0x1100, 0x20, STB_GLOBAL) == 0);
    CHECK(symtab_finish(&b, &t, false) == 0);
    CHECK(name_at(&t, 0x1080) == NULL);
    CHECK(name_at(&t, 0x10) == NULL);
    symtab_release(&t);
}

/* A gap holding two functions or more is split at their FDE starts (bracket_part.c): parts
 * named after the gap with their offset from lo, the first taking the padding before the
 * first FDE; a gap with one FDE (or none) stays whole. */
TEST(bracket_parts_at_fde_starts)
{
    struct symtab_builder b = {0};
    struct symtab t;
    struct symres r1, r2;
    static const uint64_t fdes[] = { 0x800, 0x1040, 0x1060, 0x10c0, 0x1140, 0x1330, 0x1400 };

    CHECK(symtab_add(&b, "recv", 0x1000, 0x20, STB_GLOBAL) == 0);
    CHECK(symtab_add(&b, "recvfrom", 0x1100, 0x20, STB_GLOBAL) == 0);
    CHECK(symtab_add(&b, "send", 0x1200, 0x10, STB_GLOBAL) == 0);
    CHECK(symtab_add(&b, "sendmsg", 0x1300, 0x10, STB_GLOBAL) == 0);
    CHECK(symtab_finish(&b, &t, true) == 0);
    t.parts = malloc(sizeof(fdes));
    CHECK(t.parts != NULL);
    memcpy(t.parts, fdes, sizeof(fdes));
    t.nparts = sizeof(fdes) / sizeof(fdes[0]);
    CHECK_STR(name_at(&t, 0x1010), "recv");
    CHECK_STR(name_at(&t, 0x1020), "recv->recvfrom+0x20");       /* padding: the first part */
    CHECK_STR(name_at(&t, 0x105f), "recv->recvfrom+0x20");
    CHECK_STR(name_at(&t, 0x1060), "recv->recvfrom+0x60");
    CHECK_STR(name_at(&t, 0x10ff), "recv->recvfrom+0xc0");
    CHECK_STR(name_at(&t, 0x1180), "recvfrom->send");             /* one FDE: whole */
    CHECK_STR(name_at(&t, 0x1250), "send->sendmsg");              /* none: whole */
    CHECK_STR(name_at(&t, 0x0900), "(start)->recv");              /* one FDE */
    CHECK_STR(name_at(&t, 0x1310), "sendmsg->(end)+0x10");
    CHECK_STR(name_at(&t, 0x9999), "sendmsg->(end)+0x100");
    CHECK(symtab_resolve_at(&t, symtab_index(&t, 0x1070), 0x1070, &r1) == 0);
    CHECK(symtab_resolve_at(&t, symtab_index(&t, 0x10bf), 0x10bf, &r2) == 0);
    CHECK(r1.name == r2.name && r1.bracket);                    /* one interned name */
    CHECK(r1.start == 0x1060 && r1.gap_start == 0x1060 && r1.gap_end == 0x10c0);
    CHECK(symtab_resolve_at(&t, symtab_index(&t, 0x1030), 0x1030, &r1) == 0);
    CHECK(r1.start == 0x1020 && r1.gap_start == 0x1020 && r1.gap_end == 0x1040 + 0x20);
    CHECK(symtab_resolve_at(&t, symtab_index(&t, 0x1500), 0x1500, &r1) == 0);
    CHECK(r1.gap_start == 0x1400 && r1.gap_end == 0);           /* open-ended: unknown */
    symtab_release(&t);
}

TEST(empty_table)
{
    struct symtab_builder b = {0};
    struct symtab t;
    CHECK(symtab_finish(&b, &t, true) == 0);
    CHECK(name_at(&t, 0x1000) == NULL);
    symtab_release(&t);
}

/* A large table in scrambled order (the radix-sort path, >= 256 symbols) with ties at one address:
 * every address resolves to its own symbol, and of full-tie aliases the first added stays, as
 * with a small table. */
TEST(large_scrambled_table_sorts_like_small)
{
    enum { N = 3000 };
    struct symtab_builder b = {0};
    struct symtab t;
    char name[32];
    int ok = 1;

    for (unsigned i = 0; i < N; i++) {
        unsigned k = (i * 1237u) % N;     /* 1237 is prime to 3000: a permutation */
        snprintf(name, sizeof(name), "f%u", k);
        /* starts spread over several bytes (0x10000 apart) so several radix passes run */
        CHECK(symtab_add(&b, name, 0x400000 + (uint64_t)k * 0x10000, 0x100, STB_GLOBAL) == 0);
        if (k % 100 == 7) {               /* a full-tie alias added after its twin: loses */
            snprintf(name, sizeof(name), "g%u", k);
            CHECK(symtab_add(&b, name, 0x400000 + (uint64_t)k * 0x10000, 0x100,
                             STB_GLOBAL) == 0);
        }
    }
    CHECK(symtab_finish(&b, &t, false) == 0);
    CHECK_EQ_U64(t.n, N);
    CHECK_EQ_U64(t.naliases, N / 100);
    for (unsigned k = 0; k < N && ok; k++) {
        snprintf(name, sizeof(name), "f%u", k);
        const char *got = name_at(&t, 0x400000 + (uint64_t)k * 0x10000 + 0x10);
        ok = got && !strcmp(got, name);
    }
    CHECK(ok);
    symtab_release(&t);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(alias_rules_in_order);
    RUN(brackets_and_edges);
    RUN(bracket_parts_at_fde_starts);
    RUN(empty_table);
    RUN(large_scrambled_table_sorts_like_small);
    return 0;
}

