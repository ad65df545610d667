/* SPDX-License-Identifier: MIT */
/* `trace -e`: which functions to trace. A spec is items joined by '+', each "[LIB:]GLOB" (or
 * ltrace's "GLOB@LIB"): GLOB (fnmatch) against the built-in functions, LIB a library they come
 * from (libc, libc.so.6, libpthread; globs allowed). ct_funcsel_parse takes the built-in list
 * only (src/intarget/calltrace_abi.h); ct_funcsel_parse_any also keeps the items that name other
 * functions or libraries (and globs, which may match more than the built-ins) for
 * src/calltrace/anyfunc.h. */
#ifndef PROSPECT_CALLTRACE_FUNCSEL_H
#define PROSPECT_CALLTRACE_FUNCSEL_H
#include <stddef.h>
#include <stdint.h>
#include "calltrace/anyfunc.h"

struct ct_any_list {
    struct ct_any_spec v[32];
    size_t n;
};

/* The functions traced without -e: the allocation family. */
uint64_t ct_default_mask(void);
/* Adds the functions of spec to *mask. 0, or -EINVAL with a one-line reason in err. */
int ct_funcsel_parse(const char *spec, uint64_t *mask, char *err, size_t errlen);
/* The same, items that are not (only) built-ins appended to any. */
int ct_funcsel_parse_any(const char *spec, uint64_t *mask, struct ct_any_list *any, char *err,
                         size_t errlen);
#endif
