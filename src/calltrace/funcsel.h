/* `trace -e`: which functions to trace. A spec is items joined by '+', each "[LIB:]GLOB" (or
 * ltrace's "GLOB@LIB"): GLOB (fnmatch) against the built-in functions, LIB a library they come
 * from (libc, libc.so.6, libpthread; globs allowed). The first version traces the built-in list
 * only (src/inject/calltrace_abi.h): other names are refused, saying so. */
#ifndef PROSPECT_CALLTRACE_FUNCSEL_H
#define PROSPECT_CALLTRACE_FUNCSEL_H
#include <stddef.h>
#include <stdint.h>

/* The functions traced without -e: the allocation family. */
uint64_t ct_default_mask(void);
/* Adds the functions of spec to *mask. 0, or -EINVAL with a one-line reason in err. */
int ct_funcsel_parse(const char *spec, uint64_t *mask, char *err, size_t errlen);
#endif
