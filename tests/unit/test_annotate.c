/* SPDX-License-Identifier: MIT */
/* src/annotate/: decoding (Zydis) of known bytes (syntax, branch targets, bad bytes) and the
 * DWARF address -> source line lookup on the fixtures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/disasm.h"
#include "annotate/srcline.h"
#include "symbol/dso.h"
#include "test.h"

/* test %rdi,%rdi; jae -0x22 (back); call +0; (bad: 0x06 is invalid in 64-bit mode); ret */
static const uint8_t code[] = { 0x48, 0x85, 0xff, 0x73, 0xde, 0xe8, 0x00, 0x00, 0x00, 0x00,
                                0x06, 0xc3 };

TEST(disasm_att_targets_and_bad_bytes)
{
    struct ann_insn *v;
    long n = ann_disasm(code, sizeof(code), 0x11d3, ANN_ATT, &v);

    CHECK_EQ_U64(n, 5);
    CHECK_EQ_U64(v[0].addr, 0x11d3);
    CHECK_EQ_U64(v[0].size, 3);
    CHECK(strstr(v[0].mnemonic, "test") != NULL);
    CHECK_STR(v[0].operands, "%rdi, %rdi");
    CHECK(v[1].jump && !v[1].call && v[1].has_target);
    CHECK_EQ_U64(v[1].target, 0x11d6 + 2 - 0x22);
    CHECK(v[2].call && v[2].has_target);
    CHECK_EQ_U64(v[2].target, 0x11dd);
    CHECK(v[3].bad);
    CHECK_EQ_U64(v[3].addr, 0x11dd);
    CHECK_EQ_U64(v[3].size, 1);
    CHECK_STR(v[3].mnemonic, "(bad)");
    CHECK(strstr(v[4].mnemonic, "ret") != NULL);
    CHECK_EQ_U64(v[4].addr, 0x11de);
    free(v);
}

TEST(disasm_intel_has_no_percent_signs)
{
    struct ann_insn *v;
    long n = ann_disasm(code, 3, 0, ANN_INTEL, &v);

    CHECK_EQ_U64(n, 1);
    CHECK_STR(v[0].mnemonic, "test");
    CHECK_STR(v[0].operands, "rdi, rdi");
    free(v);
}

TEST(disasm_empty)
{
    struct ann_insn *v;
    CHECK_EQ_U64(ann_disasm(code, 0, 0, ANN_ATT, &v), 0);
    free(v);
}

/* glibc's __memcmp_evex_movbe (this CPU's memcmp): the AVX-512 and mask-register code capstone
 * 4 listed as (bad), sti, outsl; written as objdump 2.40 writes it. */
static const uint8_t evex[] = {
    0xc5, 0xfb, 0x92, 0xd1,                         /* kmovd %ecx,%k2 */
    0x62, 0xe1, 0x7f, 0x2a, 0x6f, 0x16,             /* vmovdqu8 (%rsi),%ymm18{%k2} */
    0x62, 0xf3, 0x6d, 0x22, 0x3e, 0x0f, 0x04,       /* vpcmpnequb (%rdi),%ymm18,%k1{%k2} */
    0xc5, 0xfb, 0x93, 0xc1,                         /* kmovd %k1,%eax */
    0x75, 0x07,                                     /* jne .+9 */
    0xb9, 0xff, 0xff, 0xff, 0xff,                   /* mov $0xffffffff,%ecx */
};

TEST(disasm_evex_as_objdump)
{
    struct ann_insn *v;
    long n = ann_disasm(evex, sizeof(evex), 0x163950, ANN_ATT, &v);

    CHECK_EQ_U64(n, 6);
    CHECK_STR(v[0].mnemonic, "kmovd");
    CHECK_STR(v[0].operands, "%ecx, %k2");
    CHECK_STR(v[1].mnemonic, "vmovdqu8");
    CHECK_STR(v[1].operands, "(%rsi), %ymm18 {%k2}");
    CHECK_EQ_U64(v[2].addr, 0x16395a);
    CHECK_STR(v[2].mnemonic, "vpcmpnequb");
    CHECK_STR(v[2].operands, "(%rdi), %ymm18, %k1 {%k2}");
    CHECK_STR(v[3].mnemonic, "kmovd");
    CHECK_STR(v[4].mnemonic, "jne");
    CHECK(v[4].jump && v[4].has_target);
    CHECK_EQ_U64(v[4].target, 0x163965 + 2 + 7);
    CHECK_STR(v[5].operands, "$0xffffffff, %ecx");
    for (long i = 0; i < n; i++)
        CHECK(!v[i].bad);
    free(v);
}

static struct dso *fixture(struct dso_cache *c, const char *file)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, file);
    return dso_cache_get(c, DSO_FILE, path, NULL, 0, 0);
}

TEST(srcline_finds_function_lines)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "prog-nopie");
    struct symbol_match m;
    struct ann_src *s = NULL;
    struct ann_srcpos pos;
    const char *f;

    CHECK(c && d);
    dso_load(d);
    CHECK_EQ_U64(dso_find_symbols(d, "prog_beta", &m, 1), 1);
    CHECK(ann_src_open(dso_debug_path(d), &s) == 0);
    CHECK(ann_src_lookup(s, m.start, &pos) == 0);
    f = pos.file;
    CHECK(f[0] == '/');                       /* joined with the compilation directory */
    CHECK(strlen(f) >= 10 && !strcmp(f + strlen(f) - 10, "sym_prog.c"));
    CHECK_EQ_U64(pos.line, 10);
    CHECK(pos.inlined == NULL);
    CHECK(ann_src_lookup(s, 0x10, &pos) == -ENOENT);
    ann_src_close(s);
    dso_cache_free(c);
}

TEST(srcline_without_dwarf)
{
    struct ann_src *s = NULL;
    char path[4096];

    snprintf(path, sizeof(path), "%s/libsym-stripped.so", FIXTURE_DIR);
    CHECK(ann_src_open(path, &s) == -ENODATA);
    snprintf(path, sizeof(path), "%s/notelf.so", FIXTURE_DIR);
    CHECK(ann_src_open(path, &s) == -ENODATA);
    CHECK(ann_src_open("/nonexistent/x", &s) == -ENOENT);
}

int main(void)
{
    RUN(disasm_att_targets_and_bad_bytes);
    RUN(disasm_intel_has_no_percent_signs);
    RUN(disasm_empty);
    RUN(disasm_evex_as_objdump);
    RUN(srcline_finds_function_lines);
    RUN(srcline_without_dwarf);
    return 0;
}
