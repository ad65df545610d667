/* SPDX-License-Identifier: MIT */
/* Symbols from ELF executables: PIE and non-PIE, segments, aliases, name search, merge walk.
 * Addresses are checked against `nm` on the same fixtures. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "symbol/dso.h"

/* Address of `name` according to nm (0 if absent). */
static uint64_t nm_addr(const char *file, const char *name)
{
    char cmd[1024], line[512];
    uint64_t addr = 0;
    FILE *f;

    snprintf(cmd, sizeof(cmd), "nm '%s/%s'", FIXTURE_DIR, file);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long a;
        char type, sym[400];
        if (sscanf(line, "%llx %c %399s", &a, &type, sym) == 3 && !strcmp(sym, name))
            addr = a;
    }
    pclose(f);
    return addr;
}

static struct dso *fixture(struct dso_cache *c, const char *file)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, file);
    return dso_cache_get(c, DSO_FILE, path, NULL, 0, 0);
}

static const char *name_at(struct dso *d, uint64_t vaddr)
{
    struct symres r;
    if (dso_resolve(d, vaddr, &r))
        return "(error)";
    return r.name;
}

static void check_exec(const char *test_name_, const char *file)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, file);
    const char *fns[] = { "prog_alpha", "prog_beta", "prog_static_helper", "prog_gamma" };
    struct symres r;

    CHECK(d);
    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        uint64_t a = nm_addr(file, fns[i]);
        CHECK(a);
        CHECK(dso_resolve(d, a, &r) == 0);
        CHECK_STR(r.name, fns[i]);
        CHECK_EQ_U64(r.start, a);
        CHECK(r.size > 0 && !r.bracket);
        CHECK(dso_resolve(d, a + r.size - 1, &r) == 0);
        CHECK_STR(r.name, fns[i]);
    }
    /* Far above everything: a full symtab leaves it unnamed (the report prints the address). */
    CHECK(dso_resolve(d, 0x7fff00000000ULL, &r) == 0);
    CHECK(r.name == NULL);
    CHECK(dso_debug_path(d) && !strcmp(dso_debug_path(d), dso_path(d)));
    dso_cache_free(c);
}

TEST(nonpie_functions_match_nm) { check_exec(test_name_, "prog-nopie"); }
TEST(pie_functions_match_nm) { check_exec(test_name_, "prog-pie"); }

TEST(alias_choice_follows_perf)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "prog-nopie");
    uint64_t a = nm_addr("prog-nopie", "prog_target");
    struct symbol_match m[4];

    CHECK(a);
    /* global beats weak (__prog_target_w); of two globals the longer name wins */
    CHECK_STR(name_at(d, a), "prog_target_alias");
    /* every alias can still be found by name */
    CHECK_EQ_U64(dso_find_symbols(d, "prog_target", m, 4), 1);
    CHECK_EQ_U64(m[0].start, a);
    CHECK_EQ_U64(dso_find_symbols(d, "__prog_target_w", m, 4), 1);
    CHECK_EQ_U64(m[0].start, a);
    dso_cache_free(c);
}

TEST(zero_size_symbol_extends_to_next)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "prog-nopie");
    uint64_t a = nm_addr("prog-nopie", "prog_asm_nosize");
    struct symres r;

    CHECK(a);
    CHECK(dso_resolve(d, a + 3, &r) == 0);
    CHECK_STR(r.name, "prog_asm_nosize");
    CHECK(r.size >= 4);
    /* and it ends where the next symbol starts */
    CHECK(dso_resolve(d, a + r.size, &r) == 0);
    CHECK(r.name && strcmp(r.name, "prog_asm_nosize"));
    dso_cache_free(c);
}

TEST(map_to_vaddr_uses_segments)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *np = fixture(c, "prog-nopie"), *pie = fixture(c, "prog-pie");
    uint64_t a = nm_addr("prog-nopie", "prog_beta"), v;

    /* non-PIE text: p_offset 0x1000 at p_vaddr 0x401000, mapped at 0x401000 with pgoff 0x1000 */
    CHECK(a > 0x400000);
    CHECK(dso_map_to_vaddr(np, 0x401000, 0x1000, a, &v) == 0);
    CHECK_EQ_U64(v, a);
    /* the same code mapped somewhere else (as if relocated): still the ELF vaddr */
    CHECK(dso_map_to_vaddr(np, 0x7f0000001000ULL, 0x1000, 0x7f0000001000ULL + (a - 0x401000),
                           &v) == 0);
    CHECK_EQ_U64(v, a);
    /* PIE mapped at a random base, text segment mapping with pgoff 0x1000 */
    a = nm_addr("prog-pie", "prog_beta");
    CHECK(dso_map_to_vaddr(pie, 0x555555555000ULL, 0x1000, 0x555555554000ULL + a, &v) == 0);
    CHECK_EQ_U64(v, a);
    CHECK_STR(name_at(pie, v), "prog_beta");
    /* an offset past every segment */
    CHECK(dso_map_to_vaddr(pie, 0x555555555000ULL, 0x100000, 0x555555555000ULL, &v) == -ENOENT);
    dso_cache_free(c);
}

static void count_fn(void *arg, const struct symbol_match *sm)
{
    (*(size_t *)arg) += sm->name && sm->size ? 1 : 0;
}

TEST(find_symbols_and_foreach)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "prog-pie");
    struct symbol_match m[4];
    size_t count = 0;

    CHECK_EQ_U64(dso_find_symbols(d, "prog_gamma", m, 4), 1);
    CHECK_STR(m[0].name, "prog_gamma");
    CHECK_EQ_U64(m[0].start, nm_addr("prog-pie", "prog_gamma"));
    CHECK(m[0].size > 0);
    CHECK_EQ_U64(dso_find_symbols(d, "prog_static_helper", m, 4), 1);
    CHECK_EQ_U64(dso_find_symbols(d, "no_such_function", m, 4), 0);
    CHECK_EQ_U64(dso_find_symbols(d, "prog_gamma", m, 0), 0);
    dso_foreach_symbol(d, count_fn, &count);
    CHECK(count >= 6);   /* prog_* plus main and the C runtime's functions */
    dso_cache_free(c);
}

TEST(cache_dedupes_by_path_and_build_id)
{
    struct dso_cache *c = dso_cache_new();
    uint8_t b1[20] = { 1 }, b2[20] = { 2 };
    struct dso *a = dso_cache_get(c, DSO_FILE, "/x/libfoo.so", NULL, 0, 0);
    struct dso *ids[200];

    CHECK(a == dso_cache_get(c, DSO_FILE, "/x/libfoo.so", NULL, 0, 7));
    CHECK(a != dso_cache_get(c, DSO_FILE, "/x/libfoo.so", b1, 20, 0));
    CHECK(dso_cache_get(c, DSO_FILE, "/x/libfoo.so", b1, 20, 0) ==
          dso_cache_get(c, DSO_FILE, "/x/libfoo.so", b1, 20, 0));
    CHECK(dso_cache_get(c, DSO_FILE, "/x/libfoo.so", b2, 20, 0) !=
          dso_cache_get(c, DSO_FILE, "/x/libfoo.so", b1, 20, 0));
    CHECK(dso_cache_get(c, DSO_ANON, "//anon", NULL, 0, 10) !=
          dso_cache_get(c, DSO_ANON, "//anon", NULL, 0, 11));
    CHECK_STR(dso_short_name(a), "libfoo.so");
    CHECK(dso_status(a) == DSO_MISSING);
    CHECK(name_at(a, 0x1000) == NULL);
    /* enough entries to grow the table; lookups still find the same objects */
    for (int i = 0; i < 200; i++) {
        char p[32];
        snprintf(p, sizeof(p), "/lib/l%d.so", i);
        ids[i] = dso_cache_get(c, DSO_FILE, p, NULL, 0, 0);
        CHECK(ids[i]);
    }
    for (int i = 0; i < 200; i++) {
        char p[32];
        snprintf(p, sizeof(p), "/lib/l%d.so", i);
        CHECK(ids[i] == dso_cache_get(c, DSO_FILE, p, NULL, 0, 0));
    }
    CHECK(a == dso_cache_get(c, DSO_FILE, "/x/libfoo.so", NULL, 0, 0));
    struct dso *k = dso_cache_get(c, DSO_KERNEL, "[ext4]", NULL, 0, 0);
    CHECK_STR(dso_short_name(k), "[ext4]");
    CHECK(dso_kind(k) == DSO_KERNEL);
    dso_cache_free(c);
}

/* PLT slots are named after their targets ("getpid@plt"), as objdump and perf name them. */
TEST(plt_slots_named)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "prog-pie");
    char cmd[1024], line[512];
    unsigned long long a = 0;
    FILE *f;
    struct symres r;

    snprintf(cmd, sizeof(cmd), "objdump -d -j .plt '%s/prog-pie'", FIXTURE_DIR);
    f = popen(cmd, "r");
    CHECK(f);
    while (fgets(line, sizeof(line), f))
        if (strstr(line, "<getpid@plt>:"))
            sscanf(line, "%llx", &a);
    pclose(f);
    if (!a)
        SKIP("objdump shows no getpid@plt in .plt");
    CHECK(dso_resolve(d, a + 4, &r) == 0);
    CHECK_STR(r.name, "getpid@plt");
    CHECK_EQ_U64(r.start, a);
    CHECK_EQ_U64(r.size, 16);
    dso_cache_free(c);
}

/* dso_resolve_sorted must agree with dso_resolve everywhere, in full and stripped DSOs. */
static void check_sorted_same(const char *test_name_, const char *file)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, file);
    enum { N = 6000 };
    uint64_t *va = malloc(N * sizeof(*va));
    struct symres *rs = malloc(N * sizeof(*rs)), one;

    CHECK(va && rs);
    for (size_t i = 0; i < N; i++)   /* every byte of the text area, plus far-away points */
        va[i] = i < N - 3 ? i + 0x400800 - (file[0] == 'l' ? 0x400000 : 0) : 0x10000000ULL * i;
    CHECK(dso_resolve_sorted(d, va, N, rs) == 0);
    for (size_t i = 0; i < N; i++) {
        CHECK(dso_resolve(d, va[i], &one) == 0);
        CHECK(one.name == rs[i].name);   /* same interned pointer, brackets included */
        CHECK_EQ_U64(one.start, rs[i].start);
        CHECK_EQ_U64(one.size, rs[i].size);
        CHECK(one.bracket == rs[i].bracket);
    }
    va[1] = 0;
    CHECK(dso_resolve_sorted(d, va, N, rs) == -EINVAL);
    free(va);
    free(rs);
    dso_cache_free(c);
}

TEST(resolve_sorted_matches_resolve_symtab)
{
    check_sorted_same(test_name_, "prog-nopie");
}

TEST(resolve_sorted_matches_resolve_stripped)
{
    check_sorted_same(test_name_, "libsym-stripped.so");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(nonpie_functions_match_nm);
    RUN(pie_functions_match_nm);
    RUN(alias_choice_follows_perf);
    RUN(zero_size_symbol_extends_to_next);
    RUN(map_to_vaddr_uses_segments);
    RUN(find_symbols_and_foreach);
    RUN(cache_dedupes_by_path_and_build_id);
    RUN(plt_slots_named);
    RUN(resolve_sorted_matches_resolve_symtab);
    RUN(resolve_sorted_matches_resolve_stripped);
    return 0;
}
