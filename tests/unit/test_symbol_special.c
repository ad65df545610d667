/* SPDX-License-Identifier: MIT */
/* C++ demangling, [vdso] from our own image, and JIT maps (/tmp/perf-PID.map). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "test.h"
#include "symbol/dso.h"

TEST(demangle_names)
{
    char *s = symbol_demangle("_ZN2ns4funcEi");
    CHECK_STR(s, "ns::func(int)");
    free(s);
    s = symbol_demangle("_ZNK2ns6Widget4pokeEv");
    CHECK_STR(s, "ns::Widget::poke() const");
    free(s);
    /* Rust legacy mangling (the hash is dropped) */
    s = symbol_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
    CHECK_STR(s, "core::fmt::write");
    free(s);
    CHECK(symbol_demangle("main") == NULL);
    CHECK(symbol_demangle("_Zgarbage") == NULL);
    CHECK(symbol_demangle("") == NULL);
}

TEST(cxx_symbols_demangled_and_found)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = dso_cache_get(c, DSO_FILE, FIXTURE_DIR "/cxx-prog", NULL, 0, 0);
    struct symbol_match m[4];
    struct symres r;

    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    /* "ns::func" matches both overloads; the full signature or the raw name match one */
    CHECK_EQ_U64(dso_find_symbols(d, "ns::func", m, 4), 2);
    CHECK_EQ_U64(dso_find_symbols(d, "ns::func(double)", m, 4), 1);
    CHECK_STR(m[0].name, "ns::func(double)");
    CHECK_EQ_U64(dso_find_symbols(d, "_ZN2ns4funcEi", m, 4), 1);
    CHECK_STR(m[0].name, "ns::func(int)");
    CHECK(dso_resolve(d, m[0].start + 1, &r) == 0);
    CHECK_STR(r.name, "ns::func(int)");
    CHECK_EQ_U64(dso_find_symbols(d, "ns::Widget::poke", m, 4), 1);
    CHECK_STR(m[0].name, "ns::Widget::poke() const");
    CHECK_EQ_U64(dso_find_symbols(d, "ns::fun", m, 4), 0);
    dso_cache_free(c);
}

TEST(vdso_from_own_image)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = dso_cache_get(c, DSO_VDSO, "[vdso]", NULL, 0, 0);
    unsigned long base = getauxval(AT_SYSINFO_EHDR);
    struct symbol_match m[4];
    struct symres r;
    uint64_t v;

    if (!base)
        SKIP("no vdso in this process");
    CHECK(dso_status(d) == DSO_OK_DYNSYM || dso_status(d) == DSO_OK_SYMTAB);
    CHECK_STR(dso_short_name(d), "[vdso]");
    CHECK(dso_find_symbols(d, "__vdso_clock_gettime", m, 4) >= 1);
    /* an address inside our own vdso's clock_gettime maps back to that symbol */
    CHECK(dso_map_to_vaddr(d, base, 0, base + m[0].start + 1, &v) == 0);
    CHECK_EQ_U64(v, m[0].start + 1);
    CHECK(dso_resolve(d, v, &r) == 0);
    CHECK(r.name && strstr(r.name, "clock_gettime"));
    CHECK_EQ_U64(r.start, m[0].start);
    dso_cache_free(c);
}

TEST(jit_map_symbols)
{
    char path[64];
    FILE *f;
    struct dso_cache *c = dso_cache_new();
    struct dso *d;
    struct symres r;
    uint64_t v;

    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
    f = fopen(path, "w");
    CHECK(f);
    fputs("7f0000001000 40 jit_func_a\n"
          "0x7f0000001080 20 LazyCompile:~handler app.js:12\n"
          "not a line\n"
          "7f0000002000 zz bad_size\n"
          "7f0000003000 10\n"
          "7f0000000800 100 jit_func_first\r\n"
          "ffffffffffffffff 10 wraps_around\n", f);
    fclose(f);
    d = dso_cache_get(c, DSO_ANON, "//anon", NULL, 0, getpid());
    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK_STR(dso_short_name(d), "[anon]");
    CHECK(dso_map_to_vaddr(d, 0x7f0000000000ULL, 0, 0x7f0000001010ULL, &v) == 0);
    CHECK_EQ_U64(v, 0x7f0000001010ULL);   /* JIT maps hold absolute addresses */
    CHECK(dso_resolve(d, v, &r) == 0);
    CHECK_STR(r.name, "jit_func_a");
    CHECK_EQ_U64(r.size, 0x40);
    CHECK(dso_resolve(d, 0x7f000000109fULL, &r) == 0);
    CHECK_STR(r.name, "LazyCompile:~handler app.js:12");
    CHECK(dso_resolve(d, 0x7f0000000800ULL, &r) == 0);
    CHECK_STR(r.name, "jit_func_first");
    /* between entries: unnamed, no brackets for JIT code */
    CHECK(dso_resolve(d, 0x7f0000001050ULL, &r) == 0);
    CHECK(r.name == NULL && !r.bracket);
    unlink(path);
    /* no map file: missing */
    d = dso_cache_get(c, DSO_ANON, "//anon", NULL, 0, 999999999);
    CHECK(dso_status(d) == DSO_MISSING);
    dso_cache_free(c);
}

TEST(kernel_placeholder)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = dso_cache_get(c, DSO_KERNEL, "[kernel.kallsyms]", NULL, 0, 0);
    struct symres r;

    CHECK_STR(dso_short_name(d), "[kernel.kallsyms]");
    CHECK(dso_status(d) == DSO_NO_SYMBOLS);
    CHECK(dso_resolve(d, 0xffffffff81000000ULL, &r) == 0 && r.name == NULL);
    dso_cache_free(c);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(demangle_names);
    RUN(cxx_symbols_demangled_and_found);
    RUN(vdso_from_own_image);
    RUN(jit_map_symbols);
    RUN(kernel_placeholder);
    return 0;
}
