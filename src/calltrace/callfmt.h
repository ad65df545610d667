/* SPDX-License-Identifier: MIT */
/* Text of one traced call as ltrace prints it: arguments and return value by the built-in
 * prototypes (src/intarget/calltrace_abi.h), strings escaped and cut, and the line
 * "PID caller->func(args)   = ret <seconds>" padded as ltrace pads it (column 48). */
#ifndef PROSPECT_CALLTRACE_CALLFMT_H
#define PROSPECT_CALLTRACE_CALLFMT_H
#include <stddef.h>
#include "calltrace/collect.h"

/* The name of built-in function `id`, or NULL. */
const char *ct_func_name(unsigned id);
/* The number of built-in functions. */
unsigned ct_func_count(void);
/* "addr malloc(ulong)": the prototype as text (static storage, overwritten by each call). */
const char *ct_func_proto(unsigned id);
/* Whether the function's first argument is an allocation size: the size requested, or 0. */
int ct_alloc_size(const struct ct_call *k, uint64_t *size);
/* "144" / "5, 8" / "\"abc\"..., 'z'" into buf (always terminated). */
void ct_format_args(const struct ct_call *k, char *buf, size_t len);
/* "0x5590..." / "<void>" / "11" / "nil". */
void ct_format_ret(const struct ct_call *k, char *buf, size_t len);
/* The whole text line, "TID obj(sym)->func(args)   = ret <s.nnnnnnnnn>\n" (sym may be NULL or
 * empty; indent spaces after TID, ltrace's -n), into buf; returns its length. */
size_t ct_format_line(const struct ct_call *k, const char *obj, const char *sym, uint64_t dur_ns,
                      unsigned indent, char *buf, size_t len);
/* Escapes s (n bytes) as ltrace does: \n \t \\ and \ooo, '"' kept as is; into buf. */
void ct_escape(const uint8_t *s, size_t n, char *buf, size_t len);
#endif
