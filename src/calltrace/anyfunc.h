/* SPDX-License-Identifier: MIT */
/* `trace -e 'libfoo.so:bar*'`: functions without a built-in prototype. A spec names a library
 * (a path, a name found like the dynamic loader would, "libc", or the program itself) and a
 * glob over its exported functions (.dynsym); each match is traced by uprobes with four
 * integer arguments and an integer return, as ltrace shows a function it has no prototype for.
 * The matches get call ids from CT_NFUNCS on (ct_func_name() names them). */
#ifndef PROSPECT_CALLTRACE_ANYFUNC_H
#define PROSPECT_CALLTRACE_ANYFUNC_H
#include <stddef.h>
#include <stdint.h>

#define CT_ANY_MAX 256          /* functions matched by every spec together */
#define CT_ANY_NARGS 4          /* integer arguments shown (ltrace shows 4 without a prototype) */

struct ct_any_spec {
    char item[256];             /* as the user wrote it, for messages */
    char lib[256];              /* "" when not given: the program and its DT_NEEDED */
    char glob[256];
};

struct ct_any_fn {
    char name[128];
    char path[4096];            /* the ELF file probed */
    uint64_t off;               /* the function's file offset */
};

/* Resolves the specs against exe (the command's path) and the libraries: the table of
 * functions to probe (global; names by ct_any_name). Functions whose bit is set in builtin
 * are left out (the interposer or the built-in probes have them). IFUNCs are refused when a
 * spec names one exactly, skipped (counted in *skipped) under a glob. 0, or -ENOENT/-ENOTSUP/
 * -E2BIG/-ENOMEM with a one-line reason in err. */
int ct_any_resolve(const struct ct_any_spec *specs, size_t n, const char *exe,
                   uint64_t builtin, unsigned *skipped, char *err, size_t errlen);
/* The resolved functions (id CT_NFUNCS + i is fns[i]). */
const struct ct_any_fn *ct_any_fns(unsigned *n);
/* The name of call id `id` (>= CT_NFUNCS), or NULL. */
const char *ct_any_name(unsigned id);
#endif
