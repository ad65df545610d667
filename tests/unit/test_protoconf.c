/* SPDX-License-Identifier: MIT */
/* trace's prototypes in ltrace's config syntax: what a user's file declares is how arguments
 * are shown; the built-in table agrees with the interposer's compiled prototypes; a bad line
 * is an error naming the file and line. */
#include <errno.h>
#include <string.h>
#include "test.h"
#include "calltrace/protoconf.h"
#include "intarget/calltrace_abi.h"

static const struct ct_proto abi[CT_NFUNCS] = {
#define P_(n, r, na, a0, a1, a2) { #n, r, na, { a0, a1, a2 } },
    CT_PROTOS(P_)
#undef P_
};

/* The syntax of /etc/ltrace.conf: comments, typedefs, nested types, out arguments. */
TEST(ltrace_syntax_types)
{
    char err[256];
    ct_protoconf_reset();
    CHECK(ct_protoconf_add("; a comment\n"
                           "typedef in_addr = struct(hex(uint));\n"
                           "\n"
                           "file fopen(string,string);\n"
                           "  hex(uint) inet_addr(string);  ; trailing comment\n"
                           "int inet_aton(string, +in_addr*);\n"
                           "addr memcpy(addr,string(array(char, arg3)*),ulong);\n"
                           "long read(int, +string[retval], ulong);\n"
                           "int open(string,int,octal);\n"
                           "void bfd_init();\n"
                           "char tolower(char);\n"
                           "int printf(format);\n"
                           "int five(int, int, int, int, int);\n",
                           "t.conf", err, sizeof(err)) == 0);
    const struct ct_uproto *p = ct_protoconf_find("fopen");
    CHECK(p && p->ret == CT_T_ADDR && p->nargs == 2 && p->arg[0] == CT_T_STR &&
          p->arg[1] == CT_T_STR);
    CHECK((p = ct_protoconf_find("inet_addr")) && p->ret == CT_T_ADDR && p->arg[0] == CT_T_STR);
    CHECK((p = ct_protoconf_find("inet_aton")) && p->nargs == 2 && p->arg[1] == CT_T_ADDR);
    CHECK((p = ct_protoconf_find("memcpy")) && p->arg[1] == CT_T_STR && p->arg[2] == CT_T_ULONG);
    CHECK((p = ct_protoconf_find("read")) && p->ret == CT_T_LONG && p->arg[1] == CT_T_STR);
    CHECK((p = ct_protoconf_find("open")) && p->arg[2] == CT_T_OCTAL);
    CHECK((p = ct_protoconf_find("bfd_init")) && p->ret == CT_T_VOID && p->nargs == 0);
    CHECK((p = ct_protoconf_find("tolower")) && p->ret == CT_T_CHAR && p->arg[0] == CT_T_CHAR);
    CHECK((p = ct_protoconf_find("printf")) && p->arg[0] == CT_T_STR);
    CHECK((p = ct_protoconf_find("five")) && p->nargs == 4);   /* the registers fetched */
    CHECK(!ct_protoconf_find("nope"));
    /* A later file wins. */
    CHECK(ct_protoconf_add("int fopen(int);\n", "u.conf", err, sizeof(err)) == 0);
    CHECK((p = ct_protoconf_find("fopen")) && p->ret == CT_T_INT && p->nargs == 1);
    ct_protoconf_reset();
}

TEST(bad_lines_name_file_and_line)
{
    static const char *const bad[] = {
        "int f(string;\n", "int f(string)\n", "int (int);\n", "frob f(int);\n",
        "int f(hex(int);\n", "typedef = int;\n", "int f(int,, int);\n",
    };
    char err[256];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[64];
        snprintf(text, sizeof(text), "int ok(int);\n%s", bad[i]);
        ct_protoconf_reset();
        CHECK(ct_protoconf_add(text, "my.conf", err, sizeof(err)) == -EINVAL);
        CHECK(!strncmp(err, "my.conf:2: ", 11));
    }
    ct_protoconf_reset();
}

/* Any bytes: a prototype, or an error; never a read past the text (ASan watches). */
TEST(garbage_never_crashes)
{
    static const char alphabet[] = "int string(),;*+[]= \t\nhex typedef a_1";
    char err[256], text[48];
    unsigned seed = 1;
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(seed % (sizeof(text) - 1));
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            text[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
        }
        text[n] = 0;
        seed = seed * 1103515245u + 12345u;
        int e = ct_protoconf_add(text, "g.conf", err, sizeof(err));
        CHECK(e == 0 || e == -EINVAL);
    }
    ct_protoconf_reset();
}

/* protos.conf's block of the interposer's functions says what calltrace_abi.h compiles in. */
TEST(builtin_table_agrees_with_interposer)
{
    char err[256];
    ct_protoconf_reset();
    CHECK(ct_protoconf_builtin(err, sizeof(err)) == 0);
    for (unsigned f = 0; f < CT_NFUNCS; f++) {
        const struct ct_uproto *p = ct_protoconf_find(abi[f].name);
        CHECK(p);
        CHECK(p->ret == abi[f].ret && p->nargs == abi[f].nargs);
        for (unsigned a = 0; a < abi[f].nargs; a++) {
            unsigned want = abi[f].arg[a] == CT_T_STRN ? CT_T_STR : abi[f].arg[a];
            if (p->arg[a] != want)
                printf("  %s arg %u: %u, interposer %u\n", abi[f].name, a, p->arg[a], want);
            CHECK(p->arg[a] == want);
        }
    }
    CHECK(ct_protoconf_find("fopen"));
    ct_protoconf_reset();
}

/* Strings a -F file declares beyond the interposer's compiled prototypes: the ones it is told
 * to read through the kernel (calltrace_abi.h's <strings> field); the compiled ones are not. */
TEST(extra_strings_for_the_interposer)
{
    char err[256], field[CT_NFUNCS + 1];
    ct_protoconf_reset();
    CHECK(ct_protoconf_builtin(err, sizeof(err)) == 0);
    ct_builtin_strings_field(field);
    CHECK_EQ_U64(strspn(field, "0"), CT_NFUNCS);
    CHECK(ct_protoconf_add("long write(int, string, ulong);\nstring malloc(ulong);\n"
                           "ulong strlen(string);\nint close(addr);\n", "x.conf", err,
                           sizeof(err)) == 0);
    CHECK_EQ_U64(ct_builtin_extra_strings(CT_F_write), 2);
    CHECK_EQ_U64(ct_builtin_extra_strings(CT_F_malloc), CT_XSTR_RET);
    CHECK_EQ_U64(ct_builtin_extra_strings(CT_F_strlen), 0);
    CHECK_EQ_U64(ct_builtin_extra_strings(CT_F_close), 0);
    ct_builtin_strings_field(field);
    CHECK_EQ_U64(strlen(field), CT_NFUNCS);
    CHECK(field[CT_F_write] == '2' && field[CT_F_malloc] == '8' && field[CT_F_strlen] == '0');
    ct_protoconf_reset();
}

int main(void)
{
    RUN(ltrace_syntax_types);
    RUN(bad_lines_name_file_and_line);
    RUN(garbage_never_crashes);
    RUN(builtin_table_agrees_with_interposer);
    RUN(extra_strings_for_the_interposer);
    return 0;
}
