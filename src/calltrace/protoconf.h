/* SPDX-License-Identifier: MIT */
/* Prototypes of functions traced by uprobes (`trace -e libc:fopen`), in ltrace's config syntax
 * (ltrace.conf(5)): `file fopen(string, string);`, `typedef NAME = TYPE;`, `;` comments. A
 * built-in table (protos.conf, embedded) and the user's `-F FILE`s, later ones winning. Types
 * are reduced to what trace prints (calltrace_abi.h's enum ct_type): strings as text, hex/addr/
 * pointers/structs in hex, octal, char, signed and unsigned integers. */
#ifndef PROSPECT_CALLTRACE_PROTOCONF_H
#define PROSPECT_CALLTRACE_PROTOCONF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "calltrace/anyfunc.h"

struct ct_uproto {
    uint8_t ret, nargs;
    uint8_t arg[CT_ANY_NARGS];      /* the first four (the registers a uprobe fetches) */
};

/* Adds the prototypes of text (NUL-terminated; file names it in errors). 0, -EINVAL with
 * "FILE:LINE: why" in err, or -ENOMEM. */
int ct_protoconf_add(const char *text, const char *file, char *err, size_t errlen);
/* The built-in table. 0 or as ct_protoconf_add (a bug). */
int ct_protoconf_builtin(char *err, size_t errlen);
/* Reads FILE (a regular file) and adds it. 0, -errno (err: FILE: why) or as ct_protoconf_add. */
int ct_protoconf_file(const char *path, char *err, size_t errlen);
/* The prototype of name, or NULL. */
const struct ct_uproto *ct_protoconf_find(const char *name);
/* The prototype of uprobe'd call id (>= CT_NFUNCS), or NULL. */
const struct ct_uproto *ct_any_proto(unsigned id);
/* The prototype call id is shown with: a built-in's declaration in the table (protos.conf,
 * then -F), else the interposer's compiled one; a uprobe'd function's, or NULL. */
const struct ct_uproto *ct_call_proto(unsigned id);
/* Which of the four argument registers some traced function (the table's functions and the
 * built-ins in mask builtin) takes as a string: bit i; *ret: one returns a string. */
unsigned ct_proto_string_args(uint64_t builtin, bool *ret);
/* The strings built-in f's declaration has beyond the interposer's compiled prototype:
 * bits 0-2 arguments, CT_XSTR_RET the return (calltrace_abi.h), which it then reads safely. */
unsigned ct_builtin_extra_strings(unsigned f);
/* Those of every built-in as the interposer's <strings> field: CT_NFUNCS hex digits and a NUL
 * into out. */
void ct_builtin_strings_field(char *out);
void ct_protoconf_reset(void);
#endif
