/* SPDX-License-Identifier: MIT */
/* The name every report shows for a demangled C++ symbol (symbol/shortname.h), checked against
 * perf's own, which is libiberty's demangling without parameters (the oracle here). */
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/shortname.h"
#include "test.h"

/* Templates with function types, lambdas, operators, anonymous namespaces, local entities,
 * thunks, conversion operators, clones, ABI tags, function-pointer return types. */
static const char *const mangled[] = {
    "_Z4workIFiiEElRKl", "_Z4workIFidEElRKl", "_Z4workIFiiEElRKl.cold",
    "_ZNSt6vectorIiSaIiEE9push_backERKi",
    "_ZSt16__introsort_loopIN9__gnu_cxx17__normal_iteratorIPlSt6vectorIlSaIlEEEElNS0_5__ops15"
    "_Iter_comp_iterIZ4mainEUlllE_EEEvT_SB_T0_T1_",
    "_ZZ4mainENKUlllE_clEll", "_ZN12_GLOBAL__N_19anon_spinEl", "_ZNK2OpclEl",
    "_ZlsRSoRK1P", "_ZN1AltIiEEbRKS_", "_ZlsIcERSoS0_RKi", "_ZN3FoocviEv", "_ZN3FoonwEm",
    "_ZN3FoodaEPv", "_ZThn8_N3Foo3barEv", "_ZZ5outeriEN5Local6methodEl", "_ZNK3FooclEv",
    "_Z1fIiEPFviEv", "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5c_strEv",
    "_ZNSt8ios_base4InitC1Ev", "_ZN3FooptEv", "_ZN3FooixEi", "_ZN3FooaSERKS_",
    "_ZN5Outer5Inner3getB5cxx11Ev", "_ZNSt3mapIiiSt4lessIiESaISt4pairIKiiEEEixEOi",
};

TEST(short_names_are_perfs)
{
    for (size_t i = 0; i < sizeof(mangled) / sizeof(*mangled); i++) {
        char *full = cplus_demangle(mangled[i], DMGL_PARAMS | DMGL_ANSI);
        char *want = cplus_demangle(mangled[i], DMGL_ANSI);
        CHECK(full && want);
        if (!full || !want)
            continue;
        char *got = malloc(strlen(full) + 1);
        symbol_short_name(full, false, got);
        if (strcmp(got, want))
            printf("  %s: '%s' -> '%s', perf shows '%s'\n", mangled[i], full, got, want);
        CHECK_STR(got, want);
        free(got);
        free(full);
        free(want);
    }
}

TEST(issue_examples)
{
    char out[256];

    symbol_short_name("long work<int (int)>(long const&)", false, out);
    CHECK_STR(out, "work<int (int)>");
    symbol_short_name("long work<int (double)>(long const&)", false, out);
    CHECK_STR(out, "work<int (double)>");
    /* The lambda comparator's '<' stays balanced. */
    symbol_short_name("bool main::{lambda(long, long)#1}::operator()(long, long) const", false,
                      out);
    CHECK_STR(out, "main::{lambda(long, long)#1}::operator()");
    symbol_short_name("foo(int)@plt", false, out);
    CHECK_STR(out, "foo@plt");
    /* A name that was not demangled is never given to it; a C name passes unchanged. */
    symbol_short_name("__libc_start_call_main", false, out);
    CHECK_STR(out, "__libc_start_call_main");
}

TEST(brackets_shorten_each_end)
{
    char out[256];

    symbol_short_name("ns::lo(int) const->ns::hi<int>(long)", true, out);
    CHECK_STR(out, "ns::lo->ns::hi<int>");
    symbol_short_name("(start)->void first<int>(int)", true, out);
    CHECK_STR(out, "(start)->first<int>");
    symbol_short_name("Foo::operator->() const->(end)", true, out);
    CHECK_STR(out, "Foo::operator->->(end)");
    /* A bracket part (symbol/bracket_part.c): its offset stays after the short ends. */
    symbol_short_name("ns::f(int) const->ns::g<char>(char)+0x1a40", true, out);
    CHECK_STR(out, "ns::f->ns::g<char>+0x1a40");
    symbol_short_name("void h<1>(long)->(end)+0x20", true, out);
    CHECK_STR(out, "h<1>->(end)+0x20");
    symbol_short_name("a->b", true, out);
    CHECK_STR(out, "a->b");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(short_names_are_perfs);
    RUN(issue_examples);
    RUN(brackets_shorten_each_end);
    return 0;
}
